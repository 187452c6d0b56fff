package checkout

import (
	"context"
	"slices"
	"time"

	"github.com/rampway/rampway"
)

// Records are the use cases that read what happened to orders, and the few notes operators
// and merchants add to it: an order's lookup in a scope (with its refunds and payments), its
// webhook log and resends, and the fiat actions an operator looks after. They need the store
// alone: the admin CLI makes them without networks or prices. A Service carries its Records.
type Records struct {
	store Store
	now   func() time.Time
}

// NewRecords returns the Records of store. now is the clock (time.Now when nil).
func NewRecords(store Store, now func() time.Time) *Records {
	if now == nil {
		now = time.Now
	}
	return &Records{store: store, now: now}
}

// Order returns an order in scope in an area. ENOTFOUND also for another merchant's, another
// mode's or another area's order.
func (s *Records) Order(ctx context.Context, scope rampway.Scope, area rampway.Area, id string) (*rampway.Order, error) {
	notFound := rampway.Errorf(rampway.ENOTFOUND, "Order %q not found", id)
	if !rampway.ValidID(rampway.PrefixOrder, id) {
		return nil, notFound
	}
	o, err := s.store.Order(ctx, id)
	if rampway.ErrorCode(err) == rampway.ENOTFOUND || (err == nil && (!scope.Sees(o) || (area != "" && o.Area != area))) {
		return nil, notFound
	}
	return o, err
}

// Refunds returns what is owed back for an order (an order the caller may see).
func (s *Records) Refunds(ctx context.Context, o *rampway.Order) ([]*rampway.Refund, error) {
	return s.store.Refunds(ctx, o.ID)
}

// Transfers returns the payments seen for an order (an order the caller may see), oldest
// first, without those a chain reorganisation dropped.
func (s *Records) Transfers(ctx context.Context, o *rampway.Order) ([]*rampway.InboundTransfer, error) {
	ts, err := s.store.OrderTransfers(ctx, o.ID)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(ts, func(t *rampway.InboundTransfer) bool { return t.Status == rampway.TransferDropped }), nil
}

// Orders lists the merchant's orders in an area, newest first.
func (s *Records) Orders(ctx context.Context, f rampway.OrderFilter) ([]*rampway.Order, error) {
	if f.Before != "" && !rampway.ValidID(rampway.PrefixOrder, f.Before) {
		return nil, rampway.FieldErrorf("starting_after", "starting_after must be an order id")
	}
	return s.store.Orders(ctx, f)
}
