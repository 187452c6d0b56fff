package fiatwork_test

import (
	"context"
	"errors"
	"log/slog"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/fiatwork"
	"github.com/rampway/rampway/internal/devtest"
)

// holder is a provider whose records of each payment say what it holds (nil: it does not say),
// or that cannot be asked.
type holder struct {
	provider
	mu      sync.Mutex
	held    map[string]*big.Int
	failing bool
	asked   int
}

func (h *holder) Payment(_ context.Context, ref string) (*rampway.ProviderPayment, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.asked++
	if h.failing {
		return nil, errors.New("provider unavailable")
	}
	return &rampway.ProviderPayment{Ref: ref, Status: rampway.FiatSucceeded, Held: h.held[ref]}, nil
}

func (h *holder) set(ref string, v *big.Int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.held[ref] = v
}

// The fiat side of the ledger against a provider's records, on a real store: a payment with
// its capture under way waits; once captured it agrees; the provider holding less (a refund
// made behind rampway's back) is a drift once it has stood for the grace, and not before;
// agreeing again clears it; a provider that does not say, or cannot be asked, is no drift.
func TestFiatReconciler(t *testing.T) {
	s := openStore(t)
	ctx := t.Context()
	a := mustCapture(t, s)
	ps, err := s.FiatPayments(ctx, a.OrderID)
	if err != nil || len(ps) != 1 {
		t.Fatal(ps, err)
	}
	ref, account := ps[0].ProviderRef, rampway.ProviderPaymentAccount("sandbox", "EUR", a.PaymentID)
	h := &holder{provider: provider{name: "sandbox"}, held: map[string]*big.Int{ref: big.NewInt(2500)}}
	clk := devtest.NewClock(t0.Add(time.Minute))
	r := fiatwork.NewReconciler(s, map[string]rampway.FiatProvider{"sandbox": h}, fiatwork.ReconcilerConfig{Grace: 10 * time.Minute},
		slog.New(slog.DiscardHandler), clk.Now)
	round := func() *rampway.Reconciliation {
		t.Helper()
		rec, err := r.Reconcile(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return rec
	}
	drifts := func() []rampway.LedgerDrift {
		t.Helper()
		ds, err := s.LedgerDrifts(ctx, rampway.LedgerFiat)
		if err != nil {
			t.Fatal(err)
		}
		return ds
	}

	// The capture is pending: the provider may have done it already; not compared.
	if rec := round(); len(rec.Checked) != 0 || len(rec.Skipped) != 1 || rec.Skipped[0] != account || h.asked != 0 {
		t.Fatalf("a payment with an action under way: %+v (asked %d)", rec, h.asked)
	}
	as, _ := s.ClaimFiatActions(ctx, clk.Now(), time.Minute, 10)
	if len(as) != 1 {
		t.Fatalf("claimed %+v", as)
	}
	if err := s.FinishFiatAction(ctx, as[0].ID, rampway.ActionDone, "cap_1", "", clk.Now(), clk.Now()); err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Minute)
	if rec := round(); len(rec.Checked) != 1 || len(rec.Drifts()) != 0 || rec.Checked[0].Ledger.Int64() != 2500 || len(drifts()) != 0 {
		t.Fatalf("captured, the provider agreeing: %+v", rec)
	}

	// 5.00 refunded at the provider, not through rampway.
	h.set(ref, big.NewInt(2000))
	clk.Advance(time.Minute)
	if rec := round(); len(rec.Checked) != 0 || len(drifts()) != 0 {
		t.Fatalf("a new difference became a drift before its grace: %+v", rec)
	}
	clk.Advance(9 * time.Minute)
	if round(); len(drifts()) != 0 {
		t.Fatal("a drift before the grace had passed")
	}
	clk.Advance(time.Minute)
	round()
	ds := drifts()
	if len(ds) != 1 || ds[0].Account != account || ds[0].Asset != "fiat/EUR" || ds[0].Ledger.Int64() != 2500 || ds[0].Chain.Int64() != 2000 || ds[0].Diff().Int64() != -500 {
		t.Fatalf("drifts %+v", ds)
	}
	// Standing: the provider not answering, or not saying, changes nothing.
	h.failing = true
	clk.Advance(time.Minute)
	if rec := round(); len(rec.Skipped) != 1 || len(drifts()) != 1 {
		t.Fatalf("the provider down: %+v", rec)
	}
	h.failing = false
	h.set(ref, nil)
	clk.Advance(time.Minute)
	if rec := round(); len(rec.Skipped) != 1 || len(drifts()) != 1 {
		t.Fatalf("the provider not saying: %+v", rec)
	}
	// The provider's records agree again (the refund undone): the drift is gone.
	h.set(ref, big.NewInt(2500))
	clk.Advance(time.Minute)
	if round(); len(drifts()) != 0 {
		t.Fatalf("drifts after agreeing again: %+v", drifts())
	}

	// With no grace (a check after everything quiesced), a difference is a drift at once.
	now := fiatwork.NewReconciler(s, map[string]rampway.FiatProvider{"sandbox": h}, fiatwork.ReconcilerConfig{Grace: -1}, slog.New(slog.DiscardHandler), clk.Now)
	h.set(ref, big.NewInt(2600))
	if _, err := now.Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	if ds := drifts(); len(ds) != 1 || ds[0].Diff().Int64() != 100 {
		t.Fatalf("drifts with no grace: %+v", ds)
	}
}
