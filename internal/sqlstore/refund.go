package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
)

const refundColumns = `id, order_id, cause, network, token, to_address, amount, reason, status, created_at`

// insertRefund records money owed back for an order, once per cause: a second record of the
// same cause is ignored.
func (s *Store) insertRefund(ctx context.Context, tx *sql.Tx, r *rampway.Refund) error {
	token := ""
	if r.Token != (common.Address{}) {
		token = r.Token.Hex()
	}
	to := ""
	if r.To != (common.Address{}) {
		to = r.To.Hex()
	}
	_, err := tx.ExecContext(ctx, s.q(`INSERT INTO refunds (`+refundColumns+`, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)
		ON CONFLICT (order_id, cause) DO NOTHING`),
		r.ID, r.OrderID, r.Cause, r.Network, token, to, bigText(r.Amount), r.Reason, r.Status, s.t(r.CreatedAt))
	if err != nil {
		return fmt.Errorf("insert refund: %w", err)
	}
	return nil
}

func addressOrZero(s string) common.Address {
	if s == "" {
		return common.Address{}
	}
	return common.HexToAddress(s)
}

// Refunds implements rampway.RefundStore.
func (s *Store) Refunds(ctx context.Context, orderID string) ([]*rampway.Refund, error) {
	return s.refunds(ctx, s.db, orderID)
}

// refunds reads an order's refund records, oldest first, through q (the database, or a
// transaction that has just written one).
func (s *Store) refunds(ctx context.Context, q querier, orderID string) ([]*rampway.Refund, error) {
	return collect(ctx, q, "refunds", s.q(`SELECT `+refundColumns+` FROM refunds WHERE order_id = $1 ORDER BY created_at, id`),
		func(row interface{ Scan(...any) error }) (*rampway.Refund, error) {
			var (
				r                 rampway.Refund
				token, to, amount string
				created           dbTime
			)
			if err := row.Scan(&r.ID, &r.OrderID, &r.Cause, &r.Network, &token, &to, &amount, &r.Reason, &r.Status, &created); err != nil {
				return nil, err
			}
			r.Token, r.To, r.CreatedAt = addressOrZero(token), addressOrZero(to), created.T
			var err error
			r.Amount, err = parseBig(amount, "amount")
			return &r, err
		}, orderID)
}
