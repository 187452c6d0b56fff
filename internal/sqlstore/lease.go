package sqlstore

import (
	"context"
	"fmt"
	"time"
)

// takeLease inserts the lease, or takes it over when it is holder's own or has expired, in
// one statement: of several instances asking at once, one gets it.
const takeLease = `INSERT INTO worker_leases (name, holder, expires_at) VALUES ($1, $2, $3)
	ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
	WHERE worker_leases.holder = excluded.holder OR worker_leases.expires_at <= $4`

// TakeLease implements rampway.LeaseStore.
func (s *Store) TakeLease(ctx context.Context, name, holder string, now time.Time, ttl time.Duration) (bool, error) {
	res, err := s.exec(ctx, s.q(takeLease), name, holder, s.t(now.Add(ttl)), s.t(now))
	if err != nil {
		return false, fmt.Errorf("take lease %s: %w", name, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("take lease %s: %w", name, err)
	}
	return n == 1, nil
}

// ReleaseLease implements rampway.LeaseStore.
func (s *Store) ReleaseLease(ctx context.Context, name, holder string) error {
	if _, err := s.exec(ctx, s.q(`DELETE FROM worker_leases WHERE name = $1 AND holder = $2`), name, holder); err != nil {
		return fmt.Errorf("release lease %s: %w", name, err)
	}
	return nil
}
