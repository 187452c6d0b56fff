// Package contract turns a merchant's registered smart-contract function (one ABI fragment)
// and the function_args JSON object of an order request into typed Go values and calldata.
//
// Every error it returns is a *rampway.Error: EINVALID for a fragment that cannot be
// registered, EFUNCARGS (with the exact, user-facing message the API returns verbatim) for
// function_args that do not match the function, and EINTERNAL only for a bug (go-ethereum
// refusing values that passed validation).
package contract

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"

	"github.com/rampway/rampway"
)

// Limits on registered fragments, so that a fragment cannot make the encoder allocate
// unbounded memory or recurse without end.
const (
	// maxStaticSlots bounds, per input or output, the product of fixed-array lengths summed
	// over tuple components (uint256[1000][8] counts 8000): 65536 slots is 2 MiB of calldata.
	maxStaticSlots = 1 << 16
	// maxTypeDepth bounds the nesting of arrays and tuples in one input or output.
	maxTypeDepth = 32
)

// Function is a parsed, validated smart-contract function: its ABI method and what is needed
// to validate function_args against it. A Function is immutable and safe for concurrent use.
type Function struct {
	method   abi.Method
	selector [4]byte
	params   []Param
	inputs   []*node
	index    map[string]int // input name -> position
}

// Param describes one input of a Function: its name (the function_args key) and its
// canonical ABI type string, e.g. "uint256", "address[2]" or "(address,uint256)[]".
type Param struct {
	Name string
	Type string
}

// rawArg is one parameter of an ABI JSON entry, or one component of a tuple.
type rawArg struct {
	Name         string   `json:"name"`
	Type         string   `json:"type"`
	InternalType string   `json:"internalType"`
	Components   []rawArg `json:"components"`
}

// rawEntry is one ABI JSON entry.
type rawEntry struct {
	Type            *string  `json:"type"`
	Name            string   `json:"name"`
	Inputs          []rawArg `json:"inputs"`
	Outputs         []rawArg `json:"outputs"`
	StateMutability string   `json:"stateMutability"`
	Constant        bool     `json:"constant"` // legacy (solc < 0.6)
	Payable         bool     `json:"payable"`  // legacy (solc < 0.6)
}

// ParseFunction parses a registered ABI fragment: exactly one entry of type "function", given
// either as a JSON object or as a one-element JSON array. Every input, and every component of a
// tuple, must have a name unique among its siblings, because function_args is keyed by name.
// Errors are *rampway.Error with code EINVALID.
func ParseFunction(fragment []byte) (f *Function, err error) {
	defer func() {
		// NewType builds reflect types; any panic there is a fragment we cannot handle.
		if r := recover(); r != nil {
			f = nil
			err = &rampway.Error{Code: rampway.EINVALID, Message: "ABI function entry is not supported",
				Err: fmt.Errorf("panic while parsing ABI fragment: %v", r)}
		}
	}()
	data := bytes.TrimSpace(fragment)
	if len(data) == 0 || !json.Valid(data) {
		return nil, invalidf("ABI fragment is not valid JSON")
	}
	if data[0] == '[' {
		var entries []json.RawMessage
		if err := json.Unmarshal(data, &entries); err != nil {
			return nil, invalidf("ABI fragment is not valid JSON")
		}
		if len(entries) != 1 {
			return nil, invalidf("ABI fragment must hold exactly one function entry, not %d entries", len(entries))
		}
		data = bytes.TrimSpace(entries[0])
	}
	if data[0] != '{' {
		return nil, invalidf("ABI fragment must be a JSON object, or a JSON array holding one object")
	}
	var e rawEntry
	if err := json.Unmarshal(data, &e); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) && ute.Field != "" {
			return nil, invalidf("ABI function entry is malformed: '%s' must not be a JSON %s", display(ute.Field), ute.Value)
		}
		return nil, invalidf("ABI function entry is malformed")
	}

	// The Solidity ABI specification lets "type" be omitted; it then defaults to "function".
	if e.Type != nil && *e.Type != "function" && *e.Type != "" {
		switch *e.Type {
		case "event", "error", "constructor", "fallback", "receive":
			return nil, invalidf("ABI entry is of type '%s', not 'function'", *e.Type)
		default:
			return nil, invalidf("ABI entry type '%s' is not valid: expected 'function'", display(*e.Type))
		}
	}
	if e.Name == "" {
		return nil, invalidf("ABI function entry has no name")
	}
	if !isIdent(e.Name) {
		return nil, invalidf("ABI function name '%s' is not a valid identifier", display(e.Name))
	}
	switch e.StateMutability {
	case "", "pure", "view", "nonpayable", "payable":
	default:
		return nil, invalidf("ABI function stateMutability '%s' is not valid: expected pure, view, nonpayable or payable",
			display(e.StateMutability))
	}

	if _, err := checkParams(e.Inputs, "input", "", true, 0); err != nil {
		return nil, err
	}
	if _, err := checkParams(e.Outputs, "output", "", false, 0); err != nil {
		return nil, err
	}
	inputs, err := newArguments(e.Inputs, "input")
	if err != nil {
		return nil, err
	}
	outputs, err := newArguments(e.Outputs, "output")
	if err != nil {
		return nil, err
	}
	m := abi.NewMethod(e.Name, e.Name, abi.Function, e.StateMutability, e.Constant, e.Payable, inputs, outputs)

	f = &Function{
		method: m,
		params: make([]Param, len(inputs)),
		inputs: make([]*node, len(inputs)),
		index:  make(map[string]int, len(inputs)),
	}
	copy(f.selector[:], m.ID)
	for i, in := range inputs {
		f.params[i] = Param{Name: in.Name, Type: in.Type.String()}
		f.inputs[i] = newNode(in.Type)
		f.index[in.Name] = i
	}
	return f, nil
}

