package dashboard_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain/devchain"
	"github.com/rampway/rampway/client"
	"github.com/rampway/rampway/internal/browsertest"
	"github.com/rampway/rampway/merchant"
)

var (
	testKeyPattern = regexp.MustCompile(`rw_test_[a-z2-7]{32}`)
	secretPattern  = regexp.MustCompile(`whsec_[a-z2-7]+`)
)

// apiStatus is the status of a GET of the merchant API's area A order list with an API key.
func (s *site) apiStatus(t *testing.T, key string) int {
	t.Helper()
	r, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, s.Base+"/mint/merchant/hosted/nftCheckout/orders", nil)
	r.Header.Set("X-API-KEY", key)
	res, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	readAll(t, res)
	return res.StatusCode
}

// auditActions are the actions of the merchant's audit log, oldest first.
func (s *site) auditActions(t *testing.T, merchantID string) []string {
	t.Helper()
	es, err := s.App.Store.AuditEntries(t.Context(), merchantID, rampway.Page{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range slices.Backward(es) {
		if e.Action != "login" && e.Action != "user.create" {
			out = append(out, e.Action)
		}
	}
	return out
}

// A developer creates a test-mode key: shown once, in the POST's answer only, and it
// authenticates against the merchant API until the developer revokes it.
func TestDevelopersAPIKeys(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	a := s.as(t, rampway.RoleDeveloper)
	res, page := a.get("/dashboard/developers")
	if res.StatusCode != http.StatusOK || !strings.Contains(page, "Create a test-mode key") || !strings.Contains(page, "No test-mode key yet") {
		t.Fatalf("developers page: %d\n%s", res.StatusCode, page)
	}
	res, page = a.submit("/dashboard/developers/keys", nil)
	key := testKeyPattern.FindString(page)
	if res.StatusCode != http.StatusCreated || key == "" || res.Header.Get("Location") != "" || res.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("create a key: %d, location %q, cache %q\n%s", res.StatusCode, res.Header.Get("Location"), res.Header.Get("Cache-Control"), page)
	}
	if !strings.Contains(page, `name="back" value="/dashboard/developers"`) {
		t.Fatalf("the mode switch of the key's page goes back to the POST's URL:\n%s", page)
	}
	if got := s.apiStatus(t, key); got != http.StatusOK {
		t.Fatalf("the new key on the merchant API: %d, want 200", got)
	}
	keys, err := s.App.Merchants.APIKeys(t.Context(), s.Merchant.ID)
	if err != nil || len(keys) != 1 || keys[0].Livemode() {
		t.Fatalf("keys: %v, %v", keys, err)
	}
	k := keys[0]
	// Never shown again: the list has its prefix only.
	_, page = a.get("/dashboard/developers")
	if strings.Contains(page, key) || !strings.Contains(page, k.Prefix) || !strings.Contains(page, k.ID) {
		t.Fatalf("the list shows the key or misses its prefix:\n%s", page)
	}

	// Revoking asks first (a GET that changes nothing), then revokes.
	res, page = a.get("/dashboard/developers/keys/" + k.ID + "/revoke")
	if res.StatusCode != http.StatusOK || !strings.Contains(page, "Revoke the key") {
		t.Fatalf("revoke confirmation: %d\n%s", res.StatusCode, page)
	}
	if got := s.apiStatus(t, key); got != http.StatusOK {
		t.Fatalf("the key after the confirmation page: %d, want 200", got)
	}
	res, _ = a.submit("/dashboard/developers/keys/"+k.ID+"/revoke", nil)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/dashboard/developers?done=key-revoked" {
		t.Fatalf("revoke: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	if got := s.apiStatus(t, key); got != http.StatusUnauthorized {
		t.Fatalf("the revoked key on the merchant API: %d, want 401", got)
	}
	_, page = a.get("/dashboard/developers?done=key-revoked")
	if !strings.Contains(page, "The API key is revoked") || !strings.Contains(page, "revoked 20") || strings.Contains(page, "/revoke\"") {
		t.Fatalf("after the revocation:\n%s", page)
	}

	// Another merchant's key, and a key of the other mode, are not found from here.
	other, _, err := s.App.Merchants.IssueAPIKey(t.Context(), s.Other.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	live, _, err := s.App.Merchants.IssueAPIKey(t.Context(), s.Merchant.ID, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{other.ID, live.ID, "key_nope"} {
		if res, _ := a.submit("/dashboard/developers/keys/"+id+"/revoke", nil); res.StatusCode != http.StatusNotFound {
			t.Errorf("revoke %s: %d, want 404", id, res.StatusCode)
		}
	}
	if ks, _ := s.App.Merchants.APIKeys(t.Context(), s.Other.ID); ks[0].RevokedAt != nil {
		t.Fatal("another merchant's key was revoked")
	}
	// In live mode, the page lists the live key only, and makes live keys.
	a.submit("/dashboard/mode", url.Values{"mode": {"live"}})
	_, page = a.get("/dashboard/developers")
	if !strings.Contains(page, live.Prefix) || strings.Contains(page, k.Prefix) || !strings.Contains(page, "Create a live-mode key") {
		t.Fatalf("live-mode page:\n%s", page)
	}
	if _, page = a.submit("/dashboard/developers/keys", nil); !regexp.MustCompile(`rw_live_[a-z2-7]{32}`).MatchString(page) {
		t.Fatalf("live key:\n%s", page)
	}
	if got, want := s.auditActions(t, s.Merchant.ID), []string{"api_key.create", "api_key.revoke", "api_key.create"}; !slices.Equal(got, want) {
		t.Fatalf("audit log %v, want %v", got, want)
	}
}

// An operator acts for the merchant it picked, never another.
func TestDevelopersOperator(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	a := s.as(t, rampway.RoleOperator)
	res, page := a.get("/dashboard/developers?merchant=" + s.Other.ID)
	if res.StatusCode != http.StatusOK || !strings.Contains(page, `name="merchant" value="`+s.Other.ID+`"`) {
		t.Fatalf("operator's page of the other merchant: %d\n%s", res.StatusCode, page)
	}
	res, _ = a.submit("/dashboard/developers/keys", url.Values{"merchant": {s.Other.ID}})
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("operator creates a key: %d", res.StatusCode)
	}
	mine, _ := s.App.Merchants.APIKeys(t.Context(), s.Merchant.ID)
	others, _ := s.App.Merchants.APIKeys(t.Context(), s.Other.ID)
	if len(mine) != 0 || len(others) != 1 {
		t.Fatalf("keys: %d of Shop, %d of the other, want 0 and 1", len(mine), len(others))
	}
	res, _ = a.submit("/dashboard/developers/keys/"+others[0].ID+"/revoke", url.Values{"merchant": {s.Other.ID}})
	if loc := res.Header.Get("Location"); res.StatusCode != http.StatusSeeOther || loc != "/dashboard/developers?done=key-revoked&merchant="+s.Other.ID {
		t.Fatalf("operator revokes: %d to %q", res.StatusCode, loc)
	}
	if got := s.auditActions(t, s.Other.ID); !slices.Equal(got, []string{"api_key.create", "api_key.revoke"}) {
		t.Fatalf("the other merchant's audit log: %v", got)
	}
}

// hookServer records the webhook deliveries it answers 200 to.
type hookServer struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []string
}

func newHookServer(t *testing.T) *hookServer {
	h := &hookServer{}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		h.bodies = append(h.bodies, string(b))
		h.mu.Unlock()
	}))
	t.Cleanup(h.Close)
	return h
}

