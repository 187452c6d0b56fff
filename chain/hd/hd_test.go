package hd

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/btcsuite/btcd/btcutil/hdkeychain"
	"github.com/ethereum/go-ethereum/common"
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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

// referenceAddress is address index of xpub the way hdkeychain's documentation has it: Derive,
// then the child's public key, then go-ethereum's address of it.
func referenceAddress(tb testing.TB, xpub *hdkeychain.ExtendedKey, index uint32) common.Address {
	tb.Helper()
	child, err := xpub.Derive(index)
	if err != nil {
		tb.Fatalf("hdkeychain: derive %d: %v", index, err)
	}
	pub, err := child.ECPubKey()
	if err != nil {
		tb.Fatalf("hdkeychain: derive %d: %v", index, err)
	}
	return crypto.PubkeyToAddress(*pub.ToECDSA())
}

// mustKey parses an extended key with hdkeychain.
func mustKey(tb testing.TB, s string) *hdkeychain.ExtendedKey {
	tb.Helper()
	k, err := hdkeychain.NewKeyFromString(s)
	if err != nil {
		tb.Fatalf("parse %s: %v", s, err)
	}
	return k
}

// Address and Addresses agree with hdkeychain's public derivation (and the private keys'
// addresses) over indexes 0..5000 (0..1000 under the race detector), the ends of the range and
// random indexes, for two known accounts' chains and fresh random ones.
func TestAddressMatchesHDKeychain(t *testing.T) {
	t.Parallel()
	last := uint32(5000)
	if raceEnabled {
		last = 1000
	}
	mnemonics := []string{testMnemonic, "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about"}
	for range 3 {
		m, err := NewMnemonic()
		if err != nil {
			t.Fatal(err)
		}
		mnemonics = append(mnemonics, m)
	}
	for _, mnemonic := range mnemonics {
		s, err := FromMnemonic(mnemonic, "")
		if err != nil {
			t.Fatal(err)
		}
		xpub, err := s.XPub()
		if err != nil {
			t.Fatal(err)
		}
		d, err := FromXPub(xpub)
		if err != nil {
			t.Fatal(err)
		}
		ref := mustKey(t, xpub)
		indexes := []uint32{1<<31 - 1, 1<<31 - 2, 1 << 30, 123_456_789}
		for i := range last + 1 {
			indexes = append(indexes, i)
		}
		for range 300 {
			indexes = append(indexes, rand.Uint32N(1<<31))
		}
		batched, err := d.Addresses(indexes)
		if err != nil || len(batched) != len(indexes) {
			t.Fatalf("%s: Addresses: %d, %v", xpub, len(batched), err)
		}
		for n, i := range indexes {
			got := batched[n]
			if want := referenceAddress(t, ref, i); got != want {
				t.Fatalf("%s: Addresses[%d] (index %d) = %s, hdkeychain %s", xpub, n, i, got.Hex(), want.Hex())
			}
			if n%10 == 0 {
				if one, err := d.Address(i); err != nil || one != got {
					t.Fatalf("%s: Address(%d) = %s, %v; Addresses %s", xpub, i, one.Hex(), err, got.Hex())
				}
			}
			if n%500 == 0 {
				if key, err := s.Key(i); err != nil || crypto.PubkeyToAddress(key.PublicKey) != got {
					t.Fatalf("%s: Key(%d) does not match Address", xpub, i)
				}
			}
		}
	}
}

