package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
)

const orderColumns = `id, merchant_id, area, status, merchant_user_id, merchant_txn_id, merchant_redirect_url,
	merchant_webhook_url, user_info, network, asset_symbol, asset_contract, asset_decimals, crypto_amount, crypto_received,
	function_id, function_args, payment_value, gas_limit, network_fee, service_fee, deposit_address, deposit_index,
	execution_tx_hash, failure_reason, expires_at, created_at, updated_at`

// bigText stores a non-negative big integer as decimal text.
func bigText(v *big.Int) string {
	if v == nil {
		return "0"
	}
	return v.String()
}

func parseBig(s, column string) (*big.Int, error) {
	v, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return nil, fmt.Errorf("column %s holds %q, not an integer", column, s)
	}
	return v, nil
}

func (s *Store) orderArgs(o *rampway.Order) ([]any, error) {
	user, err := json.Marshal(o.User)
	if err != nil {
		return nil, err
	}
	if o.User == nil {
		user = []byte("{}")
	}
	args := o.FunctionArgs
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	contract := ""
	if !o.Asset.IsNative() {
		contract = o.Asset.Contract.Hex()
	}
	var depAddr, depIndex any
	if o.DepositAddress != (common.Address{}) {
		depAddr, depIndex = o.DepositAddress.Hex(), int64(o.DepositIndex)
	}
	return []any{o.ID, o.MerchantID, string(o.Area), string(o.Status), o.MerchantUserID, o.MerchantTxnID, o.MerchantRedirectURL,
		o.MerchantWebhookURL, string(user), o.Network, o.Asset.Symbol, contract, int64(o.Asset.Decimals), bigText(o.CryptoAmount),
		bigText(o.CryptoReceived), o.FunctionID, string(args), bigText(o.PaymentValue), int64(o.GasLimit), bigText(o.NetworkFee),
		bigText(o.ServiceFee), depAddr, depIndex, o.ExecutionTxHash, o.FailureReason, s.t(o.ExpiresAt), s.t(o.CreatedAt), s.t(o.UpdatedAt)}, nil
}

func scanOrder(row interface{ Scan(...any) error }) (*rampway.Order, error) {
	var (
		o                                         rampway.Order
		area, status, user, contract, args        string
		amount, received, payment, netFee, svcFee string
		decimals, gas                             int64
		depAddr                                   sql.NullString
		depIndex                                  sql.NullInt64
		expires, created, updated                 dbTime
	)
	if err := row.Scan(&o.ID, &o.MerchantID, &area, &status, &o.MerchantUserID, &o.MerchantTxnID, &o.MerchantRedirectURL,
		&o.MerchantWebhookURL, &user, &o.Network, &o.Asset.Symbol, &contract, &decimals, &amount, &received,
		&o.FunctionID, &args, &payment, &gas, &netFee, &svcFee, &depAddr, &depIndex,
		&o.ExecutionTxHash, &o.FailureReason, &expires, &created, &updated); err != nil {
		return nil, err
	}
	o.Area, o.Status = rampway.Area(area), rampway.OrderStatus(status)
	if err := json.Unmarshal([]byte(user), &o.User); err != nil {
		return nil, fmt.Errorf("order %s user_info: %w", o.ID, err)
	}
	o.Asset.Network = o.Network
	if contract != "" {
		o.Asset.Contract = common.HexToAddress(contract)
	}
	o.Asset.Decimals = uint8(decimals)
	var err error
	for _, f := range []struct {
		dst    **big.Int
		text   string
		column string
	}{{&o.CryptoAmount, amount, "crypto_amount"}, {&o.CryptoReceived, received, "crypto_received"},
		{&o.PaymentValue, payment, "payment_value"}, {&o.NetworkFee, netFee, "network_fee"}, {&o.ServiceFee, svcFee, "service_fee"}} {
		if *f.dst, err = parseBig(f.text, f.column); err != nil {
			return nil, fmt.Errorf("order %s: %w", o.ID, err)
		}
	}
	o.FunctionArgs = json.RawMessage(args)
	o.GasLimit = uint64(gas)
	if depAddr.Valid {
		o.DepositAddress = common.HexToAddress(depAddr.String)
		o.DepositIndex = uint32(depIndex.Int64)
	}
	o.ExpiresAt, o.CreatedAt, o.UpdatedAt = expires.T, created.T, updated.T
	return &o, nil
}

