package dashboard_test

import (
	"encoding/base32"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/dashboard"
)

// RFC 6238's test vectors of SHA-1 (Appendix B): the key is the ASCII of "12345678901234567890"
// and the codes have 8 digits; a 6-digit code is their last six (the same truncation, modulo
// 10^6).
func TestTOTPVectors(t *testing.T) {
	t.Parallel()
	secret := base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString([]byte("12345678901234567890"))
	for _, v := range []struct {
		unix  int64
		eight string
	}{
		{59, "94287082"}, {1111111109, "07081804"}, {1111111111, "14050471"},
		{1234567890, "89005924"}, {2000000000, "69279037"}, {20000000000, "65353130"},
	} {
		got, err := dashboard.TOTPCode(secret, time.Unix(v.unix, 0))
		if err != nil {
			t.Fatal(err)
		}
		if want := v.eight[2:]; got != want {
			t.Errorf("TOTP at %d = %s, want %s", v.unix, got, want)
		}
	}
	// Lower case, spaces and padding are read as authenticator apps write them.
	if got, _ := dashboard.TOTPCode(strings.ToLower(secret[:8])+" "+secret[8:]+"====", time.Unix(59, 0)); got != "287082" {
		t.Errorf("a secret in lower case with spaces: %s", got)
	}
	if _, err := dashboard.TOTPCode("not base32!", time.Now()); err == nil {
		t.Error("a secret that is not base32 made a code")
	}
	// A new secret is 160 bits of base32; the URI names the account and the parameters.
	s := dashboard.NewTOTPSecret()
	if len(s) != 32 || s == dashboard.NewTOTPSecret() {
		t.Fatalf("new secret %q", s)
	}
	u, err := url.Parse(dashboard.TOTPURI(s, "ada@shop.example"))
	if err != nil || u.Scheme != "otpauth" || u.Host != "totp" || u.Path != "/rampway:ada@shop.example" {
		t.Fatalf("URI %v (%v)", u, err)
	}
	if q := u.Query(); q.Get("secret") != s || q.Get("issuer") != "rampway" || q.Get("digits") != "6" || q.Get("period") != "30" || q.Get("algorithm") != "SHA1" {
		t.Fatalf("URI parameters %v", q)
	}
}

