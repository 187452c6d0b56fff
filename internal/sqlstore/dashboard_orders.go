package sqlstore

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
)

// txHashText is a transaction hash as typed: 0x and 64 hex digits.
var txHashText = regexp.MustCompile(`^0[xX][0-9a-fA-F]{64}$`)

// orderColumnsOf is orderColumns of the table aliased o.
var orderColumnsOf = func() string {
	cols := strings.Split(strings.Join(strings.Fields(orderColumns), ""), ",")
	return "o." + strings.Join(cols, ", o.")
}()

// branch is one SELECT of the orders a search or a list finds: its FROM (the orders are o)
// and its own condition.
type branch struct{ from, where string }

// searchBranches are the SELECTs that find the orders whose key is text, each through an
// index of its own (migration 00033): one per key text can be. arg adds a value and returns
// its placeholder. A key's index is partial where most orders have none (merchant_txn_id,
// provider references): the query repeats the index's condition, so that a plan made for any
// value still uses it. A key kept in another table is read there first (CROSS JOIN: SQLite
// keeps that order), then its orders by their id; on SQLite the orders' own keys name their
// index (a filter by area would otherwise walk the area's index).
func (s *Store) searchBranches(text string, arg func(any) string) []branch {
	t := arg(text)
	orders := func(index string) string { return `orders AS o` + s.indexed(index) }
	branches := []branch{
		{orders("orders_merchant_txn"), `o.merchant_txn_id = ` + t + ` AND o.merchant_txn_id != ''`},
		{orders("orders_merchant_user"), `o.merchant_user_id = ` + t + ` AND o.merchant_user_id != ''`},
		{`fiat_payments AS p CROSS JOIN orders AS o`, `p.provider_ref = ` + t + ` AND p.provider_ref != '' AND o.id = p.order_id`},
		{`refunds AS r CROSS JOIN orders AS o`, `r.provider_ref = ` + t + ` AND r.provider_ref != '' AND o.id = r.order_id`},
	}
	if rampway.ValidID(rampway.PrefixOrder, text) {
		branches = append(branches, branch{`orders AS o`, `o.id = ` + t})
	}
	if strings.HasPrefix(strings.ToLower(text), "0x") && common.IsHexAddress(text) {
		// Stored as EIP-55 hex (Address.Hex): any letter case typed finds it.
		branches = append(branches, branch{orders("orders_deposit_address"), `o.deposit_address = ` + arg(common.HexToAddress(text).Hex())})
	}
	if txHashText.MatchString(text) {
		// Stored as lower-case hex (Hash.Hex). A payment's transaction, and every transaction
		// rampway signed for the order (approve and call; replaced ones too: ref is the order).
		h := arg(common.HexToHash(text).Hex())
		branches = append(branches,
			branch{`inbound_transfers AS x CROSS JOIN orders AS o`, `x.tx_hash = ` + h + ` AND o.id = x.order_id`},
			branch{`chain_txs AS c CROSS JOIN orders AS o`, `c.hash = ` + h + ` AND c.kind IN ('` + string(rampway.TxApprove) + `', '` +
				string(rampway.TxCall) + `') AND o.id = c.ref`})
	}
	return branches
}

