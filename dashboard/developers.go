package dashboard

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/merchant"
)

// Merchants are the merchant use cases the dashboard calls (merchant.Service: the operator's
// merchant picker, API keys, the webhook URL and secrets) and the store's webhook event log.
type Merchants interface {
	List(ctx context.Context, p rampway.Page) ([]*rampway.Merchant, error)
	Update(ctx context.Context, id string, p merchant.UpdateParams) (*rampway.Merchant, error)
	APIKeys(ctx context.Context, merchantID string) ([]*rampway.APIKey, error)
	IssueAPIKey(ctx context.Context, merchantID string, livemode bool) (*rampway.APIKey, string, error)
	RevokeAPIKey(ctx context.Context, merchantID, keyID string) (*rampway.APIKey, error)
	SetWebhookSecret(ctx context.Context, merchantID string, livemode bool, secret string, grace time.Duration) (string, error)
	rampway.WebhookLogStore
}

// TestEvents sends a merchant's endpoint a webhook.test event (webhook.Dispatcher.SendTest):
// one POST of body to url, signed with the merchant's current secrets of the mode as that
// mode's deliveries are; not stored, not retried. status is the answer's (0 when none came);
// err is nil for a 2xx.
type TestEvents interface {
	SendTest(ctx context.Context, merchantID string, livemode bool, url string, body []byte) (status int, err error)
}

// eventLogPage is how many deliveries a page of the event log shows.
const eventLogPage = 50

// graceChoices are the overlap windows offered when a webhook secret is rotated: how long the
// replaced secret keeps signing deliveries beside the new one (merchant.MaxSecretGrace at most).
var graceChoices = []struct {
	Value, Label string
}{
	{"0s", "None: the old secret stops at once"},
	{"1h", "1 hour"},
	{"24h", "24 hours"},
	{"72h", "3 days"},
	{"168h", "7 days"},
}

// doneNotices are the notices a page shows after a form redirected to it (?done=...): fixed
// texts, never one taken from the request.
var doneNotices = map[string]string{
	"key-revoked":         "The API key is revoked: it authenticates no more.",
	"webhook-url":         "The webhook URL is saved.",
	"function-registered": "The function is registered: orders may use it by its id.",
	"function-off":        "The function is disabled: new orders cannot use it (orders already paid still execute).",
	"function-shown":      "The function's display name and picture are saved.",
	"deposit-set":         "The deposit address is saved.",
	"deposit-removed":     "The deposit address is removed: area C orders for that asset are refused until another is set.",
}

// routeDevelopers registers the developers pages: API keys, the webhook URL and secret, the
// event log.
func (h *Handler) routeDevelopers() {
	if h.d.Merchants == nil {
		return
	}
	dev := func(fn func(http.ResponseWriter, *http.Request, *req)) http.HandlerFunc {
		return h.handle(rampway.DashDevelopers, fn)
	}
	h.mux.HandleFunc("GET /dashboard/developers", dev(h.developers))
	h.mux.HandleFunc("POST /dashboard/developers/keys", dev(h.createKey))
	h.mux.HandleFunc("GET /dashboard/developers/keys/{key}/revoke", dev(h.confirmRevokeKey))
	h.mux.HandleFunc("POST /dashboard/developers/keys/{key}/revoke", dev(h.revokeKey))
	h.mux.HandleFunc("POST /dashboard/developers/webhook-url", dev(h.setWebhookURL))
	h.mux.HandleFunc("POST /dashboard/developers/webhook-secret", dev(h.rotateWebhookSecret))
	h.mux.HandleFunc("GET /dashboard/developers/events", dev(h.eventLog))
	if h.d.TestEvents != nil {
		h.mux.HandleFunc("POST /dashboard/developers/test-event", dev(h.sendTestEvent))
	}
}

// developersData is the developers page: the merchant's API keys of the mode shown, its
// webhook URL, and the state of its webhook secret of that mode.
type developersData struct {
	Keys []*rampway.APIKey
	// WebhookURL is the URL field's value: the merchant's, or what a refused form sent.
	WebhookURL string
	// HasSecret, SecretSetAt and PreviousUntil are the webhook secret of the mode shown: whether
	// there is one, since when, and until when the one it replaced still signs (nil: none does).
	HasSecret     bool
	SecretSetAt   *time.Time
	PreviousUntil *time.Time
	// Graces are the overlap windows offered for a rotation, Grace the one selected.
	Graces []struct{ Value, Label string }
	Grace  string
	// MerchantQuery is "?merchant=<id>" for an operator (the links keep the merchant), else "".
	MerchantQuery string
	// TestEvents is whether the page offers to send a test event (the dashboard can send them);
	// SavedURL is the merchant's saved webhook URL, where one goes.
	TestEvents bool
	SavedURL   string
}

