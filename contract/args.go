package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
)

// argsPrefix starts every EFUNCARGS message.
const argsPrefix = "Function arguments are not valid: "

// Values validates args, the function_args JSON object of an order request, against the
// function's inputs and returns one typed Go value per input, in input order, ready for
// abi.Arguments.Pack (integers of 8, 16, 32 and 64 bits as the native Go integer types, other
// sizes as *big.Int, address as common.Address, bytesN as [N]byte, arrays as Go arrays and
// slices, tuples as the struct type go-ethereum derives for them).
//
// A null or empty args is taken as {}. Errors are *rampway.Error with code EFUNCARGS and a
// message meant to be returned verbatim. When several things are wrong, the error is the
// first of: args is not a JSON object; a key is given twice; the number of arguments is wrong;
// an argument is missing (the first in input order); the calldata would be larger than
// MaxCalldata; a value is not valid (the first in input order, and within it the first in
// ABI and array order). The size is counted before any value is converted, so an oversized
// call is refused at the cost of parsing its JSON, whatever its values; values that do not
// have the shape of their type count as the smallest value of the type (see calldataSize).
func (f *Function) Values(args json.RawMessage) ([]any, error) {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("null")
	}
	d, ok := parseJSON(args)
	if !ok {
		return nil, argsErr("function_args must be a JSON object")
	}
	defer putDoc(d)
	var small [16]int32
	at, err := f.bind(d, small[:0])
	if err != nil {
		return nil, err
	}
	if f.calldataSize(d, at) > MaxCalldata {
		return nil, argsErr("the encoded call would be larger than %d bytes", MaxCalldata)
	}
	out := make([]any, len(f.inputs))
	for i, n := range f.inputs {
		v, err := n.convert(d, at[i])
		if err != nil {
			return nil, argsErr("argument '%s%s' %s", f.params[i].Name, err.path, err.tail)
		}
		out[i] = v.Interface()
	}
	return out, nil
}

// bind matches the members of the parsed function_args d to the function's inputs: it checks
// that the root is an object (or null), that no key is given twice, that the number of
// members is right and that no input is missing, and returns, appended to buf, the node index
// of each input's value in input order.
func (f *Function) bind(d *jdoc, buf []int32) ([]int32, error) {
	root := &d.nodes[0]
	if root.kind != jObject && root.kind != jNull {
		return nil, argsErr("function_args must be a JSON object")
	}
	kids := d.children(root)
	if k := firstDuplicate(d, kids); k >= 0 {
		return nil, argsErr("argument '%s' is given twice", display(d.nodes[kids[k]].key))
	}
	if len(kids) != len(f.inputs) {
		return nil, argsErr("%d arguments required, %d given", len(f.inputs), len(kids))
	}
	at := buf // input position -> node index
	for range f.inputs {
		at = append(at, -1)
	}
	for _, k := range kids {
		if i, ok := f.index[d.nodes[k].key]; ok {
			at[i] = k
		}
	}
	for i, k := range at {
		if k < 0 {
			return nil, argsErr("argument '%s' is missing", f.params[i].Name)
		}
	}
	return at, nil
}

// Encode validates args as Values does and returns the calldata of the call: the 4-byte
// selector followed by the ABI-encoded arguments.
func (f *Function) Encode(args json.RawMessage) ([]byte, error) {
	vals, err := f.Values(args)
	if err != nil {
		return nil, err
	}
	packed, err := f.pack(vals)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 4+len(packed))
	copy(out, f.selector[:])
	copy(out[4:], packed)
	return out, nil
}

// pack ABI-encodes validated values. A failure here means validation let through something
// go-ethereum refuses, which is a bug: it is reported as EINTERNAL, never to the caller as is.
func (f *Function) pack(vals []any) (packed []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			packed, err = nil, &rampway.Error{Code: rampway.EINTERNAL, Message: "Internal server error",
				Err: fmt.Errorf("contract: packing validated arguments of %s panicked: %v", f.method.Sig, r)}
		}
	}()
	packed, err = f.method.Inputs.Pack(vals...)
	if err != nil {
		return nil, &rampway.Error{Code: rampway.EINTERNAL, Message: "Internal server error",
			Err: fmt.Errorf("contract: packing validated arguments of %s: %w", f.method.Sig, err)}
	}
	return packed, nil
}

