package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"math/big"
	"time"

	"github.com/rampway/rampway"
)

// RequestRefund implements rampway.RefundStore: in one transaction the order is locked (every
// writer of an order locks it first), then its merchant's row (on PostgreSQL; SQLite has one
// writer), under which the merchant's refunds of the day are added up for its daily cap; the
// domain decides (rampway.Apply) and the record, its fiat action and its event are written.
// Two requests at once, on one instance or several, are decided one after the other.
func (s *Store) RequestRefund(ctx context.Context, orderID string, c rampway.RefundRequested, at time.Time) (*rampway.Refund, error) {
	var out *rampway.Refund
	err := s.tx(ctx, func(tx *sql.Tx) error {
		o, err := s.lockOrder(ctx, tx, orderID)
		if err != nil {
			return err
		}
		lock := ""
		if s.d.ForUpdate != "" {
			// Not FOR UPDATE: rows that refer to the merchant (its new orders) are not held up.
			lock = " FOR NO KEY UPDATE"
		}
		m, err := s.scanMerchant(tx.QueryRowContext(ctx, s.q(`SELECT `+merchantColumns+` FROM merchants WHERE id = $1`+lock), o.MerchantID))
		if err != nil {
			return notFound(err, "merchant")
		}
		symbol, decimals := o.RefundCurrency()
		c.Policy = m.RefundPolicy(symbol, decimals)
		if c.Policy.DailyCap != nil {
			if c.Today, err = s.refundedToday(ctx, tx, o.MerchantID, o.Livemode, symbol, at); err != nil {
				return err
			}
		}
		res, err := s.applyOutcomeTx(ctx, tx, o, c, at)
		if err != nil {
			return err
		}
		if len(res.Refunds) != 1 {
			return fmt.Errorf("request refund of order %s: %d refund records made", orderID, len(res.Refunds))
		}
		out = res.Refunds[0]
		return nil
	})
	return out, err
}

// refundedToday adds up the merchant's refunds of a currency and mode asked for since the UTC
// day of at began, but those that failed or were dust (they moved nothing).
func (s *Store) refundedToday(ctx context.Context, tx *sql.Tx, merchantID string, livemode bool, currency string, at time.Time) (*big.Int, error) {
	day := at.UTC().Truncate(24 * time.Hour)
	amounts, err := collect(ctx, tx, "refunds of the day", s.q(`SELECT amount FROM refunds
		WHERE merchant_id = $1 AND livemode = $2 AND currency = $3 AND created_at >= $4 AND merchant_id != ''
		AND status NOT IN ('failed', 'dust')`), scanValue[string], merchantID, livemode, currency, s.t(day))
	if err != nil {
		return nil, err
	}
	sum := new(big.Int)
	for _, a := range amounts {
		v, err := parseBig(a, "amount")
		if err != nil {
			return nil, err
		}
		sum.Add(sum, v)
	}
	return sum, nil
}

// finishMerchantRefund ends, in tx, the merchant refund that fiat action a pays, as its
// provider answered: done (ref, the provider's id of it) or failed (why). A refund already
// ended (the action finished before a crash) is left alone.
func (s *Store) finishMerchantRefund(ctx context.Context, tx *sql.Tx, a *rampway.FiatAction, refundID string, done bool, ref, why string, at time.Time) error {
	o, err := s.lockOrder(ctx, tx, a.OrderID)
	if err != nil {
		return err
	}
	r, err := s.lockRefund(ctx, tx, refundID)
	if err != nil {
		return err
	}
	var c rampway.RefundCause = rampway.RefundProviderDone{Ref: ref}
	if !done {
		c = rampway.RefundProviderFailed{Why: why}
	}
	if !r.Takes(c.RefundKind()) {
		return nil
	}
	_, err = s.applyRefundTx(ctx, tx, o, r, c, at)
	return err
}