// merchantQuery is the query that keeps an operator's merchant on a link: "?merchant=<id>",
// or "" for a merchant's own user.
func merchantQuery(q *req) string {
	if q.User.MerchantID != "" || q.Merchant == nil {
		return ""
	}
	return "?merchant=" + url.QueryEscape(q.Merchant.ID)
}

// seeOther answers a form that did what it asked with a redirect to path (of the dashboard),
// keeping an operator's merchant, and a notice named by done (doneNotices).
func seeOther(w http.ResponseWriter, r *http.Request, q *req, path, done string) {
	v := url.Values{}
	if merchantQuery(q) != "" {
		v.Set("merchant", q.Merchant.ID)
	}
	if done != "" {
		v.Set("done", done)
	}
	if len(v) > 0 {
		path += "?" + v.Encode()
	}
	http.Redirect(w, r, path, http.StatusSeeOther)
}

// needMerchant answers 404 when the request has no merchant (an operator of no merchant yet)
// and reports whether it did.
func (h *Handler) needMerchant(w http.ResponseWriter, q *req) bool {
	if q.Merchant == nil {
		h.notFound(w, q)
		return true
	}
	return false
}

// developers shows the developers page.
func (h *Handler) developers(w http.ResponseWriter, r *http.Request, q *req) {
	if h.needMerchant(w, q) {
		return
	}
	h.showDevelopers(w, r, q, http.StatusOK, doneNotices[r.URL.Query().Get("done")], "", nil)
}

// showDevelopers renders the developers page with a notice or an error; form, when not nil, is
// a refused form whose values the page shows again.
func (h *Handler) showDevelopers(w http.ResponseWriter, r *http.Request, q *req, status int, notice, msg string, form url.Values) {
	keys, err := h.d.Merchants.APIKeys(r.Context(), q.Merchant.ID)
	if err != nil {
		h.userError(w, r, q, err)
		return
	}
	d := developersData{WebhookURL: q.Merchant.WebhookURL, Graces: graceChoices, Grace: "24h", MerchantQuery: merchantQuery(q),
		TestEvents: h.d.TestEvents != nil, SavedURL: q.Merchant.WebhookURL}
	for _, k := range keys {
		if k.Livemode() == q.Livemode {
			d.Keys = append(d.Keys, k)
		}
	}
	m := q.Merchant
	d.HasSecret = m.HasWebhookSecret(q.Livemode)
	d.SecretSetAt, d.PreviousUntil = m.WebhookSecretSetAt, m.PreviousSecretExpiresAt
	prev := m.PreviousWebhookSecret
	if q.Livemode {
		d.SecretSetAt, d.PreviousUntil, prev = m.LiveWebhookSecretSetAt, m.PreviousLiveSecretExpiresAt, m.PreviousLiveWebhookSecret
	}
	if prev == "" || d.PreviousUntil == nil || !d.PreviousUntil.After(time.Now()) {
		d.PreviousUntil = nil
	}
	if form != nil {
		if _, ok := form["webhook_url"]; ok {
			d.WebhookURL = form.Get("webhook_url")
		}
		if g := form.Get("grace"); g != "" {
			d.Grace = g
		}
	}
	h.show(w, r, q, status, "developers.html", view{Title: "Developers", Section: "developers", Notice: notice, Error: msg, Data: d,
		Path: "/dashboard/developers" + d.MerchantQuery})
}

// developersError answers a refused form: a mistake in a field (EINVALID) on the page itself,
// with its message and the values sent; anything else as userError does.
func (h *Handler) developersError(w http.ResponseWriter, r *http.Request, q *req, err error) {
	if rampway.ErrorCode(err) == rampway.EINVALID {
		h.showDevelopers(w, r, q, http.StatusBadRequest, "", rampway.ErrorMessage(err), r.PostForm)
		return
	}
	h.userError(w, r, q, err)
}

