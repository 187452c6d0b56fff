package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/rampway/rampway"
)

const dashboardUserColumns = `id, merchant_id, email, role, password_hash, totp_secret, created_at, disabled_at`

// scanDashboardUser reads a row of dashboardUserColumns, its TOTP secret opened (it is sealed
// at rest when the store has a box).
func (s *Store) scanDashboardUser(row interface{ Scan(...any) error }) (*rampway.DashboardUser, error) {
	var (
		u                 rampway.DashboardUser
		created, disabled dbTime
		totp              string
	)
	if err := row.Scan(&u.ID, &u.MerchantID, &u.Email, &u.Role, &u.PasswordHash, &totp, &created, &disabled); err != nil {
		return nil, err
	}
	var err error
	if u.TOTPSecret, err = s.box.Open(totp); err != nil {
		return nil, fmt.Errorf("dashboard user %s's TOTP secret: %w", u.ID, err)
	}
	u.CreatedAt, u.DisabledAt = created.T, disabled.ptr()
	return &u, nil
}

// CreateDashboardUser implements rampway.DashboardStore.
func (s *Store) CreateDashboardUser(ctx context.Context, u *rampway.DashboardUser, audit *rampway.AuditEntry) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		if u.MerchantID != "" {
			if err := s.merchantExists(ctx, tx, u.MerchantID); err != nil {
				return err
			}
		}
		if err := s.insertDashboardUser(ctx, tx, u); err != nil {
			return err
		}
		return s.addAudit(ctx, tx, audit)
	})
}

