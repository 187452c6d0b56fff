package contract

import (
	"bytes"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

// The 10-argument call of the performance budget: uint256, address, bool, string, bytes,
// bytes32, uint256[], address[2], a tuple with a nested array, int64.
const (
	frag10 = `{"type":"function","name":"checkout","stateMutability":"payable","inputs":[
		{"name":"amount","type":"uint256"},{"name":"to","type":"address"},{"name":"gift","type":"bool"},
		{"name":"memo","type":"string"},{"name":"data","type":"bytes"},{"name":"ref","type":"bytes32"},
		{"name":"ids","type":"uint256[]"},{"name":"pair","type":"address[2]"},
		{"name":"order","type":"tuple","components":[{"name":"buyer","type":"address"},{"name":"grid","type":"uint256[][2]"},{"name":"note","type":"string"}]},
		{"name":"deadline","type":"int64"}]}`
	args10 = `{"amount":"1500000000000000000","to":"` + addrChecksum + `","gift":true,"memo":"order #1234 for Alice",
		"data":"0xdeadbeefcafebabe","ref":"` + hex32 + `","ids":[1,2,3,4,5,"0x10","1000000000000000000000"],
		"pair":["` + addrLower + `","` + addr2 + `"],
		"order":{"buyer":"` + addr2 + `","grid":[[1,2,3],[4,5]],"note":"gift wrap"},"deadline":1767225600}`
)

type order10 struct {
	Buyer common.Address
	Grid  [2][]*big.Int
	Note  string
}

func TestEncode10ArgsMatchesPack(t *testing.T) {
	t.Parallel()
	f := mustParse(t, frag10)
	got, err := f.Encode([]byte(args10))
	if err != nil {
		t.Fatal(err)
	}
	n := big.NewInt
	want, err := f.Method().Inputs.Pack(
		bi("1500000000000000000"), addr(addrLower), true, "order #1234 for Alice", hexb("deadbeefcafebabe"), b32(hex32),
		[]*big.Int{n(1), n(2), n(3), n(4), n(5), n(16), bi("1000000000000000000000")},
		[2]common.Address{addr(addrLower), addr(addr2)},
		order10{addr(addr2), [2][]*big.Int{{n(1), n(2), n(3)}, {n(4), n(5)}}, "gift wrap"},
		int64(1767225600),
	)
	if err != nil {
		t.Fatal(err)
	}
	sel := f.Selector()
	if !bytes.Equal(got, append(sel[:], want...)) {
		t.Fatalf("calldata:\n got %x\nwant %x%x", got, sel, want)
	}
}

// BenchmarkEncode10Args measures validating and encoding the 10-argument call.
func BenchmarkEncode10Args(b *testing.B) {
	f, err := ParseFunction([]byte(frag10))
	if err != nil {
		b.Fatal(err)
	}
	args := []byte(args10)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.Encode(args); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPack10Args measures go-ethereum's Pack alone on the already validated values of the
// same call: the part of BenchmarkEncode10Args that is not this package's.
func BenchmarkPack10Args(b *testing.B) {
	f, err := ParseFunction([]byte(frag10))
	if err != nil {
		b.Fatal(err)
	}
	vals, err := f.Values([]byte(args10))
	if err != nil {
		b.Fatal(err)
	}
	inputs := f.Method().Inputs
	b.ReportAllocs()
	for b.Loop() {
		if _, err := inputs.Pack(vals...); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkValues10Args measures validation alone (Values) for the same call.
func BenchmarkValues10Args(b *testing.B) {
	f, err := ParseFunction([]byte(frag10))
	if err != nil {
		b.Fatal(err)
	}
	args := []byte(args10)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.Values(args); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseFunction measures parsing the 10-argument fragment (done once per registered
// function, so only for information).
func BenchmarkParseFunction(b *testing.B) {
	frag := []byte(frag10)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseFunction(frag); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkValuesOversized measures refusing function_args of 1 MiB, the largest request
// body, whose calldata would be far over MaxCalldata, in the shapes that cost the most per
// byte: parsing the JSON and counting the size, no value converted (TestOversizedArgs).
func BenchmarkValuesOversized(b *testing.B) {
	for _, c := range oversized(1 << 20) {
		b.Run(c.name, func(b *testing.B) {
			f, err := ParseFunction([]byte(c.frag))
			if err != nil {
				b.Fatal(err)
			}
			args := []byte(c.args)
			b.SetBytes(int64(len(args)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := f.Values(args); err == nil {
					b.Fatal("Values accepted oversized args")
				}
			}
		})
	}
}

// BenchmarkEncodeLongest measures encoding the longest calls within MaxCalldata (TestArguments'
// "calldata limit, just under" cases): the most work one valid call can ask for.
func BenchmarkEncodeLongest(b *testing.B) {
	for _, c := range limitCases() {
		if c.err != "" {
			continue
		}
		b.Run(strings.TrimPrefix(c.name, "calldata limit, just under: "), func(b *testing.B) {
			f, err := ParseFunction([]byte(c.frag))
			if err != nil {
				b.Fatal(err)
			}
			args := []byte(c.args)
			b.SetBytes(int64(len(args)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := f.Encode(args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