// SearchOrders implements rampway.DashboardOrderStore.
//
// The list without a search reads each area's index of the merchant's orders in order
// (orders_merchant_area, or orders_merchant_status with a status) and merges the areas' pages:
// one page costs the same among a million orders as among ten. A search reads the orders of
// each key it may be through that key's index, and sorts the few it finds.
func (s *Store) SearchOrders(ctx context.Context, q rampway.OrderQuery) ([]*rampway.Order, error) {
	if q.Before != "" && q.After != "" {
		return nil, rampway.Errorf(rampway.EINVALID, "a page of orders is before an order or after one, not both")
	}
	if len(q.Search) > rampway.MaxOrderSearch {
		return nil, rampway.FieldErrorf("q", "a search is at most %d characters", rampway.MaxOrderSearch)
	}
	if q.Area != "" && !slices.Contains([]rampway.Area{rampway.AreaMint, rampway.AreaNFTRamp, rampway.AreaDeposit}, q.Area) {
		return nil, rampway.FieldErrorf("area", "area %q is not one of mint, nft_ramp, deposit", rampway.Echo(string(q.Area)))
	}
	args := []any{q.MerchantID, q.Livemode}
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	// What every branch keeps, besides its own condition.
	var filters []string
	if q.Status != "" {
		filters = append(filters, `o.status = `+arg(string(q.Status)))
	}
	if !q.CreatedFrom.IsZero() {
		filters = append(filters, `o.created_at >= `+arg(s.t(q.CreatedFrom)))
	}
	if !q.CreatedTo.IsZero() {
		filters = append(filters, `o.created_at < `+arg(s.t(q.CreatedTo)))
	}
	order := `DESC`
	if q.Before != "" || q.After != "" {
		cmp, id := `<`, q.Before
		if q.After != "" {
			cmp, id, order = `>`, q.After, `ASC` // the newer page: each branch's closest to the cursor
		}
		// The cursor is one of the merchant's orders of the mode, or none (no rows).
		filters = append(filters, `(o.created_at, o.id) `+cmp+` (SELECT k.created_at, k.id FROM orders AS k WHERE k.id = `+arg(id)+
			` AND k.merchant_id = $1 AND k.livemode = $2)`)
	}
	var branches []branch
	if q.Search == "" {
		// One branch per area (the areas' rows are apart), the area written in the query so
		// that each branch walks its area's index in order.
		areas := []rampway.Area{rampway.AreaMint, rampway.AreaNFTRamp, rampway.AreaDeposit}
		if q.Area != "" {
			areas = []rampway.Area{q.Area}
		}
		for _, a := range areas {
			branches = append(branches, branch{`orders AS o`, `o.area = '` + string(a) + `'`})
		}
	} else {
		if q.Area != "" {
			filters = append(filters, `o.area = `+arg(string(q.Area)))
		}
		branches = s.searchBranches(q.Search, arg)
	}
	rest := ""
	if len(filters) > 0 {
		rest = ` AND ` + strings.Join(filters, ` AND `)
	}
	// Each branch is a page of its own, read in order from its index and cut at the limit;
	// the page is the first limit of them all, merged here (an order two keys found counted
	// once). Neither planner then sorts more than the branches' pages: PostgreSQL 15 sorts a
	// UNION ALL under an ORDER BY whole rather than merge its ordered parts, and SQLite sorts
	// each part read through a subquery again. The LIMIT is written in the query, a number of
	// ours: PostgreSQL's plan for any LIMIT guesses a tenth of the rows and reads them all,
	// where a page's walks an index and stops.
	n := limit(q.Limit)
	selects := make([]string, len(branches))
	for i, b := range branches {
		selects[i] = fmt.Sprintf(`SELECT * FROM (SELECT %s FROM %s WHERE %s AND o.merchant_id = $1 AND o.livemode = $2%s
			ORDER BY o.created_at %s, o.id %s LIMIT %d) AS b%d`, orderColumnsOf, b.from, b.where, rest, order, order, n, i)
	}
	found, err := s.queryOrders(ctx, "search orders", s.q(strings.Join(selects, ` UNION ALL `)), args...)
	if err != nil {
		return nil, err
	}
	newest := func(a, b *rampway.Order) int { // newest first, as the indexes hold them
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	}
	slices.SortFunc(found, newest)
	found = slices.CompactFunc(found, func(a, b *rampway.Order) bool { return a.ID == b.ID })
	if q.After != "" { // the n newer than the cursor closest to it: the last n
		found = found[max(0, len(found)-n):]
	} else {
		found = found[:min(n, len(found))]
	}
	return found, nil
}
