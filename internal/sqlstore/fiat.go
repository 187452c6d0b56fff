package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/rampway/rampway"
)

const fiatPaymentColumns = `id, order_id, provider, provider_ref, method, currency, amount, received, decimals, status, reference,
	card_brand, card_last4, next_action, failure_reason, created_at, updated_at`

func (s *Store) scanFiatPayment(row interface{ Scan(...any) error }) (*rampway.FiatPayment, error) {
	var (
		p                      rampway.FiatPayment
		amount, received, next string
		status                 string
		decimals               int64
		created, updated       dbTime
	)
	if err := row.Scan(&p.ID, &p.OrderID, &p.Provider, &p.ProviderRef, &p.Method, &p.Currency, &amount, &received, &decimals, &status,
		&p.Reference, &p.CardBrand, &p.CardLast4, &next, &p.FailureReason, &created, &updated); err != nil {
		return nil, err
	}
	p.Status, p.Decimals, p.CreatedAt, p.UpdatedAt = rampway.FiatPaymentStatus(status), uint8(decimals), created.T, updated.T
	var err error
	if p.Amount, err = parseBig(amount, "amount"); err != nil {
		return nil, err
	}
	if p.Received, err = parseBig(received, "received"); err != nil {
		return nil, err
	}
	if next != "" {
		p.Next = new(rampway.NextAction)
		if err := json.Unmarshal([]byte(next), p.Next); err != nil {
			return nil, fmt.Errorf("fiat payment %s next_action: %w", p.ID, err)
		}
	}
	return &p, nil
}

func nextText(n *rampway.NextAction) (string, error) {
	if n == nil {
		return "", nil
	}
	b, err := json.Marshal(n)
	return string(b), err
}

// CreateFiatPayment implements rampway.FiatPaymentStore.
func (s *Store) CreateFiatPayment(ctx context.Context, p *rampway.FiatPayment) error {
	next, err := nextText(p.Next)
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, s.q(`INSERT INTO fiat_payments (`+fiatPaymentColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`),
		p.ID, p.OrderID, p.Provider, p.ProviderRef, p.Method, p.Currency, bigText(p.Amount), bigText(p.Received), int64(p.Decimals), string(p.Status),
		p.Reference, p.CardBrand, p.CardLast4, next, p.FailureReason, s.t(p.CreatedAt), s.t(p.UpdatedAt))
	if err != nil {
		return fmt.Errorf("create fiat payment: %w", err)
	}
	return nil
}

// SetFiatPaymentStarted implements rampway.FiatPaymentStore.
func (s *Store) SetFiatPaymentStarted(ctx context.Context, id string, pp *rampway.ProviderPayment, at time.Time) error {
	next, err := nextText(pp.Next)
	if err != nil {
		return err
	}
	res, err := s.exec(ctx, s.q(`UPDATE fiat_payments SET provider_ref = $1, reference = $2, next_action = $3, updated_at = $4 WHERE id = $5`),
		pp.Ref, pp.Reference, next, s.t(at), id)
	if err != nil {
		return fmt.Errorf("set fiat payment started: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return rampway.Errorf(rampway.ENOTFOUND, "fiat payment %s not found", id)
	}
	return nil
}

// FiatPayments implements rampway.FiatPaymentStore.
func (s *Store) FiatPayments(ctx context.Context, orderID string) ([]*rampway.FiatPayment, error) {
	return collect(ctx, s.db, "fiat payments", s.q(`SELECT `+fiatPaymentColumns+` FROM fiat_payments WHERE order_id = $1 ORDER BY created_at, id`),
		s.scanFiatPayment, orderID)
}

// ApplyProviderEvent implements rampway.FiatPaymentStore.
func (s *Store) ApplyProviderEvent(ctx context.Context, provider string, ev *rampway.ProviderEvent, at time.Time) (bool, error) {
	applied := false
	err := s.tx(ctx, func(tx *sql.Tx) error {
		// The payment's order first: every writer of an order locks it before its payments.
		var orderID string
		err := tx.QueryRowContext(ctx, s.q(`SELECT order_id FROM fiat_payments WHERE provider = $1 AND provider_ref = $2 AND provider_ref != ''`), provider, ev.PaymentRef).Scan(&orderID)
		if errors.Is(err, sql.ErrNoRows) {
			return rampway.Errorf(rampway.ENOTFOUND, "no %s payment %s", provider, ev.PaymentRef)
		} else if err != nil {
			return fmt.Errorf("fiat payment of event: %w", err)
		}
		o, err := s.lockOrder(ctx, tx, orderID)
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, s.q(`INSERT INTO provider_events (provider, event_id, type, payment_ref, received_at) VALUES ($1, $2, $3, $4, $5)
			ON CONFLICT (provider, event_id) DO NOTHING`), provider, ev.ID, ev.Type, ev.PaymentRef, s.t(at))
		if err != nil {
			return fmt.Errorf("record provider event: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil // applied before
		}
		applied = true
		p, err := s.scanFiatPayment(tx.QueryRowContext(ctx, s.q(`SELECT `+fiatPaymentColumns+` FROM fiat_payments WHERE provider = $1 AND provider_ref = $2 AND provider_ref != ''`),
			provider, ev.PaymentRef))
		if err != nil {
			return fmt.Errorf("read fiat payment: %w", err)
		}
		n, cause := rampway.ApplyFiatEvent(p, ev, at)
		next, err := nextText(n.Next)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE fiat_payments SET status = $1, received = $2, card_brand = $3, card_last4 = $4,
			next_action = $5, failure_reason = $6, updated_at = $7 WHERE id = $8`),
			string(n.Status), bigText(n.Received), n.CardBrand, n.CardLast4, next, n.FailureReason, s.t(n.UpdatedAt), n.ID); err != nil {
			return fmt.Errorf("update fiat payment: %w", err)
		}
		// Pushed money that arrived (a bank transfer credited): the provider holds it for rampway.
		if got := new(big.Int).Sub(bigOrZero(n.Received), bigOrZero(p.Received)); got.Sign() > 0 {
			if err := s.ledgerFiat(ctx, tx, "fiat:event:"+provider+":"+ev.ID, provider, p.Currency, got, false, "fiat_credit", p.ID, at); err != nil {
				return err
			}
		}
		if cause == nil {
			return nil
		}
		_, err = s.applyTx(ctx, tx, o, cause, at)
		if _, ok := errors.AsType[*rampway.RuleMissing](err); ok {
			// A gap in the rule table (told to the listeners: logged and counted): the payment
			// is recorded, the order unchanged, the notification not asked again.
			return nil
		}
		return err
	})
	return applied, err
}