func argsErr(format string, args ...any) *rampway.Error {
	return &rampway.Error{Code: rampway.EFUNCARGS, Message: argsPrefix + fmt.Sprintf(format, args...)}
}

// argError is a validation failure below an input: path is the part of the path under the
// current level ("", "[1]", ".price", "[0].items[2].id"), built from the inside out while the
// error returns, so that the valid case never builds paths; tail ends the message.
type argError struct {
	path string
	tail string
}

func (n *node) typeErr() *argError { return &argError{tail: "must be of type " + n.str} }

// convert validates the JSON value d.nodes[j] against n and returns the Go value for it.
func (n *node) convert(d *jdoc, j int32) (reflect.Value, *argError) {
	v := &d.nodes[j]
	switch n.kind {
	case abi.UintTy, abi.IntTy:
		return n.convertInt(v)

	case abi.BoolTy:
		switch v.kind {
		case jTrue:
			return reflect.ValueOf(true), nil
		case jFalse:
			return reflect.ValueOf(false), nil
		}
		return reflect.Value{}, n.typeErr()

	case abi.StringTy:
		if v.kind != jString {
			return reflect.Value{}, n.typeErr()
		}
		return reflect.ValueOf(v.s), nil

	case abi.AddressTy:
		if v.kind != jString {
			return reflect.Value{}, n.typeErr()
		}
		a, ok := parseAddress(v.s)
		if !ok {
			return reflect.Value{}, n.typeErr()
		}
		return reflect.ValueOf(a), nil

	case abi.BytesTy:
		if v.kind != jString || !strings.HasPrefix(v.s, "0x") || len(v.s)%2 != 0 {
			return reflect.Value{}, n.typeErr()
		}
		b := make([]byte, len(v.s)/2-1)
		if !decodeHex(b, v.s[2:]) {
			return reflect.Value{}, n.typeErr()
		}
		return reflect.ValueOf(b), nil

	case abi.FixedBytesTy, abi.FunctionTy:
		if v.kind != jString || len(v.s) != 2+2*n.size || !strings.HasPrefix(v.s, "0x") {
			return reflect.Value{}, n.typeErr()
		}
		rv := reflect.New(n.goType).Elem()
		if !decodeHex(rv.Bytes(), v.s[2:]) {
			return reflect.Value{}, n.typeErr()
		}
		return rv, nil

	case abi.SliceTy, abi.ArrayTy:
		if v.kind != jArray || (n.kind == abi.ArrayTy && int(v.n) != n.size) {
			return reflect.Value{}, n.typeErr()
		}
		var rv reflect.Value
		if n.kind == abi.SliceTy {
			rv = reflect.MakeSlice(n.goType, int(v.n), int(v.n))
		} else {
			rv = reflect.New(n.goType).Elem()
		}
		for i, k := range d.children(v) {
			ev, err := n.elem.convert(d, k)
			if err != nil {
				err.path = "[" + strconv.Itoa(i) + "]" + err.path
				return reflect.Value{}, err
			}
			rv.Index(i).Set(ev)
		}
		return rv, nil

	case abi.TupleTy:
		return n.convertTuple(d, v)
	}
	// ParseFunction admits no other kind; reaching this is a bug.
	panic("contract: no converter for ABI type " + n.str)
}

