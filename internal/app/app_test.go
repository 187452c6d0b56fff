package app_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"math/big"
	"path/filepath"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/rampway/rampway/chain/devchain"
	"github.com/rampway/rampway/chain/devchain/devchaintest"
	"github.com/rampway/rampway/chain/hd"
	"github.com/rampway/rampway/checkout"
	"github.com/rampway/rampway/config"
	"github.com/rampway/rampway/contract"
	"github.com/rampway/rampway/internal/app"
	"github.com/rampway/rampway/merchant"
)

// The composition root builds the quotes on the configured price sources: a symbol with an
// on-chain feed is priced by it (the dev chain's ETH/USD aggregator at 3000), not by the table
// (2000 here), and the fiat currencies and the spread reach the fiat quote.
func TestStartPricesFromFeeds(t *testing.T) {
	hot, _ := crypto.GenerateKey()
	c := devchaintest.Start(t, devchain.Funding{Address: crypto.PubkeyToAddress(hot.PublicKey), Wei: new(big.Int).Mul(big.NewInt(100), big.NewInt(1e18))})
	mnemonic, _ := hd.NewMnemonic()
	seed, _ := hd.FromMnemonic(mnemonic, "")
	cfg := config.Default()
	cfg.Mode = config.ModeDev
	cfg.HTTP.Addr, cfg.HTTP.PublicURL = "127.0.0.1:0", "http://127.0.0.1"
	cfg.Database.Path = filepath.Join(t.TempDir(), "rampway.db")
	cfg.Admin.Token, cfg.Secrets.HashSecret = "dev-admin-token-0123456789abcdef0123", "dev-hash-secret-0123456789abcdef0123"
	cfg.Networks = []config.Network{{Name: "devnet", ChainID: devchain.ChainID, RPCURLs: []string{c.RPCURL()}, Confirmations: 1,
		Native: config.Asset{Symbol: "ETH", MinAmount: "0.000001", MaxAmount: "100"}}}
	cfg.Checkout.DepositXPub, _ = seed.XPub()
	cfg.Checkout.HotWalletAddress = crypto.PubkeyToAddress(hot.PublicKey).Hex()
	cfg.Checkout.Prices = map[string]string{"ETH": "2000", "EUR": "1.08"}
	cfg.Checkout.PriceFeeds = []config.PriceFeed{{Symbol: "ETH", Network: "devnet", Address: c.Contracts().PriceFeed.Hex()}}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	a, err := app.Start(t.Context(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), app.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })

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
	q, err := a.Checkout.FiatQuote(t.Context(), checkout.FiatQuoteParams{MerchantID: m.ID, FiatSymbol: "EUR", Method: "credit_debit_card",
		Execution: checkout.ExecutionParams{FunctionID: f.ID, FunctionArgs: args, NetworkName: "devnet",
			Payment: &checkout.PaymentParams{Symbol: "ETH", TotalValue: "0.01"}}})
	if err != nil {
		t.Fatal(err)
	}
	if q.AssetUSD.String() != "3000" || q.FiatUSD.String() != "1.08" || !q.Allowed || q.Spread.Sign() <= 0 {
		t.Fatalf("quote priced ETH at %s and EUR at %s (allowed %v, %q, spread %s); want the feed's 3000", q.AssetUSD, q.FiatUSD, q.Allowed, q.Message, q.Spread)
	}
}