// Name returns the function's name, e.g. "mint".
func (f *Function) Name() string { return f.method.RawName }

// Signature returns the canonical signature the selector is hashed from, e.g.
// "mint(address,uint256)" or "buy((address,uint256[]))".
func (f *Function) Signature() string { return f.method.Sig }

// Selector returns the 4-byte function selector: the first 4 bytes of keccak256(Signature()).
func (f *Function) Selector() [4]byte { return f.selector }

// Payable reports whether the function accepts a native-asset value: stateMutability
// "payable", or the legacy "payable": true of solc before 0.6.
func (f *Function) Payable() bool { return f.method.IsPayable() }

// Method returns the go-ethereum description of the function. Its Inputs and Outputs slices are
// shared with the Function and must not be modified.
func (f *Function) Method() abi.Method { return f.method }

// Inputs returns the function's inputs in ABI order, with canonical ABI type strings.
func (f *Function) Inputs() []Param {
	out := make([]Param, len(f.params))
	copy(out, f.params)
	return out
}

// newArguments turns validated raw parameters into go-ethereum arguments.
func newArguments(raw []rawArg, kind string) (abi.Arguments, error) {
	args := make(abi.Arguments, len(raw))
	for i, r := range raw {
		t, err := abi.NewType(r.Type, r.InternalType, marshaling(r.Components))
		if err != nil {
			// checkParams accepts only what NewType handles: reaching this is a gap in checkParams.
			return nil, &rampway.Error{Code: rampway.EINVALID,
				Message: fmt.Sprintf("ABI %s %s has an unsupported type '%s'", kind, label(r.Name, i), display(r.Type)),
				Err:     err}
		}
		args[i] = abi.Argument{Name: r.Name, Type: t}
	}
	return args, nil
}

func marshaling(raw []rawArg) []abi.ArgumentMarshaling {
	if len(raw) == 0 {
		return nil
	}
	out := make([]abi.ArgumentMarshaling, len(raw))
	for i, r := range raw {
		out[i] = abi.ArgumentMarshaling{Name: r.Name, Type: r.Type, InternalType: r.InternalType,
			Components: marshaling(r.Components)}
	}
	return out
}

// label names a parameter in a ParseFunction message: 'name' or #position (1-based).
func label(name string, i int) string {
	if name == "" {
		return fmt.Sprintf("#%d", i+1)
	}
	return "'" + name + "'"
}

