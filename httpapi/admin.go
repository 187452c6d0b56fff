package httpapi

import (
	"bytes"
	"encoding/json"
	"maps"
	"net/http"
	"strconv"
	"time"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/merchant"
)

// MerchantView is a merchant in the admin API (and the admin CLI's output).
type MerchantView struct {
	MerchantID string `json:"merchant_id"`
	Name       string `json:"name"`
	Status     string `json:"status"`
	WebhookURL string `json:"webhook_url"`
	// HasWebhookSecret says the merchant has a webhook secret in at least one mode;
	// WebhookSecretSetAt and PreviousSecretExpiresAt are of the one set last.
	HasWebhookSecret   bool    `json:"has_webhook_secret"`
	WebhookSecretSetAt *string `json:"webhook_secret_set_at"`
	// PreviousSecretExpiresAt is when a rotated secret stops signing deliveries.
	PreviousSecretExpiresAt *string `json:"previous_secret_expires_at"`
	// WebhookSecrets are the secrets' states per mode ("test", "live"): each signs the events
	// of its mode's orders.
	WebhookSecrets map[string]WebhookSecretState `json:"webhook_secrets"`
	// ServiceFeeBPS is the merchant's own service fee in basis points; null means the
	// configured default.
	ServiceFeeBPS *int64 `json:"service_fee_bps"`
	// LogoURL is the merchant's logo on the hosted checkout page; "" for none.
	LogoURL string `json:"logo_url"`
	// RefundPolicy is the merchant's rule for the refunds it asks for, by currency symbol:
	// refunds above approval_above wait for an operator; daily_cap is the most its refunds of
	// a UTC day (of each mode) add up to.
	RefundPolicy map[string]rampway.RefundLimits `json:"refund_policy"`
	CreatedAt    string                          `json:"created_at"`
	UpdatedAt    string                          `json:"updated_at"`
	// Warning, when present, says what about the merchant keeps it from working as its fields
	// suggest: a webhook URL without a webhook secret (NoWebhookSecretWarning).
	Warning string `json:"warning,omitempty"`
}

// NoWebhookSecretWarning is the Warning of a merchant with a webhook URL and no webhook secret,
// for its id: deliveries are signed, so none is sent for it.
func NoWebhookSecretWarning(merchantID string) string {
	return "webhook_url is set but the merchant has no webhook secret: no webhooks will be sent until one is set " +
		"(POST /merchants/" + merchantID + "/webhook-secret on the admin API, or rampway admin webhook-secret rotate " + merchantID + ")"
}

// WebhookSecretState is whether a merchant has a webhook secret of a mode, since when, and
// until when a rotated one still signs.
type WebhookSecretState struct {
	HasWebhookSecret        bool    `json:"has_webhook_secret"`
	WebhookSecretSetAt      *string `json:"webhook_secret_set_at"`
	PreviousSecretExpiresAt *string `json:"previous_secret_expires_at"`
}

// NewMerchantView returns m's admin view; the webhook secrets themselves are never shown.
func NewMerchantView(m *rampway.Merchant) MerchantView {
	v := MerchantView{MerchantID: m.ID, Name: m.Name, Status: string(m.Status), WebhookURL: m.WebhookURL,
		ServiceFeeBPS: m.ServiceFeeBPS, LogoURL: m.LogoURL, RefundPolicy: map[string]rampway.RefundLimits{},
		CreatedAt: m.CreatedAt.UTC().Format(TimeFormat), UpdatedAt: m.UpdatedAt.UTC().Format(TimeFormat),
		WebhookSecrets: map[string]WebhookSecretState{}}
	maps.Copy(v.RefundPolicy, m.RefundPolicies)
	type mode struct {
		live        bool
		secret      string
		setAt       *time.Time
		prev        string
		prevExpires *time.Time
	}
	var last *time.Time
	for _, md := range []mode{{false, m.WebhookSecret, m.WebhookSecretSetAt, m.PreviousWebhookSecret, m.PreviousSecretExpiresAt},
		{true, m.LiveWebhookSecret, m.LiveWebhookSecretSetAt, m.PreviousLiveWebhookSecret, m.PreviousLiveSecretExpiresAt}} {
		st := WebhookSecretState{HasWebhookSecret: md.secret != "", WebhookSecretSetAt: timePtr(md.setAt)}
		if md.prev != "" {
			st.PreviousSecretExpiresAt = timePtr(md.prevExpires)
		}
		v.WebhookSecrets[rampway.ModeName(md.live)] = st
		if st.HasWebhookSecret {
			v.HasWebhookSecret = true
			if last == nil || (md.setAt != nil && md.setAt.After(*last)) {
				last = md.setAt
				v.WebhookSecretSetAt, v.PreviousSecretExpiresAt = st.WebhookSecretSetAt, st.PreviousSecretExpiresAt
			}
		}
	}
	if m.WebhookURL != "" && !v.HasWebhookSecret {
		v.Warning = NoWebhookSecretWarning(m.ID)
	}
	return v
}

