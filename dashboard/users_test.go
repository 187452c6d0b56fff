package dashboard_test

import (
	"html"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/dashboard"
	"github.com/rampway/rampway/internal/browsertest"
)

var (
	invitationLink = regexp.MustCompile(`id="invitation-link">([^<]+)<`)
	totpSecret     = regexp.MustCompile(`id="totp-secret">([A-Z2-7]+)<`)
	challengeInput = regexp.MustCompile(`name="challenge" value="([^"]+)"`)
)

// anon is a browser without a session (an invitee, a sign-in not yet made).
func (s *site) anon(t *testing.T) *agent {
	jar, _ := cookiejar.New(nil)
	return &agent{t: t, base: s.Base, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// login posts the sign-in form as email with pw from a's browser and returns the answer.
func (a *agent) login(email, pw string) (*http.Response, string) {
	a.t.Helper()
	_, page := a.get("/dashboard/login")
	return a.post("/dashboard/login", url.Values{"csrf_token": {csrfOf(a.t, page)}, "email": {email}, "password": {pw}})
}

func isStatus(t *testing.T, what string, res *http.Response, want int) {
	t.Helper()
	if res.StatusCode != want {
		t.Fatalf("%s: status %d, want %d", what, res.StatusCode, want)
	}
}

// An owner invites a user: the link is shown once; the invitee picks a password and is signed
// in; the link works once; unknown and expired links get a clear page; each step is audited.
func TestUsersInvite(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	owner := s.as(t, rampway.RoleOwner)
	res, page := owner.get("/dashboard/users")
	isStatus(t, "users page", res, 200)
	for _, u := range s.Users {
		if u.Role != rampway.RoleOperator && !strings.Contains(page, u.Email) {
			t.Fatalf("the users page lacks %s", u.Email)
		}
	}
	if strings.Contains(page, "operator@ops.example") {
		t.Fatal("the merchant's users page lists the operator")
	}
	// Refused: an operator, an email taken, a bad email; nothing is made.
	res, page = owner.submit("/dashboard/users/invite", url.Values{"email": {"ops2@shop.example"}, "role": {"operator"}})
	isStatus(t, "invite an operator", res, 400)
	if !strings.Contains(page, "role must be one of owner, developer, support, viewer") {
		t.Fatalf("the refusal does not say why:\n%s", page)
	}
	res, _ = owner.submit("/dashboard/users/invite", url.Values{"email": {"Viewer@Shop.example"}, "role": {"viewer"}})
	isStatus(t, "invite a user's email", res, 409)
	res, _ = owner.submit("/dashboard/users/invite", url.Values{"email": {"not an email"}, "role": {"viewer"}})
	isStatus(t, "invite a bad email", res, 400)

	res, page = owner.submit("/dashboard/users/invite", url.Values{"email": {"Ada@Shop.example"}, "role": {"developer"}})
	isStatus(t, "invite", res, 200)
	m := invitationLink.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no invitation link on the page:\n%s", page)
	}
	link := html.UnescapeString(m[1])
	path, ok := strings.CutPrefix(link, s.Base)
	if !ok || !strings.HasPrefix(path, "/dashboard/invite/") {
		t.Fatalf("invitation link %q", link)
	}
	token := strings.TrimPrefix(path, "/dashboard/invite/")
	// Pending, listed without its link (shown once).
	_, page = owner.get("/dashboard/users")
	if !strings.Contains(page, "ada@shop.example") || strings.Contains(page, token) {
		t.Fatal("the users page does not list the invitation, or shows its link again")
	}

	ada := s.anon(t)
	res, page = ada.get(path)
	isStatus(t, "invitation page", res, 200)
	if !strings.Contains(page, "Shop") || !strings.Contains(page, "developer") || !strings.Contains(page, "ada@shop.example") {
		t.Fatalf("the invitation page does not say what it is:\n%s", page)
	}
	csrf := csrfOf(t, page)
	const pw = "ada's own long password"
	res, _ = ada.post(path, url.Values{"password": {pw}, "password_again": {pw}})
	isStatus(t, "accept without CSRF token", res, 403)
	res, _ = ada.post(path, url.Values{"csrf_token": {csrf}, "password": {"too short"}, "password_again": {"too short"}})
	isStatus(t, "a short password", res, 400)
	res, _ = ada.post(path, url.Values{"csrf_token": {csrf}, "password": {pw}, "password_again": {pw + "!"}})
	isStatus(t, "passwords that differ", res, 400)
	res, _ = ada.post(path, url.Values{"csrf_token": {csrf}, "password": {pw}, "password_again": {pw}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/dashboard/" {
		t.Fatalf("accept: %d to %q, want 303 to /dashboard/", res.StatusCode, res.Header.Get("Location"))
	}
	res, page = ada.get("/dashboard/account")
	isStatus(t, "the invitee's account page", res, 200)
	if !strings.Contains(page, "ada@shop.example") || !strings.Contains(page, "developer") {
		t.Fatalf("the invitee is not signed in as ada, a developer:\n%s", page)
	}
	res, _ = ada.get("/dashboard/users")
	isStatus(t, "a developer's users page", res, 403)

	// Used: the link works no more.
	late := s.anon(t)
	res, page = late.get(path)
	isStatus(t, "a used invitation", res, http.StatusGone)
	if !strings.Contains(page, "accepted already") {
		t.Fatalf("the used link's page does not say so:\n%s", page)
	}
	_, page = late.get("/dashboard/login")
	res, _ = late.post(path, url.Values{"csrf_token": {csrfOf(t, page)}, "password": {pw}, "password_again": {pw}})
	isStatus(t, "accept a used invitation", res, http.StatusGone)
	// Signing in with the password chosen works.
	if res, _ := s.anon(t).login("ada@shop.example", pw); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign in as the invitee: %d", res.StatusCode)
	}
	// Unknown and expired links.
	res, page = late.get("/dashboard/invite/" + strings.Repeat("x", 43))
	isStatus(t, "an unknown invitation", res, 404)
	if !strings.Contains(page, "not known") {
		t.Fatalf("the unknown link's page:\n%s", page)
	}
	expired := "an-expired-invitation-token-of-the-test-000"
	at := time.Now().UTC().Truncate(time.Microsecond)
	if err := s.App.Store.CreateDashboardInvitation(t.Context(), &rampway.DashboardInvitation{ID: dashboard.SessionID(expired), MerchantID: s.Merchant.ID,
		Email: "late@shop.example", Role: rampway.RoleViewer, InvitedBy: s.Users[rampway.RoleOwner].ID, CreatedAt: at.Add(-8 * 24 * time.Hour),
		ExpiresAt: at.Add(-24 * time.Hour)}, nil); err != nil {
		t.Fatal(err)
	}
	res, page = late.get("/dashboard/invite/" + expired)
	isStatus(t, "an expired invitation", res, http.StatusGone)
	if !strings.Contains(page, "expired") {
		t.Fatalf("the expired link's page:\n%s", page)
	}
	_, page = late.get("/dashboard/login")
	res, _ = late.post("/dashboard/invite/"+expired, url.Values{"csrf_token": {csrfOf(t, page)}, "password": {pw}, "password_again": {pw}})
	isStatus(t, "accept an expired invitation", res, http.StatusGone)

	// The audit log: the invitation by the owner, the user made by itself.
	_, page = owner.get("/dashboard/audit")
	for _, want := range []string{"user.invite", "ada@shop.example invited as developer", "user.create", "ada@shop.example as developer, by invitation"} {
		if !strings.Contains(page, want) {
			t.Fatalf("the audit log lacks %q:\n%s", want, page)
		}
	}
}

// An owner changes roles and disables users (whose sessions end at once) and enables them
// again; no one changes themselves, the last enabled owner stays; an operator does it for the
// merchant it picks; all of it is in the audit log.
func TestUsersDisableAndRoles(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	ctx := t.Context()
	owner, support := s.as(t, rampway.RoleOwner), s.as(t, rampway.RoleSupport)
	op := s.as(t, rampway.RoleOperator)
	ownerID, supportID := s.Users[rampway.RoleOwner].ID, s.Users[rampway.RoleSupport].ID

	res, _ := owner.submit("/dashboard/users/"+supportID+"/disable", nil)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/dashboard/users?done=disable" {
		t.Fatalf("disable: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	_, page := owner.get("/dashboard/users?done=disable")
	if !strings.Contains(page, "their sessions have ended") || !strings.Contains(page, "Disabled") {
		t.Fatalf("the page after disabling:\n%s", page)
	}
	res, _ = support.get("/dashboard/")
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/dashboard/login" {
		t.Fatalf("a disabled user's session: %d to %q, want the sign-in page", res.StatusCode, res.Header.Get("Location"))
	}
	if res, _ := s.anon(t).login("support@shop.example", sitePassword); res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a disabled user signs in: %d", res.StatusCode)
	}
	res, _ = owner.submit("/dashboard/users/"+supportID+"/enable", nil)
	isStatus(t, "enable", res, http.StatusSeeOther)
	if res, _ := s.anon(t).login("support@shop.example", sitePassword); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("an enabled user's sign-in: %d", res.StatusCode)
	}

	// Roles: a merchant's roles only; not oneself; not another merchant's user.
	viewerID := s.Users[rampway.RoleViewer].ID
	res, _ = owner.submit("/dashboard/users/"+viewerID+"/role", url.Values{"role": {"support"}})
	isStatus(t, "role change", res, http.StatusSeeOther)
	if u, _ := s.App.Store.DashboardUser(ctx, viewerID); u.Role != rampway.RoleSupport {
		t.Fatalf("role after the change: %s", u.Role)
	}
	res, _ = owner.submit("/dashboard/users/"+viewerID+"/role", url.Values{"role": {"operator"}})
	isStatus(t, "make an operator", res, 400)
	res, _ = owner.submit("/dashboard/users/"+ownerID+"/role", url.Values{"role": {"viewer"}})
	isStatus(t, "demote oneself", res, 409)
	res, _ = owner.submit("/dashboard/users/"+ownerID+"/disable", nil)
	isStatus(t, "disable oneself", res, 409)
	acc := dashboard.NewAccounts(s.App.Store, dashboard.Config{}, nil)
	stranger, err := acc.CreateUser(ctx, dashboard.NewUser{MerchantID: s.Other.ID, Email: "owner@other.example", Role: rampway.RoleOwner, Password: sitePassword})
	if err != nil {
		t.Fatal(err)
	}
	res, _ = owner.submit("/dashboard/users/"+stranger.ID+"/disable", nil)
	isStatus(t, "disable another merchant's user", res, 404)
	if u, _ := s.App.Store.DashboardUser(ctx, stranger.ID); u.DisabledAt != nil {
		t.Fatal("another merchant's user was disabled")
	}

	// The operator, for the merchant picked: the last enabled owner stays.
	mv := func(v url.Values) url.Values { v.Set("merchant", s.Merchant.ID); return v }
	res, page = op.submit("/dashboard/users/"+ownerID+"/role", mv(url.Values{"role": {"viewer"}}))
	isStatus(t, "demote the last owner", res, 409)
	if !strings.Contains(page, "last enabled owner") {
		t.Fatalf("the refusal does not say why:\n%s", page)
	}
	res, _ = op.submit("/dashboard/users/"+ownerID+"/disable", mv(url.Values{}))
	isStatus(t, "disable the last owner", res, 409)
	devID := s.Users[rampway.RoleDeveloper].ID
	res, _ = op.submit("/dashboard/users/"+devID+"/role", mv(url.Values{"role": {"owner"}}))
	if res.StatusCode != http.StatusSeeOther || !strings.Contains(res.Header.Get("Location"), "merchant="+s.Merchant.ID) {
		t.Fatalf("operator's role change: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	res, _ = op.submit("/dashboard/users/"+ownerID+"/disable", mv(url.Values{}))
	isStatus(t, "disable an owner with another", res, http.StatusSeeOther)
	if res, _ := owner.get("/dashboard/users"); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("the disabled owner's session: %d", res.StatusCode)
	}

	// Every change in the merchant's log, with who made it.
	res, page = op.get("/dashboard/audit?merchant=" + s.Merchant.ID)
	isStatus(t, "operator's audit log", res, 200)
	for _, want := range []string{"user.disable", "user.enable", "user.role", "support@shop.example", "viewer@shop.example: viewer to support",
		"developer@shop.example: developer to owner", "operator@ops.example", "owner@shop.example"} {
		if !strings.Contains(page, want) {
			t.Fatalf("the audit log lacks %q:\n%s", want, page)
		}
	}
	if strings.Contains(page, "owner@other.example") {
		t.Fatal("the audit log shows another merchant's entries")
	}
}