// checkParams validates a parameter list: names (required for inputs and for every tuple
// component), uniqueness, and types. kind is "input", "output" or "component"; parent is the
// dotted path of the enclosing tuple ("order."), empty at the top level. It returns the sum of
// the parameters' static slot counts.
func checkParams(params []rawArg, kind, parent string, needNames bool, depth int) (slots int, err error) {
	seen := make(map[string]bool, len(params))
	fields := make(map[string]string, len(params)) // go-ethereum struct field name -> ABI name
	for i, p := range params {
		var path string
		switch {
		case p.Name == "" && needNames && kind == "component":
			return 0, invalidf("ABI component #%d of '%s' has no name: every tuple component must be named, "+
				"because tuple arguments are given as JSON objects keyed by name", i+1, strings.TrimSuffix(parent, "."))
		case p.Name == "" && needNames:
			return 0, invalidf("ABI %s #%d has no name: every input must be named, because function_args is keyed by name",
				kind, i+1)
		case p.Name == "":
			path = parent + fmt.Sprintf("#%d", i+1)
		default:
			path = parent + p.Name
			if !isIdent(p.Name) {
				return 0, invalidf("ABI %s name '%s' is not a valid identifier", kind, display(path))
			}
			if seen[p.Name] {
				return 0, invalidf("ABI %s name '%s' is used twice", kind, path)
			}
			seen[p.Name] = true
			if kind == "component" {
				// go-ethereum packs a tuple from a struct whose field names are the component
				// names in CamelCase; two names with the same CamelCase cannot be told apart.
				field := abi.ToCamelCase(p.Name)
				if field == "" || !isLetter(field[0]) || strings.ContainsRune(field, '$') {
					return 0, invalidf("ABI component name '%s' is not supported: a component name must start with a "+
						"letter (after leading underscores) and must not contain '$'", path)
				}
				if other, ok := fields[field]; ok {
					return 0, invalidf("ABI component names '%s' and '%s' cannot both be used: they differ only in "+
						"underscores or in the case of a first letter", parent+other, path)
				}
				fields[field] = p.Name
			}
		}
		n, err := checkType(p, kind, path, depth)
		if err != nil {
			return 0, err
		}
		slots += n
	}
	return slots, nil
}

// checkType validates the type string of one parameter (and its components), returning its
// static slot count for the size limit.
func checkType(p rawArg, kind, path string, depth int) (int, error) {
	base, dims, ok := splitType(p.Type)
	what := fmt.Sprintf("ABI %s '%s'", kind, path)
	if !ok {
		if p.Type == "" {
			return 0, invalidf("%s has no type", what)
		}
		if strings.HasPrefix(p.Type, "fixed") || strings.HasPrefix(p.Type, "ufixed") {
			return 0, invalidf("%s has type '%s': fixed-point types are not supported", what, display(p.Type))
		}
		return 0, invalidf("%s has an invalid type '%s'", what, display(p.Type))
	}
	if depth+len(dims) > maxTypeDepth {
		return 0, invalidf("%s has a type nested too deeply (more than %d levels)", what, maxTypeDepth)
	}
	slots := 1
	if base == "tuple" {
		if len(p.Components) == 0 {
			return 0, invalidf("%s is a tuple without components", what)
		}
		var err error
		if slots, err = checkParams(p.Components, "component", path+".", true, depth+len(dims)+1); err != nil {
			return 0, err
		}
	} else if len(p.Components) > 0 {
		return 0, invalidf("%s has type '%s', which takes no components", what, p.Type)
	}
	for _, k := range dims {
		if k > 0 {
			if slots > maxStaticSlots/k {
				slots = maxStaticSlots + 1
				break
			}
			slots *= k
		}
	}
	if slots > maxStaticSlots {
		return 0, invalidf("%s has type '%s', which is too large (more than %d fixed-size elements)",
			what, p.Type, maxStaticSlots)
	}
	return slots, nil
}

