package sandbox

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/provider"
)

// The sandbox's books (Store) in rampway's database, as a real provider keeps them on its side:
// tables sandbox_payments, sandbox_calls and sandbox_events (rampway's migrations), each
// instance's payments and notifications under its own name.

// Books are an instance's books in db.
type Books struct {
	db   provider.Books
	name string
}

var _ Store = Books{}

// NewBooks returns the books of the instance named name.
func NewBooks(db provider.Books, name string) Books { return Books{db: db, name: name} }

const columns = `id, idem_key, order_id, method, currency, decimals, amount, received, captured, refunded, status, reference,
	card_brand, card_last4, failure_reason, return_url, created_at, updated_at`

func (b Books) scan(row interface{ Scan(...any) error }) (*Payment, error) {
	var (
		p                                    Payment
		decimals                             int64
		amount, received, captured, refunded string
		status                               string
	)
	if err := row.Scan(&p.ID, &p.IdemKey, &p.OrderID, &p.Method, &p.Currency, &decimals, &amount, &received, &captured, &refunded, &status,
		&p.Reference, &p.CardBrand, &p.CardLast4, &p.FailureReason, &p.ReturnURL, b.db.ScanTime(&p.CreatedAt), b.db.ScanTime(&p.UpdatedAt)); err != nil {
		return nil, err
	}
	p.Decimals, p.Status = uint8(decimals), rampway.FiatPaymentStatus(status)
	for _, v := range []struct {
		dst  **big.Int
		text string
	}{{&p.Amount, amount}, {&p.Received, received}, {&p.Captured, captured}, {&p.Refunded, refunded}} {
		n, ok := new(big.Int).SetString(v.text, 10)
		if !ok {
			return nil, fmt.Errorf("sandbox payment %s: bad amount %q", p.ID, v.text)
		}
		*v.dst = n
	}
	return &p, nil
}

func text(v *big.Int) string {
	if v == nil {
		return "0"
	}
	return v.String()
}

// SandboxCreate implements Store.
func (b Books) SandboxCreate(ctx context.Context, p *Payment) (*Payment, error) {
	_, err := b.db.Write(ctx, b.db.Q(`INSERT INTO sandbox_payments (`+columns+`, provider) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)
		ON CONFLICT (idem_key) DO NOTHING`),
		p.ID, p.IdemKey, p.OrderID, p.Method, p.Currency, int64(p.Decimals), text(p.Amount), text(p.Received), text(p.Captured),
		text(p.Refunded), string(p.Status), p.Reference, p.CardBrand, p.CardLast4, p.FailureReason, p.ReturnURL, b.db.Time(p.CreatedAt), b.db.Time(p.UpdatedAt), b.name)
	if err != nil {
		return nil, fmt.Errorf("sandbox create: %w", err)
	}
	got, err := b.scan(b.db.DB().QueryRowContext(ctx, b.db.Q(`SELECT `+columns+` FROM sandbox_payments WHERE idem_key = $1 AND provider = $2`), p.IdemKey, b.name))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, rampway.Errorf(rampway.ECONFLICT, "payment %s was started with another provider", p.IdemKey)
	}
	return got, err
}

// SandboxPayment implements Store.
func (b Books) SandboxPayment(ctx context.Context, key string, byReference bool) (*Payment, error) {
	where := "id = $1"
	if byReference {
		// The reference's index holds the payments that have one: the condition says so.
		where = "reference = $1 AND reference != ''"
	}
	p, err := b.scan(b.db.DB().QueryRowContext(ctx, b.db.Q(`SELECT `+columns+` FROM sandbox_payments WHERE `+where+` AND provider = $2`), key, b.name))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, rampway.Errorf(rampway.ENOTFOUND, "sandbox payment not found")
	}
	return p, err
}

// SandboxUpdate implements Store.
func (b Books) SandboxUpdate(ctx context.Context, p *Payment, from rampway.FiatPaymentStatus, events []Event, call *Call) error {
	return b.db.WriteTx(ctx, func(tx *sql.Tx) error { return b.update(ctx, tx, p, from, events, call) })
}

