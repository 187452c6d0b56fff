package contract

import (
	"encoding/hex"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/rampway/rampway"
)

// frag1 is a function fragment with one input named x of type typ.
func frag1(typ string) string {
	return `{"type":"function","name":"f","stateMutability":"nonpayable","inputs":[{"name":"x","type":"` + typ + `"}],"outputs":[]}`
}

// fragN is a function fragment with the given inputs, written as "name type" pairs
// (tuples are not expressible here; write those fragments out).
func fragN(name string, inputs ...string) string {
	parts := make([]string, len(inputs))
	for i, in := range inputs {
		nt := strings.SplitN(in, " ", 2)
		parts[i] = fmt.Sprintf(`{"name":%q,"type":%q}`, nt[0], nt[1])
	}
	return `{"type":"function","name":"` + name + `","inputs":[` + strings.Join(parts, ",") + `]}`
}

func mustParse(t testing.TB, fragment string) *Function {
	t.Helper()
	f, err := ParseFunction([]byte(fragment))
	if err != nil {
		t.Fatalf("ParseFunction(%s): %v", fragment, err)
	}
	return f
}

func TestParseFunctionValid(t *testing.T) {
	t.Parallel()
	erc20Transfer := `{"type":"function","name":"transfer","stateMutability":"nonpayable",
		"inputs":[{"name":"to","type":"address","internalType":"address"},{"name":"amount","type":"uint256","internalType":"uint256"}],
		"outputs":[{"name":"","type":"bool","internalType":"bool"}]}`
	buy := `[{"type":"function","name":"buy","stateMutability":"payable","inputs":[
		{"name":"order","type":"tuple","internalType":"struct Shop.Order","components":[
			{"name":"buyer","type":"address"},
			{"name":"items","type":"tuple[]","components":[{"name":"id","type":"uint256"},{"name":"tags","type":"bytes32[]"}]}]},
		{"name":"grid","type":"uint8[2][]"},
		{"name":"token","type":"address","internalType":"contract IERC20"}],
		"outputs":[{"name":"","type":"tuple","components":[{"name":"ok","type":"bool"}]}]}]`

	tests := []struct {
		name      string
		fragment  string
		wantName  string
		wantSig   string
		wantSel   string
		wantPay   bool
		wantParam []Param
	}{
		{"erc20 transfer object", erc20Transfer, "transfer", "transfer(address,uint256)", "a9059cbb", false,
			[]Param{{"to", "address"}, {"amount", "uint256"}}},
		{"erc20 transfer in one-element array", "  [" + erc20Transfer + "]\n", "transfer", "transfer(address,uint256)", "a9059cbb", false,
			[]Param{{"to", "address"}, {"amount", "uint256"}}},
		{"type omitted defaults to function", `{"name":"transfer","inputs":[{"name":"to","type":"address"},{"name":"amount","type":"uint256"}]}`,
			"transfer", "transfer(address,uint256)", "a9059cbb", false, []Param{{"to", "address"}, {"amount", "uint256"}}},
		{"no inputs", `{"type":"function","name":"totalSupply","stateMutability":"view","inputs":[],"outputs":[{"name":"","type":"uint256"}]}`,
			"totalSupply", "totalSupply()", "18160ddd", false, []Param{}},
		{"inputs absent", `{"type":"function","name":"totalSupply"}`, "totalSupply", "totalSupply()", "18160ddd", false, []Param{}},
		{"payable tuple and nested arrays", buy, "buy",
			"buy((address,(uint256,bytes32[])[]),uint8[2][],address)", "", true,
			[]Param{{"order", "(address,(uint256,bytes32[])[])"}, {"grid", "uint8[2][]"}, {"token", "address"}}},
		{"legacy payable flag", `{"type":"function","name":"deposit","payable":true,"inputs":[]}`, "deposit", "deposit()", "d0e30db0", true, []Param{}},
		{"view is not payable", `{"type":"function","name":"deposit","stateMutability":"view"}`, "deposit", "deposit()", "d0e30db0", false, []Param{}},
		{"every elementary type", fragN("all", "a uint8", "b int256", "c bytes1", "d bytes32", "e bytes", "f string", "g bool",
			"h address", "i function", "j uint24[3][]", "k int40"), "all",
			"all(uint8,int256,bytes1,bytes32,bytes,string,bool,address,function,uint24[3][],int40)", "", false,
			[]Param{{"a", "uint8"}, {"b", "int256"}, {"c", "bytes1"}, {"d", "bytes32"}, {"e", "bytes"}, {"f", "string"},
				{"g", "bool"}, {"h", "address"}, {"i", "function"}, {"j", "uint24[3][]"}, {"k", "int40"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := mustParse(t, tt.fragment)
			if f.Name() != tt.wantName {
				t.Errorf("Name() = %q, want %q", f.Name(), tt.wantName)
			}
			if f.Signature() != tt.wantSig {
				t.Errorf("Signature() = %q, want %q", f.Signature(), tt.wantSig)
			}
			sel := f.Selector()
			if tt.wantSel != "" && hex.EncodeToString(sel[:]) != tt.wantSel {
				t.Errorf("Selector() = %x, want %s", sel, tt.wantSel)
			}
			if string(sel[:]) != string(f.Method().ID) {
				t.Errorf("Selector() = %x, Method().ID = %x", sel, f.Method().ID)
			}
			if f.Payable() != tt.wantPay {
				t.Errorf("Payable() = %v, want %v", f.Payable(), tt.wantPay)
			}
			if got := f.Inputs(); !reflect.DeepEqual(got, tt.wantParam) {
				t.Errorf("Inputs() = %v, want %v", got, tt.wantParam)
			}
			if len(f.Method().Inputs) != len(tt.wantParam) {
				t.Errorf("Method().Inputs has %d entries, want %d", len(f.Method().Inputs), len(tt.wantParam))
			}
		})
	}
}

func TestInputsReturnsACopy(t *testing.T) {
	t.Parallel()
	f := mustParse(t, frag1("uint256"))
	f.Inputs()[0].Name = "y"
	if f.Inputs()[0].Name != "x" {
		t.Fatal("modifying the result of Inputs changed the Function")
	}
}

func TestParseFunctionErrors(t *testing.T) {
	t.Parallel()
	comp := func(components string) string {
		return `{"type":"function","name":"f","inputs":[{"name":"order","type":"tuple","components":[` + components + `]}]}`
	}
	tests := []struct {
		name     string
		fragment string
		want     string
	}{
		{"empty", ``, "ABI fragment is not valid JSON"},
		{"not JSON", `{"type":"function",`, "ABI fragment is not valid JSON"},
		{"empty array", `[]`, "ABI fragment must hold exactly one function entry, not 0 entries"},
		{"two entries", `[` + frag1("uint256") + `,` + frag1("uint8") + `]`, "ABI fragment must hold exactly one function entry, not 2 entries"},
		{"string", `"transfer(address,uint256)"`, "ABI fragment must be a JSON object, or a JSON array holding one object"},
		{"array of number", `[1]`, "ABI fragment must be a JSON object, or a JSON array holding one object"},
		{"null", `null`, "ABI fragment must be a JSON object, or a JSON array holding one object"},
		{"event", `{"type":"event","name":"Transfer","inputs":[{"name":"from","type":"address","indexed":true}]}`, "ABI entry is of type 'event', not 'function'"},
		{"constructor", `{"type":"constructor","inputs":[]}`, "ABI entry is of type 'constructor', not 'function'"},
		{"fallback", `[{"type":"fallback","stateMutability":"payable"}]`, "ABI entry is of type 'fallback', not 'function'"},
		{"receive", `{"type":"receive","stateMutability":"payable"}`, "ABI entry is of type 'receive', not 'function'"},
		{"error", `{"type":"error","name":"Nope","inputs":[]}`, "ABI entry is of type 'error', not 'function'"},
		{"unknown entry type", `{"type":"method","name":"f"}`, "ABI entry type 'method' is not valid: expected 'function'"},
		{"no function name", `{"type":"function","inputs":[]}`, "ABI function entry has no name"},
		{"bad function name", `{"type":"function","name":"mint now"}`, "ABI function name 'mint now' is not a valid identifier"},
		{"bad stateMutability", `{"type":"function","name":"f","stateMutability":"free"}`,
			"ABI function stateMutability 'free' is not valid: expected pure, view, nonpayable or payable"},
		{"inputs not an array", `{"type":"function","name":"f","inputs":{}}`, "ABI function entry is malformed: 'inputs' must not be a JSON object"},
		{"input type not a string", `{"type":"function","name":"f","inputs":[{"name":"x","type":5}]}`,
			"ABI function entry is malformed: 'inputs.type' must not be a JSON number"},
		{"input without name", `{"type":"function","name":"f","inputs":[{"name":"to","type":"address"},{"name":"","type":"uint256"}]}`,
			"ABI input #2 has no name: every input must be named, because function_args is keyed by name"},
		{"input type missing", `{"type":"function","name":"f","inputs":[{"name":"x"}]}`, "ABI input 'x' has no type"},
		{"uint without size", frag1("uint"), "ABI input 'x' has an invalid type 'uint'"},
		{"int without size", frag1("int"), "ABI input 'x' has an invalid type 'int'"},
		{"uint7", frag1("uint7"), "ABI input 'x' has an invalid type 'uint7'"},
		{"uint0", frag1("uint0"), "ABI input 'x' has an invalid type 'uint0'"},
		{"uint264", frag1("uint264"), "ABI input 'x' has an invalid type 'uint264'"},
		{"uint with leading zero", frag1("uint064"), "ABI input 'x' has an invalid type 'uint064'"},
		{"trailing garbage", frag1("uint256abc"), "ABI input 'x' has an invalid type 'uint256abc'"},
		{"capitalised", frag1("Uint256"), "ABI input 'x' has an invalid type 'Uint256'"},
		{"bytes0", frag1("bytes0"), "ABI input 'x' has an invalid type 'bytes0'"},
		{"bytes33", frag1("bytes33"), "ABI input 'x' has an invalid type 'bytes33'"},
		{"zero-length array", frag1("uint256[0]"), "ABI input 'x' has an invalid type 'uint256[0]'"},
		{"array length leading zero", frag1("uint256[01]"), "ABI input 'x' has an invalid type 'uint256[01]'"},
		{"unclosed bracket", frag1("uint256[2"), "ABI input 'x' has an invalid type 'uint256[2'"},
		{"garbage after bracket", frag1("uint256[2]x"), "ABI input 'x' has an invalid type 'uint256[2]x'"},
		{"negative length", frag1("uint256[-1]"), "ABI input 'x' has an invalid type 'uint256[-1]'"},
		{"fixed point", frag1("fixed128x18"), "ABI input 'x' has type 'fixed128x18': fixed-point types are not supported"},
		{"ufixed point", frag1("ufixed"), "ABI input 'x' has type 'ufixed': fixed-point types are not supported"},
		{"unknown type", frag1("address payable"), "ABI input 'x' has an invalid type 'address payable'"},
		{"tuple without components", frag1("tuple"), "ABI input 'x' is a tuple without components"},
		{"components on a non-tuple", `{"type":"function","name":"f","inputs":[{"name":"x","type":"uint256","components":[{"name":"a","type":"bool"}]}]}`,
			"ABI input 'x' has type 'uint256', which takes no components"},
		{"fixed array too large", frag1("uint256[65537]"), "ABI input 'x' has type 'uint256[65537]', which is too large (more than 65536 fixed-size elements)"},
		{"nested fixed arrays too large", frag1("uint8[1000][1000]"), "ABI input 'x' has type 'uint8[1000][1000]', which is too large (more than 65536 fixed-size elements)"},
		{"huge fixed array", frag1("uint8[999999999][999999999]"), "ABI input 'x' has type 'uint8[999999999][999999999]', which is too large (more than 65536 fixed-size elements)"},
		{"too deep", frag1("uint8" + strings.Repeat("[]", 33)), "ABI input 'x' has a type nested too deeply (more than 32 levels)"},
		{"bad input name", fragN("f", "a.b uint256"), "ABI input name 'a.b' is not a valid identifier"},
		{"input name with quote", `{"type":"function","name":"f","inputs":[{"name":"it's","type":"bool"}]}`, `ABI input name 'it\'s' is not a valid identifier`},
		{"duplicate input name", fragN("f", "to address", "amount uint256", "to address"), "ABI input name 'to' is used twice"},
		{"component without name", comp(`{"name":"buyer","type":"address"},{"name":"","type":"uint256"}`),
			"ABI component #2 of 'order' has no name: every tuple component must be named, because tuple arguments are given as JSON objects keyed by name"},
		{"duplicate component name", comp(`{"name":"price","type":"uint256"},{"name":"price","type":"uint256"}`),
			"ABI component name 'order.price' is used twice"},
		{"component names colliding in go-ethereum", comp(`{"name":"unit_price","type":"uint256"},{"name":"unitPrice","type":"uint256"}`),
			"ABI component names 'order.unit_price' and 'order.unitPrice' cannot both be used: they differ only in underscores or in the case of a first letter"},
		{"component names differing in first-letter case", comp(`{"name":"price","type":"uint256"},{"name":"Price","type":"uint256"}`),
			"ABI component names 'order.price' and 'order.Price' cannot both be used: they differ only in underscores or in the case of a first letter"},
		{"component name starting with digit after underscore", comp(`{"name":"_1st","type":"uint256"}`),
			"ABI component name 'order._1st' is not supported: a component name must start with a letter (after leading underscores) and must not contain '$'"},
		{"component name with dollar", comp(`{"name":"$x","type":"uint256"}`),
			"ABI component name 'order.$x' is not supported: a component name must start with a letter (after leading underscores) and must not contain '$'"},
		{"nested component without name", comp(`{"name":"items","type":"tuple[]","components":[{"name":"id","type":"uint256"},{"type":"bool"}]}`),
			"ABI component #2 of 'order.items' has no name: every tuple component must be named, because tuple arguments are given as JSON objects keyed by name"},
		{"nested component bad type", comp(`{"name":"items","type":"tuple[]","components":[{"name":"id","type":"uint"}]}`),
			"ABI component 'order.items.id' has an invalid type 'uint'"},
		{"tuple too large through components", comp(`{"name":"a","type":"uint256[40000]"},{"name":"b","type":"uint256[40000]"}`),
			"ABI input 'order' has type 'tuple', which is too large (more than 65536 fixed-size elements)"},
		{"bad output type", `{"type":"function","name":"f","inputs":[],"outputs":[{"name":"","type":"uint"}]}`,
			"ABI output '#1' has an invalid type 'uint'"},
		{"control characters are escaped", frag1(`uint\n256`), `ABI input 'x' has an invalid type 'uint\n256'`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := ParseFunction([]byte(tt.fragment))
			if err == nil {
				t.Fatalf("ParseFunction succeeded (%s), want error %q", f.Signature(), tt.want)
			}
			var re *rampway.Error
			if !errors.As(err, &re) {
				t.Fatalf("error %v (%T) is not a *rampway.Error", err, err)
			}
			if re.Code != rampway.EINVALID {
				t.Errorf("code = %q, want %q", re.Code, rampway.EINVALID)
			}
			if re.Message != tt.want {
				t.Errorf("message:\n got %q\nwant %q", re.Message, tt.want)
			}
		})
	}
}
