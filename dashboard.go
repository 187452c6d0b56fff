package rampway

import (
	"context"
	"net/mail"
	"strings"
	"time"
)

// PrefixDashboardUser and PrefixAuditEntry are the id prefixes of dashboard users and audit
// entries.
const (
	PrefixDashboardUser = "usr"
	PrefixAuditEntry    = "aud"
)

// DashboardRole is what a dashboard user may do: four roles within one merchant, and the
// operator's across merchants.
type DashboardRole string

// Dashboard roles. An operator belongs to no merchant (DashboardUser.MerchantID is ""); every
// other role belongs to exactly one.
const (
	RoleOwner     DashboardRole = "owner"     // everything of its merchant, its users included
	RoleDeveloper DashboardRole = "developer" // reads; API keys, webhooks, the catalogue
	RoleSupport   DashboardRole = "support"   // reads and refunds
	RoleViewer    DashboardRole = "viewer"    // reads only
	RoleOperator  DashboardRole = "operator"  // everything, of every merchant
)

// DashboardRoles are the roles, from the merchants' most able to the operator.
var DashboardRoles = []DashboardRole{RoleOwner, RoleDeveloper, RoleSupport, RoleViewer, RoleOperator}

// Valid reports whether r is a known role.
func (r DashboardRole) Valid() bool {
	switch r {
	case RoleOwner, RoleDeveloper, RoleSupport, RoleViewer, RoleOperator:
		return true
	}
	return false
}

// DashboardAction is something a dashboard user asks to do, checked with Can.
type DashboardAction string

// Dashboard actions.
const (
	DashView         DashboardAction = "view"          // read orders, refunds, webhooks, the overview
	DashRefund       DashboardAction = "refund"        // refund (part of) an order
	DashDevelopers   DashboardAction = "developers"    // API keys and webhook settings
	DashConfigure    DashboardAction = "configure"     // the catalogue: contract functions, deposit addresses
	DashManageUsers  DashboardAction = "manage_users"  // invite, change and disable users; read the audit log
	DashAllMerchants DashboardAction = "all_merchants" // see and act for every merchant
)

// DashboardActions are every action, in the order the permissions table lists them.
var DashboardActions = []DashboardAction{DashView, DashRefund, DashDevelopers, DashConfigure, DashManageUsers, DashAllMerchants}

// permissions is who may do what; a role or an action not in it may do nothing.
var permissions = map[DashboardRole]map[DashboardAction]bool{
	RoleOwner:     {DashView: true, DashRefund: true, DashDevelopers: true, DashConfigure: true, DashManageUsers: true},
	RoleDeveloper: {DashView: true, DashDevelopers: true, DashConfigure: true},
	RoleSupport:   {DashView: true, DashRefund: true},
	RoleViewer:    {DashView: true},
	RoleOperator:  {DashView: true, DashRefund: true, DashDevelopers: true, DashConfigure: true, DashManageUsers: true, DashAllMerchants: true},
}

// Can reports whether a user of role may do action (within its merchant, or across all of
// them for DashAllMerchants). Unknown roles and actions may do nothing.
func Can(role DashboardRole, action DashboardAction) bool { return permissions[role][action] }

// DashboardUser is a person who signs in to the dashboard.
type DashboardUser struct {
	ID string
	// MerchantID is the merchant the user works for; "" for an operator.
	MerchantID string
	// Email is the user's sign-in name, normalised (NormalizeEmail): unique across users.
	Email string
	Role  DashboardRole
	// PasswordHash is the argon2id hash of the password in its encoded form
	// ($argon2id$v=19$m=...,t=...,p=...$salt$hash).
	PasswordHash string
	// TOTPSecret is the user's second factor (RFC 6238), base32, "" for none. The store keeps
	// it sealed at rest when it has an encryption key.
	TOTPSecret string
	CreatedAt  time.Time
	// DisabledAt, when set, is when the user lost access: it signs in no more.
	DisabledAt *time.Time
}

// Validate checks a user's fields that do not need the store: a known role, a merchant for
// every role but the operator's and none for it, a normalised email, a password hash.
func (u *DashboardUser) Validate() error {
	if !u.Role.Valid() {
		return FieldErrorf("role", "role must be one of owner, developer, support, viewer, operator")
	}
	if u.Role == RoleOperator && u.MerchantID != "" {
		return FieldErrorf("merchant_id", "an operator belongs to no merchant")
	}
	if u.Role != RoleOperator && u.MerchantID == "" {
		return FieldErrorf("merchant_id", "a %s belongs to a merchant", u.Role)
	}
	if e, err := NormalizeEmail(u.Email); err != nil {
		return err
	} else if e != u.Email {
		return FieldErrorf("email", "email is not normalised")
	}
	if u.PasswordHash == "" {
		return FieldErrorf("password", "a user has a password")
	}
	return nil
}

// maxEmailLength is the longest address SMTP carries (RFC 5321's path limit less its brackets).
const maxEmailLength = 254

// NormalizeEmail returns email trimmed and in lower case, or an EINVALID error when it is not
// one plain address (user@domain, without a name or angle brackets).
func NormalizeEmail(email string) (string, error) {
	e := strings.ToLower(strings.TrimSpace(email))
	if e == "" || len(e) > maxEmailLength {
		return "", FieldErrorf("email", "email must be an address of at most %d characters", maxEmailLength)
	}
	a, err := mail.ParseAddress(e)
	at := strings.LastIndexByte(e, '@')
	if err != nil || a.Address != e || a.Name != "" || at < 1 || !strings.Contains(e[at+1:], ".") {
		return "", FieldErrorf("email", "email must be an address such as ada@example.com")
	}
	return e, nil
}

