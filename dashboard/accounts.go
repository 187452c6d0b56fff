// Package dashboard is the merchants' and operators' dashboard served at /dashboard: its
// accounts (users with roles, invitations, argon2id passwords, optional TOTP), server-side
// sessions, sign-in throttling, CSRF tokens and audit log (Accounts), and its pages (Handler).
package dashboard

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"log/slog"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/rampway/rampway"
)

// Store is what the dashboard keeps and reads: its own tables, and merchants.
type Store interface {
	rampway.DashboardStore
	// Merchant returns a merchant. ENOTFOUND.
	Merchant(ctx context.Context, id string) (*rampway.Merchant, error)
}

// Sign-in throttling defaults: after MaxFailures failed sign-ins of an account, or from an
// address, within FailureWindow, every further attempt is refused until the window ends.
const (
	DefaultMaxFailures   = 5
	DefaultFailureWindow = 15 * time.Minute
	// MinPasswordLength is the shortest password a user may have.
	MinPasswordLength = 12
	// maxPasswordLength bounds what is hashed (argon2 reads it all).
	maxPasswordLength = 1024
	// touchEvery is how stale a session's last use may be before a request records it again
	// (a write per request would be wasted: the idle expiry is hours).
	touchEvery = time.Minute
	// cleanupBatch is how many ended sessions and old failure windows a sign-in deletes.
	cleanupBatch = 100
)

// Config tunes Accounts; the zero value is the defaults.
type Config struct {
	// Now is the clock (time.Now).
	Now func() time.Time
	// Params are argon2id's costs for new hashes (DefaultParams).
	Params Params
	// MaxFailures and FailureWindow are the sign-in throttle (DefaultMaxFailures in
	// DefaultFailureWindow).
	MaxFailures   int
	FailureWindow time.Duration
}

// Accounts are the dashboard's use cases of users and sessions.
type Accounts struct {
	store Store
	cfg   Config
	log   *slog.Logger

	dummyOnce sync.Once
	dummy     string // a hash checked when no user has the email, so that both take as long
}

// NewAccounts returns the dashboard's accounts over store.
func NewAccounts(store Store, cfg Config, log *slog.Logger) *Accounts {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Params == (Params{}) {
		cfg.Params = DefaultParams
	}
	cfg.MaxFailures = cmp.Or(cfg.MaxFailures, DefaultMaxFailures)
	cfg.FailureWindow = cmp.Or(cfg.FailureWindow, DefaultFailureWindow)
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Accounts{store: store, cfg: cfg, log: log}
}

func (a *Accounts) now() time.Time { return a.cfg.Now().UTC().Truncate(time.Microsecond) }

// NewUser is a user to create.
type NewUser struct {
	// MerchantID is the user's merchant; "" for an operator.
	MerchantID string
	Email      string
	Role       rampway.DashboardRole
	Password   string
	// By is the dashboard user who creates it, "" for the command line (the audit log's who).
	By string
}

// CreateUser creates a dashboard user, and records it in the audit log. EINVALID for a bad
// email, role, or a password shorter than MinPasswordLength; ENOTFOUND for an unknown
// merchant; ECONFLICT for an email taken.
func (a *Accounts) CreateUser(ctx context.Context, p NewUser) (*rampway.DashboardUser, error) {
	email, err := rampway.NormalizeEmail(p.Email)
	if err != nil {
		return nil, err
	}
	if n := len([]rune(p.Password)); n < MinPasswordLength || len(p.Password) > maxPasswordLength {
		return nil, rampway.FieldErrorf("password", "a password has at least %d characters (and at most %d bytes)", MinPasswordLength, maxPasswordLength)
	}
	at := a.now()
	u := &rampway.DashboardUser{ID: rampway.NewID(rampway.PrefixDashboardUser, at), MerchantID: p.MerchantID, Email: email, Role: p.Role,
		PasswordHash: HashPassword(p.Password, a.cfg.Params), CreatedAt: at}
	if err := u.Validate(); err != nil {
		return nil, err
	}
	audit := &rampway.AuditEntry{ID: rampway.NewID(rampway.PrefixAuditEntry, at), MerchantID: u.MerchantID, UserID: p.By,
		Action: "user.create", Subject: u.ID, Detail: fmt.Sprintf("%s as %s", u.Email, u.Role), At: at}
	if err := a.store.CreateDashboardUser(ctx, u, audit); err != nil {
		return nil, fmt.Errorf("create dashboard user: %w", err)
	}
	return u, nil
}

// Users returns a merchant's users, or every user when merchantID is "".
func (a *Accounts) Users(ctx context.Context, merchantID string) ([]*rampway.DashboardUser, error) {
	return a.store.DashboardUsers(ctx, merchantID)
}

// Merchant returns a merchant (for the pages).
func (a *Accounts) Merchant(ctx context.Context, id string) (*rampway.Merchant, error) {
	return a.store.Merchant(ctx, id)
}