// APIKeyView is an API key in the admin API. APIKey is set only in the response that issues it.
type APIKeyView struct {
	KeyID      string `json:"key_id"`
	MerchantID string `json:"merchant_id"`
	Prefix     string `json:"prefix"`
	APIKey     string `json:"api_key,omitempty"`
	// Livemode is the key's mode (its prefix says it too): a live key sees and creates live
	// orders only, a test key test orders only.
	Livemode  bool    `json:"livemode"`
	Status    string  `json:"status"`
	CreatedAt string  `json:"created_at"`
	RevokedAt *string `json:"revoked_at"`
}

// NewAPIKeyView returns k's admin view; raw is the key in clear, or "".
func NewAPIKeyView(k *rampway.APIKey, raw string) APIKeyView {
	status := "active"
	if !k.Active() {
		status = "revoked"
	}
	return APIKeyView{KeyID: k.ID, MerchantID: k.MerchantID, Prefix: k.Prefix, APIKey: raw, Livemode: k.Livemode(), Status: status,
		CreatedAt: k.CreatedAt.UTC().Format(TimeFormat), RevokedAt: timePtr(k.RevokedAt)}
}

// WebhookSecretView answers a webhook secret change; the secret is shown only here.
type WebhookSecretView struct {
	MerchantID    string `json:"merchant_id"`
	WebhookSecret string `json:"webhook_secret"`
	// Livemode is the secret's mode: it signs the events of that mode's orders.
	Livemode bool `json:"livemode"`
}

// ListView is a page of a list.
type ListView[T any] struct {
	Data    []T  `json:"data"`
	HasMore bool `json:"has_more"`
}

// NewListView is the page of the first limit items (all of them when limit is 0), each
// through view; HasMore says whether items held more (a page is read with one item more than
// its limit, to know). The admin CLI prints its lists through it too.
func NewListView[I, V any](items []I, limit int, view func(I) V) ListView[V] {
	out := ListView[V]{Data: make([]V, 0, len(items))}
	if limit > 0 && len(items) > limit {
		items, out.HasMore = items[:limit], true
	}
	for _, it := range items {
		out.Data = append(out.Data, view(it))
	}
	return out
}

// NewAPIKeyListView is the list of a merchant's keys, none of them with its secret.
func NewAPIKeyListView(ks []*rampway.APIKey) ListView[APIKeyView] {
	return NewListView(ks, 0, func(k *rampway.APIKey) APIKeyView { return NewAPIKeyView(k, "") })
}

func timePtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := t.UTC().Format(TimeFormat)
	return &s
}

func (s *Server) handleCreateMerchant(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Name          *string         `json:"name"`
		WebhookURL    *string         `json:"webhook_url"`
		ServiceFeeBPS json.RawMessage `json:"service_fee_bps"`
		LogoURL       *string         `json:"logo_url"`
	}
	if err := decodeJSON(r, &body, decodeOptions{strict: true}); err != nil {
		return err
	}
	if body.Name == nil {
		return rampway.FieldErrorf("name", "name is required")
	}
	_, fee, err := serviceFeeBPS(body.ServiceFeeBPS)
	if err != nil {
		return err
	}
	m, err := s.merchants.Create(r.Context(), merchant.CreateParams{Name: *body.Name, WebhookURL: deref(body.WebhookURL), ServiceFeeBPS: fee,
		LogoURL: deref(body.LogoURL)})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, NewMerchantView(m))
	return nil
}

func (s *Server) handleGetMerchant(w http.ResponseWriter, r *http.Request) error {
	m, err := s.merchants.Get(r.Context(), r.PathValue("merchant_id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, NewMerchantView(m))
	return nil
}

func (s *Server) handleListMerchants(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	limit := 20
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			return rampway.FieldErrorf("limit", "limit must be an integer between 1 and 100")
		}
		limit = n
	}
	// Ask for one more than the page to know whether more follow.
	ms, err := s.merchants.List(r.Context(), rampway.Page{After: q.Get("starting_after"), Limit: limit + 1})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, NewListView(ms, limit, NewMerchantView))
	return nil
}