// insertDashboardUser inserts u (its TOTP secret sealed). ECONFLICT when its email or id is
// taken.
func (s *Store) insertDashboardUser(ctx context.Context, q querier, u *rampway.DashboardUser) error {
	_, err := q.ExecContext(ctx, s.q(`INSERT INTO dashboard_users (`+dashboardUserColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`),
		u.ID, u.MerchantID, u.Email, string(u.Role), u.PasswordHash, s.box.Seal(u.TOTPSecret), s.t(u.CreatedAt), s.tp(u.DisabledAt))
	if err != nil {
		if s.d.IsUniqueViolation(err) {
			return &rampway.Error{Code: rampway.ECONFLICT, Field: "email", Message: "a dashboard user with this email (or id) already exists"}
		}
		return fmt.Errorf("insert dashboard user: %w", err)
	}
	return nil
}

// DashboardUser implements rampway.DashboardStore.
func (s *Store) DashboardUser(ctx context.Context, id string) (*rampway.DashboardUser, error) {
	u, err := s.scanDashboardUser(s.db.QueryRowContext(ctx, s.q(`SELECT `+dashboardUserColumns+` FROM dashboard_users WHERE id = $1`), id))
	if err != nil {
		return nil, notFound(err, "dashboard user")
	}
	return u, nil
}

// DashboardUserByEmail implements rampway.DashboardStore.
func (s *Store) DashboardUserByEmail(ctx context.Context, email string) (*rampway.DashboardUser, error) {
	u, err := s.scanDashboardUser(s.db.QueryRowContext(ctx, s.q(`SELECT `+dashboardUserColumns+` FROM dashboard_users WHERE email = $1`), email))
	if err != nil {
		return nil, notFound(err, "dashboard user")
	}
	return u, nil
}

// DashboardUsers implements rampway.DashboardStore.
func (s *Store) DashboardUsers(ctx context.Context, merchantID string) ([]*rampway.DashboardUser, error) {
	if merchantID == "" {
		return collect(ctx, s.db, "list dashboard users", s.q(`SELECT `+dashboardUserColumns+` FROM dashboard_users ORDER BY merchant_id, email`),
			s.scanDashboardUser)
	}
	var out []*rampway.DashboardUser
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if err := s.merchantExists(ctx, tx, merchantID); err != nil {
			return err
		}
		var err error
		out, err = collect(ctx, tx, "list dashboard users", s.q(`SELECT `+dashboardUserColumns+` FROM dashboard_users WHERE merchant_id = $1 ORDER BY email`),
			s.scanDashboardUser, merchantID)
		return err
	})
	return out, err
}

const dashboardSessionColumns = `id, user_id, csrf_token, created_at, last_seen_at, expires_at, ip, user_agent`

func scanDashboardSession(row interface{ Scan(...any) error }) (*rampway.DashboardSession, error) {
	var (
		ds                     rampway.DashboardSession
		created, seen, expires dbTime
	)
	if err := row.Scan(&ds.ID, &ds.UserID, &ds.CSRFToken, &created, &seen, &expires, &ds.IP, &ds.UserAgent); err != nil {
		return nil, err
	}
	ds.CreatedAt, ds.LastSeenAt, ds.ExpiresAt = created.T, seen.T, expires.T
	return &ds, nil
}

// CreateDashboardSession implements rampway.DashboardStore.
func (s *Store) CreateDashboardSession(ctx context.Context, ds *rampway.DashboardSession, audit *rampway.AuditEntry) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		if err := s.insertDashboardSession(ctx, tx, ds); err != nil {
			return err
		}
		return s.addAudit(ctx, tx, audit)
	})
}

// insertDashboardSession inserts a session. ECONFLICT when its id exists.
func (s *Store) insertDashboardSession(ctx context.Context, q querier, ds *rampway.DashboardSession) error {
	_, err := q.ExecContext(ctx, s.q(`INSERT INTO dashboard_sessions (`+dashboardSessionColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`),
		ds.ID, ds.UserID, ds.CSRFToken, s.t(ds.CreatedAt), s.t(ds.LastSeenAt), s.t(ds.ExpiresAt), ds.IP, ds.UserAgent)
	if err != nil {
		if s.d.IsUniqueViolation(err) {
			return rampway.Errorf(rampway.ECONFLICT, "dashboard session already exists")
		}
		return fmt.Errorf("insert dashboard session: %w", err)
	}
	return nil
}

// DashboardSession implements rampway.DashboardStore.
func (s *Store) DashboardSession(ctx context.Context, id string) (*rampway.DashboardSession, error) {
	ds, err := scanDashboardSession(s.db.QueryRowContext(ctx, s.q(`SELECT `+dashboardSessionColumns+` FROM dashboard_sessions WHERE id = $1`), id))
	if err != nil {
		return nil, notFound(err, "dashboard session")
	}
	return ds, nil
}

// TouchDashboardSession implements rampway.DashboardStore.
func (s *Store) TouchDashboardSession(ctx context.Context, id string, lastSeen, expires time.Time) error {
	res, err := s.exec(ctx, s.q(`UPDATE dashboard_sessions SET last_seen_at = $1, expires_at = $2 WHERE id = $3`), s.t(lastSeen), s.t(expires), id)
	if err != nil {
		return fmt.Errorf("touch dashboard session: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("touch dashboard session: %w", err)
	} else if n == 0 {
		return rampway.Errorf(rampway.ENOTFOUND, "dashboard session not found")
	}
	return nil
}

// DeleteDashboardSession implements rampway.DashboardStore.
func (s *Store) DeleteDashboardSession(ctx context.Context, id string, audit *rampway.AuditEntry) (bool, error) {
	var deleted bool
	err := s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, s.q(`DELETE FROM dashboard_sessions WHERE id = $1`), id)
		if err != nil {
			return fmt.Errorf("delete dashboard session: %w", err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return fmt.Errorf("delete dashboard session: %w", err)
		}
		if deleted = n > 0; !deleted {
			return nil
		}
		return s.addAudit(ctx, tx, audit)
	})
	return deleted, err
}

// DeleteExpiredDashboardSessions implements rampway.DashboardStore.
func (s *Store) DeleteExpiredDashboardSessions(ctx context.Context, now time.Time, n int) (int, error) {
	res, err := s.exec(ctx, s.q(`DELETE FROM dashboard_sessions WHERE id IN
		(SELECT id FROM dashboard_sessions WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2)`), s.t(now), limit(n))
	if err != nil {
		return 0, fmt.Errorf("delete expired dashboard sessions: %w", err)
	}
	deleted, err := res.RowsAffected()
	return int(deleted), err
}

// LoginFailures implements rampway.DashboardStore.
func (s *Store) LoginFailures(ctx context.Context, key string) (rampway.LoginFailures, error) {
	var (
		f     rampway.LoginFailures
		start dbTime
	)
	err := s.db.QueryRowContext(ctx, s.q(`SELECT failures, window_start FROM dashboard_login_failures WHERE key = $1`), key).Scan(&f.Count, &start)
	if errors.Is(err, sql.ErrNoRows) {
		return rampway.LoginFailures{}, nil
	}
	if err != nil {
		return f, fmt.Errorf("read login failures: %w", err)
	}
	f.WindowStart = start.T
	return f, nil
}

