package rampway

import (
	"context"
	"time"
)

// OrderQuery selects a merchant's orders of one mode for the dashboard's list, search and CSV
// export, newest first: by area (or all three), status and creation time, and by a search
// string that matches one of the keys a support desk is given (OrderSearchKeys) exactly.
type OrderQuery struct {
	MerchantID string
	Livemode   bool
	// Area keeps one area's orders; "" keeps every area's.
	Area Area
	// Status, when set, keeps orders in that status.
	Status OrderStatus
	// CreatedFrom and CreatedTo, when set, bound the creation time (from inclusive, to
	// exclusive).
	CreatedFrom, CreatedTo time.Time
	// Before is a cursor: orders created before the order with this id (the next, older,
	// page). After is the other way: orders created after it (the previous, newer, page),
	// still returned newest first. At most one of them is set; an id that is not one of the
	// merchant's orders of the mode gives no orders.
	Before, After string
	// Limit is the page's size (1 to 1000; 100 otherwise).
	Limit int
	// Search, when set, keeps the orders one of whose keys it is exactly (OrderSearchKeys).
	Search string
}

// OrderSearchKeys are what OrderQuery.Search matches, exactly: the order's id, its
// merchant_txn_id, its merchant_user_id, its deposit address (any letter case), the hash of a
// transaction that paid it or that rampway signed for it (its execution, an approve before
// it, their replacements; any letter case), and a payment provider's reference of its fiat
// payment or of one of its refunds.
var OrderSearchKeys = []string{"order id", "merchant_txn_id", "merchant_user_id", "deposit address", "transaction hash", "provider reference"}

// MaxOrderSearch is the longest search string (longer ones are refused: no key is longer).
const MaxOrderSearch = 200

// DashboardOrderStore is the store's reads of the dashboard's orders pages.
type DashboardOrderStore interface {
	// SearchOrders returns a page of the orders q selects, newest first. EINVALID when both
	// cursors are set or the search is longer than MaxOrderSearch.
	SearchOrders(ctx context.Context, q OrderQuery) ([]*Order, error)
}
