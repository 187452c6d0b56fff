package httpapi

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

func decode[T any](t *testing.T, r resp, status int) T {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d: %s", r.status, status, r.body)
	}
	var v T
	if err := json.Unmarshal(r.body, &v); err != nil {
		t.Fatalf("decode %s: %v", r.body, err)
	}
	return v
}

func TestAdminAuth(t *testing.T) {
	t.Parallel()
	e := newHTTPEnv(t)
	for name, h := range map[string]map[string]string{
		"none":         nil,
		"wrong token":  {"Authorization": "Bearer nope"},
		"basic scheme": {"Authorization": "Basic " + adminToken},
		"merchant key": {"X-API-KEY": e.key},
		"key as token": {"Authorization": "Bearer " + e.key},
	} {
		t.Run(name, func(t *testing.T) {
			r := e.do(http.MethodGet, "/admin/merchants", nil, h)
			wantEnvelope(t, r, 401, 401, "/admin/merchants", "Unauthorized")
		})
	}
	r := e.do(http.MethodGet, "/admin/merchants", nil, map[string]string{"Authorization": "bearer " + adminToken})
	if r.status != 200 {
		t.Fatalf("lowercase bearer scheme refused: %d", r.status)
	}
}

func TestAdminMerchants(t *testing.T) {
	t.Parallel()
	e := newHTTPEnv(t)
	created := decode[MerchantView](t, e.admin(http.MethodPost, "/merchants", map[string]string{"name": "Shop", "webhook_url": "https://shop.example/hook"}), 201)
	if created.Name != "Shop" || created.Status != "active" || created.WebhookURL != "https://shop.example/hook" || created.HasWebhookSecret || !strings.HasPrefix(created.MerchantID, "mch_") {
		t.Fatalf("created %+v", created)
	}
	got := decode[MerchantView](t, e.admin(http.MethodGet, "/merchants/"+created.MerchantID, nil), 200)
	if !reflect.DeepEqual(got, created) {
		t.Fatalf("get %+v, want %+v", got, created)
	}
	for _, tc := range []struct {
		name string
		body any
		msg  string
	}{
		{"no name", map[string]string{}, "name is required"},
		{"blank name", map[string]string{"name": " "}, "name is required"},
		{"bad url", map[string]string{"name": "x", "webhook_url": "nope"}, "webhook_url must be an absolute http(s) URL"},
		{"unknown field", map[string]string{"name": "x", "colour": "red"}, "Unknown field 'colour'"},
		{"wrong type", map[string]any{"name": 7}, "Field 'name' must be a string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantEnvelope(t, e.admin(http.MethodPost, "/merchants", tc.body), 400, 400, "/admin/merchants", tc.msg)
		})
	}
	wantEnvelope(t, e.admin(http.MethodGet, "/merchants/mch_nope", nil), 404, 404, "/admin/merchants/mch_nope", "not found")

	// Update: only given fields change; a disabled merchant's keys stop working.
	upd := decode[MerchantView](t, e.admin(http.MethodPatch, "/merchants/"+e.merchant.ID, map[string]string{"status": "disabled"}), 200)
	if upd.Status != "disabled" || upd.Name != "Acme" {
		t.Fatalf("updated %+v", upd)
	}
	wantEnvelope(t, e.merchantAPI(http.MethodPost, orderPath, map[string]string{"merchant_id": e.merchant.ID}), 401, 401, orderPath, "Unauthorized")
	wantEnvelope(t, e.admin(http.MethodPatch, "/merchants/"+e.merchant.ID, map[string]string{"status": "paused"}), 400, 400, "/admin/merchants/"+e.merchant.ID, "status must be")

	// List with cursor pagination.
	var ids []string
	after := ""
	for {
		page := decode[ListView[MerchantView]](t, e.admin(http.MethodGet, "/merchants?limit=1&starting_after="+after, nil), 200)
		for _, m := range page.Data {
			ids = append(ids, m.MerchantID)
		}
		if !page.HasMore {
			break
		}
		after = page.Data[len(page.Data)-1].MerchantID
	}
	if len(ids) != 2 {
		t.Fatalf("listed %v, want both merchants", ids)
	}
	wantEnvelope(t, e.admin(http.MethodGet, "/merchants?limit=0", nil), 400, 400, "/admin/merchants", "limit must be")
	wantEnvelope(t, e.admin(http.MethodGet, "/merchants?starting_after=x", nil), 400, 400, "/admin/merchants", "starting_after")
}

