package checkout

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// fakeReserve hands out consecutive blocks, slowly, or fails while fail is set.
type fakeReserve struct {
	mu    sync.Mutex
	next  uint32
	calls atomic.Int64
	fail  atomic.Bool
}

func (f *fakeReserve) reserve(ctx context.Context, n int) ([]uint32, error) {
	f.calls.Add(1)
	time.Sleep(2 * time.Millisecond)
	if f.fail.Load() {
		return nil, errors.New("database down")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]uint32, n)
	for i := range out {
		out[i] = f.next
		f.next++
	}
	return out, nil
}

func deriveOne(i uint32) common.Address { return common.BigToAddress(big.NewInt(int64(i) + 1)) }

func derive(idx []uint32) ([]common.Address, error) {
	out := make([]common.Address, len(idx))
	for n, i := range idx {
		out[n] = deriveOne(i)
	}
	return out, nil
}

// Orders at once each get their own index and its address, from a reservation per block.
func TestAddressesConcurrent(t *testing.T) {
	t.Parallel()
	f := &fakeReserve{}
	a := &addresses{reserve: f.reserve, derive: derive}
	var (
		mu   sync.Mutex
		seen = map[uint32]bool{}
		wg   sync.WaitGroup
	)
	for range 32 {
		wg.Go(func() {
			for range 20 {
				i, addr, err := a.next(t.Context())
				if err != nil {
					t.Error(err)
					return
				}
				if want := deriveOne(i); addr != want {
					t.Errorf("index %d: address %s", i, addr.Hex())
				}
				mu.Lock()
				if seen[i] {
					t.Errorf("index %d handed out twice", i)
				}
				seen[i] = true
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(seen) != 640 {
		t.Fatalf("%d indexes, want 640", len(seen))
	}
	if n := f.calls.Load(); n < 640/DepositIndexBlock || n > 640/DepositIndexBlock+2 {
		t.Fatalf("%d reservations for 640 orders, want %d, or up to two blocks ahead", n, 640/DepositIndexBlock)
	}
}

// A failing reservation fails the orders that wait for it (none hangs), and the next one works.
func TestAddressesReserveFails(t *testing.T) {
	t.Parallel()
	f := &fakeReserve{}
	f.fail.Store(true)
	a := &addresses{reserve: f.reserve, derive: derive}
	if _, _, err := a.next(t.Context()); err == nil {
		t.Fatal("an index without a reservation")
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, _, err := a.next(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled while waiting: %v", err)
	}
	f.fail.Store(false)
	if i, _, err := a.next(t.Context()); err != nil || i != 0 {
		t.Fatalf("after recovery: %d, %v", i, err)
	}
}

// A block whose derivation fails is not handed out: the order waiting for it fails, and the
// next block, derived, is used.
func TestAddressesDeriveFails(t *testing.T) {
	t.Parallel()
	f := &fakeReserve{}
	var fail atomic.Bool
	fail.Store(true)
	a := &addresses{reserve: f.reserve, derive: func(idx []uint32) ([]common.Address, error) {
		if fail.Load() {
			return nil, errors.New("invalid child")
		}
		return derive(idx)
	}}
	if _, _, err := a.next(t.Context()); err == nil || !strings.Contains(err.Error(), "invalid child") {
		t.Fatalf("an address from a block that failed: %v", err)
	}
	fail.Store(false)
	i, addr, err := a.next(t.Context())
	if err != nil || i != DepositIndexBlock || addr != deriveOne(i) {
		t.Fatalf("after the failed block: index %d, %s, %v; want index %d", i, addr.Hex(), err, DepositIndexBlock)
	}
}