func (b Books) update(ctx context.Context, tx *sql.Tx, p *Payment, from rampway.FiatPaymentStatus, events []Event, call *Call) error {
	res, err := tx.ExecContext(ctx, b.db.Q(`UPDATE sandbox_payments SET status = $1, received = $2, captured = $3, refunded = $4, card_brand = $5,
		card_last4 = $6, failure_reason = $7, updated_at = $8 WHERE id = $9 AND status = $10 AND provider = $11`), string(p.Status), text(p.Received), text(p.Captured),
		text(p.Refunded), p.CardBrand, p.CardLast4, p.FailureReason, b.db.Time(p.UpdatedAt), p.ID, string(from), b.name)
	if err != nil {
		return fmt.Errorf("sandbox update: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return rampway.Errorf(rampway.ECONFLICT, "sandbox payment %s is no longer %s", p.ID, from)
	}
	if call != nil {
		if _, err := tx.ExecContext(ctx, b.db.Q(`INSERT INTO sandbox_calls (idem_key, payment_id, kind, result, created_at) VALUES ($1, $2, $3, $4, $5)`),
			call.Key, call.PaymentID, call.Kind, call.Result, b.db.Time(p.UpdatedAt)); err != nil {
			if b.db.IsUniqueViolation(err) {
				return rampway.Errorf(rampway.ECONFLICT, "sandbox call %s made twice at once", call.Key)
			}
			return fmt.Errorf("sandbox call: %w", err)
		}
	}
	for _, e := range events {
		if _, err := tx.ExecContext(ctx, b.db.Q(`INSERT INTO sandbox_events (id, body, next_attempt_at, created_at, provider) VALUES ($1, $2, $3, $3, $4)`),
			e.ID, string(e.Body), b.db.Time(p.UpdatedAt), b.name); err != nil {
			return fmt.Errorf("sandbox event: %w", err)
		}
	}
	return nil
}

// SandboxCall implements Store. An idempotency key is rampway's (an action's id): unique across
// instances.
func (b Books) SandboxCall(ctx context.Context, key string) (*Call, error) {
	var c Call
	err := b.db.DB().QueryRowContext(ctx, b.db.Q(`SELECT idem_key, payment_id, kind, result FROM sandbox_calls WHERE idem_key = $1`), key).
		Scan(&c.Key, &c.PaymentID, &c.Kind, &c.Result)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sandbox call: %w", err)
	}
	return &c, nil
}

// SandboxDueEvents implements Store.
func (b Books) SandboxDueEvents(ctx context.Context, now time.Time, n int) ([]Event, error) {
	rows, err := b.db.DB().QueryContext(ctx, b.db.Q(`SELECT id, body FROM sandbox_events WHERE delivered_at IS NULL AND next_attempt_at <= $1
		AND provider = $2 ORDER BY seq LIMIT $3`), b.db.Time(now), b.name, n)
	if err != nil {
		return nil, fmt.Errorf("sandbox events: %w", err)
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		var (
			e    Event
			body string
		)
		if err := rows.Scan(&e.ID, &body); err != nil {
			return nil, fmt.Errorf("sandbox events: %w", err)
		}
		e.Body = []byte(body)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sandbox events: %w", err)
	}
	return out, nil
}

// SandboxEventSent implements Store.
func (b Books) SandboxEventSent(ctx context.Context, id string, delivered bool, next, at time.Time) error {
	var err error
	if delivered {
		_, err = b.db.Write(ctx, b.db.Q(`UPDATE sandbox_events SET delivered_at = $1, attempts = attempts + 1 WHERE id = $2`), b.db.Time(at), id)
	} else {
		_, err = b.db.Write(ctx, b.db.Q(`UPDATE sandbox_events SET next_attempt_at = $1, attempts = attempts + 1 WHERE id = $2`), b.db.Time(next), id)
	}
	if err != nil {
		return fmt.Errorf("sandbox event sent: %w", err)
	}
	return nil
}
