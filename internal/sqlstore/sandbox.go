package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/provider/sandbox"
)

// The sandbox provider's books (sandbox.Store), kept beside rampway's own tables as a real
// provider keeps them on its side.

var _ sandbox.Store = (*Store)(nil)

const sandboxColumns = `id, idem_key, order_id, method, currency, decimals, amount, received, captured, refunded, status, reference,
	card_brand, card_last4, failure_reason, return_url, created_at, updated_at`

func scanSandbox(row interface{ Scan(...any) error }) (*sandbox.Payment, error) {
	var (
		p                                    sandbox.Payment
		decimals                             int64
		amount, received, captured, refunded string
		status                               string
		created, updated                     dbTime
	)
	if err := row.Scan(&p.ID, &p.IdemKey, &p.OrderID, &p.Method, &p.Currency, &decimals, &amount, &received, &captured, &refunded, &status,
		&p.Reference, &p.CardBrand, &p.CardLast4, &p.FailureReason, &p.ReturnURL, &created, &updated); err != nil {
		return nil, err
	}
	p.Decimals, p.Status, p.CreatedAt, p.UpdatedAt = uint8(decimals), rampway.FiatPaymentStatus(status), created.T, updated.T
	var err error
	if p.Amount, err = parseBig(amount, "amount"); err == nil {
		if p.Received, err = parseBig(received, "received"); err == nil {
			if p.Captured, err = parseBig(captured, "captured"); err == nil {
				p.Refunded, err = parseBig(refunded, "refunded")
			}
		}
	}
	return &p, err
}

// SandboxCreate implements sandbox.Store.
func (s *Store) SandboxCreate(ctx context.Context, p *sandbox.Payment) (*sandbox.Payment, error) {
	_, err := s.exec(ctx, s.q(`INSERT INTO sandbox_payments (`+sandboxColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
		ON CONFLICT (idem_key) DO NOTHING`),
		p.ID, p.IdemKey, p.OrderID, p.Method, p.Currency, int64(p.Decimals), bigText(p.Amount), bigText(p.Received), bigText(p.Captured),
		bigText(p.Refunded), string(p.Status), p.Reference, p.CardBrand, p.CardLast4, p.FailureReason, p.ReturnURL, s.t(p.CreatedAt), s.t(p.UpdatedAt))
	if err != nil {
		return nil, fmt.Errorf("sandbox create: %w", err)
	}
	return scanSandbox(s.db.QueryRowContext(ctx, s.q(`SELECT `+sandboxColumns+` FROM sandbox_payments WHERE idem_key = $1`), p.IdemKey))
}

// SandboxPayment implements sandbox.Store.
func (s *Store) SandboxPayment(ctx context.Context, key string, byReference bool) (*sandbox.Payment, error) {
	col := "id"
	if byReference {
		col = "reference"
		if key == "" {
			return nil, rampway.Errorf(rampway.ENOTFOUND, "sandbox payment not found")
		}
	}
	p, err := scanSandbox(s.db.QueryRowContext(ctx, s.q(`SELECT `+sandboxColumns+` FROM sandbox_payments WHERE `+col+` = $1`), key))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, rampway.Errorf(rampway.ENOTFOUND, "sandbox payment not found")
	}
	return p, err
}

// SandboxUpdate implements sandbox.Store.
func (s *Store) SandboxUpdate(ctx context.Context, p *sandbox.Payment, from rampway.FiatPaymentStatus, events []sandbox.Event, call *sandbox.Call) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, s.q(`UPDATE sandbox_payments SET status = $1, received = $2, captured = $3, refunded = $4, card_brand = $5,
			card_last4 = $6, failure_reason = $7, updated_at = $8 WHERE id = $9 AND status = $10`), string(p.Status), bigText(p.Received), bigText(p.Captured),
			bigText(p.Refunded), p.CardBrand, p.CardLast4, p.FailureReason, s.t(p.UpdatedAt), p.ID, string(from))
		if err != nil {
			return fmt.Errorf("sandbox update: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return rampway.Errorf(rampway.ECONFLICT, "sandbox payment %s is no longer %s", p.ID, from)
		}
		if call != nil {
			if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO sandbox_calls (idem_key, payment_id, kind, result, created_at) VALUES ($1, $2, $3, $4, $5)`),
				call.Key, call.PaymentID, call.Kind, call.Result, s.t(p.UpdatedAt)); err != nil {
				if s.d.IsUniqueViolation(err) {
					return rampway.Errorf(rampway.ECONFLICT, "sandbox call %s made twice at once", call.Key)
				}
				return fmt.Errorf("sandbox call: %w", err)
			}
		}
		for _, e := range events {
			if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO sandbox_events (id, body, next_attempt_at, created_at) VALUES ($1, $2, $3, $3)`),
				e.ID, string(e.Body), s.t(p.UpdatedAt)); err != nil {
				return fmt.Errorf("sandbox event: %w", err)
			}
		}
		return nil
	})
}

// SandboxCall implements sandbox.Store.
func (s *Store) SandboxCall(ctx context.Context, key string) (*sandbox.Call, error) {
	var c sandbox.Call
	err := s.db.QueryRowContext(ctx, s.q(`SELECT idem_key, payment_id, kind, result FROM sandbox_calls WHERE idem_key = $1`), key).
		Scan(&c.Key, &c.PaymentID, &c.Kind, &c.Result)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sandbox call: %w", err)
	}
	return &c, nil
}

// SandboxDueEvents implements sandbox.Store.
func (s *Store) SandboxDueEvents(ctx context.Context, now time.Time, n int) ([]sandbox.Event, error) {
	return collect(ctx, s.db, "sandbox events", s.q(`SELECT id, body FROM sandbox_events WHERE delivered_at IS NULL AND next_attempt_at <= $1
		ORDER BY seq LIMIT $2`), func(row interface{ Scan(...any) error }) (sandbox.Event, error) {
		var (
			e    sandbox.Event
			body string
		)
		err := row.Scan(&e.ID, &body)
		e.Body = []byte(body)
		return e, err
	}, s.t(now), limit(n))
}

// SandboxEventSent implements sandbox.Store.
func (s *Store) SandboxEventSent(ctx context.Context, id string, delivered bool, next, at time.Time) error {
	var err error
	if delivered {
		_, err = s.exec(ctx, s.q(`UPDATE sandbox_events SET delivered_at = $1, attempts = attempts + 1 WHERE id = $2`), s.t(at), id)
	} else {
		_, err = s.exec(ctx, s.q(`UPDATE sandbox_events SET next_attempt_at = $1, attempts = attempts + 1 WHERE id = $2`), s.t(next), id)
	}
	if err != nil {
		return fmt.Errorf("sandbox event sent: %w", err)
	}
	return nil
}
