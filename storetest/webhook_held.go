package storetest

import (
	"context"
	"errors"
	"math/big"
	"testing"
	"time"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/internal/sqlstore"
)

// setMerchantStatus disables or enables a merchant at at.
func setMerchantStatus(t *testing.T, s rampway.Store, id string, st rampway.MerchantStatus, at time.Time) {
	t.Helper()
	if _, err := s.UpdateMerchant(t.Context(), id, rampway.MerchantUpdate{Status: &st, UpdatedAt: at}); err != nil {
		t.Fatalf("merchant %s %s: %v", id, st, err)
	}
}

// deliveriesOf returns an order's deliveries, failing the test on an error.
func deliveriesOf(t *testing.T, s rampway.Store, orderID string) []*rampway.Delivery {
	t.Helper()
	ds, err := s.Deliveries(t.Context(), orderID)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// The deliveries of a disabled merchant are held: disabling holds its pending ones (an attempt
// recorded for a leased one keeps it held), the events of its orders keep being written, held,
// none is claimed however late it is, a resend is refused (ECONFLICT, ErrMerchantDisabled); the
// other merchants' go on. Enabling releases them due at once, oldest first, their retry period
// moved on by the time held and their backoff started over. Stats count held ones apart.
func testHeldDeliveries(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	ctx := t.Context()
	a, b := hookedMerchant(t, s, "held"), hookedMerchant(t, s, "other")
	base := now()
	oa := mustOrder(t, s, a.ID, base)
	ob := mustOrder(t, s, b.ID, base.Add(time.Millisecond))
	oa2 := mustOrder(t, s, a.ID, base.Add(2*time.Millisecond))
	const lease = 30 * time.Second

	// oa's order.created fails once (its backoff has begun); oa2's is leased when the merchant
	// is disabled, and its attempt fails after.
	at := base.Add(time.Second)
	first, err := s.ClaimDeliveries(ctx, at, lease, 1, 10, []string{b.ID})
	if err != nil || len(first) != 1 || first[0].OrderID != oa.ID {
		t.Fatalf("claim: %v, %v", eventIDs(first), err)
	}
	if err := s.RecordAttempt(ctx, &rampway.DeliveryAttempt{EventID: first[0].EventID, Attempt: 1, At: at, StatusCode: 500, Error: "answered 500"},
		rampway.DeliveryPending, at.Add(10*time.Second)); err != nil {
		t.Fatal(err)
	}
	leased, err := s.ClaimDeliveries(ctx, at, lease, 1, 10, []string{b.ID})
	if err != nil || len(leased) != 1 || leased[0].OrderID != oa2.ID {
		t.Fatalf("claim: %v, %v", eventIDs(leased), err)
	}

	disabledAt := at.Add(time.Second)
	setMerchantStatus(t, s, a.ID, rampway.MerchantDisabled, disabledAt)
	if err := s.RecordAttempt(ctx, &rampway.DeliveryAttempt{EventID: leased[0].EventID, Attempt: 1, At: disabledAt, StatusCode: 0, Error: "timeout"},
		rampway.DeliveryPending, disabledAt.Add(10*time.Second)); err != nil {
		t.Fatal(err)
	}
	for _, o := range []*rampway.Order{oa, oa2} {
		ds := deliveriesOf(t, s, o.ID)
		if len(ds) != 1 || !ds[0].Held() || !ds[0].HeldAt.Equal(disabledAt) || ds[0].Status != rampway.DeliveryPending || ds[0].Attempts != 1 {
			t.Fatalf("%s after the merchant was disabled: %+v", o.ID, ds[0])
		}
	}
	// An event of a disabled merchant's order is written held; an order created meanwhile (its
	// merchant's keys are refused: only a request that got in first) is not claimed either.
	seenAt := disabledAt.Add(time.Minute)
	SeenAt(t, s, oa, big.NewInt(1), seenAt)
	ds := deliveriesOf(t, s, oa.ID)
	if len(ds) != 2 || ds[1].EventName != rampway.EventDepositProcessing || !ds[1].Held() || !ds[1].HeldAt.Equal(seenAt) {
		t.Fatalf("event while disabled: %v %+v", eventIDs(ds), ds[len(ds)-1])
	}
	oa3 := mustOrder(t, s, a.ID, seenAt.Add(time.Millisecond))

	// Days later, nothing of a's is claimed (nor could be failed: no attempt), b's is.
	late := disabledAt.Add(7 * 24 * time.Hour)
	got, err := s.ClaimDeliveries(ctx, late, lease, 10, 10, nil)
	if err != nil || len(got) != 1 || got[0].OrderID != ob.ID {
		t.Fatalf("claim while a is disabled: %v, %v; want only b's", eventIDs(got), err)
	}
	_, err = s.ResendDelivery(ctx, a.ID, ds[0].EventID, late)
	wantCode(t, err, rampway.ECONFLICT)
	if !errors.Is(err, rampway.ErrMerchantDisabled) {
		t.Fatalf("resend while disabled: %v, want ErrMerchantDisabled in its chain", err)
	}
	if st, ok := s.(interface {
		Stats(context.Context, time.Time) (sqlstore.Stats, error)
	}); ok {
		stats, err := st.Stats(ctx, late)
		if err != nil {
			t.Fatal(err)
		}
		// Held: oa's two, oa2's one; pending: oa3's (written unheld, not claimed) and b's.
		if stats.DeliveriesHeld != 3 || stats.DeliveriesPending != 2 {
			t.Fatalf("stats while disabled: %d held, %d pending; want 3 and 2", stats.DeliveriesHeld, stats.DeliveriesPending)
		}
	}
	// Disabled again: nothing changes (the hold keeps its time).
	setMerchantStatus(t, s, a.ID, rampway.MerchantDisabled, late)
	if ds := deliveriesOf(t, s, oa.ID); !ds[0].HeldAt.Equal(disabledAt) {
		t.Fatalf("held again: %+v", ds[0])
	}

	// Enabled: due at once, oldest first (each order's first pending event), the retry period
	// moved on by the time held, the backoff started over.
	enabledAt := late.Add(time.Hour)
	setMerchantStatus(t, s, a.ID, rampway.MerchantActive, enabledAt)
	ds = deliveriesOf(t, s, oa.ID)
	for _, d := range ds {
		if d.Held() || d.HeldAt != nil || !d.NextAttemptAt.Equal(enabledAt) || d.BackoffFrom != d.Attempts {
			t.Fatalf("after enabling: %+v", d)
		}
	}
	if want := oa.CreatedAt.Add(enabledAt.Sub(disabledAt)); !ds[0].RetryFrom.Equal(want) {
		t.Fatalf("retry period of the first event from %v, want %v (created %v, held %v)", ds[0].RetryFrom, want, oa.CreatedAt, enabledAt.Sub(disabledAt))
	}
	if !ds[1].RetryFrom.Equal(enabledAt) || ds[1].BackoffFrom != 0 {
		t.Fatalf("retry period of the event written held from %v, want %v", ds[1].RetryFrom, enabledAt)
	}
	got, err = s.ClaimDeliveries(ctx, enabledAt, lease, 10, 10, []string{b.ID})
	if err != nil || len(got) != 3 || got[0].OrderID != oa.ID || got[1].OrderID != oa2.ID || got[2].OrderID != oa3.ID {
		t.Fatalf("claim after enabling: %v, %v; want oa's, oa2's and oa3's order.created in that order", eventIDs(got), err)
	}
	if got[0].BackoffFrom != 1 || got[0].Attempts != 1 {
		t.Fatalf("claimed after enabling: %+v", got[0])
	}
	// A resend works again, and a resent delivery is not held.
	if err := s.RecordAttempt(ctx, &rampway.DeliveryAttempt{EventID: got[2].EventID, Attempt: 1, At: enabledAt, StatusCode: 200},
		rampway.DeliveryDelivered, enabledAt); err != nil {
		t.Fatal(err)
	}
	r, err := s.ResendDelivery(ctx, a.ID, got[2].EventID, enabledAt.Add(time.Second))
	if err != nil || r.Held() || r.Status != rampway.DeliveryPending {
		t.Fatalf("resend after enabling: %+v, %v", r, err)
	}
	if st, ok := s.(interface {
		Stats(context.Context, time.Time) (sqlstore.Stats, error)
	}); ok {
		if stats, err := st.Stats(ctx, enabledAt); err != nil || stats.DeliveriesHeld != 0 {
			t.Fatalf("stats after enabling: %+v, %v", stats, err)
		}
	}
}
