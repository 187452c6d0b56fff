package secretbox

import (
	"strings"
	"testing"
)

func TestSealOpen(t *testing.T) {
	b, err := New("k1")
	if err != nil {
		t.Fatal(err)
	}
	s := b.Seal("whsec_abc")
	if !strings.HasPrefix(s, sealedPrefix) || strings.Contains(s, "whsec_abc") {
		t.Fatalf("sealed value %q leaks or lacks prefix", s)
	}
	if s == b.Seal("whsec_abc") {
		t.Fatal("two seals of one secret are equal: nonce reused")
	}
	got, err := b.Open(s)
	if err != nil || got != "whsec_abc" {
		t.Fatalf("Open = %q, %v", got, err)
	}
	other, _ := New("k2")
	if _, err := other.Open(s); err == nil {
		t.Fatal("opened with the wrong key")
	}
	var none *Box
	if _, err := none.Open(s); err == nil {
		t.Fatal("nil box opened a sealed value")
	}
	if got, err := none.Open("plain"); err != nil || got != "plain" {
		t.Fatalf("nil box Open(plain) = %q, %v", got, err)
	}
	if none.Seal("x") != "x" || b.Seal("") != "" {
		t.Fatal("nil box must store in clear and empty must stay empty")
	}
	if _, err := b.Open(sealedPrefix + "!!"); err == nil {
		t.Fatal("malformed value opened")
	}
	if _, err := New(""); err == nil {
		t.Fatal("empty key accepted")
	}
}