// fiatActionInsert are the columns a new action is written with; fiatActionColumns those read.
const (
	fiatActionInsert = `id, order_id, payment_id, kind, amount, currency, cause, reason, status, provider_ref, attempts, last_error,
	next_attempt_at, created_at, updated_at`
	fiatActionColumns = fiatActionInsert + `, COALESCE(retry_from, created_at), resolved_note`
)

func scanFiatAction(row interface{ Scan(...any) error }) (*rampway.FiatAction, error) {
	var (
		a                      rampway.FiatAction
		kind, amount           string
		next, created, updated dbTime
		retryFrom              dbTime
	)
	if err := row.Scan(&a.ID, &a.OrderID, &a.PaymentID, &kind, &amount, &a.Currency, &a.Cause, &a.Reason, &a.Status, &a.ProviderRef,
		&a.Attempts, &a.LastError, &next, &created, &updated, &retryFrom, &a.ResolvedNote); err != nil {
		return nil, err
	}
	a.Kind, a.NextAttemptAt, a.CreatedAt, a.UpdatedAt, a.RetryFrom = rampway.FiatActionKind(kind), next.T, created.T, updated.T, retryFrom.T
	var err error
	a.Amount, err = parseBig(amount, "amount")
	return &a, err
}

// insertFiatAction records a capture, void or refund an order's cause asks for, once per
// cause: a second of the same cause is ignored.
func (s *Store) insertFiatAction(ctx context.Context, tx *sql.Tx, a *rampway.FiatAction) error {
	_, err := tx.ExecContext(ctx, s.q(`INSERT INTO fiat_actions (`+fiatActionInsert+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
		ON CONFLICT (order_id, cause) DO NOTHING`),
		a.ID, a.OrderID, a.PaymentID, string(a.Kind), bigText(a.Amount), a.Currency, a.Cause, a.Reason, a.Status, a.ProviderRef, a.Attempts,
		a.LastError, s.t(a.NextAttemptAt), s.t(a.CreatedAt), s.t(a.UpdatedAt))
	if err != nil {
		return fmt.Errorf("insert fiat action: %w", err)
	}
	return nil
}

// FiatActions implements rampway.FiatPaymentStore.
func (s *Store) FiatActions(ctx context.Context, orderID string) ([]*rampway.FiatAction, error) {
	return s.fiatActions(ctx, s.db, orderID)
}

func (s *Store) fiatActions(ctx context.Context, q querier, orderID string) ([]*rampway.FiatAction, error) {
	return collect(ctx, q, "fiat actions", s.q(`SELECT `+fiatActionColumns+` FROM fiat_actions WHERE order_id = $1 ORDER BY created_at, id`),
		scanFiatAction, orderID)
}

// ClaimFiatActions implements rampway.FiatPaymentStore.
func (s *Store) ClaimFiatActions(ctx context.Context, now time.Time, lease time.Duration, n int) ([]*rampway.FiatAction, error) {
	var out []*rampway.FiatAction
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var err error
		out, err = collect(ctx, tx, "claim fiat actions", s.q(`UPDATE fiat_actions SET lease_until = $1 WHERE id IN (
			SELECT id FROM fiat_actions`+s.indexed("fiat_actions_due")+` WHERE status = 'pending' AND next_attempt_at <= $2 AND (lease_until IS NULL OR lease_until < $2)
			ORDER BY next_attempt_at, id LIMIT $3`+s.d.SkipLocked+`) RETURNING `+fiatActionColumns), scanFiatAction, s.t(now.Add(lease)), s.t(now), limit(n))
		return err
	})
	return out, err
}

// FinishFiatAction implements rampway.FiatPaymentStore.
func (s *Store) FinishFiatAction(ctx context.Context, id string, status rampway.FiatActionStatus, providerRef, lastErr string, next, at time.Time) error {
	switch status {
	case rampway.ActionDone, rampway.ActionPending, rampway.ActionNeedsOperator, rampway.ActionFailed:
	default:
		return fmt.Errorf("finish fiat action %s: status %q", id, status)
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		a, err := scanFiatAction(tx.QueryRowContext(ctx, s.q(`SELECT `+fiatActionColumns+` FROM fiat_actions WHERE id = $1`), id))
		if err != nil {
			return notFound(err, "fiat action")
		}
		// The merchant refund the action pays ends with it, in the same transaction.
		refundID := rampway.MerchantRefundOfAction(a)
		switch {
		case status == rampway.ActionFailed && refundID == "":
			return fmt.Errorf("finish fiat action %s: only a merchant refund's action fails for good", id)
		case refundID != "" && (status == rampway.ActionDone || status == rampway.ActionFailed):
			if err := s.finishMerchantRefund(ctx, tx, a, refundID, status == rampway.ActionDone, providerRef, lastErr, at); err != nil {
				return err
			}
		}
		if status == rampway.ActionDone && a.Status != rampway.ActionDone {
			if err := s.ledgerFiatAction(ctx, tx, a, at); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE fiat_actions SET status = $1, provider_ref = $2, last_error = $3, next_attempt_at = $4,
			attempts = attempts + 1, lease_until = NULL, updated_at = $5 WHERE id = $6`), status, providerRef, lastErr, s.t(next), s.t(at), id); err != nil {
			return fmt.Errorf("finish fiat action: %w", err)
		}
		return nil
	})
}