// convertTuple validates a struct argument, given as a JSON object keyed by component name:
// duplicate keys first, then the first missing component (in ABI order), then the first
// unknown key (in document order), then the component values in ABI order.
func (n *node) convertTuple(d *jdoc, v *jnode) (reflect.Value, *argError) {
	if v.kind != jObject {
		return reflect.Value{}, n.typeErr()
	}
	kids := d.children(v)
	if k := firstDuplicate(d, kids); k >= 0 {
		return reflect.Value{}, &argError{path: "." + display(d.nodes[kids[k]].key), tail: "is given twice"}
	}
	var small [16]int32
	at := small[:0] // component position -> node index
	for range n.comps {
		at = append(at, -1)
	}
	extra := int32(-1)
	for _, k := range kids {
		if i, ok := n.index[d.nodes[k].key]; ok {
			at[i] = k
		} else if extra < 0 {
			extra = k
		}
	}
	for i, k := range at {
		if k < 0 {
			return reflect.Value{}, &argError{path: "." + n.names[i], tail: "is missing"}
		}
	}
	if extra >= 0 {
		return reflect.Value{}, &argError{path: "." + display(d.nodes[extra].key), tail: "is not a member of " + n.str}
	}
	rv := reflect.New(n.goType).Elem()
	for i, c := range n.comps {
		cv, err := c.convert(d, at[i])
		if err != nil {
			err.path = "." + n.names[i] + err.path
			return reflect.Value{}, err
		}
		rv.Field(i).Set(cv)
	}
	return rv, nil
}

// convertInt validates an integer and returns it as the Go type go-ethereum packs for n.
func (n *node) convertInt(v *jnode) (reflect.Value, *argError) {
	small, x, ok := parseInteger(v)
	if !ok {
		return reflect.Value{}, n.typeErr()
	}
	if x == nil {
		if small < n.minSmall || small > n.maxSmall {
			return reflect.Value{}, n.typeErr()
		}
	} else {
		if x.Cmp(n.min) < 0 || x.Cmp(n.max) > 0 {
			return reflect.Value{}, n.typeErr()
		}
		if x.IsInt64() {
			small = x.Int64()
		}
	}
	switch n.goType.Kind() {
	case reflect.Uint8:
		return reflect.ValueOf(uint8(small)), nil
	case reflect.Uint16:
		return reflect.ValueOf(uint16(small)), nil
	case reflect.Uint32:
		return reflect.ValueOf(uint32(small)), nil
	case reflect.Uint64:
		if x != nil {
			return reflect.ValueOf(x.Uint64()), nil // may exceed int64
		}
		return reflect.ValueOf(uint64(small)), nil
	case reflect.Int8:
		return reflect.ValueOf(int8(small)), nil
	case reflect.Int16:
		return reflect.ValueOf(int16(small)), nil
	case reflect.Int32:
		return reflect.ValueOf(int32(small)), nil
	case reflect.Int64:
		return reflect.ValueOf(small), nil
	default: // *big.Int
		if x == nil {
			x = big.NewInt(small)
		}
		return reflect.ValueOf(x), nil
	}
}

// firstDuplicate returns the position in kids of the first member (in document order) whose
// key repeats an earlier one, or -1.
func firstDuplicate(d *jdoc, kids []int32) int {
	if len(kids) <= 16 {
		for j := 1; j < len(kids); j++ {
			for i := 0; i < j; i++ {
				if d.nodes[kids[i]].key == d.nodes[kids[j]].key {
					return j
				}
			}
		}
		return -1
	}
	seen := make(map[string]struct{}, len(kids))
	for j, k := range kids {
		key := d.nodes[k].key
		if _, ok := seen[key]; ok {
			return j
		}
		seen[key] = struct{}{}
	}
	return -1
}

// Longest magnitudes that can fit in 256 bits: 2^256 has 78 decimal digits, 64 hex digits.
const (
	maxDecDigits = 78
	maxHexDigits = 64
)

// parseInteger reads an integer from a JSON number (exact integers only, exponent forms
// included) or from a JSON string holding a decimal integer with optional '-', or 0x hex.
// Small values come back as an int64 with a nil *big.Int; others as a *big.Int. Magnitudes
// too long for 256 bits are refused before any big-number arithmetic.
func parseInteger(v *jnode) (int64, *big.Int, bool) {
	switch v.kind {
	case jNumber:
		return parseNumberLiteral(v.s)
	case jString:
		return parseIntegerString(v.s)
	}
	return 0, nil, false
}

