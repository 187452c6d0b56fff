package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/rampway/rampway"
)

const apiKeyColumns = `id, merchant_id, prefix, hash, created_at, revoked_at`

func scanAPIKey(row interface{ Scan(...any) error }) (*rampway.APIKey, error) {
	var (
		k                rampway.APIKey
		created, revoked dbTime
	)
	if err := row.Scan(&k.ID, &k.MerchantID, &k.Prefix, &k.Hash, &created, &revoked); err != nil {
		return nil, err
	}
	k.CreatedAt, k.RevokedAt = created.T, revoked.ptr()
	return &k, nil
}

// CreateAPIKey implements rampway.MerchantStore.
func (s *Store) CreateAPIKey(ctx context.Context, k *rampway.APIKey) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		if err := s.merchantExists(ctx, tx, k.MerchantID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, s.q(`INSERT INTO api_keys (`+apiKeyColumns+`) VALUES ($1, $2, $3, $4, $5, $6)`),
			k.ID, k.MerchantID, k.Prefix, k.Hash, s.t(k.CreatedAt), s.tp(k.RevokedAt))
		if err != nil {
			if s.d.IsUniqueViolation(err) {
				return rampway.Errorf(rampway.ECONFLICT, "API key id or prefix already exists")
			}
			return fmt.Errorf("insert api key: %w", err)
		}
		return nil
	})
}

func (s *Store) merchantExists(ctx context.Context, q querier, id string) error {
	var one int
	err := q.QueryRowContext(ctx, s.q(`SELECT 1 FROM merchants WHERE id = $1`), id).Scan(&one)
	if err != nil {
		return notFound(err, "merchant")
	}
	return nil
}

// APIKeyByPrefix implements rampway.MerchantStore.
func (s *Store) APIKeyByPrefix(ctx context.Context, prefix string) (*rampway.APIKey, error) {
	k, err := scanAPIKey(s.db.QueryRowContext(ctx, s.q(`SELECT `+apiKeyColumns+` FROM api_keys WHERE prefix = $1`), prefix))
	if err != nil {
		return nil, notFound(err, "API key")
	}
	return k, nil
}

// APIKeys implements rampway.MerchantStore.
func (s *Store) APIKeys(ctx context.Context, merchantID string) ([]*rampway.APIKey, error) {
	var out []*rampway.APIKey
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if err := s.merchantExists(ctx, tx, merchantID); err != nil {
			return err
		}
		var err error
		out, err = collect(ctx, tx, "list api keys", s.q(`SELECT `+apiKeyColumns+` FROM api_keys WHERE merchant_id = $1 ORDER BY created_at, id`),
			scanAPIKey, merchantID)
		return err
	})
	return out, err
}

// RevokeAPIKey implements rampway.MerchantStore.
func (s *Store) RevokeAPIKey(ctx context.Context, merchantID, keyID string, at time.Time) (*rampway.APIKey, error) {
	var out *rampway.APIKey
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND merchant_id = $3 AND revoked_at IS NULL`),
			s.t(at), keyID, merchantID); err != nil {
			return fmt.Errorf("revoke api key: %w", err)
		}
		k, err := scanAPIKey(tx.QueryRowContext(ctx, s.q(`SELECT `+apiKeyColumns+` FROM api_keys WHERE id = $1 AND merchant_id = $2`), keyID, merchantID))
		if errors.Is(err, sql.ErrNoRows) {
			return rampway.Errorf(rampway.ENOTFOUND, "API key not found")
		}
		if err != nil {
			return fmt.Errorf("revoke api key: %w", err)
		}
		out = k
		return nil
	})
	return out, err
}
