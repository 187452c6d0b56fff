package webhook_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/internal/devtest"
	"github.com/rampway/rampway/internal/pgtest"
	"github.com/rampway/rampway/internal/sqlstore"
	"github.com/rampway/rampway/merchant"
	"github.com/rampway/rampway/storetest"
	"github.com/rampway/rampway/webhook"
)

// A disabled merchant's deliveries are held. While it is disabled its orders' events keep
// being written and nothing is sent to its endpoint, however long (days past the retry period,
// on the dispatcher's clock), and nothing is failed; a resend is refused. Enabled again, every
// event goes out at once, oldest first, each order's in order, and the backoff starts over: a
// delivery that had failed three times before is retried after the first wait, not the
// fourth, and is not failed though its event is older than the retry period. On SQLite and
// PostgreSQL, through merchant.Service (the admin API's) on both ends.
func TestDisabledMerchantDeliveriesHeld(t *testing.T) {
	t.Parallel()
	for _, db := range []string{"sqlite", "postgres"} {
		t.Run(db, func(t *testing.T) {
			var store *sqlstore.Store
			switch db {
			case "sqlite":
				store = openSQLite(t, filepath.Join(t.TempDir(), "h.db"))
			case "postgres":
				store = openPostgres(t, pgtest.FreshDSN(t))
			}
			testHeld(t, &env{t: t, store: store})
		})
	}
}

