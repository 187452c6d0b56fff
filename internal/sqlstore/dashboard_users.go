package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/rampway/rampway"
)

const invitationColumns = `id, merchant_id, email, role, invited_by, created_at, expires_at, used_at, user_id`

func scanInvitation(row interface{ Scan(...any) error }) (*rampway.DashboardInvitation, error) {
	var (
		inv                    rampway.DashboardInvitation
		created, expires, used dbTime
	)
	if err := row.Scan(&inv.ID, &inv.MerchantID, &inv.Email, &inv.Role, &inv.InvitedBy, &created, &expires, &used, &inv.UserID); err != nil {
		return nil, err
	}
	inv.CreatedAt, inv.ExpiresAt, inv.UsedAt = created.T, expires.T, used.ptr()
	return &inv, nil
}

// CreateDashboardInvitation implements rampway.DashboardUserAdmin.
func (s *Store) CreateDashboardInvitation(ctx context.Context, inv *rampway.DashboardInvitation, audit *rampway.AuditEntry) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		if err := s.merchantExists(ctx, tx, inv.MerchantID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, s.q(`INSERT INTO dashboard_invitations (`+invitationColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`),
			inv.ID, inv.MerchantID, inv.Email, string(inv.Role), inv.InvitedBy, s.t(inv.CreatedAt), s.t(inv.ExpiresAt), s.tp(inv.UsedAt), inv.UserID)
		if err != nil {
			if s.d.IsUniqueViolation(err) {
				return rampway.Errorf(rampway.ECONFLICT, "dashboard invitation already exists")
			}
			return fmt.Errorf("insert dashboard invitation: %w", err)
		}
		return s.addAudit(ctx, tx, audit)
	})
}

// DashboardInvitation implements rampway.DashboardUserAdmin.
func (s *Store) DashboardInvitation(ctx context.Context, id string) (*rampway.DashboardInvitation, error) {
	inv, err := scanInvitation(s.db.QueryRowContext(ctx, s.q(`SELECT `+invitationColumns+` FROM dashboard_invitations WHERE id = $1`), id))
	if err != nil {
		return nil, notFound(err, "dashboard invitation")
	}
	return inv, nil
}

// DashboardInvitations implements rampway.DashboardUserAdmin.
func (s *Store) DashboardInvitations(ctx context.Context, merchantID string, now time.Time) ([]*rampway.DashboardInvitation, error) {
	return collect(ctx, s.db, "list dashboard invitations", s.q(`SELECT `+invitationColumns+` FROM dashboard_invitations
		WHERE merchant_id = $1 AND used_at IS NULL AND expires_at > $2 ORDER BY created_at DESC, id`), scanInvitation, merchantID, s.t(now))
}

// AcceptDashboardInvitation implements rampway.DashboardUserAdmin. The invitation is marked
// used by a statement that matches only a usable one, so that two acceptances at once make
// one user.
func (s *Store) AcceptDashboardInvitation(ctx context.Context, id string, u *rampway.DashboardUser, ds *rampway.DashboardSession,
	audit *rampway.AuditEntry) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, s.q(`UPDATE dashboard_invitations SET used_at = $1, user_id = $2
			WHERE id = $3 AND used_at IS NULL AND expires_at > $1`), s.t(u.CreatedAt), u.ID, id)
		if err != nil {
			return fmt.Errorf("accept dashboard invitation: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return fmt.Errorf("accept dashboard invitation: %w", err)
		} else if n == 0 {
			var one int
			if err := tx.QueryRowContext(ctx, s.q(`SELECT 1 FROM dashboard_invitations WHERE id = $1`), id).Scan(&one); err != nil {
				return notFound(err, "dashboard invitation")
			}
			return rampway.Errorf(rampway.ECONFLICT, "the invitation was used already, or has expired")
		}
		if err := s.merchantExists(ctx, tx, u.MerchantID); err != nil {
			return err
		}
		if err := s.insertDashboardUser(ctx, tx, u); err != nil {
			return err
		}
		if ds != nil {
			if err := s.insertDashboardSession(ctx, tx, ds); err != nil {
				return err
			}
		}
		return s.addAudit(ctx, tx, audit)
	})
}

// UpdateDashboardUser implements rampway.DashboardUserAdmin. Every change of a merchant's
// users locks the merchant's enabled owners first (in id order, then the user changed), so
// that two owners demoting each other at once cannot leave the merchant without one: the
// second sees the first's change and is refused.
func (s *Store) UpdateDashboardUser(ctx context.Context, id string, up rampway.DashboardUserUpdate, audit *rampway.AuditEntry) (*rampway.DashboardUser, error) {
	var out *rampway.DashboardUser
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var merchantID string
		if err := tx.QueryRowContext(ctx, s.q(`SELECT merchant_id FROM dashboard_users WHERE id = $1`), id).Scan(&merchantID); err != nil {
			return notFound(err, "dashboard user")
		}
		var owners []string
		if merchantID != "" {
			var err error
			owners, err = collect(ctx, tx, "lock the merchant's owners", s.q(`SELECT id FROM dashboard_users
				WHERE merchant_id = $1 AND role = 'owner' AND disabled_at IS NULL ORDER BY id`+s.d.ForUpdate), scanValue[string], merchantID)
			if err != nil {
				return err
			}
		}
		u, err := s.scanDashboardUser(tx.QueryRowContext(ctx, s.q(`SELECT `+dashboardUserColumns+` FROM dashboard_users WHERE id = $1`+s.d.ForUpdate), id))
		if err != nil {
			return notFound(err, "dashboard user")
		}
		wasOwner := u.Role == rampway.RoleOwner && u.DisabledAt == nil
		if up.Role != nil {
			u.Role = *up.Role
		}
		ending := up.EndSessions
		if up.Disabled != nil {
			switch {
			case *up.Disabled && u.DisabledAt == nil:
				at := up.At
				u.DisabledAt, ending = &at, true
			case !*up.Disabled:
				u.DisabledAt = nil
			}
		}
		if up.PasswordHash != nil {
			u.PasswordHash = *up.PasswordHash
		}
		if up.TOTPSecret != nil {
			u.TOTPSecret = *up.TOTPSecret
		}
		if err := u.Validate(); err != nil {
			return err
		}
		if wasOwner && (u.Role != rampway.RoleOwner || u.DisabledAt != nil) && len(owners) <= 1 {
			return rampway.Errorf(rampway.ECONFLICT, "%s is the merchant's last enabled owner: make another user owner first", u.Email)
		}
		query := `UPDATE dashboard_users SET role = $1, password_hash = $2, totp_secret = $3, disabled_at = $4 WHERE id = $5`
		if up.TOTPSecret != nil {
			query = `UPDATE dashboard_users SET role = $1, password_hash = $2, totp_secret = $3, disabled_at = $4, totp_step = 0 WHERE id = $5`
		}
		if _, err := tx.ExecContext(ctx, s.q(query), string(u.Role), u.PasswordHash, s.box.Seal(u.TOTPSecret), s.tp(u.DisabledAt), u.ID); err != nil {
			return fmt.Errorf("update dashboard user: %w", err)
		}
		if ending {
			if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM dashboard_sessions WHERE user_id = $1 AND id <> $2`), u.ID, up.KeepSession); err != nil {
				return fmt.Errorf("end dashboard user's sessions: %w", err)
			}
			if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM dashboard_login_challenges WHERE user_id = $1`), u.ID); err != nil {
				return fmt.Errorf("end dashboard user's sign-ins: %w", err)
			}
		}
		out = u
		return s.addAudit(ctx, tx, audit)
	})
	return out, err
}

// UseTOTPStep implements rampway.DashboardUserAdmin in one statement: of two sign-ins with
// one code at once, one moves the step.
func (s *Store) UseTOTPStep(ctx context.Context, userID string, step int64) (bool, error) {
	res, err := s.exec(ctx, s.q(`UPDATE dashboard_users SET totp_step = $1 WHERE id = $2 AND totp_step < $1`), step, userID)
	if err != nil {
		return false, fmt.Errorf("use TOTP step: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("use TOTP step: %w", err)
	}
	return n > 0, nil
}

const challengeColumns = `id, user_id, created_at, expires_at`

func scanChallenge(row interface{ Scan(...any) error }) (*rampway.DashboardLoginChallenge, error) {
	var (
		c                rampway.DashboardLoginChallenge
		created, expires dbTime
	)
	if err := row.Scan(&c.ID, &c.UserID, &created, &expires); err != nil {
		return nil, err
	}
	c.CreatedAt, c.ExpiresAt = created.T, expires.T
	return &c, nil
}

// CreateLoginChallenge implements rampway.DashboardUserAdmin.
func (s *Store) CreateLoginChallenge(ctx context.Context, c *rampway.DashboardLoginChallenge) error {
	_, err := s.exec(ctx, s.q(`INSERT INTO dashboard_login_challenges (`+challengeColumns+`) VALUES ($1, $2, $3, $4)`),
		c.ID, c.UserID, s.t(c.CreatedAt), s.t(c.ExpiresAt))
	if err != nil {
		if s.d.IsUniqueViolation(err) {
			return rampway.Errorf(rampway.ECONFLICT, "sign-in challenge already exists")
		}
		return fmt.Errorf("insert sign-in challenge: %w", err)
	}
	return nil
}

// LoginChallenge implements rampway.DashboardUserAdmin.
func (s *Store) LoginChallenge(ctx context.Context, id string) (*rampway.DashboardLoginChallenge, error) {
	c, err := scanChallenge(s.db.QueryRowContext(ctx, s.q(`SELECT `+challengeColumns+` FROM dashboard_login_challenges WHERE id = $1`), id))
	if err != nil {
		return nil, notFound(err, "sign-in challenge")
	}
	return c, nil
}

// DeleteLoginChallenge implements rampway.DashboardUserAdmin.
func (s *Store) DeleteLoginChallenge(ctx context.Context, id string) (bool, error) {
	res, err := s.exec(ctx, s.q(`DELETE FROM dashboard_login_challenges WHERE id = $1`), id)
	if err != nil {
		return false, fmt.Errorf("delete sign-in challenge: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("delete sign-in challenge: %w", err)
	}
	return n > 0, nil
}

// DeleteExpiredLoginChallenges implements rampway.DashboardUserAdmin.
func (s *Store) DeleteExpiredLoginChallenges(ctx context.Context, now time.Time, n int) (int, error) {
	res, err := s.exec(ctx, s.q(`DELETE FROM dashboard_login_challenges WHERE id IN
		(SELECT id FROM dashboard_login_challenges WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2)`), s.t(now), limit(n))
	if err != nil {
		return 0, fmt.Errorf("delete expired sign-in challenges: %w", err)
	}
	deleted, err := res.RowsAffected()
	return int(deleted), err
}
