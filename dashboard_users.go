package rampway

import (
	"context"
	"time"
)

// DashboardInvitationTTL is how long an invitation to the dashboard may be accepted.
const DashboardInvitationTTL = 7 * 24 * time.Hour

// DashboardLoginChallengeTTL is how long a sign-in that passed its password may wait for its
// second factor (the TOTP code).
const DashboardLoginChallengeTTL = 5 * time.Minute

// DashboardInvitation asks someone to become a user of a merchant's dashboard. Its token is
// only in the link the inviter copies; the store keeps its SHA-256 (ID). It is used once.
type DashboardInvitation struct {
	// ID is the hex SHA-256 of the invitation's token.
	ID         string
	MerchantID string
	// Email is the invitee's sign-in name, normalised.
	Email string
	Role  DashboardRole
	// InvitedBy is the dashboard user who made the invitation.
	InvitedBy string
	CreatedAt time.Time
	// ExpiresAt is when the invitation may be accepted no more (CreatedAt +
	// DashboardInvitationTTL).
	ExpiresAt time.Time
	// UsedAt is when it was accepted, and UserID the user it made; nil and "" until then.
	UsedAt *time.Time
	UserID string
}

// Usable reports whether the invitation may still be accepted at now: not used, not expired.
func (i *DashboardInvitation) Usable(now time.Time) bool {
	return i.UsedAt == nil && now.Before(i.ExpiresAt)
}

// DashboardLoginChallenge is a sign-in whose password was right, waiting for the user's TOTP
// code. Its token is in the second step's form; the store keeps its SHA-256 (ID).
type DashboardLoginChallenge struct {
	// ID is the hex SHA-256 of the challenge's token.
	ID        string
	UserID    string
	CreatedAt time.Time
	ExpiresAt time.Time
}

// DashboardUserUpdate is a change to a dashboard user (UpdateDashboardUser): each field set is
// written, the others are kept.
type DashboardUserUpdate struct {
	Role *DashboardRole
	// Disabled true disables the user at At (ending its sessions); false enables it.
	Disabled     *bool
	PasswordHash *string
	// TOTPSecret is the user's second factor, "" to turn it off (which forgets its last step).
	TOTPSecret *string
	// EndSessions ends the user's sessions but KeepSession (a session id, "" for none).
	EndSessions bool
	KeepSession string
	At          time.Time
}

// DashboardUserAdmin keeps what managing the dashboard's users needs: invitations, changes to
// users, and the second step of a sign-in with TOTP.
type DashboardUserAdmin interface {
	// CreateDashboardInvitation stores an invitation and, in the same transaction, audit.
	// ENOTFOUND when its merchant is unknown, ECONFLICT when its id exists.
	CreateDashboardInvitation(ctx context.Context, inv *DashboardInvitation, audit *AuditEntry) error
	// DashboardInvitation returns an invitation by id (used, expired or not). ENOTFOUND.
	DashboardInvitation(ctx context.Context, id string) (*DashboardInvitation, error)
	// DashboardInvitations returns a merchant's invitations still usable at now, newest first.
	DashboardInvitations(ctx context.Context, merchantID string, now time.Time) ([]*DashboardInvitation, error)
	// AcceptDashboardInvitation marks the invitation id used at u.CreatedAt by the new user u,
	// and stores u and its first session s (when not nil) and audit, in one transaction.
	// ENOTFOUND for an unknown invitation, ECONFLICT for one used or expired at u.CreatedAt, or
	// for an email taken.
	AcceptDashboardInvitation(ctx context.Context, id string, u *DashboardUser, s *DashboardSession, audit *AuditEntry) error
	// UpdateDashboardUser changes the user id as up says and records audit, in one
	// transaction, and returns the user as it is now. ENOTFOUND for an unknown user; ECONFLICT
	// when the change would leave the user's merchant without an enabled owner (it had one).
	UpdateDashboardUser(ctx context.Context, id string, up DashboardUserUpdate, audit *AuditEntry) (*DashboardUser, error)
	// UseTOTPStep records that the user's TOTP code of time step step was used, and reports
	// false when that step or a later one was used already (a code is good once).
	UseTOTPStep(ctx context.Context, userID string, step int64) (bool, error)

	// CreateLoginChallenge stores a sign-in waiting for its second factor. ECONFLICT when its
	// id exists.
	CreateLoginChallenge(ctx context.Context, c *DashboardLoginChallenge) error
	// LoginChallenge returns a challenge by id (expired or not). ENOTFOUND.
	LoginChallenge(ctx context.Context, id string) (*DashboardLoginChallenge, error)
	// DeleteLoginChallenge removes a challenge and reports whether there was one.
	DeleteLoginChallenge(ctx context.Context, id string) (bool, error)
	// DeleteExpiredLoginChallenges removes up to limit challenges whose ExpiresAt is at or
	// before now and returns how many it removed.
	DeleteExpiredLoginChallenges(ctx context.Context, now time.Time, limit int) (int, error)
}
