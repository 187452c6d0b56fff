package rampway

import (
	"fmt"
	"math/big"
	"regexp"

	"github.com/shopspring/decimal"
)

// plainDecimal is the only decimal form accepted at the edges: digits, optionally a point and
// more digits. No sign, exponent, spaces or thousands separators.
var plainDecimal = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)

// ParseUnits converts a decimal amount in whole units ("0.01" ETH) to integer base units
// (10000000000000000 wei) exactly. It fails on anything but a plain non-negative decimal, and
// on more fractional digits than decimals allows.
func ParseUnits(s string, decimals uint8) (*big.Int, error) {
	if len(s) > 100 || !plainDecimal.MatchString(s) {
		return nil, fmt.Errorf("%q is not a plain decimal number such as \"12.5\"", s)
	}
	d, err := decimal.NewFromString(s)
	if err != nil {
		return nil, fmt.Errorf("%q is not a decimal number: %w", s, err)
	}
	shifted := d.Shift(int32(decimals))
	if !shifted.IsInteger() {
		return nil, fmt.Errorf("%q has more than %d decimal places", s, decimals)
	}
	return shifted.BigInt(), nil
}

// FormatUnits renders integer base units as a decimal amount in whole units, without
// trailing zeros ("0.01").
func FormatUnits(v *big.Int, decimals uint8) string {
	return decimal.NewFromBigInt(v, -int32(decimals)).String()
}

// FormatFixed renders integer minor units as a decimal amount with exactly decimals places
// ("32.50" for 3250 cents): how fiat amounts are written.
func FormatFixed(v *big.Int, decimals uint8) string {
	return decimal.NewFromBigInt(v, -int32(decimals)).StringFixed(int32(decimals))
}

// AmountDigits is how many significant digits an amount a person pays by hand has at most:
// quotes round what the user pays up to it (0.0101054158189 ETH is asked as 0.010106).
const AmountDigits = 5

// RoundUpSignificant rounds v (base units, non-negative) up to at most digits significant
// digits: 10105415 -> 10106000 for 5. Rounding in base units is rounding of the decimal amount,
// whatever the asset's decimals. v is not changed.
func RoundUpSignificant(v *big.Int, digits int) *big.Int { return roundSignificant(v, digits, true) }

// RoundDownSignificant rounds v (base units, non-negative) down to at most digits significant
// digits: what the user or merchant receives (10105415 -> 10105000 for 5). v is not changed.
func RoundDownSignificant(v *big.Int, digits int) *big.Int { return roundSignificant(v, digits, false) }

// roundSignificant rounds v (non-negative) to at most digits significant digits, up or down.
func roundSignificant(v *big.Int, digits int, up bool) *big.Int {
	if v.Sign() <= 0 || digits <= 0 {
		return new(big.Int).Set(v)
	}
	n := len(v.Text(10))
	if n <= digits {
		return new(big.Int).Set(v)
	}
	unit := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n-digits)), nil)
	q, r := new(big.Int).QuoRem(v, unit, new(big.Int))
	if up && r.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	return q.Mul(q, unit)
}
