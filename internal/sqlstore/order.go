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
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
)

const orderColumns = `id, merchant_id, area, status, merchant_user_id, merchant_txn_id, merchant_redirect_url,
	merchant_webhook_url, user_info, network, asset_symbol, asset_contract, asset_decimals, crypto_amount, crypto_received,
	function_id, function_args, payment_value, gas_limit, network_fee, service_fee, deposit_address, deposit_index,
	execution_tx_hash, failure_reason, expires_at, created_at, updated_at, fiat_symbol, fiat_method, fiat_amount, fiat_decimals,
	fiat_payment_id, payout_address, method_quotes, fiat_pricing, livemode, webhooks_off`

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
	if len(o.User) == 0 {
		user = []byte("{}")
	} else {
		// Identity data is kept encrypted when an encryption key is configured.
		user = []byte(s.box.Seal(string(user)))
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
	payout := ""
	if o.PayoutAddress != (common.Address{}) {
		payout = o.PayoutAddress.Hex()
	}
	quotes := ""
	if len(o.MethodQuotes) > 0 {
		b, err := json.Marshal(o.MethodQuotes)
		if err != nil {
			return nil, err
		}
		quotes = string(b)
	}
	pricing := ""
	if o.FiatPricing != nil {
		b, err := json.Marshal(o.FiatPricing)
		if err != nil {
			return nil, err
		}
		pricing = string(b)
	}
	return []any{o.ID, o.MerchantID, string(o.Area), string(o.Status), o.MerchantUserID, o.MerchantTxnID, o.MerchantRedirectURL,
		o.MerchantWebhookURL, string(user), o.Network, o.Asset.Symbol, contract, int64(o.Asset.Decimals), bigText(o.CryptoAmount),
		bigText(o.CryptoReceived), o.FunctionID, string(args), bigText(o.PaymentValue), int64(o.GasLimit), bigText(o.NetworkFee),
		bigText(o.ServiceFee), depAddr, depIndex, o.ExecutionTxHash, o.FailureReason, s.t(o.ExpiresAt), s.t(o.CreatedAt), s.t(o.UpdatedAt),
		o.FiatSymbol, o.FiatMethod, bigText(o.FiatAmount), int64(o.FiatDecimals), o.FiatPaymentID, payout, quotes, pricing, o.Livemode, o.WebhooksOff}, nil
}

