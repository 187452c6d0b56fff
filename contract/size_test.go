package contract

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// longestCalldata is the longest calldata within MaxCalldata: the selector and whole words.
const longestCalldata = 4 + (MaxCalldata-4)/32*32

// tooLong is the size error's message, after wantPrefix.
const tooLong = "the encoded call would be larger than 131072 bytes"

// predictedSize returns the calldata size Values counts for args, and false if args fail
// Values before the size is counted (not an object, duplicate keys, wrong count, missing).
func predictedSize(fn *Function, args []byte) (int, bool) {
	if len(bytes.TrimSpace(args)) == 0 {
		args = []byte("null")
	}
	d, ok := parseJSON(args)
	if !ok {
		return 0, false
	}
	defer putDoc(d)
	at, err := fn.bind(d, nil)
	if err != nil {
		return 0, false
	}
	return fn.calldataSize(d, at), true
}

// TestCalldataSize checks the size count against go-ethereum's encoder: for every valid table
// case it equals the selector plus the length of Pack on the hand-built values, and the
// "just under" limit cases are as long as calldata can be.
func TestCalldataSize(t *testing.T) {
	t.Parallel()
	for _, tt := range argCases() {
		if tt.err != "" {
			continue
		}
		t.Run(tt.name, func(t *testing.T) {
			f := mustParse(t, tt.frag)
			packed, err := f.Method().Inputs.Pack(tt.want...)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := predictedSize(f, []byte(tt.args))
			if !ok || got != 4+len(packed) {
				t.Fatalf("predicted size %d (%v), go-ethereum packs 4+%d bytes", got, ok, len(packed))
			}
			if strings.HasPrefix(tt.name, "calldata limit, just under") && got != longestCalldata {
				t.Fatalf("the just-under case is %d bytes, not %d", got, longestCalldata)
			}
		})
	}
}

// TestCalldataSizeSaturates checks that sizes far over the limit count as over, without
// overflowing: types whose smallest value is already too large (checkType bounds the
// fixed-size elements of one input, so each fragment has three such inputs).
func TestCalldataSizeSaturates(t *testing.T) {
	t.Parallel()
	for _, in := range []string{ // one input, %[1]s for its name
		`{"name":"%[1]s","type":"bytes32[65536]"}`,
		`{"name":"%[1]s","type":"string[65536]"}`,
		`{"name":"%[1]s","type":"uint8[256][256]"}`,
		`{"name":"%[1]s","type":"string[256][256]"}`,
		`{"name":"%[1]s","type":"tuple[256]","components":[{"name":"a","type":"uint256[255]"},{"name":"s","type":"string"}]}`,
		`{"name":"%[1]s","type":"tuple[256][]","components":[{"name":"s","type":"string"},{"name":"a","type":"uint256[255]"}]}`,
	} {
		f := mustParse(t, `{"name":"f","inputs":[`+fmt.Sprintf(in, "a")+`,`+fmt.Sprintf(in, "b")+`,`+fmt.Sprintf(in, "c")+`]}`)
		args := []byte(`{"a":1,"b":[[],"x"],"c":{}}`)
		if got, ok := predictedSize(f, args); !ok || got != over {
			t.Errorf("%s: predicted %d (%v), want over (%d)", in, got, ok, over)
		}
		_, err := f.Values(args)
		checkArgsErr(t, err, tooLong)
	}
}

// oversized returns function_args of about n bytes in the shapes that cost the most to
// validate and encode per byte, each against its fragment; every one is far over MaxCalldata.
func oversized(n int) []struct{ name, frag, args string } {
	list := func(elem string) string { // {"x":[elem,elem,...]}, about n bytes
		return x("[" + strings.TrimSuffix(strings.Repeat(elem+",", max(1, n/(len(elem)+1))), ",") + "]")
	}
	order := `{"buyer":"` + addrLower + `","items":[{"id":1,"tags":["` + hex32 + `"]}]}`
	return []struct{ name, frag, args string }{
		{"uint256[] of 1", frag1("uint256[]"), list("1")},
		{"uint256[] of 1.5e76", frag1("uint256[]"), list("1.5e76")},
		{"uint256[] of long decimal strings", frag1("uint256[]"), list(`"` + maxU256 + `"`)},
		{"uint8[] of 1", frag1("uint8[]"), list("1")},
		{"bool[][] of pairs", frag1("bool[][]"), list("[true,false]")},
		{"string[] of one letter", frag1("string[]"), list(`"a"`)},
		{"uint256[][3][] of empty rows", frag1("uint256[][3][]"), list("[[],[],[]]")},
		{"tuple[] of orders", fragOrders, `{"orders":` + strings.TrimPrefix(list(order), `{"x":`)},
		{"tuple[] of notes", fragNotes, `{"notes":` + strings.TrimPrefix(list(`{"id":1,"memo":""}`), `{"x":`)},
		{"bytes", frag1("bytes"), x(`"0x` + strings.Repeat("ab", n/2) + `"`)},
		{"string", frag1("string"), x(`"` + strings.Repeat("a", n) + `"`)},
	}
}

// TestOversizedArgs checks that function_args of 1 MiB (the largest request body) in the
// costliest shapes are refused with the size error without converting a value: Encode
// allocates only what parsing the JSON does (a handful of slices, plus the error), where
// converting the elements would allocate at least once per element, tens of thousands of times.
// Not in parallel: AllocsPerRun refuses parallel tests.
func TestOversizedArgs(t *testing.T) {
	for _, c := range oversized(1 << 20) {
		t.Run(c.name, func(t *testing.T) {
			f := mustParse(t, c.frag)
			args := []byte(c.args)
			var err error
			allocs := testing.AllocsPerRun(1, func() { _, err = f.Encode(args) })
			checkArgsErr(t, err, tooLong)
			if allocs > 100 {
				t.Fatalf("Encode made %v allocations: it did more than parse the JSON", allocs)
			}
		})
	}
}