// TOTP through Accounts on an injected clock: turned on with a code, then a sign-in asks for
// one; codes of the step before and after pass, older or newer ones do not, a code is good
// once, wrong codes count in the sign-in throttle, a challenge ends after 5 minutes, and
// turning it off needs a code.
func TestAccountsTOTP(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "Acme")
	ctx := t.Context()
	u := w.user(t, "owner@acme.example", rampway.RoleOwner)
	secret := dashboard.NewTOTPSecret()
	code := func(d time.Duration) string {
		c, err := dashboard.TOTPCode(secret, w.clock.Now().Add(d))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	wantCode(t, w.acc.EnableTOTP(ctx, u, secret, "000000"+"0"), rampway.EINVALID)
	wantCode(t, w.acc.EnableTOTP(ctx, u, "short", code(0)), rampway.EINVALID)
	wantCode(t, w.acc.EnableTOTP(ctx, u, secret, code(-2*30*time.Second)), rampway.EINVALID)
	if err := w.acc.EnableTOTP(ctx, u, secret, code(0)); err != nil {
		t.Fatal(err)
	}
	u, _ = w.store.DashboardUser(ctx, u.ID)
	wantCode(t, w.acc.EnableTOTP(ctx, u, dashboard.NewTOTPSecret(), code(0)), rampway.ECONFLICT)

	// The password alone makes no session, only the second step's challenge.
	w.clock.Advance(time.Minute)
	in, err := w.acc.Login(ctx, u.Email, password, "192.0.2.1", "test")
	if err != nil || in.Challenge == "" || in.Session != nil || in.Token != "" {
		t.Fatalf("login with TOTP = %+v, %v", in, err)
	}
	_, err = w.acc.LoginCode(ctx, "not-a-challenge", code(0), "192.0.2.1", "test")
	if rampway.ErrorCode(err) != rampway.EUNAUTHORIZED {
		t.Fatalf("unknown challenge: %v", err)
	}
	for _, d := range []time.Duration{-2 * 30 * time.Second, 2 * 30 * time.Second} {
		if _, err := w.acc.LoginCode(ctx, in.Challenge, code(d), "192.0.2.1", "test"); rampway.ErrorCode(err) != rampway.EUNAUTHORIZED {
			t.Fatalf("a code %v off: %v", d, err)
		}
	}
	done, err := w.acc.LoginCode(ctx, in.Challenge, code(-30*time.Second), "192.0.2.1", "test")
	if err != nil || done.Session == nil || done.Token == "" {
		t.Fatalf("a code of the step before: %+v, %v", done, err)
	}
	// The challenge is used; a new sign-in with the same code is refused (good once); the
	// next step's code passes.
	if _, err := w.acc.LoginCode(ctx, in.Challenge, code(0), "192.0.2.1", "test"); rampway.ErrorCode(err) != rampway.EUNAUTHORIZED {
		t.Fatalf("a used challenge: %v", err)
	}
	in, _ = w.acc.Login(ctx, u.Email, password, "192.0.2.1", "test")
	if _, err := w.acc.LoginCode(ctx, in.Challenge, code(-30*time.Second), "192.0.2.1", "test"); rampway.ErrorCode(err) != rampway.EUNAUTHORIZED {
		t.Fatalf("a code used before: %v", err)
	}
	if _, err := w.acc.LoginCode(ctx, in.Challenge, code(30*time.Second), "192.0.2.1", "test"); err != nil {
		t.Fatalf("the next step's code: %v", err)
	}
	// A challenge lasts 5 minutes.
	in, _ = w.acc.Login(ctx, u.Email, password, "192.0.2.1", "test")
	w.clock.Advance(rampway.DashboardLoginChallengeTTL)
	if _, err := w.acc.LoginCode(ctx, in.Challenge, code(0), "192.0.2.1", "test"); rampway.ErrorCode(err) != rampway.EUNAUTHORIZED ||
		!strings.Contains(err.Error(), "expired") {
		t.Fatalf("an expired challenge: %v", err)
	}

	// Turning it off needs a current code.
	w.clock.Advance(time.Hour) // a new throttle window
	wantCode(t, w.acc.DisableTOTP(ctx, u, "123456", "192.0.2.9"), rampway.EUNAUTHORIZED)
	if err := w.acc.DisableTOTP(ctx, u, code(0), "192.0.2.9"); err != nil {
		t.Fatal(err)
	}
	u, _ = w.store.DashboardUser(ctx, u.ID)
	if u.TOTPSecret != "" {
		t.Fatal("TOTP still on")
	}
	wantCode(t, w.acc.DisableTOTP(ctx, u, code(0), "192.0.2.9"), rampway.ECONFLICT)
	if in, err := w.acc.Login(ctx, u.Email, password, "192.0.2.1", "test"); err != nil || in.Session == nil {
		t.Fatalf("a sign-in without TOTP: %+v, %v", in, err)
	}

	secret = dashboard.NewTOTPSecret()
	if err := w.acc.EnableTOTP(ctx, u, secret, code(0)); err != nil {
		t.Fatal(err)
	}
	// Wrong codes count in the throttle, as wrong passwords do: after 5, even the right code
	// waits.
	w.clock.Advance(time.Hour)
	in, _ = w.acc.Login(ctx, u.Email, password, "192.0.2.1", "test")
	for i := range 5 {
		if _, err := w.acc.LoginCode(ctx, in.Challenge, "000000", "192.0.2.1", "test"); rampway.ErrorCode(err) != rampway.EUNAUTHORIZED {
			t.Fatalf("wrong code %d: %v", i+1, err)
		}
	}
	if _, err := w.acc.LoginCode(ctx, in.Challenge, code(0), "192.0.2.1", "test"); rampway.ErrorCode(err) != rampway.ERATELIMIT {
		t.Fatalf("the right code after 5 wrong ones: %v, want rate limited", err)
	}
	// The audit log has each change.
	entries, err := w.store.AuditEntries(ctx, w.merchant.ID, rampway.Page{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, e := range entries {
		seen[e.Action]++
	}
	if seen["user.totp_on"] != 2 || seen["user.totp_off"] != 1 {
		t.Fatalf("audit actions %v", seen)
	}
}

// A password change needs the current password (a wrong one counts in the throttle), ends the
// user's other sessions and keeps this one.
func TestAccountsChangePassword(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "Acme")
	ctx := t.Context()
	u := w.user(t, "owner@acme.example", rampway.RoleOwner)
	var tokens []string
	for range 2 {
		in, err := w.acc.Login(ctx, u.Email, password, "192.0.2.1", "test")
		if err != nil {
			t.Fatal(err)
		}
		tokens = append(tokens, in.Token)
	}
	s0, _, err := w.acc.Authenticate(ctx, tokens[0])
	if err != nil {
		t.Fatal(err)
	}
	const next = "a new and longer password"
	wantCode(t, w.acc.ChangePassword(ctx, u, s0, "wrong password!", next, "192.0.2.1"), rampway.EUNAUTHORIZED)
	wantCode(t, w.acc.ChangePassword(ctx, u, s0, password, "short", "192.0.2.1"), rampway.EINVALID)
	if err := w.acc.ChangePassword(ctx, u, s0, password, next, "192.0.2.1"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := w.acc.Authenticate(ctx, tokens[0]); err != nil {
		t.Fatalf("the session that changed the password ended: %v", err)
	}
	if _, _, err := w.acc.Authenticate(ctx, tokens[1]); rampway.ErrorCode(err) != rampway.EUNAUTHORIZED {
		t.Fatalf("another session stayed: %v", err)
	}
	if _, err := w.acc.Login(ctx, u.Email, password, "192.0.2.2", "test"); rampway.ErrorCode(err) != rampway.EUNAUTHORIZED {
		t.Fatalf("the old password signs in: %v", err)
	}
	if _, err := w.acc.Login(ctx, u.Email, next, "192.0.2.2", "test"); err != nil {
		t.Fatalf("the new password: %v", err)
	}
	// Wrong current passwords are throttled like sign-ins.
	u, _ = w.store.DashboardUser(ctx, u.ID)
	for range 5 {
		_ = w.acc.ChangePassword(ctx, u, s0, "wrong password!", next+"!", "192.0.2.3")
	}
	wantCode(t, w.acc.ChangePassword(ctx, u, s0, next, next+"!", "192.0.2.3"), rampway.ERATELIMIT)
}