// The audit log is keyset-paged, newest first.
func TestAuditLogPages(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	at := time.Now().UTC().Truncate(time.Microsecond).Add(-2 * time.Minute) // before the sign-in below
	for i := range 60 {
		e := &rampway.AuditEntry{ID: rampway.NewID(rampway.PrefixAuditEntry, at), MerchantID: s.Merchant.ID, UserID: s.Users[rampway.RoleOwner].ID,
			Action: "test.entry", Subject: "n" + strconv.Itoa(i), Detail: "<script>alert(1)</script>", At: at.Add(time.Duration(i) * time.Second)}
		if err := s.App.Store.AddAuditEntry(t.Context(), e); err != nil {
			t.Fatal(err)
		}
	}
	owner := s.as(t, rampway.RoleOwner) // its sign-in is the newest entry
	row := regexp.MustCompile(`<tr><td>[^<]*</td><td>[^<]*</td><td><code>([^<]*)</code></td><td><code>([^<]*)</code>`)
	next := regexp.MustCompile(`href="(/dashboard/audit\?after=[^"]+)" rel="next"`)
	var subjects []string
	path := "/dashboard/audit"
	for pages := 0; path != ""; pages++ {
		res, page := owner.get(path)
		isStatus(t, "audit page "+path, res, 200)
		if strings.Contains(page, "<script>alert") || !strings.Contains(page, "&lt;script&gt;") {
			t.Fatal("an entry's detail is not escaped")
		}
		rows := row.FindAllStringSubmatch(page, -1)
		if pages == 0 && (len(rows) != 50 || rows[0][1] != "login") {
			t.Fatalf("the first page has %d entries, the first %v; want 50, the sign-in first", len(rows), rows[0])
		}
		for _, r := range rows {
			if r[1] == "test.entry" {
				subjects = append(subjects, r[2])
			}
		}
		path = ""
		if m := next.FindStringSubmatch(page); m != nil {
			path = html.UnescapeString(m[1])
		}
		if pages > 3 {
			t.Fatal("the pages do not end")
		}
	}
	if len(subjects) != 60 {
		t.Fatalf("%d entries over the pages, want 60: %v", len(subjects), subjects)
	}
	for i, sub := range subjects {
		if want := "n" + strconv.Itoa(59-i); sub != want {
			t.Fatalf("entry %d is %s, want %s (newest first)", i, sub, want)
		}
	}
	res, _ := owner.get("/dashboard/audit?after=aud_unknown")
	isStatus(t, "an unknown page", res, 404)
}

