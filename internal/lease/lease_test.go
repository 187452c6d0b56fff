package lease_test

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/internal/lease"
	"github.com/rampway/rampway/storetest"
)

// runner is one instance's Runner and what its worker is doing.
type runner struct {
	r       *lease.Runner
	running atomic.Bool
	starts  atomic.Int32
	cancel  context.CancelFunc
	done    chan struct{}
}

func start(store rampway.LeaseStore, name string) *runner {
	return startTTL(store, name, 600*time.Millisecond)
}

// startTTL is start with leases lasting ttl (renewed every 100 ms).
func startTTL(store rampway.LeaseStore, name string, ttl time.Duration) *runner {
	x := &runner{r: lease.New(lease.Config{TTL: ttl, Renew: 100 * time.Millisecond}, store, lease.Holder(), slog.New(slog.DiscardHandler)),
		done: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	x.cancel = cancel
	go func() {
		defer close(x.done)
		x.r.Run(ctx, name, func(ctx context.Context) {
			x.starts.Add(1)
			x.running.Store(true)
			<-ctx.Done()
			x.running.Store(false)
		})
	}()
	return x
}

func (x *runner) stop() { x.cancel(); <-x.done }

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("not %s after 30 s", what)
		}
	}
}

// Three instances: one runs the worker; when it stops (its lease released) another takes
// over at once; never two at a time.
func TestOneWorkerAtATime(t *testing.T) {
	// The leases' clock stands still: none ever expires, so a handover can only be the
	// release's, however long it takes on a loaded machine.
	store := frozen{LeaseStore: storetest.OpenSQLite(t), at: time.Now()}
	rs := []*runner{start(store, "executor/devnet"), start(store, "executor/devnet"), start(store, "executor/devnet")}
	stopCheck := make(chan struct{})
	checked := make(chan struct{})
	go func() { // never two running
		defer close(checked)
		for {
			select {
			case <-stopCheck:
				return
			case <-time.After(5 * time.Millisecond):
			}
			n := 0
			for _, x := range rs {
				if x.running.Load() {
					n++
				}
			}
			if n > 1 {
				t.Errorf("%d workers running at once", n)
				return
			}
		}
	}()
	holder := func() int {
		for i, x := range rs {
			if x.running.Load() {
				return i
			}
		}
		return -1
	}
	waitFor(t, "one worker running", func() bool { return holder() >= 0 })
	first := holder()
	rs[first].stop()
	waitFor(t, "another worker running", func() bool { h := holder(); return h >= 0 && h != first })
	close(stopCheck)
	<-checked
	for i, x := range rs {
		if i != first {
			x.stop()
		}
	}
}

// A holder killed (it stops renewing without releasing) loses the lease to another instance
// once it expires.
func TestTakenOverAfterExpiry(t *testing.T) {
	store := storetest.OpenSQLite(t)
	dead := &failing{LeaseStore: store}
	a := start(dead, "watcher/devnet")
	waitFor(t, "a running", a.running.Load)
	dead.fail.Store(true) // a can no longer reach the database: it stops before its lease expires
	b := start(store, "watcher/devnet")
	defer b.stop()
	waitFor(t, "a stopped", func() bool { return !a.running.Load() })
	waitFor(t, "b running", b.running.Load)
	a.stop()
	if a.starts.Load() != 1 || b.starts.Load() != 1 {
		t.Fatalf("starts %d, %d", a.starts.Load(), b.starts.Load())
	}
}

// frozen is a store whose leases are taken and renewed at one instant, whatever the runners'
// clock says: a lease is never found expired.
type frozen struct {
	rampway.LeaseStore
	at time.Time
}

func (f frozen) TakeLease(ctx context.Context, name, holder string, _ time.Time, ttl time.Duration) (bool, error) {
	return f.LeaseStore.TakeLease(ctx, name, holder, f.at, ttl)
}

// failing is a store that fails once fail is set.
type failing struct {
	rampway.LeaseStore
	fail atomic.Bool
}

func (f *failing) TakeLease(ctx context.Context, name, holder string, now time.Time, ttl time.Duration) (bool, error) {
	if f.fail.Load() {
		return false, errors.New("database unreachable")
	}
	return f.LeaseStore.TakeLease(ctx, name, holder, now, ttl)
}

func (f *failing) ReleaseLease(ctx context.Context, name, holder string) error {
	if f.fail.Load() {
		return errors.New("database unreachable")
	}
	return f.LeaseStore.ReleaseLease(ctx, name, holder)
}

// Solo runs the worker at once and says it holds the lease while it runs.
func TestSolo(t *testing.T) {
	r := lease.Solo(slog.New(slog.DiscardHandler))
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.Run(ctx, "watcher/devnet", func(ctx context.Context) { close(started); <-ctx.Done() })
	}()
	<-started
	if !r.Held("watcher/devnet") {
		t.Fatal("a solo worker's lease is not held")
	}
	cancel()
	<-done
	if r.Held("watcher/devnet") {
		t.Fatal("held after its worker stopped")
	}
}
