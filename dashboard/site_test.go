package dashboard_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/dashboard"
	"github.com/rampway/rampway/internal/app/apptest"
	"github.com/rampway/rampway/internal/browsertest"
	"github.com/rampway/rampway/merchant"
)

// site is the whole service running (apptest: SQLite, the embedded chain, every worker) with a
// merchant and a dashboard user of each role: what the page tests walk, over real HTTP.
type site struct {
	*apptest.Env
	Merchant *rampway.Merchant
	// Users are the signed-up users by role; each has the password sitePassword.
	Users map[rampway.DashboardRole]*rampway.DashboardUser
	// Other is a second merchant, whose data no user of Merchant may see.
	Other *rampway.Merchant
}

const sitePassword = "correct horse battery staple"

// newSite starts the service and signs up a user of each role (the operator belongs to no
// merchant): owner@shop.example, developer@, support@, viewer@ and operator@ops.example.
func newSite(t *testing.T) *site {
	t.Helper()
	s := &site{Env: apptest.Start(t, nil), Users: map[rampway.DashboardRole]*rampway.DashboardUser{}}
	ctx := t.Context()
	var err error
	if s.Merchant, err = s.App.Merchants.Create(ctx, merchant.CreateParams{Name: "Shop"}); err != nil {
		t.Fatal(err)
	}
	if s.Other, err = s.App.Merchants.Create(ctx, merchant.CreateParams{Name: "Other shop"}); err != nil {
		t.Fatal(err)
	}
	acc := dashboard.NewAccounts(s.App.Store, dashboard.Config{}, nil)
	for _, role := range rampway.DashboardRoles {
		p := dashboard.NewUser{MerchantID: s.Merchant.ID, Email: string(role) + "@shop.example", Role: role, Password: sitePassword}
		if role == rampway.RoleOperator {
			p.MerchantID, p.Email = "", "operator@ops.example"
		}
		u, err := acc.CreateUser(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		s.Users[role] = u
	}
	return s
}

// agent is a browser without JavaScript: an HTTP client with a cookie jar, signed in as a user.
type agent struct {
	t    *testing.T
	base string
	c    *http.Client
	// Token is the session's CSRF token, read from the first signed-in page.
	Token string
}

// as signs in as the user of role and returns its agent.
func (s *site) as(t *testing.T, role rampway.DashboardRole) *agent {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	a := &agent{t: t, base: s.Base, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	_, page := a.get("/dashboard/login")
	res, _ := a.post("/dashboard/login", url.Values{"csrf_token": {csrfOf(t, page)}, "email": {s.Users[role].Email}, "password": {sitePassword}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign in as %s: status %d", role, res.StatusCode)
	}
	res, page = a.get("/dashboard/")
	if res.StatusCode == http.StatusSeeOther { // to the overview
		_, page = a.get(res.Header.Get("Location"))
	}
	a.Token = csrfOf(t, page)
	return a
}

// get fetches a page and returns the answer and its body.
func (a *agent) get(path string) (*http.Response, string) {
	a.t.Helper()
	res, err := a.c.Get(a.base + path)
	if err != nil {
		a.t.Fatal(err)
	}
	return res, readAll(a.t, res)
}

// post sends a form (without adding the CSRF token: form sets it or not) and returns the
// answer and its body.
func (a *agent) post(path string, form url.Values) (*http.Response, string) {
	a.t.Helper()
	res, err := a.c.PostForm(a.base+path, form)
	if err != nil {
		a.t.Fatal(err)
	}
	return res, readAll(a.t, res)
}

// submit posts a form with the session's CSRF token.
func (a *agent) submit(path string, form url.Values) (*http.Response, string) {
	a.t.Helper()
	if form == nil {
		form = url.Values{}
	}
	form.Set("csrf_token", a.Token)
	return a.post(path, form)
}

func readAll(t *testing.T, res *http.Response) string {
	t.Helper()
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func csrfOf(t *testing.T, page string) string {
	t.Helper()
	m := csrfInput.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no csrf_token in the page:\n%s", page)
	}
	return m[1]
}

// chromium starts a headless Chromium signed in to the site as the user of role, on the start page.
func (s *site) chromium(t *testing.T, role rampway.DashboardRole) context.Context {
	t.Helper()
	return s.chromiumAt(t, role, "/dashboard/")
}

// chromiumAt starts a headless Chromium signed in as the user of role through the sign-in form,
// which then goes to path (its next).
func (s *site) chromiumAt(t *testing.T, role rampway.DashboardRole, path string) context.Context {
	t.Helper()
	ctx := browsertest.New(t)
	browsertest.Do(t, ctx,
		chromedp.Navigate(s.Base+"/dashboard/login?next="+url.QueryEscape(path)),
		chromedp.WaitVisible(chromedp.ID("email")),
		chromedp.SendKeys(chromedp.ID("email"), s.Users[role].Email),
		chromedp.SendKeys(chromedp.ID("password"), sitePassword),
		chromedp.Submit(chromedp.ID("password")),
		chromedp.WaitVisible(chromedp.CSS(`form[action="/dashboard/logout"]`)), // on every signed-in page
	)
	return ctx
}

func TestSiteFrame(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	for _, role := range rampway.DashboardRoles {
		a := s.as(t, role)
		// The mode switch: a POST without the token does nothing; with it, live mode is shown.
		res, _ := a.post("/dashboard/mode", url.Values{"mode": {"live"}, "back": {"/dashboard/"}})
		if res.StatusCode != http.StatusForbidden {
			t.Errorf("mode switch without CSRF token as %s: %d, want 403", role, res.StatusCode)
		}
		res, _ = a.submit("/dashboard/mode", url.Values{"mode": {"live"}, "back": {"https://evil.example/"}})
		if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/dashboard/" {
			t.Errorf("mode switch as %s: %d to %q, want 303 to /dashboard/", role, res.StatusCode, res.Header.Get("Location"))
		}
	}
	a := s.as(t, rampway.RoleViewer)
	if res, _ := a.submit("/dashboard/mode", url.Values{"mode": {"both"}}); res.StatusCode != http.StatusBadRequest {
		t.Errorf("mode both: %d, want 400", res.StatusCode)
	}
	if !strings.HasPrefix(s.Base, "http://127.0.0.1") {
		t.Fatalf("base %s", s.Base)
	}
}

// TestFrameInChromium signs in with a real browser: the sign-in page and the signed-in frame
// (navigation, mode switch) pass the accessibility checks, and the switch shows live mode.
func TestFrameInChromium(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	ctx := browsertest.New(t)
	browsertest.Do(t, ctx, chromedp.Navigate(s.Base+"/dashboard/login"), chromedp.WaitVisible(chromedp.ID("email")))
	browsertest.CheckAccessibility(t, ctx, "the sign-in page")
	browsertest.Screenshot(t, ctx, "login")
	browsertest.Do(t, ctx,
		chromedp.SendKeys(chromedp.ID("email"), s.Users[rampway.RoleOwner].Email),
		chromedp.SendKeys(chromedp.ID("password"), sitePassword),
		chromedp.Submit(chromedp.ID("password")),
		chromedp.WaitVisible(chromedp.CSS("header nav")))
	browsertest.CheckAccessibility(t, ctx, "the signed-in landing page")
	if got := browsertest.Eval[string](t, ctx, `document.getElementById("mode-now").textContent`); got != "Test mode" {
		t.Fatalf("mode shown %q, want Test mode", got)
	}
	browsertest.Do(t, ctx, chromedp.Click(chromedp.CSS(".mode button")))
	browsertest.WaitFor(t, ctx, "live mode shown", `document.getElementById("mode-now") && document.getElementById("mode-now").textContent`, browsertest.Timeout,
		func(s string) bool { return s == "Live mode" })
	browsertest.CheckAccessibility(t, ctx, "the landing page in live mode")
	browsertest.Screenshot(t, ctx, "landing-live")
}
