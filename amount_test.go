package rampway

import (
	"math/big"
	"testing"
)

func TestParseUnits(t *testing.T) {
	for _, tc := range []struct {
		in       string
		decimals uint8
		want     string // base units, or "" for an error
	}{
		{"0.01", 18, "10000000000000000"},
		{"1", 6, "1000000"},
		{"10.5", 6, "10500000"},
		{"0.000001", 6, "1"},
		{"0.0000001", 6, ""},
		{"123456789012345678901234567890.123456789012345678", 18, "123456789012345678901234567890123456789012345678"},
		{"0", 18, "0"},
		{"007.50", 2, "750"},
		{"1.", 6, ""},
		{".5", 6, ""},
		{"-1", 6, ""},
		{"+1", 6, ""},
		{"1e3", 6, ""},
		{" 1", 6, ""},
		{"1,000", 6, ""},
		{"", 6, ""},
		{"0x10", 6, ""},
	} {
		got, err := ParseUnits(tc.in, tc.decimals)
		if tc.want == "" {
			if err == nil {
				t.Errorf("ParseUnits(%q, %d) = %v, want an error", tc.in, tc.decimals, got)
			}
			continue
		}
		if err != nil || got.String() != tc.want {
			t.Errorf("ParseUnits(%q, %d) = %v, %v; want %s", tc.in, tc.decimals, got, err, tc.want)
		}
	}
}

func TestFormatUnits(t *testing.T) {
	for _, tc := range []struct {
		v        string
		decimals uint8
		want     string
	}{
		{"10000000000000000", 18, "0.01"}, {"1000000", 6, "1"}, {"10500000", 6, "10.5"}, {"0", 6, "0"}, {"1", 18, "0.000000000000000001"},
	} {
		v, _ := new(big.Int).SetString(tc.v, 10)
		if got := FormatUnits(v, tc.decimals); got != tc.want {
			t.Errorf("FormatUnits(%s, %d) = %q, want %q", tc.v, tc.decimals, got, tc.want)
		}
	}
}

func TestRoundUpSignificant(t *testing.T) {
	for _, tc := range []struct {
		in     string
		digits int
		want   string
	}{
		{"10105415818900000", 5, "10106000000000000"}, // 0.0101054158189 ETH -> 0.010106
		{"10106000000000000", 5, "10106000000000000"}, // already typeable: unchanged
		{"10105000000000001", 5, "10106000000000000"}, // any remainder rounds up
		{"99999500", 5, "100000000"},                  // carries into a new digit
		{"12345", 5, "12345"},
		{"123", 5, "123"},
		{"0", 5, "0"},
		{"1234567", 1, "2000000"},
	} {
		v, _ := new(big.Int).SetString(tc.in, 10)
		got := RoundUpSignificant(v, tc.digits)
		if got.String() != tc.want || v.String() != tc.in {
			t.Errorf("RoundUpSignificant(%s, %d) = %s (input now %s), want %s", tc.in, tc.digits, got, v, tc.want)
		}
	}
}

func TestRoundDownSignificant(t *testing.T) {
	for in, want := range map[int64]int64{10105415: 10105000, 10105000: 10105000, 99999999: 99999000, 12345: 12345, 0: 0} {
		v := big.NewInt(in)
		if got := RoundDownSignificant(v, 5); got.Int64() != want || v.Int64() != in {
			t.Errorf("RoundDownSignificant(%d, 5) = %s (input now %s), want %d", in, got, v, want)
		}
	}
}
