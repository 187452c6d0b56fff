package contract

import (
	"encoding/json"
	"sync"
	"unicode/utf8"
)

// jkind is the kind of a JSON value.
type jkind uint8

const (
	jNull jkind = iota
	jFalse
	jTrue
	jNumber
	jString
	jArray
	jObject
)

// jnode is one parsed JSON value. Numbers keep their literal text, so no precision is lost;
// objects keep every member in document order, so duplicate keys can be reported.
type jnode struct {
	kind  jkind
	s     string // number literal, or decoded string
	key   string // member name, when the value is an object member
	first int32  // arrays and objects: children are doc.kids[first : first+n]
	n     int32
}

// jdoc is a parsed JSON document: nodes[0] is the root. Strings that need no decoding are
// substrings of one copy of the input, so parsing allocates little.
type jdoc struct {
	nodes []jnode
	kids  []int32 // children of every array and object, each list contiguous
	stack []int32 // scratch space while parsing
}

func (d *jdoc) children(n *jnode) []int32 { return d.kids[n.first : n.first+n.n] }

// maxJSONDepth matches encoding/json's nesting limit.
const maxJSONDepth = 10000

var docPool = sync.Pool{New: func() any { return new(jdoc) }}

// parseJSON parses data strictly (RFC 8259: one value, optional surrounding whitespace).
// It returns false if data is not valid JSON. Release the document with putDoc.
func parseJSON(data []byte) (*jdoc, bool) {
	d := docPool.Get().(*jdoc)
	p := jparser{src: string(data), d: d}
	if _, ok := p.value(0); !ok {
		putDoc(d)
		return nil, false
	}
	p.ws()
	if p.i != len(p.src) {
		putDoc(d)
		return nil, false
	}
	return d, true
}

// putDoc returns a document's buffers to the pool (unless they grew very large).
func putDoc(d *jdoc) {
	if cap(d.nodes) > 1<<16 || cap(d.kids) > 1<<16 {
		return
	}
	clear(d.nodes) // drop references to the input
	d.nodes, d.kids, d.stack = d.nodes[:0], d.kids[:0], d.stack[:0]
	docPool.Put(d)
}

type jparser struct {
	src string
	i   int
	d   *jdoc
}

// grow returns s with room for at least n more elements. It grows s to what the whole
// document will need if the rest of it holds as many values per byte as the part parsed so
// far, and by at least a quarter: append's own growth, a quarter at a time for large slices,
// would copy and allocate a large document's nodes several times over.
func grow[E any](s []E, n, done, total int) []E {
	want := int64(cap(s)) + int64(cap(s))/4 + 64
	if done > 0 {
		// A document of total bytes holds at most total/2+1 values.
		est := min(int64(len(s))*int64(total)/int64(done)*9/8, int64(total)/2+1)
		want = max(want, est)
	}
	want = max(want, int64(len(s)+n))
	g := make([]E, len(s), int(want))
	copy(g, s)
	return g
}

