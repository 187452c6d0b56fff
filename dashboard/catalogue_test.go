package dashboard_test

import (
	"bytes"
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain/devchain"
	"github.com/rampway/rampway/contract"
)

// mintFragment is the dev chain NFT's mint entry, compact, as the pick page sends it.
func mintFragment(t *testing.T) string {
	t.Helper()
	f, err := contract.FunctionFragment(devchain.NFTABI(), "mint")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, f); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

var functionPath = regexp.MustCompile(`^/dashboard/catalogue/functions/(scf_[0-9A-Za-z]+)\?done=function-registered$`)

// A developer registers the dev chain NFT's mint from the contract's whole ABI, in two steps
// (the ABI's state-changing functions to pick; the one picked with its arguments), with a
// display name that is escaped wherever it shows; then disables it.
func TestCatalogueFunctions(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	a := s.as(t, rampway.RoleDeveloper)
	nft := s.Chain.Contracts().NFT.Hex()
	res, page := a.get("/dashboard/catalogue")
	if res.StatusCode != http.StatusOK || !strings.Contains(page, "No function registered yet") || !strings.Contains(page, `<option value="devnet"`) {
		t.Fatalf("catalogue: %d\n%s", res.StatusCode, page)
	}

	// Step 1, refused with the reason on the page and the values kept.
	for _, c := range []struct{ name, network, address, abi, want string }{
		{"bad JSON", "devnet", nft, `[{"type":"function",`, "The ABI is not valid JSON"},
		{"not an ABI", "devnet", nft, `"mint"`, "must be a JSON array of entries, or one entry"},
		{"nothing", "devnet", nft, "  ", "Paste the contract"},
		{"read-only only", "devnet", nft, `[{"type":"function","name":"totalSupply","inputs":[],"outputs":[{"name":"","type":"uint256"}],"stateMutability":"view"}]`,
			"no function that changes state (1 read-only"},
		{"unknown network", "mainnet", nft, devchain.NFTABI(), `network &#34;mainnet&#34; is not configured`},
		{"bad address", "devnet", "0x123", devchain.NFTABI(), "contract_address"},
	} {
		res, page := a.submit("/dashboard/catalogue/abi", url.Values{"network": {c.network}, "contract_address": {c.address}, "abi": {c.abi}})
		if res.StatusCode != http.StatusBadRequest || !strings.Contains(page, c.want) || !strings.Contains(page, html.EscapeString(strings.TrimSpace(c.abi))) {
			t.Errorf("%s: %d, want 400 with %q\n%s", c.name, res.StatusCode, c.want, page)
		}
	}
	// A function that cannot be registered (an unnamed argument: function_args is keyed by
	// name) is listed with the reason and no button; a legacy constant one is read-only.
	res, page = a.submit("/dashboard/catalogue/abi", url.Values{"network": {"devnet"}, "contract_address": {nft},
		"abi": {`[{"type":"function","name":"f","inputs":[{"name":"","type":"uint256"}],"stateMutability":"nonpayable"},{"constant":true,"name":"g","inputs":[],"outputs":[]}]`}})
	if res.StatusCode != http.StatusOK || !strings.Contains(page, "It cannot be registered") || strings.Contains(page, `id="pick-f-`) ||
		!strings.Contains(page, "1 read-only") {
		t.Fatalf("an ABI with an unnamed argument: %d\n%s", res.StatusCode, page)
	}
	// Step 1: the whole ABI (8 KiB, larger once form-encoded) lists its state-changing
	// functions only.
	res, page = a.submit("/dashboard/catalogue/abi", url.Values{"network": {"devnet"}, "contract_address": {strings.ToLower(nft)}, "abi": {devchain.NFTABI()}})
	if res.StatusCode != http.StatusOK || !strings.Contains(page, "mint(address,uint256)") || !strings.Contains(page, `id="pick-mint-`) ||
		strings.Contains(page, "balanceOf") || !strings.Contains(page, "read-only ones") || !strings.Contains(page, html.EscapeString(mintFragment(t))) {
		t.Fatalf("pick page: %d\n%s", res.StatusCode, page)
	}
	// Step 2: the function picked, its arguments, the native coin proposed (mint is payable).
	pick := url.Values{"network": {"devnet"}, "contract_address": {nft}, "fragment": {mintFragment(t)}}
	res, page = a.submit("/dashboard/catalogue/function-form", pick)
	for _, want := range []string{"<code>to</code></td><td><code>address</code>", "<code>quantity</code></td><td><code>uint256</code>",
		`<option value="ETH" selected>`, `value="300000"`} {
		if res.StatusCode != http.StatusOK || !strings.Contains(page, want) {
			t.Fatalf("register form: %d, lacks %s\n%s", res.StatusCode, want, page)
		}
	}
	register := func(gas, payable, name, image string) (*http.Response, string) {
		v := url.Values{"default_gas_limit": {gas}, "payable_symbol": {payable}, "display_name": {name}, "image_url": {image}}
		for k, x := range pick {
			v[k] = x
		}
		return a.submit("/dashboard/catalogue/functions", v)
	}
	for _, c := range []struct{ gas, payable, name, image, want string }{
		{"lots", "ETH", "", "", "The gas limit must be a whole number"},
		{"20000", "ETH", "", "", "default_gas_limit must be between 21000 and 30000000"},
		{"300000", "DOGE", "", "", `payable_symbol &#34;DOGE&#34; is not an asset`},
		{"300000", "ETH", strings.Repeat("n", 101), "", "display_name"},
		{"300000", "ETH", "", "ftp://x.example/a.png", "image_url"},
	} {
		res, page := register(c.gas, c.payable, c.name, c.image)
		if res.StatusCode != http.StatusBadRequest || !strings.Contains(page, c.want) || !strings.Contains(page, `value="`+c.gas+`"`) {
			t.Errorf("register with %+v: %d, want 400 with %q\n%s", c, res.StatusCode, c.want, page)
		}
	}
	xss := `<script>alert("x")</script>`
	res, _ = register("300000", "ETH", xss, "")
	m := functionPath.FindStringSubmatch(res.Header.Get("Location"))
	if res.StatusCode != http.StatusSeeOther || m == nil {
		t.Fatalf("register: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	id := m[1]
	f, err := s.App.Functions.Get(t.Context(), s.Merchant.ID, id)
	if err != nil || f.Signature != "mint(address,uint256)" || f.DisplayName != xss || f.PayableSymbol != "ETH" || f.DefaultGasLimit != 300_000 || f.Contract.Hex() != nft {
		t.Fatalf("registered %+v, %v", f, err)
	}
	escaped := html.EscapeString(xss)
	for _, path := range []string{"/dashboard/catalogue", "/dashboard/catalogue/functions/" + id} {
		_, page := a.get(path)
		if strings.Contains(page, xss) || !strings.Contains(page, escaped) || !strings.Contains(page, id) {
			t.Fatalf("%s: the display name not escaped, or missing:\n%s", path, page)
		}
	}

	// Its display: a bad picture URL is refused on the page; a good one saved.
	res, page = a.submit("/dashboard/catalogue/functions/"+id+"/display", url.Values{"display_name": {"Demo NFT"}, "image_url": {"javascript:alert(1)"}})
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(page, "image_url") || !strings.Contains(page, `value="Demo NFT"`) {
		t.Fatalf("bad picture: %d\n%s", res.StatusCode, page)
	}
	res, _ = a.submit("/dashboard/catalogue/functions/"+id+"/display", url.Values{"display_name": {"Demo NFT"}, "image_url": {"https://shop.example/nft.png"}})
	if f, _ = s.App.Functions.Get(t.Context(), s.Merchant.ID, id); res.StatusCode != http.StatusSeeOther || f.DisplayName != "Demo NFT" || f.ImageURL != "https://shop.example/nft.png" {
		t.Fatalf("display: %d, %+v", res.StatusCode, f)
	}

	// Disabled: the page says so and offers no Disable button any more.
	res, _ = a.submit("/dashboard/catalogue/functions/"+id+"/disable", nil)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/dashboard/catalogue/functions/"+id+"?done=function-off" {
		t.Fatalf("disable: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	if f, _ = s.App.Functions.Get(t.Context(), s.Merchant.ID, id); f.Status != rampway.ContractFunctionDisabled {
		t.Fatalf("status %s", f.Status)
	}
	if _, page = a.get("/dashboard/catalogue/functions/" + id + "?done=function-off"); !strings.Contains(page, "The function is disabled") ||
		strings.Contains(page, "Disable the function") {
		t.Fatalf("disabled function's page:\n%s", page)
	}
	// Another merchant's function is not found from here.
	theirs := s.orderFor(t, s.Other) // registers a function of the other merchant
	_ = theirs
	fs, _ := s.App.Functions.List(t.Context(), s.Other.ID)
	for _, path := range []string{"/dashboard/catalogue/functions/" + fs[0].ID} {
		if res, _ := a.get(path); res.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, res.StatusCode)
		}
		if res, _ := a.submit(path+"/disable", nil); res.StatusCode != http.StatusNotFound {
			t.Errorf("disable %s: %d, want 404", path, res.StatusCode)
		}
	}
	if g, _ := s.App.Functions.Get(t.Context(), s.Other.ID, fs[0].ID); g.Status != rampway.ContractFunctionActive {
		t.Fatal("another merchant's function was disabled")
	}
	if got, want := s.auditActions(t, s.Merchant.ID), []string{"function.register", "function.display", "function.disable"}; !slices.Equal(got, want) {
		t.Fatalf("audit log %v, want %v", got, want)
	}
}

