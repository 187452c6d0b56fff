package pricing

import (
	"math/big"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/rampway/rampway"
)

func TestConvert(t *testing.T) {
	src := Static{"ETH": decimal.RequireFromString("3000"), "DUSD": decimal.RequireFromString("1"), "ODD": decimal.RequireFromString("3")}
	eth := rampway.Asset{Symbol: "ETH", Decimals: 18}
	dusd := rampway.Asset{Symbol: "DUSD", Decimals: 6}
	odd := rampway.Asset{Symbol: "ODD", Decimals: 6}
	for _, tc := range []struct {
		amount   string
		from, to rampway.Asset
		want     string
	}{
		{"1000000000000000000", eth, dusd, "3000000000"}, // 1 ETH = 3000 DUSD
		{"21000000000000", eth, dusd, "63000"},           // 0.000021 ETH = 0.063 DUSD
		{"1", eth, dusd, "1"},                            // a dust amount rounds up to one unit
		{"3000000000", dusd, eth, "1000000000000000000"},
		{"1000000", dusd, odd, "333334"}, // 1/3 rounds up
		{"5", eth, eth, "5"},
	} {
		a, _ := new(big.Int).SetString(tc.amount, 10)
		got, err := Convert(t.Context(), src, a, tc.from, tc.to)
		if err != nil || got.String() != tc.want {
			t.Errorf("Convert(%s %s -> %s) = %v, %v; want %s", tc.amount, tc.from.Symbol, tc.to.Symbol, got, err, tc.want)
		}
	}
	if _, err := Convert(t.Context(), src, big.NewInt(1), eth, rampway.Asset{Symbol: "BTC", Decimals: 8}); rampway.ErrorCode(err) != rampway.ENOTFOUND {
		t.Errorf("unknown price: %v", err)
	}
}

func TestBPS(t *testing.T) {
	for _, tc := range []struct{ amount, bps, want int64 }{{10000, 100, 100}, {10001, 100, 101}, {1, 1, 1}, {0, 100, 0}, {12345, 0, 0}} {
		if got := BPS(big.NewInt(tc.amount), tc.bps); got.Int64() != tc.want {
			t.Errorf("BPS(%d, %d) = %s, want %d", tc.amount, tc.bps, got, tc.want)
		}
	}
}

func TestCeilDiv(t *testing.T) {
	for _, tc := range []struct{ a, b, want string }{{"10", "3", "4"}, {"9", "3", "3"}, {"1", "1000000000000000000000000000000000000000000000", "1"}, {"0", "7", "0"}} {
		if got := CeilDiv(decimal.RequireFromString(tc.a), decimal.RequireFromString(tc.b)); got.String() != tc.want {
			t.Errorf("CeilDiv(%s, %s) = %s, want %s", tc.a, tc.b, got, tc.want)
		}
	}
}
