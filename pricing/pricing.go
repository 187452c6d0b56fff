// Package pricing holds price sources and the fee arithmetic of quotes.
package pricing

import (
	"context"
	"fmt"
	"math/big"

	"github.com/shopspring/decimal"

	"github.com/rampway/rampway"
)

// Source gives the USD price of one whole unit of an asset.
type Source interface {
	// USDPrice returns the price of one unit of symbol. ENOTFOUND for an unknown symbol.
	USDPrice(ctx context.Context, symbol string) (decimal.Decimal, error)
}

// Static is a fixed price table (dev, tests, and stable assets).
type Static map[string]decimal.Decimal

// USDPrice implements Source.
func (s Static) USDPrice(_ context.Context, symbol string) (decimal.Decimal, error) {
	p, ok := s[symbol]
	if !ok || !p.IsPositive() {
		return decimal.Decimal{}, rampway.Errorf(rampway.ENOTFOUND, "no price for %s", symbol)
	}
	return p, nil
}

// Convert converts amount base units of from into base units of to at the sources' prices,
// rounding up (it is used for what the user pays).
func Convert(ctx context.Context, src Source, amount *big.Int, from, to rampway.Asset) (*big.Int, error) {
	if from.Symbol == to.Symbol && from.Decimals == to.Decimals {
		return new(big.Int).Set(amount), nil
	}
	pf, err := src.USDPrice(ctx, from.Symbol)
	if err != nil {
		return nil, fmt.Errorf("price of %s: %w", from.Symbol, err)
	}
	pt, err := src.USDPrice(ctx, to.Symbol)
	if err != nil {
		return nil, fmt.Errorf("price of %s: %w", to.Symbol, err)
	}
	// amount/10^df units of from = amount/10^df * pf USD = amount/10^df * pf/pt units of to.
	v := decimal.NewFromBigInt(amount, -int32(from.Decimals)).Mul(pf).Shift(int32(to.Decimals))
	return CeilDiv(v, pt), nil
}

// CeilDiv returns ceil(a / b) as an integer; b must be positive.
func CeilDiv(a, b decimal.Decimal) *big.Int {
	q := a.DivRound(b, 40)
	c := q.Ceil()
	// DivRound rounds half away from zero at 40 places: a true quotient just above an integer
	// can round down onto it. Check with exact multiplication.
	if c.Mul(b).LessThan(a) {
		c = c.Add(decimal.NewFromInt(1))
	}
	return c.BigInt()
}

// BPS returns ceil(amount * bps / 10000).
func BPS(amount *big.Int, bps int64) *big.Int {
	if bps <= 0 {
		return new(big.Int)
	}
	n := new(big.Int).Mul(amount, big.NewInt(bps))
	q, r := new(big.Int).QuoRem(n, big.NewInt(10_000), new(big.Int))
	if r.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	return q
}