// A developer, support or viewer gets 403 on the users and audit pages and their forms, and
// sees no link to them; a POST without the CSRF token does nothing.
func TestUsersForbidden(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	viewerID := s.Users[rampway.RoleViewer].ID
	for _, role := range []rampway.DashboardRole{rampway.RoleDeveloper, rampway.RoleSupport, rampway.RoleViewer} {
		a := s.as(t, role)
		for _, path := range []string{"/dashboard/users", "/dashboard/audit"} {
			if res, _ := a.get(path); res.StatusCode != http.StatusForbidden {
				t.Errorf("GET %s as %s: %d, want 403", path, role, res.StatusCode)
			}
		}
		for path, form := range map[string]url.Values{
			"/dashboard/users/invite":                   {"email": {"x@shop.example"}, "role": {"owner"}},
			"/dashboard/users/" + viewerID + "/role":    {"role": {"owner"}},
			"/dashboard/users/" + viewerID + "/disable": {},
		} {
			if res, _ := a.submit(path, form); res.StatusCode != http.StatusForbidden {
				t.Errorf("POST %s as %s: %d, want 403", path, role, res.StatusCode)
			}
		}
		res, page := a.get("/dashboard/account")
		isStatus(t, "account page", res, 200)
		if strings.Contains(page, `href="/dashboard/users"`) || strings.Contains(page, `href="/dashboard/audit"`) {
			t.Errorf("a %s sees a link to the users or audit pages", role)
		}
	}
	if u, _ := s.App.Store.DashboardUser(t.Context(), viewerID); u.Role != rampway.RoleViewer || u.DisabledAt != nil {
		t.Fatalf("a forbidden POST changed the viewer: %+v", u)
	}
	if _, err := s.App.Store.DashboardUserByEmail(t.Context(), "x@shop.example"); rampway.ErrorCode(err) != rampway.ENOTFOUND {
		t.Fatal("a forbidden invitation was made")
	}
	owner := s.as(t, rampway.RoleOwner)
	_, page := owner.get("/dashboard/account")
	if !strings.Contains(page, `href="/dashboard/users"`) || !strings.Contains(page, `href="/dashboard/audit"`) {
		t.Fatal("the owner sees no link to the users and audit pages")
	}
	// Without the token: 403, nothing done (the owner's forms, and a visitor's).
	for path, form := range map[string]url.Values{
		"/dashboard/users/" + viewerID + "/disable": {},
		"/dashboard/users/invite":                   {"email": {"y@shop.example"}, "role": {"viewer"}},
		"/dashboard/account/password":               {"current_password": {sitePassword}, "password": {"another long password"}, "password_again": {"another long password"}},
	} {
		if res, _ := owner.post(path, form); res.StatusCode != http.StatusForbidden {
			t.Errorf("POST %s without the CSRF token: %d, want 403", path, res.StatusCode)
		}
		if res, _ := s.anon(t).post(path, form); res.StatusCode != http.StatusForbidden {
			t.Errorf("POST %s without a session: %d, want 403", path, res.StatusCode)
		}
	}
	if u, _ := s.App.Store.DashboardUser(t.Context(), viewerID); u.DisabledAt != nil {
		t.Fatal("a POST without the token disabled the viewer")
	}
	if res, _ := s.anon(t).login("owner@shop.example", sitePassword); res.StatusCode != http.StatusSeeOther {
		t.Fatal("a POST without the token changed the owner's password")
	}
}

