package testpay_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain/devchain"
	"github.com/rampway/rampway/chain/hd"
	"github.com/rampway/rampway/checkout"
	"github.com/rampway/rampway/config"
	"github.com/rampway/rampway/contract"
	"github.com/rampway/rampway/internal/app"
	"github.com/rampway/rampway/internal/devtest"
	"github.com/rampway/rampway/merchant"
	"github.com/rampway/rampway/provider/testpay"
)

// A provider is one package: this one is known to no other package of rampway, yet configured
// by name it takes an order's card payment end to end: its widget on the checkout page (with
// its script and its origin in the page's CSP), its own page, its signed notification, the
// mint, and the capture of the authorised amount.
func TestAProviderIsOnePackage(t *testing.T) {
	hot, _ := crypto.GenerateKey()
	deployer, _ := crypto.GenerateKey()
	c, err := devchain.Start(t.Context(), devchain.Config{RPCAddr: "127.0.0.1:0", Deployer: deployer,
		Fund: []devchain.Funding{{Address: crypto.PubkeyToAddress(hot.PublicKey), Wei: new(big.Int).Mul(big.NewInt(100), big.NewInt(1e18))}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	mnemonic, _ := hd.NewMnemonic()
	seed, _ := hd.FromMnemonic(mnemonic, "")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	cfg := config.Default()
	cfg.Mode = config.ModeDev
	cfg.HTTP.PublicURL = base
	cfg.Database.Path = filepath.Join(t.TempDir(), "rampway.db")
	cfg.Admin.Token, cfg.Secrets.HashSecret = "dev-admin-token-0123456789abcdef0123", "dev-hash-secret-0123456789abcdef0123"
	cfg.Secrets.HotWalletKey = "0x" + common.Bytes2Hex(crypto.FromECDSA(hot))
	cfg.Networks = []config.Network{{Name: "devnet", ChainID: devchain.ChainID, RPCURLs: []string{c.RPCURL()}, Confirmations: 1,
		Native: config.Asset{Symbol: "ETH", MinAmount: "0.000001", MaxAmount: "100"}}}
	cfg.Checkout.DepositXPub, _ = seed.XPub()
	cfg.Checkout.HotWalletAddress = crypto.PubkeyToAddress(hot.PublicKey).Hex()
	cfg.Checkout.Prices = map[string]string{"ETH": "3000", "EUR": "1.08"}
	cfg.Fiat.Providers = []config.ProviderConfig{{Name: testpay.Name}}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	a, err := app.Start(t.Context(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), app.Options{Listener: ln})
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- a.Serve(ctx) }()
	t.Cleanup(func() { stop(); <-served; a.Close() })

	m, err := a.Merchants.Create(t.Context(), merchant.CreateParams{Name: "Shop"})
	if err != nil {
		t.Fatal(err)
	}
	fragment, _ := contract.FunctionFragment(devchain.NFTABI(), "mint")
	f, err := a.Functions.Register(t.Context(), m.ID, contract.RegisterParams{Network: "devnet", ContractAddress: c.Contracts().NFT.Hex(),
		ABI: fragment, DefaultGasLimit: 300_000, PayableSymbol: "ETH"})
	if err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal(map[string]any{"to": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", "quantity": "1"})
	created, err := a.Checkout.CreateFiatOrder(t.Context(), m, checkout.FiatOrderParams{
		Quote: checkout.FiatQuoteParams{FiatSymbol: "EUR", Method: rampway.MethodCard, Execution: checkout.ExecutionParams{FunctionID: f.ID,
			FunctionArgs: args, NetworkName: "devnet", Payment: &checkout.PaymentParams{Symbol: "ETH", TotalValue: "0.01"}}},
		Order: checkout.OrderParams{MerchantUserID: "u1", MerchantRedirectURL: "https://shop.example/done", User: map[string]string{
			"user_first_name": "Ada", "user_last_name": "Lovelace", "user_email_id": "ada@example.com", "user_dob": "1990-12-10", "user_countryCode": "DE"}}})
	if err != nil {
		t.Fatal(err)
	}

	// The page (after its start step) mounts the provider's widget: its HTML, its scripts, its
	// origin in the CSP.
	browser := &http.Client{Timeout: 20 * time.Second}
	at, page := devtest.PaymentPage(t, browser, created.GatewayURL)
	link := regexp.MustCompile(`id="testpay-link" href="([^"]+)"`).FindStringSubmatch(page)
	if link == nil || !strings.Contains(page, `<script src="`+testpay.ScriptOrigin+`/v1.js" defer>`) ||
		!strings.Contains(page, `<script src="/checkout/widgets/`+testpay.WidgetKind+`.js" defer>`) {
		t.Fatalf("no testpay widget on the page:\n%s", page)
	}
	res, err := browser.Get(at)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self' "+testpay.ScriptOrigin) {
		t.Fatalf("the page's CSP does not allow the widget's script: %s", csp)
	}
	res, err = browser.Get(base + "/checkout/widgets/" + testpay.WidgetKind + ".js")
	if err != nil {
		t.Fatal(err)
	}
	script, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(script), "testpay") || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/javascript") {
		t.Fatalf("widget script: %d %s %q", res.StatusCode, res.Header.Get("Content-Type"), script)
	}

	// Its page approves the payment; its signed notification comes back; the order is minted
	// and the authorisation captured.
	res, err = browser.PostForm(devtest.Resolve(t, at, link[1]), url.Values{"result": {"approve"}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 || !strings.HasPrefix(res.Request.URL.String(), base+"/checkout") {
		t.Fatalf("after approving: %d at %s", res.StatusCode, res.Request.URL)
	}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		o, err := a.Store.Order(t.Context(), created.Order.ID)
		if err != nil {
			t.Fatal(err)
		}
		ps, err := a.Store.FiatPayments(t.Context(), o.ID)
		if err != nil {
			t.Fatal(err)
		}
		if o.Status == rampway.StatusSuccess && len(ps) == 1 && ps[0].Status == rampway.FiatSucceeded {
			if ps[0].Provider != testpay.Name || ps[0].CardLast4 != "4242" {
				t.Fatalf("payment: %+v", ps[0])
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("order %s, payments %+v, a minute after the approval", o.Status, ps)
		}
	}
}