// Deposit addresses: set (checked as the admin API checks it), listed, removed.
func TestCatalogueDepositAddresses(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	a := s.as(t, rampway.RoleOwner)
	const addr = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
	for _, c := range []struct{ asset, address, want string }{
		{"devnet/ETH", "0x1234", "address"},
		{"devnet/DOGE", addr, "DOGE"},
		{"mainnet/ETH", addr, "mainnet"},
		{"devnet/ETH", "0x0000000000000000000000000000000000000000", "address"},
	} {
		res, page := a.submit("/dashboard/catalogue/deposit-addresses", url.Values{"asset": {c.asset}, "address": {c.address}})
		if res.StatusCode != http.StatusBadRequest || !strings.Contains(page, c.want) || !strings.Contains(page, `value="`+c.address+`"`) {
			t.Errorf("set %s %s: %d, want 400 naming %s\n%s", c.asset, c.address, res.StatusCode, c.want, page)
		}
	}
	res, _ := a.submit("/dashboard/catalogue/deposit-addresses", url.Values{"asset": {"devnet/ETH"}, "address": {strings.ToLower(addr)}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/dashboard/catalogue?done=deposit-set" {
		t.Fatalf("set: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	_, page := a.get("/dashboard/catalogue?done=deposit-set")
	if !strings.Contains(page, addr) || !strings.Contains(page, "The deposit address is saved") {
		t.Fatalf("catalogue after set:\n%s", page)
	}
	res, _ = a.submit("/dashboard/catalogue/deposit-addresses/remove", url.Values{"network": {"devnet"}, "symbol": {"ETH"}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("remove: %d", res.StatusCode)
	}
	if ds, _ := s.App.Store.MerchantDepositAddresses(t.Context(), s.Merchant.ID); len(ds) != 0 {
		t.Fatalf("left: %v", ds)
	}
	if res, _ = a.submit("/dashboard/catalogue/deposit-addresses/remove", url.Values{"network": {"devnet"}, "symbol": {"ETH"}}); res.StatusCode != http.StatusNotFound {
		t.Fatalf("remove again: %d, want 404", res.StatusCode)
	}
	if got, want := s.auditActions(t, s.Merchant.ID), []string{"deposit_address.set", "deposit_address.delete"}; !slices.Equal(got, want) {
		t.Fatalf("audit log %v, want %v", got, want)
	}
}

// The forms of both sections: support and viewer get 403 on every page and every POST, and
// nothing changes; a POST without the CSRF token is refused, whoever sends it.
func TestDevelopersCatalogueForbidden(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	ctx := t.Context()
	key, _, err := s.App.Merchants.IssueAPIKey(ctx, s.Merchant.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	s.orderFor(t, s.Merchant)
	fs, _ := s.App.Functions.List(ctx, s.Merchant.ID)
	fid := fs[0].ID
	gets := []string{"/dashboard/developers", "/dashboard/developers/events", "/dashboard/developers/keys/" + key.ID + "/revoke",
		"/dashboard/catalogue", "/dashboard/catalogue/functions/" + fid}
	posts := map[string]url.Values{
		"/dashboard/developers/keys":                         nil,
		"/dashboard/developers/keys/" + key.ID + "/revoke":   nil,
		"/dashboard/developers/webhook-url":                  {"webhook_url": {"https://evil.example/"}},
		"/dashboard/developers/webhook-secret":               {"grace": {"0s"}},
		"/dashboard/catalogue/abi":                           {"network": {"devnet"}, "contract_address": {s.Chain.Contracts().NFT.Hex()}, "abi": {devchain.NFTABI()}},
		"/dashboard/catalogue/function-form":                 {"network": {"devnet"}, "contract_address": {s.Chain.Contracts().NFT.Hex()}, "fragment": {mintFragment(t)}},
		"/dashboard/catalogue/functions":                     {"network": {"devnet"}, "contract_address": {s.Chain.Contracts().NFT.Hex()}, "fragment": {mintFragment(t)}, "default_gas_limit": {"300000"}},
		"/dashboard/catalogue/functions/" + fid + "/display": {"display_name": {"pwned"}},
		"/dashboard/catalogue/functions/" + fid + "/disable": nil,
		"/dashboard/catalogue/deposit-addresses":             {"asset": {"devnet/ETH"}, "address": {"0x70997970C51812dc3A010C7d01b50e0d17dc79C8"}},
		"/dashboard/catalogue/deposit-addresses/remove":      {"network": {"devnet"}, "symbol": {"ETH"}},
	}
	for _, role := range []rampway.DashboardRole{rampway.RoleSupport, rampway.RoleViewer} {
		a := s.as(t, role)
		for _, p := range gets {
			res, page := a.get(p)
			if res.StatusCode != http.StatusForbidden || strings.Contains(page, "<form method=\"post\" action=\"/dashboard/developers") ||
				strings.Contains(page, "/dashboard/catalogue") || strings.Contains(page, "href=\"/dashboard/developers") {
				t.Errorf("%s GET %s: %d, want 403 without the section's buttons or links\n%s", role, p, res.StatusCode, page)
			}
		}
		for p, form := range posts {
			if res, _ := a.submit(p, form); res.StatusCode != http.StatusForbidden {
				t.Errorf("%s POST %s: %d, want 403", role, p, res.StatusCode)
			}
		}
	}
	for _, role := range []rampway.DashboardRole{rampway.RoleOwner, rampway.RoleOperator} {
		a := s.as(t, role)
		for p, form := range posts {
			v := url.Values{}
			for k, x := range form {
				v[k] = x
			}
			v.Set("merchant", s.Merchant.ID)
			if res, _ := a.post(p, v); res.StatusCode != http.StatusForbidden {
				t.Errorf("%s POST %s without the CSRF token: %d, want 403", role, p, res.StatusCode)
			}
		}
	}
	// Nothing changed.
	m, _ := s.App.Merchants.Get(ctx, s.Merchant.ID)
	keys, _ := s.App.Merchants.APIKeys(ctx, s.Merchant.ID)
	fs, _ = s.App.Functions.List(ctx, s.Merchant.ID)
	ds, _ := s.App.Store.MerchantDepositAddresses(ctx, s.Merchant.ID)
	if m.WebhookURL != "" || m.HasWebhookSecret(false) || len(keys) != 1 || keys[0].RevokedAt != nil || len(fs) != 1 ||
		fs[0].Status != rampway.ContractFunctionActive || fs[0].DisplayName != "" || len(ds) != 0 {
		t.Fatalf("a refused POST changed something: %+v %+v %+v %+v", m, keys, fs, ds)
	}
	if got := s.auditActions(t, s.Merchant.ID); len(got) != 0 {
		t.Fatalf("audit log %v, want nothing", got)
	}
}