func (s *Server) handleUpdateMerchant(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Name          *string                          `json:"name"`
		WebhookURL    *string                          `json:"webhook_url"`
		Status        *string                          `json:"status"`
		ServiceFeeBPS json.RawMessage                  `json:"service_fee_bps"`
		LogoURL       *string                          `json:"logo_url"`
		RefundPolicy  *map[string]rampway.RefundLimits `json:"refund_policy"`
	}
	if err := decodeJSON(r, &body, decodeOptions{strict: true}); err != nil {
		return err
	}
	var policy map[string]rampway.RefundLimits
	if body.RefundPolicy != nil {
		policy = map[string]rampway.RefundLimits{}
		maps.Copy(policy, *body.RefundPolicy)
	}
	setFee, fee, err := serviceFeeBPS(body.ServiceFeeBPS)
	if err != nil {
		return err
	}
	m, err := s.merchants.Update(r.Context(), r.PathValue("merchant_id"), merchant.UpdateParams{Name: body.Name, WebhookURL: body.WebhookURL, Status: body.Status,
		LogoURL: body.LogoURL, SetServiceFeeBPS: setFee, ServiceFeeBPS: fee, RefundPolicy: policy})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, NewMerchantView(m))
	return nil
}

// modeOf reads an admin request's optional mode ("test" or "live"); absent is the merchant
// service's default (live in production, test in dev).
func (s *Server) modeOf(mode *string) (bool, error) {
	if mode == nil {
		return s.merchants.DefaultLivemode(), nil
	}
	return rampway.ParseMode("mode", *mode)
}

func (s *Server) handleIssueAPIKey(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		// Mode is the key's: "test" (rw_test_) or "live" (rw_live_).
		Mode *string `json:"mode"`
	}
	if err := decodeJSON(r, &body, decodeOptions{strict: true, optional: true}); err != nil {
		return err
	}
	live, err := s.modeOf(body.Mode)
	if err != nil {
		return err
	}
	k, raw, err := s.merchants.IssueAPIKey(r.Context(), r.PathValue("merchant_id"), live)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, NewAPIKeyView(k, raw))
	return nil
}

func (s *Server) handleListAPIKeys(w http.ResponseWriter, r *http.Request) error {
	ks, err := s.merchants.APIKeys(r.Context(), r.PathValue("merchant_id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, NewAPIKeyListView(ks))
	return nil
}

func (s *Server) handleRevokeAPIKey(w http.ResponseWriter, r *http.Request) error {
	if _, err := s.merchants.RevokeAPIKey(r.Context(), r.PathValue("merchant_id"), r.PathValue("key_id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Server) handleSetWebhookSecret(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		WebhookSecret *string `json:"webhook_secret"`
		// GracePeriod keeps the replaced secret valid that long ("24h"); none by default.
		GracePeriod *string `json:"grace_period"`
		// Mode is the secret's: it signs the events of that mode's orders.
		Mode *string `json:"mode"`
	}
	if err := decodeJSON(r, &body, decodeOptions{strict: true, optional: true}); err != nil {
		return err
	}
	live, err := s.modeOf(body.Mode)
	if err != nil {
		return err
	}
	var grace time.Duration
	if body.GracePeriod != nil {
		g, err := time.ParseDuration(*body.GracePeriod)
		if err != nil {
			return rampway.FieldErrorf("grace_period", "grace_period must be a duration such as \"24h\" or \"30m\", not %q", *body.GracePeriod)
		}
		grace = g
	}
	id := r.PathValue("merchant_id")
	secret, err := s.merchants.SetWebhookSecret(r.Context(), id, live, deref(body.WebhookSecret), grace)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, WebhookSecretView{MerchantID: id, WebhookSecret: secret, Livemode: live})
	return nil
}

// serviceFeeBPS reads service_fee_bps as sent: absent (set is false), null (set, the configured
// default: fee is nil) or a JSON integer. The range is the merchant service's to check.
func serviceFeeBPS(raw json.RawMessage) (set bool, fee *int64, err error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return false, nil, nil
	}
	if string(raw) == "null" {
		return true, nil, nil
	}
	var v int64
	if err := json.Unmarshal(raw, &v); err != nil {
		what := string(raw)
		switch raw[0] {
		case '"':
			what = "a string"
		case 't', 'f':
			what = "a boolean"
		case '[':
			what = "an array"
		case '{':
			what = "an object"
		default:
			if len(what) > 32 {
				what = "a number"
			}
		}
		return false, nil, rampway.FieldErrorf("service_fee_bps", "Field 'service_fee_bps' must be an integer between 0 and %d (basis points) or null, not %s", merchant.MaxServiceFeeBPS, what)
	}
	return true, &v, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
