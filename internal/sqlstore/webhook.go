package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rampway/rampway"
)

const deliveryColumns = `event_id, event_seq, event_name, order_id, merchant_id, livemode, url, body, status, attempts, next_attempt_at,
	last_status_code, last_error, created_at, updated_at, delivered_at, held_at, COALESCE(retry_from, created_at), backoff_from`

func scanDelivery(row interface{ Scan(...any) error }) (*rampway.Delivery, error) {
	var (
		d                         rampway.Delivery
		next, created, upd, deliv dbTime
		held, retryFrom           dbTime
	)
	if err := row.Scan(&d.EventID, &d.EventSeq, &d.EventName, &d.OrderID, &d.MerchantID, &d.Livemode, &d.URL, &d.Body, &d.Status, &d.Attempts, &next,
		&d.LastStatusCode, &d.LastError, &created, &upd, &deliv, &held, &retryFrom, &d.BackoffFrom); err != nil {
		return nil, err
	}
	d.NextAttemptAt, d.CreatedAt, d.UpdatedAt, d.DeliveredAt = next.T, created.T, upd.T, deliv.ptr()
	d.HeldAt, d.RetryFrom = held.ptr(), retryFrom.T
	return &d, nil
}

func (s *Store) queryDeliveries(ctx context.Context, q querier, what, query string, args ...any) ([]*rampway.Delivery, error) {
	return collect(ctx, q, what, s.q(query), scanDelivery, args...)
}