// Ten wrong passwords in a row over HTTP: after the fifth, every attempt (the right password
// too) is refused with 429 and Retry-After.
func TestLoginSlowedAfterTenWrongPasswords(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	a := s.anon(t)
	for i := 1; i <= 10; i++ {
		res, page := a.login("owner@shop.example", "wrong password number "+strconv.Itoa(i))
		switch {
		case i <= dashboard.DefaultMaxFailures && res.StatusCode != http.StatusUnauthorized:
			t.Fatalf("wrong password %d: %d, want 401", i, res.StatusCode)
		case i > dashboard.DefaultMaxFailures:
			isStatus(t, "wrong password "+strconv.Itoa(i), res, http.StatusTooManyRequests)
			if secs, err := strconv.Atoi(res.Header.Get("Retry-After")); err != nil || secs <= 0 || secs > int(dashboard.DefaultFailureWindow/time.Second) {
				t.Fatalf("Retry-After %q", res.Header.Get("Retry-After"))
			}
			if !strings.Contains(page, "Too many failed sign-ins") {
				t.Fatalf("the page does not say why:\n%s", page)
			}
		}
	}
	if res, _ := a.login("owner@shop.example", sitePassword); res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("the right password after 10 wrong ones: %d, want 429", res.StatusCode)
	}
}

