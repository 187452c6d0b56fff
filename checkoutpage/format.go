package checkoutpage

import (
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/rampway/rampway"
)

// Amounts and times as people read them. What the user must send is never rounded (the amount
// to pay, its copy button, the payment URI and its QR code, what is still missing): those are
// exact, as the order states them. What the page only tells (a fee, what a line of the price is
// worth in the currency, how long is left) is rounded here.

// exactDigits is how many significant digits an amount may have and still be shown as it is:
// the quotes round what they state to 5, so these are already for people.
const exactDigits = 6

// peopleDigits is how many significant digits a longer amount is rounded to.
const peopleDigits = 3

// forPeople is an amount of base units of an asset with decimals digits, for reading: as it is
// when it has at most exactDigits significant digits, else rounded half up to peopleDigits
// significant digits, never dropping a digit of its whole part (0.000011434835320266 ->
// 0.0000114, 53.465346 -> 53.5, 1234.5678901 -> 1235).
func forPeople(v *big.Int, decimals uint8) string {
	if v == nil {
		v = new(big.Int)
	}
	exact := rampway.FormatUnits(v, decimals)
	if significant(exact) <= exactDigits {
		return exact
	}
	d := decimal.NewFromBigInt(v, -int32(decimals))
	return roundSignificant(d, peopleDigits).String()
}

// significant counts the significant digits of a decimal string.
func significant(s string) int {
	digits := strings.TrimLeft(strings.Replace(strings.TrimPrefix(s, "-"), ".", "", 1), "0")
	if strings.Contains(s, ".") {
		return len(digits)
	}
	return len(strings.TrimRight(digits, "0"))
}

// roundSignificant rounds d half up to n significant digits, keeping its whole part whole.
func roundSignificant(d decimal.Decimal, n int) decimal.Decimal {
	if d.IsZero() {
		return d
	}
	// The place of the first significant digit: 0 for units, -1 for tenths...
	first := len(d.Abs().Truncate(0).String()) - 1
	if d.Abs().LessThan(decimal.NewFromInt(1)) {
		first = -1
		for t := d.Abs().Shift(1); t.LessThan(decimal.NewFromInt(1)); t = t.Shift(1) {
			first--
		}
	}
	places := max(n-1-first, 0)
	return d.Round(int32(places))
}

// fiatOf is what amount (base units of an asset with decimals digits) is worth in a currency
// at a pricing's prices, exact (18 places).
func fiatOf(v *big.Int, decimals uint8, p *rampway.FiatPricing) (decimal.Decimal, bool) {
	crypto, err1 := decimal.NewFromString(p.CryptoPriceUSD)
	fiat, err2 := decimal.NewFromString(p.FiatPriceUSD)
	if err1 != nil || err2 != nil || fiat.Sign() <= 0 || v == nil {
		return decimal.Zero, false
	}
	return decimal.NewFromBigInt(v, -int32(decimals)).Mul(crypto).DivRound(fiat, 18), true
}

// fiatText writes a major-unit amount of a currency with its decimals: "0.29 EUR".
func fiatText(d decimal.Decimal, places uint8, symbol string) string {
	return d.StringFixed(int32(places)) + " " + symbol
}

// about writes a rounded fiat value beside a crypto amount: "≈ 27.78 EUR", "< 0.01 EUR" for
// less than the minor unit, "" for nothing.
func about(d decimal.Decimal, places uint8, symbol string) string {
	switch {
	case d.Sign() <= 0:
		return ""
	case d.Round(int32(places)).IsZero():
		return "< " + fiatText(decimal.New(1, -int32(places)), places, symbol)
	}
	return "≈ " + fiatText(d, places, symbol)
}

// rateText is the price of one unit of the asset in the currency a pricing used: "1 ETH =
// 2777.78 EUR" (to the currency's minor unit, or 4 significant digits below 1).
func rateText(p *rampway.FiatPricing, asset string, places uint8, currency string) string {
	r, ok := fiatOf(big.NewInt(1), 0, p)
	if !ok || r.Sign() <= 0 {
		return ""
	}
	text := r.StringFixed(int32(places))
	if r.LessThan(decimal.NewFromInt(1)) {
		text = roundSignificant(r, 4).String()
	}
	return "1 " + asset + " = " + text + " " + currency
}

// percent writes basis points as a percentage: 290 -> "2.9%".
func percent(bps int64) string { return decimal.New(bps, -2).String() + "%" }

// humanDuration is how long is left, as people say it: "m:ss" under an hour; then hours and
// minutes ("5 hours 12 minutes", to the nearest minute); from a day on, days and hours ("3
// days", "1 day 6 hours", to the nearest hour). Nothing left: "0:00". checkout.js and fiat.js
// write the same (assets/common.js, RampwayPage.duration).
func humanDuration(d time.Duration) string {
	if d <= 0 {
		return "0:00"
	}
	if d < time.Hour {
		s := int64(d / time.Second)
		return strconv.FormatInt(s/60, 10) + ":" + pad2(s%60)
	}
	if m := int64((d + 30*time.Second) / time.Minute); m < 24*60 {
		return unit(m/60, "hour") + and(m%60, "minute")
	}
	h := int64((d + 30*time.Minute) / time.Hour)
	return unit(h/24, "day") + and(h%24, "hour")
}

func pad2(n int64) string {
	if n < 10 {
		return "0" + strconv.FormatInt(n, 10)
	}
	return strconv.FormatInt(n, 10)
}

// unit writes n of a unit from Messages: "1 day", "3 days".
func unit(n int64, name string) string {
	key := "dur_" + name
	if n != 1 {
		key += "s"
	}
	return strings.ReplaceAll(Messages[key], "{n}", strconv.FormatInt(n, 10))
}

// and is " " and the unit, or "" for none of it.
func and(n int64, name string) string {
	if n == 0 {
		return ""
	}
	return " " + unit(n, name)
}

// groupIBAN writes an IBAN as it is printed, in groups of four ("DE89 3704 0044 0532 0130
// 00"); ibanText is what is copied: no spaces.
func groupIBAN(iban string) string {
	s := ibanText(iban)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && i%4 == 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func ibanText(iban string) string { return strings.ToUpper(strings.Join(strings.Fields(iban), "")) }