// orderFor creates a card-paid order of one mint of the dev chain's NFT for the merchant (the
// function registered first): its order.created event is a webhook delivery when the merchant
// has a webhook URL and a test-mode secret.
func (s *site) orderFor(t *testing.T, m *rampway.Merchant) string {
	t.Helper()
	return s.CardMintFor(t, m).Order.ID
}

// waitDelivered waits until the merchant's latest test-mode webhook delivery is delivered.
func (s *site) waitDelivered(t *testing.T, merchantID string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ds, err := s.App.Store.WebhookLog(t.Context(), merchantID, false, 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(ds) > 0 && ds[0].Status == rampway.DeliveryDelivered {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no delivery delivered: %+v", ds)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// testReceiver records the POSTs it gets (body and signature) and answers with its status.
type testReceiver struct {
	*httptest.Server
	mu     sync.Mutex
	status int
	hits   []testHit
}

type testHit struct {
	method, sig string
	body        []byte
}

func newTestReceiver(t *testing.T) *testReceiver {
	rc := &testReceiver{status: http.StatusOK}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		defer rc.mu.Unlock()
		rc.hits = append(rc.hits, testHit{r.Method, r.Header.Get(client.SignatureHeader), b})
		w.WriteHeader(rc.status)
	}))
	t.Cleanup(rc.Close)
	return rc
}

