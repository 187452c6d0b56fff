// Package lease runs a worker on one instance at a time. Several `rampway serve` processes
// share one database; a chain worker that follows a network (its watcher, executor, sweeper)
// reads every block and receipt of it, so each one runs only on the instance holding its lease
// (rampway.LeaseStore). The holder renews it while it runs; a holder killed stops renewing and
// another instance takes the lease once it expires, at most TTL later.
//
// A lease only saves work: every write a worker makes is exactly once by itself (claimed rows,
// transitions checked in the database), so two holders for a moment (a holder paused past its
// lease) do nothing twice.
package lease

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/rampway/rampway"
)

// Defaults: a lease lasts TTL and is renewed every Renew; a holder that could not renew for
// TTL-Renew stops its worker before the lease may pass to another instance.
const (
	TTL   = 5 * time.Second
	Renew = time.Second
)

// Holder names this process as a lease holder: host, pid and a random part (a restarted
// process with the same pid is another holder).
func Holder() string {
	host, _ := os.Hostname()
	var b [4]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s/%d/%s", host, os.Getpid(), hex.EncodeToString(b[:]))
}

// Runner runs workers under leases for one holder.
type Runner struct {
	store  rampway.LeaseStore
	holder string
	log    *slog.Logger
	ttl    time.Duration
	renew  time.Duration
	now    func() time.Time

	mu   sync.Mutex
	held map[string]bool
}

// Config tunes a Runner's leases.
type Config struct {
	// TTL is how long a lease lasts once taken or renewed; default TTL.
	TTL time.Duration
	// Renew is how often the holder renews it; default Renew.
	Renew time.Duration
}

// New returns a Runner for holder.
func New(cfg Config, store rampway.LeaseStore, holder string, log *slog.Logger) *Runner {
	if cfg.TTL <= 0 {
		cfg.TTL = TTL
	}
	if cfg.Renew <= 0 {
		cfg.Renew = Renew
	}
	return &Runner{store: store, holder: holder, log: log, ttl: cfg.TTL, renew: cfg.Renew, now: time.Now, held: map[string]bool{}}
}

// Solo returns a Runner that runs every worker at once, without a lease: for a store only one
// process uses (SQLite), where a lease would only make a restarted process wait for the one
// its previous run left behind.
func Solo(log *slog.Logger) *Runner {
	return &Runner{log: log, held: map[string]bool{}}
}

// Held reports whether this runner holds the lease name now (for metrics and /readyz).
func (r *Runner) Held(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.held[name]
}

// Leases reports every lease this runner runs a worker under, and whether it holds it now.
func (r *Runner) Leases() map[string]bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]bool, len(r.held))
	for k, v := range r.held {
		out[k] = v
	}
	return out
}

func (r *Runner) setHeld(name string, v bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.held[name] = v
}

// Run runs work while this runner holds the lease name, until ctx ends: it asks for the lease
// every renewal period, starts work with a context of its own once it has it, and ends that
// context (and waits for work to return) when the lease is lost or cannot be renewed in time.
// When ctx ends it stops work and releases the lease, so that another instance takes over at
// once.
func (r *Runner) Run(ctx context.Context, name string, work func(context.Context)) {
	if r.store == nil { // Solo
		r.setHeld(name, true)
		work(ctx)
		r.setHeld(name, false)
		return
	}
	log := r.log.With("lease", name)
	r.setHeld(name, false)
	var (
		stop    context.CancelFunc
		done    chan struct{}
		renewed time.Time
	)
	end := func(why string) {
		if stop == nil {
			return
		}
		stop()
		<-done
		stop, done = nil, nil
		r.setHeld(name, false)
		log.Info("worker stopped: lease "+why, "holder", r.holder)
	}
	t := time.NewTicker(r.renew)
	defer t.Stop()
	for {
		now := r.now()
		ok, err := r.store.TakeLease(ctx, name, r.holder, now, r.ttl)
		switch {
		case ctx.Err() != nil:
		case err != nil:
			log.Warn("lease not renewed", "error", err)
			// Still ours until renewed+ttl: stop in time for another instance to take over.
			if stop != nil && r.now().Sub(renewed) >= r.ttl-r.renew {
				end("not renewed in time")
			}
		case ok:
			renewed = now
			if stop == nil {
				wctx, cancel := context.WithCancel(ctx)
				stop, done = cancel, make(chan struct{})
				go func() { defer close(done); work(wctx) }()
				r.setHeld(name, true)
				log.Info("worker started: lease taken", "holder", r.holder)
			}
		default:
			end("held by another instance")
		}
		select {
		case <-ctx.Done():
			end("released at shutdown")
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			if err := r.store.ReleaseLease(rctx, name, r.holder); err != nil {
				log.Warn("lease not released: another instance takes it when it expires", "error", err)
			}
			cancel()
			return
		case <-t.C:
		}
	}
}
