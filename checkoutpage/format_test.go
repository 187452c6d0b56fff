package checkoutpage

import (
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/rampway/rampway"
)

// Amounts the page only tells are rounded for people: as they are up to 6 significant digits
// (quotes state 5), else to 3, never cutting the whole part.
func TestForPeople(t *testing.T) {
	for _, tc := range []struct {
		units    string
		decimals uint8
		want     string
	}{
		{"11434835320266", 18, "0.0000114"},                         // an on-ramp's network fee, which took the rounding
		{"18434835320266", 18, "0.0000184"},                         // ... 0.000018434835320266
		{"263000000000000", 18, "0.000263"},                         // as the quote stated it
		{"10000000000000000", 18, "0.01"},                           // the demo mint's price
		{"34534000000000000", 18, "0.034534"},                       // 5 significant digits: as it is
		{"10211434835320266", 18, "0.0102"},                         // 17 significant digits
		{"235346", 6, "0.235346"},                                   // 6: as it is
		{"53465346", 6, "53.5"},                                     // 8: 3 significant
		{"1234567891", 6, "1235"},                                   // the whole part stays
		{"0", 18, "0"},                                              // nothing
		{"1", 18, "0.000000000000000001"},                           // one wei
		{"999999999999999999", 18, "1"},                             // rounds up into the units
		{"19995000000000000000", 18, "19.995"},                      // 5 digits
		{"1999999999999999999999", 18, "2000"},                      // 22 digits, the whole part kept (1999.99… up)
		{"123456789012345678901234567", 6, "123456789012345678901"}, // large
	} {
		v, _ := new(big.Int).SetString(tc.units, 10)
		if got := forPeople(v, tc.decimals); got != tc.want {
			t.Errorf("forPeople(%s, %d) = %s, want %s", tc.units, tc.decimals, got, tc.want)
		}
	}
}

