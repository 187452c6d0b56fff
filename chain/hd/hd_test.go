package hd

import (
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
)

// The well-known test mnemonic's first addresses (every Ethereum wallet derives the same).
const testMnemonic = "test test test test test test test test test test test junk"

var wantAddresses = []string{
	"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
	"0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
	"0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
}

func TestDerivation(t *testing.T) {
	s, err := FromMnemonic(testMnemonic, "")
	if err != nil {
		t.Fatal(err)
	}
	xpub, err := s.XPub()
	if err != nil || !strings.HasPrefix(xpub, "xpub") {
		t.Fatalf("XPub = %q, %v", xpub, err)
	}
	d, err := FromXPub(xpub)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range wantAddresses {
		got, err := d.Address(uint32(i))
		if err != nil || got.Hex() != want {
			t.Fatalf("Address(%d) = %s, %v; want %s", i, got.Hex(), err, want)
		}
		key, err := s.Key(uint32(i))
		if err != nil || crypto.PubkeyToAddress(key.PublicKey).Hex() != want {
			t.Fatalf("Key(%d) does not match its address", i)
		}
	}
	if _, err := d.Address(1 << 31); err == nil {
		t.Fatal("hardened index accepted")
	}
	if _, err := s.Key(1 << 31); err == nil {
		t.Fatal("hardened index accepted")
	}
}

func TestBadInput(t *testing.T) {
	if _, err := FromMnemonic("test test test", ""); err == nil {
		t.Fatal("bad mnemonic accepted")
	}
	if _, err := FromXPub("xpub-nope"); err == nil {
		t.Fatal("bad xpub accepted")
	}
	s, _ := FromMnemonic(testMnemonic, "")
	xprv := s.chain.String()
	if _, err := FromXPub(xprv); err == nil || !strings.Contains(err.Error(), "private") {
		t.Fatalf("xprv accepted as the API's key: %v", err)
	}
	m, err := NewMnemonic()
	if err != nil || len(strings.Fields(m)) != 24 {
		t.Fatalf("NewMnemonic = %q, %v", m, err)
	}
	if _, err := FromMnemonic(m, "pass"); err != nil {
		t.Fatal(err)
	}
}

func TestXPrvRoundTrip(t *testing.T) {
	s, err := FromMnemonic(testMnemonic, "")
	if err != nil {
		t.Fatal(err)
	}
	back, err := FromXPrv(s.XPrv())
	if err != nil {
		t.Fatal(err)
	}
	xpub, _ := s.XPub()
	d, _ := FromXPub(xpub)
	for _, i := range []uint32{0, 7, 1 << 20} {
		k, err := back.Key(i)
		if err != nil {
			t.Fatal(err)
		}
		if a, _ := d.Address(i); crypto.PubkeyToAddress(k.PublicKey) != a {
			t.Fatalf("index %d: the xprv's key is not the xpub's address", i)
		}
	}
	if _, err := FromXPrv(xpub); err == nil {
		t.Fatal("an xpub was taken as an xprv")
	}
	if _, err := FromXPrv("xprv-nonsense"); err == nil || strings.Contains(err.Error(), "nonsense") {
		t.Fatalf("bad xprv: %v", err)
	}
}

// Address agrees with hdkeychain's public derivation (and the private keys' addresses) over
// many indexes and several accounts' chains.
func TestAddressMatchesHDKeychain(t *testing.T) {
	for _, mnemonic := range []string{testMnemonic, "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"} {
		s, err := FromMnemonic(mnemonic, "")
		if err != nil {
			t.Fatal(err)
		}
		xpub, _ := s.XPub()
		d, err := FromXPub(xpub)
		if err != nil {
			t.Fatal(err)
		}
		indexes := []uint32{1<<31 - 1, 1 << 30, 123_456_789}
		for i := range uint32(600) {
			indexes = append(indexes, i)
		}
		batched, err := d.Addresses(indexes)
		if err != nil || len(batched) != len(indexes) {
			t.Fatalf("Addresses: %d, %v", len(batched), err)
		}
		for n, i := range indexes {
			got, err := d.Address(i)
			if err != nil {
				t.Fatal(err)
			}
			if batched[n] != got {
				t.Fatalf("Addresses[%d] (index %d) = %s, Address %s", n, i, batched[n].Hex(), got.Hex())
			}
			child, err := d.chain.Derive(i)
			if err != nil {
				t.Fatal(err)
			}
			pub, err := child.ECPubKey()
			if err != nil {
				t.Fatal(err)
			}
			if want := crypto.PubkeyToAddress(*pub.ToECDSA()); got != want {
				t.Fatalf("Address(%d) = %s, hdkeychain %s", i, got.Hex(), want.Hex())
			}
			if i%100 == 0 {
				if key, err := s.Key(i); err != nil || crypto.PubkeyToAddress(key.PublicKey) != got {
					t.Fatalf("Key(%d) does not match Address", i)
				}
			}
		}
	}
}

// Addresses takes any number of indexes, and refuses what Address refuses.
func TestAddressesEdges(t *testing.T) {
	s, _ := FromMnemonic(testMnemonic, "")
	xpub, _ := s.XPub()
	d, _ := FromXPub(xpub)
	if got, err := d.Addresses(nil); err != nil || len(got) != 0 {
		t.Fatalf("Addresses(nil) = %v, %v", got, err)
	}
	one, err := d.Addresses([]uint32{7})
	want, _ := d.Address(7)
	if err != nil || len(one) != 1 || one[0] != want {
		t.Fatalf("Addresses([7]) = %v, %v; want %s", one, err, want.Hex())
	}
	if _, err := d.Addresses([]uint32{1, 1 << 31, 2}); err == nil || !strings.Contains(err.Error(), "non-hardened") {
		t.Fatalf("a hardened index in a batch: %v", err)
	}
}

// BenchmarkAddresses derives blocks of 16, as the order path reserves them; ns/op is per
// address.
func BenchmarkAddresses(b *testing.B) {
	s, _ := FromMnemonic(testMnemonic, "")
	xpub, _ := s.XPub()
	d, _ := FromXPub(xpub)
	block := make([]uint32, 16)
	for i := 0; i < b.N; i += len(block) {
		for j := range block {
			block[j] = uint32(i + j)
		}
		if _, err := d.Addresses(block); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAddress(b *testing.B) {
	s, _ := FromMnemonic(testMnemonic, "")
	xpub, _ := s.XPub()
	d, _ := FromXPub(xpub)
	for i := range b.N {
		if _, err := d.Address(uint32(i) % (1 << 31)); err != nil {
			b.Fatal(err)
		}
	}
}