// TOTP over HTTP: turned on with a code on the account page, then signing in asks for a code
// after the password; a wrong one is refused, and counted: after five, the right one waits too.
func TestTOTPSignIn(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	dev := s.as(t, rampway.RoleDeveloper)
	owner := s.as(t, rampway.RoleOwner)
	_, page := dev.get("/dashboard/account")
	if !strings.Contains(page, "Turn on two-factor sign-in") {
		t.Fatalf("the account page offers no TOTP:\n%s", page)
	}
	res, page := dev.get("/dashboard/account/totp")
	isStatus(t, "TOTP set-up page", res, 200)
	m := totpSecret.FindStringSubmatch(page)
	if m == nil || !strings.Contains(page, "otpauth://totp/rampway:developer@shop.example?") {
		t.Fatalf("no secret or URI on the set-up page:\n%s", page)
	}
	secret := m[1]
	if u, _ := s.App.Store.DashboardUser(t.Context(), s.Users[rampway.RoleDeveloper].ID); u.TOTPSecret != "" {
		t.Fatal("showing the set-up page turned TOTP on")
	}
	code := func(d time.Duration) string {
		c, err := dashboard.TOTPCode(secret, time.Now().Add(d))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	res, page = dev.submit("/dashboard/account/totp", url.Values{"secret": {secret}, "code": {"12345"}})
	isStatus(t, "a wrong code", res, 400)
	if !strings.Contains(page, secret) {
		t.Fatal("after a wrong code the set-up page shows another secret")
	}
	res, _ = dev.submit("/dashboard/account/totp", url.Values{"secret": {secret}, "code": {code(0)}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/dashboard/account?done=totp_on" {
		t.Fatalf("turn on: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	if _, page = dev.get("/dashboard/account?done=totp_on"); !strings.Contains(page, "Turn off two-factor sign-in") {
		t.Fatalf("the account page after turning TOTP on:\n%s", page)
	}
	if _, page = owner.get("/dashboard/users"); !strings.Contains(page, "two-factor") {
		t.Fatal("the users page does not say who has two-factor sign-in")
	}

	// Signing in: the password, then the code.
	a := s.anon(t)
	res, page = a.login("developer@shop.example", sitePassword)
	isStatus(t, "the password of a user with TOTP", res, 200)
	if a.hasSession() {
		t.Fatal("a session before the code")
	}
	m = challengeInput.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no second step:\n%s", page)
	}
	challenge, csrf := m[1], csrfOf(t, page)
	res, _ = a.post("/dashboard/login/code", url.Values{"challenge": {challenge}, "code": {code(30 * time.Second)}})
	isStatus(t, "the code without the CSRF token", res, 403)
	res, page = a.post("/dashboard/login/code", url.Values{"csrf_token": {csrf}, "challenge": {challenge}, "code": {"000000"}})
	isStatus(t, "a wrong code", res, 401)
	if !strings.Contains(page, "The code is wrong") || challengeInput.FindStringSubmatch(page) == nil {
		t.Fatalf("the page after a wrong code:\n%s", page)
	}
	res, _ = a.post("/dashboard/login/code", url.Values{"csrf_token": {csrf}, "challenge": {challenge}, "code": {code(30 * time.Second)}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/dashboard/" {
		t.Fatalf("the right code: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	if res, _ := a.get("/dashboard/account"); res.StatusCode != 200 {
		t.Fatalf("signed in with the code: %d", res.StatusCode)
	}
	c := s.anon(t)
	_, page = c.get("/dashboard/login")
	res, page = c.post("/dashboard/login/code", url.Values{"csrf_token": {csrfOf(t, page)}, "challenge": {challenge}, "code": {code(0)}})
	isStatus(t, "a used challenge", res, 401)
	if !strings.Contains(page, "expired") || !strings.Contains(page, `name="password"`) {
		t.Fatalf("a used challenge's page:\n%s", page)
	}

	// Wrong codes are throttled with the passwords: after five failures, the right code waits.
	b := s.anon(t)
	_, page = b.login("developer@shop.example", sitePassword)
	challenge, csrf = challengeInput.FindStringSubmatch(page)[1], csrfOf(t, page)
	for range dashboard.DefaultMaxFailures {
		b.post("/dashboard/login/code", url.Values{"csrf_token": {csrf}, "challenge": {challenge}, "code": {"000000"}})
	}
	res, _ = b.post("/dashboard/login/code", url.Values{"csrf_token": {csrf}, "challenge": {challenge}, "code": {code(0)}})
	isStatus(t, "the code after five wrong ones", res, http.StatusTooManyRequests)
	if res.Header.Get("Retry-After") == "" {
		t.Fatal("no Retry-After")
	}
	_, page = owner.get("/dashboard/audit")
	if !strings.Contains(page, "user.totp_on") || !strings.Contains(page, "with a TOTP code") {
		t.Fatalf("the audit log lacks TOTP:\n%s", page)
	}
}

// hasSession reports whether the agent's browser holds a session cookie.
func (a *agent) hasSession() bool {
	u, _ := url.Parse(a.base + "/dashboard/")
	for _, c := range a.c.Jar.Cookies(u) {
		if c.Name == dashboard.SessionCookie && c.Value != "" {
			return true
		}
	}
	return false
}

// The users, audit and account pages (and an invitation's) in Chromium, as the owner: an
// invitation made through the form, accessibility checked and screenshots kept.
func TestUsersPagesInChromium(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	ctx := s.chromiumAt(t, rampway.RoleOwner, "/dashboard/users")
	browsertest.Do(t, ctx, chromedp.WaitVisible(chromedp.ID("invite-email")))
	browsertest.CheckAccessibility(t, ctx, "the users page")
	browsertest.Screenshot(t, ctx, "users")
	browsertest.Do(t, ctx,
		chromedp.SendKeys(chromedp.ID("invite-email"), "grace@shop.example"),
		chromedp.SetValue(chromedp.ID("invite-role"), "support"),
		chromedp.Submit(chromedp.ID("invite-email")),
		chromedp.WaitVisible(chromedp.ID("invitation-link")),
	)
	link := browsertest.Eval[string](t, ctx, `document.getElementById("invitation-link").textContent`)
	if !strings.HasPrefix(link, s.Base+"/dashboard/invite/") {
		t.Fatalf("invitation link %q", link)
	}
	browsertest.CheckAccessibility(t, ctx, "the users page with an invitation link")
	browsertest.Screenshot(t, ctx, "users-invited")
	for _, p := range []struct{ path, wait, name string }{
		{"/dashboard/audit", "table", "audit"},
		{"/dashboard/account", "#current-password", "account"},
		{"/dashboard/account/totp", "#totp-code", "account-totp"},
	} {
		browsertest.Do(t, ctx, chromedp.Navigate(s.Base+p.path), chromedp.WaitVisible(chromedp.CSS(p.wait)))
		browsertest.CheckAccessibility(t, ctx, "the "+p.name+" page")
		browsertest.Screenshot(t, ctx, p.name)
	}
	// The invitee's page, in a browser of its own.
	invitee := browsertest.New(t)
	browsertest.Do(t, invitee,
		chromedp.Navigate(link),
		chromedp.WaitVisible(chromedp.ID("password")),
	)
	browsertest.CheckAccessibility(t, invitee, "the invitation page")
	browsertest.Screenshot(t, invitee, "invite")
	browsertest.Do(t, invitee,
		chromedp.SendKeys(chromedp.ID("password"), "grace's long password"),
		chromedp.SendKeys(chromedp.ID("password-again"), "grace's long password"),
		chromedp.Submit(chromedp.ID("password")),
	)
	browsertest.WaitFor(t, invitee, "signed in at the start page", `location.pathname`, browsertest.Timeout,
		func(p string) bool { return p == "/dashboard/" || p == "/dashboard/overview" })
	browsertest.Do(t, invitee,
		chromedp.Navigate(s.Base+"/dashboard/account"),
		chromedp.WaitVisible(chromedp.CSS("header nav")),
	)
	if who := browsertest.Eval[string](t, invitee, `document.querySelector("header .email").textContent`); who != "grace@shop.example" {
		t.Fatalf("the invitee is signed in as %q", who)
	}
}