func TestAdminAPIKeysAndSecrets(t *testing.T) {
	t.Parallel()
	e := newHTTPEnv(t)
	base := "/merchants/" + e.merchant.ID
	k := decode[APIKeyView](t, e.admin(http.MethodPost, base+"/api-keys", nil), 201)
	if !strings.HasPrefix(k.APIKey, k.Prefix) || k.Status != "active" || k.MerchantID != e.merchant.ID {
		t.Fatalf("issued %+v", k)
	}
	// The new key works at once.
	r := e.do(http.MethodPost, orderPath, map[string]string{"merchant_id": e.merchant.ID}, map[string]string{"X-API-KEY": k.APIKey})
	wantEnvelope(t, r, 400, 400, orderPath, "contractExecution is required")
	list := decode[ListView[APIKeyView]](t, e.admin(http.MethodGet, base+"/api-keys", nil), 200)
	if len(list.Data) != 2 || strings.Contains(string(e.admin(http.MethodGet, base+"/api-keys", nil).body), k.APIKey) {
		t.Fatalf("list %+v shows the key again or misses one", list)
	}
	if r := e.admin(http.MethodDelete, base+"/api-keys/"+k.KeyID, nil); r.status != 204 || len(r.body) != 0 {
		t.Fatalf("revoke %d %s", r.status, r.body)
	}
	list = decode[ListView[APIKeyView]](t, e.admin(http.MethodGet, base+"/api-keys", nil), 200)
	if list.Data[1].Status != "revoked" || list.Data[1].RevokedAt == nil {
		t.Fatalf("after revoke %+v", list.Data[1])
	}
	wantEnvelope(t, e.admin(http.MethodDelete, base+"/api-keys/key_nope", nil), 404, 404, "/admin"+base+"/api-keys/key_nope", "not found")
	wantEnvelope(t, e.admin(http.MethodPost, "/merchants/mch_nope/api-keys", nil), 404, 404, "/admin/merchants/mch_nope/api-keys", "not found")
	wantEnvelope(t, e.admin(http.MethodPost, base+"/api-keys", `{"x":1}`), 400, 400, "/admin"+base+"/api-keys", "Unknown field 'x'")

	s1 := decode[WebhookSecretView](t, e.admin(http.MethodPost, base+"/webhook-secret", nil), 201)
	s2 := decode[WebhookSecretView](t, e.admin(http.MethodPost, base+"/webhook-secret", nil), 201)
	if !strings.HasPrefix(s1.WebhookSecret, "whsec_") || s1.WebhookSecret == s2.WebhookSecret {
		t.Fatalf("secrets %q %q", s1.WebhookSecret, s2.WebhookSecret)
	}
	own := strings.Repeat("s", 40)
	if s := decode[WebhookSecretView](t, e.admin(http.MethodPost, base+"/webhook-secret", map[string]string{"webhook_secret": own}), 201); s.WebhookSecret != own {
		t.Fatalf("own secret not set: %+v", s)
	}
	wantEnvelope(t, e.admin(http.MethodPost, base+"/webhook-secret", map[string]string{"webhook_secret": "short"}), 400, 400, "/admin"+base+"/webhook-secret", "webhook_secret must be")
	m := decode[MerchantView](t, e.admin(http.MethodGet, base, nil), 200)
	if !m.HasWebhookSecret || m.WebhookSecretSetAt == nil || strings.Contains(string(e.admin(http.MethodGet, base, nil).body), own) ||
		m.PreviousSecretExpiresAt != nil {
		t.Fatalf("merchant view %+v (must say a secret is set, never show it)", m)
	}
	// Rotation with a grace period: the old secret signs beside the new one until it ends.
	for _, bad := range []string{`{"grace_period":"soon"}`, `{"grace_period":"-1h"}`, `{"grace_period":"169h"}`, `{"grace_period":24}`} {
		wantEnvelope(t, e.admin(http.MethodPost, base+"/webhook-secret", bad), 400, 400, "/admin"+base+"/webhook-secret", "grace_period")
	}
	rotated := decode[WebhookSecretView](t, e.admin(http.MethodPost, base+"/webhook-secret", map[string]string{"grace_period": "24h"}), 201)
	m = decode[MerchantView](t, e.admin(http.MethodGet, base, nil), 200)
	if m.PreviousSecretExpiresAt == nil || rotated.WebhookSecret == own {
		t.Fatalf("after a rotation with grace: %+v", m)
	}
	stored, err := e.svc.Get(t.Context(), m.MerchantID)
	if err != nil {
		t.Fatal(err)
	}
	if secrets := stored.WebhookSecrets(false, time.Now()); len(secrets) != 2 || secrets[0] != rotated.WebhookSecret || secrets[1] != own {
		t.Fatalf("signing secrets during the grace period: %v", secrets)
	}
}

