package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
)

const refundColumns = `id, order_id, cause, network, token, to_address, to_source, amount, fee, sent, reason, status, status_reason,
	tx_hash, approved_by, approved_at, created_at, updated_at, merchant_id, livemode, currency, destination, provider_ref`

// insertRefund records money owed back for an order, once per cause: a second record of the
// same cause is ignored.
func (s *Store) insertRefund(ctx context.Context, tx *sql.Tx, r *rampway.Refund) error {
	token := ""
	if r.Token != (common.Address{}) {
		token = r.Token.Hex()
	}
	to, source := "", ""
	if r.To != (common.Address{}) {
		to, source = r.To.Hex(), cmpOr(r.ToSource, rampway.RefundToPayer)
	}
	_, err := tx.ExecContext(ctx, s.q(`INSERT INTO refunds (id, order_id, cause, network, token, to_address, to_source, amount, reason, status,
		status_reason, created_at, updated_at, merchant_id, livemode, currency, destination) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10,
		$11, $12, $12, $13, $14, $15, $16)
		ON CONFLICT (order_id, cause) DO NOTHING`),
		r.ID, r.OrderID, r.Cause, r.Network, token, to, source, bigText(r.Amount), r.Reason, string(r.Status), r.StatusReason, s.t(r.CreatedAt),
		r.Merchant, r.Livemode, r.Currency, r.Destination)
	if err != nil {
		return fmt.Errorf("insert refund: %w", err)
	}
	return nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func addressOrZero(s string) common.Address {
	if s == "" {
		return common.Address{}
	}
	return common.HexToAddress(s)
}

// optionalBig parses an amount column that is empty until it is known.
func optionalBig(s, column string) (*big.Int, error) {
	if s == "" {
		return nil, nil
	}
	return parseBig(s, column)
}

func optionalBigText(v *big.Int) string {
	if v == nil {
		return ""
	}
	return v.String()
}

func scanRefund(row interface{ Scan(...any) error }) (*rampway.Refund, error) {
	var (
		r                              rampway.Refund
		token, to, amount, fee, sent   string
		hash                           string
		approved, created, updatedTime dbTime
	)
	if err := row.Scan(&r.ID, &r.OrderID, &r.Cause, &r.Network, &token, &to, &r.ToSource, &amount, &fee, &sent, &r.Reason, &r.Status,
		&r.StatusReason, &hash, &r.ApprovedBy, &approved, &created, &updatedTime, &r.Merchant, &r.Livemode, &r.Currency, &r.Destination,
		&r.ProviderRef); err != nil {
		return nil, err
	}
	r.Token, r.To, r.CreatedAt, r.UpdatedAt = addressOrZero(token), addressOrZero(to), created.T, updatedTime.T
	if approved.Valid {
		r.ApprovedAt = approved.T
	}
	if hash != "" {
		r.TxHash = common.HexToHash(hash)
	}
	var err error
	if r.Amount, err = parseBig(amount, "amount"); err != nil {
		return nil, err
	}
	if r.Fee, err = optionalBig(fee, "fee"); err != nil {
		return nil, err
	}
	r.Sent, err = optionalBig(sent, "sent")
	return &r, err
}

// Refunds implements rampway.RefundStore.
func (s *Store) Refunds(ctx context.Context, orderID string) ([]*rampway.Refund, error) {
	return s.refunds(ctx, s.db, orderID)
}

// refunds reads an order's refund records, oldest first, through q (the database, or a
// transaction that has just written one).
func (s *Store) refunds(ctx context.Context, q querier, orderID string) ([]*rampway.Refund, error) {
	return collect(ctx, q, "refunds", s.q(`SELECT `+refundColumns+` FROM refunds WHERE order_id = $1 ORDER BY created_at, id`), scanRefund, orderID)
}

// Refund implements rampway.RefundStore.
func (s *Store) Refund(ctx context.Context, id string) (*rampway.Refund, error) {
	r, err := scanRefund(s.db.QueryRowContext(ctx, s.q(`SELECT `+refundColumns+` FROM refunds WHERE id = $1`), id))
	if err != nil {
		return nil, notFound(err, "refund")
	}
	return r, nil
}

// ListRefunds implements rampway.RefundStore.
func (s *Store) ListRefunds(ctx context.Context, f rampway.RefundFilter) ([]*rampway.Refund, error) {
	// Each filter written only when set, so that a status is found by its index (refunds_status)
	// and no filter walks refunds_created: never a read of every refund and a sort.
	where, args := []string{"TRUE"}, []any{}
	if f.Status != "" {
		args = append(args, string(f.Status))
		where = append(where, fmt.Sprintf("status = $%d", len(args)))
	}
	if f.Network != "" {
		args = append(args, f.Network)
		where = append(where, fmt.Sprintf("network = $%d", len(args)))
	}
	args = append(args, limit(f.Limit))
	return collect(ctx, s.db, "list refunds", s.q(`SELECT `+refundColumns+` FROM refunds WHERE `+strings.Join(where, " AND ")+
		fmt.Sprintf(` ORDER BY created_at, id LIMIT $%d`, len(args))), scanRefund, args...)
}

// lockRefund reads a refund inside tx, locked until tx ends.
func (s *Store) lockRefund(ctx context.Context, tx *sql.Tx, id string) (*rampway.Refund, error) {
	r, err := scanRefund(tx.QueryRowContext(ctx, s.q(`SELECT `+refundColumns+` FROM refunds WHERE id = $1`+s.d.ForUpdate), id))
	if err != nil {
		return nil, notFound(err, "refund")
	}
	return r, nil
}

// refundCause applies cause c to refund id in one transaction: the refund's order and the
// refund locked, ApplyRefund decides, and the refund and what it brings to its order are written
// (applyRefundTx). settle, when not nil, runs in the same transaction once the cause is taken.
func (s *Store) refundCause(ctx context.Context, id string, c rampway.RefundCause, at time.Time, settle func(tx *sql.Tx, r *rampway.Refund) error) (*rampway.Refund, error) {
	var out *rampway.Refund
	err := s.tx(ctx, func(tx *sql.Tx) error {
		// The order first, as every other writer of an order's rows locks it: no deadlock with
		// a cause applied to the same order meanwhile.
		r, err := scanRefund(tx.QueryRowContext(ctx, s.q(`SELECT `+refundColumns+` FROM refunds WHERE id = $1`), id))
		if err != nil {
			return notFound(err, "refund")
		}
		o, err := s.lockOrder(ctx, tx, r.OrderID)
		if err != nil {
			return err
		}
		if r, err = s.lockRefund(ctx, tx, id); err != nil {
			return err
		}
		if out, err = s.applyRefundTx(ctx, tx, o, r, c, at); err != nil {
			return err
		}
		if settle != nil {
			return settle(tx, out)
		}
		return nil
	})
	return out, err
}

// applyRefundTx applies cause c to refund r of order o, both locked in tx: it asks the domain
// what the cause does (rampway.ApplyRefund) and writes that: the refund, and the cause it
// brings to its order (applyTx). It decides nothing itself.
func (s *Store) applyRefundTx(ctx context.Context, tx *sql.Tx, o *rampway.Order, r *rampway.Refund, c rampway.RefundCause, at time.Time) (*rampway.Refund, error) {
	n, cause, err := rampway.ApplyRefund(r, c, at)
	if err != nil {
		return nil, err
	}
	to, source := "", ""
	if n.To != (common.Address{}) {
		to, source = n.To.Hex(), n.ToSource
	}
	hash := ""
	if n.TxHash != (common.Hash{}) {
		hash = n.TxHash.Hex()
	}
	var approved *time.Time
	if !n.ApprovedAt.IsZero() {
		approved = &n.ApprovedAt
	}
	if _, err := tx.ExecContext(ctx, s.q(`UPDATE refunds SET to_address = $1, to_source = $2, fee = $3, sent = $4, status = $5,
		status_reason = $6, tx_hash = $7, approved_by = $8, approved_at = $9, updated_at = $10, provider_ref = $11 WHERE id = $12`),
		to, source, optionalBigText(n.Fee), optionalBigText(n.Sent), string(n.Status), n.StatusReason, hash, n.ApprovedBy, s.tp(approved), s.t(n.UpdatedAt),
		n.ProviderRef, n.ID); err != nil {
		return nil, fmt.Errorf("update refund: %w", err)
	}
	if cause != nil {
		if _, err := s.applyTx(ctx, tx, o, cause, at); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// HoldRefund implements rampway.RefundStore.
func (s *Store) HoldRefund(ctx context.Context, id string, status rampway.RefundStatus, why string, at time.Time) (*rampway.Refund, error) {
	return s.refundCause(ctx, id, rampway.RefundHeld{Status: status, Why: why}, at, nil)
}

// SetRefundAddress implements rampway.RefundStore.
func (s *Store) SetRefundAddress(ctx context.Context, id string, to common.Address, source string, at time.Time) (*rampway.Refund, error) {
	return s.refundCause(ctx, id, rampway.RefundAddressGiven{To: to, Source: source}, at, nil)
}

// ApproveRefund implements rampway.RefundStore.
func (s *Store) ApproveRefund(ctx context.Context, id, by string, at time.Time) (*rampway.Refund, error) {
	return s.refundCause(ctx, id, rampway.RefundApproved{By: by}, at, nil)
}

// RejectRefund implements rampway.RefundStore.
func (s *Store) RejectRefund(ctx context.Context, id, by, why string, at time.Time) (*rampway.Refund, error) {
	return s.refundCause(ctx, id, rampway.RefundRejected{By: by, Why: why}, at, nil)
}

// DustRefund implements rampway.RefundStore.
func (s *Store) DustRefund(ctx context.Context, id string, fee *big.Int, why string, at time.Time) error {
	_, err := s.refundCause(ctx, id, rampway.RefundIsDust{Fee: fee, Why: why}, at, nil)
	return err
}

// StartRefund implements rampway.RefundStore: the transaction is signed outside any database
// transaction (signThenClaim).
func (s *Store) StartRefund(ctx context.Context, id string, wallet common.Address, chainNonce uint64, fee, sent *big.Int,
	sign func(first uint64) (*rampway.ChainTx, error), at time.Time) (*rampway.Refund, error) {
	r, err := s.Refund(ctx, id)
	if err != nil {
		return nil, err
	}
	if !r.Takes(rampway.CauseRefundSigned) {
		return nil, rampway.Errorf(rampway.ECONFLICT, "refund %s is %s", id, r.Status)
	}
	var (
		signed *rampway.ChainTx
		out    *rampway.Refund
	)
	err = s.signThenClaim(ctx, r.Network, wallet, chainNonce, func(first uint64) (int, error) {
		var err error
		if signed, err = sign(first); err != nil {
			return 0, err
		}
		if signed.Nonce != first || signed.Wallet != wallet || signed.Network != r.Network {
			return 0, fmt.Errorf("start refund: the transaction is not nonce %d of %s on %s", first, wallet.Hex(), r.Network)
		}
		return 1, nil
	}, func(tx *sql.Tx) error {
		o, err := s.lockOrder(ctx, tx, r.OrderID)
		if err != nil {
			return err
		}
		cur, err := s.lockRefund(ctx, tx, id)
		if err != nil {
			return err
		}
		if !cur.Takes(rampway.CauseRefundSigned) || cur.To != r.To {
			// Nothing is stored of a transaction signed for a refund that changed meanwhile.
			return rampway.Errorf(rampway.ECONFLICT, "refund %s is %s", id, cur.Status)
		}
		signed.Kind, signed.Ref, signed.Status, signed.CreatedAt = rampway.TxRefund, id, rampway.TxPending, at
		if err := s.insertChainTx(ctx, tx, signed); err != nil {
			return err
		}
		if cur, err = s.applyRefundTx(ctx, tx, o, cur, rampway.RefundSigned{TxHash: signed.Hash, To: r.To, Fee: fee, Sent: sent}, at); err != nil {
			return err
		}
		out = cur
		return nil
	})
	return out, err
}

// FinishRefund implements rampway.RefundStore.
func (s *Store) FinishRefund(ctx context.Context, id string, m rampway.MinedTx, why string, at time.Time) error {
	ok, hash := m.OK, m.Hash
	var c rampway.RefundCause = rampway.RefundMined{TxHash: hash}
	if !ok {
		c = rampway.RefundReverted{TxHash: hash, Why: why}
	}
	_, err := s.refundCause(ctx, id, c, at, func(tx *sql.Tx, r *rampway.Refund) error {
		return s.settleTx(ctx, tx, r.Network, m, at)
	})
	if rampway.ErrorCode(err) == rampway.ECONFLICT {
		return nil // finished before (by another instance, or before a crash)
	}
	return err
}
