package postgres_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/rampway/rampway/internal/pgtest"
	"github.com/rampway/rampway/internal/sqlstore"
	"github.com/rampway/rampway/postgres"
	"github.com/rampway/rampway/storetest"
)

// The dashboard's list and search of a merchant's orders, planned as prepared statements are
// after a few runs (generic plans) over 60,000 orders of the merchant with their statistics:
// the list reads a page of each area from its index, in order, and each search key is
// found through its own index: no statement reads the merchant's orders whole.
func TestDashboardOrderPlans(t *testing.T) {
	s, err := postgres.Open(t.Context(), pgtest.FreshDSN(t), nil, postgres.Options{MaxOpenConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	db := s.DB()
	m := storetest.NewMerchant(t, s)
	for _, q := range []string{
		`INSERT INTO orders (id, merchant_id, area, status, merchant_user_id, merchant_txn_id, merchant_redirect_url, deposit_address, deposit_index,
			expires_at, created_at, updated_at, livemode)
		SELECT 'ord_seed' || g, $1, (ARRAY['mint', 'nft_ramp', 'deposit'])[g % 3 + 1], (ARRAY['CREATED', 'SUCCESS', 'EXPIRED'])[g % 3 + 1],
			'user-' || (g % 20000), CASE WHEN g % 2 = 0 THEN 'txn-' || g ELSE '' END, 'https://shop.example/done',
			CASE WHEN g % 3 = 0 THEN '0x' || lpad(to_hex(g), 40, '0') END, CASE WHEN g % 3 = 0 THEN g END,
			now(), now() - g * interval '1 second', now(), false
		FROM generate_series(1, 60000) AS g`,
		// Payments, refunds and signed transactions of a third of them each.
		`INSERT INTO inbound_transfers (network, tx_hash, log_index, order_id, to_address, amount, block_number, block_hash, status, created_at, updated_at)
		SELECT 'devnet', '0x' || lpad(to_hex(g), 64, '0'), 0, 'ord_seed' || g, '', '1', 1, '', 'confirmed', now(), now()
		FROM generate_series(1, 60000, 3) AS g`,
		`INSERT INTO chain_txs (hash, network, wallet, nonce, kind, ref, raw, sent_block, status, created_at, updated_at)
		SELECT '0xc' || lpad(to_hex(g), 63, '0'), 'devnet', '', g, 'call', 'ord_seed' || g, '\x00', 1, 'mined', now(), now()
		FROM generate_series(1, 60000, 3) AS g`,
		`INSERT INTO fiat_payments (id, order_id, provider, provider_ref, method, currency, amount, decimals, status, created_at, updated_at)
		SELECT 'fp_' || g, 'ord_seed' || g, 'sandbox', 'ref_' || g, 'card', 'EUR', '100', 2, 'captured', now(), now()
		FROM generate_series(2, 60000, 3) AS g`,
		`INSERT INTO refunds (id, order_id, cause, network, amount, reason, status, created_at, updated_at, provider_ref)
		SELECT 'rfd_' || g, 'ord_seed' || g, 'merchant:' || g, '', '1', 'x', 'done', now(), now(), 'rref_' || g
		FROM generate_series(2, 60000, 6) AS g`,
		`ANALYZE`,
		`SET plan_cache_mode = force_generic_plan`,
	} {
		var args []any
		if strings.Contains(q, "$1") {
			args = append(args, m.ID)
		}
		if _, err := db.ExecContext(t.Context(), q, args...); err != nil {
			t.Fatal(err)
		}
	}
	statements := storetest.SearchStatements(t, s, m.ID, sqlstore.RecordQueries)
	for name, want := range map[string][]string{
		"list":             {"orders_merchant_area"},
		"list older":       {"orders_merchant_area", "orders_pkey"},
		"list newer":       {"orders_merchant_area", "orders_pkey"},
		"list by status":   {"orders_merchant_status"},
		"list of one area": {"orders_merchant_area"},
		"search text":      {"orders_merchant_txn", "orders_merchant_user", "fiat_payments_provider_ref", "refunds_provider_ref"},
		"search in area":   {"orders_merchant_txn", "orders_merchant_user", "fiat_payments_provider_ref", "refunds_provider_ref"},
		"search order id":  {"orders_pkey", "orders_merchant_txn"},
		"search address":   {"orders_deposit_address", "orders_merchant_txn"},
		"search hash":      {"inbound_transfers_tx", "chain_txs_pkey", "orders_merchant_txn"},
	} {
		plan, err := pgPlan(t, db, len(name), statements[name])
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		text := strings.Join(plan, "\n")
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: plan without %s:\n%s", name, w, text)
			}
		}
		if strings.Contains(text, "Seq Scan on orders") {
			t.Errorf("%s: reads the orders whole:\n%s", name, text)
		}
		if !strings.HasPrefix(name, "search") && sortNode.MatchString(text) {
			t.Errorf("%s: sorts the merchant's orders instead of reading a page of them in order:\n%s", name, text)
		}
	}
}

// sortNode is a Sort node of a plan (a Merge Append's sort key is no sort).
var sortNode = regexp.MustCompile(`(?m)^\s*(->\s+)?Sort\s+\(`)