// insertDelivery writes, with an order event, its webhook delivery: to the order's webhook URL
// or else its merchant's, signed later with the merchant's secret. Without a URL or a secret
// nothing is sent (the order's creation said so), and nothing is written. body is the event's
// rendered body (rampway.Apply's), or nil to render it here from the order's payments and
// refunds (the page's events, which are no cause's). The delivery of a disabled merchant is
// written held.
func (s *Store) insertDelivery(ctx context.Context, tx *sql.Tx, e *rampway.OrderEvent, seq int64, o *rampway.Order, body []byte) error {
	targets, disabled, err := s.deliveryTargetsOf(ctx, tx, []*rampway.Order{o})
	if err != nil {
		return err
	}
	url, ok := targets[o.ID]
	if !ok {
		return nil
	}
	held := false
	if disabled[o.MerchantID] {
		if held, err = s.merchantDisabled(ctx, tx, o.MerchantID); err != nil {
			return err
		}
	}
	if body == nil {
		var (
			txs     []string
			refunds []*rampway.Refund
		)
		if e.Name != rampway.EventCreated { // a new order has no deposits and no refunds yet
			txs, err = collect(ctx, tx, "event deposits", s.q(`SELECT tx_hash FROM inbound_transfers WHERE order_id = $1 AND status != 'dropped'
				ORDER BY block_number, tx_hash, log_index`), scanValue[string], o.ID)
			if err != nil {
				return err
			}
			if refunds, err = s.refunds(ctx, tx, o.ID); err != nil {
				return err
			}
		}
		if body, err = rampway.EventBody(e, o, txs, refunds); err != nil {
			return fmt.Errorf("event body: %w", err)
		}
	}
	at := s.t(e.CreatedAt)
	if _, err := tx.ExecContext(ctx, s.q(insertDeliveries.get(1)), e.ID, seq, e.Name, o.ID, o.MerchantID, url, body, at, at, at, o.Livemode); err != nil {
		return fmt.Errorf("insert delivery: %w", err)
	}
	if held {
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE webhook_deliveries SET held_at = $1 WHERE event_id = $2`), at, e.ID); err != nil {
			return fmt.Errorf("hold delivery: %w", err)
		}
	}
	return nil
}

// merchantDisabled reads again, locked for share on PostgreSQL, whether a merchant that a read
// of this transaction found disabled still is. The lock orders this transaction with one that
// enables the merchant: either this one waits for it and reads it enabled (the delivery is not
// held), or it waits for this one and its release of the merchant's held deliveries sees this
// one's. Only events of disabled merchants take the lock. (A delivery written unheld by a
// transaction that read the merchant before it was disabled is not claimed either: the claim
// leaves disabled merchants out.)
func (s *Store) merchantDisabled(ctx context.Context, tx *sql.Tx, merchantID string) (bool, error) {
	lock := ""
	if s.d.ForUpdate != "" { // PostgreSQL: SQLite's immediate transactions are one at a time
		lock = " FOR SHARE"
	}
	var status string
	if err := tx.QueryRowContext(ctx, s.q(`SELECT status FROM merchants WHERE id = $1`+lock), merchantID).Scan(&status); err != nil {
		return false, notFound(err, "merchant")
	}
	return status == string(rampway.MerchantDisabled), nil
}

// holdDeliveries holds or releases a merchant's pending deliveries as its status becomes
// status, at at, in the transaction that changes it (MerchantStore.UpdateMerchant): disabled
// holds those not held yet (an attempt in flight finishes and is recorded; a failed one stays
// held); active releases the held ones, due at once (in event order: the claim takes the
// oldest first), their retry period moved on by the time they were held and their backoff
// started over.
func (s *Store) holdDeliveries(ctx context.Context, tx *sql.Tx, merchantID string, status rampway.MerchantStatus, at time.Time) error {
	var err error
	switch status {
	case rampway.MerchantDisabled:
		_, err = tx.ExecContext(ctx, s.q(`UPDATE webhook_deliveries SET held_at = $1, updated_at = $1
			WHERE merchant_id = $2 AND status = 'pending' AND held_at IS NULL`), s.t(at), merchantID)
	case rampway.MerchantActive:
		_, err = tx.ExecContext(ctx, s.q(`UPDATE webhook_deliveries SET held_at = NULL, next_attempt_at = $1, updated_at = $1,
			retry_from = COALESCE(retry_from, created_at) + ($1 - held_at), backoff_from = attempts
			WHERE merchant_id = $2 AND status = 'pending' AND held_at IS NOT NULL`), s.t(at), merchantID)
	}
	if err != nil {
		return fmt.Errorf("hold or release webhook deliveries: %w", err)
	}
	return nil
}

// deliveryTargets returns where the events of orders go, by order id: the order's webhook
// URL, or else its merchant's, when the merchant has a secret to sign with. Orders without
// one are not in it, nor are those whose events are off (Order.WebhooksOff). Only where to
// and whether it is signed: the secret itself is read (and decrypted) when a delivery is sent.
func (s *Store) deliveryTargets(ctx context.Context, tx *sql.Tx, orders []*rampway.Order) (map[string]string, error) {
	targets, _, err := s.deliveryTargetsOf(ctx, tx, orders)
	return targets, err
}

// deliveryTargetsOf is deliveryTargets, and the merchants among the orders' that it read
// disabled.
func (s *Store) deliveryTargetsOf(ctx context.Context, tx *sql.Tx, orders []*rampway.Order) (map[string]string, map[string]bool, error) {
	type merchant struct {
		id, url                    string
		hasTest, hasLive, disabled bool
	}
	var ids []any
	seen := make(map[string]bool, 1)
	for _, o := range orders {
		if !seen[o.MerchantID] {
			seen[o.MerchantID] = true
			ids = append(ids, o.MerchantID)
		}
	}
	found, err := collect(ctx, tx, "delivery targets", s.q(`SELECT id, webhook_url, webhook_secret != '', live_webhook_secret != '', status = 'disabled' FROM merchants WHERE id IN (`+placeholders(1, len(ids))+`)`),
		func(r interface{ Scan(...any) error }) (m merchant, err error) {
			return m, r.Scan(&m.id, &m.url, &m.hasTest, &m.hasLive, &m.disabled)
		}, ids...)
	if err != nil {
		return nil, nil, err
	}
	if len(found) != len(ids) {
		return nil, nil, rampway.Errorf(rampway.ENOTFOUND, "merchant not found")
	}
	merchants := make(map[string]merchant, len(found))
	var disabled map[string]bool
	for _, m := range found {
		merchants[m.id] = m
		if m.disabled {
			if disabled == nil {
				disabled = map[string]bool{}
			}
			disabled[m.id] = true
		}
	}
	targets := make(map[string]string)
	for _, o := range orders {
		if o.WebhooksOff {
			continue
		}
		m := merchants[o.MerchantID]
		url := m.url
		if o.MerchantWebhookURL != "" {
			url = o.MerchantWebhookURL
		}
		signed := m.hasTest // the secret of the order's mode signs its events
		if o.Livemode {
			signed = m.hasLive
		}
		if url != "" && signed {
			targets[o.ID] = url
		}
	}
	return targets, disabled, nil
}

// ClaimDeliveries implements rampway.DeliveryStore.
//
// It goes merchant by merchant, so that its cost follows the merchants and what it claims, not
// the backlog: first the merchants with a delivery due (an index probe each, the oldest due
// first, leaving out skipMerchants and the disabled), then, in one statement, each one's first
// due deliveries by its own index, at most perMerchant of it. (One walk of every pending
// delivery in due order had to step over the whole backlog of a merchant at its share of
// workers to reach another's: with one busy merchant, every claim read its whole backlog.)
func (s *Store) ClaimDeliveries(ctx context.Context, now time.Time, lease time.Duration, limit, perMerchant int, skipMerchants []string) ([]*rampway.Delivery, error) {
	if limit <= 0 {
		return nil, nil
	}
	var out []*rampway.Delivery
	err := s.tx(ctx, func(tx *sql.Tx) error {
		merchants, err := s.dueMerchants(ctx, tx, now, limit, skipMerchants)
		if err != nil || len(merchants) == 0 {
			return err
		}
		// Each merchant's first due deliveries (each order's first pending one only), locked on
		// PostgreSQL with SKIP LOCKED so that other dispatchers take other rows; of them all,
		// the limit due first are leased and read back.
		args := []any{s.t(now), s.t(now.Add(lease)), min(perMerchant, limit), limit}
		branches := make([]string, len(merchants))
		for i, m := range merchants {
			args = append(args, m)
			branches[i] = `SELECT * FROM (SELECT d.event_id, d.next_attempt_at, d.event_seq FROM webhook_deliveries d` + s.indexed("webhook_deliveries_merchant_due") + `
				WHERE d.merchant_id = $` + strconv.Itoa(len(args)) + ` AND d.status = 'pending' AND d.held_at IS NULL AND d.next_attempt_at <= $1
				AND (d.lease_until IS NULL OR d.lease_until < $1)
				AND NOT EXISTS (SELECT 1 FROM webhook_deliveries p WHERE p.order_id = d.order_id AND p.status = 'pending' AND p.event_seq < d.event_seq)
				ORDER BY d.next_attempt_at, d.event_seq LIMIT $3` + s.d.SkipLocked + `) m` + strconv.Itoa(i)
		}
		out, err = s.queryDeliveries(ctx, tx, "claim deliveries", `UPDATE webhook_deliveries SET lease_until = $2 WHERE event_id IN (
			SELECT event_id FROM (`+strings.Join(branches, "\nUNION ALL ")+`) due ORDER BY next_attempt_at, event_seq LIMIT $4)
			RETURNING `+deliveryColumns, args...)
		return err
	})
	// RETURNING keeps no order: due first, then in the order the events happened.
	slices.SortFunc(out, func(a, b *rampway.Delivery) int {
		if c := a.NextAttemptAt.Compare(b.NextAttemptAt); c != 0 {
			return c
		}
		return cmp.Compare(a.EventSeq, b.EventSeq)
	})
	return out, err
}

// dueMerchants returns up to limit merchants, not disabled and not in skip, whose oldest
// pending delivery (not held) is due at now, the oldest due first: one probe of the
// merchant-due index per merchant. A merchant whose due deliveries are all leased or wait for
// an earlier event of their order is returned too, and then claims nothing. The oldest is the
// first row in the index's order (ORDER BY ... LIMIT 1): SQLite computes a MIN() under the
// partial index's conditions by reading every pending row of the merchant (2 ms a claim at
// 15,000 pending, against 0.2 ms).
func (s *Store) dueMerchants(ctx context.Context, tx *sql.Tx, now time.Time, limit int, skip []string) ([]string, error) {
	args := []any{s.t(now), limit}
	notIn := ""
	if len(skip) > 0 {
		for _, m := range skip {
			args = append(args, m)
		}
		notIn = ` AND m.id NOT IN (` + placeholders(3, len(args)) + `)`
	}
	return collect(ctx, tx, "due merchants", s.q(`WITH oldest AS MATERIALIZED (
		SELECT m.id, (SELECT d.next_attempt_at FROM webhook_deliveries d`+s.indexed("webhook_deliveries_merchant_due")+`
			WHERE d.merchant_id = m.id AND d.status = 'pending' AND d.held_at IS NULL ORDER BY d.next_attempt_at LIMIT 1) AS due
		FROM merchants m WHERE m.status <> 'disabled'`+notIn+`)
		SELECT id FROM oldest WHERE due <= $1 ORDER BY due, id LIMIT $2`), func(r interface{ Scan(...any) error }) (string, error) {
		var id string
		return id, r.Scan(&id)
	}, args...)
}

// ReleaseDelivery implements rampway.DeliveryStore.
func (s *Store) ReleaseDelivery(ctx context.Context, eventID string) error {
	if _, err := s.exec(ctx, s.q(`UPDATE webhook_deliveries SET lease_until = NULL WHERE event_id = $1`), eventID); err != nil {
		return fmt.Errorf("release delivery: %w", err)
	}
	return nil
}

// RecordAttempt implements rampway.DeliveryStore.
func (s *Store) RecordAttempt(ctx context.Context, a *rampway.DeliveryAttempt, status rampway.DeliveryStatus, next time.Time) error {
	return s.batched(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO webhook_attempts (event_id, attempt, started_at, status_code, latency_us, error)
			VALUES ($1, $2, $3, $4, $5, $6)`), a.EventID, a.Attempt, s.t(a.At), a.StatusCode, a.Latency.Microseconds(), a.Error); err != nil {
			if s.d.IsUniqueViolation(err) {
				return rampway.Errorf(rampway.ECONFLICT, "attempt %d of %s is already recorded", a.Attempt, a.EventID)
			}
			return fmt.Errorf("insert attempt: %w", err)
		}
		done := a.At.Add(a.Latency)
		var delivered any
		if status == rampway.DeliveryDelivered {
			delivered = s.t(done)
		}
		_, err := tx.ExecContext(ctx, s.q(`UPDATE webhook_deliveries SET status = $1, attempts = $2, next_attempt_at = $3, lease_until = NULL,
			last_status_code = $4, last_error = $5, updated_at = $6, delivered_at = COALESCE($7, delivered_at) WHERE event_id = $8`),
			status, a.Attempt, s.t(next), a.StatusCode, a.Error, s.t(done), delivered, a.EventID)
		if err != nil {
			return fmt.Errorf("update delivery: %w", err)
		}
		return nil
	})
}