func (p *jparser) ws() {
	for p.i < len(p.src) {
		switch p.src[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// value parses one value and returns its node index. Node indices, never pointers, are kept
// across calls: the node slice grows while parsing.
func (p *jparser) value(depth int) (int32, bool) {
	p.ws()
	if p.i >= len(p.src) {
		return 0, false
	}
	idx := int32(len(p.d.nodes))
	if len(p.d.nodes) == cap(p.d.nodes) {
		p.d.nodes = grow(p.d.nodes, 1, p.i, len(p.src))
	}
	p.d.nodes = append(p.d.nodes, jnode{})
	switch c := p.src[p.i]; c {
	case '{', '[':
		if depth >= maxJSONDepth {
			return 0, false
		}
		p.i++
		kind, end := jArray, byte(']')
		if c == '{' {
			kind, end = jObject, '}'
		}
		base := len(p.d.stack)
		p.ws()
		if p.i < len(p.src) && p.src[p.i] == end {
			p.i++
		} else {
			for {
				var key string
				if kind == jObject {
					p.ws()
					if p.i >= len(p.src) || p.src[p.i] != '"' {
						return 0, false
					}
					var ok bool
					if key, ok = p.str(); !ok {
						return 0, false
					}
					p.ws()
					if p.i >= len(p.src) || p.src[p.i] != ':' {
						return 0, false
					}
					p.i++
				}
				child, ok := p.value(depth + 1)
				if !ok {
					return 0, false
				}
				p.d.nodes[child].key = key
				if len(p.d.stack) == cap(p.d.stack) {
					p.d.stack = grow(p.d.stack, 1, p.i, len(p.src))
				}
				p.d.stack = append(p.d.stack, child)
				p.ws()
				if p.i >= len(p.src) {
					return 0, false
				}
				sep := p.src[p.i]
				p.i++
				if sep == end {
					break
				}
				if sep != ',' {
					return 0, false
				}
			}
		}
		first := int32(len(p.d.kids))
		if n := len(p.d.stack) - base; cap(p.d.kids)-len(p.d.kids) < n {
			p.d.kids = grow(p.d.kids, n, p.i, len(p.src))
		}
		p.d.kids = append(p.d.kids, p.d.stack[base:]...)
		n := &p.d.nodes[idx]
		n.kind, n.first, n.n = kind, first, int32(len(p.d.stack)-base)
		p.d.stack = p.d.stack[:base]
	case '"':
		s, ok := p.str()
		if !ok {
			return 0, false
		}
		p.d.nodes[idx] = jnode{kind: jString, s: s}
	case 't':
		if !p.literal("true") {
			return 0, false
		}
		p.d.nodes[idx].kind = jTrue
	case 'f':
		if !p.literal("false") {
			return 0, false
		}
		p.d.nodes[idx].kind = jFalse
	case 'n':
		if !p.literal("null") {
			return 0, false
		}
		p.d.nodes[idx].kind = jNull
	default:
		s, ok := p.number()
		if !ok {
			return 0, false
		}
		p.d.nodes[idx] = jnode{kind: jNumber, s: s}
	}
	return idx, true
}

func (p *jparser) literal(lit string) bool {
	if len(p.src)-p.i < len(lit) || p.src[p.i:p.i+len(lit)] != lit {
		return false
	}
	p.i += len(lit)
	return true
}

// number reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (p *jparser) number() (string, bool) {
	start := p.i
	if p.i < len(p.src) && p.src[p.i] == '-' {
		p.i++
	}
	switch {
	case p.i < len(p.src) && p.src[p.i] == '0':
		p.i++
	case p.i < len(p.src) && p.src[p.i] >= '1' && p.src[p.i] <= '9':
		p.digits()
	default:
		return "", false
	}
	if p.i < len(p.src) && p.src[p.i] == '.' {
		p.i++
		if p.digits() == 0 {
			return "", false
		}
	}
	if p.i < len(p.src) && (p.src[p.i] == 'e' || p.src[p.i] == 'E') {
		p.i++
		if p.i < len(p.src) && (p.src[p.i] == '+' || p.src[p.i] == '-') {
			p.i++
		}
		if p.digits() == 0 {
			return "", false
		}
	}
	return p.src[start:p.i], true
}

func (p *jparser) digits() int {
	start := p.i
	for p.i < len(p.src) && p.src[p.i] >= '0' && p.src[p.i] <= '9' {
		p.i++
	}
	return p.i - start
}

// str reads a string token starting at its opening quote and returns its decoded value.
func (p *jparser) str() (string, bool) {
	start := p.i
	p.i++
	plain := true
	for {
		if p.i >= len(p.src) {
			return "", false
		}
		c := p.src[p.i]
		switch {
		case c == '"':
			p.i++
			body := p.src[start+1 : p.i-1]
			if plain {
				return body, true
			}
			// Escapes or non-ASCII: decode exactly as encoding/json does (invalid UTF-8
			// becomes U+FFFD), unless it is valid UTF-8 without escapes.
			if !hasByte(body, '\\') && utf8.ValidString(body) {
				return body, true
			}
			var s string
			if err := json.Unmarshal([]byte(p.src[start:p.i]), &s); err != nil {
				return "", false
			}
			return s, true
		case c < 0x20:
			return "", false
		case c == '\\':
			plain = false
			p.i++
			if p.i >= len(p.src) {
				return "", false
			}
			switch p.src[p.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.i++
			case 'u':
				if len(p.src)-p.i < 5 || !isHex(p.src[p.i+1:p.i+5]) {
					return "", false
				}
				p.i += 5
			default:
				return "", false
			}
		case c >= 0x80:
			plain = false
			p.i++
		default:
			p.i++
		}
	}
}

func hasByte(s string, b byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == b {
			return true
		}
	}
	return false
}
