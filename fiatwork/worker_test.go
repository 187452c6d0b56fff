package fiatwork_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/fiatwork"
	"github.com/rampway/rampway/internal/devtest"
	"github.com/rampway/rampway/internal/sqlstore"
	"github.com/rampway/rampway/sqlite"
)

// The worker against a real store (SQLite): claims and leases, backoff, giving up, an
// operator's retry, and a crash between the provider's answer and the record of it. The clock
// is the test's: nothing here waits for wall-clock time to pass.

// bank is a provider that moves money as a real one does: once per idempotency key. An action
// asked again under a key it has done answers as the first time and moves nothing more. It
// refuses while refusals is above zero (counting down), and counts the money it moved.
type bank struct {
	provider
	mu       sync.Mutex
	refusals int
	asked    map[string]int    // idempotency key: times asked
	done     map[string]string // idempotency key: the movement's ref
	moved    int64             // minor units captured or refunded, once per key
}

func newBank(refusals int) *bank {
	return &bank{provider: provider{name: "sandbox"}, refusals: refusals, asked: map[string]int{}, done: map[string]string{}}
}

func (b *bank) move(key string, amount *big.Int) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.asked[key]++
	if b.refusals > 0 {
		b.refusals--
		return "", errors.New("provider unavailable")
	}
	if ref, ok := b.done[key]; ok {
		return ref, nil
	}
	b.done[key] = fmt.Sprintf("mv_%d", len(b.done)+1)
	b.moved += amount.Int64()
	return b.done[key], nil
}

func (b *bank) Capture(_ context.Context, _ string, amount *big.Int, key string) error {
	_, err := b.move(key, amount)
	return err
}

func (b *bank) Refund(_ context.Context, _ string, amount *big.Int, key string) (string, error) {
	return b.move(key, amount)
}

func (b *bank) Void(_ context.Context, _ string, key string) error {
	_, err := b.move(key, new(big.Int))
	return err
}

func (b *bank) askedOf(key string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.asked[key]
}

var t0 = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

