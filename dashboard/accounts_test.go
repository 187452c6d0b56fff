package dashboard_test

import (
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/dashboard"
	"github.com/rampway/rampway/internal/sqlstore"
	"github.com/rampway/rampway/sqlite"
)

// clock is the tests' injected clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// cheap are argon2id costs that make the tests fast; DefaultParams are tested in password_test.go.
var cheap = dashboard.Params{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}

const password = "correct horse battery staple"

type world struct {
	store    *sqlstore.Store
	clock    *clock
	acc      *dashboard.Accounts
	merchant *rampway.Merchant
}

func newWorld(t *testing.T, merchantName string) *world {
	t.Helper()
	s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "dash.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	c := &clock{t: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
	at := c.Now()
	m := &rampway.Merchant{ID: rampway.NewID(rampway.PrefixMerchant, at), Name: merchantName, Status: rampway.MerchantActive, CreatedAt: at, UpdatedAt: at}
	if err := s.CreateMerchant(t.Context(), m); err != nil {
		t.Fatal(err)
	}
	return &world{store: s, clock: c, merchant: m, acc: dashboard.NewAccounts(s, dashboard.Config{Now: c.Now, Params: cheap}, nil)}
}

func (w *world) user(t *testing.T, email string, role rampway.DashboardRole) *rampway.DashboardUser {
	t.Helper()
	mid := w.merchant.ID
	if role == rampway.RoleOperator {
		mid = ""
	}
	u, err := w.acc.CreateUser(t.Context(), dashboard.NewUser{MerchantID: mid, Email: email, Role: role, Password: password})
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	if got := rampway.ErrorCode(err); got != code {
		t.Fatalf("error %v (%q), want %q", err, got, code)
	}
}

func TestCreateUser(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "Acme")
	u := w.user(t, " Owner@Acme.example ", rampway.RoleOwner)
	if u.Email != "owner@acme.example" || u.MerchantID != w.merchant.ID || u.Role != rampway.RoleOwner {
		t.Fatalf("user = %+v", u)
	}
	if ok, err := dashboard.CheckPassword(password, u.PasswordHash); !ok || err != nil {
		t.Fatalf("the stored hash does not check the password: %v", err)
	}
	op := w.user(t, "ops@rampway.example", rampway.RoleOperator)
	if op.MerchantID != "" {
		t.Fatalf("operator's merchant = %q", op.MerchantID)
	}
	for _, tt := range []struct {
		name string
		p    dashboard.NewUser
		code string
	}{
		{"email taken (in another case)", dashboard.NewUser{MerchantID: w.merchant.ID, Email: "OWNER@acme.example", Role: rampway.RoleViewer, Password: password}, rampway.ECONFLICT},
		{"bad email", dashboard.NewUser{MerchantID: w.merchant.ID, Email: "owner", Role: rampway.RoleViewer, Password: password}, rampway.EINVALID},
		{"short password", dashboard.NewUser{MerchantID: w.merchant.ID, Email: "v@acme.example", Role: rampway.RoleViewer, Password: "elevenchars"}, rampway.EINVALID},
		{"unknown role", dashboard.NewUser{MerchantID: w.merchant.ID, Email: "v@acme.example", Role: "admin", Password: password}, rampway.EINVALID},
		{"unknown merchant", dashboard.NewUser{MerchantID: "mch_nope", Email: "v@acme.example", Role: rampway.RoleViewer, Password: password}, rampway.ENOTFOUND},
		{"merchant role without merchant", dashboard.NewUser{Email: "v@acme.example", Role: rampway.RoleViewer, Password: password}, rampway.EINVALID},
		{"operator with a merchant", dashboard.NewUser{MerchantID: w.merchant.ID, Email: "v@acme.example", Role: rampway.RoleOperator, Password: password}, rampway.EINVALID},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := w.acc.CreateUser(t.Context(), tt.p)
			wantCode(t, err, tt.code)
		})
	}
	// Each creation is in its merchant's audit log (the operator's in the operator's).
	for mid, want := range map[string]string{w.merchant.ID: u.ID, "": op.ID} {
		entries, err := w.store.AuditEntries(t.Context(), mid, rampway.Page{Limit: 10})
		if err != nil || len(entries) != 1 || entries[0].Action != "user.create" || entries[0].Subject != want {
			t.Fatalf("audit log of %q = %+v, %v", mid, entries, err)
		}
	}
}

// A wrong password, an unknown email and a disabled user get the one answer.
func TestLoginAnswersAlike(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "Acme")
	u := w.user(t, "owner@acme.example", rampway.RoleOwner)
	at := w.clock.Now()
	disabled := &rampway.DashboardUser{ID: rampway.NewID(rampway.PrefixDashboardUser, at), MerchantID: w.merchant.ID, Email: "gone@acme.example",
		Role: rampway.RoleViewer, PasswordHash: dashboard.HashPassword(password, cheap), CreatedAt: at, DisabledAt: &at}
	if err := w.store.CreateDashboardUser(t.Context(), disabled, nil); err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, try := range [][2]string{{u.Email, "wrong password!"}, {"nobody@acme.example", password}, {disabled.Email, password}, {"not an email", password}} {
		_, err := w.acc.Login(t.Context(), try[0], try[1], "192.0.2.1", "test")
		wantCode(t, err, rampway.EUNAUTHORIZED)
		msgs = append(msgs, rampway.ErrorMessage(err))
	}
	for _, m := range msgs[1:] {
		if m != msgs[0] {
			t.Fatalf("answers differ: %q", msgs)
		}
	}
	in, err := w.acc.Login(t.Context(), "OWNER@acme.example", password, "192.0.2.1", "test")
	if err != nil {
		t.Fatal(err)
	}
	if in.User.ID != u.ID || in.Session.ID != dashboard.SessionID(in.Token) || in.Session.ID == in.Token || len(in.Session.CSRFToken) < 32 {
		t.Fatalf("sign-in = %+v", in)
	}
}