// splitType splits a Solidity ABI type string into its base type and array dimensions
// (0 for a dynamic dimension), accepting only canonical spellings: uint8..uint256 and
// int8..int256 in steps of 8, bytes1..bytes32, address, bool, string, bytes, function, tuple,
// and fixed lengths >= 1 without leading zeros.
func splitType(t string) (base string, dims []int, ok bool) {
	base = t
	if i := strings.IndexByte(t, '['); i >= 0 {
		base = t[:i]
		rest := t[i:]
		for rest != "" {
			if rest[0] != '[' {
				return "", nil, false
			}
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return "", nil, false
			}
			digits := rest[1:end]
			rest = rest[end+1:]
			if digits == "" {
				dims = append(dims, 0)
				continue
			}
			k, ok := parseSize(digits)
			if !ok || k < 1 {
				return "", nil, false
			}
			dims = append(dims, k)
		}
	}
	switch {
	case base == "address", base == "bool", base == "string", base == "bytes", base == "function", base == "tuple":
		return base, dims, true
	case strings.HasPrefix(base, "uint"):
		n, ok := parseSize(base[4:])
		return base, dims, ok && n >= 8 && n <= 256 && n%8 == 0
	case strings.HasPrefix(base, "int"):
		n, ok := parseSize(base[3:])
		return base, dims, ok && n >= 8 && n <= 256 && n%8 == 0
	case strings.HasPrefix(base, "bytes"):
		n, ok := parseSize(base[5:])
		return base, dims, ok && n >= 1 && n <= 32
	}
	return "", nil, false
}

// parseSize parses a decimal size without sign or leading zeros, at most 9 digits.
func parseSize(s string) (int, bool) {
	if s == "" || len(s) > 9 || (s[0] == '0' && len(s) > 1) {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// isIdent reports whether s is a Solidity identifier: [A-Za-z_$][A-Za-z0-9_$]*.
func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isLetter(c) || c == '_' || c == '$' || (i > 0 && c >= '0' && c <= '9') {
			continue
		}
		return false
	}
	return true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func invalidf(format string, args ...any) *rampway.Error {
	return rampway.Errorf(rampway.EINVALID, format, args...)
}

// display makes a caller-supplied string safe to embed in a message: printable ASCII,
// at most 64 characters.
func display(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f || s[i] == '\'' || s[i] == '\\' {
			clean = false
			break
		}
	}
	if !clean {
		q := strconv.QuoteToASCII(s)
		s = strings.ReplaceAll(q[1:len(q)-1], "'", `\'`)
	}
	return rampway.Echo(s)
}

// node is the validation plan for one ABI type: what JSON it accepts and the Go value
// (of exactly the reflect type abi.Type.GetType gives) that Pack expects for it.
type node struct {
	kind     byte   // abi.UintTy, abi.IntTy, ...
	str      string // canonical ABI type, for messages
	goType   reflect.Type
	size     int      // bytes of bytesN/function, length of T[k]
	min, max *big.Int // integer range
	// integer range clipped to int64, for values parsed without big.Int
	minSmall, maxSmall int64
	elem               *node    // arrays
	comps              []*node  // tuples, in component order
	names              []string // tuples: component names
	index              map[string]int
	// Encoded size (see size.go): whether the type is dynamic; the size of a static type's
	// encoding; the size of the smallest value's encoding (for a dynamic type, of its tail).
	// Sizes above MaxCalldata are stored as over.
	dynamic       bool
	static, least int
}

func newNode(t abi.Type) *node {
	n := &node{kind: t.T, str: t.String(), goType: t.GetType(), size: t.Size}
	switch t.T {
	case abi.UintTy:
		n.min = new(big.Int)
		n.max = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(t.Size)), big.NewInt(1))
		n.minSmall, n.maxSmall = clip(n.min), clip(n.max)
	case abi.IntTy:
		n.min = new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), uint(t.Size-1)))
		n.max = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(t.Size-1)), big.NewInt(1))
		n.minSmall, n.maxSmall = clip(n.min), clip(n.max)
	case abi.FunctionTy:
		n.size = 24
	case abi.SliceTy, abi.ArrayTy:
		n.elem = newNode(*t.Elem)
	case abi.TupleTy:
		n.comps = make([]*node, len(t.TupleElems))
		n.names = t.TupleRawNames
		n.index = make(map[string]int, len(t.TupleElems))
		for i, e := range t.TupleElems {
			n.comps[i] = newNode(*e)
			n.index[t.TupleRawNames[i]] = i
		}
	}
	n.setSizes()
	return n
}

// clip returns x clamped to the int64 range.
func clip(x *big.Int) int64 {
	switch {
	case x.IsInt64():
		return x.Int64()
	case x.Sign() < 0:
		return math.MinInt64
	default:
		return math.MaxInt64
	}
}
