package pricing_test

import (
	"context"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/shopspring/decimal"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain/devchain"
	"github.com/rampway/rampway/chain/devchain/bindings"
	"github.com/rampway/rampway/chain/devchain/devchaintest"
	"github.com/rampway/rampway/pricing"
)

// A feed on a real chain (the dev chain's ETH / USD aggregator, 3000.00 at 8 decimals) gives
// its price; other symbols come from the fallback; an answer older than MaxAge is refused.
func TestFeedsOnChain(t *testing.T) {
	c := devchaintest.Start(t)
	cl, err := ethclient.Dial(c.RPCURL())
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	feed := pricing.Feed{Symbol: "ETH", Node: cl, Address: c.Contracts().PriceFeed, MaxAge: time.Hour}
	src := pricing.NewFeeds(pricing.FeedsConfig{Feeds: []pricing.Feed{feed}, Fallback: pricing.Static{"DUSD": decimal.NewFromInt(1)}}, nil)
	p, err := src.USDPrice(t.Context(), "ETH")
	if err != nil || !p.Equal(decimal.NewFromInt(devchain.PriceFeedAnswer).Shift(-devchain.PriceFeedDecimals)) || !p.Equal(decimal.NewFromInt(3000)) {
		t.Fatalf("ETH = %s, %v; want 3000", p, err)
	}
	if p, err := src.USDPrice(t.Context(), "DUSD"); err != nil || !p.Equal(decimal.NewFromInt(1)) {
		t.Fatalf("DUSD from the fallback = %s, %v", p, err)
	}
	if _, err := src.USDPrice(t.Context(), "BTC"); rampway.ErrorCode(err) != rampway.ENOTFOUND {
		t.Fatalf("BTC: %v, want ENOTFOUND", err)
	}
	late := pricing.NewFeeds(pricing.FeedsConfig{Feeds: []pricing.Feed{feed}}, func() time.Time { return time.Now().Add(2 * time.Hour) })
	if _, err := late.USDPrice(t.Context(), "ETH"); rampway.ErrorCode(err) != rampway.EUNAVAILABLE || !strings.Contains(err.Error(), "last updated") {
		t.Fatalf("a stale feed: %v, want EUNAVAILABLE", err)
	}
	// An address that is no aggregator (the token) is an error, never a price.
	wrong := pricing.NewFeeds(pricing.FeedsConfig{Feeds: []pricing.Feed{{Symbol: "ETH", Node: cl, Address: c.Contracts().Token, MaxAge: time.Hour}}}, nil)
	if p, err := wrong.USDPrice(t.Context(), "ETH"); rampway.ErrorCode(err) != rampway.EUNAVAILABLE {
		t.Fatalf("a token read as a feed: %s, %v", p, err)
	}
}

// answers is a node whose feed answers answer, updated at updated; calls counts its
// latestRoundData calls when set.
type answers struct {
	answer  *big.Int
	updated time.Time
	calls   *int
}

func (a answers) CallContract(_ context.Context, msg ethereum.CallMsg, _ *big.Int) ([]byte, error) {
	feed := bindings.NewPriceFeed()
	if string(msg.Data) == string(feed.PackDecimals()) {
		return common.LeftPadBytes([]byte{8}, 32), nil
	}
	if a.calls != nil {
		*a.calls++
	}
	var out []byte
	for _, v := range []*big.Int{big.NewInt(1), a.answer, big.NewInt(a.updated.Unix()), big.NewInt(a.updated.Unix()), big.NewInt(1)} {
		out = append(out, common.LeftPadBytes(new(big.Int).Set(v).Bytes(), 32)...)
	}
	if a.answer.Sign() < 0 { // two's complement
		word := new(big.Int).Add(new(big.Int).Lsh(big.NewInt(1), 256), a.answer).Bytes()
		copy(out[32:64], common.LeftPadBytes(word, 32))
	}
	return out, nil
}

// A feed that answers zero or a negative price is an error, never a zero price.
func TestFeedsRefuseNonPositive(t *testing.T) {
	for _, v := range []int64{0, -100} {
		src := pricing.NewFeeds(pricing.FeedsConfig{Feeds: []pricing.Feed{{Symbol: "EUR", Node: answers{big.NewInt(v), time.Now(), nil}, MaxAge: time.Hour}}}, nil)
		if p, err := src.USDPrice(t.Context(), "EUR"); rampway.ErrorCode(err) != rampway.EUNAVAILABLE {
			t.Fatalf("answer %d: %s, %v; want EUNAVAILABLE", v, p, err)
		}
	}
	src := pricing.NewFeeds(pricing.FeedsConfig{Feeds: []pricing.Feed{{Symbol: "EUR", Node: answers{big.NewInt(108_000_000), time.Now(), nil}, MaxAge: time.Hour}}}, nil)
	if p, err := src.USDPrice(t.Context(), "EUR"); err != nil || !p.Equal(decimal.RequireFromString("1.08")) {
		t.Fatalf("EUR = %s, %v; want 1.08", p, err)
	}
}

// With FeedsConfig.CacheFor, a feed's round is read once per period: quotes within it reuse it, the next
// period reads it again; the round's age is still checked at each use (a round cached fresh
// is refused once it is older than MaxAge), and an answer that is no price is not kept.
func TestFeedsCache(t *testing.T) {
	clock := time.Now()
	calls := 0
	node := &answers{big.NewInt(108_000_000), clock.Add(-50 * time.Minute), &calls}
	src := pricing.NewFeeds(pricing.FeedsConfig{Feeds: []pricing.Feed{{Symbol: "EUR", Node: node, MaxAge: time.Hour}}, CacheFor: 2 * time.Second}, func() time.Time { return clock })
	price := func() (decimal.Decimal, error) { return src.USDPrice(t.Context(), "EUR") }
	for range 5 {
		if p, err := price(); err != nil || !p.Equal(decimal.RequireFromString("1.08")) {
			t.Fatalf("EUR = %s, %v", p, err)
		}
	}
	if calls != 1 {
		t.Fatalf("%d reads for 5 prices within the period, want 1", calls)
	}
	node.answer = big.NewInt(110_000_000)
	clock = clock.Add(2 * time.Second)
	if p, _ := price(); !p.Equal(decimal.RequireFromString("1.1")) || calls != 2 {
		t.Fatalf("EUR = %s after the period (%d reads), want 1.1 read again", p, calls)
	}
	// 11 minutes later the node's round is 61 minutes old: refused, from the node or the cache.
	clock = clock.Add(11 * time.Minute)
	if _, err := price(); rampway.ErrorCode(err) != rampway.EUNAVAILABLE {
		t.Fatalf("a stale round: %v", err)
	}
	if _, err := price(); rampway.ErrorCode(err) != rampway.EUNAVAILABLE {
		t.Fatalf("a stale round from the cache: %v", err)
	}
	// No price: not kept, read again next time.
	node.answer, node.updated = big.NewInt(0), clock
	clock = clock.Add(3 * time.Second)
	before := calls
	for range 2 {
		if _, err := price(); rampway.ErrorCode(err) != rampway.EUNAVAILABLE {
			t.Fatalf("a zero answer: %v", err)
		}
	}
	if calls != before+2 {
		t.Fatalf("a zero answer was kept: %d reads for 2 prices", calls-before)
	}
}