// createKey issues an API key of the mode shown and answers with it in clear: the only time it
// is ever shown (the answer is not cached, and the key is in no URL).
func (h *Handler) createKey(w http.ResponseWriter, r *http.Request, q *req) {
	if h.needMerchant(w, q) {
		return
	}
	k, raw, err := h.d.Merchants.IssueAPIKey(r.Context(), q.Merchant.ID, q.Livemode)
	if err != nil {
		h.developersError(w, r, q, err)
		return
	}
	h.audit(r.Context(), q, "api_key.create", k.ID, fmt.Sprintf("%s key %s", q.Mode(), k.Prefix))
	w.Header().Set("Cache-Control", "no-store")
	h.show(w, r, q, http.StatusCreated, "developers_key.html", view{Title: "New API key", Section: "developers", Path: "/dashboard/developers" + merchantQuery(q),
		Data: struct {
			Key           *rampway.APIKey
			Secret        string
			MerchantQuery string
		}{k, raw, merchantQuery(q)}})
}

// modeKey returns the merchant's API key id of the mode shown; ENOTFOUND for another mode's,
// another merchant's or none.
func (h *Handler) modeKey(ctx context.Context, q *req, id string) (*rampway.APIKey, error) {
	keys, err := h.d.Merchants.APIKeys(ctx, q.Merchant.ID)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		if k.ID == id && k.Livemode() == q.Livemode {
			return k, nil
		}
	}
	return nil, rampway.Errorf(rampway.ENOTFOUND, "API key %q not found", id)
}

// confirmRevokeKey asks whether to revoke a key (a GET changes nothing).
func (h *Handler) confirmRevokeKey(w http.ResponseWriter, r *http.Request, q *req) {
	if h.needMerchant(w, q) {
		return
	}
	k, err := h.modeKey(r.Context(), q, r.PathValue("key"))
	if err != nil {
		h.userError(w, r, q, err)
		return
	}
	h.show(w, r, q, http.StatusOK, "developers_revoke.html", view{Title: "Revoke an API key", Section: "developers",
		Data: struct {
			Key           *rampway.APIKey
			MerchantQuery string
		}{k, merchantQuery(q)}})
}

// revokeKey revokes a key of the mode shown at once.
func (h *Handler) revokeKey(w http.ResponseWriter, r *http.Request, q *req) {
	if h.needMerchant(w, q) {
		return
	}
	k, err := h.modeKey(r.Context(), q, r.PathValue("key"))
	if err == nil && k.Active() {
		_, err = h.d.Merchants.RevokeAPIKey(r.Context(), q.Merchant.ID, k.ID)
		if err == nil {
			h.audit(r.Context(), q, "api_key.revoke", k.ID, fmt.Sprintf("%s key %s", q.Mode(), k.Prefix))
		}
	}
	if err != nil {
		h.userError(w, r, q, err)
		return
	}
	seeOther(w, r, q, "/dashboard/developers", "key-revoked")
}

// setWebhookURL sets (or, empty, removes) the merchant's webhook URL, checked as the admin API
// checks it (merchant.CheckWebhookURL: its scheme, and the addresses deliveries may go to).
func (h *Handler) setWebhookURL(w http.ResponseWriter, r *http.Request, q *req) {
	if h.needMerchant(w, q) {
		return
	}
	u := strings.TrimSpace(r.PostForm.Get("webhook_url"))
	if _, err := h.d.Merchants.Update(r.Context(), q.Merchant.ID, merchant.UpdateParams{WebhookURL: &u}); err != nil {
		h.developersError(w, r, q, err)
		return
	}
	detail := "removed"
	if u != "" {
		detail = u
	}
	h.audit(r.Context(), q, "webhook_url.set", q.Merchant.ID, detail)
	seeOther(w, r, q, "/dashboard/developers", "webhook-url")
}

// rotateWebhookSecret gives the merchant a new random webhook secret of the mode shown, the
// replaced one signing beside it for the overlap window chosen, and answers with the new
// secret: the only time it is shown.
func (h *Handler) rotateWebhookSecret(w http.ResponseWriter, r *http.Request, q *req) {
	if h.needMerchant(w, q) {
		return
	}
	choice := r.PostForm.Get("grace")
	known := false
	for _, g := range graceChoices {
		known = known || g.Value == choice
	}
	if !known {
		h.developersError(w, r, q, rampway.FieldErrorf("grace", "Choose how long the old secret keeps signing: one of the windows offered."))
		return
	}
	grace, _ := time.ParseDuration(choice)
	secret, err := h.d.Merchants.SetWebhookSecret(r.Context(), q.Merchant.ID, q.Livemode, "", grace)
	if err != nil {
		h.developersError(w, r, q, err)
		return
	}
	h.audit(r.Context(), q, "webhook_secret.rotate", q.Merchant.ID, fmt.Sprintf("%s secret, old one signs for %s", q.Mode(), grace))
	var until time.Time
	if grace > 0 {
		until = time.Now().Add(grace)
	}
	w.Header().Set("Cache-Control", "no-store")
	h.show(w, r, q, http.StatusCreated, "developers_secret.html", view{Title: "New webhook secret", Section: "developers", Path: "/dashboard/developers" + merchantQuery(q),
		Data: struct {
			Secret        string
			Until         time.Time
			MerchantQuery string
		}{secret, until, merchantQuery(q)}})
}