func TestAdminMerchantServiceFee(t *testing.T) {
	t.Parallel()
	e := newHTTPEnv(t)
	fee := func(v MerchantView) string {
		if v.ServiceFeeBPS == nil {
			return "null"
		}
		return strconv.FormatInt(*v.ServiceFeeBPS, 10)
	}
	// The view always has the field: null for the configured default.
	r := e.admin(http.MethodPost, "/merchants", map[string]any{"name": "Default"})
	if def := decode[MerchantView](t, r, 201); def.ServiceFeeBPS != nil || !strings.Contains(string(r.body), `"service_fee_bps":null`) {
		t.Fatalf("merchant without a fee: %s", r.body)
	}
	if v := decode[MerchantView](t, e.admin(http.MethodPost, "/merchants", map[string]any{"name": "Null", "service_fee_bps": nil}), 201); v.ServiceFeeBPS != nil {
		t.Fatalf("created with null: fee %s", fee(v))
	}
	created := decode[MerchantView](t, e.admin(http.MethodPost, "/merchants", map[string]any{"name": "Fee", "service_fee_bps": 250}), 201)
	if fee(created) != "250" {
		t.Fatalf("created with 250: fee %s", fee(created))
	}
	base := "/merchants/" + created.MerchantID
	if got := decode[MerchantView](t, e.admin(http.MethodGet, base, nil), 200); fee(got) != "250" {
		t.Fatalf("get: fee %s", fee(got))
	}

	// PATCH: a new fee, another field (fee kept), 0, null (back to the default).
	for _, step := range []struct {
		name string
		body string
		want string
	}{
		{"set", `{"service_fee_bps": 100}`, "100"},
		{"other field", `{"name": "Fee Ltd"}`, "100"},
		{"zero", `{"service_fee_bps": 0}`, "0"},
		{"the most", `{"service_fee_bps": 10000}`, "10000"},
		{"null is the default", `{"service_fee_bps": null}`, "null"},
		{"set again", `{"service_fee_bps": 75}`, "75"},
	} {
		got := decode[MerchantView](t, e.admin(http.MethodPatch, base, step.body), 200)
		if fee(got) != step.want {
			t.Fatalf("%s: fee %s, want %s", step.name, fee(got), step.want)
		}
		if got := decode[MerchantView](t, e.admin(http.MethodGet, base, nil), 200); fee(got) != step.want {
			t.Fatalf("%s: stored fee %s, want %s", step.name, fee(got), step.want)
		}
	}

	// Anything but an integer from 0 to 10000 (or null) is 400 naming the field, on both.
	for _, tc := range []struct {
		name  string
		value string
		msg   string
	}{
		{"string", `"250"`, "Field 'service_fee_bps' must be an integer between 0 and 10000 (basis points) or null, not a string"},
		{"fraction", `12.5`, "Field 'service_fee_bps' must be an integer between 0 and 10000 (basis points) or null, not 12.5"},
		{"exponent", `1e3`, "Field 'service_fee_bps' must be an integer"},
		{"boolean", `true`, "Field 'service_fee_bps' must be an integer between 0 and 10000 (basis points) or null, not a boolean"},
		{"object", `{}`, "not an object"},
		{"huge", `123456789012345678901234567890`, "Field 'service_fee_bps' must be an integer"},
		{"negative", `-1`, "service_fee_bps must be between 0 and 10000 (basis points), not -1"},
		{"above 100%", `10001`, "service_fee_bps must be between 0 and 10000 (basis points), not 10001"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantEnvelope(t, e.admin(http.MethodPost, "/merchants", `{"name": "Bad", "service_fee_bps": `+tc.value+`}`), 400, 400, "/admin/merchants", tc.msg)
			wantEnvelope(t, e.admin(http.MethodPatch, base, `{"service_fee_bps": `+tc.value+`}`), 400, 400, "/admin"+base, tc.msg)
		})
	}
	// A refused PATCH changes nothing.
	if got := decode[MerchantView](t, e.admin(http.MethodGet, base, nil), 200); fee(got) != "75" || got.Name != "Fee Ltd" {
		t.Fatalf("after refused updates: %+v", got)
	}
	page := decode[ListView[MerchantView]](t, e.admin(http.MethodGet, "/merchants?limit=100", nil), 200)
	for _, m := range page.Data {
		if m.MerchantID == created.MerchantID && fee(m) != "75" {
			t.Fatalf("listed with fee %s, want 75", fee(m))
		}
		if m.Name == "Bad" {
			t.Fatalf("a refused create stored %+v", m)
		}
	}
}