func (s *Store) scanOrder(row interface{ Scan(...any) error }) (*rampway.Order, error) {
	var (
		o                                         rampway.Order
		area, status, user, contract, args        string
		amount, received, payment, netFee, svcFee string
		fiatAmount, payout, quotes, pricing       string
		decimals, gas, fiatDecimals               int64
		depAddr                                   sql.NullString
		depIndex                                  sql.NullInt64
		expires, created, updated                 dbTime
	)
	if err := row.Scan(&o.ID, &o.MerchantID, &area, &status, &o.MerchantUserID, &o.MerchantTxnID, &o.MerchantRedirectURL,
		&o.MerchantWebhookURL, &user, &o.Network, &o.Asset.Symbol, &contract, &decimals, &amount, &received,
		&o.FunctionID, &args, &payment, &gas, &netFee, &svcFee, &depAddr, &depIndex,
		&o.ExecutionTxHash, &o.FailureReason, &expires, &created, &updated, &o.FiatSymbol, &o.FiatMethod, &fiatAmount, &fiatDecimals,
		&o.FiatPaymentID, &payout, &quotes, &pricing, &o.Livemode, &o.WebhooksOff); err != nil {
		return nil, err
	}
	o.Area, o.Status = rampway.Area(area), rampway.OrderStatus(status)
	user, err := s.box.Open(user)
	if err != nil {
		return nil, fmt.Errorf("order %s user_info: %w", o.ID, err)
	}
	if err := json.Unmarshal([]byte(user), &o.User); err != nil {
		return nil, fmt.Errorf("order %s user_info: %w", o.ID, err)
	}
	o.Asset.Network = o.Network
	if contract != "" {
		o.Asset.Contract = common.HexToAddress(contract)
	}
	o.Asset.Decimals = uint8(decimals)
	for _, f := range []struct {
		dst    **big.Int
		text   string
		column string
	}{{&o.CryptoAmount, amount, "crypto_amount"}, {&o.CryptoReceived, received, "crypto_received"},
		{&o.PaymentValue, payment, "payment_value"}, {&o.NetworkFee, netFee, "network_fee"}, {&o.ServiceFee, svcFee, "service_fee"},
		{&o.FiatAmount, fiatAmount, "fiat_amount"}} {
		if *f.dst, err = parseBig(f.text, f.column); err != nil {
			return nil, fmt.Errorf("order %s: %w", o.ID, err)
		}
	}
	o.FunctionArgs = json.RawMessage(args)
	o.GasLimit, o.FiatDecimals = uint64(gas), uint8(fiatDecimals)
	if o.FiatSymbol == "" {
		o.FiatAmount = nil // no fiat side (area A)
	}
	if payout != "" {
		o.PayoutAddress = common.HexToAddress(payout)
	}
	if quotes != "" {
		if err := json.Unmarshal([]byte(quotes), &o.MethodQuotes); err != nil {
			return nil, fmt.Errorf("order %s method_quotes: %w", o.ID, err)
		}
	}
	if pricing != "" {
		o.FiatPricing = new(rampway.FiatPricing)
		if err := json.Unmarshal([]byte(pricing), o.FiatPricing); err != nil {
			return nil, fmt.Errorf("order %s fiat_pricing: %w", o.ID, err)
		}
	}
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

// AdvanceDepositIndex moves the deposit address counter on by n: the next new order's address
// is derived at an index n further than it would have been. After a restore from a backup the
// counter is back where the backup had it, and the addresses of the orders made since (gone
// with them) would be handed out again: a late payment to one would count for a new order.
// It returns the next index before and after.
func (s *Store) AdvanceDepositIndex(ctx context.Context, n int64) (before, after int64, err error) {
	if n < 1 || n >= 1<<31 {
		return 0, 0, rampway.Errorf(rampway.EINVALID, "advance the deposit index: %d is not between 1 and %d", n, int64(1<<31-1))
	}
	err = s.tx(ctx, func(tx *sql.Tx) error {
		if s.d.PeekIndexSQL != "" {
			if err := tx.QueryRowContext(ctx, s.q(s.d.PeekIndexSQL)).Scan(&before); err != nil {
				return err
			}
			if before+n >= 1<<31 {
				return rampway.Errorf(rampway.EINVALID, "advance the deposit index: %d + %d is past the derivation range (2^31)", before, n)
			}
			return tx.QueryRowContext(ctx, s.q(s.d.AdvanceIndexSQL), n).Scan(&after)
		}
		var last int64
		if err := tx.QueryRowContext(ctx, s.q(`SELECT value FROM sequences WHERE name = 'deposit_index'`)).Scan(&last); err != nil {
			return err
		}
		before = last + 1
		if before+n >= 1<<31 {
			return rampway.Errorf(rampway.EINVALID, "advance the deposit index: %d + %d is past the derivation range (2^31)", before, n)
		}
		if err := tx.QueryRowContext(ctx, s.q(`UPDATE sequences SET value = value + $1 WHERE name = 'deposit_index' RETURNING value`), n).Scan(&last); err != nil {
			return err
		}
		after = last + 1
		return nil
	})
	if e := (*rampway.Error)(nil); err != nil && !errors.As(err, &e) {
		err = fmt.Errorf("advance the deposit index: %w", err)
	}
	return before, after, err
}

// PeekDepositIndex is the derivation index the next new order's deposit address gets (under
// concurrent orders, a moment's view).
func (s *Store) PeekDepositIndex(ctx context.Context) (int64, error) {
	var next int64
	q := s.d.PeekIndexSQL
	if q == "" {
		q = `SELECT value + 1 FROM sequences WHERE name = 'deposit_index'`
	}
	if err := s.db.QueryRowContext(ctx, s.q(q)).Scan(&next); err != nil {
		return 0, fmt.Errorf("the next deposit index: %w", err)
	}
	return next, nil
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

// insertEvent records an event of order o (as it is after the event) and its webhook delivery,
// whose body it renders.
func (s *Store) insertEvent(ctx context.Context, tx *sql.Tx, e *rampway.OrderEvent, o *rampway.Order) error {
	seq, err := s.insertEventRow(ctx, tx, e)
	if err != nil {
		return err
	}
	return s.insertDelivery(ctx, tx, e, seq, o, nil)
}

// insertRenderedEvent records an event the domain decided (rampway.Apply), with the body it
// rendered, and its webhook delivery.
func (s *Store) insertRenderedEvent(ctx context.Context, tx *sql.Tx, e *rampway.RenderedEvent, o *rampway.Order) error {
	seq, err := s.insertEventRow(ctx, tx, e.OrderEvent)
	if err != nil {
		return err
	}
	return s.insertDelivery(ctx, tx, e.OrderEvent, seq, o, e.Body)
}

// insertEventRow records an event and returns its place among all events.
func (s *Store) insertEventRow(ctx context.Context, tx *sql.Tx, e *rampway.OrderEvent) (int64, error) {
	var seq int64
	if err := tx.QueryRowContext(ctx, s.q(insertEvents.get(1)+` RETURNING seq`), s.eventArgs(e)...).Scan(&seq); err != nil {
		return 0, fmt.Errorf("insert order event: %w", err)
	}
	return seq, nil
}

// insertStatusEvent records, inside tx, an event of the locked order o that is not a
// transition: o keeps its status, which is the event's From and To. Its webhook delivery goes
// with it as a transition's does (insertEvent). Such events are the hosted page's
// (RecordOrderEvent) and the order.deposit.success of a transfer credited to an order that it
// does not move (ConfirmTransfer); every change an order's causes make goes through applyTx.
func (s *Store) insertStatusEvent(ctx context.Context, tx *sql.Tx, o *rampway.Order, name rampway.EventName, at time.Time) error {
	return s.insertEvent(ctx, tx, &rampway.OrderEvent{ID: rampway.NewID(rampway.PrefixEvent, at), OrderID: o.ID, MerchantID: o.MerchantID,
		Name: name, From: o.Status, To: o.Status, CreatedAt: at}, o)
}

// CreateOrder implements rampway.OrderStore: the order goes with the others created meanwhile
// (batchedOrder).
func (s *Store) CreateOrder(ctx context.Context, o *rampway.Order) error {
	return s.CreateOrderWithReply(ctx, o, nil)
}

// CreateOrderWithReply implements rampway.OrderStore: the reply is stored in the order's own
// transaction (createOrders), and only while its key's claim is still its own; else the
// order is not stored either (rampway.ErrClaimLost).
func (s *Store) CreateOrderWithReply(ctx context.Context, o *rampway.Order, reply *rampway.IdempotentReply) error {
	n, err := s.newOrder(o)
	if err != nil {
		return err
	}
	if reply != nil {
		if reply.MerchantID != o.MerchantID {
			return fmt.Errorf("create order: the reply's merchant %s is not the order's %s", reply.MerchantID, o.MerchantID)
		}
		n.reply = reply
	}
	return s.batchedOrder(ctx, n)
}

// newOrder is an order to create with what its rows need, made by the caller's goroutine
// before the order joins a batch (which writes batches one at a time, or two): its columns,
// its order.created event and, where the dialect sends it with the statement, the event's
// webhook body.
type newOrder struct {
	*rampway.Order
	args  []any
	event *rampway.OrderEvent
	body  []byte
	reply *rampway.IdempotentReply // nil without an Idempotency-Key
}

func (s *Store) newOrder(o *rampway.Order) (*newOrder, error) {
	args, err := s.orderArgs(o)
	if err != nil {
		return nil, fmt.Errorf("create order: %w", err)
	}
	n := &newOrder{Order: o, args: args, event: createdEvent(o)}
	if s.d.WritableCTE {
		if _, err := n.eventBody(); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// eventBody returns the body of the order's order.created delivery.
func (n *newOrder) eventBody() ([]byte, error) {
	if n.body == nil {
		body, err := rampway.EventBody(n.event, n.Order, nil, nil) // a new order has no deposits or refunds yet
		if err != nil {
			return nil, fmt.Errorf("event body: %w", err)
		}
		n.body = body
	}
	return n.body, nil
}

// createOrders writes new orders, each with its order.created event and that event's
// delivery, in tx: three or four statements for all of them.
func (s *Store) createOrders(ctx context.Context, tx *sql.Tx, orders []*newOrder) error {
	var args []any
	plain := make([]*rampway.Order, len(orders))
	for i, o := range orders {
		args = append(args, o.args...)
		plain[i] = o.Order
	}
	if _, err := tx.ExecContext(ctx, s.q(insertOrders.get(len(orders))), args...); err != nil {
		return ordersInsertError(s, orders, err)
	}
	targets, err := s.deliveryTargets(ctx, tx, plain)
	if err != nil {
		return err
	}
	args = args[:0]
	for _, o := range orders {
		args = append(args, s.eventArgs(o.event)...)
	}
	for _, o := range orders {
		if o.reply != nil {
			// Only under a claim still ours: one taken over by a later request with the key
			// (this one ran too long) fails the order, which that request creates instead.
			if err := s.finishIdempotent(ctx, tx, o.reply); err != nil {
				return err
			}
		}
	}
	insertEvents := insertEvents.get(len(orders))
	if len(targets) == 0 {
		if _, err := tx.ExecContext(ctx, s.q(insertEvents), args...); err != nil {
			return fmt.Errorf("insert order events: %w", err)
		}
		return nil
	}
	seqs := make(map[string]int64, len(orders))
	evRows, err := collect(ctx, tx, "insert order events", s.q(insertEvents+` RETURNING id, seq`), func(r interface{ Scan(...any) error }) (idSeq, error) {
		var v idSeq
		return v, r.Scan(&v.id, &v.seq)
	}, args...)
	if err != nil {
		return err
	}
	for _, r := range evRows {
		seqs[r.id] = r.seq
	}
	args = args[:0]
	for _, o := range orders {
		url, ok := targets[o.ID]
		if !ok {
			continue
		}
		body, err := o.eventBody()
		if err != nil {
			return err
		}
		e := o.event
		at := s.t(e.CreatedAt)
		args = append(args, e.ID, seqs[e.ID], e.Name, o.ID, o.MerchantID, url, body, at, at, at, o.Livemode)
	}
	_, err = tx.ExecContext(ctx, s.q(insertDeliveries.get(len(targets))), args...)
	if err != nil {
		return fmt.Errorf("insert deliveries: %w", err)
	}
	return nil
}

type idSeq struct {
	id  string
	seq int64
}

// createOrdersStatement writes new orders, each with its order.created event and that
// event's delivery, in one statement (createOrdersCTE), outside any transaction: the
// statement is one.
func (s *Store) createOrdersStatement(ctx context.Context, orders []*newOrder) error {
	n := len(orders)
	args := make([]any, 0, n*(orderColumnCount+2))
	for _, o := range orders {
		args = append(args, o.args...)
	}
	for _, o := range orders {
		body, err := o.eventBody()
		if err != nil {
			return err
		}
		args = append(args, o.event.ID, body)
	}
	if _, err := s.db.ExecContext(ctx, s.q(createOrdersCTE.get(n)), args...); err != nil {
		return ordersInsertError(s, orders, err)
	}
	return nil
}

// orderColumnCount is the number of orderColumns, c below ($1 to $c an order's row).
var orderColumnCount = strings.Count(orderColumns, ",") + 1

// forRows is a statement for n rows (1 to maxBatch), built once for each n.
type forRows struct {
	build func(n int) string
	once  [maxBatch + 1]sync.Once
	query [maxBatch + 1]string
}

func (f *forRows) get(n int) string {
	f.once[n].Do(func() { f.query[n] = f.build(n) })
	return f.query[n]
}

// insertOrders inserts n orders' columns: $1 to $c the first's, $c+1 to $2c the second's...
var insertOrders = &forRows{build: func(n int) string {
	return `INSERT INTO orders (` + orderColumns + `) VALUES ` + rows(n, orderColumnCount, 1)
}}

// insertEvents inserts n order events, 7 values each (eventArgs).
var insertEvents = &forRows{build: func(n int) string {
	return `INSERT INTO order_events (id, order_id, merchant_id, name, from_status, to_status, created_at) VALUES ` + rows(n, 7, 1)
}}

// eventArgs are an event's values for insertEvents.
func (s *Store) eventArgs(e *rampway.OrderEvent) []any {
	return []any{e.ID, e.OrderID, e.MerchantID, e.Name, string(e.From), string(e.To), s.t(e.CreatedAt)}
}

// insertDeliveries inserts n pending webhook deliveries, 11 values each: event id, seq and
// name, order and merchant ids, URL, body, the time three times (the first attempt's,
// created, updated), and the order's mode.
var insertDeliveries = &forRows{build: func(n int) string {
	return `INSERT INTO webhook_deliveries (event_id, event_seq, event_name, order_id, merchant_id, url, body,
		next_attempt_at, created_at, updated_at, livemode, status) VALUES ` + strings.ReplaceAll(rows(n, 11, 1), ")", ", 'pending')")
}}

// createOrdersCTE writes n orders in one statement: the orders (insertOrders), their events
// ($cn+2k+1 the event id of the order k, from 0) and, for each order that has a webhook URL,
// or else whose merchant has one, whose merchant has a secret of its mode and whose events
// are not off (Order.WebhooksOff), the event's delivery ($cn+2k+2 its body). The foreign keys
// are checked at the end of the statement, when all the rows exist. Orders with an
// Idempotency-Key reply are not written this way (runBatch): theirs must be stored only under
// a claim still theirs, or the order not at all.
var createOrdersCTE = &forRows{build: func(n int) string {
	var ev, del strings.Builder
	for k := range n {
		if k > 0 {
			ev.WriteString(", ")
			del.WriteString(", ")
		}
		o := orderColumnCount * k
		x := orderColumnCount*n + 2*k
		c := cteColumns
		fmt.Fprintf(&ev, "($%d, $%d, $%d, '%s', '', $%d, $%d)", x+1, o+c.id, o+c.merchant, rampway.EventCreated, o+c.status, o+c.created)
		fmt.Fprintf(&del, "($%d::text, $%d::text, $%d::bytea, $%d::boolean, $%d::boolean)", x+1, o+c.webhookURL, x+2, o+c.livemode, o+c.webhooksOff)
	}
	return `WITH o AS (` + insertOrders.get(n) + `),
	e AS (INSERT INTO order_events (id, order_id, merchant_id, name, from_status, to_status, created_at)
		VALUES ` + ev.String() + ` RETURNING id, seq, name, order_id, merchant_id, created_at)
	INSERT INTO webhook_deliveries (event_id, event_seq, event_name, order_id, merchant_id, url, body, status,
		next_attempt_at, created_at, updated_at, livemode)
	SELECT e.id, e.seq, e.name, e.order_id, e.merchant_id, COALESCE(NULLIF(d.url, ''), m.webhook_url), d.body, 'pending',
		e.created_at, e.created_at, e.created_at, d.livemode
	FROM e JOIN (VALUES ` + del.String() + `) AS d (event_id, url, body, livemode, off) ON d.event_id = e.id
		JOIN merchants m ON m.id = e.merchant_id
	WHERE COALESCE(NULLIF(d.url, ''), m.webhook_url) != '' AND NOT d.off
		AND CASE WHEN d.livemode THEN m.live_webhook_secret ELSE m.webhook_secret END != ''`
}}

// cteColumns are the positions in orderColumns (from 1) of the columns createOrdersCTE reads
// again, found when the package is loaded: a name orderColumns lacks fails every use of the
// package at once (its tests first), never a request.
var cteColumns = struct{ id, merchant, status, created, webhookURL, livemode, webhooksOff int }{
	orderColumn("id"), orderColumn("merchant_id"), orderColumn("status"), orderColumn("created_at"),
	orderColumn("merchant_webhook_url"), orderColumn("livemode"), orderColumn("webhooks_off")}

// orderColumn is the position of the column name in orderColumns, from 1.
func orderColumn(name string) int {
	i := slices.Index(orderColumnNames, name)
	if i < 0 {
		panic("orderColumns has no column " + name)
	}
	return i + 1
}

// orderColumnNames are orderColumns, one name each.
var orderColumnNames = strings.Split(strings.Join(strings.Fields(orderColumns), ""), ",")

// createdEvent is a new order's order.created event.
func createdEvent(o *rampway.Order) *rampway.OrderEvent {
	return &rampway.OrderEvent{ID: rampway.NewID(rampway.PrefixEvent, o.CreatedAt), OrderID: o.ID,
		MerchantID: o.MerchantID, Name: rampway.EventCreated, From: "", To: o.Status, CreatedAt: o.CreatedAt}
}

// ordersInsertError is the error of an INSERT of orders: ECONFLICT when it was one order whose
// id or deposit index exists; for several, the database's error (each is then tried alone).
func ordersInsertError(s *Store, orders []*newOrder, err error) error {
	if len(orders) == 1 && s.d.IsUniqueViolation(err) {
		return rampway.Errorf(rampway.ECONFLICT, "order %s or its deposit index %d already exists", orders[0].ID, orders[0].DepositIndex)
	}
	return fmt.Errorf("insert %d order(s): %w", len(orders), err)
}

// placeholders returns "$from, ..., $to": an INSERT's values, an IN list.
func placeholders(from, to int) string {
	ph := make([]string, 0, to-from+1)
	for i := from; i <= to; i++ {
		ph = append(ph, fmt.Sprintf("$%d", i))
	}
	return strings.Join(ph, ", ")
}

// rows returns n rows of width placeholders each, numbered from first on: "($1, $2), ($3, $4)".
func rows(n, width, first int) string {
	r := make([]string, n)
	for i := range r {
		r[i] = "(" + placeholders(first+i*width, first+(i+1)*width-1) + ")"
	}
	return strings.Join(r, ", ")
}

// Order implements rampway.OrderStore.
func (s *Store) Order(ctx context.Context, id string) (*rampway.Order, error) {
	o, err := s.scanOrder(s.db.QueryRowContext(ctx, s.q(`SELECT `+orderColumns+` FROM orders WHERE id = $1`), id))
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
	if f.Area == "" {
		return nil, rampway.Errorf(rampway.EINVALID, "a list of orders is of one area")
	}
	add("merchant_id = ?", f.MerchantID)
	add("livemode = ?", f.Livemode)
	add("area = ?", string(f.Area))
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

// lockOrder reads an order for update inside tx.
func (s *Store) lockOrder(ctx context.Context, tx *sql.Tx, id string) (*rampway.Order, error) {
	o, err := s.scanOrder(tx.QueryRowContext(ctx, s.q(`SELECT `+orderColumns+` FROM orders WHERE id = $1`+s.d.ForUpdate), id))
	if err != nil {
		return nil, notFound(err, "order")
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
	var set []string
	var vals []any
	for i, c := range orderColumnNames {
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
	return collect(ctx, s.db, "list order events", s.q(`SELECT id, order_id, merchant_id, name, from_status, to_status, created_at, seq FROM order_events
		WHERE order_id = $1 ORDER BY seq`), func(row interface{ Scan(...any) error }) (*rampway.OrderEvent, error) {
		var (
			e        rampway.OrderEvent
			from, to string
			at       dbTime
		)
		err := row.Scan(&e.ID, &e.OrderID, &e.MerchantID, &e.Name, &from, &to, &at, &e.Seq)
		e.From, e.To, e.CreatedAt = rampway.OrderStatus(from), rampway.OrderStatus(to), at.T
		return &e, err
	}, orderID)
}

// DueOrders implements rampway.OrderStore.
func (s *Store) DueOrders(ctx context.Context, statuses []rampway.OrderStatus, t time.Time, n int) ([]*rampway.Order, error) {
	if len(statuses) == 0 {
		return nil, nil
	}
	// Each status's oldest first, by the status index (status, expires_at): a page of each read
	// in order, then the page of all; never every order past its time read and sorted (100,000
	// orders expiring at once would be read again for every page of them).
	args := []any{s.t(t), limit(n)}
	var parts []string
	for _, st := range statuses {
		args = append(args, string(st))
		parts = append(parts, fmt.Sprintf(`SELECT * FROM (SELECT `+orderColumns+` FROM orders WHERE status = $%d AND expires_at < $1
			ORDER BY expires_at, id LIMIT $2) AS s%d`, len(args), len(args)))
	}
	q := `SELECT * FROM (` + strings.Join(parts, " UNION ALL ") + `) AS due ORDER BY expires_at, id LIMIT $2`
	return s.queryOrders(ctx, "due orders", s.q(q), args...)
}

// awaitingExecution are the states in which an order's execution may start (rampway.Rules:
// DEPOSIT_SUCCESS, ONRAMP_SUCCESS), as the partial index orders_network_paid names them.
var awaitingExecution = sqlStatuses(rampway.StatusesTakingAny(rampway.CauseExecutionStarted))

// sqlStatuses writes order states as a list of SQL literals, for an IN (...) written in the
// query (the states come from the rule table, never from a request).
func sqlStatuses(ss []rampway.OrderStatus) string {
	q := make([]string, len(ss))
	for i, st := range ss {
		q[i] = "'" + string(st) + "'"
	}
	return strings.Join(q, ", ")
}

// PaidOrders implements rampway.OrderStore.
func (s *Store) PaidOrders(ctx context.Context, network string, n int) ([]*rampway.Order, error) {
	// The states are in the query, not parameters, and written as the partial index of paid
	// orders (orders_network_paid) writes them, so that the planner can use it in a plan made
	// for any parameters.
	return s.queryOrders(ctx, "paid orders", s.q(`SELECT `+orderColumns+` FROM orders`+s.indexed("orders_network_paid")+` WHERE network = $1 AND status IN (`+
		awaitingExecution+`) ORDER BY updated_at, id LIMIT $2`), network, limit(n))
}

// queryOrders runs a query of orderColumns and scans every row; what names the query in errors.
func (s *Store) queryOrders(ctx context.Context, what, query string, args ...any) ([]*rampway.Order, error) {
	return collect(ctx, s.db, what, query, s.scanOrder, args...)
}

// RecordOrderEvent implements rampway.OrderStore.
func (s *Store) RecordOrderEvent(ctx context.Context, orderID string, name rampway.EventName, once bool, at time.Time) (bool, error) {
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
		return s.insertStatusEvent(ctx, tx, o, name, at)
	})
	return recorded, err
}

// RecordVisitEvent implements rampway.OrderStore: the visit's row and the event go in one
// transaction, with the order locked (two beacons of one visit at once record one event).
func (s *Store) RecordVisitEvent(ctx context.Context, orderID string, name rampway.EventName, visit string, at time.Time) (bool, error) {
	if visit == "" || len(visit) > rampway.MaxVisitLength {
		return false, rampway.Errorf(rampway.EINVALID, "a visit is 1 to %d characters", rampway.MaxVisitLength)
	}
	recorded := false
	err := s.tx(ctx, func(tx *sql.Tx) error {
		o, err := s.lockOrder(ctx, tx, orderID)
		if err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM checkout_visits WHERE order_id = $1 AND name = $2`), orderID, name).Scan(&n); err != nil {
			return fmt.Errorf("checkout visits: %w", err)
		}
		if n >= rampway.MaxVisitsPerOrder {
			return nil
		}
		res, err := tx.ExecContext(ctx, s.q(`INSERT INTO checkout_visits (order_id, name, visit, created_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT (order_id, name, visit) DO NOTHING`), orderID, name, visit, s.t(at))
		if err != nil {
			return fmt.Errorf("checkout visit: %w", err)
		}
		if k, err := res.RowsAffected(); err != nil || k == 0 {
			return err // recorded before
		}
		recorded = true
		return s.insertStatusEvent(ctx, tx, o, name, at)
	})
	return recorded, err
}

// SetOrderUser adds user fields to an order's (the hosted page's identity step).
func (s *Store) SetOrderUser(ctx context.Context, orderID string, fields map[string]string, at time.Time) (*rampway.Order, error) {
	var out *rampway.Order
	err := s.tx(ctx, func(tx *sql.Tx) error {
		o, err := s.lockOrder(ctx, tx, orderID)
		if err != nil {
			return err
		}
		if o.User == nil {
			o.User = map[string]string{}
		}
		for k, v := range fields {
			o.User[k] = v
		}
		out = o
		return s.updateOrder(ctx, tx, o, at)
	})
	return out, err
}
