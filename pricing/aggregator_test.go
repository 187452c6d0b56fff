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
	src := pricing.NewFeeds([]pricing.Feed{feed}, pricing.Static{"DUSD": decimal.NewFromInt(1)}, nil)
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
	late := pricing.NewFeeds([]pricing.Feed{feed}, nil, func() time.Time { return time.Now().Add(2 * time.Hour) })
	if _, err := late.USDPrice(t.Context(), "ETH"); rampway.ErrorCode(err) != rampway.EUNAVAILABLE || !strings.Contains(err.Error(), "last updated") {
		t.Fatalf("a stale feed: %v, want EUNAVAILABLE", err)
	}
	// An address that is no aggregator (the token) is an error, never a price.
	wrong := pricing.NewFeeds([]pricing.Feed{{Symbol: "ETH", Node: cl, Address: c.Contracts().Token, MaxAge: time.Hour}}, nil, nil)
	if p, err := wrong.USDPrice(t.Context(), "ETH"); rampway.ErrorCode(err) != rampway.EUNAVAILABLE {
		t.Fatalf("a token read as a feed: %s, %v", p, err)
	}
}

// answers is a node whose feed answers answer, updated at updated.
type answers struct {
	answer  *big.Int
	updated time.Time
}

func (a answers) CallContract(_ context.Context, msg ethereum.CallMsg, _ *big.Int) ([]byte, error) {
	feed := bindings.NewPriceFeed()
	if string(msg.Data) == string(feed.PackDecimals()) {
		return common.LeftPadBytes([]byte{8}, 32), nil
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
		src := pricing.NewFeeds([]pricing.Feed{{Symbol: "EUR", Node: answers{big.NewInt(v), time.Now()}, MaxAge: time.Hour}}, nil, nil)
		if p, err := src.USDPrice(t.Context(), "EUR"); rampway.ErrorCode(err) != rampway.EUNAVAILABLE {
			t.Fatalf("answer %d: %s, %v; want EUNAVAILABLE", v, p, err)
		}
	}
	src := pricing.NewFeeds([]pricing.Feed{{Symbol: "EUR", Node: answers{big.NewInt(108_000_000), time.Now()}, MaxAge: time.Hour}}, nil, nil)
	if p, err := src.USDPrice(t.Context(), "EUR"); err != nil || !p.Equal(decimal.RequireFromString("1.08")) {
		t.Fatalf("EUR = %s, %v; want 1.08", p, err)
	}
}