// answer sets the status it answers with.
func (rc *testReceiver) answer(status int) {
	rc.mu.Lock()
	rc.status = status
	rc.mu.Unlock()
}

// take returns the POSTs received since the last take.
func (rc *testReceiver) take() []testHit {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	h := rc.hits
	rc.hits = nil
	return h
}

var testEventNotice = regexp.MustCompile(`Test event (evt_[a-z0-9]+) sent: HTTP 200 in \d+ ms`)

// "Send test event" posts one webhook.test event to the merchant's URL, signed with its secret
// of the mode shown, and shows the receiver's answer on the page: a 200, a 500 (a 200 page
// naming it), no answer at all. Without a URL or a secret of the mode nothing is sent (400);
// roles without the developers' rights and forms without the CSRF token get 403. Each event
// sent is audited; none is in the event log.
func TestDevelopersTestEvent(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	a := s.as(t, rampway.RoleOwner)
	_, page := a.get("/dashboard/developers")
	if strings.Contains(page, "Send test event") {
		t.Fatalf("a test event offered without a URL:\n%s", page)
	}
	if res, page := a.submit("/dashboard/developers/test-event", nil); res.StatusCode != http.StatusBadRequest || !strings.Contains(page, "No webhook URL is saved") {
		t.Fatalf("without a URL: %d\n%s", res.StatusCode, page)
	}
	rc := newTestReceiver(t)
	a.submit("/dashboard/developers/webhook-url", url.Values{"webhook_url": {rc.URL + "/hooks"}})
	if res, page := a.submit("/dashboard/developers/test-event", nil); res.StatusCode != http.StatusBadRequest || !strings.Contains(page, "No test-mode webhook secret") {
		t.Fatalf("without a secret: %d\n%s", res.StatusCode, page)
	}
	_, page = a.submit("/dashboard/developers/webhook-secret", url.Values{"grace": {"0s"}})
	secret := secretPattern.FindString(page)
	if _, page = a.get("/dashboard/developers"); !strings.Contains(page, `action="/dashboard/developers/test-event"`) || !strings.Contains(page, "Send test event") {
		t.Fatalf("no test event button with a URL and a secret:\n%s", page)
	}

	// Sent: one POST, signed with the test-mode secret, the page says so.
	res, page := a.submit("/dashboard/developers/test-event", nil)
	match := testEventNotice.FindStringSubmatch(page)
	if res.StatusCode != http.StatusOK || match == nil || !strings.Contains(page, `class="notice"`) {
		t.Fatalf("send: %d\n%s", res.StatusCode, page)
	}
	id := match[1]
	hits := rc.take()
	if len(hits) != 1 || hits[0].method != http.MethodPost {
		t.Fatalf("the receiver got %+v, want one POST", hits)
	}
	ev, err := client.VerifyWebhook(secret, hits[0].body, hits[0].sig, time.Now())
	if err != nil {
		t.Fatalf("not signed with the merchant's test-mode secret: %v", err)
	}
	var c struct {
		MerchantID string  `json:"merchant_id"`
		Livemode   *bool   `json:"livemode"`
		OrderID    *string `json:"order_id"`
	}
	if err := ev.DecodeContext(&c); err != nil || ev.ID != id || ev.Name != "webhook.test" || c.MerchantID != s.Merchant.ID ||
		c.Livemode == nil || *c.Livemode || c.OrderID != nil || ev.Timestamp.IsZero() {
		t.Fatalf("event %+v, context %+v, %v", ev, c, err)
	}
	if ds, err := s.App.Store.WebhookLog(t.Context(), s.Merchant.ID, false, 0, 10); err != nil || len(ds) != 0 {
		t.Fatalf("the test event is in the event log: %+v, %v", ds, err)
	}

	// A receiver answering 500: a 200 page naming it, sent once (not retried).
	rc.answer(http.StatusInternalServerError)
	res, page = a.submit("/dashboard/developers/test-event", nil)
	if res.StatusCode != http.StatusOK || !regexp.MustCompile(`<p class="error" role="alert">Test event evt_[a-z0-9]+ failed: your endpoint answered HTTP 500 Internal Server Error in \d+ ms`).MatchString(page) {
		t.Fatalf("a 500: %d\n%s", res.StatusCode, page)
	}
	if hits := rc.take(); len(hits) != 1 {
		t.Fatalf("the receiver got %d POSTs, want 1", len(hits))
	}
	// No answer at all: the transport's error.
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	a.submit("/dashboard/developers/webhook-url", url.Values{"webhook_url": {gone.URL}})
	if res, page = a.submit("/dashboard/developers/test-event", nil); res.StatusCode != http.StatusOK || !strings.Contains(page, "could not be delivered after") {
		t.Fatalf("no receiver: %d\n%s", res.StatusCode, page)
	}
	a.submit("/dashboard/developers/webhook-url", url.Values{"webhook_url": {rc.URL + "/hooks"}})

	// Refused: without the CSRF token, to roles without the developers' rights, and in live
	// mode without a live-mode secret.
	if res, _ := a.post("/dashboard/developers/test-event", url.Values{}); res.StatusCode != http.StatusForbidden {
		t.Fatalf("without the CSRF token: %d, want 403", res.StatusCode)
	}
	for _, role := range []rampway.DashboardRole{rampway.RoleViewer, rampway.RoleSupport} {
		if res, _ := s.as(t, role).submit("/dashboard/developers/test-event", nil); res.StatusCode != http.StatusForbidden {
			t.Fatalf("%s: %d, want 403", role, res.StatusCode)
		}
	}
	a.submit("/dashboard/mode", url.Values{"mode": {"live"}})
	if res, page := a.submit("/dashboard/developers/test-event", nil); res.StatusCode != http.StatusBadRequest || !strings.Contains(page, "No live-mode webhook secret") {
		t.Fatalf("live mode without a live secret: %d\n%s", res.StatusCode, page)
	}
	if hits := rc.take(); len(hits) != 0 {
		t.Fatalf("refused forms sent %d POSTs", len(hits))
	}

	// Audited: each event sent, its id the subject, its outcome the detail.
	es, err := s.App.Store.AuditEntries(t.Context(), s.Merchant.ID, rampway.Page{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var tests []string
	for _, e := range slices.Backward(es) {
		if e.Action == "webhook.test" {
			tests = append(tests, e.Detail)
			if !strings.HasPrefix(e.Subject, "evt_") || (len(tests) == 1 && e.Subject != id) {
				t.Fatalf("audit entry %+v", e)
			}
		}
	}
	if len(tests) != 3 || tests[0] != "test mode, HTTP 200" || tests[1] != "test mode, HTTP 500" || !strings.HasPrefix(tests[2], "test mode, no answer: ") {
		t.Fatalf("audited test events: %q", tests)
	}
}

// The webhook URL is checked as the admin API checks it; the secret rotates with an overlap,
// shown once; the event log lists the deliveries, newest first.
func TestDevelopersWebhooks(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	a := s.as(t, rampway.RoleOwner)
	// Refused as merchant.CheckWebhookURL refuses them (dev mode: loopback and private
	// addresses are allowed, link-local ones never), the value shown again.
	for _, bad := range []string{"http://169.254.169.254/latest/meta-data", "ftp://shop.example/hooks", "https://user:pw@shop.example/"} {
		res, page := a.submit("/dashboard/developers/webhook-url", url.Values{"webhook_url": {bad}})
		want := rampway.ErrorMessage(merchant.CheckWebhookURL("webhook_url", bad, true))
		if res.StatusCode != http.StatusBadRequest || !strings.Contains(page, want) || !strings.Contains(page, `value="`+strings.ReplaceAll(bad, "&", "&amp;")+`"`) {
			t.Errorf("webhook URL %s: %d, want 400 with %q\n%s", bad, res.StatusCode, want, page)
		}
	}
	hooks := newHookServer(t)
	res, _ := a.submit("/dashboard/developers/webhook-url", url.Values{"webhook_url": {hooks.URL + "/hooks"}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/dashboard/developers?done=webhook-url" {
		t.Fatalf("set the webhook URL: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	m, _ := s.App.Merchants.Get(t.Context(), s.Merchant.ID)
	if m.WebhookURL != hooks.URL+"/hooks" {
		t.Fatalf("webhook URL %q", m.WebhookURL)
	}
	_, page := a.get("/dashboard/developers")
	if !strings.Contains(page, hooks.URL+"/hooks") || !strings.Contains(page, "No test-mode webhook secret") {
		t.Fatalf("page with a URL and no secret:\n%s", page)
	}

	// Rotation: an unknown window is refused; the first secret; then a rotation with 24 hours
	// of overlap, during which both sign.
	if res, page := a.submit("/dashboard/developers/webhook-secret", url.Values{"grace": {"1000h"}}); res.StatusCode != http.StatusBadRequest ||
		!strings.Contains(page, "one of the windows offered") {
		t.Fatalf("grace 1000h: %d\n%s", res.StatusCode, page)
	}
	res, page = a.submit("/dashboard/developers/webhook-secret", url.Values{"grace": {"0s"}})
	first := secretPattern.FindString(page)
	if res.StatusCode != http.StatusCreated || first == "" || res.Header.Get("Cache-Control") != "no-store" || !strings.Contains(page, "The old secret signs no more") {
		t.Fatalf("first secret: %d\n%s", res.StatusCode, page)
	}
	res, page = a.submit("/dashboard/developers/webhook-secret", url.Values{"grace": {"24h"}})
	second := secretPattern.FindString(page)
	if res.StatusCode != http.StatusCreated || second == "" || second == first || !strings.Contains(page, "signed by both the old and the new secret") {
		t.Fatalf("rotation: %d\n%s", res.StatusCode, page)
	}
	m, _ = s.App.Merchants.Get(t.Context(), s.Merchant.ID)
	if got := m.WebhookSecrets(false, time.Now()); !slices.Equal(got, []string{second, first}) {
		t.Fatalf("secrets signing now: %v, want the new then the old", got)
	}
	_, page = a.get("/dashboard/developers")
	if strings.Contains(page, first) || strings.Contains(page, second) || !strings.Contains(page, "The one it replaced also signs them until") {
		t.Fatalf("developers page after the rotation:\n%s", page)
	}

	// The event log: an order's first event, delivered to the URL.
	res, page = a.get("/dashboard/developers/events")
	if res.StatusCode != http.StatusOK || !strings.Contains(page, "No webhook delivery yet") {
		t.Fatalf("empty event log: %d\n%s", res.StatusCode, page)
	}
	orderID := s.orderFor(t, s.Merchant)
	s.waitDelivered(t, s.Merchant.ID)
	_, page = a.get("/dashboard/developers/events")
	for _, want := range []string{"order.created", `href="/dashboard/orders/` + orderID + `"`, ">delivered<", ">200<"} {
		if !strings.Contains(page, want) {
			t.Errorf("event log lacks %s:\n%s", want, page)
		}
	}
	ds, _ := s.App.Store.WebhookLog(t.Context(), s.Merchant.ID, false, 0, 10)
	if _, page = a.get("/dashboard/developers/events?before=" + strconv.FormatInt(ds[len(ds)-1].EventSeq, 10)); !strings.Contains(page, "No webhook delivery before these") ||
		!strings.Contains(page, `href="/dashboard/developers/events">Newest<`) {
		t.Fatalf("the page before the oldest:\n%s", page)
	}
	if res, _ = a.get("/dashboard/developers/events?before=x"); res.StatusCode != http.StatusBadRequest {
		t.Fatalf("before=x: %d, want 400", res.StatusCode)
	}
	// The other mode's log is another.
	a.submit("/dashboard/mode", url.Values{"mode": {"live"}})
	if _, page = a.get("/dashboard/developers/events"); strings.Contains(page, orderID) {
		t.Fatal("a test-mode delivery in the live-mode log")
	}
	if got, want := s.auditActions(t, s.Merchant.ID), []string{"webhook_url.set", "webhook_secret.rotate", "webhook_secret.rotate"}; !slices.Equal(got, want) {
		t.Fatalf("audit log %v, want %v", got, want)
	}
}

// Chromium walks both sections as an owner: keys, the webhook, the event log, a registration
// from the NFT's ABI, a deposit address; each page passes the accessibility check and is kept
// as a screenshot.
func TestDevelopersCatalogueBrowser(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	ctx := s.chromium(t, rampway.RoleOwner)
	page := func(path, name string) {
		t.Helper()
		browsertest.Do(t, ctx, chromedp.Navigate(s.Base+path), chromedp.WaitVisible(chromedp.CSS("h1")))
		browsertest.CheckAccessibility(t, ctx, name)
		browsertest.Screenshot(t, ctx, strings.ReplaceAll(name, " ", "-"))
	}
	// submit clicks a form's button and waits for the page it leads to: a new document (the
	// one clicked on is marked) showing wait.
	submit := func(button, wait, name string) {
		t.Helper()
		browsertest.Eval[bool](t, ctx, `window.clickedOn = true`)
		browsertest.Do(t, ctx, chromedp.Click(chromedp.CSS(button)))
		browsertest.WaitFor(t, ctx, "the page after "+name, `!window.clickedOn && document.readyState === "complete" && document.querySelector(`+
			strconv.Quote(wait)+`) !== null`, browsertest.Timeout, func(ok bool) bool { return ok })
		browsertest.Do(t, ctx, chromedp.WaitVisible(chromedp.CSS(wait)))
		browsertest.CheckAccessibility(t, ctx, name)
		browsertest.Screenshot(t, ctx, strings.ReplaceAll(name, " ", "-"))
	}

	// Developers: a key, shown once; the webhook URL; a secret; the event log.
	page("/dashboard/developers", "developers")
	submit(`form[action="/dashboard/developers/keys"] button`, "#api-key", "developers new key")
	key := browsertest.Eval[string](t, ctx, `document.querySelector("#api-key code").textContent`)
	if !testKeyPattern.MatchString(key) || s.apiStatus(t, key) != http.StatusOK {
		t.Fatalf("key %q from the page", key)
	}
	page("/dashboard/developers", "developers with a key")
	browsertest.Do(t, ctx, chromedp.SetValue(chromedp.ID("webhook_url"), "http://169.254.169.254/hooks"))
	submit(`form[action="/dashboard/developers/webhook-url"] button`, `p.error[role="alert"]`, "developers refused webhook URL")
	hooks := newHookServer(t)
	browsertest.Do(t, ctx, chromedp.SetValue(chromedp.ID("webhook_url"), hooks.URL+"/hooks"))
	submit(`form[action="/dashboard/developers/webhook-url"] button`, ".notice", "developers webhook URL saved")
	submit(`form[action="/dashboard/developers/webhook-secret"] button`, "#webhook-secret", "developers new secret")
	page("/dashboard/developers", "developers with a secret")
	submit(`form[action="/dashboard/developers/test-event"] button`, ".notice", "developers test event sent")
	if got := browsertest.Eval[string](t, ctx, `document.querySelector(".notice").textContent`); !testEventNotice.MatchString(got) {
		t.Fatalf("test event notice %q", got)
	}
	s.orderFor(t, s.Merchant)
	s.waitDelivered(t, s.Merchant.ID)
	page("/dashboard/developers/events", "developers event log")
	if got := browsertest.Eval[string](t, ctx, `document.querySelector("td.status").textContent`); got != "delivered" {
		t.Fatalf("event log status %q", got)
	}
	page("/dashboard/developers/keys/"+func() string { ks, _ := s.App.Merchants.APIKeys(t.Context(), s.Merchant.ID); return ks[0].ID }()+"/revoke",
		"developers revoke key")
	submit(`form[action$="/revoke"] button`, ".notice", "developers key revoked")

	// Catalogue: the NFT's whole ABI, mint picked, registered; a deposit address.
	page("/dashboard/catalogue", "catalogue")
	browsertest.Do(t, ctx,
		chromedp.SetValue(chromedp.ID("contract_address"), s.Chain.Contracts().NFT.Hex()),
		chromedp.SetValue(chromedp.ID("abi"), devchain.NFTABI()))
	submit(`form[action="/dashboard/catalogue/abi"] button`, `button[id^="pick-mint"]`, "catalogue pick a function")
	submit(`button[id^="pick-mint"]`, "#default_gas_limit", "catalogue register mint")
	browsertest.Do(t, ctx, chromedp.SetValue(chromedp.ID("display_name"), `<img src=x onerror=alert(1)>Demo NFT`))
	submit(`form[action="/dashboard/catalogue/functions"] button`, ".notice", "catalogue function registered")
	if n := browsertest.Eval[int](t, ctx, `document.querySelectorAll("main img").length`); n != 0 {
		t.Fatalf("the display name made %d img elements", n)
	}
	page("/dashboard/catalogue", "catalogue with a function")
	browsertest.Do(t, ctx, chromedp.SetValue(chromedp.ID("address"), "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"))
	submit(`form[action="/dashboard/catalogue/deposit-addresses"] button`, ".notice", "catalogue deposit address saved")
	fs, _ := s.App.Functions.List(t.Context(), s.Merchant.ID) // the event log's order's, and the one registered here
	if len(fs) != 2 || fs[1].DisplayName != `<img src=x onerror=alert(1)>Demo NFT` {
		t.Fatalf("functions %+v", fs)
	}
	if ds, _ := s.App.Store.MerchantDepositAddresses(t.Context(), s.Merchant.ID); len(ds) != 1 || ds[0].Symbol != "ETH" {
		t.Fatalf("deposit addresses %+v", ds)
	}
}