// SignIn is a session just made: its token goes to the browser's cookie, and nowhere else. Or,
// for a user with TOTP whose password was right, a Challenge (no session yet): the token of
// the sign-in's second step (LoginCode).
type SignIn struct {
	Token     string
	Session   *rampway.DashboardSession
	User      *rampway.DashboardUser
	Challenge string
}

// errWrongLogin is the one answer to a wrong password, an unknown email and a disabled user.
func errWrongLogin() error {
	return rampway.Errorf(rampway.EUNAUTHORIZED, "the email or the password is wrong")
}

func accountKey(email string) string { return "email:" + email }
func addressKey(ip string) string    { return "ip:" + ip }

// Login signs a user in from ip with user agent ua and returns the new session. A wrong
// password, an unknown email and a disabled user are all EUNAUTHORIZED, and take as long
// (an unknown email's password is checked against a dummy hash). After MaxFailures failures
// of the account or from ip within FailureWindow, every attempt is ERATELIMIT (its
// RetryAfter when the window ends) without the password being checked. A user with TOTP gets
// no session yet: the SignIn holds a Challenge, which LoginCode completes with a code.
func (a *Accounts) Login(ctx context.Context, email, password, ip, ua string) (*SignIn, error) {
	at := a.now()
	normal, err := rampway.NormalizeEmail(email)
	if err != nil {
		normal = "" // checked like an unknown email, counted against the address only
	}
	keys := []string{addressKey(ip)}
	if normal != "" {
		keys = append(keys, accountKey(normal))
	}
	if err := a.throttle(ctx, keys, at); err != nil {
		return nil, err
	}

	var u *rampway.DashboardUser
	if normal != "" {
		if u, err = a.store.DashboardUserByEmail(ctx, normal); err != nil && rampway.ErrorCode(err) != rampway.ENOTFOUND {
			return nil, fmt.Errorf("login: %w", err)
		}
	}
	ok := false
	if u != nil {
		if ok, err = CheckPassword(password, u.PasswordHash); err != nil {
			a.log.Error("dashboard user's password hash cannot be read", "user_id", u.ID, "err", err)
		}
		ok = ok && u.DisabledAt == nil && len(password) <= maxPasswordLength
	} else {
		_, _ = CheckPassword(password, a.dummyHash())
	}
	if !ok {
		if err := a.recordFailure(ctx, keys, at); err != nil {
			return nil, err
		}
		return nil, errWrongLogin()
	}
	if u.TOTPSecret != "" {
		token := randomToken()
		c := &rampway.DashboardLoginChallenge{ID: SessionID(token), UserID: u.ID, CreatedAt: at, ExpiresAt: at.Add(rampway.DashboardLoginChallengeTTL)}
		if err := a.store.CreateLoginChallenge(ctx, c); err != nil {
			return nil, fmt.Errorf("login: %w", err)
		}
		return &SignIn{Challenge: token, User: u}, nil
	}
	return a.startSession(ctx, u, ip, ua, at, "from "+ip)
}

// throttle returns ERATELIMIT, with the wait, when one of keys has MaxFailures failures in its
// current window at at.
func (a *Accounts) throttle(ctx context.Context, keys []string, at time.Time) error {
	var wait time.Duration
	for _, k := range keys {
		f, err := a.store.LoginFailures(ctx, k)
		if err != nil {
			return fmt.Errorf("login: %w", err)
		}
		if end := f.WindowStart.Add(a.cfg.FailureWindow); f.Count >= a.cfg.MaxFailures && at.Before(end) {
			wait = max(wait, end.Sub(at))
		}
	}
	if wait > 0 {
		return &rampway.Error{Code: rampway.ERATELIMIT, Message: "too many failed sign-ins: try again later", RetryAfter: wait}
	}
	return nil
}

// recordFailure counts a failed attempt against each of keys.
func (a *Accounts) recordFailure(ctx context.Context, keys []string, at time.Time) error {
	for _, k := range keys {
		if _, err := a.store.RecordLoginFailure(ctx, k, at, a.cfg.FailureWindow); err != nil {
			return fmt.Errorf("login: %w", err)
		}
	}
	return nil
}

// startSession signs u in (its account's failures forgotten) with a new session from ip, and
// records it in the audit log with detail.
func (a *Accounts) startSession(ctx context.Context, u *rampway.DashboardUser, ip, ua string, at time.Time, detail string) (*SignIn, error) {
	if err := a.store.ClearLoginFailures(ctx, accountKey(u.Email)); err != nil {
		return nil, fmt.Errorf("login: %w", err)
	}
	token := randomToken()
	s := a.newSession(token, u, ip, ua, at)
	audit := &rampway.AuditEntry{ID: rampway.NewID(rampway.PrefixAuditEntry, at), MerchantID: u.MerchantID, UserID: u.ID,
		Action: "login", Subject: u.ID, Detail: detail, At: at}
	if err := a.store.CreateDashboardSession(ctx, s, audit); err != nil {
		return nil, fmt.Errorf("login: %w", err)
	}
	a.cleanup(ctx, at)
	return &SignIn{Token: token, Session: s, User: u}, nil
}

