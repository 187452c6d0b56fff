// Package apptest runs the whole service in a test, as `rampway serve` does: a dev-mode
// configuration of one network on a fresh embedded chain, the hot wallet funded, the server
// listening on a free port, and a merchant with a registered mint to sell by card.
package apptest

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

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
)

// Env is a running service.
type Env struct {
	App   *app.App
	Chain *devchain.Chain
	// Base is the server's URL (the configuration's public URL).
	Base string
	// Logs are the service's JSON logs.
	Logs *devtest.LockedBuffer
	// Payer is an account funded with 10 ETH on the chain: a user who pays orders.
	Payer *ecdsa.PrivateKey
}

// Start runs the service until the test ends: SQLite in a temporary directory unless change
// (nil for none) sets another database, or anything else, before the configuration is checked.
func Start(t testing.TB, change func(*config.Config)) *Env {
	t.Helper()
	hot, _ := crypto.GenerateKey()
	deployer, _ := crypto.GenerateKey()
	payer, _ := crypto.GenerateKey()
	c, err := devchain.Start(t.Context(), devchain.Config{RPCAddr: "127.0.0.1:0", Deployer: deployer, // mining on its own, as rampway dev's
		Fund: []devchain.Funding{{Address: crypto.PubkeyToAddress(hot.PublicKey), Wei: new(big.Int).Mul(big.NewInt(100), big.NewInt(1e18))},
			{Address: crypto.PubkeyToAddress(payer.PublicKey), Wei: new(big.Int).Mul(big.NewInt(10), big.NewInt(1e18))}}})
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
	e := &Env{Chain: c, Base: "http://" + ln.Addr().String(), Logs: &devtest.LockedBuffer{}, Payer: payer}
	cfg := config.Default()
	cfg.Mode = config.ModeDev
	cfg.HTTP.PublicURL = e.Base
	cfg.Database.Path = filepath.Join(t.TempDir(), "rampway.db")
	cfg.Admin.Token, cfg.Secrets.HashSecret = "dev-admin-token-0123456789abcdef0123", "dev-hash-secret-0123456789abcdef0123"
	cfg.Secrets.HotWalletKey = "0x" + common.Bytes2Hex(crypto.FromECDSA(hot))
	cfg.Networks = []config.Network{{Name: "devnet", ChainID: devchain.ChainID, RPCURLs: []string{c.RPCURL()}, Confirmations: 1,
		Native: config.Asset{Symbol: "ETH", MinAmount: "0.000001", MaxAmount: "100"}}}
	cfg.Checkout.DepositXPub, _ = seed.XPub()
	cfg.Checkout.HotWalletAddress = crypto.PubkeyToAddress(hot.PublicKey).Hex()
	cfg.Checkout.Prices = map[string]string{"ETH": "3000", "EUR": "1.08"}
	if change != nil {
		change(&cfg)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	if e.App, err = app.Start(t.Context(), cfg, slog.New(slog.NewJSONHandler(e.Logs, nil)), app.Options{Listener: ln}); err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- e.App.Serve(ctx) }()
	t.Cleanup(func() { stop(); <-served; e.App.Close() })
	return e
}

// CardMint creates a merchant with the dev chain's NFT mint registered, and an order of one
// mint paid by card in euros.
func (e *Env) CardMint(t testing.TB) *checkout.Created {
	t.Helper()
	m, err := e.App.Merchants.Create(t.Context(), merchant.CreateParams{Name: "Shop"})
	if err != nil {
		t.Fatal(err)
	}
	return e.CardMintFor(t, m)
}

// CardMintFor registers the dev chain's NFT mint for merchant m and creates an order of one mint
// of it paid by card in euros.
func (e *Env) CardMintFor(t testing.TB, m *rampway.Merchant) *checkout.Created {
	t.Helper()
	fragment, _ := contract.FunctionFragment(devchain.NFTABI(), "mint")
	f, err := e.App.Functions.Register(t.Context(), m.ID, contract.RegisterParams{Network: "devnet", ContractAddress: e.Chain.Contracts().NFT.Hex(),
		ABI: fragment, DefaultGasLimit: 300_000, PayableSymbol: "ETH"})
	if err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal(map[string]any{"to": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", "quantity": "1"})
	created, err := e.App.Checkout.CreateFiatOrder(t.Context(), m, checkout.FiatOrderParams{
		Quote: checkout.FiatQuoteParams{FiatSymbol: "EUR", Method: rampway.MethodCard, Execution: checkout.ExecutionParams{FunctionID: f.ID,
			FunctionArgs: args, NetworkName: "devnet", Payment: &checkout.PaymentParams{Symbol: "ETH", TotalValue: "0.01"}}},
		Order: checkout.OrderParams{MerchantUserID: "u1", MerchantRedirectURL: "https://shop.example/done", User: map[string]string{
			"user_first_name": "Ada", "user_last_name": "Lovelace", "user_email_id": "ada@example.com", "user_dob": "1990-12-10", "user_countryCode": "DE"}}})
	if err != nil {
		t.Fatal(err)
	}
	return created
}

// Admin calls the service at path (the admin API, /readyz, /metrics) with the admin token and
// a JSON body ("" for none): its status and body.
func (e *Env) Admin(t testing.TB, method, path, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, e.Base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+e.App.Cfg.Admin.Token)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}