// Time left, as people say it: m:ss under an hour, hours and minutes under a day, then days
// and hours; a bank transfer's 72 hours read "3 days" from the first second.
func TestHumanDuration(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{71*time.Hour + 59*time.Minute + 56*time.Second, "3 days"},
		{72 * time.Hour, "3 days"},
		{48*time.Hour + 31*time.Minute, "2 days 1 hour"},
		{30 * time.Hour, "1 day 6 hours"},
		{24 * time.Hour, "1 day"},
		{23*time.Hour + 59*time.Minute + 45*time.Second, "1 day"}, // to the nearest minute: 24 hours
		{23*time.Hour + 59*time.Minute + 10*time.Second, "23 hours 59 minutes"},
		{5*time.Hour + 12*time.Minute, "5 hours 12 minutes"},
		{time.Hour + time.Minute, "1 hour 1 minute"},
		{time.Hour, "1 hour"},
		{59*time.Minute + 59*time.Second + 900*time.Millisecond, "59:59"},
		{29*time.Minute + 41*time.Second, "29:41"},
		{9 * time.Second, "0:09"},
		{0, "0:00"},
		{-time.Minute, "0:00"},
	} {
		if got := humanDuration(tc.d); got != tc.want {
			t.Errorf("humanDuration(%s) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

func TestGroupIBAN(t *testing.T) {
	for in, want := range map[string]string{
		"DE89370400440532013000":       "DE89 3704 0044 0532 0130 00",
		"DE89 3704 0044 0532 0130 00":  "DE89 3704 0044 0532 0130 00",
		"gb29nwbk60161331926819":       "GB29 NWBK 6016 1331 9268 19",
		"NL91ABNA0417164300":           "NL91 ABNA 0417 1643 00",
		"":                             "",
		"FR1420041010050500013M02606 ": "FR14 2004 1010 0505 0001 3M02 606",
	} {
		if got := groupIBAN(in); got != want {
			t.Errorf("groupIBAN(%q) = %q, want %q", in, got, want)
		}
		if got := ibanText(in); got != strings.ReplaceAll(want, " ", "") {
			t.Errorf("ibanText(%q) = %q", in, got)
		}
	}
}

func TestFiatFigures(t *testing.T) {
	p := &rampway.FiatPricing{CryptoPriceUSD: "3000", FiatPriceUSD: "1.08"}
	if got := rateText(p, "ETH", 2, "EUR"); got != "1 ETH = 2777.78 EUR" {
		t.Errorf("rate %q", got)
	}
	if got := rateText(&rampway.FiatPricing{CryptoPriceUSD: "1", FiatPriceUSD: "1.27"}, "DUSD", 2, "GBP"); got != "1 DUSD = 0.7874 GBP" {
		t.Errorf("rate %q", got)
	}
	if got := rateText(&rampway.FiatPricing{CryptoPriceUSD: "0.0001234", FiatPriceUSD: "1"}, "TINY", 2, "USD"); got != "1 TINY = 0.0001234 USD" {
		t.Errorf("rate %q", got)
	}
	if got := rateText(&rampway.FiatPricing{CryptoPriceUSD: "x", FiatPriceUSD: "1"}, "ETH", 2, "USD"); got != "" {
		t.Errorf("rate of a bad price %q", got)
	}
	for _, tc := range []struct {
		d    string
		want string
	}{{"0.7305", "≈ 0.73 EUR"}, {"0.004", "< 0.01 EUR"}, {"0", ""}, {"27.775", "≈ 27.78 EUR"}} {
		if got := about(decimal.RequireFromString(tc.d), 2, "EUR"); got != tc.want {
			t.Errorf("about(%s) = %q, want %q", tc.d, got, tc.want)
		}
	}
	for bps, want := range map[int64]string{290: "2.9%", 100: "1%", 0: "0%", 150: "1.5%", 5: "0.05%"} {
		if got := percent(bps); got != want {
			t.Errorf("percent(%d) = %q, want %q", bps, got, want)
		}
	}
}

// A fiat order's summary, from its pricing: each crypto line with its worth in the currency,
// the spread and the method's fee, the amount; the currency's figures add up to the amount.
// Area B: the README's example (0.010263 ETH by card in EUR, 29.88 EUR). Area C: 100 EUR by
// card into ETH.
func TestFiatSummary(t *testing.T) {
	eth := rampway.Asset{Symbol: "ETH", Network: "devnet", Decimals: 18}
	b := &rampway.Order{Area: rampway.AreaNFTRamp, Asset: eth, FiatSymbol: "EUR", FiatMethod: rampway.MethodCard, FiatAmount: big.NewInt(2988),
		FiatDecimals: 2, PaymentValue: big.NewInt(1e16), NetworkFee: big.NewInt(263e12), ServiceFee: new(big.Int), CryptoAmount: big.NewInt(10263e12),
		FiatPricing: &rampway.FiatPricing{CryptoPriceUSD: "3000", FiatPriceUSD: "1.08", Subtotal: "28.5083333333333333", Spread: "0.285083333333333333",
			MethodFee: "1.085009083333333332357", SpreadBPS: 100, MethodFeeBPS: 290, MethodFeeFixed: "0.25"}}
	c := &rampway.Order{Area: rampway.AreaDeposit, Asset: eth, FiatSymbol: "EUR", FiatMethod: rampway.MethodCard, FiatAmount: big.NewInt(10000),
		FiatDecimals: 2, CryptoAmount: big.NewInt(34534e12), NetworkFee: big.NewInt(18434835320266), ServiceFee: new(big.Int),
		FiatPricing: &rampway.FiatPricing{CryptoPriceUSD: "3000", FiatPriceUSD: "1.08", Subtotal: "95.978985160947",
			Spread: "0.959789851609", MethodFee: "3.061224987444", SpreadBPS: 100, MethodFeeBPS: 290, MethodFeeFixed: "0.25"}}
	sepa := *b
	sepa.FiatMethod, sepa.FiatAmount = rampway.MethodSEPABankTransfer, big.NewInt(2880)
	sepa.FiatPricing = &rampway.FiatPricing{CryptoPriceUSD: "3000", FiatPriceUSD: "1.08", Subtotal: "28.5083333333333333", Spread: "0.285083333333333333",
		MethodFee: "0", SpreadBPS: 100, MethodFeeFixed: "0.00"}
	old := *b
	old.FiatPricing = nil
	for _, tc := range []struct {
		name string
		o    *rampway.Order
		want []string
		rate string
		note string
	}{
		{"area B by card", b, []string{"Price: 0.01 ETH ≈ 27.77 EUR", "Network fee: 0.000263 ETH ≈ 0.73 EUR", "Service fee: 0 ETH",
			"Exchange spread (1%): 0.29 EUR", "Card fee (2.9% + 0.25 EUR): 1.09 EUR", "Amount to pay: 29.88 EUR"}, "Rate used: 1 ETH = 2777.78 EUR", ""},
		{"area B by SEPA transfer", &sepa, []string{"Price: 0.01 ETH ≈ 27.78 EUR", "Network fee: 0.000263 ETH ≈ 0.73 EUR", "Service fee: 0 ETH",
			"Exchange spread (1%): 0.29 EUR", "Amount to pay: 28.80 EUR"}, "Rate used: 1 ETH = 2777.78 EUR", ""},
		{"area C by card", c, []string{"Delivered to Demo Store: 0.034534 ETH ≈ 95.93 EUR", "Network fee: 0.0000184 ETH ≈ 0.05 EUR",
			"Service fee: 0 ETH", "Exchange spread (1%): 0.96 EUR", "Card fee (2.9% + 0.25 EUR): 3.06 EUR", "Amount to pay: 100.00 EUR"},
			"Rate used: 1 ETH = 2777.78 EUR", ""},
		{"an order kept without its pricing", &old, []string{"Price: 0.01 ETH", "Network fee: 0.000263 ETH", "Service fee: 0 ETH", "Total (ETH): 0.010263 ETH",
			"Amount to pay: 29.88 EUR"}, "", Messages["fiat_includes"]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := fiatPriceLines(tc.o, "Demo Store")
			var got []string
			sum := decimal.Zero
			for _, l := range s.Lines {
				line := l.Label + ": " + l.Amount
				if l.Fiat != "" {
					line += " " + l.Fiat
				}
				got = append(got, line)
				// The currency's figures of every line but the total.
				if f := strings.TrimPrefix(l.Fiat, "≈ "); !l.Total && tc.o.FiatPricing != nil {
					if f == "" && strings.HasSuffix(l.Amount, " EUR") {
						f = l.Amount
					}
					if f != "" {
						sum = sum.Add(decimal.RequireFromString(strings.TrimSuffix(f, " EUR")))
					}
				}
			}
			if !slices.Equal(got, tc.want) || s.Rate != tc.rate || s.Note != tc.note {
				t.Fatalf("summary\n  %q rate %q note %q\nwant\n  %q rate %q note %q", got, s.Rate, s.Note, tc.want, tc.rate, tc.note)
			}
			if total := decimal.NewFromBigInt(tc.o.FiatAmount, -2); tc.o.FiatPricing != nil && !sum.Equal(total) {
				t.Fatalf("the lines add up to %s EUR, the amount is %s", sum, total)
			}
		})
	}
}

// The recipient of a call is the address argument named as one ("to", "recipient", ...), or
// the only address argument; nothing when the arguments do not say.
func TestRecipient(t *testing.T) {
	fn := func(inputs string) *rampway.ContractFunction {
		return &rampway.ContractFunction{ABI: `{"type":"function","name":"f","inputs":[` + inputs + `]}`}
	}
	const a, b = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266", "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
	for _, tc := range []struct {
		name string
		f    *rampway.ContractFunction
		args string
		want string
	}{
		{"to", fn(`{"name":"to","type":"address"},{"name":"quantity","type":"uint256"}`), `{"to":"` + a + `","quantity":"1"}`,
			"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"},
		{"recipient among two", fn(`{"name":"payer","type":"address"},{"name":"recipient","type":"address"}`), `{"payer":"` + a + `","recipient":"` + b + `"}`, b},
		{"the only address", fn(`{"name":"who","type":"address"},{"name":"n","type":"uint8"}`), `{"who":"` + b + `","n":2}`, b},
		{"two unnamed addresses", fn(`{"name":"x","type":"address"},{"name":"y","type":"address"}`), `{"x":"` + a + `","y":"` + b + `"}`, ""},
		{"no address", fn(`{"name":"n","type":"uint256"}`), `{"n":"1"}`, ""},
		{"not an address", fn(`{"name":"to","type":"address"}`), `{"to":"me"}`, ""},
		{"no function", nil, `{}`, ""},
	} {
		if got := recipient(tc.f, []byte(tc.args)); got != tc.want {
			t.Errorf("%s: recipient %q, want %q", tc.name, got, tc.want)
		}
	}
}

// The identity step's countries are every code the API takes, once, each with a name, in
// the order of their names.
func TestCountries(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range countries {
		if !rampway.ValidCountry(c.Code) || seen[c.Code] || c.Name == "" {
			t.Errorf("country %+v (seen %v)", c, seen[c.Code])
		}
		seen[c.Code] = true
	}
	n := 0
	for a := 'A'; a <= 'Z'; a++ {
		for b := 'A'; b <= 'Z'; b++ {
			if code := string([]rune{a, b}); rampway.ValidCountry(code) {
				n++
				if !seen[code] {
					t.Errorf("no name for %s", code)
				}
			}
		}
	}
	if n != len(countries) {
		t.Errorf("%d countries listed, %d codes valid", len(countries), n)
	}
	if CountryName("DE") != "Germany" || CountryName("GB") != "United Kingdom" || CountryName("UK") != "" {
		t.Errorf("names: %q %q %q", CountryName("DE"), CountryName("GB"), CountryName("UK"))
	}
}
