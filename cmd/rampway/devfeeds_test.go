package main

import (
	"context"
	"encoding/json"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/shopspring/decimal"

	"github.com/rampway/rampway/chain/devchain"
	"github.com/rampway/rampway/chain/devchain/bindings"
	"github.com/rampway/rampway/internal/devworld"
)

// devFiatQuote asks the dev server for a B3 fiat quote of dev.json's function fn (its
// example as is) in currency, by card.
func devFiatQuote(t *testing.T, dj devJSON, fn devFunction, currency string) map[string]any {
	t.Helper()
	raw, _ := json.Marshal(map[string]any{"merchant_id": dj.Merchant.MerchantID, "order_fiat_symbol": currency,
		"fiat_payment_method": "credit_debit_card", "contractExecution": fn.Example})
	code, q := post(t, dj.API.NFTRampBaseURL+"/merchant/hosted/nftCheckout/fiatQuote", dj.Merchant.APIKey, string(raw))
	if code != 200 {
		t.Fatalf("fiatQuote %s %s: %d %v", fn.ID, currency, code, q)
	}
	return q
}

// wantQuotePrices checks a fiat quote's prices and that its subtotal is its crypto at them
// (also below the method's minimum, where it states no fiat_amount).
func wantQuotePrices(t *testing.T, q map[string]any, cryptoUSD, fiatUSD string) {
	t.Helper()
	if q["crypto_price_usd"] != cryptoUSD || q["fiat_price_usd"] != fiatUSD {
		t.Fatalf("quote %v: want crypto_price_usd %s and fiat_price_usd %s", q, cryptoUSD, fiatUSD)
	}
	amount := decimal.RequireFromString(q["payable_crypto_amount"].(string))
	want := amount.Mul(decimal.RequireFromString(cryptoUSD)).Div(decimal.RequireFromString(fiatUSD))
	if got := decimal.RequireFromString(q["fiat_subtotal"].(string)); got.Sub(want).Abs().GreaterThan(decimal.New(1, -9)) {
		t.Fatalf("fiat_subtotal %s, want %s (%s at %s / %s)", got, want, amount, cryptoUSD, fiatUSD)
	}
}

// readFeedAnswer reads a feed's description and latest answer over the dev chain's RPC URL.
func readFeedAnswer(t *testing.T, c *ethclient.Client, addr common.Address) (string, int64) {
	t.Helper()
	f := bindings.NewPriceFeed()
	out, err := c.CallContract(context.Background(), ethereum.CallMsg{To: &addr, Data: f.PackDescription()}, nil)
	if err != nil {
		t.Fatalf("feed %s: %v", addr, err)
	}
	desc, err := f.UnpackDescription(out)
	if err != nil {
		t.Fatal(err)
	}
	if out, err = c.CallContract(context.Background(), ethereum.CallMsg{To: &addr, Data: f.PackLatestRoundData()}, nil); err != nil {
		t.Fatalf("feed %s: %v", addr, err)
	}
	round, err := f.UnpackLatestRoundData(out)
	if err != nil {
		t.Fatal(err)
	}
	return desc, round.Answer.Int64()
}

// rampway dev prices ETH, EUR and GBP at the dev chain's feeds (3000, 1.08 and 1.27 USD, 8
// decimals: contracts.price_feed is the ETH one) and DUSD at its table (1): a B3 fiat quote
// states those prices, and follows the feeds when their owner sets new answers on the chain.
func TestDevPricesFromFeeds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dj, _ := startDev(t, dir)
	st, err := readDevState(dir)
	if err != nil {
		t.Fatal(err)
	}
	deployer, err := crypto.HexToECDSA(st.DeployerKey)
	if err != nil {
		t.Fatal(err)
	}
	// A new directory: the feeds are where ContractAddresses says.
	addrs := devchain.ContractAddresses(crypto.PubkeyToAddress(deployer.PublicKey))
	if dj.Contracts.PriceFeed != addrs.PriceFeed.Hex() {
		t.Fatalf("contracts.price_feed %s, want the ETH / USD feed %s", dj.Contracts.PriceFeed, addrs.PriceFeed.Hex())
	}
	c := dialChain(t, dj)
	for _, f := range []struct {
		addr   common.Address
		desc   string
		answer int64
	}{{addrs.PriceFeed, "ETH / USD", 3000_00000000}, {addrs.EURUSDFeed, "EUR / USD", 1_08000000}, {addrs.GBPUSDFeed, "GBP / USD", 1_27000000}} {
		if desc, answer := readFeedAnswer(t, c, f.addr); desc != f.desc || answer != f.answer {
			t.Fatalf("feed %s: %q %d, want %q %d", f.addr, desc, answer, f.desc, f.answer)
		}
	}
	// The config rampway dev serves with names the three feeds on its network.
	feeds := devworld.PriceFeeds(addrs)
	if len(feeds) != 3 {
		t.Fatalf("price feeds %+v", feeds)
	}
	for i, want := range []struct {
		symbol string
		addr   common.Address
	}{{"ETH", addrs.PriceFeed}, {"EUR", addrs.EURUSDFeed}, {"GBP", addrs.GBPUSDFeed}} {
		if f := feeds[i]; f.Symbol != want.symbol || f.Network != devNetwork || f.Address != want.addr.Hex() || f.MaxAge < 24*time.Hour*365 {
			t.Fatalf("price_feeds[%d] = %+v, want %s at %s on %s, any age", i, f, want.symbol, want.addr.Hex(), devNetwork)
		}
	}
	if len(devworld.Prices) != 1 || devworld.Prices[devchain.TokenSymbol] != "1" {
		t.Fatalf("dev price table %v, want DUSD 1 only", devworld.Prices)
	}

	var ethMint, tokenMint devFunction
	for _, f := range dj.SmartContractFunctions {
		switch f.PayableSymbol {
		case devchain.NativeSymbol:
			ethMint = f
		case devchain.TokenSymbol:
			tokenMint = f
		}
	}
	q := devFiatQuote(t, dj, ethMint, "EUR")
	wantQuotePrices(t, q, "3000", "1.08")
	if q["allowed"] != true || q["fiat_amount"] == "" {
		t.Fatalf("quote of the ETH mint in EUR: %v", q)
	}
	wantQuotePrices(t, devFiatQuote(t, dj, ethMint, "GBP"), "3000", "1.27")
	wantQuotePrices(t, devFiatQuote(t, dj, tokenMint, "EUR"), "1", "1.08")
	wantQuotePrices(t, devFiatQuote(t, dj, ethMint, "USD"), "3000", "1")

	// The owner moves the three feeds on the chain: the next quotes use the new answers.
	feed := bindings.NewPriceFeed()
	for addr, answer := range map[common.Address]int64{addrs.PriceFeed: 2000_00000000, addrs.EURUSDFeed: 1_20000000, addrs.GBPUSDFeed: 1_35000000} {
		send(t, c, deployer, addr, nil, feed.PackSetAnswer(big.NewInt(answer)))
	}
	wantQuotePrices(t, devFiatQuote(t, dj, ethMint, "EUR"), "2000", "1.2")
	wantQuotePrices(t, devFiatQuote(t, dj, ethMint, "GBP"), "2000", "1.35")
	wantQuotePrices(t, devFiatQuote(t, dj, tokenMint, "GBP"), "1", "1.35")
}
