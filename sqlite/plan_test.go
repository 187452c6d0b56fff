package sqlite

import (
	"path/filepath"
	"strings"
	"testing"
)

// The queries that workers run over and over, whatever the tables' size, walk the index made
// for them (SQLite's planner has no statistics here to choose by): no walk of every order of
// a network, nor of every pending delivery.
func TestHotQueryPlans(t *testing.T) {
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "p.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, tc := range []struct{ name, query, want string }{
		{"executor poll", `SELECT id FROM orders INDEXED BY orders_network_paid WHERE network = ?1 AND status IN ('DEPOSIT_SUCCESS', 'ONRAMP_SUCCESS') ORDER BY updated_at, id LIMIT 10`,
			"SEARCH orders USING INDEX orders_network_paid (network=?)"},
		{"watcher's new deposits", `SELECT id, deposit_address, asset_contract FROM orders WHERE network = ?1 AND created_at >= ?2 AND deposit_address IS NOT NULL`,
			"SEARCH orders USING COVERING INDEX orders_network_created (network=? AND created_at>?)"},
		{"webhook claim: the merchants with a delivery due", `WITH oldest AS MATERIALIZED (
			SELECT m.id, (SELECT d.next_attempt_at FROM webhook_deliveries d INDEXED BY webhook_deliveries_merchant_due
				WHERE d.merchant_id = m.id AND d.status = 'pending' AND d.held_at IS NULL ORDER BY d.next_attempt_at LIMIT 1) AS due
			FROM merchants m WHERE m.status <> 'disabled' AND m.id NOT IN (?2))
			SELECT id FROM oldest WHERE due <= ?1 ORDER BY due, id LIMIT 10`,
			"SCAN m|SEARCH d USING COVERING INDEX webhook_deliveries_merchant_due (merchant_id=?)|SCAN oldest|USE TEMP B-TREE FOR ORDER BY"},
		{"webhook claim: a merchant's first due deliveries", `SELECT d.event_id FROM webhook_deliveries d INDEXED BY webhook_deliveries_merchant_due
			WHERE d.merchant_id = ?2 AND d.status = 'pending' AND d.held_at IS NULL AND d.next_attempt_at <= ?1 AND (d.lease_until IS NULL OR d.lease_until < ?1)
			AND NOT EXISTS (SELECT 1 FROM webhook_deliveries p WHERE p.order_id = d.order_id AND p.status = 'pending' AND p.event_seq < d.event_seq)
			ORDER BY d.next_attempt_at, d.event_seq LIMIT 10`,
			"SEARCH d USING COVERING INDEX webhook_deliveries_merchant_due (merchant_id=? AND next_attempt_at<?)|SEARCH p USING COVERING INDEX webhook_deliveries_order_pending (order_id=? AND event_seq<?)"},
		{"overview: a merchant's orders of an area per day", `SELECT ((o.created_at - ?4) / 86400000000) AS day, o.status, COUNT(*) FROM orders o INDEXED BY orders_merchant_area
			WHERE o.merchant_id = ?1 AND o.livemode = ?2 AND o.area = ?3 AND o.created_at >= ?4 AND o.created_at < ?5 GROUP BY 1, 2`,
			"SEARCH o USING INDEX orders_merchant_area (merchant_id=? AND livemode=? AND area=? AND created_at>? AND created_at<?)|USE TEMP B-TREE FOR GROUP BY"},
		{"overview: the webhook deliveries a merchant gave up on", `SELECT COUNT(*) FROM webhook_deliveries INDEXED BY webhook_deliveries_merchant_failed
			WHERE merchant_id = ?1 AND livemode = ?2 AND status = 'failed' AND created_at >= ?3 AND created_at < ?4`,
			"SEARCH webhook_deliveries USING COVERING INDEX webhook_deliveries_merchant_failed (merchant_id=? AND livemode=? AND created_at>? AND created_at<?)"},
		{"providers in use (at start)", `SELECT provider, COUNT(*) FROM (
			SELECT provider, id FROM fiat_payments WHERE status IN ('pending', 'processing', 'authorized')
			UNION SELECT p.provider, p.id FROM fiat_actions a JOIN fiat_payments p ON p.id = a.payment_id WHERE a.status = 'pending'
			UNION SELECT p.provider, p.id FROM fiat_actions a JOIN fiat_payments p ON p.id = a.payment_id WHERE a.status = 'needs_operator'
			) open GROUP BY provider`,
			"SCAN fiat_payments USING INDEX fiat_payments_open|SEARCH a USING INDEX fiat_actions_status (status=?)|SEARCH p USING INDEX sqlite_autoindex_fiat_payments_1 (id=?)|USE TEMP B-TREE FOR ORDER BY|SEARCH a USING INDEX fiat_actions_status (status=?)|SEARCH p USING INDEX sqlite_autoindex_fiat_payments_1 (id=?)|USE TEMP B-TREE FOR ORDER BY|SCAN open"},
	} {
		args := map[string][]any{ // the overview's: merchant, mode, (area,) period
			"overview: a merchant's orders of an area per day":       {"x", 0, "x", 1, 2},
			"overview: the webhook deliveries a merchant gave up on": {"x", 0, 1, 2},
		}[tc.name]
		if args == nil {
			args = []any{1, "x"}
		}
		rows, err := s.DB().QueryContext(t.Context(), "EXPLAIN QUERY PLAN "+tc.query, args...)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var steps []string
		for rows.Next() {
			var id, parent, notused int
			var detail string
			if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
				t.Fatal(err)
			}
			if strings.HasPrefix(detail, "SEARCH") || strings.HasPrefix(detail, "SCAN") || strings.Contains(detail, "TEMP B-TREE") {
				steps = append(steps, detail)
			}
		}
		rows.Close()
		if got := strings.Join(steps, "|"); got != tc.want {
			t.Errorf("%s: plan %q, want %q", tc.name, got, tc.want)
		}
	}
}