// NextDepositIndex implements rampway.OrderStore.
func (s *Store) NextDepositIndex(ctx context.Context) (uint32, error) {
	idx, err := s.ReserveDepositIndexes(ctx, 1)
	if err != nil {
		return 0, err
	}
	return idx[0], nil
}

// maxReserve bounds one reservation of deposit indexes.
const maxReserve = 1000

// ReserveDepositIndexes implements rampway.OrderStore.
func (s *Store) ReserveDepositIndexes(ctx context.Context, n int) ([]uint32, error) {
	if n < 1 || n > maxReserve {
		return nil, fmt.Errorf("reserve deposit indexes: %d is not between 1 and %d", n, maxReserve)
	}
	var out []uint32
	add := func(v int64) error {
		if v < 0 || v >= 1<<31 { // non-hardened BIP-32 indexes end at 2^31
			return errors.New("reserve deposit indexes: the derivation range is used up")
		}
		out = append(out, uint32(v))
		return nil
	}
	if s.d.NextIndexSQL != "" {
		// A sequence: n values, not always consecutive when others reserve at the same time.
		vs, err := collect(ctx, s.db, "reserve deposit indexes", s.q(`SELECT `+s.d.NextIndexSQL+` FROM generate_series(1, $1)`), scanValue[int64], n)
		if err != nil {
			return nil, err
		}
		slices.Sort(vs)
		for _, v := range vs {
			if err := add(v); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	var last int64
	err := s.tx(ctx, func(tx *sql.Tx) error {
		return tx.QueryRowContext(ctx, s.q(`UPDATE sequences SET value = value + $1 WHERE name = 'deposit_index' RETURNING value`), n).Scan(&last)
	})
	if err != nil {
		return nil, fmt.Errorf("reserve deposit indexes: %w", err)
	}
	for v := last - int64(n) + 1; v <= last; v++ {
		if err := add(v); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// insertEvent records an event of order o (as it is after the event) and its webhook delivery.
func (s *Store) insertEvent(ctx context.Context, tx *sql.Tx, e *rampway.OrderEvent, o *rampway.Order) error {
	var seq int64
	err := tx.QueryRowContext(ctx, s.q(`INSERT INTO order_events (id, order_id, merchant_id, name, from_status, to_status, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING seq`),
		e.ID, e.OrderID, e.MerchantID, e.Name, string(e.From), string(e.To), s.t(e.CreatedAt)).Scan(&seq)
	if err != nil {
		return fmt.Errorf("insert order event: %w", err)
	}
	return s.insertDelivery(ctx, tx, e, seq, o)
}

// CreateOrder implements rampway.OrderStore.
func (s *Store) CreateOrder(ctx context.Context, o *rampway.Order) error {
	if s.d.WritableCTE {
		return s.createOrderStatement(ctx, o)
	}
	return s.batched(ctx, func(tx *sql.Tx) error { return s.createOrder(ctx, tx, o) })
}

// createOrder writes a new order and its order.created event (with its delivery) in tx.
func (s *Store) createOrder(ctx context.Context, tx *sql.Tx, o *rampway.Order) error {
	args, err := s.orderArgs(o)
	if err != nil {
		return fmt.Errorf("create order: %w", err)
	}
	if _, err := tx.ExecContext(ctx, s.q(insertOrder), args...); err != nil {
		return orderInsertError(s, o, err)
	}
	return s.insertEvent(ctx, tx, createdEvent(o), o)
}

// insertOrder inserts an order's columns from $1 to $28.
var insertOrder = `INSERT INTO orders (` + orderColumns + `) VALUES (` + placeholders(1, strings.Count(orderColumns, ",")+1) + `)`

// createOrderCTE is createOrder in one statement: the order ($1-$28), its event ($29 the id,
// $30 the name) and, when the order or else its merchant has a webhook URL and the merchant a
// secret, the event's delivery ($31 the body). The foreign keys are checked at the end of the
// statement, when all three rows exist.
var createOrderCTE = `WITH o AS (` + insertOrder + ` RETURNING id),
	e AS (INSERT INTO order_events (id, order_id, merchant_id, name, from_status, to_status, created_at)
		SELECT $29, o.id, $2, $30, '', $4, $27 FROM o RETURNING seq)
	INSERT INTO webhook_deliveries (event_id, event_seq, event_name, order_id, merchant_id, url, body, status,
		next_attempt_at, created_at, updated_at)
	SELECT $29, e.seq, $30, $1, $2, COALESCE(NULLIF($8, ''), m.webhook_url), $31, 'pending', $27, $27, $27
	FROM e, merchants m
	WHERE m.id = $2 AND COALESCE(NULLIF($8, ''), m.webhook_url) != '' AND m.webhook_secret != ''`

// createOrderStatement is createOrder in one statement (createOrderCTE), outside any
// transaction: the statement is one.
func (s *Store) createOrderStatement(ctx context.Context, o *rampway.Order) error {
	args, err := s.orderArgs(o)
	if err != nil {
		return fmt.Errorf("create order: %w", err)
	}
	e := createdEvent(o)
	body, err := rampway.EventBody(e, o, nil) // a new order has no deposits yet
	if err != nil {
		return fmt.Errorf("event body: %w", err)
	}
	if _, err := s.db.ExecContext(ctx, s.q(createOrderCTE), append(args, e.ID, e.Name, body)...); err != nil {
		return orderInsertError(s, o, err)
	}
	return nil
}

// createdEvent is a new order's order.created event.
func createdEvent(o *rampway.Order) *rampway.OrderEvent {
	return &rampway.OrderEvent{ID: rampway.NewID(rampway.PrefixEvent, o.CreatedAt), OrderID: o.ID,
		MerchantID: o.MerchantID, Name: rampway.EventCreated, From: "", To: o.Status, CreatedAt: o.CreatedAt}
}

func orderInsertError(s *Store, o *rampway.Order, err error) error {
	if s.d.IsUniqueViolation(err) {
		return rampway.Errorf(rampway.ECONFLICT, "order %s or its deposit index %d already exists", o.ID, o.DepositIndex)
	}
	return fmt.Errorf("insert order: %w", err)
}

// placeholders returns "$from, ..., $to": an INSERT's values, an IN list.
func placeholders(from, to int) string {
	ph := make([]string, 0, to-from+1)
	for i := from; i <= to; i++ {
		ph = append(ph, fmt.Sprintf("$%d", i))
	}
	return strings.Join(ph, ", ")
}

// Order implements rampway.OrderStore.
func (s *Store) Order(ctx context.Context, id string) (*rampway.Order, error) {
	o, err := scanOrder(s.db.QueryRowContext(ctx, s.q(`SELECT `+orderColumns+` FROM orders WHERE id = $1`), id))
	if err != nil {
		return nil, notFound(err, "order")
	}
	return o, nil
}

// Orders implements rampway.OrderStore.
func (s *Store) Orders(ctx context.Context, f rampway.OrderFilter) ([]*rampway.Order, error) {
	var where []string
	var args []any
	add := func(cond string, v any) {
		args = append(args, v)
		where = append(where, strings.ReplaceAll(cond, "?", fmt.Sprintf("$%d", len(args))))
	}
	add("merchant_id = ?", f.MerchantID)
	if f.Area != "" {
		add("area = ?", string(f.Area))
	}
	if f.Status != "" {
		add("status = ?", string(f.Status))
	}
	if !f.CreatedFrom.IsZero() {
		add("created_at >= ?", s.t(f.CreatedFrom))
	}
	if !f.CreatedTo.IsZero() {
		add("created_at < ?", s.t(f.CreatedTo))
	}
	if f.Before != "" {
		args = append(args, f.Before)
		n := len(args)
		where = append(where, fmt.Sprintf("(created_at, id) < (SELECT created_at, id FROM orders WHERE id = $%d)", n))
	}
	args = append(args, limit(f.Limit))
	q := `SELECT ` + orderColumns + ` FROM orders WHERE ` + strings.Join(where, " AND ") +
		fmt.Sprintf(` ORDER BY created_at DESC, id DESC LIMIT $%d`, len(args))
	return s.queryOrders(ctx, "list orders", s.q(q), args...)
}

// Transition implements rampway.OrderStore: the one way an order's status changes.
func (s *Store) Transition(ctx context.Context, id string, to rampway.OrderStatus, at time.Time, change func(*rampway.Order)) (*rampway.Order, error) {
	var out *rampway.Order
	err := s.tx(ctx, func(tx *sql.Tx) error {
		o, err := s.lockOrder(ctx, tx, id)
		if err != nil {
			return err
		}
		out, err = s.transitionTx(ctx, tx, o, to, at, change)
		return err
	})
	return out, err
}

// lockOrder reads an order for update inside tx.
func (s *Store) lockOrder(ctx context.Context, tx *sql.Tx, id string) (*rampway.Order, error) {
	o, err := scanOrder(tx.QueryRowContext(ctx, s.q(`SELECT `+orderColumns+` FROM orders WHERE id = $1`+s.d.ForUpdate), id))
	if err != nil {
		return nil, notFound(err, "order")
	}
	return o, nil
}

// transitionTx moves a locked order to status to inside tx: it asks the state machine,
// applies change, writes the order and records the event.
func (s *Store) transitionTx(ctx context.Context, tx *sql.Tx, o *rampway.Order, to rampway.OrderStatus, at time.Time, change func(*rampway.Order)) (*rampway.Order, error) {
	id, merchantID, area, created := o.ID, o.MerchantID, o.Area, o.CreatedAt
	step, err := rampway.NextStep(o.Area, o.Status, to)
	if err != nil {
		return nil, err
	}
	if change != nil {
		change(o)
	}
	// Identity and creation facts never change.
	o.ID, o.MerchantID, o.Area, o.CreatedAt, o.Status = id, merchantID, area, created, to
	if err := s.updateOrder(ctx, tx, o, at); err != nil {
		return nil, err
	}
	for _, name := range []string{step.Event, step.Then} {
		if name == "" {
			continue
		}
		if err := s.insertEvent(ctx, tx, &rampway.OrderEvent{ID: rampway.NewID(rampway.PrefixEvent, at), OrderID: id, MerchantID: o.MerchantID,
			Name: name, From: step.From, To: step.To, CreatedAt: at}, o); err != nil {
			return nil, err
		}
	}
	if to == rampway.StatusFailed {
		// What the order was paid is owed back: recorded with the failure, never forgotten.
		if err := s.refundFailed(ctx, tx, o, at); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// updateOrder writes every mutable column of o.
func (s *Store) updateOrder(ctx context.Context, tx *sql.Tx, o *rampway.Order, at time.Time) error {
	o.UpdatedAt = at
	args, err := s.orderArgs(o)
	if err != nil {
		return err
	}
	cols := strings.Split(strings.Join(strings.Fields(orderColumns), ""), ",")
	var set []string
	var vals []any
	for i, c := range cols {
		switch c {
		case "id", "merchant_id", "area", "created_at":
			continue
		}
		vals = append(vals, args[i])
		set = append(set, fmt.Sprintf("%s = $%d", c, len(vals)))
	}
	vals = append(vals, o.ID)
	if _, err := tx.ExecContext(ctx, s.q(`UPDATE orders SET `+strings.Join(set, ", ")+fmt.Sprintf(` WHERE id = $%d`, len(vals))), vals...); err != nil {
		if s.d.IsUniqueViolation(err) {
			return rampway.Errorf(rampway.ECONFLICT, "order %s: deposit address already in use", o.ID)
		}
		return fmt.Errorf("update order: %w", err)
	}
	return nil
}

// OrderEvents implements rampway.OrderStore.
func (s *Store) OrderEvents(ctx context.Context, orderID string) ([]*rampway.OrderEvent, error) {
	return collect(ctx, s.db, "list order events", s.q(`SELECT id, order_id, merchant_id, name, from_status, to_status, created_at FROM order_events
		WHERE order_id = $1 ORDER BY seq`), func(row interface{ Scan(...any) error }) (*rampway.OrderEvent, error) {
		var (
			e        rampway.OrderEvent
			from, to string
			at       dbTime
		)
		err := row.Scan(&e.ID, &e.OrderID, &e.MerchantID, &e.Name, &from, &to, &at)
		e.From, e.To, e.CreatedAt = rampway.OrderStatus(from), rampway.OrderStatus(to), at.T
		return &e, err
	}, orderID)
}

// DueOrders implements rampway.OrderStore.
func (s *Store) DueOrders(ctx context.Context, statuses []rampway.OrderStatus, t time.Time, n int) ([]*rampway.Order, error) {
	if len(statuses) == 0 {
		return nil, nil
	}
	var args []any
	for _, st := range statuses {
		args = append(args, string(st))
	}
	in := placeholders(1, len(args))
	args = append(args, s.t(t), limit(n))
	q := `SELECT ` + orderColumns + ` FROM orders WHERE status IN (` + in + `)` +
		fmt.Sprintf(` AND expires_at < $%d ORDER BY expires_at, id LIMIT $%d`, len(args)-1, len(args))
	return s.queryOrders(ctx, "due orders", s.q(q), args...)
}

// OrdersByStatus implements rampway.OrderStore.
func (s *Store) OrdersByStatus(ctx context.Context, network string, status rampway.OrderStatus, n int) ([]*rampway.Order, error) {
	return s.queryOrders(ctx, "orders by status", s.q(`SELECT `+orderColumns+` FROM orders WHERE network = $1 AND status = $2 ORDER BY updated_at, id LIMIT $3`),
		network, string(status), limit(n))
}

// queryOrders runs a query of orderColumns and scans every row; what names the query in errors.
func (s *Store) queryOrders(ctx context.Context, what, query string, args ...any) ([]*rampway.Order, error) {
	return collect(ctx, s.db, what, query, scanOrder, args...)
}

// RecordOrderEvent implements rampway.OrderStore.
func (s *Store) RecordOrderEvent(ctx context.Context, orderID, name string, once bool, at time.Time) (bool, error) {
	recorded := false
	err := s.tx(ctx, func(tx *sql.Tx) error {
		o, err := s.lockOrder(ctx, tx, orderID)
		if err != nil {
			return err
		}
		if once {
			var n int
			if err := tx.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM order_events WHERE order_id = $1 AND name = $2`), orderID, name).Scan(&n); err != nil {
				return fmt.Errorf("order events: %w", err)
			}
			if n > 0 {
				return nil
			}
		}
		recorded = true
		return s.insertEvent(ctx, tx, &rampway.OrderEvent{ID: rampway.NewID(rampway.PrefixEvent, at), OrderID: o.ID, MerchantID: o.MerchantID,
			Name: name, From: o.Status, To: o.Status, CreatedAt: at}, o)
	})
	return recorded, err
}
