package contract

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/rampway/rampway"
)

// fuzzFragments returns the fragments the fuzzer encodes against: first the many-types
// fragment, then every other fragment of the table tests.
func fuzzFragments() []string {
	frags := []string{fragKitchen}
	seen := map[string]int{fragKitchen: 0}
	for _, c := range argCases() {
		if _, ok := seen[c.frag]; !ok {
			seen[c.frag] = len(frags)
			frags = append(frags, c.frag)
		}
	}
	return frags
}

// maxFuzzArgs bounds the function_args FuzzEncode tries: longer inputs return at once. The
// bound is for Go's fuzzing engine, not for Encode, which is linear in its input
// (TestEncodeLargeArgs runs the same checks on inputs of 256 KiB).
//
// A worker minimizes every input that reaches new coverage before it fuzzes again, for up to
// -fuzzminimizetime (60s by default), and the coordinator counts those runs only when the
// minimization ends: hence "execs: N (0/sec)" while both workers minimize. When no single byte
// of an n-byte input can be removed without losing the new coverage (say, a long run of one
// byte whose count sits on a coverage-counter bucket boundary), internal/fuzz's minimizeBytes
// goes on to try removing every range of bytes: about n*n/2 runs, each O(n). Mutants grow to
// several KiB (a 3,279-byte `{"\xc1\xc1...":127}` was still being minimized when its 60s ran
// out), so without a bound fuzzing stalled within seconds. At 512 bytes the worst case is about
// 130,000 runs, a few seconds; at 1 KiB it is 520,000, and minimizations of over 10s were seen.
const maxFuzzArgs = 512

// FuzzEncode checks, for arbitrary function_args of up to maxFuzzArgs bytes, that Encode never
// panics, fails only with an EFUNCARGS error carrying the user-facing prefix, and, when it
// succeeds, produces calldata that starts with the selector, is as long as the size count
// predicted, and decodes back with go-ethereum (and re-encodes to the same bytes). The seed
// corpus is the table cases, each against its own fragment (those longer than maxFuzzArgs, the
// kitchen-sink calls and the calls at the calldata limit, are left to the table tests).
func FuzzEncode(f *testing.F) {
	frags := fuzzFragments()
	index := make(map[string]int, len(frags))
	fns := make([]*Function, len(frags))
	for i, fr := range frags {
		index[fr] = i
		fns[i] = mustParse(f, fr)
	}
	for _, c := range argCases() {
		if len(c.args) <= maxFuzzArgs {
			f.Add(uint8(index[c.frag]), []byte(c.args))
		}
	}
	f.Add(uint8(0), []byte(`{}`))
	f.Add(uint8(0), []byte(`{"u8":1e2,"order":{"meta":{}}}`))
	// One seed over the bound, so that the early return is in the baseline coverage: otherwise
	// the first long mutant would be new coverage, and minimizing it (every candidate shorter
	// than it misses the early return, so none is kept) costs the full n*n/2 runs.
	f.Add(uint8(0), bytes.Repeat([]byte(" "), maxFuzzArgs+1))

	f.Fuzz(func(t *testing.T, sel uint8, args []byte) {
		if len(args) > maxFuzzArgs {
			return
		}
		checkEncode(t, fns[int(sel)%len(fns)], args)
	})
}

// checkEncode checks what FuzzEncode checks for one call: the package's JSON parser agrees with
// encoding/json on args; Encode fails only with an EFUNCARGS *rampway.Error carrying the prefix
// (and Values fails the same way), and with the size error exactly when the size count is over
// MaxCalldata; and, on success, the calldata is as long as the size count predicted, starts
// with the selector, decodes with go-ethereum and re-encodes to the same bytes. It returns
// Encode's error.
func checkEncode(t *testing.T, fn *Function, args []byte) error {
	t.Helper()
	checkParserAgrees(t, args)
	data, err := fn.Encode(args)
	size, counted := predictedSize(fn, args)
	if counted && (size > MaxCalldata) != (err != nil && rampway.ErrorMessage(err) == wantPrefix+tooLong) {
		t.Fatalf("Encode(%.200q) on %s: size counted %d, error %v", args, fn.Signature(), size, err)
	}
	if err != nil {
		var re *rampway.Error
		if !errors.As(err, &re) || re.Code != rampway.EFUNCARGS {
			t.Fatalf("Encode(%.200q) on %s: error %v is not an EFUNCARGS *rampway.Error", args, fn.Signature(), err)
		}
		if !strings.HasPrefix(re.Message, wantPrefix) {
			t.Fatalf("message %q lacks the prefix", re.Message)
		}
		if _, verr := fn.Values(args); verr == nil || verr.Error() != err.Error() {
			t.Fatalf("Values and Encode disagree: %v vs %v", verr, err)
		}
		return err
	}
	if !counted || size != len(data) {
		t.Fatalf("Encode(%.200q) on %s: %d bytes of calldata, size counted %d (%v)", args, fn.Signature(), len(data), size, counted)
	}
	s := fn.Selector()
	if !bytes.HasPrefix(data, s[:]) {
		t.Fatalf("calldata %.200x does not start with selector %x", data, s)
	}
	inputs := fn.Method().Inputs
	vals, err := inputs.Unpack(data[4:])
	if err != nil {
		t.Fatalf("Encode(%.200q) on %s gave calldata %.200x that does not decode: %v", args, fn.Signature(), data, err)
	}
	again, err := inputs.Pack(vals...)
	if err != nil {
		t.Fatalf("re-packing decoded values: %v", err)
	}
	if !bytes.Equal(again, data[4:]) {
		t.Fatalf("decode/re-encode changed the calldata:\n%.200x\n%.200x", data[4:], again)
	}
	return nil
}