// Address follows BIP-32's test vectors: at each non-hardened step of vectors 1 and 2, the
// parent's xpub gives the address of the child's published xpub.
func TestBIP32Vectors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name          string
		parent, child string
		index         uint32
	}{
		{"vector 1 m/0H/1", "xpub68Gmy5EdvgibQVfPdqkBBCHxA5htiqg55crXYuXoQRKfDBFA1WEjWgP6LHhwBZeNK1VTsfTFUHCdrfp1bgwQ9xv5ski8PX9rL2dZXvgGDnw",
			"xpub6ASuArnXKPbfEwhqN6e3mwBcDTgzisQN1wXN9BJcM47sSikHjJf3UFHKkNAWbWMiGj7Wf5uMash7SyYq527Hqck2AxYysAA7xmALppuCkwQ", 1},
		{"vector 1 m/0H/1/2H/2", "xpub6D4BDPcP2GT577Vvch3R8wDkScZWzQzMMUm3PWbmWvVJrZwQY4VUNgqFJPMM3No2dFDFGTsxxpG5uJh7n7epu4trkrX7x7DogT5Uv6fcLW5",
			"xpub6FHa3pjLCk84BayeJxFW2SP4XRrFd1JYnxeLeU8EqN3vDfZmbqBqaGJAyiLjTAwm6ZLRQUMv1ZACTj37sR62cfN7fe5JnJ7dh8zL4fiyLHV", 2},
		{"vector 1 m/0H/1/2H/2/1000000000", "xpub6FHa3pjLCk84BayeJxFW2SP4XRrFd1JYnxeLeU8EqN3vDfZmbqBqaGJAyiLjTAwm6ZLRQUMv1ZACTj37sR62cfN7fe5JnJ7dh8zL4fiyLHV",
			"xpub6H1LXWLaKsWFhvm6RVpEL9P4KfRZSW7abD2ttkWP3SSQvnyA8FSVqNTEcYFgJS2UaFcxupHiYkro49S8yGasTvXEYBVPamhGW6cFJodrTHy", 1000000000},
		{"vector 2 m/0", "xpub661MyMwAqRbcFW31YEwpkMuc5THy2PSt5bDMsktWQcFF8syAmRUapSCGu8ED9W6oDMSgv6Zz8idoc4a6mr8BDzTJY47LJhkJ8UB7WEGuduB",
			"xpub69H7F5d8KSRgmmdJg2KhpAK8SR3DjMwAdkxj3ZuxV27CprR9LgpeyGmXUbC6wb7ERfvrnKZjXoUmmDznezpbZb7ap6r1D3tgFxHmwMkQTPH", 0},
		{"vector 2 m/0/2147483647H/1", "xpub6ASAVgeehLbnwdqV6UKMHVzgqAG8Gr6riv3Fxxpj8ksbH9ebxaEyBLZ85ySDhKiLDBrQSARLq1uNRts8RuJiHjaDMBU4Zn9h8LZNnBC5y4a",
			"xpub6DF8uhdarytz3FWdA8TvFSvvAh8dP3283MY7p2V4SeE2wyWmG5mg5EwVvmdMVCQcoNJxGoWaU9DCWh89LojfZ537wTfunKau47EL2dhHKon", 1},
		{"vector 2 m/0/2147483647H/1/2147483646H/2", "xpub6ERApfZwUNrhLCkDtcHTcxd75RbzS1ed54G1LkBUHQVHQKqhMkhgbmJbZRkrgZw4koxb5JaHWkY4ALHY2grBGRjaDMzQLcgJvLJuZZvRcEL",
			"xpub6FnCn6nSzZAw5Tw7cgR9bi15UV96gLZhjDstkXXxvCLsUXBGXPdSnLFbdpq8p9HmGsApME5hQTZ3emM2rnY5agb9rXpVGyy3bdW6EEgAtqt", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := FromXPub(tc.parent)
			if err != nil {
				t.Fatal(err)
			}
			pub, err := mustKey(t, tc.child).ECPubKey()
			if err != nil {
				t.Fatal(err)
			}
			want := crypto.PubkeyToAddress(*pub.ToECDSA())
			if got, err := d.Address(tc.index); err != nil || got != want {
				t.Fatalf("Address(%d) = %s, %v; want %s", tc.index, got.Hex(), err, want.Hex())
			}
			if got := referenceAddress(t, mustKey(t, tc.parent), tc.index); got != want {
				t.Fatalf("hdkeychain derives %s; want %s", got.Hex(), want.Hex())
			}
		})
	}
}

// A key at depth 255 has no children hdkeychain derives (the depth would not fit its byte):
// FromXPub refuses it at once; one level up, addresses are hdkeychain's.
func TestMaxDepth(t *testing.T) {
	t.Parallel()
	s, _ := FromMnemonic(testMnemonic, "")
	xpub, _ := s.XPub()
	k := mustKey(t, xpub)
	pub, err := k.ECPubKey()
	if err != nil {
		t.Fatal(err)
	}
	at := func(depth uint8) *hdkeychain.ExtendedKey {
		return hdkeychain.NewExtendedKey(params.HDPublicKeyID[:], pub.SerializeCompressed(), k.ChainCode(), []byte{1, 2, 3, 4}, depth, 0, false)
	}
	if _, err := at(255).Derive(0); !errors.Is(err, hdkeychain.ErrDeriveBeyondMaxDepth) {
		t.Fatalf("hdkeychain at depth 255: %v", err)
	}
	if _, err := FromXPub(at(255).String()); !errors.Is(err, hdkeychain.ErrDeriveBeyondMaxDepth) {
		t.Fatalf("FromXPub at depth 255: %v", err)
	}
	d, err := FromXPub(at(254).String())
	if err != nil {
		t.Fatal(err)
	}
	if got, err := d.Address(3); err != nil || got != referenceAddress(t, at(254), 3) {
		t.Fatalf("Address(3) at depth 254 = %s, %v", got.Hex(), err)
	}
}

// A Deriver is safe to share: goroutines deriving at once get what one alone gets.
func TestAddressConcurrent(t *testing.T) {
	t.Parallel()
	s, _ := FromMnemonic(testMnemonic, "")
	xpub, _ := s.XPub()
	d, _ := FromXPub(xpub)
	want, err := d.Addresses([]uint32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		wg.Go(func() {
			for round := range 10 {
				for i, w := range want {
					if got, err := d.Address(uint32(i)); err != nil || got != w {
						errs <- fmt.Errorf("round %d: Address(%d) = %s, %v; want %s", round, i, got.Hex(), err, w.Hex())
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// Addresses takes any number of indexes, and refuses what Address refuses.
func TestAddressesEdges(t *testing.T) {
	t.Parallel()
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
	for _, i := range []uint32{1 << 31, 1<<31 + 7, 1<<32 - 1} {
		if _, err := d.Address(i); err == nil || !strings.Contains(err.Error(), "non-hardened") {
			t.Fatalf("hardened index %d: %v", i, err)
		}
	}
}

// BenchmarkAddresses derives blocks of 16; ns/op is per
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
