package checkout

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// depositIndexBlock is how many deposit indexes a process reserves at once. The reservation is
// one write for that many orders, and an order's own transaction neither waits on a counter
// nor holds SQLite's one writer while its address is derived. A process that stops leaves at
// most this many indexes unused (a gap wallets scanning the chain skip like any unpaid order's).
const depositIndexBlock = 16

// reserveTimeout bounds one reservation made ahead of need.
const reserveTimeout = 10 * time.Second

// addresses hands out deposit addresses: each from an index reserved in the store, so that no
// index is ever used twice, derived outside any transaction. The next block is reserved in
// the background once half of the current one is handed out, so that orders seldom wait for
// a reservation.
type addresses struct {
	reserve func(ctx context.Context, n int) ([]uint32, error)
	derive  func(index uint32) (common.Address, error)

	mu        sync.Mutex
	free      []uint32      // reserved, not yet handed out
	refilling chan struct{} // closed when the reservation under way ends; nil when none is
	failed    error         // why the last reservation failed
}

// next returns a fresh deposit index and its address.
func (a *addresses) next(ctx context.Context) (uint32, common.Address, error) {
	i, err := a.index(ctx)
	if err != nil {
		return 0, common.Address{}, fmt.Errorf("deposit index: %w", err)
	}
	addr, err := a.derive(i) // an index whose derivation fails is not handed out again
	if err != nil {
		return 0, common.Address{}, fmt.Errorf("deposit address %d: %w", i, err)
	}
	return i, addr, nil
}

func (a *addresses) index(ctx context.Context) (uint32, error) {
	waited := false
	for {
		a.mu.Lock()
		if len(a.free) > 0 {
			i := a.free[0]
			a.free = a.free[1:]
			if len(a.free) <= depositIndexBlock/2 {
				a.refillLocked()
			}
			a.mu.Unlock()
			return i, nil
		}
		if waited && a.failed != nil {
			err := a.failed
			a.mu.Unlock()
			return 0, err
		}
		done := a.refillLocked()
		a.mu.Unlock()
		select {
		case <-done:
			waited = true
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
}

// refillLocked starts a reservation unless one is under way and returns the channel closed
// when it ends. a.mu is held.
func (a *addresses) refillLocked() chan struct{} {
	if a.refilling != nil {
		return a.refilling
	}
	done := make(chan struct{})
	a.refilling = done
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), reserveTimeout)
		defer cancel()
		idx, err := a.reserve(ctx, depositIndexBlock)
		a.mu.Lock()
		a.free = append(a.free, idx...)
		a.failed = err
		a.refilling = nil
		a.mu.Unlock()
		close(done)
	}()
	return done
}