// Deliveries implements rampway.DeliveryStore.
func (s *Store) Deliveries(ctx context.Context, orderID string) ([]*rampway.Delivery, error) {
	return s.queryDeliveries(ctx, s.db, "deliveries", `SELECT `+deliveryColumns+` FROM webhook_deliveries WHERE order_id = $1 ORDER BY event_seq`, orderID)
}

// MerchantDeliveries implements rampway.DeliveryStore: the events after the sequence number
// through order_events' primary key (their orders' mode through theirs), their deliveries
// through theirs.
func (s *Store) MerchantDeliveries(ctx context.Context, merchantID string, livemode bool, after int64, limit int) ([]*rampway.Delivery, error) {
	return s.queryDeliveries(ctx, s.db, "merchant deliveries", `SELECT `+deliveryColumns+` FROM webhook_deliveries WHERE event_id IN
		(SELECT e.id FROM order_events e JOIN orders o ON o.id = e.order_id WHERE e.seq > $1 AND e.merchant_id = $2 AND o.livemode = $3
		ORDER BY e.seq LIMIT $4) ORDER BY event_seq`, after, merchantID, livemode, limit)
}

// LastEventSeq implements rampway.DeliveryStore.
func (s *Store) LastEventSeq(ctx context.Context) (int64, error) {
	var seq int64
	if err := s.db.QueryRowContext(ctx, s.q(`SELECT COALESCE(MAX(seq), 0) FROM order_events`)).Scan(&seq); err != nil {
		return 0, fmt.Errorf("last event: %w", err)
	}
	return seq, nil
}