// A merchant with a webhook URL and no webhook secret gets no webhooks: every answer that shows
// it says so in warning, until a secret is set (or the URL removed).
func TestAdminMerchantWebhookWarning(t *testing.T) {
	t.Parallel()
	e := newHTTPEnv(t)
	hasWarning := func(r resp) bool {
		t.Helper()
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(r.body, &raw); err != nil {
			t.Fatalf("%s: %v", r.body, err)
		}
		_, ok := raw["warning"]
		return ok
	}
	r := e.admin(http.MethodPost, "/merchants", map[string]string{"name": "Hooked", "webhook_url": "https://shop.example/hook"})
	m := decode[MerchantView](t, r, 201)
	want := NoWebhookSecretWarning(m.MerchantID)
	if m.Warning != want || !strings.Contains(want, "POST /merchants/"+m.MerchantID+"/webhook-secret") || !strings.Contains(want, "no webhooks") {
		t.Fatalf("create: warning %q, want %q", m.Warning, want)
	}
	base := "/merchants/" + m.MerchantID
	if g := decode[MerchantView](t, e.admin(http.MethodGet, base, nil), 200); g.Warning != want {
		t.Fatalf("get: warning %q", g.Warning)
	}
	list := decode[ListView[MerchantView]](t, e.admin(http.MethodGet, "/merchants", nil), 200)
	for _, v := range list.Data {
		if (v.MerchantID == m.MerchantID) != (v.Warning != "") {
			t.Fatalf("list: %+v", v)
		}
	}
	// Without a URL, or with a secret, nothing to warn of: no warning field at all.
	if r := e.admin(http.MethodPost, "/merchants", map[string]string{"name": "Quiet"}); hasWarning(r) {
		t.Fatalf("created without a webhook_url: %s", r.body)
	}
	decode[WebhookSecretView](t, e.admin(http.MethodPost, base+"/webhook-secret", nil), 201)
	if r := e.admin(http.MethodGet, base, nil); hasWarning(r) {
		t.Fatalf("with a secret: %s", r.body)
	}
	// Setting the URL of a merchant without a secret warns too.
	q := decode[MerchantView](t, e.admin(http.MethodPost, "/merchants", map[string]string{"name": "Later"}), 201)
	upd := decode[MerchantView](t, e.admin(http.MethodPatch, "/merchants/"+q.MerchantID, map[string]string{"webhook_url": "https://later.example/hook"}), 200)
	if upd.Warning != NoWebhookSecretWarning(q.MerchantID) {
		t.Fatalf("update: warning %q", upd.Warning)
	}
	if r := e.admin(http.MethodPatch, "/merchants/"+q.MerchantID, map[string]string{"webhook_url": ""}); r.status != 200 || hasWarning(r) {
		t.Fatalf("URL removed: %d %s", r.status, r.body)
	}
}
