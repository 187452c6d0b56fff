package sqlstore

import (
	"context"
	"fmt"
	"time"
)

// Stats are the work queues as an operator watches them.
type Stats struct {
	// DeliveriesPending counts the deliveries to be sent, DeliveriesHeld apart those held
	// while their merchant is disabled.
	DeliveriesPending int64
	DeliveriesHeld    int64
	DeliveriesFailed  int64
	// OldestPendingDelivery is the age of the oldest pending delivery not held (0 when none).
	OldestPendingDelivery time.Duration
	// AwaitingExecution counts paid orders not yet sent (DEPOSIT_SUCCESS, ONRAMP_SUCCESS), and
	// OldestAwaitingExecution is how long the longest waiting has waited (0 when none): the
	// alert that the hot wallet cannot pay, or a node refuses its transactions.
	AwaitingExecution       int64
	OldestAwaitingExecution time.Duration
	// FiatActionsPending counts captures, voids and refunds not yet done by the provider;
	// FiatActionsNeedOperator those given up on, waiting for an operator.
	FiatActionsPending, FiatActionsNeedOperator int64
	// TxsPending counts signed transactions not yet mined deep enough.
	TxsPending int64
	// RefundsPending counts refunds on their way (pending, sent); RefundsAwaitingApproval
	// those above their asset's automatic limit, RefundsAwaitingAddress those whose payer
	// cannot take them back, RefundsFailed those whose transaction reverted: the last three
	// wait for a person.
	RefundsPending, RefundsAwaitingApproval, RefundsAwaitingAddress, RefundsFailed int64
}

// Stats reads the queue sizes (a few indexed counts).
func (s *Store) Stats(ctx context.Context, now time.Time) (Stats, error) {
	var st Stats
	var oldest, oldestPaid dbTime
	for _, q := range []struct {
		sql string
		dst any
	}{
		{`SELECT COUNT(*) FROM webhook_deliveries WHERE status = 'pending' AND held_at IS NULL`, &st.DeliveriesPending},
		{`SELECT COUNT(*) FROM webhook_deliveries WHERE status = 'pending' AND held_at IS NOT NULL`, &st.DeliveriesHeld},
		{`SELECT COUNT(*) FROM webhook_deliveries WHERE status = 'failed'`, &st.DeliveriesFailed},
		{`SELECT MIN(created_at) FROM webhook_deliveries WHERE status = 'pending' AND held_at IS NULL`, &oldest},
		{`SELECT COUNT(*) FROM orders WHERE status IN (` + awaitingExecution + `)`, &st.AwaitingExecution},
		{`SELECT MIN(updated_at) FROM orders WHERE status IN (` + awaitingExecution + `)`, &oldestPaid},
		{`SELECT COUNT(*) FROM fiat_actions WHERE status = 'pending'`, &st.FiatActionsPending},
		{`SELECT COUNT(*) FROM fiat_actions WHERE status = 'needs_operator'`, &st.FiatActionsNeedOperator},
		{`SELECT COUNT(*) FROM chain_txs WHERE status = 'pending'`, &st.TxsPending},
		{`SELECT COUNT(*) FROM refunds WHERE status IN ('pending', 'sent')`, &st.RefundsPending},
		{`SELECT COUNT(*) FROM refunds WHERE status = 'awaiting_approval'`, &st.RefundsAwaitingApproval},
		{`SELECT COUNT(*) FROM refunds WHERE status = 'awaiting_address'`, &st.RefundsAwaitingAddress},
		{`SELECT COUNT(*) FROM refunds WHERE status = 'failed' AND merchant_id = ''`, &st.RefundsFailed}, // a merchant's is not sent again
	} {
		if err := s.db.QueryRowContext(ctx, s.q(q.sql)).Scan(q.dst); err != nil {
			return Stats{}, fmt.Errorf("stats: %w", err)
		}
	}
	if oldest.Valid {
		st.OldestPendingDelivery = now.Sub(oldest.T)
	}
	if oldestPaid.Valid {
		st.OldestAwaitingExecution = now.Sub(oldestPaid.T)
	}
	return st, nil
}

// openStatuses are the states of an order that may still take or move money.
const openStatuses = `'CREATED', 'DEPOSIT_PROCESSING', 'UNDERPAID', 'DEPOSIT_SUCCESS', 'ONRAMP_PROCESSING', 'ONRAMP_SUCCESS',
	'SMARTCONTRACT_PROCESSING', 'REFUND_PENDING'`

// OpenOrdersOfMode counts a network's orders of a mode that may still take or move money. At
// start, those of the other mode than their network's (an upgrade that made a testnet's orders
// live; a network's mode changed) are told to the operator: the executor will fail them.
func (s *Store) OpenOrdersOfMode(ctx context.Context, network string, livemode bool) (int64, error) {
	var n int64
	err := s.db.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM orders`+s.indexed("orders_status")+` WHERE status IN (`+openStatuses+`) AND network = $1 AND livemode = $2`),
		network, livemode).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("open orders of a mode: %w", err)
	}
	return n, nil
}

// ProvidersInUse returns, by provider name, how many payments each provider still holds: payments
// waiting for the user or the provider (pending, processing), authorised and not yet captured or
// voided, or with a capture, void or refund not yet done. A provider that holds some must stay
// configured: its notifications and actions have nowhere else to go.
func (s *Store) ProvidersInUse(ctx context.Context) (map[string]int64, error) {
	type row struct {
		name string
		n    int64
	}
	// Each part by an index of its own (fiat_payments_open, fiat_actions_due,
	// fiat_actions_operator): the cost follows what is open, not every payment ever made.
	rows, err := collect(ctx, s.db, "providers in use", s.q(providersInUse), func(r interface{ Scan(...any) error }) (row, error) {
		var x row
		return x, r.Scan(&x.name, &x.n)
	})
	if err != nil {
		return nil, err
	}
	out := make(map[string]int64, len(rows))
	for _, r := range rows {
		out[r.name] = r.n
	}
	return out, nil
}

// providersInUse counts, by provider, the payments that are open or have an open action.
const providersInUse = `SELECT provider, COUNT(*) FROM (
	SELECT provider, id FROM fiat_payments WHERE status IN ('pending', 'processing', 'authorized')
	UNION SELECT p.provider, p.id FROM fiat_actions a JOIN fiat_payments p ON p.id = a.payment_id WHERE a.status = 'pending'
	UNION SELECT p.provider, p.id FROM fiat_actions a JOIN fiat_payments p ON p.id = a.payment_id WHERE a.status = 'needs_operator'
	) open GROUP BY provider`
