package sqlite_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rampway/rampway/sqlite"
	"github.com/rampway/rampway/storetest"
)

// The dashboard's list and search of a merchant's orders walk the indexes made for them (SQLite
// plans without statistics): the list a page of each area's index, in order, without a sort;
// each search key its own index; never the merchant's orders whole.
func TestDashboardOrderPlans(t *testing.T) {
	s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "p.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	m := storetest.NewMerchant(t, s)
	statements := storetest.SearchStatements(t, s, m.ID, sqlite.RecordStatements)
	for name, want := range map[string][]string{
		"list":             {"orders_merchant_area (merchant_id=? AND livemode=? AND area=?)"},
		"list older":       {"orders_merchant_area (merchant_id=? AND livemode=? AND area=? AND created_at<?)"},
		"list newer":       {"orders_merchant_area (merchant_id=? AND livemode=? AND area=? AND created_at>?)"},
		"list by status":   {"orders_merchant_status (merchant_id=? AND livemode=? AND area=? AND status=?)"},
		"list of one area": {"orders_merchant_area (merchant_id=? AND livemode=? AND area=? AND created_at>? AND created_at<?)"},
		"search text": {"orders_merchant_txn (merchant_id=? AND livemode=? AND merchant_txn_id=?)",
			"orders_merchant_user (merchant_id=? AND livemode=? AND merchant_user_id=?)", "fiat_payments_provider_ref (provider_ref=?)",
			"refunds_provider_ref (provider_ref=?)"},
		"search in area":  {"orders_merchant_txn (merchant_id=? AND livemode=? AND merchant_txn_id=?)", "orders_merchant_user (merchant_id=? AND livemode=? AND merchant_user_id=?)"},
		"search order id": {"SEARCH o USING INDEX sqlite_autoindex_orders_1 (id=?)"},
		"search address":  {"orders_deposit_address (deposit_address=?)"},
		"search hash":     {"inbound_transfers_tx (tx_hash=?)", "SEARCH c USING INDEX sqlite_autoindex_chain_txs_1 (hash=?)"},
	} {
		rows, err := s.DB().QueryContext(t.Context(), "EXPLAIN QUERY PLAN "+statements[name], make([]any, strings.Count(statements[name], "?"))...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var steps []string
		for rows.Next() {
			var id, parent, notused int
			var detail string
			if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
				t.Fatal(err)
			}
			steps = append(steps, detail)
		}
		rows.Close()
		plan := strings.Join(steps, " | ")
		for _, w := range want {
			if !strings.Contains(plan, w) {
				t.Errorf("%s: plan without %s: %s", name, w, plan)
			}
		}
		if strings.Contains(plan, "SCAN o") || strings.Contains(plan, "orders_merchant_area (merchant_id=? AND livemode=?)") {
			t.Errorf("%s: reads the merchant's orders whole: %s", name, plan)
		}
		if !strings.HasPrefix(name, "search") && strings.Contains(plan, "TEMP B-TREE") {
			t.Errorf("%s: sorts the merchant's orders: %s", name, plan)
		}
	}
}
