package app_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/url"
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
	"github.com/rampway/rampway/internal/pgtest"
	"github.com/rampway/rampway/merchant"
	"github.com/rampway/rampway/provider/sandbox"
)

// The sandbox's card journeys on PostgreSQL, through the real server (the page's start step and
// card form, the sandbox's pages and notifications over HTTP): a decline, a failed 3-D Secure challenge, then a
// card that pays; the order is executed. Then every row of every table, as text, holds no card
// number: only the brand and the last four digits are kept.
func TestFiatCardsLeaveNoCardNumberInPostgres(t *testing.T) {
	dsn := pgtest.FreshDSN(t)
	hot, _ := crypto.GenerateKey()
	deployer, _ := crypto.GenerateKey()
	c, err := devchain.Start(t.Context(), devchain.Config{RPCAddr: "127.0.0.1:0", Deployer: deployer, // mining on its own, as rampway dev's
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
	cfg.Database = config.Database{Driver: "postgres", DSN: dsn}
	cfg.Admin.Token, cfg.Secrets.HashSecret = "dev-admin-token-0123456789abcdef0123", "dev-hash-secret-0123456789abcdef0123"
	cfg.Secrets.HotWalletKey = "0x" + common.Bytes2Hex(crypto.FromECDSA(hot))
	cfg.Networks = []config.Network{{Name: "devnet", ChainID: devchain.ChainID, RPCURLs: []string{c.RPCURL()}, Confirmations: 1,
		Native: config.Asset{Symbol: "ETH", MinAmount: "0.000001", MaxAmount: "100"}}}
	cfg.Checkout.DepositXPub, _ = seed.XPub()
	cfg.Checkout.HotWalletAddress = crypto.PubkeyToAddress(hot.PublicKey).Hex()
	cfg.Checkout.Prices = map[string]string{"ETH": "3000", "EUR": "1.08"}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	logs := &devtest.LockedBuffer{}
	a, err := app.Start(t.Context(), cfg, slog.New(slog.NewJSONHandler(logs, nil)), app.Options{Listener: ln})
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
	id := created.Order.ID
	action := regexp.MustCompile(`<form method="post" action="([^"]+)" id="card-form"`)
	pay := func(number string) string {
		t.Helper()
		at, page := devtest.PaymentPage(t, http.DefaultClient, created.GatewayURL)
		m := action.FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("no card form:\n%s", page)
		}
		res, err := http.PostForm(devtest.Resolve(t, at, m[1]), url.Values{"card_number": {number}, "expiry": {"12/34"}, "cvc": {"123"}, "name": {"Ada Lovelace"}})
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.Request.URL.String()
	}
	wait := func(want rampway.OrderStatus) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			o, err := a.Store.Order(t.Context(), id)
			if err != nil {
				t.Fatal(err)
			}
			if o.Status == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("order is %s, want %s", o.Status, want)
			}
		}
	}
	pay(sandbox.CardDecline)
	challenge := pay(sandbox.CardThreeDS)
	if res, err := http.PostForm(challenge, url.Values{"result": {"fail"}}); err != nil {
		t.Fatal(err)
	} else {
		res.Body.Close()
	}
	wait(rampway.StatusCreated)
	pay(sandbox.CardSuccess)
	wait(rampway.StatusSuccess)
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		as, err := a.Store.FiatActions(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if len(as) == 1 && as[0].Kind == rampway.ActionCapture && as[0].Status == rampway.ActionDone {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("capture: %+v", as)
		}
	}

	// Every table, every row, as text.
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tables, err := db.QueryContext(t.Context(), `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for tables.Next() {
		var n string
		_ = tables.Scan(&n)
		names = append(names, n)
	}
	tables.Close()
	var dump strings.Builder
	for _, n := range names {
		rows, err := db.QueryContext(t.Context(), fmt.Sprintf(`SELECT row_to_json(t)::text FROM %q t`, n))
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var r string
			_ = rows.Scan(&r)
			dump.WriteString(r + "\n")
		}
		rows.Close()
	}
	if !strings.Contains(dump.String(), `"card_last4":"4242"`) || len(names) < 10 {
		t.Fatalf("the dump of %d tables does not hold the payment's last four digits: the scan would see nothing", len(names))
	}
	all := dump.String() + logs.String()
	for _, card := range []string{sandbox.CardSuccess, sandbox.CardDecline, sandbox.CardThreeDS} {
		if strings.Contains(all, card) || strings.Contains(all, card[:4]+" "+card[4:8]) {
			t.Errorf("card number %s found in the database or the logs", card)
		}
	}
}