// DeliveryAttempts implements rampway.DeliveryStore.
func (s *Store) DeliveryAttempts(ctx context.Context, orderID string) ([]*rampway.DeliveryAttempt, error) {
	return collect(ctx, s.db, "delivery attempts", s.q(`SELECT a.event_id, a.attempt, a.started_at, a.status_code, a.latency_us, a.error
		FROM webhook_deliveries d JOIN webhook_attempts a ON a.event_id = d.event_id WHERE d.order_id = $1 ORDER BY d.event_seq, a.attempt`), func(row interface{ Scan(...any) error }) (*rampway.DeliveryAttempt, error) {
		var (
			a  rampway.DeliveryAttempt
			at dbTime
			us int64
		)
		err := row.Scan(&a.EventID, &a.Attempt, &at, &a.StatusCode, &us, &a.Error)
		a.At, a.Latency = at.T, time.Duration(us)*time.Microsecond
		return &a, err
	}, orderID)
}

// DeferDeliveries implements rampway.DeliveryStore.
func (s *Store) DeferDeliveries(ctx context.Context, merchantID string, now, until time.Time) (int64, error) {
	res, err := s.exec(ctx, s.q(`UPDATE webhook_deliveries SET next_attempt_at = $1, updated_at = $2
		WHERE merchant_id = $3 AND status = 'pending' AND next_attempt_at < $1 AND (lease_until IS NULL OR lease_until < $2)`),
		s.t(until), s.t(now), merchantID)
	if err != nil {
		return 0, fmt.Errorf("defer deliveries: %w", err)
	}
	return res.RowsAffected()
}

