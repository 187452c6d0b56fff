package checkoutpage

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	qrcode "github.com/skip2/go-qrcode"

	"github.com/rampway/rampway"
)

// viewStore holds one order and its transfers, and its merchant and function when given (the
// merchant "Demo Store" and no function otherwise).
type viewStore struct {
	Store
	order     *rampway.Order
	transfers []*rampway.InboundTransfer
	merchant  *rampway.Merchant
	function  *rampway.ContractFunction
}

func (s *viewStore) Order(context.Context, string) (*rampway.Order, error) { return s.order, nil }
func (s *viewStore) Merchant(context.Context, string) (*rampway.Merchant, error) {
	if s.merchant != nil {
		return s.merchant, nil
	}
	return &rampway.Merchant{Name: "Demo Store"}, nil
}
func (s *viewStore) ContractFunction(context.Context, string) (*rampway.ContractFunction, error) {
	if s.function != nil {
		return s.function, nil
	}
	return nil, errors.New("none")
}
func (s *viewStore) OrderTransfers(context.Context, string) ([]*rampway.InboundTransfer, error) {
	return s.transfers, nil
}
func (s *viewStore) RecordOrderEvent(context.Context, string, rampway.EventName, bool, time.Time) (bool, error) {
	return true, nil
}
func (s *viewStore) RecordVisitEvent(context.Context, string, rampway.EventName, string, time.Time) (bool, error) {
	return true, nil
}

type viewChains struct{ n *rampway.Network }

func (c viewChains) Network(string) (*rampway.Network, bool)      { return c.n, true }
func (c viewChains) Head(context.Context, string) (uint64, error) { return 100, nil }

var (
	viewDeposit = common.HexToAddress("0x70997970C51812dc3A010C7d01b50e0d17dc79C8")
	viewToken   = common.HexToAddress("0x5FbDB2315678afecb367f032d93F642f64180aa3")
)

func viewOrder(status rampway.OrderStatus, token bool, amount, received int64) *rampway.Order {
	a := rampway.Asset{Symbol: "ETH", Network: "devnet", Decimals: 18}
	if token {
		a = rampway.Asset{Symbol: "DUSD", Network: "devnet", Decimals: 6, Contract: viewToken}
	}
	return &rampway.Order{ID: rampway.NewID(rampway.PrefixOrder, time.Now()), Area: rampway.AreaMint, Status: status, Network: "devnet",
		Asset: a, CryptoAmount: big.NewInt(amount), CryptoReceived: big.NewInt(received), DepositAddress: viewDeposit,
		MerchantRedirectURL: "https://shop.example/back", ExpiresAt: time.Now().Add(time.Hour)}
}

// get serves path for the order and returns the answer's body.
func viewGet(t *testing.T, h *Handler, path string, o *rampway.Order) string {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path+"?order_id="+o.ID+"&hash=h", nil))
	if rec.Code != 200 {
		t.Fatalf("%s: %d\n%s", path, rec.Code, rec.Body)
	}
	return rec.Body.String()
}

// attr returns the value of attribute name of the element with id in page (unescaped).
func attr(t *testing.T, page, id, name string) string {
	t.Helper()
	tag := regexp.MustCompile(`<[a-z]+ [^>]*id="` + id + `"[^>]*>`).FindString(page)
	if tag == "" {
		t.Fatalf("no #%s in the page", id)
	}
	m := regexp.MustCompile(`\s` + name + `="([^"]*)"`).FindStringSubmatch(tag)
	if m == nil {
		return ""
	}
	return html.UnescapeString(m[1])
}

func text(t *testing.T, page, id string) string {
	t.Helper()
	m := regexp.MustCompile(`id="` + id + `"[^>]*>([^<]*)<`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no #%s in the page", id)
	}
	return html.UnescapeString(m[1])
}