func openStore(t *testing.T) *sqlstore.Store {
	t.Helper()
	s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "f.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// mustOrder stores an area B order of 25.00 EUR paid by method through the sandbox, started at
// t0, and returns it with its payment's provider reference.
func mustOrder(t *testing.T, s *sqlstore.Store, method string) (*rampway.Order, string) {
	t.Helper()
	ctx := t.Context()
	m := &rampway.Merchant{ID: rampway.NewID(rampway.PrefixMerchant, t0), Name: "m", Status: rampway.MerchantActive,
		WebhookURL: "https://shop.example/hooks", CreatedAt: t0, UpdatedAt: t0}
	if err := s.CreateMerchant(ctx, m); err != nil {
		t.Fatal(err)
	}
	o := &rampway.Order{ID: rampway.NewID(rampway.PrefixOrder, t0), MerchantID: m.ID, Area: rampway.AreaNFTRamp, Status: rampway.StatusCreated,
		MerchantUserID: "u", MerchantTxnID: "txn", MerchantRedirectURL: "https://shop.example/done", Network: "devnet",
		Asset: rampway.Asset{Symbol: "ETH", Network: "devnet", Decimals: 18}, CryptoAmount: big.NewInt(1e16), CryptoReceived: new(big.Int),
		FunctionID: "scf_x", FunctionArgs: json.RawMessage(`{}`), PaymentValue: new(big.Int), NetworkFee: new(big.Int), ServiceFee: new(big.Int),
		FiatSymbol: "EUR", FiatMethod: method, FiatAmount: big.NewInt(2500), FiatDecimals: 2,
		ExpiresAt: t0.Add(time.Hour), CreatedAt: t0, UpdatedAt: t0}
	if err := s.CreateOrder(ctx, o); err != nil {
		t.Fatal(err)
	}
	p := &rampway.FiatPayment{ID: rampway.NewID(rampway.PrefixFiatPayment, t0), OrderID: o.ID, Provider: "sandbox", Method: method,
		Currency: "EUR", Amount: big.NewInt(2500), Received: new(big.Int), Decimals: 2, Status: rampway.FiatPending, CreatedAt: t0, UpdatedAt: t0}
	if err := s.CreateFiatPayment(ctx, p); err != nil {
		t.Fatal(err)
	}
	ref := "pi_" + o.ID
	if err := s.SetFiatPaymentStarted(ctx, p.ID, &rampway.ProviderPayment{Ref: ref}, t0); err != nil {
		t.Fatal(err)
	}
	return o, ref
}

// onlyAction returns the order's one fiat action, which must be a pending one of kind made at t0.
func onlyAction(t *testing.T, s *sqlstore.Store, orderID string, kind rampway.FiatActionKind) *rampway.FiatAction {
	t.Helper()
	as, err := s.FiatActions(t.Context(), orderID)
	if err != nil || len(as) != 1 || as[0].Kind != kind || as[0].Status != rampway.ActionPending || !as[0].NextAttemptAt.Equal(t0) {
		t.Fatalf("the order's actions: %+v, %v; want one pending %s", as, err, kind)
	}
	return as[0]
}

// mustCapture stores a card order authorised and executed at t0: its capture of 25.00 EUR is
// the one fiat action due, made at t0.
func mustCapture(t *testing.T, s *sqlstore.Store) *rampway.FiatAction {
	t.Helper()
	o, ref := mustOrder(t, s, rampway.MethodCard)
	if _, err := s.ApplyProviderEvent(t.Context(), "sandbox", &rampway.ProviderEvent{ID: "ev_" + o.ID, Type: rampway.ProviderPaymentAuthorized,
		PaymentRef: ref, Status: rampway.FiatAuthorized}, t0); err != nil {
		t.Fatal(err)
	}
	for _, c := range []rampway.Cause{rampway.ExecutionStarted{TxHash: common.HexToHash("0x1")}, rampway.ExecutionMined{TxHash: common.HexToHash("0x1")}} {
		if _, err := s.Apply(t.Context(), o.ID, c, t0); err != nil {
			t.Fatal(err)
		}
	}
	return onlyAction(t, s, o.ID, rampway.ActionCapture)
}

// mustRefund stores a bank transfer order credited 5.00 EUR of its 25.00 at t0: the refund of
// that short credit is the one fiat action due, made at t0.
func mustRefund(t *testing.T, s *sqlstore.Store) *rampway.FiatAction {
	t.Helper()
	o, ref := mustOrder(t, s, rampway.MethodSEPABankTransfer)
	if _, err := s.ApplyProviderEvent(t.Context(), "sandbox", &rampway.ProviderEvent{ID: "ev_" + o.ID, Type: rampway.ProviderPaymentCredited,
		PaymentRef: ref, Status: rampway.FiatSucceeded, Credit: "c_" + o.ID, Amount: big.NewInt(500)}, t0); err != nil {
		t.Fatal(err)
	}
	a := onlyAction(t, s, o.ID, rampway.ActionRefund)
	if a.Amount.Int64() != 500 {
		t.Fatalf("refund of %s, want 500", a.Amount)
	}
	return a
}

// action reads a's stored state.
func action(t *testing.T, s *sqlstore.Store, a *rampway.FiatAction) *rampway.FiatAction {
	t.Helper()
	as, err := s.FiatActions(t.Context(), a.OrderID)
	if err != nil {
		t.Fatal(err)
	}
	for _, got := range as {
		if got.ID == a.ID {
			return got
		}
	}
	t.Fatalf("action %s is gone", a.ID)
	return nil
}

func newWorker(s fiatwork.Store, b *bank, clk *devtest.Clock, giveUp time.Duration) *fiatwork.Worker {
	return fiatwork.New(s, map[string]rampway.FiatProvider{"sandbox": b}, fiatwork.Config{GiveUpAfter: giveUp}, slog.New(slog.DiscardHandler), clk.Now)
}

func step(t *testing.T, w *fiatwork.Worker) int {
	t.Helper()
	n, err := w.Step(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// The wait before each attempt after a failed one: 5 s doubling, capped at 10 minutes.
func TestBackoff(t *testing.T) {
	for n, want := range []time.Duration{5 * time.Second, 10 * time.Second, 20 * time.Second, 40 * time.Second, 80 * time.Second,
		160 * time.Second, 320 * time.Second, 10 * time.Minute, 10 * time.Minute} {
		if got := fiatwork.Backoff(n); got != want {
			t.Errorf("Backoff(%d) = %s, want %s", n, got, want)
		}
	}
	if got := fiatwork.Backoff(1000); got != 10*time.Minute {
		t.Errorf("Backoff(1000) = %s, want the cap of 10m", got)
	}
}

// A refused action is tried again only once its backoff has passed: not a moment before (the
// store does not hand it out), and then with the same idempotency key; once the provider does
// it, it is done with the provider's ref and never asked again.
func TestRetriesWithBackoffUntilDone(t *testing.T) {
	t.Parallel()
	s := openStore(t)
	a := mustCapture(t, s)
	b := newBank(3)
	clk := devtest.NewClock(t0)
	w := newWorker(s, b, clk, time.Hour)

	at := t0
	for i, wait := range []time.Duration{5 * time.Second, 10 * time.Second, 20 * time.Second} {
		if n := step(t, w); n != 0 {
			t.Fatalf("attempt %d: %d done while the provider refuses", i+1, n)
		}
		got := action(t, s, a)
		if got.Status != rampway.ActionPending || got.Attempts != i+1 || got.LastError != "provider unavailable" || !got.NextAttemptAt.Equal(at.Add(wait)) {
			t.Fatalf("after attempt %d at %s: %+v, want pending, due at %s", i+1, at, got, at.Add(wait))
		}
		clk.Set(at.Add(wait - time.Microsecond))
		step(t, w)
		if n := b.askedOf(a.ID); n != i+1 {
			t.Fatalf("asked %d times before the backoff of attempt %d ended, want %d", n, i+1, i+1)
		}
		at = at.Add(wait)
		clk.Set(at)
	}
	if n := step(t, w); n != 1 {
		t.Fatalf("the fourth attempt: %d done, want 1", n)
	}
	got := action(t, s, a)
	if got.Status != rampway.ActionDone || got.ProviderRef != "" || got.Attempts != 4 || got.LastError != "" {
		t.Fatalf("done: %+v", got)
	}
	clk.Set(t0.Add(24 * time.Hour))
	if n := step(t, w); n != 0 || b.askedOf(a.ID) != 4 || b.moved != 2500 {
		t.Fatalf("after done: %d done, asked %d times, moved %d; want nothing more, 4, 2500", n, b.askedOf(a.ID), b.moved)
	}
}

// An action still refused GiveUpAfter after it was made needs an operator: it is no longer
// tried, whatever the time. An operator's retry makes it pending with its give-up clock started
// again, so it is tried at once and not given up on at its first refusal.
func TestGivesUpThenOperatorRetries(t *testing.T) {
	t.Parallel()
	s := openStore(t)
	a := mustCapture(t, s)
	b := newBank(1000)
	clk := devtest.NewClock(t0)
	w := newWorker(s, b, clk, time.Hour)

	// Tried at each due time, until an hour after it was made.
	for step(t, w) == 0 {
		got := action(t, s, a)
		if got.Status != rampway.ActionPending {
			break
		}
		if got.NextAttemptAt.Sub(t0) > 2*time.Hour {
			t.Fatalf("still pending, due at %s: never given up on", got.NextAttemptAt)
		}
		clk.Set(got.NextAttemptAt)
	}
	got := action(t, s, a)
	if got.Status != rampway.ActionNeedsOperator || got.LastError != "provider unavailable" || clk.Now().Sub(t0) < time.Hour {
		t.Fatalf("at %s: %+v, want needs_operator once an hour has passed", clk.Now(), got)
	}
	asked := b.askedOf(a.ID)
	if asked < 2 {
		t.Fatalf("asked %d times in an hour", asked)
	}
	clk.Set(t0.Add(48 * time.Hour))
	if step(t, w); b.askedOf(a.ID) != asked {
		t.Fatal("an action that needs an operator was tried again without one")
	}

	// The operator retries; the provider is back.
	retried := t0.Add(48 * time.Hour)
	if _, err := s.RetryFiatAction(t.Context(), a.ID, retried); err != nil {
		t.Fatal(err)
	}
	b.mu.Lock()
	b.refusals = 1
	b.mu.Unlock()
	if n := step(t, w); n != 0 {
		t.Fatalf("%d done while refused once more", n)
	}
	if got := action(t, s, a); got.Status != rampway.ActionPending || !got.RetryFrom.Equal(retried) {
		t.Fatalf("after a refusal following the operator's retry: %+v, want pending (its give-up clock from %s)", got, retried)
	}
	clk.Set(action(t, s, a).NextAttemptAt)
	if n := step(t, w); n != 1 {
		t.Fatalf("%d done after the retry", n)
	}
	if got := action(t, s, a); got.Status != rampway.ActionDone || b.moved != 2500 {
		t.Fatalf("after the retry: %+v, moved %d", got, b.moved)
	}
}

// Workers of several processes stepping at once on one store ask the provider for each action
// once: a claimed action is leased to its worker.
func TestEachActionAskedOnceByConcurrentWorkers(t *testing.T) {
	t.Parallel()
	s := openStore(t)
	var actions []*rampway.FiatAction
	for range 6 {
		actions = append(actions, mustCapture(t, s))
	}
	b := newBank(0)
	clk := devtest.NewClock(t0)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 4 {
		w := newWorker(s, b, clk, time.Hour)
		wg.Go(func() {
			_, err := w.Step(context.Background())
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, a := range actions {
		if n := b.askedOf(a.ID); n != 1 {
			t.Fatalf("action %s asked %d times", a.ID, n)
		}
		if got := action(t, s, a); got.Status != rampway.ActionDone {
			t.Fatalf("action %s: %+v", a.ID, got)
		}
	}
	if b.moved != 6*2500 {
		t.Fatalf("moved %d, want %d", b.moved, 6*2500)
	}
}

// crashingStore is a store whose process dies (the record fails) right after the provider has
// done the action: the provider moved the money, our books do not say so.
type crashingStore struct {
	*sqlstore.Store
	crashed bool
}

var errCrash = errors.New("killed before the record")

func (c *crashingStore) FinishFiatAction(ctx context.Context, id string, status rampway.FiatActionStatus, ref, lastErr string, next, at time.Time) error {
	if !c.crashed {
		c.crashed = true
		return errCrash
	}
	return c.Store.FinishFiatAction(ctx, id, status, ref, lastErr, next, at)
}

// A crash between the provider's answer and our record of it leaves the action leased: no
// other worker takes it until the lease runs out, then one asks the provider again under the
// same key, which answers as the first time without moving the money twice, and the action is
// done with the first movement's ref.
func TestCrashBetweenProviderAndRecord(t *testing.T) {
	t.Parallel()
	s := openStore(t)
	a := mustRefund(t, s)
	b := newBank(0)
	clk := devtest.NewClock(t0)
	if _, err := newWorker(&crashingStore{Store: s}, b, clk, time.Hour).Step(t.Context()); !errors.Is(err, errCrash) {
		t.Fatalf("the dying worker's step: %v", err)
	}
	if b.askedOf(a.ID) != 1 || b.moved != 500 {
		t.Fatalf("before the crash: asked %d times, moved %d", b.askedOf(a.ID), b.moved)
	}
	if got := action(t, s, a); got.Status != rampway.ActionPending || got.Attempts != 0 {
		t.Fatalf("after the crash: %+v, want pending with no attempt recorded", got)
	}

	// The restarted process: within the lease, nothing; after it, the same key again.
	w := newWorker(s, b, clk, time.Hour)
	clk.Set(t0.Add(59 * time.Second))
	if n := step(t, w); n != 0 || b.askedOf(a.ID) != 1 {
		t.Fatalf("within the dead worker's lease: %d done, asked %d times", n, b.askedOf(a.ID))
	}
	clk.Set(t0.Add(61 * time.Second))
	if n := step(t, w); n != 1 || b.askedOf(a.ID) != 2 {
		t.Fatalf("after the lease: %d done, asked %d times; want 1 and 2", n, b.askedOf(a.ID))
	}
	if got := action(t, s, a); got.Status != rampway.ActionDone || got.ProviderRef != "mv_1" {
		t.Fatalf("after the repeat: %+v, want done with the first movement's ref", got)
	}
	if b.moved != 500 {
		t.Fatalf("moved %d, want 500 once", b.moved)
	}
}

// Run steps when woken (a cause asked for an action), not only at its interval: with an
// interval of an hour, a capture made after Run's first step is done once Wake is called.
func TestWakeStepsAtOnce(t *testing.T) {
	t.Parallel()
	s := openStore(t)
	b := newBank(0)
	clk := devtest.NewClock(t0)
	claims := &claimCounter{Store: s}
	w := newWorker(claims, b, clk, time.Hour)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { defer close(done); w.Run(ctx, time.Hour) }()
	t.Cleanup(func() { cancel(); <-done })
	for deadline := time.Now().Add(30 * time.Second); claims.n.Load() == 0; time.Sleep(time.Millisecond) { // Run's first step has looked, and found nothing
		if time.Now().After(deadline) {
			t.Fatal("Run made no first step in half a minute")
		}
	}
	a := mustCapture(t, s)
	for deadline := time.Now().Add(30 * time.Second); action(t, s, a).Status != rampway.ActionDone; time.Sleep(10 * time.Millisecond) {
		w.Wake()
		if time.Now().After(deadline) {
			t.Fatalf("capture still %s half a minute after Wake", action(t, s, a).Status)
		}
	}
	if n := b.askedOf(a.ID); n != 1 {
		t.Fatalf("asked %d times", n)
	}
}

// claimCounter counts the worker's looks for due actions.
type claimCounter struct {
	*sqlstore.Store
	n atomic.Int32
}

func (c *claimCounter) ClaimFiatActions(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]*rampway.FiatAction, error) {
	defer c.n.Add(1)
	return c.Store.ClaimFiatActions(ctx, now, lease, limit)
}