// newSession is a session of u for the cookie token, made at at.
func (a *Accounts) newSession(token string, u *rampway.DashboardUser, ip, ua string, at time.Time) *rampway.DashboardSession {
	return &rampway.DashboardSession{ID: SessionID(token), UserID: u.ID, CSRFToken: randomToken(), CreatedAt: at, LastSeenAt: at,
		ExpiresAt: rampway.SessionExpiry(at, at), IP: ip, UserAgent: truncate(ua, 512)}
}

// cleanup deletes some ended sessions, sign-in challenges and old failure windows (a sign-in's chore: the tables
// stay as small as their live rows).
func (a *Accounts) cleanup(ctx context.Context, at time.Time) {
	if _, err := a.store.DeleteExpiredDashboardSessions(ctx, at, cleanupBatch); err != nil {
		a.log.Warn("delete ended dashboard sessions", "err", err)
	}
	if _, err := a.store.DeleteLoginFailuresBefore(ctx, at.Add(-a.cfg.FailureWindow), cleanupBatch); err != nil {
		a.log.Warn("delete old sign-in failures", "err", err)
	}
	if _, err := a.store.DeleteExpiredLoginChallenges(ctx, at, cleanupBatch); err != nil {
		a.log.Warn("delete ended sign-in challenges", "err", err)
	}
}

// Authenticate returns the session of a cookie's token and its user, and records its use.
// EUNAUTHORIZED for an unknown or ended session, or a disabled user (whose session ends).
func (a *Accounts) Authenticate(ctx context.Context, token string) (*rampway.DashboardSession, *rampway.DashboardUser, error) {
	unauthorized := rampway.Errorf(rampway.EUNAUTHORIZED, "not signed in")
	if token == "" {
		return nil, nil, unauthorized
	}
	at := a.now()
	s, err := a.store.DashboardSession(ctx, SessionID(token))
	if rampway.ErrorCode(err) == rampway.ENOTFOUND {
		return nil, nil, unauthorized
	} else if err != nil {
		return nil, nil, fmt.Errorf("read dashboard session: %w", err)
	}
	if s.Expired(at) {
		if _, err := a.store.DeleteDashboardSession(ctx, s.ID, nil); err != nil {
			return nil, nil, fmt.Errorf("delete ended dashboard session: %w", err)
		}
		return nil, nil, unauthorized
	}
	u, err := a.store.DashboardUser(ctx, s.UserID)
	if err != nil {
		return nil, nil, fmt.Errorf("read dashboard session's user: %w", err)
	}
	if u.DisabledAt != nil {
		if _, err := a.store.DeleteDashboardSession(ctx, s.ID, nil); err != nil {
			return nil, nil, fmt.Errorf("delete disabled user's session: %w", err)
		}
		return nil, nil, unauthorized
	}
	if at.Sub(s.LastSeenAt) >= touchEvery {
		s.LastSeenAt, s.ExpiresAt = at, rampway.SessionExpiry(s.CreatedAt, at)
		if err := a.store.TouchDashboardSession(ctx, s.ID, s.LastSeenAt, s.ExpiresAt); err != nil && rampway.ErrorCode(err) != rampway.ENOTFOUND {
			return nil, nil, fmt.Errorf("touch dashboard session: %w", err)
		}
	}
	return s, u, nil
}

// Logout ends user u's session s and records it in the audit log; a session already gone is
// no error.
func (a *Accounts) Logout(ctx context.Context, s *rampway.DashboardSession, u *rampway.DashboardUser) error {
	at := a.now()
	audit := &rampway.AuditEntry{ID: rampway.NewID(rampway.PrefixAuditEntry, at), MerchantID: u.MerchantID, UserID: u.ID,
		Action: "logout", Subject: u.ID, At: at}
	if _, err := a.store.DeleteDashboardSession(ctx, s.ID, audit); err != nil {
		return fmt.Errorf("logout: %w", err)
	}
	return nil
}

// dummyHash is a hash of a random password, with the costs new hashes have.
func (a *Accounts) dummyHash() string {
	a.dummyOnce.Do(func() { a.dummy = HashPassword(randomToken(), a.cfg.Params) })
	return a.dummy
}

// SessionID is the id a session of token is stored under: its SHA-256, in hex.
func SessionID(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// SameToken reports whether a form's token is the expected one, in constant time; an empty
// expected token matches nothing.
func SameToken(want, got string) bool {
	return want != "" && subtle.ConstantTimeCompare([]byte(want), []byte(got)) == 1
}

// randomToken is 32 random bytes, URL-safe base64.
func randomToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:]) // never fails: crypto/rand crashes the program rather than return an error
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// passwordEncoding is lower-case base32 without look-alikes (no i, l, o, u).
var passwordEncoding = base32.NewEncoding("0123456789abcdefghjkmnpqrstvwxyz").WithPadding(base32.NoPadding)

// GeneratePassword returns a random password of 24 characters (120 bits).
func GeneratePassword() string {
	var b [15]byte
	_, _ = rand.Read(b[:])
	return passwordEncoding.EncodeToString(b[:])
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