// The page asks for what is due, everywhere, from the same EIP-681 URI: the link's href
// (not html/template's "#ZgotmplZ"), the QR code (a PNG of exactly that URI), the amount, its
// copy button and the wallet's units; on the first render and in the status JSON. After a
// partial payment that is the rest, not the whole amount again.
func TestPageAsksForWhatIsDue(t *testing.T) {
	net := &rampway.Network{Name: "devnet", ChainID: big.NewInt(1337), Confirmations: 1, Native: rampway.Asset{Symbol: "ETH"}}
	for _, tc := range []struct {
		name      string
		o         *rampway.Order
		transfers []*rampway.InboundTransfer
		due       string
		units     string
		uri       string
		label     string
	}{
		{"native", viewOrder(rampway.StatusCreated, false, 10262800000000000, 0), nil, "0.0102628", "10262800000000000",
			"ethereum:0x70997970C51812dc3A010C7d01b50e0d17dc79C8@1337?value=10262800000000000", Messages["amount"]},
		{"token", viewOrder(rampway.StatusCreated, true, 10_050_000, 0), nil, "10.05", "10050000",
			"ethereum:0x5FbDB2315678afecb367f032d93F642f64180aa3@1337/transfer?address=0x70997970C51812dc3A010C7d01b50e0d17dc79C8&uint256=10050000", Messages["amount"]},
		{"native underpaid", viewOrder(rampway.StatusUnderpaid, false, 10262800000000000, 5000000000000000),
			[]*rampway.InboundTransfer{{TxHash: common.Hash{1}, Amount: big.NewInt(5000000000000000), Status: rampway.TransferConfirmed}},
			"0.0052628", "5262800000000000", "ethereum:0x70997970C51812dc3A010C7d01b50e0d17dc79C8@1337?value=5262800000000000", Messages["amount_left"]},
		{"token underpaid", viewOrder(rampway.StatusUnderpaid, true, 10_050_000, 5_025_000),
			[]*rampway.InboundTransfer{{TxHash: common.Hash{2}, Amount: big.NewInt(5_025_000), Status: rampway.TransferConfirmed}},
			"5.025", "5025000", "ethereum:0x5FbDB2315678afecb367f032d93F642f64180aa3@1337/transfer?address=0x70997970C51812dc3A010C7d01b50e0d17dc79C8&uint256=5025000", Messages["amount_left"]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := New(Config{}, Deps{Store: &viewStore{order: tc.o, transfers: tc.transfers}, Checkout: anyHash{}, Chains: viewChains{net}, Log: slog.New(slog.DiscardHandler)})
			page := viewGet(t, h, "/checkout", tc.o)
			if strings.Contains(page, "ZgotmplZ") {
				t.Fatalf("html/template refused a value:\n%s", page)
			}
			png, err := qrcode.Encode(tc.uri, qrcode.Medium, qrSize)
			if err != nil {
				t.Fatal(err)
			}
			qr := "data:image/png;base64," + base64.StdEncoding.EncodeToString(png)
			for _, c := range []struct{ what, got, want string }{
				{"#uri href", attr(t, page, "uri", "href"), tc.uri},
				{"#qr data-uri", attr(t, page, "qr", "data-uri"), tc.uri},
				{"#qr src", attr(t, page, "qr", "src"), qr},
				{"#amount", text(t, page, "amount"), tc.due},
				{"#copy-amount data-copy", attr(t, page, "copy-amount", "data-copy"), tc.due},
				{"the wallet's units", attr(t, page, "checkout", "data-units"), tc.units},
				{"#pay-label", text(t, page, "pay-label"), tc.label},
			} {
				if c.got != c.want {
					t.Errorf("%s = %q, want %q", c.what, c.got, c.want)
				}
			}
			if attr(t, page, "pay", "hidden") != "" || strings.Contains(regexp.MustCompile(`<section id="pay"[^>]*>`).FindString(page), "hidden") {
				t.Errorf("the payment section is hidden")
			}

			var st Status
			if err := json.Unmarshal([]byte(viewGet(t, h, "/checkout/status", tc.o)), &st); err != nil {
				t.Fatal(err)
			}
			if !st.Payable || st.Due != tc.due || st.DueUnits != tc.units || string(st.PaymentURI) != tc.uri || string(st.QR) != qr ||
				st.Partial != (tc.o.CryptoReceived.Sign() > 0) {
				t.Errorf("status: %+v", st)
			}
		})
	}
}

