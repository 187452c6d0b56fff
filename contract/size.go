package contract

import "github.com/ethereum/go-ethereum/accounts/abi"

// MaxCalldata is the largest calldata, in bytes, that Encode produces: the 4-byte selector and
// the ABI-encoded arguments. Values and Encode refuse function_args whose calldata would be
// larger, before converting any value, so the work and memory spent on one call stay bounded
// (function_args of 1 MiB could otherwise ask for 16 MiB of calldata). Ethereum nodes refuse
// transactions larger than 128 KiB anyway (go-ethereum's txMaxSize, which also counts the
// transaction's other fields, so calldata near this limit may still be too large to send).
const MaxCalldata = 128 << 10

// over stands for every size larger than MaxCalldata: the size counts saturate at it, so they
// cannot overflow, and the count stops as soon as it is reached.
const over = MaxCalldata + 1

// addSize returns a+b, or over if that is larger than MaxCalldata (a, b <= over).
func addSize(a, b int) int {
	if s := a + b; s <= MaxCalldata {
		return s
	}
	return over
}

// mulSize returns k*a, or over if that is larger than MaxCalldata (k >= 0, 0 <= a <= over).
func mulSize(k, a int) int {
	if a != 0 && k > MaxCalldata/a {
		return over
	}
	return k * a
}

// padded returns the size of n bytes of bytes or string data: its length word and the data
// right-padded to a multiple of 32 bytes.
func padded(n int) int {
	if n > MaxCalldata {
		return over
	}
	return addSize(32, (n+31)/32*32)
}

// setSizes fills in n.dynamic, n.static and n.least, once n's element or components are built.
// These are the sizes go-ethereum's encoder gives (its isDynamicType and getTypeSize).
func (n *node) setSizes() {
	switch n.kind {
	case abi.StringTy, abi.BytesTy, abi.SliceTy:
		n.dynamic, n.least = true, 32 // the length word of an empty value
	case abi.ArrayTy:
		if n.elem.dynamic {
			n.dynamic = true
			n.least = mulSize(n.size, addSize(32, n.elem.least)) // offsets, then each element
		} else {
			n.static = mulSize(n.size, n.elem.static)
		}
	case abi.TupleTy:
		for _, c := range n.comps {
			n.dynamic = n.dynamic || c.dynamic
		}
		for _, c := range n.comps {
			if n.dynamic {
				n.least = addSize(n.least, c.head())
				if c.dynamic {
					n.least = addSize(n.least, c.least)
				}
			} else {
				n.static = addSize(n.static, c.static)
			}
		}
	default: // integers, bool, address, bytesN, function
		n.static = 32
	}
	if !n.dynamic {
		n.least = n.static
	}
}

// head returns the size n takes in the head of an enclosing tuple or array: its whole
// encoding if it is static, an offset word if it is dynamic.
func (n *node) head() int {
	if n.dynamic {
		return 32
	}
	return n.static
}

// calldataSize returns the size of the calldata Encode would produce for the top-level
// arguments at (one node index per input, as Values binds them), or over if it is larger than
// MaxCalldata. For arguments that pass validation it is exact: 4 + len(Pack(values...)).
//
// It costs one pass over the JSON nodes at most (arrays of static elements are counted
// without visiting the elements), and no number is parsed. A JSON value that does not have
// the shape of its type (a number for a string, an array of the wrong length for T[k], a
// tuple member that is missing) counts as the smallest value of the type, so that the error
// about it is left to validation.
func (f *Function) calldataSize(d *jdoc, at []int32) int {
	size := 4
	for i, n := range f.inputs {
		size = addSize(size, n.head())
		if n.dynamic {
			size = addSize(size, n.tail(d, at[i]))
		}
		if size == over {
			return over
		}
	}
	return size
}

// tail returns the size of the encoding of the JSON value d.nodes[j] as the dynamic type n
// (what an offset points at), or over if it is larger than MaxCalldata.
func (n *node) tail(d *jdoc, j int32) int {
	v := &d.nodes[j]
	switch n.kind {
	case abi.StringTy:
		if v.kind == jString {
			return padded(len(v.s))
		}
	case abi.BytesTy:
		if v.kind == jString && len(v.s) >= 2 && v.s[:2] == "0x" {
			return padded((len(v.s) - 2) / 2)
		}
	case abi.SliceTy:
		if v.kind == jArray {
			return addSize(32, n.elems(d, v))
		}
	case abi.ArrayTy:
		if v.kind == jArray && int(v.n) == n.size {
			return n.elems(d, v)
		}
	case abi.TupleTy:
		if v.kind == jObject {
			return n.tupleTail(d, v)
		}
	}
	return n.least
}

// elems returns the size of the elements of the JSON array v as elements of the array type n
// (without a length word).
func (n *node) elems(d *jdoc, v *jnode) int {
	if !n.elem.dynamic {
		return mulSize(int(v.n), n.elem.static)
	}
	size := 0
	for _, k := range d.children(v) {
		size = addSize(size, addSize(32, n.elem.tail(d, k)))
		if size == over {
			return over
		}
	}
	return size
}

// tupleTail returns the size of the JSON object v as the dynamic tuple n: the first member
// named after each component counts; other members are ignored.
func (n *node) tupleTail(d *jdoc, v *jnode) int {
	var small [16]int32
	at := small[:0] // component position -> node index
	for range n.comps {
		at = append(at, -1)
	}
	for _, k := range d.children(v) {
		if i, ok := n.index[d.nodes[k].key]; ok && at[i] < 0 {
			at[i] = k
		}
	}
	size := 0
	for i, c := range n.comps {
		size = addSize(size, c.head())
		if c.dynamic {
			if at[i] < 0 {
				size = addSize(size, c.least)
			} else {
				size = addSize(size, c.tail(d, at[i]))
			}
		}
		if size == over {
			return over
		}
	}
	return size
}