// Dashboard session lifetimes: a session ends after DashboardSessionIdle without a request,
// and DashboardSessionMax after it began whatever happens.
const (
	DashboardSessionIdle = 12 * time.Hour
	DashboardSessionMax  = 7 * 24 * time.Hour
)

// DashboardSession is a signed-in browser. The session's token is only in the browser's
// cookie; the store keeps its SHA-256 (ID), so a copy of the database signs no one in.
type DashboardSession struct {
	// ID is the hex SHA-256 of the session's token.
	ID     string
	UserID string
	// CSRFToken is the token every form of the session sends back.
	CSRFToken  string
	CreatedAt  time.Time
	LastSeenAt time.Time
	// ExpiresAt is when the session ends unless it is used before: the earlier of
	// LastSeenAt+DashboardSessionIdle and CreatedAt+DashboardSessionMax (SessionExpiry).
	ExpiresAt time.Time
	IP        string
	UserAgent string
}

// SessionExpiry is when a session made at created and last used at lastSeen ends.
func SessionExpiry(created, lastSeen time.Time) time.Time {
	idle, end := lastSeen.Add(DashboardSessionIdle), created.Add(DashboardSessionMax)
	if idle.Before(end) {
		return idle
	}
	return end
}

// Expired reports whether the session has ended at now.
func (s *DashboardSession) Expired(now time.Time) bool { return !now.Before(s.ExpiresAt) }

// AuditEntry records one change made through the dashboard (or to its users): who, what, when.
type AuditEntry struct {
	ID string
	// MerchantID is the merchant the change concerns; "" for the operator's own.
	MerchantID string
	// UserID is the dashboard user who made it; "" for the command line.
	UserID string
	// Action names the change: "login", "logout", "user.create"...
	Action string
	// Subject is the id of what changed (a user, an order, a key), "" for none.
	Subject string
	// Detail says more, for people.
	Detail string
	At     time.Time
}

// LoginFailures are the failed sign-ins of one key (an account or an address) in the current
// window: Count of them since WindowStart.
type LoginFailures struct {
	Count       int
	WindowStart time.Time
}

// DashboardStore keeps the dashboard's users, sessions, sign-in failures and audit log.
type DashboardStore interface {
	// DashboardUserAdmin: invitations, changes to users, sign-ins' second step.
	DashboardUserAdmin

	// CreateDashboardUser stores a new user and, in the same transaction, audit (when not
	// nil). ECONFLICT when the email (or id) is taken, ENOTFOUND when its merchant is unknown.
	CreateDashboardUser(ctx context.Context, u *DashboardUser, audit *AuditEntry) error
	// DashboardUser returns a user by id. ENOTFOUND.
	DashboardUser(ctx context.Context, id string) (*DashboardUser, error)
	// DashboardUserByEmail returns a user by normalised email. ENOTFOUND.
	DashboardUserByEmail(ctx context.Context, email string) (*DashboardUser, error)
	// DashboardUsers returns a merchant's users, or every user when merchantID is "", by
	// merchant then email. ENOTFOUND for an unknown merchant.
	DashboardUsers(ctx context.Context, merchantID string) ([]*DashboardUser, error)

	// CreateDashboardSession stores a new session and, in the same transaction, audit (when
	// not nil). ECONFLICT when its id exists.
	CreateDashboardSession(ctx context.Context, s *DashboardSession, audit *AuditEntry) error
	// DashboardSession returns a session by id (expired or not). ENOTFOUND.
	DashboardSession(ctx context.Context, id string) (*DashboardSession, error)
	// TouchDashboardSession records a session's use: its LastSeenAt and ExpiresAt. A missing
	// session is ENOTFOUND.
	TouchDashboardSession(ctx context.Context, id string, lastSeen, expires time.Time) error
	// DeleteDashboardSession removes a session and, in the same transaction, records audit
	// (when not nil and the session existed). It reports whether there was one.
	DeleteDashboardSession(ctx context.Context, id string, audit *AuditEntry) (bool, error)
	// DeleteExpiredDashboardSessions removes up to limit sessions whose ExpiresAt is at or
	// before now and returns how many it removed.
	DeleteExpiredDashboardSessions(ctx context.Context, now time.Time, limit int) (int, error)

	// LoginFailures returns a key's failed sign-ins in its current window (zero when none was
	// recorded).
	LoginFailures(ctx context.Context, key string) (LoginFailures, error)
	// RecordLoginFailure counts a failed sign-in of key at: in its window when that began
	// less than window before at, else in a new window beginning at at. It returns the count.
	RecordLoginFailure(ctx context.Context, key string, at time.Time, window time.Duration) (LoginFailures, error)
	// ClearLoginFailures forgets a key's failures (after a sign-in that succeeded).
	ClearLoginFailures(ctx context.Context, key string) error
	// DeleteLoginFailuresBefore removes up to limit keys whose window began before before and
	// returns how many it removed.
	DeleteLoginFailuresBefore(ctx context.Context, before time.Time, limit int) (int, error)

	// AddAuditEntry records an entry of the audit log.
	AddAuditEntry(ctx context.Context, e *AuditEntry) error
	// AuditEntries returns a merchant's audit log ("" the operator's), newest first: up to
	// page.Limit entries, those older than the entry page.After when it is set.
	AuditEntries(ctx context.Context, merchantID string, page Page) ([]*AuditEntry, error)
}