// After the payment the page keeps what was paid (amount, asset, each payment's transaction)
// and the order's transaction, with explorer links when the network has an explorer; it asks
// for nothing more.
func TestPageShowsWhatWasPaid(t *testing.T) {
	net := &rampway.Network{Name: "devnet", ChainID: big.NewInt(1337), Confirmations: 1, ExplorerURL: "https://explorer.example/",
		Native: rampway.Asset{Symbol: "ETH"}}
	o := viewOrder(rampway.StatusSuccess, false, 10262800000000000, 10262800000000000)
	o.ExecutionTxHash = "0x" + strings.Repeat("ab", 32)
	pay1, pay2 := common.HexToHash("0x"+strings.Repeat("01", 32)), common.HexToHash("0x"+strings.Repeat("02", 32))
	store := &viewStore{order: o, transfers: []*rampway.InboundTransfer{
		{TxHash: pay1, Amount: big.NewInt(5000000000000000), Status: rampway.TransferConfirmed},
		{TxHash: common.Hash{9}, Amount: big.NewInt(1), Status: rampway.TransferDropped},
		{TxHash: pay2, Amount: big.NewInt(5262800000000000), Status: rampway.TransferConfirmed},
	}}
	h := New(Config{}, Deps{Store: store, Checkout: anyHash{}, Chains: viewChains{net}, Log: slog.New(slog.DiscardHandler)})
	page := viewGet(t, h, "/checkout", o)
	if !regexp.MustCompile(`<section id="pay"[^>]*hidden`).MatchString(page) || regexp.MustCompile(`<div id="paid"[^>]*hidden`).MatchString(page) {
		t.Fatalf("at SUCCESS the payment section shows or what was paid does not:\n%s", page)
	}
	for _, want := range []string{
		`<span id="paid-amount">0.0102628</span> ETH`,
		`0.005 ETH</span> <code class="hex">` + pay1.Hex() + `</code>`,
		`href="https://explorer.example/tx/` + pay1.Hex() + `"`,
		`0.0052628 ETH</span> <code class="hex">` + pay2.Hex() + `</code>`,
		`href="https://explorer.example/tx/` + pay2.Hex() + `"`,
		`<code id="tx-hash" class="hex">` + o.ExecutionTxHash + `</code>`,
		`href="https://explorer.example/tx/` + o.ExecutionTxHash + `"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page has no %s", want)
		}
	}
	if strings.Contains(page, common.Hash{9}.Hex()) {
		t.Errorf("the page shows a dropped transfer")
	}
	var st Status
	if err := json.Unmarshal([]byte(viewGet(t, h, "/checkout/status", o)), &st); err != nil {
		t.Fatal(err)
	}
	if st.Payable || st.Due != "" || st.PaymentURI != "" || st.QR != "" || len(st.Payments) != 2 || st.Received != "0.0102628" ||
		st.Payments[1] != (Payment{Amount: "0.0052628", TxHash: pay2.Hex(), TxURL: "https://explorer.example/tx/" + pay2.Hex(), Confirmed: true}) ||
		st.TxURL != "https://explorer.example/tx/"+o.ExecutionTxHash {
		t.Fatalf("status %+v", st)
	}
}

// A wallet that does not know the network is given a public RPC URL: the configured one, or
// the network's own when it is on this machine (the dev chain); never a remote endpoint of the
// configuration (it may hold a provider's key).
func TestPublicRPC(t *testing.T) {
	h := New(Config{PublicRPCURLs: map[string]string{"mainnet": "https://rpc.example", "bad": "ftp://x", "creds": "https://u:p@rpc.example"}},
		Deps{Checkout: anyHash{}, Chains: oneNetwork{}, Log: slog.New(slog.DiscardHandler)})
	for _, tc := range []struct {
		n    rampway.Network
		want string
	}{
		{rampway.Network{Name: "mainnet", RPCURLs: []string{"https://eth.provider.example/v2/SECRET"}}, "https://rpc.example"},
		{rampway.Network{Name: "other", RPCURLs: []string{"https://eth.provider.example/v2/SECRET"}}, ""},
		{rampway.Network{Name: "devnet", RPCURLs: []string{"http://127.0.0.1:8545"}}, "http://127.0.0.1:8545"},
		{rampway.Network{Name: "devnet", RPCURLs: []string{"http://localhost:8545"}}, "http://localhost:8545"},
		{rampway.Network{Name: "devnet", RPCURLs: []string{"http://user:pw@127.0.0.1:8545"}}, ""},
		{rampway.Network{Name: "devnet", RPCURLs: []string{"http://127.0.0.1:8545/?key=x"}}, ""},
		{rampway.Network{Name: "devnet", RPCURLs: []string{"ws://127.0.0.1:8546"}}, ""},
		{rampway.Network{Name: "devnet"}, ""},
		{rampway.Network{Name: "bad", RPCURLs: []string{"http://127.0.0.1:8545"}}, ""},
		{rampway.Network{Name: "creds"}, ""},
	} {
		if got := h.publicRPC(&tc.n); got != tc.want {
			t.Errorf("publicRPC(%s %v) = %q, want %q", tc.n.Name, tc.n.RPCURLs, got, tc.want)
		}
	}
}

// The page gives the wallet what wallet_addEthereumChain needs.
func TestPageDescribesTheNetwork(t *testing.T) {
	net := &rampway.Network{Name: "devnet", ChainID: big.NewInt(1337), RPCURLs: []string{"http://127.0.0.1:8545"}, ExplorerURL: "https://explorer.example/",
		Native: rampway.Asset{Symbol: "ETH"}}
	o := viewOrder(rampway.StatusCreated, false, 1000, 0)
	page := viewGet(t, New(Config{}, Deps{Store: &viewStore{order: o}, Checkout: anyHash{}, Chains: viewChains{net}, Log: slog.New(slog.DiscardHandler)}), "/checkout", o)
	for name, want := range map[string]string{"data-chain-id": "0x539", "data-chain-name": "devnet", "data-native-symbol": "ETH",
		"data-rpc-url": "http://127.0.0.1:8545", "data-explorer-url": "https://explorer.example"} {
		if got := attr(t, page, "checkout", name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
}

// The page shows what is bought as a shop would: the merchant's logo (its name as the alt
// text) and name, the function's display name and image, and the price broken down in the
// paying asset (value, network fee, service fee, total); its CSP allows images from exactly
// the origins of those two. Without them: the merchant's name alone, the function's ABI name,
// no image, and no origin but the page's own.
func TestPageShowsWhatIsBought(t *testing.T) {
	net := &rampway.Network{Name: "devnet", ChainID: big.NewInt(1337), Confirmations: 1, Native: rampway.Asset{Symbol: "ETH"}}
	order := func(token bool) *rampway.Order {
		o := viewOrder(rampway.StatusCreated, token, 0, 0)
		if token { // 10 DUSD, 0.05 of network fee, 0.1 of service fee
			o.PaymentValue, o.NetworkFee, o.ServiceFee, o.CryptoAmount = big.NewInt(10_000_000), big.NewInt(50_000), big.NewInt(100_000), big.NewInt(10_150_000)
		} else { // 0.01 ETH, 0.0000628 ETH of network fee, 0.0002 ETH of service fee
			o.PaymentValue, o.NetworkFee, o.ServiceFee, o.CryptoAmount = big.NewInt(1e16), big.NewInt(62_800_000_000_000), big.NewInt(2e14), big.NewInt(10_262_800_000_000_000)
		}
		return o
	}
	shop := &rampway.Merchant{Name: "Acme <Shop>", LogoURL: "https://cdn.acme.example/logo.svg?v=2"}
	nft := &rampway.ContractFunction{Signature: "mintWithToken(address,uint256)", DisplayName: "Golden Ticket", ImageURL: "https://img.example:8443/t.png"}
	for _, tc := range []struct {
		name     string
		o        *rampway.Order
		merchant *rampway.Merchant
		function *rampway.ContractFunction
		want     []string // in the page, in this order
		wantNot  []string
		imgSrc   string
		price    [][2]string
	}{
		{"with logo and image", order(false), shop, nft,
			[]string{`<title>Checkout · Acme &lt;Shop&gt;</title>`,
				`<img class="logo" src="https://cdn.acme.example/logo.svg?v=2" alt="Acme &lt;Shop&gt;" height="40"><span aria-hidden="true">Acme &lt;Shop&gt;</span>`,
				`<img class="item-image" src="https://img.example:8443/t.png" alt="" width="64" height="64">`,
				`<h1 id="item-name">Golden Ticket</h1>`},
			nil, "img-src 'self' data: https://cdn.acme.example https://img.example:8443;",
			[][2]string{{"Price", "0.01 ETH"}, {"Network fee", "0.0000628 ETH"}, {"Service fee", "0.0002 ETH"}, {"Total", "0.0102628 ETH"}}},
		{"token", order(true), shop, nft, []string{`<h1 id="item-name">Golden Ticket</h1>`}, nil,
			"img-src 'self' data: https://cdn.acme.example https://img.example:8443;",
			[][2]string{{"Price", "10 DUSD"}, {"Network fee", "0.05 DUSD"}, {"Service fee", "0.1 DUSD"}, {"Total", "10.15 DUSD"}}},
		{"one origin for both", order(false), &rampway.Merchant{Name: "Acme", LogoURL: "http://127.0.0.1:8080/demo/assets/logo.svg"},
			&rampway.ContractFunction{Signature: "mint(address,uint256)", DisplayName: "Demo NFT", ImageURL: "http://127.0.0.1:8080/demo/assets/nft.svg"},
			[]string{`alt="Acme"`, `<h1 id="item-name">Demo NFT</h1>`}, nil, "img-src 'self' data: http://127.0.0.1:8080;", nil},
		{"without", order(false), &rampway.Merchant{Name: "Acme"}, &rampway.ContractFunction{Signature: "mintWithToken(address,uint256)"},
			[]string{`<p class="seller"><span class="visually-hidden">Sold by </span><span>Acme</span></p>`, `<h1 id="item-name">mint with token</h1>`},
			[]string{"<img class="}, "img-src 'self' data:;", nil},
		{"no function", order(false), &rampway.Merchant{Name: "Acme"}, nil, []string{`<h1 id="item-name">Checkout</h1>`}, nil, "img-src 'self' data:;", nil},
		{"an order without its parts", viewOrder(rampway.StatusCreated, false, 10262800000000000, 0), shop, nft, nil, nil,
			"img-src 'self' data: https://cdn.acme.example https://img.example:8443;", [][2]string{{"Total", "0.0102628 ETH"}}},
		// A fee of 18 decimals is rounded for people (its exact amount in the title); the total,
		// what the user sends, never.
		{"a long fee", func() *rampway.Order {
			o := order(false)
			o.NetworkFee, o.CryptoAmount = big.NewInt(11_434_835_320_266), big.NewInt(10_211_434_835_320_266)
			return o
		}(), shop, nft, []string{`<dd title="0.000011434835320266 ETH"><span class="crypto">0.0000114 ETH</span></dd>`}, nil,
			"img-src 'self' data: https://cdn.acme.example https://img.example:8443;",
			[][2]string{{"Price", "0.01 ETH"}, {"Network fee", "0.0000114 ETH"}, {"Service fee", "0.0002 ETH"}, {"Total", "0.010211434835320266 ETH"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := New(Config{}, Deps{Store: &viewStore{order: tc.o, merchant: tc.merchant, function: tc.function}, Checkout: anyHash{}, Chains: viewChains{net}, Log: slog.New(slog.DiscardHandler)})
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/checkout?order_id="+tc.o.ID+"&hash=h", nil))
			page := rec.Body.String()
			if rec.Code != 200 || strings.Contains(page, "ZgotmplZ") {
				t.Fatalf("%d\n%s", rec.Code, page)
			}
			rest := page
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("no %s (after the ones before it) in the page:\n%s", w, page)
				}
				rest = rest[i+len(w):]
			}
			for _, w := range tc.wantNot {
				if strings.Contains(page, w) {
					t.Errorf("the page has %s", w)
				}
			}
			if csp := rec.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "; "+tc.imgSrc) {
				t.Errorf("CSP %q, want %q", csp, tc.imgSrc)
			}
			price := tc.price
			if price == nil {
				price = [][2]string{{"Price", "0.01 ETH"}, {"Network fee", "0.0000628 ETH"}, {"Service fee", "0.0002 ETH"}, {"Total", "0.0102628 ETH"}}
			}
			var got [][2]string
			for _, m := range regexp.MustCompile(`<div( class="total")?><dt>([^<]*)</dt><dd[^>]*><span class="crypto">([^<]*)</span></dd></div>`).FindAllStringSubmatch(page, -1) {
				got = append(got, [2]string{m[2], m[3]})
				if (m[1] != "") != (m[2] == "Total") {
					t.Errorf("line %s marked total: %v", m[2], m[1] != "")
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(price) {
				t.Errorf("price lines %v, want %v", got, price)
			}
		})
	}
}

func TestImageSource(t *testing.T) {
	for raw, want := range map[string]string{
		"https://cdn.example/a.png":          "https://cdn.example",
		"https://cdn.example:8443/a.png?x=1": "https://cdn.example:8443",
		"http://127.0.0.1:8080/demo/x.svg":   "http://127.0.0.1:8080",
		"http://[::1]:8080/x.svg":            "http:",
		"":                                   "",
		"data:image/png;base64,AAAA":         "",
		"javascript:alert(1)":                "",
		"/relative.png":                      "",
	} {
		if got := imageSource(raw); got != want {
			t.Errorf("imageSource(%q) = %q, want %q", raw, got, want)
		}
	}
}
