package postgres_test

import (
	"strings"
	"testing"
)

// claimSetup gives the planner a webhook outbox as a busy instance has it: 20,000 deliveries of
// 10 merchants, 1 in 20 pending, most of those of one merchant (its backlog), analysed. The
// rows stand alone (the foreign keys' triggers are off on this connection).
var claimSetup = []string{
	`SET session_replication_role = replica`,
	`INSERT INTO merchants (id, name, status, created_at, updated_at)
		SELECT 'mch_' || i, 'm' || i, CASE WHEN i = 9 THEN 'disabled' ELSE 'active' END, now(), now() FROM generate_series(0, 9) i`,
	`INSERT INTO webhook_deliveries (event_id, event_seq, event_name, order_id, merchant_id, livemode, url, body, status, next_attempt_at, created_at, updated_at)
		SELECT 'evt_' || i, i, 'order.created', 'ord_' || i, CASE WHEN i % 20 = 0 THEN 'mch_0' ELSE 'mch_' || (i % 10) END, false, 'https://m.example/h', '\x7b7d',
			CASE WHEN i % 20 = 0 THEN 'pending' ELSE 'delivered' END, now() - interval '1 minute', now(), now()
		FROM generate_series(1, 20000) i`,
	`ANALYZE merchants`,
	`ANALYZE webhook_deliveries`,
}

// The webhook claim goes merchant by merchant: the merchants with a delivery due each found by
// one probe of the merchant-due index (its oldest pending one), and a merchant's first due
// deliveries read from the same index in due order, not a walk of every pending delivery.
// Both hold in the plans prepared statements get after a few runs (generic plans).
func TestWebhookClaimPlan(t *testing.T) {
	due := genericPlan(t, claimSetup, `PREPARE due(timestamptz, bigint, text) AS WITH oldest AS MATERIALIZED (
			SELECT m.id, (SELECT d.next_attempt_at FROM webhook_deliveries d
				WHERE d.merchant_id = m.id AND d.status = 'pending' AND d.held_at IS NULL ORDER BY d.next_attempt_at LIMIT 1) AS due
			FROM merchants m WHERE m.status <> 'disabled' AND m.id NOT IN ($3))
			SELECT id FROM oldest WHERE due <= $1 ORDER BY due, id LIMIT $2`,
		`EXPLAIN EXECUTE due(now(), 40, 'mch_1')`)
	if !strings.Contains(due, "Index Only Scan using webhook_deliveries_merchant_due on webhook_deliveries d") {
		t.Errorf("due merchants: plan\n%s\nwant an index-only scan of webhook_deliveries_merchant_due", due)
	}
	first := genericPlan(t, claimSetup, `PREPARE first(timestamptz, text, bigint) AS SELECT d.event_id FROM webhook_deliveries d
			WHERE d.merchant_id = $2 AND d.status = 'pending' AND d.held_at IS NULL AND d.next_attempt_at <= $1 AND (d.lease_until IS NULL OR d.lease_until < $1)
			AND NOT EXISTS (SELECT 1 FROM webhook_deliveries p WHERE p.order_id = d.order_id AND p.status = 'pending' AND p.event_seq < d.event_seq)
			ORDER BY d.next_attempt_at, d.event_seq LIMIT $3 FOR UPDATE SKIP LOCKED`,
		`EXPLAIN EXECUTE first(now(), 'mch_0', 4)`)
	for _, want := range []string{"Index Scan using webhook_deliveries_merchant_due on webhook_deliveries d", "webhook_deliveries_order_pending"} {
		if !strings.Contains(first, want) {
			t.Errorf("a merchant's first due deliveries: plan\n%s\nwant %q", first, want)
		}
	}
	if strings.Contains(first, "Sort") {
		t.Errorf("a merchant's first due deliveries: plan\n%s\nwant them in the index's order, no sort", first)
	}
}
