// Package fiatwork moves fiat money as orders' causes asked: the captures, voids and refunds
// recorded with an order's transitions (rampway.FiatAction) are asked of the payment provider,
// each under its own id as the idempotency key, until the provider has done it. A crash between
// the provider's answer and our record of it repeats the call, which the provider answers
// without moving money twice.
package fiatwork

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/internal/loop"
)

// Store is what the worker keeps its work in.
type Store interface {
	ClaimFiatActions(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]*rampway.FiatAction, error)
	FinishFiatAction(ctx context.Context, id string, done bool, providerRef, lastErr string, next, at time.Time) error
	FiatPayments(ctx context.Context, orderID string) ([]*rampway.FiatPayment, error)
}

// Worker does the fiat actions of one provider.
type Worker struct {
	store    Store
	provider rampway.FiatProvider
	log      *slog.Logger
	now      func() time.Time
}

// New returns a worker. now is the clock (time.Now when nil).
func New(store Store, provider rampway.FiatProvider, log *slog.Logger, now func() time.Time) *Worker {
	if now == nil {
		now = time.Now
	}
	return &Worker{store: store, provider: provider, log: log, now: now}
}

// lease is how long a claimed action is ours: longer than a provider call takes.
const lease = time.Minute

// Backoff is the wait before the attempt after n failed ones: 5 s doubling, at most 10 minutes.
func Backoff(n int) time.Duration {
	d := 5 * time.Second
	for i := 0; i < n && d < 10*time.Minute; i++ {
		d *= 2
	}
	return min(d, 10*time.Minute)
}

// Step does the due actions once; it returns how many it did.
func (w *Worker) Step(ctx context.Context) (int, error) {
	now := w.now().UTC().Truncate(time.Microsecond)
	as, err := w.store.ClaimFiatActions(ctx, now, lease, 50)
	if err != nil {
		return 0, err
	}
	done := 0
	for _, a := range as {
		ref, err := w.do(ctx, a)
		at := w.now().UTC().Truncate(time.Microsecond)
		if err != nil {
			w.log.Warn("fiat action failed", "action", a.ID, "kind", a.Kind, "order_id", a.OrderID, "attempt", a.Attempts+1, "error", err)
			if ferr := w.store.FinishFiatAction(ctx, a.ID, false, "", err.Error(), at.Add(Backoff(a.Attempts)), at); ferr != nil {
				return done, ferr
			}
			continue
		}
		if err := w.store.FinishFiatAction(ctx, a.ID, true, ref, "", at, at); err != nil {
			return done, err
		}
		w.log.Info("fiat action done", "action", a.ID, "kind", a.Kind, "order_id", a.OrderID)
		done++
	}
	return done, nil
}

func (w *Worker) do(ctx context.Context, a *rampway.FiatAction) (string, error) {
	ps, err := w.store.FiatPayments(ctx, a.OrderID)
	if err != nil {
		return "", err
	}
	ref := ""
	for _, p := range ps {
		if p.ID == a.PaymentID {
			ref = p.ProviderRef
		}
	}
	if ref == "" {
		return "", fmt.Errorf("payment %s has no provider reference", a.PaymentID)
	}
	switch a.Kind {
	case rampway.ActionCapture:
		return "", w.provider.Capture(ctx, ref, a.Amount, a.ID)
	case rampway.ActionVoid:
		return "", w.provider.Void(ctx, ref, a.ID)
	case rampway.ActionRefund:
		return w.provider.Refund(ctx, ref, a.Amount, a.ID)
	}
	return "", fmt.Errorf("unknown fiat action %q", a.Kind)
}

// Run steps every interval until ctx ends.
func (w *Worker) Run(ctx context.Context, interval time.Duration) {
	loop.Every(ctx, interval, w.log, "fiat actions", func(ctx context.Context) error {
		_, err := w.Step(ctx)
		return err
	})
}