// sendTestEvent sends a webhook.test event to the merchant's webhook URL, signed with its
// secret of the mode shown, once, and shows the page with the outcome: the receiver's status
// and the time it took, or why it failed (a failing receiver is the merchant's to fix, not an
// error of this page). Without a URL or a secret of the mode nothing is sent: 400. Each event
// sent is audited, with its outcome.
func (h *Handler) sendTestEvent(w http.ResponseWriter, r *http.Request, q *req) {
	if h.needMerchant(w, q) {
		return
	}
	m := q.Merchant
	switch {
	case m.WebhookURL == "":
		h.showDevelopers(w, r, q, http.StatusBadRequest, "", "No webhook URL is saved: save one before sending a test event.", nil)
		return
	case !m.HasWebhookSecret(q.Livemode):
		h.showDevelopers(w, r, q, http.StatusBadRequest, "",
			fmt.Sprintf("No %s-mode webhook secret: make one before sending a test event (events are signed with it).", q.Mode()), nil)
		return
	}
	now := time.Now()
	id := rampway.NewID(rampway.PrefixEvent, now)
	body, err := rampway.TestEventBody(id, m.ID, q.Livemode, now)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	status, err := h.d.TestEvents.SendTest(r.Context(), m.ID, q.Livemode, m.WebhookURL, body)
	ms := time.Since(now).Milliseconds()
	var notice, msg, detail string
	switch {
	case err == nil:
		notice = fmt.Sprintf("Test event %s sent: HTTP %d in %d ms.", id, status, ms)
		detail = fmt.Sprintf("%s mode, HTTP %d", q.Mode(), status)
	case status != 0:
		msg = fmt.Sprintf("Test event %s failed: your endpoint answered HTTP %d %s in %d ms.", id, status, http.StatusText(status), ms)
		detail = fmt.Sprintf("%s mode, HTTP %d", q.Mode(), status)
	default:
		msg = fmt.Sprintf("Test event %s could not be delivered after %d ms: %v.", id, ms, err)
		detail = fmt.Sprintf("%s mode, no answer: %v", q.Mode(), err)
	}
	h.audit(r.Context(), q, "webhook.test", id, detail)
	h.showDevelopers(w, r, q, http.StatusOK, notice, msg, nil)
}

// eventRow is a delivery in the event log.
type eventRow struct {
	*rampway.Delivery
	// OrderHref is the order's page.
	OrderHref string
}

// eventLog shows the merchant's webhook deliveries of the mode shown, the newest event first,
// a page at a time: ?before=<event sequence number> is the page after one.
func (h *Handler) eventLog(w http.ResponseWriter, r *http.Request, q *req) {
	if h.needMerchant(w, q) {
		return
	}
	var before int64
	if b := r.URL.Query().Get("before"); b != "" {
		n, err := strconv.ParseInt(b, 10, 64)
		if err != nil || n < 1 {
			h.badRequest(w, q, "before must be a positive whole number: the event sequence number a page starts before.")
			return
		}
		before = n
	}
	ds, err := h.d.Merchants.WebhookLog(r.Context(), q.Merchant.ID, q.Livemode, before, eventLogPage+1)
	if err != nil {
		h.userError(w, r, q, err)
		return
	}
	mq := merchantQuery(q)
	d := struct {
		Rows          []eventRow
		Next, First   string
		MerchantQuery string
	}{MerchantQuery: mq}
	if len(ds) > eventLogPage {
		ds = ds[:eventLogPage]
		v := url.Values{"before": {strconv.FormatInt(ds[len(ds)-1].EventSeq, 10)}}
		if mq != "" {
			v.Set("merchant", q.Merchant.ID)
		}
		d.Next = "/dashboard/developers/events?" + v.Encode()
	}
	if before != 0 {
		d.First = "/dashboard/developers/events" + mq
	}
	for _, x := range ds {
		d.Rows = append(d.Rows, eventRow{x, "/dashboard/orders/" + url.PathEscape(x.OrderID) + mq})
	}
	h.show(w, r, q, http.StatusOK, "developers_events.html", view{Title: "Event log", Section: "developers", Data: d})
}
