package checkout

import (
	"context"
	"time"

	"github.com/rampway/rampway"
)

// DeliveryLog is a webhook delivery with its attempts.
type DeliveryLog struct {
	Delivery *rampway.Delivery
	Attempts []*rampway.DeliveryAttempt
}

// Deliveries returns the webhook log of an order in scope in an area: every event's delivery,
// in event order, with its attempts. ENOTFOUND for an unknown order or one out of scope.
func (s *Records) Deliveries(ctx context.Context, scope rampway.Scope, area rampway.Area, orderID string) ([]DeliveryLog, error) {
	o, err := s.Order(ctx, scope, area, orderID)
	if err != nil {
		return nil, err
	}
	ds, err := s.store.Deliveries(ctx, o.ID)
	if err != nil {
		return nil, err
	}
	as, err := s.store.DeliveryAttempts(ctx, o.ID)
	if err != nil {
		return nil, err
	}
	byEvent := map[string][]*rampway.DeliveryAttempt{}
	for _, a := range as {
		byEvent[a.EventID] = append(byEvent[a.EventID], a)
	}
	out := make([]DeliveryLog, len(ds))
	for i, d := range ds {
		out[i] = DeliveryLog{Delivery: d, Attempts: byEvent[d.EventID]}
	}
	return out, nil
}

// Resend queues an event of a merchant's order again, due now: the same eventId and body.
// ENOTFOUND for an unknown order or event, or one out of scope.
func (s *Records) Resend(ctx context.Context, scope rampway.Scope, area rampway.Area, orderID, eventID string) (*rampway.Delivery, error) {
	o, err := s.Order(ctx, scope, area, orderID)
	if err != nil {
		return nil, err
	}
	ds, err := s.store.Deliveries(ctx, o.ID)
	if err != nil {
		return nil, err
	}
	for _, d := range ds {
		if d.EventID == eventID {
			return s.store.ResendDelivery(ctx, o.MerchantID, eventID, s.now().UTC().Truncate(time.Microsecond))
		}
	}
	return nil, rampway.Errorf(rampway.ENOTFOUND, "Event %q of order %s not found", eventID, o.ID)
}
