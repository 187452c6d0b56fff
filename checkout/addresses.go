package checkout

import (
	"context"
	"fmt"
	"sync"

	"github.com/ethereum/go-ethereum/common"
)

// depositIndexBlock is how many deposit indexes a process reserves at once. The reservation is
// one write for that many orders, and an order's own transaction neither waits on a counter
// nor holds SQLite's one writer while its address is derived. A process that stops leaves at
// most this many indexes unused (a gap wallets scanning the chain skip like any unpaid order's).
const depositIndexBlock = 16

// addresses hands out deposit addresses: each from an index reserved in the store, so that no
// index is ever used twice, derived outside any transaction.
type addresses struct {
	reserve func(ctx context.Context, n int) ([]uint32, error)
	derive  func(index uint32) (common.Address, error)

	mu   sync.Mutex
	free []uint32 // reserved, not yet handed out
}

// next returns a fresh deposit index and its address.
func (a *addresses) next(ctx context.Context) (uint32, common.Address, error) {
	a.mu.Lock()
	if len(a.free) == 0 {
		// Under the lock: orders arriving meanwhile wait for this one reservation instead of
		// each making its own.
		idx, err := a.reserve(ctx, depositIndexBlock)
		if err != nil {
			a.mu.Unlock()
			return 0, common.Address{}, fmt.Errorf("deposit index: %w", err)
		}
		a.free = idx
	}
	i := a.free[0]
	a.free = a.free[1:]
	a.mu.Unlock()
	addr, err := a.derive(i) // an index whose derivation fails is not handed out again
	if err != nil {
		return 0, common.Address{}, fmt.Errorf("deposit address %d: %w", i, err)
	}
	return i, addr, nil
}