// parseNumberLiteral parses a valid JSON number literal whose value is an exact integer:
// 1000, -5, 1e3, 1.5e3 and 1.0 are accepted; 1.5 and 1e-1 are not.
func parseNumberLiteral(s string) (int64, *big.Int, bool) {
	if len(s) <= 18 && !strings.ContainsAny(s, ".eE") {
		x, err := strconv.ParseInt(s, 10, 64)
		return x, nil, err == nil
	}
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	exp, expHuge := 0, false
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e := s[i+1:]
		s = s[:i]
		expNeg := false
		if e[0] == '+' || e[0] == '-' {
			expNeg = e[0] == '-'
			e = e[1:]
		}
		e = strings.TrimLeft(e, "0")
		if len(e) > 9 {
			expHuge = true
		} else if e != "" {
			exp, _ = strconv.Atoi(e)
		}
		if expNeg {
			exp = -exp
		}
	}
	intPart, frac := s, ""
	if i := strings.IndexByte(s, '.'); i >= 0 {
		intPart, frac = s[:i], s[i+1:]
	}
	digits := strings.TrimLeft(intPart+frac, "0")
	if digits == "" {
		return 0, nil, true // zero, whatever the exponent
	}
	if expHuge {
		return 0, nil, false // a fraction, or far beyond 256 bits
	}
	scale := exp - len(frac)
	for scale < 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
		scale++
	}
	if scale < 0 || len(digits)+scale > maxDecDigits {
		return 0, nil, false
	}
	x, ok := new(big.Int).SetString(digits+strings.Repeat("0", scale), 10)
	if !ok {
		return 0, nil, false
	}
	if neg {
		x.Neg(x)
	}
	return 0, x, true
}

// parseIntegerString parses "-?[0-9]+" or "0x[0-9a-fA-F]+".
func parseIntegerString(s string) (int64, *big.Int, bool) {
	if strings.HasPrefix(s, "0x") {
		h := s[2:]
		if h == "" || !isHex(h) {
			return 0, nil, false
		}
		h = strings.TrimLeft(h, "0")
		switch {
		case h == "":
			return 0, nil, true
		case len(h) <= 15:
			x, err := strconv.ParseInt(h, 16, 64)
			return x, nil, err == nil
		case len(h) > maxHexDigits:
			return 0, nil, false
		}
		x, ok := new(big.Int).SetString(h, 16)
		return 0, x, ok
	}
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	if s == "" {
		return 0, nil, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, nil, false
		}
	}
	s = strings.TrimLeft(s, "0")
	switch {
	case s == "":
		return 0, nil, true
	case len(s) <= 18:
		x, err := strconv.ParseInt(s, 10, 64)
		if neg {
			x = -x
		}
		return x, nil, err == nil
	case len(s) > maxDecDigits:
		return 0, nil, false
	}
	x, ok := new(big.Int).SetString(s, 10)
	if ok && neg {
		x.Neg(x)
	}
	return 0, x, ok
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// decodeHex decodes len(dst)*2 hex digits (either case) from s into dst.
func decodeHex(dst []byte, s string) bool {
	if len(s) != 2*len(dst) {
		return false
	}
	for i := range dst {
		hi, ok1 := fromHex(s[2*i])
		lo, ok2 := fromHex(s[2*i+1])
		if !ok1 || !ok2 {
			return false
		}
		dst[i] = hi<<4 | lo
	}
	return true
}

func fromHex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// parseAddress parses "0x" followed by 40 hex digits. All-lowercase and all-uppercase digits
// are accepted as they are; mixed case must be a valid EIP-55 checksum.
func parseAddress(s string) (common.Address, bool) {
	var a common.Address
	if len(s) != 42 || !strings.HasPrefix(s, "0x") {
		return a, false
	}
	if !decodeHex(a[:], s[2:]) {
		return common.Address{}, false
	}
	lower, upper := false, false
	for i := 2; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'a' && c <= 'f':
			lower = true
		case c >= 'A' && c <= 'F':
			upper = true
		}
	}
	if lower && upper && a.Hex() != s {
		return common.Address{}, false
	}
	return a, true
}
