package contract

import (
	"bytes"
	"encoding/json"
	"errors"
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

// FuzzEncode checks, for arbitrary function_args, that Encode never panics, fails only with an
// EFUNCARGS error carrying the user-facing prefix, and, when it succeeds, produces calldata
// that starts with the selector and decodes back with go-ethereum (and re-encodes to the same
// bytes). The seed corpus is the table cases, each against its own fragment.
func FuzzEncode(f *testing.F) {
	frags := fuzzFragments()
	index := make(map[string]int, len(frags))
	fns := make([]*Function, len(frags))
	for i, fr := range frags {
		index[fr] = i
		fns[i] = mustParse(f, fr)
	}
	for _, c := range argCases() {
		f.Add(uint8(index[c.frag]), []byte(c.args))
	}
	f.Add(uint8(0), []byte(`{}`))
	f.Add(uint8(0), []byte(`{"u8":1e2,"order":{"meta":{}}}`))

	f.Fuzz(func(t *testing.T, sel uint8, args []byte) {
		checkParserAgrees(t, args)
		fn := fns[int(sel)%len(fns)]
		data, err := fn.Encode(args)
		if err != nil {
			var re *rampway.Error
			if !errors.As(err, &re) || re.Code != rampway.EFUNCARGS {
				t.Fatalf("Encode(%q) on %s: error %v is not an EFUNCARGS *rampway.Error", args, fn.Signature(), err)
			}
			if !strings.HasPrefix(re.Message, wantPrefix) {
				t.Fatalf("message %q lacks the prefix", re.Message)
			}
			if _, verr := fn.Values(args); verr == nil || verr.Error() != err.Error() {
				t.Fatalf("Values and Encode disagree: %v vs %v", verr, err)
			}
			return
		}
		s := fn.Selector()
		if !bytes.HasPrefix(data, s[:]) {
			t.Fatalf("calldata %x does not start with selector %x", data, s)
		}
		inputs := fn.Method().Inputs
		vals, err := inputs.Unpack(data[4:])
		if err != nil {
			t.Fatalf("Encode(%q) on %s gave calldata %x that does not decode: %v", args, fn.Signature(), data, err)
		}
		again, err := inputs.Pack(vals...)
		if err != nil {
			t.Fatalf("re-packing decoded values: %v", err)
		}
		if !bytes.Equal(again, data[4:]) {
			t.Fatalf("decode/re-encode changed the calldata:\n%x\n%x", data[4:], again)
		}
	})
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
