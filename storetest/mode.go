package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/rampway/rampway"
)

// testModes: an order keeps its mode; lists and a merchant's event stream are of one mode; an
// event's delivery is written only when the merchant has a secret of its order's mode, and
// carries that mode (the dispatcher signs with that mode's secret).
func testModes(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	ctx := t.Context()
	m := hookedMerchant(t, s, "modes") // a test-mode secret only
	create := func(live bool, at time.Time) *rampway.Order {
		t.Helper()
		return createOrderAt(t, s, m.ID, at, func(o *rampway.Order) { o.Livemode = live })
	}
	base := now()
	test := create(false, base)
	liveUnsigned := create(true, base.Add(time.Millisecond))
	if err := s.SetWebhookSecret(ctx, m.ID, true, "whsec_modes_live", 0, base); err != nil {
		t.Fatal(err)
	}
	live := create(true, base.Add(2*time.Millisecond))

	for _, o := range []*rampway.Order{test, liveUnsigned, live} {
		got, err := s.Order(ctx, o.ID)
		if err != nil || got.Livemode != o.Livemode {
			t.Fatalf("order %s: livemode %v, %v; want %v", o.ID, got.Livemode, err, o.Livemode)
		}
	}
	for _, c := range []struct {
		live bool
		want []string
	}{{false, []string{test.ID}}, {true, []string{live.ID, liveUnsigned.ID}}} {
		got, err := s.Orders(ctx, rampway.OrderFilter{MerchantID: m.ID, Livemode: c.live, Area: rampway.AreaMint, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, o := range got {
			ids = append(ids, o.ID)
		}
		if len(ids) != len(c.want) || ids[0] != c.want[0] || ids[len(ids)-1] != c.want[len(c.want)-1] {
			t.Fatalf("livemode %v list: %v, want %v", c.live, ids, c.want)
		}
	}
	if _, err := s.Orders(ctx, rampway.OrderFilter{MerchantID: m.ID, Limit: 10}); rampway.ErrorCode(err) != rampway.EINVALID {
		t.Fatalf("a list without its area: %v, want EINVALID", err)
	}
	for _, c := range []struct {
		o    *rampway.Order
		want bool // a delivery
	}{{test, true}, {liveUnsigned, false}, {live, true}} {
		ds, err := s.Deliveries(ctx, c.o.ID)
		if err != nil {
			t.Fatal(err)
		}
		if (len(ds) == 1) != c.want || len(ds) > 1 || (len(ds) == 1 && ds[0].Livemode != c.o.Livemode) {
			t.Fatalf("order %s (livemode %v): deliveries %+v, want one: %v", c.o.ID, c.o.Livemode, ds, c.want)
		}
	}
	for _, c := range []struct {
		live bool
		want string
	}{{false, test.ID}, {true, live.ID}} {
		ds, err := s.MerchantDeliveries(ctx, m.ID, c.live, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(ds) != 1 || ds[0].OrderID != c.want || ds[0].Livemode != c.live {
			t.Fatalf("livemode %v stream: %+v, want the delivery of %s", c.live, ds, c.want)
		}
	}
	// Counting the open orders of a mode on a network (what a start reports when they are not
	// of the network's mode).
	type counter interface {
		OpenOrdersOfMode(ctx context.Context, network string, livemode bool) (int64, error)
	}
	if c, ok := s.(counter); ok {
		for live, want := range map[bool]int64{false: 1, true: 2} {
			if n, err := c.OpenOrdersOfMode(ctx, test.Network, live); err != nil || n != want {
				t.Fatalf("open orders of livemode %v: %d, %v; want %d", live, n, err, want)
			}
		}
		if n, err := c.OpenOrdersOfMode(ctx, "elsewhere", true); err != nil || n != 0 {
			t.Fatalf("open orders elsewhere: %d, %v", n, err)
		}
	}
	// An applied cause's event is delivered in its order's mode too.
	if _, err := s.Apply(ctx, live.ID, rampway.Cancelled{}, base.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	ds, err := s.Deliveries(ctx, live.ID)
	if err != nil || len(ds) != 2 || !ds[1].Livemode {
		t.Fatalf("cancelled live order's deliveries: %+v, %v", ds, err)
	}
}

// testWebhooksOff: an order created with its events off (its creation answer said none will be
// sent: a merchant_webhook_url and no secret of its mode) keeps them off for good: no delivery
// of its order.created even where its merchant has a secret, none of a later event after a
// secret is set, none of the page's events; an order of the same merchant with them on gets
// its deliveries.
func testWebhooksOff(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	ctx := t.Context()
	quiet := mustMerchant(t, s, "off") // no secret yet
	signed := hookedMerchant(t, s, "off-signed")
	base := now()
	create := func(m *rampway.Merchant, off bool, at time.Time) *rampway.Order {
		t.Helper()
		o := createOrderAt(t, s, m.ID, at, func(o *rampway.Order) { o.WebhooksOff = off })
		if got, err := s.Order(ctx, o.ID); err != nil || got.WebhooksOff != off {
			t.Fatalf("order %s read back: WebhooksOff %v, %v; want %v", o.ID, got.WebhooksOff, err, off)
		}
		return o
	}
	deliveries := func(o *rampway.Order, want int) {
		t.Helper()
		ds, err := s.Deliveries(ctx, o.ID)
		if err != nil || len(ds) != want {
			t.Fatalf("order %s (WebhooksOff %v): deliveries %v, %v; want %d", o.ID, o.WebhooksOff, eventIDs(ds), err, want)
		}
	}
	offSigned := create(signed, true, base)
	onSigned := create(signed, false, base.Add(time.Millisecond))
	off := create(quiet, true, base.Add(2*time.Millisecond))
	deliveries(offSigned, 0)
	deliveries(onSigned, 1)
	deliveries(off, 0)

	if err := s.SetWebhookSecret(ctx, quiet.ID, false, "whsec_off", 0, base); err != nil {
		t.Fatal(err)
	}
	on := create(quiet, false, base.Add(3*time.Millisecond))
	for i, o := range []*rampway.Order{offSigned, onSigned, off, on} {
		at := base.Add(time.Second + time.Duration(i)*time.Millisecond)
		if _, err := s.RecordOrderEvent(ctx, o.ID, rampway.EventWidgetOpen, true, at); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Apply(ctx, o.ID, rampway.Cancelled{}, at.Add(time.Microsecond)); err != nil {
			t.Fatal(err)
		}
	}
	deliveries(offSigned, 0)
	deliveries(onSigned, 3)
	deliveries(off, 0)
	deliveries(on, 3)
}

// createOrderAt creates an order of merchantID at at (orderAt, with the next deposit index),
// changed by change first.
func createOrderAt(t *testing.T, s rampway.Store, merchantID string, at time.Time, change func(o *rampway.Order)) *rampway.Order {
	t.Helper()
	idx, err := s.NextDepositIndex(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	o := orderAt(merchantID, at, idx)
	change(o)
	if err := s.CreateOrder(t.Context(), o); err != nil {
		t.Fatal(err)
	}
	return o
}
