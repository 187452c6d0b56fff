package chainwork

import (
	"bytes"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

// packBalances encodes what the ABI package packs for aggregate3 of getEthBalance calls.
func TestPackBalances(t *testing.T) {
	t.Parallel()
	mc := common.HexToAddress("0xcA11bde05977b3631167028862bE2a173976CA11")
	for _, n := range []int{0, 1, 3, 1000} {
		addrs := make([]common.Address, n)
		type call3 struct {
			Target       common.Address
			AllowFailure bool
			CallData     []byte
		}
		calls := make([]call3, n)
		for i := range addrs {
			addrs[i] = common.BigToAddress(big.NewInt(int64(i)*7919 + 1))
			data, err := multicall3.Pack("getEthBalance", addrs[i])
			if err != nil {
				t.Fatal(err)
			}
			calls[i] = call3{Target: mc, CallData: data}
		}
		want, err := multicall3.Pack("aggregate3", calls)
		if err != nil {
			t.Fatal(err)
		}
		if got := packBalances(mc, addrs); !bytes.Equal(got, want) {
			t.Fatalf("%d addresses: packed %x, want %x", n, got, want)
		}
	}
}
