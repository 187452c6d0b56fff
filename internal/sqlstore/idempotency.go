package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/rampway/rampway"
)

// insertIdempotencyKey records a new key, or nothing when the merchant has it already.
const insertIdempotencyKey = `INSERT INTO idempotency_keys (merchant_id, key, request_hash, done, response_status, created_at)
	VALUES ($1, $2, $3, 0, 0, $4) ON CONFLICT (merchant_id, key) DO NOTHING`

// BeginIdempotent implements rampway.IdempotencyStore.
func (s *Store) BeginIdempotent(ctx context.Context, rec *rampway.IdempotencyRecord, staleBefore time.Time) (*rampway.IdempotencyRecord, error) {
	args := []any{rec.MerchantID, rec.Key, rec.RequestHash, s.t(rec.CreatedAt)}
	if !s.d.OneWriter {
		// A new key, the usual case, in one statement: no transaction to begin and commit.
		res, err := s.db.ExecContext(ctx, s.q(insertIdempotencyKey), args...)
		if err != nil {
			return nil, fmt.Errorf("record idempotency key: %w", err)
		}
		if n, err := res.RowsAffected(); err == nil && n == 1 {
			return nil, nil
		}
	}
	var existing *rampway.IdempotencyRecord
	err := s.batched(ctx, func(tx *sql.Tx) error {
		existing = nil // a batch that failed runs this again
		res, err := tx.ExecContext(ctx, s.q(insertIdempotencyKey), args...)
		if err != nil {
			return fmt.Errorf("record idempotency key: %w", err)
		}
		if n, err := res.RowsAffected(); err == nil && n == 1 {
			return nil // a new key
		}
		var (
			r       rampway.IdempotencyRecord
			done    int
			created dbTime
		)
		err = tx.QueryRowContext(ctx, s.q(`SELECT merchant_id, key, request_hash, done, response_status, response_body, created_at
			FROM idempotency_keys WHERE merchant_id = $1 AND key = $2`+s.d.ForUpdate), rec.MerchantID, rec.Key).
			Scan(&r.MerchantID, &r.Key, &r.RequestHash, &done, &r.Status, &r.Body, &created)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			// Released by its request between our insert and this read.
			return rampway.ErrKeyInUse(rec.Key)
		case err != nil:
			return fmt.Errorf("read idempotency key: %w", err)
		}
		r.Done, r.CreatedAt = done == 1, created.T
		if !r.Done && r.CreatedAt.Before(staleBefore) {
			// The first request died mid-way: this one takes the key over.
			_, err = tx.ExecContext(ctx, s.q(`UPDATE idempotency_keys SET request_hash = $1, created_at = $2 WHERE merchant_id = $3 AND key = $4`),
				rec.RequestHash, s.t(rec.CreatedAt), rec.MerchantID, rec.Key)
			return err
		}
		existing = &r
		return nil
	})
	if err != nil {
		return nil, err
	}
	return existing, nil
}

// finishIdempotencyKey stores a claim's reply: only while that claim holds the key (not
// answered, not taken over: its created_at is the claim's).
const finishIdempotencyKey = `UPDATE idempotency_keys SET done = 1, response_status = $1, response_body = $2
	WHERE merchant_id = $3 AND key = $4 AND done = 0 AND created_at = $5`

// finishIdempotent stores reply in tx, or returns rampway.ErrClaimLost.
func (s *Store) finishIdempotent(ctx context.Context, tx *sql.Tx, r *rampway.IdempotentReply) error {
	res, err := tx.ExecContext(ctx, s.q(finishIdempotencyKey), r.Status, r.Body, r.MerchantID, r.Key, s.t(r.ClaimedAt))
	if err != nil {
		return fmt.Errorf("finish idempotency key: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("finish idempotency key: %w", err)
	} else if n != 1 {
		return rampway.ErrClaimLost(r.Key)
	}
	return nil
}

// FinishIdempotent implements rampway.IdempotencyStore.
func (s *Store) FinishIdempotent(ctx context.Context, reply *rampway.IdempotentReply) error {
	return s.batched(ctx, func(tx *sql.Tx) error { return s.finishIdempotent(ctx, tx, reply) })
}

// ReleaseIdempotent implements rampway.IdempotencyStore.
func (s *Store) ReleaseIdempotent(ctx context.Context, c rampway.IdempotencyClaim) error {
	_, err := s.exec(ctx, s.q(`DELETE FROM idempotency_keys WHERE merchant_id = $1 AND key = $2 AND done = 0 AND created_at = $3`),
		c.MerchantID, c.Key, s.t(c.ClaimedAt))
	if err != nil {
		return fmt.Errorf("release idempotency key: %w", err)
	}
	return nil
}
