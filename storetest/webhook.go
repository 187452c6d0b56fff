package storetest

import (
	"context"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/rampway/rampway"
)

// hookedMerchant is a merchant with a webhook secret: its orders' events are deliveries.
func hookedMerchant(t *testing.T, s rampway.Store, name string) *rampway.Merchant {
	t.Helper()
	m := mustMerchant(t, s, name)
	if err := s.SetWebhookSecret(t.Context(), m.ID, false, "whsec_"+name, 0, now()); err != nil {
		t.Fatal(err)
	}
	return m
}

func eventIDs(ds []*rampway.Delivery) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.EventID + " " + string(d.EventName)
	}
	return out
}

func testDeliveryClaims(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	ctx := t.Context()
	a, b := hookedMerchant(t, s, "a"), hookedMerchant(t, s, "b")
	base := now()
	oa := mustOrder(t, s, a.ID, base)
	SeenAt(t, s, oa, big.NewInt(1), base.Add(time.Millisecond))
	ob := mustOrder(t, s, b.ID, base.Add(2*time.Millisecond))
	at := base.Add(time.Second)
	const lease = 30 * time.Second

	// Each order's first pending event only, due first.
	got, err := s.ClaimDeliveries(ctx, at, lease, 10, 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].OrderID != oa.ID || got[0].EventName != rampway.EventCreated || got[1].OrderID != ob.ID {
		t.Fatalf("first claim: %v", eventIDs(got))
	}
	if got[0].URL != oa.MerchantWebhookURL || len(got[0].Body) == 0 || got[0].MerchantID != a.ID || got[0].Status != rampway.DeliveryPending {
		t.Fatalf("claimed delivery: %+v", got[0])
	}
	// Leased: nobody else gets them, and the order's next event waits for the first.
	if again, err := s.ClaimDeliveries(ctx, at, lease, 10, 10, nil); err != nil || len(again) != 0 {
		t.Fatalf("claim while leased: %v, %v", eventIDs(again), err)
	}
	first := got[0]
	if err := s.RecordAttempt(ctx, &rampway.DeliveryAttempt{EventID: first.EventID, Attempt: 1, At: at, StatusCode: 200, Latency: time.Millisecond},
		rampway.DeliveryDelivered, at); err != nil {
		t.Fatal(err)
	}
	next, err := s.ClaimDeliveries(ctx, at, lease, 10, 10, nil)
	if err != nil || len(next) != 1 || next[0].OrderID != oa.ID || next[0].EventName != rampway.EventDepositProcessing {
		t.Fatalf("after the first was delivered: %v, %v", eventIDs(next), err)
	}
	// A lease that ran out (a crashed dispatcher) makes the delivery claimable again; a
	// skipped merchant's are left alone.
	later := at.Add(lease + time.Second)
	if got, err := s.ClaimDeliveries(ctx, later, lease, 10, 10, []string{b.ID}); err != nil || len(got) != 1 || got[0].OrderID != oa.ID {
		t.Fatalf("after the lease, skipping b: %v, %v", eventIDs(got), err)
	}
	gb, err := s.ClaimDeliveries(ctx, later, lease, 10, 10, []string{a.ID})
	if err != nil || len(gb) != 1 || gb[0].OrderID != ob.ID {
		t.Fatalf("after the lease, skipping a: %v, %v", eventIDs(gb), err)
	}
	// Released: claimable at once; not yet due: not claimed.
	if err := s.ReleaseDelivery(ctx, gb[0].EventID); err != nil {
		t.Fatal(err)
	}
	if got, err := s.ClaimDeliveries(ctx, later, lease, 10, 10, nil); err != nil || len(got) != 1 || got[0].EventID != gb[0].EventID {
		t.Fatalf("after the release: %v, %v", eventIDs(got), err)
	}
	if err := s.RecordAttempt(ctx, &rampway.DeliveryAttempt{EventID: next[0].EventID, Attempt: 1, At: later, StatusCode: 500, Error: "answered 500"},
		rampway.DeliveryPending, later.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if got, err := s.ClaimDeliveries(ctx, later.Add(59*time.Second), lease, 10, 10, []string{b.ID}); err != nil || len(got) != 0 {
		t.Fatalf("claimed before its retry is due: %v, %v", eventIDs(got), err)
	}
	if got, err := s.ClaimDeliveries(ctx, later.Add(time.Minute), lease, 10, 10, []string{b.ID}); err != nil || len(got) != 1 || got[0].Attempts != 1 {
		t.Fatalf("claim of the retry: %v, %v", eventIDs(got), err)
	}
	// The order's webhook log: its deliveries' attempts, in event order.
	as, err := s.DeliveryAttempts(ctx, oa.ID)
	if err != nil || len(as) != 2 || as[0].EventID != first.EventID || as[0].StatusCode != 200 || as[0].Latency != time.Millisecond ||
		as[1].EventID != next[0].EventID || as[1].StatusCode != 500 || as[1].Error != "answered 500" {
		t.Fatalf("attempts of the order: %+v, %v", as, err)
	}
	if as, err := s.DeliveryAttempts(ctx, ob.ID); err != nil || len(as) != 0 {
		t.Fatalf("attempts of an order never attempted: %+v, %v", as, err)
	}
}

// A claim takes at most perMerchant deliveries of one merchant, and fills its limit with
// other merchants' instead.
func testDeliveryClaimsPerMerchant(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	ctx := t.Context()
	busy, other := hookedMerchant(t, s, "busy"), hookedMerchant(t, s, "other")
	base := now()
	for i := range 6 {
		mustOrder(t, s, busy.ID, base.Add(time.Duration(i)*time.Millisecond))
	}
	for i := range 3 {
		mustOrder(t, s, other.ID, base.Add(time.Duration(10+i)*time.Millisecond))
	}
	got, err := s.ClaimDeliveries(ctx, base.Add(time.Second), time.Minute, 5, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, d := range got {
		n[d.MerchantID]++
	}
	if len(got) != 4 || n[busy.ID] != 2 || n[other.ID] != 2 {
		t.Fatalf("claimed %d: %v, want 2 of each merchant", len(got), n)
	}
}

// Deferring a merchant's deliveries moves its due, unleased pending ones to the given time and
// leaves the others (leased, later, other merchants') alone.
func testDeferDeliveries(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	ctx := t.Context()
	a, b := hookedMerchant(t, s, "a"), hookedMerchant(t, s, "b")
	base := now()
	for i := range 3 {
		mustOrder(t, s, a.ID, base.Add(time.Duration(i)*time.Millisecond))
	}
	ob := mustOrder(t, s, b.ID, base)
	at := base.Add(time.Second)
	leased, err := s.ClaimDeliveries(ctx, at, time.Minute, 1, 10, []string{b.ID})
	if err != nil || len(leased) != 1 {
		t.Fatalf("claim: %v, %v", leased, err)
	}
	until := at.Add(time.Hour)
	n, err := s.DeferDeliveries(ctx, a.ID, at, until)
	if err != nil || n != 2 {
		t.Fatalf("deferred %d, %v; want the 2 not leased", n, err)
	}
	if got, err := s.ClaimDeliveries(ctx, at.Add(30*time.Second), time.Minute, 10, 10, nil); err != nil || len(got) != 1 || got[0].OrderID != ob.ID {
		t.Fatalf("claim during the pause: %v, %v; want only b's", eventIDs(got), err)
	}
	if got, err := s.ClaimDeliveries(ctx, until, time.Minute, 10, 10, []string{b.ID}); err != nil || len(got) != 3 {
		t.Fatalf("claim after the pause (and a's lease): %v, %v", eventIDs(got), err)
	}
	if n, err := s.DeferDeliveries(ctx, a.ID, until, until.Add(time.Hour)); err != nil || n != 0 {
		t.Fatalf("deferred %d leased deliveries, %v", n, err)
	}
}

// Dispatchers claiming at once never get the same delivery.
func testConcurrentDeliveryClaims(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	ctx := t.Context()
	m := hookedMerchant(t, s, "c")
	const orders = 40
	base := now()
	for i := range orders {
		mustOrder(t, s, m.ID, base.Add(time.Duration(i)*time.Millisecond))
	}
	at := base.Add(time.Second)
	var (
		mu    sync.Mutex
		seen  = map[string]int{}
		wg    sync.WaitGroup
		errCh = make(chan error, 8)
	)
	for range 8 {
		wg.Go(func() {
			for {
				got, err := s.ClaimDeliveries(ctx, at, time.Minute, 3, 10, nil)
				if err != nil {
					errCh <- err
					return
				}
				if len(got) == 0 {
					return
				}
				mu.Lock()
				for _, d := range got {
					seen[d.EventID]++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	close(errCh)
	if err := <-errCh; err != nil {
		t.Fatal(err)
	}
	if len(seen) != orders {
		t.Fatalf("%d deliveries claimed, want %d", len(seen), orders)
	}
	for id, n := range seen {
		if n != 1 {
			t.Fatalf("%s claimed %d times", id, n)
		}
	}
}

// A new order's order.created event is a delivery when the order, or else its merchant, has a
// webhook URL and the merchant a secret; the delivery carries the event's id, seq and body.
func testCreatedOrderDelivery(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	ctx := t.Context()
	unsigned := mustMerchant(t, s, "unsigned") // a URL, no secret
	signed := hookedMerchant(t, s, "signed")
	noURL := hookedMerchant(t, s, "nourl")
	empty := ""
	if _, err := s.UpdateMerchant(ctx, noURL.ID, rampway.MerchantUpdate{WebhookURL: &empty, UpdatedAt: now()}); err != nil {
		t.Fatal(err)
	}
	type target struct {
		name     string
		merchant *rampway.Merchant
		orderURL string
		wantURL  string // "" for no delivery
	}
	targets := []target{
		{"no secret", unsigned, "https://shop.example/hooks", ""},
		{"merchant URL", signed, "", signed.WebhookURL},
		{"order URL first", signed, "https://shop.example/order-hooks", "https://shop.example/order-hooks"},
		{"no URL at all", noURL, "", ""},
		{"order URL only", noURL, "https://shop.example/hooks", "https://shop.example/hooks"},
	}
	create := func(t *testing.T, tt target) *rampway.Order {
		idx, err := s.NextDepositIndex(ctx)
		if err != nil {
			t.Error(err)
			return nil
		}
		o := orderAt(tt.merchant.ID, now(), idx)
		o.MerchantWebhookURL = tt.orderURL
		if err := s.CreateOrder(ctx, o); err != nil {
			t.Error(err)
			return nil
		}
		return o
	}
	check := func(t *testing.T, tt target, o *rampway.Order) (seq int64) {
		t.Helper()
		events, err := s.OrderEvents(ctx, o.ID)
		if err != nil || len(events) != 1 || events[0].Name != rampway.EventCreated || events[0].To != rampway.StatusCreated {
			t.Fatalf("%s: events %v, %v; want one order.created", tt.name, events, err)
		}
		ds, err := s.Deliveries(ctx, o.ID)
		if err != nil {
			t.Fatal(err)
		}
		if tt.wantURL == "" {
			if len(ds) != 0 {
				t.Fatalf("%s: deliveries %v; want none", tt.name, eventIDs(ds))
			}
			return 0
		}
		if len(ds) != 1 {
			t.Fatalf("%s: deliveries %v; want one", tt.name, eventIDs(ds))
		}
		d := ds[0]
		want, err := rampway.EventBody(events[0], o, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if d.EventID != events[0].ID || d.EventSeq <= 0 || d.EventSeq != events[0].Seq || d.EventName != rampway.EventCreated || d.URL != tt.wantURL || d.OrderID != o.ID ||
			d.MerchantID != tt.merchant.ID || d.Status != "pending" || !d.NextAttemptAt.Equal(o.CreatedAt) || string(d.Body) != string(want) {
			body := d.Body
			d.Body = nil
			t.Fatalf("%s: delivery %+v\nbody %s\nwant event %s (seq %d) to %s, body %s", tt.name, d, body, events[0].ID, events[0].Seq, tt.wantURL, want)
		}
		return d.EventSeq
	}
	for _, tt := range targets {
		t.Run(tt.name, func(t *testing.T) {
			if o := create(t, tt); o != nil {
				check(t, tt, o)
			}
		})
	}
	// Orders created at the same time may be written together (one statement, or one
	// transaction, for several): each gets its own event and delivery all the same.
	t.Run("together", func(t *testing.T) {
		const copies = 8
		orders := make([]*rampway.Order, len(targets)*copies)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range orders {
			wg.Go(func() {
				<-start
				orders[i] = create(t, targets[i%len(targets)])
			})
		}
		close(start)
		wg.Wait()
		seqs := make(map[int64]string)
		for i, o := range orders {
			if o == nil {
				continue
			}
			if seq := check(t, targets[i%len(targets)], o); seq != 0 {
				if other, ok := seqs[seq]; ok {
					t.Fatalf("orders %s and %s: both deliveries have event seq %d", other, o.ID, seq)
				}
				seqs[seq] = o.ID
			}
		}
		if bs, ok := s.(interface{ BatchStats() (int64, int64) }); ok {
			batches, writes := bs.BatchStats()
			t.Logf("%d writes in %d batches", writes, batches)
		}
	})
}

// WaitDelivered waits until every webhook delivery of the orders is delivered: for tests that
// run a dispatcher against s. It fails tb after a minute, a bound for a stuck test rather than
// a margin: it returns as soon as the deliveries are made, however loaded the machine.
func WaitDelivered(tb testing.TB, s rampway.DeliveryStore, orderIDs []string) {
	tb.Helper()
	const limit = time.Minute
	deadline := time.Now().Add(limit)
	for {
		pending := 0
		for _, id := range orderIDs {
			ds, err := s.Deliveries(context.Background(), id)
			if err != nil {
				tb.Fatal(err)
			}
			for _, d := range ds {
				if d.Status != rampway.DeliveryDelivered {
					pending++
				}
			}
		}
		if pending == 0 {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("%d deliveries not delivered after %s", pending, limit)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// The event log: a merchant's deliveries of a mode, newest event first, a page at a time;
// never another merchant's or the other mode's.
func testWebhookLog(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	ctx := t.Context()
	a, b := hookedMerchant(t, s, "a"), hookedMerchant(t, s, "b")
	if err := s.SetWebhookSecret(ctx, a.ID, true, "whsec_a_live", 0, now()); err != nil {
		t.Fatal(err)
	}
	base := now()
	oa := mustOrder(t, s, a.ID, base)
	SeenAt(t, s, oa, big.NewInt(1), base.Add(time.Millisecond)) // a second event of the order
	mustOrder(t, s, b.ID, base.Add(2*time.Millisecond))
	ob := mustOrder(t, s, a.ID, base.Add(3*time.Millisecond))
	idx, err := s.NextDepositIndex(ctx)
	if err != nil {
		t.Fatal(err)
	}
	live := orderAt(a.ID, base.Add(4*time.Millisecond), idx)
	live.Livemode = true
	if err := s.CreateOrder(ctx, live); err != nil {
		t.Fatal(err)
	}

	all, err := s.WebhookLog(ctx, a.ID, false, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 3 || all[0].OrderID != ob.ID || all[1].OrderID != oa.ID || all[2].OrderID != oa.ID ||
		all[1].EventSeq <= all[2].EventSeq || all[1].EventName != rampway.EventDepositProcessing {
		t.Fatalf("test-mode log of a: %v", eventIDs(all))
	}
	for _, d := range all {
		if d.MerchantID != a.ID || d.Livemode {
			t.Fatalf("another merchant's or mode's delivery in the log: %+v", d)
		}
	}
	// Pages: two, then the rest before the last one's sequence number.
	first, err := s.WebhookLog(ctx, a.ID, false, 0, 2)
	if err != nil || len(first) != 2 || first[1].EventID != all[1].EventID {
		t.Fatalf("first page: %v, %v", eventIDs(first), err)
	}
	rest, err := s.WebhookLog(ctx, a.ID, false, first[1].EventSeq, 2)
	if err != nil || len(rest) != 1 || rest[0].EventID != all[2].EventID {
		t.Fatalf("second page: %v, %v", eventIDs(rest), err)
	}
	if ls, err := s.WebhookLog(ctx, a.ID, true, 0, 10); err != nil || len(ls) != 1 || ls[0].OrderID != live.ID || !ls[0].Livemode {
		t.Fatalf("live-mode log of a: %v, %v", eventIDs(ls), err)
	}
	if none, err := s.WebhookLog(ctx, "mch_none", false, 0, 10); err != nil || len(none) != 0 {
		t.Fatalf("log of no merchant: %v, %v", eventIDs(none), err)
	}
}
