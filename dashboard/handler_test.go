package dashboard_test

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/dashboard"
)

// browser keeps a client's cookies and talks to the dashboard's handler in process.
type browser struct {
	t       *testing.T
	h       http.Handler
	host    string // example.com unless set
	tls     bool
	ip      string
	cookies map[string]*http.Cookie
}

func newBrowser(t *testing.T, h http.Handler) *browser {
	return &browser{t: t, h: h, host: "dash.example.com", tls: true, ip: "192.0.2.10", cookies: map[string]*http.Cookie{}}
}

func (b *browser) do(method, path string, form url.Values) *http.Response {
	b.t.Helper()
	var body *strings.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	} else {
		body = strings.NewReader("")
	}
	r := httptest.NewRequest(method, path, body)
	r.Host = b.host
	r.RemoteAddr = b.ip + ":50000"
	if !b.tls {
		r.TLS = nil
	} else {
		r.TLS = &tls.ConnectionState{}
	}
	if form != nil {
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for _, c := range b.cookies {
		r.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
	}
	w := httptest.NewRecorder()
	b.h.ServeHTTP(w, r)
	res := w.Result()
	for _, c := range res.Cookies() {
		if c.MaxAge < 0 {
			delete(b.cookies, c.Name)
		} else {
			b.cookies[c.Name] = c
		}
	}
	return res
}

func body(t *testing.T, res *http.Response) string {
	t.Helper()
	var sb strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := res.Body.Read(buf)
		sb.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return sb.String()
}

var csrfInput = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

// formToken is the CSRF token of the page's form.
func formToken(t *testing.T, page string) string {
	t.Helper()
	m := csrfInput.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no csrf_token in the page:\n%s", page)
	}
	return m[1]
}

func wantStatus(t *testing.T, res *http.Response, code int) {
	t.Helper()
	if res.StatusCode != code {
		t.Fatalf("%s %s: status %d, want %d", res.Request.Method, res.Request.URL.Path, res.StatusCode, code)
	}
}

// login signs in through the form and returns the POST's answer.
func (b *browser) login(email, pw string) *http.Response {
	b.t.Helper()
	res := b.do("GET", "/dashboard/login", nil)
	wantStatus(b.t, res, http.StatusOK)
	tok := formToken(b.t, body(b.t, res))
	return b.do("POST", "/dashboard/login", url.Values{"csrf_token": {tok}, "email": {email}, "password": {pw}})
}

