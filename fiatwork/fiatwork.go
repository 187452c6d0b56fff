// Package fiatwork moves fiat money as orders' causes asked: the captures, voids and refunds
// recorded with an order's transitions (rampway.FiatAction) are asked of the payment provider,
// each under its own id as the idempotency key, until the provider has done it. A crash between
// the provider's answer and our record of it repeats the call, which the provider answers
// without moving money twice. One the provider keeps refusing is given up on after
// Config.GiveUpAfter: it needs an operator (rampway.ActionNeedsOperator), who retries it or
// resolves it by hand.
package fiatwork

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/internal/loop"
)

// Store is what the worker keeps its work in.
type Store interface {
	ClaimFiatActions(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]*rampway.FiatAction, error)
	FinishFiatAction(ctx context.Context, id string, status rampway.FiatActionStatus, providerRef, lastErr string, next, at time.Time) error
	FiatPayments(ctx context.Context, orderID string) ([]*rampway.FiatPayment, error)
	Order(ctx context.Context, id string) (*rampway.Order, error)
}

// Worker does the fiat actions, each with the provider of its payment.
type Worker struct {
	store     Store
	providers map[string]rampway.FiatProvider
	cfg       Config
	log       *slog.Logger
	now       func() time.Time
	wake      chan struct{}
}

// Config tunes a Worker.
type Config struct {
	// GiveUpAfter is how long an action is tried (from its creation, or an operator's retry)
	// before it needs an operator; default DefaultGiveUpAfter.
	GiveUpAfter time.Duration
}

// DefaultGiveUpAfter is how long an action is tried by default: a day of provider outage or
// refusals is an operator's business.
const DefaultGiveUpAfter = 24 * time.Hour

// New returns a worker over the providers by name. now is the clock (time.Now when nil).
func New(store Store, providers map[string]rampway.FiatProvider, cfg Config, log *slog.Logger, now func() time.Time) *Worker {
	if now == nil {
		now = time.Now
	}
	if cfg.GiveUpAfter <= 0 {
		cfg.GiveUpAfter = DefaultGiveUpAfter
	}
	return &Worker{store: store, providers: providers, cfg: cfg, log: log, now: now, wake: make(chan struct{}, 1)}
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
			status, next := rampway.ActionPending, at.Add(Backoff(a.Attempts))
			since := a.RetryFrom
			givenUp := errors.Is(err, rampway.ErrProviderRefused) || !since.IsZero() && at.Sub(since) >= w.cfg.GiveUpAfter
			switch {
			case givenUp && rampway.MerchantRefundOfAction(a) != "":
				// A merchant's refund fails, and its merchant hears of it: nothing moved, and the
				// merchant may ask for another.
				status = rampway.ActionFailed
				w.log.Warn("merchant refund failed: the provider refused it for good, or past the give-up time", "action", a.ID, "refund", rampway.MerchantRefundOfAction(a),
					"order_id", a.OrderID, "attempts", a.Attempts+1, "error", err)
			case givenUp:
				status = rampway.ActionNeedsOperator
				w.log.Error("fiat action needs an operator: the provider kept refusing it", "action", a.ID, "kind", a.Kind, "order_id", a.OrderID,
					"attempts", a.Attempts+1, "since", since, "error", err,
					"next", "rampway admin fiat-actions retry "+a.ID+" (or resolve it, once done by hand at the provider)")
			default:
				w.log.Warn("fiat action failed", "action", a.ID, "kind", a.Kind, "order_id", a.OrderID, "attempt", a.Attempts+1, "error", err)
			}
			if ferr := w.store.FinishFiatAction(ctx, a.ID, status, "", err.Error(), next, at); ferr != nil {
				return done, ferr
			}
			continue
		}
		if err := w.store.FinishFiatAction(ctx, a.ID, rampway.ActionDone, ref, "", at, at); err != nil {
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
	var pay *rampway.FiatPayment
	for _, p := range ps {
		if p.ID == a.PaymentID {
			pay = p
		}
	}
	if pay == nil || pay.ProviderRef == "" {
		return "", fmt.Errorf("payment %s has no provider reference", a.PaymentID)
	}
	// The payment's own provider, whichever new payments start with now; and only of its
	// order's mode: money is never moved across modes, whatever a row says.
	prov := w.providers[pay.Provider]
	if prov == nil {
		return "", fmt.Errorf("payment %s: its provider %s is not configured", pay.ID, pay.Provider)
	}
	o, err := w.store.Order(ctx, a.OrderID)
	if err != nil {
		return "", err
	}
	if err := rampway.ModeMatches("payment provider "+prov.Name(), o.Livemode, prov.Livemode()); err != nil {
		return "", fmt.Errorf("%s of payment %s refused: %w", a.Kind, pay.ID, err)
	}
	ref := pay.ProviderRef
	switch a.Kind {
	case rampway.ActionCapture:
		return "", prov.Capture(ctx, ref, a.Amount, a.ID)
	case rampway.ActionVoid:
		return "", prov.Void(ctx, ref, a.ID)
	case rampway.ActionRefund:
		return prov.Refund(ctx, ref, a.Amount, a.ID)
	}
	return "", fmt.Errorf("unknown fiat action %q", a.Kind)
}

// Wake has Run step at once: an order's cause asked for an action.
func (w *Worker) Wake() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Run steps every interval, or when woken, until ctx ends.
func (w *Worker) Run(ctx context.Context, interval time.Duration) {
	loop.EveryOrWoken(ctx, interval, w.wake, w.log, "fiat actions", func(ctx context.Context) error {
		_, err := w.Step(ctx)
		return err
	})
}