// RecordLoginFailure implements rampway.DashboardStore. One statement: instances counting the
// same key at once each add theirs.
func (s *Store) RecordLoginFailure(ctx context.Context, key string, at time.Time, window time.Duration) (rampway.LoginFailures, error) {
	var (
		f     rampway.LoginFailures
		start dbTime
	)
	err := s.tx(ctx, func(tx *sql.Tx) error {
		return tx.QueryRowContext(ctx, s.q(`INSERT INTO dashboard_login_failures (key, failures, window_start) VALUES ($1, 1, $2)
			ON CONFLICT (key) DO UPDATE SET
				failures = CASE WHEN dashboard_login_failures.window_start <= $3 THEN 1 ELSE dashboard_login_failures.failures + 1 END,
				window_start = CASE WHEN dashboard_login_failures.window_start <= $3 THEN excluded.window_start ELSE dashboard_login_failures.window_start END
			RETURNING failures, window_start`), key, s.t(at), s.t(at.Add(-window))).Scan(&f.Count, &start)
	})
	if err != nil {
		return f, fmt.Errorf("record login failure: %w", err)
	}
	f.WindowStart = start.T
	return f, nil
}

// ClearLoginFailures implements rampway.DashboardStore.
func (s *Store) ClearLoginFailures(ctx context.Context, key string) error {
	if _, err := s.exec(ctx, s.q(`DELETE FROM dashboard_login_failures WHERE key = $1`), key); err != nil {
		return fmt.Errorf("clear login failures: %w", err)
	}
	return nil
}

// DeleteLoginFailuresBefore implements rampway.DashboardStore.
func (s *Store) DeleteLoginFailuresBefore(ctx context.Context, before time.Time, n int) (int, error) {
	res, err := s.exec(ctx, s.q(`DELETE FROM dashboard_login_failures WHERE key IN
		(SELECT key FROM dashboard_login_failures WHERE window_start < $1 ORDER BY window_start LIMIT $2)`), s.t(before), limit(n))
	if err != nil {
		return 0, fmt.Errorf("delete old login failures: %w", err)
	}
	deleted, err := res.RowsAffected()
	return int(deleted), err
}

const auditColumns = `id, merchant_id, user_id, action, subject, detail, at`

func scanAuditEntry(row interface{ Scan(...any) error }) (*rampway.AuditEntry, error) {
	var (
		e  rampway.AuditEntry
		at dbTime
	)
	if err := row.Scan(&e.ID, &e.MerchantID, &e.UserID, &e.Action, &e.Subject, &e.Detail, &at); err != nil {
		return nil, err
	}
	e.At = at.T
	return &e, nil
}

func (s *Store) addAudit(ctx context.Context, q querier, e *rampway.AuditEntry) error {
	if e == nil {
		return nil
	}
	_, err := q.ExecContext(ctx, s.q(`INSERT INTO dashboard_audit (`+auditColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7)`),
		e.ID, e.MerchantID, e.UserID, e.Action, e.Subject, e.Detail, s.t(e.At))
	if err != nil {
		if s.d.IsUniqueViolation(err) {
			return rampway.Errorf(rampway.ECONFLICT, "audit entry already exists")
		}
		return fmt.Errorf("insert audit entry: %w", err)
	}
	return nil
}

// AddAuditEntry implements rampway.DashboardStore.
func (s *Store) AddAuditEntry(ctx context.Context, e *rampway.AuditEntry) error {
	return s.tx(ctx, func(tx *sql.Tx) error { return s.addAudit(ctx, tx, e) })
}

// AuditEntries implements rampway.DashboardStore.
func (s *Store) AuditEntries(ctx context.Context, merchantID string, page rampway.Page) ([]*rampway.AuditEntry, error) {
	if page.After == "" {
		return collect(ctx, s.db, "list audit entries", s.q(`SELECT `+auditColumns+` FROM dashboard_audit
			WHERE merchant_id = $1 ORDER BY at DESC, id DESC LIMIT $2`), scanAuditEntry, merchantID, limit(page.Limit))
	}
	var out []*rampway.AuditEntry
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var at dbTime
		err := tx.QueryRowContext(ctx, s.q(`SELECT at FROM dashboard_audit WHERE id = $1 AND merchant_id = $2`), page.After, merchantID).Scan(&at)
		if err != nil {
			return notFound(err, "audit entry")
		}
		out, err = collect(ctx, tx, "list audit entries", s.q(`SELECT `+auditColumns+` FROM dashboard_audit
			WHERE merchant_id = $1 AND (at < $2 OR (at = $2 AND id < $3)) ORDER BY at DESC, id DESC LIMIT $4`),
			scanAuditEntry, merchantID, s.t(at.T), page.After, limit(page.Limit))
		return err
	})
	return out, err
}
