package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/rampway/rampway"
)

const merchantColumns = `id, name, status, webhook_url, webhook_secret, webhook_secret_set_at, service_fee_bps, created_at, updated_at,
	previous_webhook_secret, previous_secret_expires_at, logo_url, live_webhook_secret, live_webhook_secret_set_at,
	previous_live_webhook_secret, previous_live_secret_expires_at, refund_policy`

func (s *Store) scanMerchant(row interface{ Scan(...any) error }) (*rampway.Merchant, error) {
	var (
		m              rampway.Merchant
		status, secret string
		setAt          dbTime
		fee            sql.NullInt64
		created, upd   dbTime
		prev           string
		prevUntil      dbTime
		live, prevLive string
		liveSetAt      dbTime
		prevLiveUntil  dbTime
		policy         string
	)
	if err := row.Scan(&m.ID, &m.Name, &status, &m.WebhookURL, &secret, &setAt, &fee, &created, &upd, &prev, &prevUntil, &m.LogoURL,
		&live, &liveSetAt, &prevLive, &prevLiveUntil, &policy); err != nil {
		return nil, err
	}
	if policy != "" {
		if err := json.Unmarshal([]byte(policy), &m.RefundPolicies); err != nil {
			return nil, fmt.Errorf("merchant %s refund policy: %w", m.ID, err)
		}
	}
	clear, err := s.box.Open(secret)
	if err != nil {
		return nil, fmt.Errorf("merchant %s webhook secret: %w", m.ID, err)
	}
	if m.PreviousWebhookSecret, err = s.box.Open(prev); err != nil {
		return nil, fmt.Errorf("merchant %s previous webhook secret: %w", m.ID, err)
	}
	if m.LiveWebhookSecret, err = s.box.Open(live); err != nil {
		return nil, fmt.Errorf("merchant %s live webhook secret: %w", m.ID, err)
	}
	if m.PreviousLiveWebhookSecret, err = s.box.Open(prevLive); err != nil {
		return nil, fmt.Errorf("merchant %s previous live webhook secret: %w", m.ID, err)
	}
	m.PreviousSecretExpiresAt, m.LiveWebhookSecretSetAt, m.PreviousLiveSecretExpiresAt = prevUntil.ptr(), liveSetAt.ptr(), prevLiveUntil.ptr()
	m.Status = rampway.MerchantStatus(status)
	m.WebhookSecret = clear
	m.WebhookSecretSetAt = setAt.ptr()
	if fee.Valid {
		m.ServiceFeeBPS = &fee.Int64
	}
	m.CreatedAt, m.UpdatedAt = created.T, upd.T
	return &m, nil
}

// refundPolicyText is a merchant's refund policies as stored ("" for none).
func refundPolicyText(p map[string]rampway.RefundLimits) (string, error) {
	if len(p) == 0 {
		return "", nil
	}
	b, err := json.Marshal(p)
	if err != nil {
		return "", fmt.Errorf("refund policy: %w", err)
	}
	return string(b), nil
}

