package pricing

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/shopspring/decimal"

	"github.com/rampway/rampway"
)

// aggregatorABI is the part of Chainlink's AggregatorV3Interface a feed reader calls.
const aggregatorABI = `[
 {"type":"function","name":"decimals","stateMutability":"view","inputs":[],"outputs":[{"name":"","type":"uint8"}]},
 {"type":"function","name":"latestRoundData","stateMutability":"view","inputs":[],"outputs":[
  {"name":"roundId","type":"uint80"},{"name":"answer","type":"int256"},{"name":"startedAt","type":"uint256"},
  {"name":"updatedAt","type":"uint256"},{"name":"answeredInRound","type":"uint80"}]}]`

var aggregator = func() abi.ABI {
	a, err := abi.JSON(strings.NewReader(aggregatorABI))
	if err != nil {
		panic(err) // a constant: its test parses it
	}
	return a
}()

// Caller is the node a feed is read from (eth_call). *ethclient.Client is one.
type Caller interface {
	CallContract(ctx context.Context, msg ethereum.CallMsg, block *big.Int) ([]byte, error)
}

// Feed is a Chainlink-style price feed (AggregatorV3Interface) of one symbol in USD.
type Feed struct {
	Symbol  string
	Node    Caller
	Address common.Address
	// MaxAge is how old the feed's last update may be; an older answer is refused.
	MaxAge time.Duration
}

// Feeds is a Source that reads each of its symbols' price from its feed (latestRoundData,
// scaled by the feed's decimals) and asks Fallback for the others. A feed's answer that is
// not positive, or older than its MaxAge, is an EUNAVAILABLE error, never a price.
type Feeds struct {
	feeds    map[string]Feed
	fallback Source
	now      func() time.Time

	mu       sync.Mutex
	decimals map[string]uint8 // read once per feed
	// cacheFor keeps each feed's last round (FeedsConfig.CacheFor); rounds holds them by symbol.
	cacheFor time.Duration
	rounds   map[string]round
}

// round is a feed's answer as read at readAt.
type round struct {
	answer, updated *big.Int
	readAt          time.Time
}

// FeedsConfig is what Feeds reads from.
type FeedsConfig struct {
	// Feeds are the symbols read from price feeds, one feed each.
	Feeds []Feed
	// Fallback is asked for the other symbols (nil: none).
	Fallback Source
	// CacheFor, when positive, makes USDPrice reuse a feed's last round for that long after
	// reading it: a burst of quotes reads each feed once rather than once per quote (two
	// eth_calls per fiat quote otherwise). The round's age is checked against MaxAge at every
	// use, so a cached round is refused exactly when a fresh read of it would be; a feed
	// updates every few minutes at most (its heartbeat, or a price move past its deviation
	// threshold), so a few seconds add at most that to what a price lags behind the chain.
	// Errors are not kept.
	CacheFor time.Duration
}

// NewFeeds returns the Source of cfg's feeds; now is the clock (time.Now when nil).
func NewFeeds(cfg FeedsConfig, now func() time.Time) *Feeds {
	if now == nil {
		now = time.Now
	}
	f := &Feeds{feeds: map[string]Feed{}, fallback: cfg.Fallback, now: now, decimals: map[string]uint8{}, rounds: map[string]round{},
		cacheFor: cfg.CacheFor}
	for _, fd := range cfg.Feeds {
		f.feeds[fd.Symbol] = fd
	}
	return f
}

// USDPrice implements Source.
func (f *Feeds) USDPrice(ctx context.Context, symbol string) (decimal.Decimal, error) {
	fd, ok := f.feeds[symbol]
	if !ok {
		if f.fallback == nil {
			return decimal.Decimal{}, rampway.Errorf(rampway.ENOTFOUND, "no price for %s", symbol)
		}
		return f.fallback.USDPrice(ctx, symbol)
	}
	dec, err := f.feedDecimals(ctx, fd)
	if err != nil {
		return decimal.Decimal{}, err
	}
	answer, updated, err := f.latestRound(ctx, fd)
	if err != nil {
		return decimal.Decimal{}, err
	}
	if answer == nil || answer.Sign() <= 0 {
		return decimal.Decimal{}, rampway.Errorf(rampway.EUNAVAILABLE, "the %s price feed answers %v, not a price", symbol, answer)
	}
	if updated == nil || !updated.IsInt64() {
		return decimal.Decimal{}, rampway.Errorf(rampway.EUNAVAILABLE, "the %s price feed answers no update time", symbol)
	}
	if age := f.now().Sub(time.Unix(updated.Int64(), 0)); fd.MaxAge > 0 && age > fd.MaxAge {
		return decimal.Decimal{}, rampway.Errorf(rampway.EUNAVAILABLE, "the %s price feed was last updated %s ago (at most %s)", symbol,
			age.Round(time.Second), fd.MaxAge)
	}
	return decimal.NewFromBigInt(answer, -int32(dec)), nil
}

// latestRound is the feed's latestRoundData answer and update time: from the cache while it
// is younger than cacheFor, else read (and kept when it is a price).
func (f *Feeds) latestRound(ctx context.Context, fd Feed) (answer, updated *big.Int, err error) {
	now := f.now()
	if f.cacheFor > 0 {
		f.mu.Lock()
		r, ok := f.rounds[fd.Symbol]
		f.mu.Unlock()
		if ok && now.Sub(r.readAt) < f.cacheFor && !now.Before(r.readAt) {
			return r.answer, r.updated, nil
		}
	}
	out, err := f.call(ctx, fd, "latestRoundData")
	if err != nil {
		return nil, nil, err
	}
	answer, _ = out[1].(*big.Int)
	updated, _ = out[3].(*big.Int)
	if f.cacheFor > 0 && answer != nil && answer.Sign() > 0 && updated != nil {
		f.mu.Lock()
		f.rounds[fd.Symbol] = round{answer: answer, updated: updated, readAt: now}
		f.mu.Unlock()
	}
	return answer, updated, nil
}

// feedDecimals reads a feed's decimals once.
func (f *Feeds) feedDecimals(ctx context.Context, fd Feed) (uint8, error) {
	f.mu.Lock()
	d, ok := f.decimals[fd.Symbol]
	f.mu.Unlock()
	if ok {
		return d, nil
	}
	out, err := f.call(ctx, fd, "decimals")
	if err != nil {
		return 0, err
	}
	d, ok = out[0].(uint8)
	if !ok || d > 36 {
		return 0, rampway.Errorf(rampway.EUNAVAILABLE, "the %s price feed's decimals are %v", fd.Symbol, out[0])
	}
	f.mu.Lock()
	f.decimals[fd.Symbol] = d
	f.mu.Unlock()
	return d, nil
}

// call calls a feed's view function and unpacks its outputs.
func (f *Feeds) call(ctx context.Context, fd Feed, method string) ([]any, error) {
	data, err := aggregator.Pack(method)
	if err != nil {
		return nil, err
	}
	res, err := fd.Node.CallContract(ctx, ethereum.CallMsg{To: &fd.Address, Data: data}, nil)
	if err != nil {
		return nil, &rampway.Error{Code: rampway.EUNAVAILABLE, Message: fmt.Sprintf("the %s price feed cannot be read", fd.Symbol), Err: err}
	}
	out, err := aggregator.Unpack(method, res)
	if err != nil {
		return nil, &rampway.Error{Code: rampway.EUNAVAILABLE, Message: fmt.Sprintf("the %s price feed at %s is not an aggregator", fd.Symbol, fd.Address.Hex()), Err: err}
	}
	return out, nil
}
