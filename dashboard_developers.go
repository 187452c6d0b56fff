package rampway

import "context"

// WebhookLogStore reads a merchant's webhook deliveries for the dashboard's event log: every
// order's, newest first.
type WebhookLogStore interface {
	// WebhookLog returns up to limit of the merchant's deliveries of a mode, the newest event
	// first, of events before the event sequence number before (0: from the newest): the next
	// page starts before the last one's EventSeq.
	WebhookLog(ctx context.Context, merchantID string, livemode bool, before int64, limit int) ([]*Delivery, error)
}