// TestEncodeLargeArgs runs FuzzEncode's checks on function_args far longer than maxFuzzArgs
// (256 KiB, or 64 KiB under -race or -short): the shapes that stalled the fuzzer's
// minimization, long versions of each kind of value, valid and not, and for each kind of long
// array or string the longest call within MaxCalldata and a longer one.
func TestEncodeLargeArgs(t *testing.T) {
	t.Parallel()
	size := 256 << 10
	if raceEnabled || testing.Short() {
		size = 64 << 10
	}
	fill := func(unit string, n int) string { return strings.Repeat(unit, max(1, n/len(unit))) }
	list := func(elem string) string { // [elem,elem,...], about size bytes
		return "[" + strings.TrimSuffix(fill(elem+",", size), ",") + "]"
	}
	listN := func(elem string, n int) string { // [elem,elem,...], n elements
		return "[" + strings.TrimSuffix(strings.Repeat(elem+",", n), ",") + "]"
	}
	keys := func(n int) string { // "k0":1,"k1":1,...
		var b strings.Builder
		for i := 0; b.Len() < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"k%d":1`, i)
		}
		return b.String()
	}
	order := `{"buyer":"` + addrLower + `","items":[{"id":1,"tags":["` + hex32 + `"]}]}`
	// The longest calls: 4 bytes of selector, 64 of offset and length, then 4093 words of
	// uint256 elements or string and bytes data, 1023 pairs of booleans (4 words each) or
	// 454 orders (9 words each).
	const words, pairs, orders = 4093, 1023, 454
	cases := []struct {
		name, frag, args string
		err              string // part of the message; "" for a valid call
	}{
		// The shapes of two inputs the fuzzer's minimization was stuck on (3,279 and about 3,500
		// bytes), then a valid variant of the second.
		{"invalid UTF-8 key", fragKitchen, `{"` + fill("\xc1", size) + `x":127}`, "17 arguments required, 1 given"},
		{"unclosed object of whitespace", fragKitchen, `{"":1,"":` + fill(" ", size) + `{"":1} `, "function_args must be a JSON object"},
		{"duplicate keys around whitespace", fragKitchen, `{"":1,"":` + fill(" ", size) + `{"":1} }`, "argument '' is given twice"},

		{"escaped key", frag1("uint8"), `{"` + fill(`\u00e9`, size) + `":1}`, "argument 'x' is missing"},
		{"many members", frag1("uint8"), `{` + keys(size) + `}`, "1 arguments required, "},
		{"many duplicate members", frag1("uint8"), `{` + fill(`"x":1,`, size) + `"x":1}`, "argument 'x' is given twice"},
		{"nesting at the limit", frag1("uint256[]"), x(strings.Repeat("[", maxJSONDepth-1) + strings.Repeat("]", maxJSONDepth-1)), "argument 'x[0]' must be of type uint256"},
		{"nesting over the limit", frag1("uint256[]"), x(fill("[", size)), "function_args must be a JSON object"},
		{"longest string", frag1("string"), x(`"` + strings.Repeat("a", 32*words) + `"`), ""},
		{"long string", frag1("string"), x(`"` + fill("a", max(size, MaxCalldata)) + `"`), tooLong},
		{"long escaped string", frag1("string"), x(`"` + fill(`\n\u00e9\ud83d\ude00`, size) + `"`), ""}, // 7 bytes per 20
		{"longest bytes", frag1("bytes"), x(`"0x` + strings.Repeat("ab", 32*words) + `"`), ""},
		{"longest odd bytes", frag1("bytes"), x(`"0x` + strings.Repeat("ab", 32*words) + `a"`), "argument 'x' must be of type bytes"},
		{"long bytes", frag1("bytes"), x(`"0x` + fill("ab", max(size, 2*MaxCalldata)) + `"`), tooLong},
		{"long address", frag1("address"), x(`"0x` + fill("ab", size) + `"`), "argument 'x' must be of type address"},
		{"long number literal", frag1("uint8"), x("1." + fill("0", size) + "e2"), ""},
		{"long fraction", frag1("uint256"), x("0." + fill("0", size) + "1e999999"), "argument 'x' must be of type uint256"},
		{"long digits", frag1("uint256"), x(fill("9", size)), "argument 'x' must be of type uint256"},
		{"long decimal string", frag1("uint256"), x(`"` + fill("0", size) + `1"`), ""},
		{"long hex string", frag1("uint256"), x(`"0x` + fill("0", size) + `1"`), ""},
		{"most small integers", frag1("uint256[]"), x(listN("1", words)), ""},
		{"many small integers", frag1("uint256[]"), x(list("1")), tooLong},
		{"most exponent integers", frag1("uint256[]"), x(listN("1.5e76", words)), ""},
		{"many exponent integers", frag1("uint256[]"), x(list("1.5e76")), tooLong},
		{"most integers, last bad", frag1("uint8[]"), x(strings.TrimSuffix(listN("1", words-1), "]") + ",256]"), "argument 'x[4092]' must be of type uint8"},
		{"most nested arrays", frag1("bool[][]"), x(listN("[true,false]", pairs)), ""},
		{"many nested arrays", frag1("bool[][]"), x(list("[true,false]")), tooLong},
		{"most tuples", fragOrders, `{"orders":` + listN(order, orders) + `}`, ""},
		{"many tuples", fragOrders, `{"orders":` + listN(order, max(orders+1, size/len(order))) + `}`, tooLong},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fn := mustParse(t, c.frag)
			switch err := checkEncode(t, fn, []byte(c.args)); {
			case c.err == "" && err != nil:
				t.Fatalf("Encode: %v, want success", err)
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Fatalf("Encode: %v, want an error containing %q", err, c.err)
			}
		})
	}
}

// checkParserAgrees checks the package's JSON parser against encoding/json: the same
// documents are valid, and a top-level string or object keys decode to the same text.
func checkParserAgrees(t *testing.T, data []byte) {
	d, ok := parseJSON(data)
	if valid := json.Valid(data); ok != valid {
		t.Fatalf("parseJSON(%q) ok = %v, json.Valid = %v", data, ok, valid)
	}
	if !ok {
		return
	}
	defer putDoc(d)
	switch root := d.nodes[0]; root.kind {
	case jString:
		var want string
		if err := json.Unmarshal(data, &want); err != nil || root.s != want {
			t.Fatalf("string %q decoded as %q, encoding/json gives %q (%v)", data, root.s, want, err)
		}
	case jObject:
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.Token() // {
		for _, k := range d.children(&root) {
			tok, err := dec.Token()
			if err != nil {
				t.Fatalf("encoding/json: %v", err)
			}
			if key, _ := tok.(string); key != d.nodes[k].key {
				t.Fatalf("key decoded as %q, encoding/json gives %q", d.nodes[k].key, key)
			}
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				t.Fatalf("encoding/json: %v", err)
			}
		}
	}
}

// FuzzParseFunction checks that any fragment either parses into a Function that can encode,
// or is refused with an EINVALID error found by the package's own checks (a panic recovered
// inside ParseFunction, or go-ethereum refusing a type the checks let through, carries a
// cause in Err and fails the test).
func FuzzParseFunction(f *testing.F) {
	for _, fr := range fuzzFragments() {
		f.Add([]byte(fr))
	}
	f.Add([]byte(`{"name":"f","inputs":[{"name":"t","type":"tuple[2][]","components":[{"name":"a_b","type":"uint8[3]"}]}]}`))
	f.Add([]byte(`[{"type":"function","name":"f","inputs":[{"name":"x","type":"bytes32[1][]"}],"outputs":[{"type":"tuple","components":[{"name":"o","type":"bool"}]}]}]`))
	f.Fuzz(func(t *testing.T, fragment []byte) {
		fn, err := ParseFunction(fragment)
		if err != nil {
			var re *rampway.Error
			if !errors.As(err, &re) || re.Code != rampway.EINVALID || re.Err != nil {
				t.Fatalf("ParseFunction(%q): %#v, want an EINVALID found by the package's checks", fragment, err)
			}
			return
		}
		if !strings.HasPrefix(fn.Signature(), fn.Name()+"(") || len(fn.Inputs()) != len(fn.Method().Inputs) {
			t.Fatalf("inconsistent Function for %q: %s", fragment, fn.Signature())
		}
		if _, err := fn.Encode([]byte(`{}`)); err != nil && rampway.ErrorCode(err) != rampway.EFUNCARGS {
			t.Fatalf("Encode({}) on %s: %v", fn.Signature(), err)
		}
	})
}
