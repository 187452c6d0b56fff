package checkout

import (
	"context"
	"math/big"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
)

// countingEVM answers fee questions and counts them; the rest of EVM is not used here.
type countingEVM struct {
	EVM
	headers, tips atomic.Int64
}

func (c *countingEVM) HeaderByNumber(context.Context, *big.Int) (*types.Header, error) {
	c.headers.Add(1)
	return &types.Header{BaseFee: big.NewInt(7e9)}, nil
}

func (c *countingEVM) SuggestGasTipCap(context.Context) (*big.Int, error) {
	c.tips.Add(1)
	return big.NewInt(1e9), nil
}

func TestFeeCacheAsksOncePerTTL(t *testing.T) {
	t.Parallel()
	var c feeCache
	evm := &countingEVM{}
	t0 := time.Unix(1_800_000_000, 0)
	var wg sync.WaitGroup
	for range 50 { // a burst of quotes
		wg.Go(func() {
			fd, err := c.get(t.Context(), "devnet", evm, t0)
			if err != nil || fd.baseFee.Int64() != 7e9 || fd.tip.Int64() != 1e9 {
				t.Errorf("fees = %+v, %v", fd, err)
			}
		})
	}
	wg.Wait()
	if _, err := c.get(t.Context(), "devnet", evm, t0.Add(feeTTL-time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if h, tp := evm.headers.Load(), evm.tips.Load(); h != 1 || tp != 1 {
		t.Fatalf("asked the node %d+%d times within the TTL, want once", h, tp)
	}
	if _, err := c.get(t.Context(), "devnet", evm, t0.Add(feeTTL)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.get(t.Context(), "othernet", evm, t0); err != nil {
		t.Fatal(err)
	}
	if h := evm.headers.Load(); h != 3 {
		t.Fatalf("asked %d times, want 3 (after the TTL, and for another network)", h)
	}
}
