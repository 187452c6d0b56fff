package contract

import (
	"strings"
	"testing"
)

func TestParseJSONStrict(t *testing.T) {
	t.Parallel()
	valid := []string{
		`{}`, ` { "a" : [ 1 , -0 , 1.5e+3 , 1E-2 , 0.0 ] } `, `[]`, `null`, `true`, `false`, `"x"`, `-0`, `0`,
		`"\u00e9\ud83d\ude00\/\b\f\n\r\t\"\\"`, `"\ud800"`, "\"\xff\"", `{"a":{"b":[{"c":null}]}}`,
		strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
	}
	invalid := []string{
		``, ` `, `{`, `}`, `{"a":1,}`, `[1,]`, `[1 2]`, `{"a" 1}`, `{"a":}`, `{1:2}`, `{'a':1}`, `01`, `1.`, `.5`, `+1`,
		`-`, `1e`, `1e+`, `0x10`, `tru`, `nul`, `falsy`, `"\x"`, `"\u12"`, `"\u12g4"`, "\"a\x01\"", `"abc`, `{} {}`,
		`[1]]`, `NaN`, `Infinity`, strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	}
	for _, s := range valid {
		checkParserAgrees(t, []byte(s))
		if _, ok := parseJSON([]byte(s)); !ok {
			t.Errorf("parseJSON(%.40q) failed, want valid", s)
		}
	}
	for _, s := range invalid {
		checkParserAgrees(t, []byte(s))
		if _, ok := parseJSON([]byte(s)); ok {
			t.Errorf("parseJSON(%.40q) succeeded, want invalid", s)
		}
	}
}

func TestParseJSONStructure(t *testing.T) {
	t.Parallel()
	d, ok := parseJSON([]byte(`{"a":[1,"two",{"b":true}],"a":null,"c\u0021":-1.5e3}`))
	if !ok {
		t.Fatal("not parsed")
	}
	defer putDoc(d)
	root := &d.nodes[0]
	kids := d.children(root)
	if root.kind != jObject || len(kids) != 3 {
		t.Fatalf("root kind %v with %d members", root.kind, len(kids))
	}
	var keys []string
	for _, k := range kids {
		keys = append(keys, d.nodes[k].key)
	}
	if strings.Join(keys, ",") != "a,a,c!" {
		t.Errorf("keys = %q, want a,a,c! in document order", keys)
	}
	arr := &d.nodes[kids[0]]
	elems := d.children(arr)
	if arr.kind != jArray || len(elems) != 3 || d.nodes[elems[0]].s != "1" || d.nodes[elems[1]].s != "two" ||
		d.nodes[elems[2]].kind != jObject || d.nodes[kids[1]].kind != jNull || d.nodes[kids[2]].s != "-1.5e3" {
		t.Errorf("unexpected structure: %+v", d.nodes)
	}
}
