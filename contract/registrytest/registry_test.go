package registrytest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain"
	"github.com/rampway/rampway/chain/devchain"
	"github.com/rampway/rampway/chain/devchain/devchaintest"
	"github.com/rampway/rampway/contract"
	"github.com/rampway/rampway/sqlite"
)

// fragment returns the ABI entry of the named function from a contract ABI.
func fragment(t *testing.T, contractABI, name string) json.RawMessage {
	t.Helper()
	f, err := contract.FunctionFragment(contractABI, name)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

type registryEnv struct {
	reg *contract.Registry
	// dev is a registry in dev mode on the same store and chain.
	dev      *contract.Registry
	chain    *devchain.Chain
	merchant string
	other    string
}

func newRegistryEnv(t *testing.T, cfg contract.RegistryConfig) *registryEnv {
	t.Helper()
	c := devchaintest.Start(t)
	nets, err := chain.Dial(t.Context(), []rampway.Network{c.Network("devnet")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nets.Close)
	store, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "r.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	dev := cfg
	dev.DevMode = true
	e := &registryEnv{reg: contract.NewRegistry(cfg, store, nets, nil), dev: contract.NewRegistry(dev, store, nets, nil), chain: c}
	for _, id := range []*string{&e.merchant, &e.other} {
		m := &rampway.Merchant{ID: rampway.NewID(rampway.PrefixMerchant, now()), Name: "m", Status: rampway.MerchantActive, CreatedAt: now(), UpdatedAt: now()}
		if err := store.CreateMerchant(t.Context(), m); err != nil {
			t.Fatal(err)
		}
		*id = m.ID
	}
	return e
}

// The same with Active's cache: Disable applies at once, and a cached function is still only
// its merchant's.
func TestRegistry(t *testing.T) {
	t.Parallel()
	for _, cached := range []bool{false, true} {
		t.Run(fmt.Sprintf("cached=%v", cached), func(t *testing.T) { testRegistry(t, cached) })
	}
}

func testRegistry(t *testing.T, cached bool) {
	var cfg contract.RegistryConfig
	if cached {
		cfg.ActiveCacheTTL = time.Minute
	}
	e := newRegistryEnv(t, cfg)
	ctx := t.Context()
	nft := e.chain.Contracts().NFT.Hex()
	mint := fragment(t, devchain.NFTABI(), "mint")
	params := func(edit func(p *contract.RegisterParams)) contract.RegisterParams {
		p := contract.RegisterParams{Network: "devnet", ContractAddress: nft, ABI: mint, DefaultGasLimit: 200_000, PayableSymbol: "ETH"}
		if edit != nil {
			edit(&p)
		}
		return p
	}

	f, err := e.reg.Register(ctx, e.merchant, params(nil))
	if err != nil {
		t.Fatal(err)
	}
	if f.Signature != "mint(address,uint256)" || f.Status != rampway.ContractFunctionActive || f.Contract.Hex() != nft || !strings.HasPrefix(f.ID, "scf_") {
		t.Fatalf("registered %+v", f)
	}
	quoted, _ := json.Marshal("[" + string(mint) + "]") // a JSON string holding a one-element array
	for name, p := range map[string]contract.RegisterParams{
		"token-paid": params(func(p *contract.RegisterParams) {
			p.ABI, p.PayableSymbol = fragment(t, devchain.NFTABI(), "mintWithToken"), "DUSD"
		}),
		"non-payable": params(func(p *contract.RegisterParams) {
			p.ABI, p.PayableSymbol = fragment(t, devchain.NFTABI(), "freeMint"), ""
		}),
		"abi as a string": params(func(p *contract.RegisterParams) { p.ABI = quoted }),
		"lowercase addr":  params(func(p *contract.RegisterParams) { p.ContractAddress = strings.ToLower(nft) }),
	} {
		if _, err := e.reg.Register(ctx, e.merchant, p); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}

	for _, tc := range []struct {
		name  string
		p     contract.RegisterParams
		field string
		msg   string
	}{
		{"unknown network", params(func(p *contract.RegisterParams) { p.Network = "mainnet" }), "network", `network "mainnet" is not configured`},
		{"bad address", params(func(p *contract.RegisterParams) { p.ContractAddress = "0x12" }), "contract_address", "must be a 0x-prefixed 20-byte hex address"},
		{"bad checksum", params(func(p *contract.RegisterParams) { p.ContractAddress = flipCase(nft) }), "contract_address", "EIP-55"},
		{"no code", params(func(p *contract.RegisterParams) { p.ContractAddress = "0x000000000000000000000000000000000000dEaD" }), "contract_address", "holds no contract on network devnet"},
		{"abi missing", params(func(p *contract.RegisterParams) { p.ABI = nil }), "abi", "abi is required"},
		{"abi two entries", params(func(p *contract.RegisterParams) { p.ABI = json.RawMessage(devchain.NFTABI()) }), "abi", "exactly one function"},
		{"abi broken", params(func(p *contract.RegisterParams) { p.ABI = json.RawMessage(`{"type":`) }), "abi", "not valid JSON"},
		{"abi event", params(func(p *contract.RegisterParams) { p.ABI = json.RawMessage(`{"type":"event","name":"X","inputs":[]}`) }), "abi", "abi: "},
		{"gas too low", params(func(p *contract.RegisterParams) { p.DefaultGasLimit = 20_999 }), "default_gas_limit", "between 21000 and 30000000"},
		{"gas too high", params(func(p *contract.RegisterParams) { p.DefaultGasLimit = 30_000_001 }), "default_gas_limit", "between"},
		{"unknown asset", params(func(p *contract.RegisterParams) { p.PayableSymbol = "BTC" }), "payable_symbol", `"BTC" is not an asset of network devnet`},
		{"native to non-payable", params(func(p *contract.RegisterParams) { p.ABI = fragment(t, devchain.NFTABI(), "freeMint") }), "payable_symbol", "is not payable"},
		{"token to payable", params(func(p *contract.RegisterParams) { p.PayableSymbol = "DUSD" }), "payable_symbol", "must not be payable"},
		{"display name too long", params(func(p *contract.RegisterParams) { p.DisplayName = strings.Repeat("é", 101) }), "display_name", "display_name must be at most 100 characters"},
		{"display name control", params(func(p *contract.RegisterParams) { p.DisplayName = "a\nb" }), "display_name", "display_name must not contain control characters"},
		{"image http", params(func(p *contract.RegisterParams) { p.ImageURL = "http://img.example/a.png" }), "image_url", "image_url must be an absolute https URL"},
		{"image relative", params(func(p *contract.RegisterParams) { p.ImageURL = "/a.png" }), "image_url", "image_url must be an absolute https URL"},
		{"image credentials", params(func(p *contract.RegisterParams) { p.ImageURL = "https://u@img.example/a.png" }), "image_url", "must not carry credentials"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.reg.Register(ctx, e.merchant, tc.p)
			var re *rampway.Error
			if !errors.As(err, &re) || re.Code != rampway.EINVALID || re.Field != tc.field || !strings.Contains(re.Message, tc.msg) {
				t.Fatalf("error %v, want EINVALID on %s containing %q", err, tc.field, tc.msg)
			}
		})
	}
	if _, err := e.reg.Register(ctx, "mch_nope", params(nil)); rampway.ErrorCode(err) != rampway.ENOTFOUND {
		t.Fatalf("unknown merchant: %v", err)
	}
	// What the checkout page shows: kept as given (the name trimmed), read back as stored.
	shown, err := e.reg.Register(ctx, e.merchant, params(func(p *contract.RegisterParams) {
		p.DisplayName, p.ImageURL = "  Demo NFT — édition 1 ", "https://img.example/nft.png"
	}))
	if err != nil || shown.DisplayName != "Demo NFT — édition 1" || shown.ImageURL != "https://img.example/nft.png" {
		t.Fatalf("registered %+v, %v", shown, err)
	}
	if got, err := e.reg.Get(ctx, e.merchant, shown.ID); err != nil || got.DisplayName != shown.DisplayName || got.ImageURL != shown.ImageURL {
		t.Fatalf("Get = %+v, %v", got, err)
	}
	if f.DisplayName != "" || f.ImageURL != "" {
		t.Fatalf("registered without them: %q, %q", f.DisplayName, f.ImageURL)
	}
	// Dev mode takes an http image (the dev server serves its demo images over http).
	if _, err := e.dev.Register(ctx, e.merchant, params(func(p *contract.RegisterParams) {
		p.ImageURL = "http://127.0.0.1:8080/demo/assets/nft.svg"
	})); err != nil {
		t.Fatalf("dev mode and an http image: %v", err)
	}
	// The display changes in place (same id); checked as at registration; per merchant.
	changed, err := e.reg.SetDisplay(ctx, e.merchant, shown.ID, " Golden Ticket ", "https://img.example/ticket.png")
	if err != nil || changed.ID != shown.ID || changed.DisplayName != "Golden Ticket" || changed.ImageURL != "https://img.example/ticket.png" ||
		changed.Signature != shown.Signature || changed.Status != rampway.ContractFunctionActive {
		t.Fatalf("SetDisplay = %+v, %v", changed, err)
	}
	if got, err := e.reg.Get(ctx, e.merchant, shown.ID); err != nil || got.DisplayName != "Golden Ticket" || got.ImageURL != changed.ImageURL {
		t.Fatalf("Get after SetDisplay = %+v, %v", got, err)
	}
	if cleared, err := e.reg.SetDisplay(ctx, e.merchant, shown.ID, "", ""); err != nil || cleared.DisplayName != "" || cleared.ImageURL != "" {
		t.Fatalf("SetDisplay to none = %+v, %v", cleared, err)
	}
	for _, bad := range [][3]string{{"display_name", "a\x00b", ""}, {"image_url", "", "http://img.example/t.png"}} {
		_, err := e.reg.SetDisplay(ctx, e.merchant, shown.ID, bad[1], bad[2])
		var re *rampway.Error
		if !errors.As(err, &re) || re.Code != rampway.EINVALID || re.Field != bad[0] {
			t.Fatalf("SetDisplay(%q, %q) = %v, want EINVALID on %s", bad[1], bad[2], err, bad[0])
		}
	}
	if _, err := e.reg.SetDisplay(ctx, e.other, shown.ID, "x", ""); rampway.ErrorCode(err) != rampway.ENOTFOUND {
		t.Fatalf("another merchant's function: %v", err)
	}

	// Lookups are per merchant.
	if got, err := e.reg.Get(ctx, e.merchant, f.ID); err != nil || got.ID != f.ID {
		t.Fatalf("Get = %v, %v", got, err)
	}
	if _, err := e.reg.Get(ctx, e.other, f.ID); rampway.ErrorCode(err) != rampway.ENOTFOUND {
		t.Fatalf("another merchant's function: %v", err)
	}
	list, err := e.reg.List(ctx, e.merchant)
	if err != nil || len(list) != 7 {
		t.Fatalf("List = %d, %v", len(list), err)
	}
	got, fn, err := e.reg.Active(ctx, e.merchant, f.ID)
	if err != nil || got.ID != f.ID || fn.Signature() != f.Signature {
		t.Fatalf("Active = %v, %v, %v", got, fn, err)
	}
	if _, err := e.reg.Disable(ctx, e.other, f.ID); rampway.ErrorCode(err) != rampway.ENOTFOUND {
		t.Fatalf("another merchant disabled it: %v", err)
	}
	if d, err := e.reg.Disable(ctx, e.merchant, f.ID); err != nil || d.Status != rampway.ContractFunctionDisabled {
		t.Fatalf("Disable = %v, %v", d, err)
	}
	for _, id := range []string{f.ID, "scf_nope", list[1].ID} {
		_, _, err := e.reg.Active(ctx, e.other, id)
		if rampway.ErrorCode(err) != rampway.EINVALID {
			t.Fatalf("Active(%s) for the wrong merchant: %v", id, err)
		}
	}
	_, _, err = e.reg.Active(ctx, e.merchant, f.ID)
	if rampway.ErrorMessage(err) != `smartContractFunctionId "`+f.ID+`" is disabled` {
		t.Fatalf("Active(disabled) = %v", err)
	}
}

// An RPC failure while checking the contract is "unavailable", not the merchant's fault.
type downChains struct{ net rampway.Network }

func (d downChains) Network(string) (*rampway.Network, bool) { return &d.net, true }
func (d downChains) HasCode(context.Context, string, common.Address) (bool, error) {
	return false, errors.New("connection refused")
}

func TestRegistryNetworkDown(t *testing.T) {
	t.Parallel()
	e := newRegistryEnv(t, contract.RegistryConfig{})
	store, _ := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "d.db"), nil)
	defer store.Close()
	m := &rampway.Merchant{ID: rampway.NewID(rampway.PrefixMerchant, now()), Name: "m", Status: rampway.MerchantActive, CreatedAt: now(), UpdatedAt: now()}
	_ = store.CreateMerchant(t.Context(), m)
	reg := contract.NewRegistry(contract.RegistryConfig{}, store, downChains{e.chain.Network("devnet")}, nil)
	_, err := reg.Register(t.Context(), m.ID, contract.RegisterParams{Network: "devnet", ContractAddress: e.chain.Contracts().NFT.Hex(),
		ABI: fragment(t, devchain.NFTABI(), "mint"), DefaultGasLimit: 100_000, PayableSymbol: "ETH"})
	if rampway.ErrorCode(err) != rampway.EUNAVAILABLE || strings.Contains(rampway.ErrorMessage(err), "refused") {
		t.Fatalf("error %v: want EUNAVAILABLE without internals", err)
	}
}

func now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// flipCase swaps the case of the first hex letter of a checksummed address, breaking the checksum.
func flipCase(addr string) string {
	b := []byte(addr)
	for i := 2; i < len(b); i++ {
		switch {
		case b[i] >= 'a' && b[i] <= 'f':
			b[i] -= 'a' - 'A'
			return string(b)
		case b[i] >= 'A' && b[i] <= 'F':
			b[i] += 'a' - 'A'
			return string(b)
		}
	}
	return addr
}

func TestFunctionFragment(t *testing.T) {
	t.Parallel()
	if f, err := contract.FunctionFragment(devchain.NFTABI(), "mintIds"); err != nil || !strings.Contains(string(f), `"mintIds"`) {
		t.Fatalf("FunctionFragment = %s, %v", f, err)
	}
	for _, bad := range []struct{ abi, name string }{{devchain.NFTABI(), "nope"}, {"{}", "mint"}, {"[", "mint"}, {devchain.NFTABI(), "Transfer"}} {
		if _, err := contract.FunctionFragment(bad.abi, bad.name); rampway.ErrorCode(err) != rampway.EINVALID {
			t.Errorf("FunctionFragment(%.20q, %s) = %v", bad.abi, bad.name, err)
		}
	}
}