// FiatActionsByStatus implements rampway.FiatPaymentStore.
func (s *Store) FiatActionsByStatus(ctx context.Context, status rampway.FiatActionStatus, after string, n int) ([]*rampway.FiatAction, error) {
	cursor := ""
	args := []any{status, limit(n)}
	if after != "" {
		cursor = ` AND (updated_at, id) > (SELECT updated_at, id FROM fiat_actions WHERE id = $3)`
		args = append(args, after)
	}
	return collect(ctx, s.db, "fiat actions by status", s.q(`SELECT `+fiatActionColumns+` FROM fiat_actions WHERE status = $1`+cursor+`
		ORDER BY updated_at, id LIMIT $2`), scanFiatAction, args...)
}

// RetryFiatAction implements rampway.FiatPaymentStore.
func (s *Store) RetryFiatAction(ctx context.Context, id string, at time.Time) (*rampway.FiatAction, error) {
	return s.operatorFiatAction(ctx, id, `status = 'pending', next_attempt_at = $1, retry_from = $1, updated_at = $1`, at)
}

// ResolveFiatAction implements rampway.FiatPaymentStore.
func (s *Store) ResolveFiatAction(ctx context.Context, id, note string, at time.Time) (*rampway.FiatAction, error) {
	return s.operatorFiatAction(ctx, id, `status = 'resolved', resolved_note = $3, updated_at = $1`, at, note)
}

// operatorFiatAction changes, as set says, an action that needs an operator ($1 the time, $2
// the id, $3 on the extra argument).
func (s *Store) operatorFiatAction(ctx context.Context, id, set string, at time.Time, extra ...any) (*rampway.FiatAction, error) {
	args := append([]any{s.t(at), id}, extra...)
	got, err := collect(ctx, s.db, "operator fiat action", s.q(`UPDATE fiat_actions SET `+set+` WHERE id = $2 AND status = 'needs_operator'
		RETURNING `+fiatActionColumns), scanFiatAction, args...)
	if err != nil {
		return nil, err
	}
	if len(got) == 1 {
		return got[0], nil
	}
	var status string
	err = s.db.QueryRowContext(ctx, s.q(`SELECT status FROM fiat_actions WHERE id = $1`), id).Scan(&status)
	if err != nil {
		return nil, notFound(err, "fiat action")
	}
	return nil, rampway.Errorf(rampway.ECONFLICT, "Fiat action %s is %s: only one that needs an operator is retried or resolved", id, status)
}

func bigOrZero(v *big.Int) *big.Int {
	if v == nil {
		return new(big.Int)
	}
	return v
}
