package postgres_test

import (
	"strings"
	"testing"
)

// The webhook claim walks the pending deliveries that are not held, by the pending index, and
// leaves out the disabled merchants' with one hashed read of them per claim (not a lookup per
// delivery).
func TestWebhookClaimPlan(t *testing.T) {
	got := genericPlan(t, `PREPARE claim(timestamptz, bigint) AS SELECT d.event_id FROM webhook_deliveries d
			WHERE d.status = 'pending' AND d.held_at IS NULL AND d.next_attempt_at <= $1 AND (d.lease_until IS NULL OR d.lease_until < $1)
			AND d.merchant_id NOT IN (SELECT id FROM merchants WHERE status = 'disabled')
			AND NOT EXISTS (SELECT 1 FROM webhook_deliveries p WHERE p.order_id = d.order_id AND p.status = 'pending' AND p.event_seq < d.event_seq)
			ORDER BY d.next_attempt_at, d.event_seq LIMIT $2 FOR UPDATE SKIP LOCKED`,
		`EXPLAIN EXECUTE claim(now(), 40)`)
	for _, want := range []string{"Index Scan using webhook_deliveries_pending on webhook_deliveries d", "hashed SubPlan", "merchants_disabled"} {
		if !strings.Contains(got, want) {
			t.Errorf("plan:\n%s\nwant %q", got, want)
		}
	}
}