func TestLoginThrottledPerAccount(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "Acme")
	u := w.user(t, "owner@acme.example", rampway.RoleOwner)
	// Five failures in the window, from five addresses: the sixth attempt is refused, the
	// right password too, until the window (begun at the first failure) ends.
	for i := range 5 {
		_, err := w.acc.Login(t.Context(), u.Email, "wrong password!", "192.0.2."+string(rune('1'+i)), "test")
		wantCode(t, err, rampway.EUNAUTHORIZED)
		w.clock.Advance(time.Minute)
	}
	for _, pw := range []string{"wrong password!", password} {
		_, err := w.acc.Login(t.Context(), u.Email, pw, "198.51.100.7", "test")
		wantCode(t, err, rampway.ERATELIMIT)
		var e *rampway.Error
		if !errors.As(err, &e) || e.RetryAfter != 10*time.Minute {
			t.Fatalf("refusal %v: retry after %v, want 10m (the window's end)", err, e.RetryAfter)
		}
	}
	w.clock.Advance(10*time.Minute - time.Microsecond)
	_, err := w.acc.Login(t.Context(), u.Email, password, "198.51.100.7", "test")
	wantCode(t, err, rampway.ERATELIMIT)
	w.clock.Advance(time.Microsecond)
	if _, err := w.acc.Login(t.Context(), u.Email, password, "198.51.100.7", "test"); err != nil {
		t.Fatalf("after the window: %v", err)
	}
	// A sign-in that succeeds forgets the account's failures: four more are allowed again.
	for range 4 {
		_, err := w.acc.Login(t.Context(), u.Email, "wrong password!", "203.0.113.9", "test")
		wantCode(t, err, rampway.EUNAUTHORIZED)
	}
	if _, err := w.acc.Login(t.Context(), u.Email, password, "203.0.113.10", "test"); err != nil {
		t.Fatalf("after 4 failures: %v", err)
	}
}

func TestLoginThrottledPerAddress(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "Acme")
	u := w.user(t, "owner@acme.example", rampway.RoleOwner)
	// One address trying five emails (none of them known) is refused its sixth attempt, even
	// of a real account with its password; another address signs that account in.
	for i := range 5 {
		_, err := w.acc.Login(t.Context(), "guess"+string(rune('a'+i))+"@acme.example", password, "192.0.2.66", "test")
		wantCode(t, err, rampway.EUNAUTHORIZED)
	}
	_, err := w.acc.Login(t.Context(), u.Email, password, "192.0.2.66", "test")
	wantCode(t, err, rampway.ERATELIMIT)
	if _, err := w.acc.Login(t.Context(), u.Email, password, "192.0.2.67", "test"); err != nil {
		t.Fatalf("from another address: %v", err)
	}
	w.clock.Advance(dashboard.DefaultFailureWindow)
	if _, err := w.acc.Login(t.Context(), u.Email, password, "192.0.2.66", "test"); err != nil {
		t.Fatalf("after the window: %v", err)
	}
}

func TestSessionExpiry(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "Acme")
	u := w.user(t, "owner@acme.example", rampway.RoleOwner)
	login := func() string {
		in, err := w.acc.Login(t.Context(), u.Email, password, "192.0.2.1", "test")
		if err != nil {
			t.Fatal(err)
		}
		return in.Token
	}
	// Idle: 12 hours without a request end a session.
	tok := login()
	w.clock.Advance(12*time.Hour - time.Second)
	if _, got, err := w.acc.Authenticate(t.Context(), tok); err != nil || got.ID != u.ID {
		t.Fatalf("within the idle time: %v", err)
	}
	w.clock.Advance(12*time.Hour - time.Second) // the request above counted as a use
	if _, _, err := w.acc.Authenticate(t.Context(), tok); err != nil {
		t.Fatalf("used again within the idle time: %v", err)
	}
	w.clock.Advance(12 * time.Hour)
	_, _, err := w.acc.Authenticate(t.Context(), tok)
	wantCode(t, err, rampway.EUNAUTHORIZED)
	if _, err := w.store.DashboardSession(t.Context(), dashboard.SessionID(tok)); rampway.ErrorCode(err) != rampway.ENOTFOUND {
		t.Fatalf("an ended session is kept: %v", err)
	}
	// Absolute: a session used every 11 hours still ends 7 days after it began.
	tok = login()
	begun := w.clock.Now()
	for w.clock.Now().Sub(begun) < rampway.DashboardSessionMax-11*time.Hour {
		w.clock.Advance(11 * time.Hour)
		if _, _, err := w.acc.Authenticate(t.Context(), tok); err != nil {
			t.Fatalf("%v after sign-in: %v", w.clock.Now().Sub(begun), err)
		}
	}
	w.clock.Advance(begun.Add(rampway.DashboardSessionMax).Sub(w.clock.Now()))
	_, _, err = w.acc.Authenticate(t.Context(), tok)
	wantCode(t, err, rampway.EUNAUTHORIZED)
	// Unknown tokens, and a session's id used as its token, sign no one in.
	tok = login()
	for _, bad := range []string{"", "nope", dashboard.SessionID(tok)} {
		_, _, err := w.acc.Authenticate(t.Context(), bad)
		wantCode(t, err, rampway.EUNAUTHORIZED)
	}
}