func testHeld(t *testing.T, e *env) {
	ctx := t.Context()
	var (
		mu   sync.Mutex
		hits []string // event name and order, each attempt
		fail = 3      // requests answered 500 from now on
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ev struct {
			EventName string `json:"eventName"`
			Context   struct {
				OrderID string `json:"order_id"`
			} `json:"context"`
		}
		b, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(b, &ev)
		mu.Lock()
		defer mu.Unlock()
		hits = append(hits, ev.EventName+" "+ev.Context.OrderID)
		if fail > 0 {
			fail--
			w.WriteHeader(http.StatusInternalServerError)
		}
	}))
	defer srv.Close()
	attempts := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(hits)
	}

	clk := devtest.NewClock(time.Now().UTC().Add(time.Minute)) // ahead of the events (written at time.Now)
	svc := merchant.NewService(e.store, merchant.Options{HashSecret: "test-hash-secret-0123456789abcdef", DevMode: true, Now: clk.Now})
	m, err := svc.Create(ctx, merchant.CreateParams{Name: "m", WebhookURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.SetWebhookSecret(ctx, m.ID, false, "", 0); err != nil {
		t.Fatal(err)
	}
	const first = 10 * time.Second
	// One worker, one attempt of the merchant at a time: attempts go out in claim order.
	d := webhook.New(webhook.Config{Workers: 1, PerMerchant: 1, BreakAfter: 100, AllowPrivate: true, UserAgent: "rampway/test",
		Schedule: webhook.Schedule{First: first, Max: time.Hour, GiveUpAfter: 72 * time.Hour}},
		e.store, svc, slog.New(slog.DiscardHandler), clk.Now)

	// o1's order.created fails three times (its next wait would be 40 s); o2's is delivered.
	o1 := e.order(m, 0)
	settle(t, d)
	clk.Advance(first)
	settle(t, d)
	clk.Advance(2 * first)
	settle(t, d)
	o2 := e.order(m, 0)
	settle(t, d)
	created1, created2 := string(rampway.EventCreated)+" "+o1.ID, string(rampway.EventCreated)+" "+o2.ID
	if got, want := attempts(), []string{created1, created1, created1, created2}; !slices.Equal(got, want) {
		t.Fatalf("attempts before disabling: %v, want %v", got, want)
	}

	status := func(s string) *string { return &s }
	if _, err := svc.Update(ctx, m.ID, merchant.UpdateParams{Status: status("disabled")}); err != nil {
		t.Fatal(err)
	}
	// The orders go on while the merchant is disabled: their events are written, held.
	storetest.Drive(t, e.store, o1.ID, rampway.StatusDepositSuccess)
	storetest.Drive(t, e.store, o2.ID, rampway.StatusDepositProcessing)
	before := attempts()
	for range 4 { // four days: past the retry period
		clk.Advance(24 * time.Hour)
		settle(t, d)
	}
	if got := attempts(); len(got) != len(before) {
		t.Fatalf("attempts while disabled: %v", got[len(before):])
	}
	var held []*rampway.Delivery
	for _, o := range []string{o1.ID, o2.ID} {
		ds, err := e.store.Deliveries(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		for _, dl := range ds {
			if dl.Status == rampway.DeliveryPending && !dl.Held() {
				t.Fatalf("pending delivery not held while the merchant is disabled: %+v", dl)
			}
			if dl.Status == rampway.DeliveryFailed {
				t.Fatalf("delivery failed while the merchant is disabled: %+v", dl)
			}
		}
		held = append(held, ds...)
	}
	if len(held) != 5 || held[3].Status != rampway.DeliveryDelivered {
		t.Fatalf("%d deliveries, want 5 (3 of o1 held, 2 of o2: one delivered, one held)", len(held))
	}
	// A resend is refused while the merchant is disabled.
	_, err = e.store.ResendDelivery(ctx, m.ID, held[0].EventID, clk.Now())
	if rampway.ErrorCode(err) != rampway.ECONFLICT || !errors.Is(err, rampway.ErrMerchantDisabled) {
		t.Fatalf("resend while disabled: %v, want ECONFLICT (merchant disabled)", err)
	}

	// Enabled: at once, oldest first. o1's order.created fails once more and is retried after
	// the first wait (not failed: the time held does not count); o2's event goes meanwhile.
	mu.Lock()
	fail = 1
	mu.Unlock()
	if _, err := svc.Update(ctx, m.ID, merchant.UpdateParams{Status: status("active")}); err != nil {
		t.Fatal(err)
	}
	enabledAt := clk.Now().Truncate(time.Microsecond) // as stored
	settle(t, d)
	ds, err := e.store.Deliveries(ctx, o1.ID)
	if err != nil {
		t.Fatal(err)
	}
	if ds[0].Status != rampway.DeliveryPending || ds[0].Attempts != 4 || !ds[0].NextAttemptAt.Equal(enabledAt.Add(first)) {
		t.Fatalf("o1's order.created after a failure once enabled: %s, %d attempts, due %v; want pending, 4, due %v (the first wait)",
			ds[0].Status, ds[0].Attempts, ds[0].NextAttemptAt, enabledAt.Add(first))
	}
	clk.Advance(first)
	settle(t, d)
	e.waitDelivered([]string{o1.ID, o2.ID})
	var want []string
	for _, ev := range []struct {
		name  rampway.EventName
		order string
	}{
		{rampway.EventCreated, o1.ID}, // fails: due again after the first wait
		{rampway.EventDepositProcessing, o2.ID},
		{rampway.EventCreated, o1.ID},
		{rampway.EventDepositProcessing, o1.ID},
		{rampway.EventDepositSuccess, o1.ID},
	} {
		want = append(want, string(ev.name)+" "+ev.order)
	}
	if got := attempts()[len(before):]; !slices.Equal(got, want) {
		t.Fatalf("attempts after enabling:\n%v\nwant\n%v", got, want)
	}
}

// disabledSecrets is a Secrets for which the merchant was disabled after the claim.
type disabledSecrets struct{ reads atomic.Int64 }

func (s *disabledSecrets) WebhookSecrets(_ context.Context, id string, _ bool) ([]string, error) {
	s.reads.Add(1)
	return nil, &rampway.Error{Code: rampway.ECONFLICT, Err: rampway.ErrMerchantDisabled, Message: fmt.Sprintf("Merchant %s is disabled", id)}
}

// A delivery claimed just before its merchant was disabled is not attempted: nothing is sent,
// no attempt recorded, and it is given back at once.
func TestClaimedThenDisabledNotAttempted(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	defer srv.Close()
	m := e.merchant(srv.URL, "s")
	o := e.order(m, 0)
	sec := &disabledSecrets{}
	d := webhook.New(webhook.Config{Schedule: fast, AllowPrivate: true}, e.store, sec, slog.New(slog.DiscardHandler), nil)
	if n, err := d.Step(t.Context()); err != nil || n != 1 {
		t.Fatalf("step: %d, %v", n, err)
	}
	ended, cancel := context.WithCancel(t.Context())
	cancel()
	d.Run(ended) // waits for the attempt started
	if hits.Load() != 0 || sec.reads.Load() == 0 {
		t.Fatalf("%d requests, %d reads of the secrets", hits.Load(), sec.reads.Load())
	}
	ds, err := e.store.Deliveries(t.Context(), o.ID)
	if err != nil {
		t.Fatal(err)
	}
	if ds[0].Status != rampway.DeliveryPending || ds[0].Attempts != 0 {
		t.Fatalf("delivery: %+v", ds[0])
	}
	// Given back: claimable at once.
	if got, err := e.store.ClaimDeliveries(t.Context(), time.Now().UTC(), time.Minute, 10, 10, nil); err != nil || len(got) != 1 {
		t.Fatalf("claim after the release: %d, %v", len(got), err)
	}
}