func TestLoginSetsTheSessionCookie(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "Acme")
	u := w.user(t, "owner@acme.example", rampway.RoleOwner)
	b := newBrowser(t, dashboard.NewHandler(dashboard.Deps{Accounts: w.acc}))

	// The form: accessible labels, the login CSRF token in a cookie and in the form.
	res := b.do("GET", "/dashboard/login", nil)
	wantStatus(t, res, http.StatusOK)
	page := body(t, res)
	for _, want := range []string{`<label for="email">`, `id="email"`, `<label for="password">`, `id="password"`, `lang="en"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the login form lacks %s", want)
		}
	}
	if c := b.cookies[dashboard.LoginCookie]; c == nil || c.Value != formToken(t, page) {
		t.Fatalf("login cookie %+v does not hold the form's token", c)
	}
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Errorf("Content-Security-Policy = %q", csp)
	}

	res = b.do("POST", "/dashboard/login", url.Values{"csrf_token": {formToken(t, page)}, "email": {"Owner@acme.example"}, "password": {password}})
	wantStatus(t, res, http.StatusSeeOther)
	if loc := res.Header.Get("Location"); loc != "/dashboard/" {
		t.Fatalf("redirect to %q", loc)
	}
	var c *http.Cookie
	for _, x := range res.Cookies() {
		if x.Name == dashboard.SessionCookie {
			c = x
		}
	}
	if c == nil {
		t.Fatal("no session cookie")
	}
	if !c.HttpOnly || !c.Secure || c.SameSite != http.SameSiteStrictMode || c.Path != "/dashboard" || len(c.Value) < 40 ||
		c.MaxAge != int(rampway.DashboardSessionMax/time.Second) {
		t.Fatalf("session cookie %+v: want HttpOnly, Secure, SameSite=Strict, Path=/dashboard, a 32-byte token, 7 days", c)
	}
	if _, ok := b.cookies[dashboard.LoginCookie]; ok {
		t.Error("the login cookie outlives the sign-in")
	}
	// The store knows the session by the token's hash, never the token.
	s, err := w.store.DashboardSession(t.Context(), dashboard.SessionID(c.Value))
	if err != nil || s.UserID != u.ID || s.IP != "192.0.2.10" {
		t.Fatalf("stored session %+v, %v", s, err)
	}

	res = b.do("GET", "/dashboard/", nil)
	wantStatus(t, res, http.StatusOK)
	if page := body(t, res); !strings.Contains(page, "Signed in as <strong>owner@acme.example</strong> (owner) for merchant <strong>Acme</strong>") {
		t.Fatalf("landing page:\n%s", page)
	}
	// Signed in, the login form sends the browser to the dashboard.
	res = b.do("GET", "/dashboard/login", nil)
	wantStatus(t, res, http.StatusSeeOther)
}

// On plain http to a loopback host (rampway dev) the cookies are not Secure (the browser would
// not send them back); anywhere else they are, TLS or not (a proxy in front terminates it).
func TestCookieSecureUnlessPlainLocalhost(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "Acme")
	w.user(t, "owner@acme.example", rampway.RoleOwner)
	h := dashboard.NewHandler(dashboard.Deps{Accounts: w.acc})
	for _, tt := range []struct {
		host   string
		tls    bool
		secure bool
	}{
		{"127.0.0.1:8080", false, false},
		{"localhost:8080", false, false},
		{"[::1]:8080", false, false},
		{"127.0.0.1:8080", true, true},
		{"dash.example.com", false, true},
		{"dash.example.com", true, true},
	} {
		b := newBrowser(t, h)
		b.host, b.tls = tt.host, tt.tls
		res := b.login("owner@acme.example", password)
		wantStatus(t, res, http.StatusSeeOther)
		c := b.cookies[dashboard.SessionCookie]
		if c == nil || c.Secure != tt.secure {
			t.Errorf("host %s, TLS %v: session cookie %+v, want Secure %v", tt.host, tt.tls, c, tt.secure)
		}
	}
}

func TestLoginThrottledOverHTTP(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "Acme")
	w.user(t, "owner@acme.example", rampway.RoleOwner)
	b := newBrowser(t, dashboard.NewHandler(dashboard.Deps{Accounts: w.acc}))
	for i := 1; i <= 10; i++ {
		res := b.login("owner@acme.example", "not the password")
		page := body(t, res)
		if i <= 5 {
			wantStatus(t, res, http.StatusUnauthorized)
			if !strings.Contains(page, "The email or the password is wrong.") {
				t.Fatalf("attempt %d:\n%s", i, page)
			}
			continue
		}
		wantStatus(t, res, http.StatusTooManyRequests)
		if ra := res.Header.Get("Retry-After"); ra != "900" {
			t.Fatalf("attempt %d: Retry-After %q, want 900 (the clock stood still)", i, ra)
		}
		if !strings.Contains(page, "Too many failed sign-ins. Try again in 15 minutes.") {
			t.Fatalf("attempt %d:\n%s", i, page)
		}
	}
	// The right password is refused too, until the window ends.
	wantStatus(t, b.login("owner@acme.example", password), http.StatusTooManyRequests)
	w.clock.Advance(dashboard.DefaultFailureWindow)
	wantStatus(t, b.login("owner@acme.example", password), http.StatusSeeOther)
}

func TestLogout(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "Acme")
	u := w.user(t, "owner@acme.example", rampway.RoleOwner)
	b := newBrowser(t, dashboard.NewHandler(dashboard.Deps{Accounts: w.acc}))
	w.clock.Advance(time.Second) // the audit log is in time order
	wantStatus(t, b.login(u.Email, password), http.StatusSeeOther)
	w.clock.Advance(time.Second)
	token := b.cookies[dashboard.SessionCookie].Value
	res := b.do("GET", "/dashboard/", nil)
	wantStatus(t, res, http.StatusOK)
	csrf := formToken(t, body(t, res))

	res = b.do("POST", "/dashboard/logout", url.Values{"csrf_token": {csrf}})
	wantStatus(t, res, http.StatusSeeOther)
	if loc := res.Header.Get("Location"); loc != "/dashboard/login" {
		t.Fatalf("redirect to %q", loc)
	}
	if _, ok := b.cookies[dashboard.SessionCookie]; ok {
		t.Fatal("the session cookie is kept")
	}
	if _, err := w.store.DashboardSession(t.Context(), dashboard.SessionID(token)); rampway.ErrorCode(err) != rampway.ENOTFOUND {
		t.Fatalf("the session is kept: %v", err)
	}
	// The old cookie, sent again, signs no one in.
	b.cookies[dashboard.SessionCookie] = &http.Cookie{Name: dashboard.SessionCookie, Value: token}
	res = b.do("GET", "/dashboard/", nil)
	wantStatus(t, res, http.StatusSeeOther)
	if loc := res.Header.Get("Location"); loc != "/dashboard/login" {
		t.Fatalf("redirect to %q", loc)
	}
	entries, err := w.store.AuditEntries(t.Context(), w.merchant.ID, rampway.Page{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, e := range entries {
		actions = append(actions, e.Action)
	}
	if strings.Join(actions, ",") != "logout,login,user.create" {
		t.Fatalf("audit log = %v", actions)
	}
}

func TestCSRF(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "Acme")
	u := w.user(t, "owner@acme.example", rampway.RoleOwner)
	h := dashboard.NewHandler(dashboard.Deps{Accounts: w.acc})

	// Login: without the cookie, without the field, or with another token: 403, and the
	// password is not even tried (no failure counted).
	b := newBrowser(t, h)
	res := b.do("GET", "/dashboard/login", nil)
	tok := formToken(t, body(t, res))
	for name, form := range map[string]url.Values{
		"no field":    {"email": {u.Email}, "password": {password}},
		"wrong token": {"csrf_token": {tok + "x"}, "email": {u.Email}, "password": {password}},
	} {
		if res := b.do("POST", "/dashboard/login", form); res.StatusCode != http.StatusForbidden {
			t.Errorf("login, %s: status %d, want 403", name, res.StatusCode)
		}
	}
	fresh := newBrowser(t, h) // no login cookie
	if res := fresh.do("POST", "/dashboard/login", url.Values{"csrf_token": {tok}, "email": {u.Email}, "password": {password}}); res.StatusCode != http.StatusForbidden {
		t.Errorf("login without the cookie: status %d, want 403", res.StatusCode)
	}
	if f, err := w.store.LoginFailures(t.Context(), "email:"+u.Email); err != nil || f.Count != 0 {
		t.Fatalf("refused forms counted as failures: %+v, %v", f, err)
	}

	// Logout: the session's token is required; without it the session stays.
	wantStatus(t, b.login(u.Email, password), http.StatusSeeOther)
	for name, form := range map[string]url.Values{"no field": {}, "the login token": {"csrf_token": {tok}}, "empty": {"csrf_token": {""}}} {
		if res := b.do("POST", "/dashboard/logout", form); res.StatusCode != http.StatusForbidden {
			t.Errorf("logout, %s: status %d, want 403", name, res.StatusCode)
		}
	}
	wantStatus(t, b.do("GET", "/dashboard/", nil), http.StatusOK)
	// Not signed in: a logout POST is refused as well.
	if res := fresh.do("POST", "/dashboard/logout", url.Values{"csrf_token": {"x"}}); res.StatusCode != http.StatusForbidden {
		t.Errorf("logout without a session: status %d, want 403", res.StatusCode)
	}
}

func TestLandingPageEscapesMerchantStrings(t *testing.T) {
	t.Parallel()
	w := newWorld(t, `<script>alert("pwned")</script> & Co`)
	w.user(t, "owner@acme.example", rampway.RoleOwner)
	b := newBrowser(t, dashboard.NewHandler(dashboard.Deps{Accounts: w.acc}))
	wantStatus(t, b.login("owner@acme.example", password), http.StatusSeeOther)
	res := b.do("GET", "/dashboard/", nil)
	wantStatus(t, res, http.StatusOK)
	page := body(t, res)
	if strings.Contains(page, "<script>") {
		t.Fatalf("the merchant's name is not escaped:\n%s", page)
	}
	if !strings.Contains(page, "&lt;script&gt;alert(&#34;pwned&#34;)&lt;/script&gt; &amp; Co") {
		t.Fatalf("the merchant's name is not shown escaped:\n%s", page)
	}
}

func TestNotSignedIn(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "Acme")
	op := w.user(t, "ops@rampway.example", rampway.RoleOperator)
	b := newBrowser(t, dashboard.NewHandler(dashboard.Deps{Accounts: w.acc}))
	res := b.do("GET", "/dashboard/", nil)
	wantStatus(t, res, http.StatusSeeOther)
	if loc := res.Header.Get("Location"); loc != "/dashboard/login" {
		t.Fatalf("redirect to %q", loc)
	}
	wantStatus(t, b.do("GET", "/dashboard/nope", nil), http.StatusNotFound)
	res = b.do("GET", "/dashboard", nil)
	wantStatus(t, res, http.StatusMovedPermanently)
	if loc := res.Header.Get("Location"); loc != "/dashboard/" {
		t.Fatalf("GET /dashboard redirects to %q", loc)
	}
	res = b.do("GET", "/dashboard/assets/dashboard.css", nil)
	wantStatus(t, res, http.StatusOK)
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/css") {
		t.Fatalf("stylesheet Content-Type %q", ct)
	}
	// The operator's landing page names no merchant.
	wantStatus(t, b.login(op.Email, password), http.StatusSeeOther)
	res = b.do("GET", "/dashboard/", nil)
	wantStatus(t, res, http.StatusOK)
	if page := body(t, res); !strings.Contains(page, "(operator), the operator of every merchant") {
		t.Fatalf("operator's landing page:\n%s", page)
	}
}