// ResendDelivery implements rampway.DeliveryStore.
func (s *Store) ResendDelivery(ctx context.Context, merchantID, eventID string, now time.Time) (*rampway.Delivery, error) {
	var out *rampway.Delivery
	err := s.tx(ctx, func(tx *sql.Tx) error {
		// Locked for share on PostgreSQL, as an event's delivery reads it (merchantDisabled):
		// a resend does not slip in unheld while the merchant is being disabled.
		disabled, err := s.merchantDisabled(ctx, tx, merchantID)
		if err != nil {
			return err
		}
		if disabled {
			return &rampway.Error{Code: rampway.ECONFLICT, Err: rampway.ErrMerchantDisabled,
				Message: fmt.Sprintf("Merchant %s is disabled: its webhook deliveries are held, and sent when it is enabled again", merchantID)}
		}
		res, err := tx.ExecContext(ctx, s.q(`UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = $1, lease_until = NULL, updated_at = $1,
			held_at = NULL WHERE event_id = $2 AND merchant_id = $3`), s.t(now), eventID, merchantID)
		if err != nil {
			return fmt.Errorf("resend delivery: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return rampway.Errorf(rampway.ENOTFOUND, "Event %q not found", eventID)
		}
		out, err = scanDelivery(tx.QueryRowContext(ctx, s.q(`SELECT `+deliveryColumns+` FROM webhook_deliveries WHERE event_id = $1`), eventID))
		return err
	})
	return out, err
}

// WebhookLog implements rampway.WebhookLogStore, through webhook_deliveries_merchant_log.
func (s *Store) WebhookLog(ctx context.Context, merchantID string, livemode bool, before int64, limit int) ([]*rampway.Delivery, error) {
	if before <= 0 {
		before = math.MaxInt64
	}
	return s.queryDeliveries(ctx, s.db, "webhook log", `SELECT `+deliveryColumns+` FROM webhook_deliveries
		WHERE merchant_id = $1 AND livemode = $2 AND event_seq < $3 ORDER BY event_seq DESC LIMIT $4`, merchantID, livemode, before, limit)
}