// CreateMerchant implements rampway.MerchantStore.
func (s *Store) CreateMerchant(ctx context.Context, m *rampway.Merchant) error {
	policy, err := refundPolicyText(m.RefundPolicies)
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, s.q(`INSERT INTO merchants (`+merchantColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`),
		m.ID, m.Name, string(m.Status), m.WebhookURL, s.box.Seal(m.WebhookSecret), s.tp(m.WebhookSecretSetAt), nullInt(m.ServiceFeeBPS),
		s.t(m.CreatedAt), s.t(m.UpdatedAt), s.box.Seal(m.PreviousWebhookSecret), s.tp(m.PreviousSecretExpiresAt), m.LogoURL,
		s.box.Seal(m.LiveWebhookSecret), s.tp(m.LiveWebhookSecretSetAt), s.box.Seal(m.PreviousLiveWebhookSecret), s.tp(m.PreviousLiveSecretExpiresAt), policy)
	if err != nil {
		if s.d.IsUniqueViolation(err) {
			return rampway.Errorf(rampway.ECONFLICT, "merchant %s already exists", m.ID)
		}
		return fmt.Errorf("insert merchant: %w", err)
	}
	return nil
}

// Merchant implements rampway.MerchantStore.
func (s *Store) Merchant(ctx context.Context, id string) (*rampway.Merchant, error) {
	return s.merchant(ctx, s.db, id)
}

func (s *Store) merchant(ctx context.Context, q querier, id string) (*rampway.Merchant, error) {
	m, err := s.scanMerchant(q.QueryRowContext(ctx, s.q(`SELECT `+merchantColumns+` FROM merchants WHERE id = $1`), id))
	if err != nil {
		return nil, notFound(err, "merchant")
	}
	return m, nil
}

// Merchants implements rampway.MerchantStore.
func (s *Store) Merchants(ctx context.Context, p rampway.Page) ([]*rampway.Merchant, error) {
	return collect(ctx, s.db, "list merchants", s.q(`SELECT `+merchantColumns+` FROM merchants WHERE id > $1 ORDER BY id LIMIT $2`),
		s.scanMerchant, p.After, limit(p.Limit))
}

// UpdateMerchant implements rampway.MerchantStore.
func (s *Store) UpdateMerchant(ctx context.Context, id string, u rampway.MerchantUpdate) (*rampway.Merchant, error) {
	var out *rampway.Merchant
	err := s.tx(ctx, func(tx *sql.Tx) error {
		m, err := s.merchant(ctx, tx, id)
		if err != nil {
			return err
		}
		if u.Name != nil {
			m.Name = *u.Name
		}
		if u.WebhookURL != nil {
			m.WebhookURL = *u.WebhookURL
		}
		if u.Status != nil {
			m.Status = *u.Status
		}
		if u.LogoURL != nil {
			m.LogoURL = *u.LogoURL
		}
		if u.SetServiceFeeBPS {
			m.ServiceFeeBPS = nil
			if u.ServiceFeeBPS != nil {
				fee := *u.ServiceFeeBPS
				m.ServiceFeeBPS = &fee
			}
		}
		if u.RefundPolicies != nil {
			m.RefundPolicies = u.RefundPolicies
			if len(m.RefundPolicies) == 0 {
				m.RefundPolicies = nil
			}
		}
		policy, err := refundPolicyText(m.RefundPolicies)
		if err != nil {
			return err
		}
		m.UpdatedAt = u.UpdatedAt
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE merchants SET name = $1, webhook_url = $2, status = $3, service_fee_bps = $4, logo_url = $5, updated_at = $6,
			refund_policy = $7 WHERE id = $8`), m.Name, m.WebhookURL, string(m.Status), nullInt(m.ServiceFeeBPS), m.LogoURL, s.t(m.UpdatedAt), policy, id); err != nil {
			return fmt.Errorf("update merchant: %w", err)
		}
		if u.Status != nil { // disabled holds its webhook deliveries, active releases them
			if err := s.holdDeliveries(ctx, tx, id, m.Status, m.UpdatedAt); err != nil {
				return err
			}
		}
		out = m
		return nil
	})
	return out, err
}

// SetWebhookSecret implements rampway.MerchantStore.
func (s *Store) SetWebhookSecret(ctx context.Context, merchantID string, livemode bool, secret string, grace time.Duration, at time.Time) error {
	cur, setAt, prevCol, untilCol := "webhook_secret", "webhook_secret_set_at", "previous_webhook_secret", "previous_secret_expires_at"
	if livemode {
		cur, setAt, prevCol, untilCol = "live_webhook_secret", "live_webhook_secret_set_at", "previous_live_webhook_secret", "previous_live_secret_expires_at"
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		var current string // sealed: it moves to previous as it is (sealed by the same key)
		err := tx.QueryRowContext(ctx, s.q(`SELECT `+cur+` FROM merchants WHERE id = $1`+s.d.ForUpdate), merchantID).Scan(&current)
		if err != nil {
			return notFound(err, "merchant")
		}
		prev, until := "", any(nil)
		if grace > 0 && current != "" {
			prev, until = current, s.t(at.Add(grace))
		}
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE merchants SET `+cur+` = $1, `+setAt+` = $2, updated_at = $2,
			`+prevCol+` = $3, `+untilCol+` = $4 WHERE id = $5`), s.box.Seal(secret), s.t(at), prev, until, merchantID); err != nil {
			return fmt.Errorf("set webhook secret: %w", err)
		}
		return nil
	})
}

// nullInt converts an optional integer to a column value (NULL when nil).
func nullInt(v *int64) any {
	if v == nil {
		return nil
	}
	return *v
}
