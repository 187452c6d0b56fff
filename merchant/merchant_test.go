package merchant_test

import (
	"errors"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/internal/devtest"
	"github.com/rampway/rampway/merchant"
	"github.com/rampway/rampway/sqlite"
)

func newService(t *testing.T, dev bool) *merchant.Service {
	t.Helper()
	s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "m.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return merchant.NewService(s, merchant.Options{HashSecret: "test-hash-secret-0123456789abcdef", DevMode: dev})
}

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	if got := rampway.ErrorCode(err); got != code {
		t.Fatalf("error = %v (code %q), want code %q", err, got, code)
	}
}

func TestAuthenticate(t *testing.T) {
	t.Parallel()
	svc := newService(t, false)
	ctx := t.Context()
	m, err := svc.Create(ctx, merchant.CreateParams{Name: " Acme "})
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "Acme" || m.Status != rampway.MerchantActive {
		t.Fatalf("created %+v", m)
	}
	k1, raw1, err := svc.IssueAPIKey(ctx, m.ID, true)
	if err != nil {
		t.Fatal(err)
	}
	_, raw2, err := svc.IssueAPIKey(ctx, m.ID, true)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(raw1, "rw_live_") || len(raw1) != len("rw_live_")+32 || !strings.HasPrefix(raw1, k1.Prefix) || len(k1.Prefix) != len("rw_live_")+8 {
		t.Fatalf("key %q prefix %q", raw1, k1.Prefix)
	}
	for _, raw := range []string{raw1, raw2} { // several keys active at once
		got, _, err := svc.Authenticate(ctx, raw)
		if err != nil || got.ID != m.ID {
			t.Fatalf("Authenticate(%q) = %v, %v", raw, got, err)
		}
	}
	// Same prefix, other secret part: must fail on the hash, not on the lookup.
	forged := raw1[:len(raw1)-1] + map[bool]string{true: "b", false: "a"}[raw1[len(raw1)-1] == 'a']
	for name, raw := range map[string]string{
		"empty": "", "garbage": "hello", "test-mode key in live": "rw_test_" + raw1[8:], "forged": forged,
		"too long": raw1 + "a", "upper": strings.ToUpper(raw1), "unknown": "rw_live_" + strings.Repeat("a", 32),
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := svc.Authenticate(ctx, raw)
			wantCode(t, err, rampway.EUNAUTHORIZED)
			if rampway.ErrorMessage(err) != "Unauthorized" {
				t.Fatalf("message %q", rampway.ErrorMessage(err))
			}
		})
	}
	if _, err := svc.RevokeAPIKey(ctx, m.ID, k1.ID); err != nil {
		t.Fatal(err)
	}
	_, _, err = svc.Authenticate(ctx, raw1)
	wantCode(t, err, rampway.EUNAUTHORIZED)
	if _, _, err := svc.Authenticate(ctx, raw2); err != nil {
		t.Fatalf("the other key stopped working: %v", err)
	}
	disabled := "disabled"
	if _, err := svc.Update(ctx, m.ID, merchant.UpdateParams{Status: &disabled}); err != nil {
		t.Fatal(err)
	}
	_, _, err = svc.Authenticate(ctx, raw2)
	wantCode(t, err, rampway.EUNAUTHORIZED)
}

func TestValidation(t *testing.T) {
	t.Parallel()
	prod, dev := newService(t, false), newService(t, true)
	ctx := t.Context()
	for _, tc := range []struct {
		name, merchantName, url string
		dev                     bool
		field                   string
	}{
		{"empty name", "  ", "", false, "name"},
		{"control char", "a\x00b", "", false, "name"},
		{"long name", strings.Repeat("x", 201), "", false, "name"},
		{"relative url", "a", "/hooks", false, "webhook_url"},
		{"ftp url", "a", "ftp://x.example/h", false, "webhook_url"},
		{"http in production", "a", "http://x.example/h", false, "webhook_url"},
		{"loopback in production", "a", "https://127.0.0.1/h", false, "webhook_url"},
		{"private in production", "a", "https://10.1.2.3/h", false, "webhook_url"},
		{"metadata in production", "a", "https://169.254.169.254/h", false, "webhook_url"},
		{"localhost in production", "a", "https://localhost/h", false, "webhook_url"},
		{"credentials", "a", "https://u:p@x.example/h", true, "webhook_url"},
		// Refused at registration as at every delivery (one policy: rampway.WebhookIPAllowed).
		{"carrier NAT in production", "a", "https://100.64.0.1/h", false, "webhook_url"},
		{"NAT64 in production", "a", "https://[64:ff9b::a00:1]/h", false, "webhook_url"},
		{"metadata in dev", "a", "http://169.254.169.254/latest/meta-data", true, "webhook_url"},
		{"carrier NAT in dev", "a", "http://100.64.0.1/h", true, "webhook_url"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc := prod
			if tc.dev {
				svc = dev
			}
			_, err := svc.Create(ctx, merchant.CreateParams{Name: tc.merchantName, WebhookURL: tc.url})
			var e *rampway.Error
			wantCode(t, err, rampway.EINVALID)
			if !errors.As(err, &e) || e.Field != tc.field {
				t.Fatalf("error %v does not name field %s", err, tc.field)
			}
		})
	}
	for _, u := range []string{"http://127.0.0.1:9000/h", "http://localhost:3000/hooks", "http://192.168.1.20:3000/hooks"} {
		if _, err := dev.Create(ctx, merchant.CreateParams{Name: "a", WebhookURL: u}); err != nil {
			t.Fatalf("dev mode refused the local webhook URL %s: %v", u, err)
		}
	}
	m, err := prod.Create(ctx, merchant.CreateParams{Name: "a", WebhookURL: "https://shop.example.com/h"})
	if err != nil {
		t.Fatal(err)
	}
	bad := "paused"
	_, err = prod.Update(ctx, m.ID, merchant.UpdateParams{Status: &bad})
	wantCode(t, err, rampway.EINVALID)
	_, err = prod.SetWebhookSecret(ctx, m.ID, false, "short", 0)
	wantCode(t, err, rampway.EINVALID)
	_, err = prod.Get(ctx, "mch_x")
	wantCode(t, err, rampway.ENOTFOUND)
	_, err = prod.RevokeAPIKey(ctx, m.ID, "key_x")
	wantCode(t, err, rampway.ENOTFOUND)
	_, _, err = prod.IssueAPIKey(ctx, "mch_00000000000000000000000000", false)
	wantCode(t, err, rampway.ENOTFOUND)
	_, err = prod.List(ctx, rampway.Page{Limit: 0})
	wantCode(t, err, rampway.EINVALID)
	_, err = prod.List(ctx, rampway.Page{Limit: 10, After: "nope"})
	wantCode(t, err, rampway.EINVALID)
}

func TestWebhookSecret(t *testing.T) {
	t.Parallel()
	svc := newService(t, false)
	ctx := t.Context()
	m, _ := svc.Create(ctx, merchant.CreateParams{Name: "a"})
	s1, err := svc.SetWebhookSecret(ctx, m.ID, false, "", 0)
	if err != nil || !strings.HasPrefix(s1, merchant.WebhookSecretPrefix) || len(s1) < 50 {
		t.Fatalf("generated %q, %v", s1, err)
	}
	s2, _ := svc.SetWebhookSecret(ctx, m.ID, false, "", 0)
	if s1 == s2 {
		t.Fatal("rotation gave the same secret")
	}
	got, _ := svc.Get(ctx, m.ID)
	if got.WebhookSecret != s2 {
		t.Fatalf("stored %q, want %q", got.WebhookSecret, s2)
	}
	own := strings.Repeat("k", 40)
	if s, err := svc.SetWebhookSecret(ctx, m.ID, false, own, 0); err != nil || s != own {
		t.Fatalf("set own secret: %q, %v", s, err)
	}
}

// WebhookSecrets (what deliveries are signed with) follows every rotation at once: with a
// grace period the new secret and the old one until the period is over, without only the new.
func TestWebhookSecretsFollowRotation(t *testing.T) {
	t.Parallel()
	s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "m.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	now := time.Now()
	svc := merchant.NewService(s, merchant.Options{HashSecret: "test-hash-secret-0123456789abcdef", Now: func() time.Time { return now }})
	ctx := t.Context()
	m, _ := svc.Create(ctx, merchant.CreateParams{Name: "a"})
	want := func(exp ...string) {
		t.Helper()
		got, err := svc.WebhookSecrets(ctx, m.ID, false)
		if err != nil || !slices.Equal(got, exp) {
			t.Fatalf("WebhookSecrets = %q, %v; want %q", got, err, exp)
		}
	}
	want() // none yet: no deliveries
	s1, _ := svc.SetWebhookSecret(ctx, m.ID, false, "", 0)
	want(s1)
	s2, _ := svc.SetWebhookSecret(ctx, m.ID, false, "", time.Hour)
	want(s2, s1)
	s3, _ := svc.SetWebhookSecret(ctx, m.ID, false, "", 0) // ends the grace of s1 too
	want(s3)
	s4, _ := svc.SetWebhookSecret(ctx, m.ID, false, "", time.Minute)
	want(s4, s3)
	now = now.Add(time.Minute)
	want(s4)
	_, err = svc.WebhookSecrets(ctx, "mch_01k9z3x4c5v6b7n8m9q0r1s2t3", false)
	wantCode(t, err, rampway.ENOTFOUND)
}

func TestServiceFee(t *testing.T) {
	t.Parallel()
	svc := newService(t, false)
	ctx := t.Context()
	bps := func(v int64) *int64 { return &v }
	feeOf := func(m *rampway.Merchant) string {
		if m.ServiceFeeBPS == nil {
			return "default"
		}
		return strconv.FormatInt(*m.ServiceFeeBPS, 10)
	}
	m, err := svc.Create(ctx, merchant.CreateParams{Name: "a"})
	if err != nil || m.ServiceFeeBPS != nil {
		t.Fatalf("created %+v, %v: want the default fee", m, err)
	}
	given := bps(250)
	withFee, err := svc.Create(ctx, merchant.CreateParams{Name: "b", ServiceFeeBPS: given})
	*given = 1 // the merchant keeps its own copy
	if err != nil || feeOf(withFee) != "250" {
		t.Fatalf("created %+v, %v: want 250 bps", withFee, err)
	}
	if got, _ := svc.Get(ctx, withFee.ID); feeOf(got) != "250" {
		t.Fatalf("stored fee %s, want 250", feeOf(got))
	}
	for _, bad := range []int64{-1, merchant.MaxServiceFeeBPS + 1} {
		_, err := svc.Create(ctx, merchant.CreateParams{Name: "c", ServiceFeeBPS: &bad})
		var e *rampway.Error
		if !errors.As(err, &e) || e.Code != rampway.EINVALID || e.Field != "service_fee_bps" {
			t.Fatalf("create with %d bps: %v, want EINVALID naming service_fee_bps", bad, err)
		}
		_, err = svc.Update(ctx, m.ID, merchant.UpdateParams{SetServiceFeeBPS: true, ServiceFeeBPS: &bad})
		if !errors.As(err, &e) || e.Code != rampway.EINVALID || e.Field != "service_fee_bps" {
			t.Fatalf("update to %d bps: %v, want EINVALID naming service_fee_bps", bad, err)
		}
	}
	for _, step := range []struct {
		name string
		p    merchant.UpdateParams
		want string
	}{
		{"set", merchant.UpdateParams{SetServiceFeeBPS: true, ServiceFeeBPS: bps(100)}, "100"},
		{"other fields leave it", merchant.UpdateParams{Name: new(string("a2"))}, "100"},
		{"not asked to set", merchant.UpdateParams{ServiceFeeBPS: bps(7)}, "100"},
		{"zero is a fee", merchant.UpdateParams{SetServiceFeeBPS: true, ServiceFeeBPS: bps(0)}, "0"},
		{"the most", merchant.UpdateParams{SetServiceFeeBPS: true, ServiceFeeBPS: bps(merchant.MaxServiceFeeBPS)}, "10000"},
		{"back to the default", merchant.UpdateParams{SetServiceFeeBPS: true}, "default"},
	} {
		got, err := svc.Update(ctx, m.ID, step.p)
		if err != nil || feeOf(got) != step.want {
			t.Fatalf("%s: %v, fee %s, want %s", step.name, err, feeOf(got), step.want)
		}
		if stored, _ := svc.Get(ctx, m.ID); feeOf(stored) != step.want {
			t.Fatalf("%s: stored fee %s, want %s", step.name, feeOf(stored), step.want)
		}
	}
}

// A merchant's logo: an https URL (http too in dev mode), stored, changed, removed; a bad one
// is EINVALID naming logo_url, at creation and at update alike.
func TestLogoURL(t *testing.T) {
	t.Parallel()
	prod, dev := newService(t, false), newService(t, true)
	ctx := t.Context()
	m, err := prod.Create(ctx, merchant.CreateParams{Name: "a", LogoURL: "https://cdn.example/a.svg"})
	if err != nil || m.LogoURL != "https://cdn.example/a.svg" {
		t.Fatalf("created %+v, %v", m, err)
	}
	for _, step := range []struct {
		name string
		p    merchant.UpdateParams
		want string
	}{
		{"other fields leave it", merchant.UpdateParams{Name: new(string("a2"))}, "https://cdn.example/a.svg"},
		{"changed", merchant.UpdateParams{LogoURL: new(string("https://cdn.example/b.png"))}, "https://cdn.example/b.png"},
		{"removed", merchant.UpdateParams{LogoURL: new(string(""))}, ""},
	} {
		got, err := prod.Update(ctx, m.ID, step.p)
		if err != nil || got.LogoURL != step.want {
			t.Fatalf("%s: %+v, %v; want logo %q", step.name, got, err, step.want)
		}
		if stored, _ := prod.Get(ctx, m.ID); stored.LogoURL != step.want {
			t.Fatalf("%s: stored logo %q, want %q", step.name, stored.LogoURL, step.want)
		}
	}
	for _, bad := range []string{"http://cdn.example/a.svg", "cdn.example/a.svg", "https://u:p@cdn.example/a.svg", "https://cdn.example/" + strings.Repeat("a", 2048)} {
		_, err := prod.Create(ctx, merchant.CreateParams{Name: "b", LogoURL: bad})
		var e *rampway.Error
		if !errors.As(err, &e) || e.Code != rampway.EINVALID || e.Field != "logo_url" || !strings.HasPrefix(e.Message, "logo_url must") {
			t.Fatalf("create with logo %.40q: %v, want EINVALID naming logo_url", bad, err)
		}
		_, err = prod.Update(ctx, m.ID, merchant.UpdateParams{LogoURL: &bad})
		if !errors.As(err, &e) || e.Code != rampway.EINVALID || e.Field != "logo_url" {
			t.Fatalf("update to logo %.40q: %v, want EINVALID naming logo_url", bad, err)
		}
	}
	if got, err := dev.Create(ctx, merchant.CreateParams{Name: "c", LogoURL: "http://127.0.0.1:8080/demo/assets/logo.svg"}); err != nil ||
		got.LogoURL != "http://127.0.0.1:8080/demo/assets/logo.svg" {
		t.Fatalf("dev mode and an http logo: %+v, %v", got, err)
	}
}

// With the authentication cache: a change made through the Service applies at once; one made
// by another process (here: the store directly, as the admin CLI does) once the TTL is over;
// a forged key never passes on a cached entry.
func TestAuthenticateCache(t *testing.T) {
	t.Parallel()
	store, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "m.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	const ttl = time.Minute
	clk := devtest.NewClock(time.Now()) // the cache's: it moves only when the test moves it
	svc := merchant.NewService(store, merchant.Options{HashSecret: "test-hash-secret-0123456789abcdef", AuthCacheTTL: ttl, Now: clk.Now})
	ctx := t.Context()
	m, err := svc.Create(ctx, merchant.CreateParams{Name: "Acme"})
	if err != nil {
		t.Fatal(err)
	}
	k1, raw1, err := svc.IssueAPIKey(ctx, m.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	k2, raw2, err := svc.IssueAPIKey(ctx, m.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range []string{raw1, raw2} {
		if _, _, err := svc.Authenticate(ctx, raw); err != nil {
			t.Fatal(err)
		}
	}
	forged := raw1[:len(raw1)-1] + map[bool]string{true: "b", false: "a"}[raw1[len(raw1)-1] == 'a']
	_, _, err = svc.Authenticate(ctx, forged)
	wantCode(t, err, rampway.EUNAUTHORIZED)

	if _, err := svc.RevokeAPIKey(ctx, m.ID, k1.ID); err != nil {
		t.Fatal(err)
	}
	_, _, err = svc.Authenticate(ctx, raw1)
	wantCode(t, err, rampway.EUNAUTHORIZED) // through the Service: at once

	if _, _, err := svc.Authenticate(ctx, raw2); err != nil { // cached again
		t.Fatal(err)
	}
	if _, err := store.RevokeAPIKey(ctx, m.ID, k2.ID, time.Now().UTC()); err != nil {
		t.Fatal(err)
	}
	clk.Advance(ttl - time.Microsecond)
	if _, _, err := svc.Authenticate(ctx, raw2); err != nil {
		t.Fatalf("another process's revocation applied before the TTL: %v", err)
	}
	clk.Advance(time.Microsecond)
	_, _, err = svc.Authenticate(ctx, raw2)
	wantCode(t, err, rampway.EUNAUTHORIZED) // from another process: after the TTL
}

// Every merchant has keys and webhook secrets of both modes; a key's text says its mode, and
// the mode of a key cannot be changed by editing its text.
func TestModes(t *testing.T) {
	t.Parallel()
	for _, dev := range []bool{false, true} {
		svc := newService(t, dev)
		ctx := t.Context()
		if svc.DefaultLivemode() == dev {
			t.Fatalf("dev %v: default livemode %v", dev, svc.DefaultLivemode())
		}
		m, err := svc.Create(ctx, merchant.CreateParams{Name: "Acme"})
		if err != nil {
			t.Fatal(err)
		}
		for _, live := range []bool{false, true} {
			k, raw, err := svc.IssueAPIKey(ctx, m.ID, live)
			if err != nil {
				t.Fatal(err)
			}
			if want := rampway.APIKeyPrefix(live); !strings.HasPrefix(raw, want) || !strings.HasPrefix(k.Prefix, want) || k.Livemode() != live {
				t.Fatalf("live %v: key %q prefix %q livemode %v", live, raw, k.Prefix, k.Livemode())
			}
			_, got, err := svc.Authenticate(ctx, raw)
			if err != nil || got.Livemode() != live {
				t.Fatalf("live %v: authenticated %+v, %v", live, got, err)
			}
			// The same secret part under the other mode's prefix is no key.
			other := rampway.APIKeyPrefix(!live) + raw[len(rampway.APIKeyPrefix(live)):]
			_, _, err = svc.Authenticate(ctx, other)
			wantCode(t, err, rampway.EUNAUTHORIZED)
		}
		test, err := svc.SetWebhookSecret(ctx, m.ID, false, "", 0)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := svc.WebhookSecrets(ctx, m.ID, true); len(got) != 0 {
			t.Fatalf("a test-mode secret signs live events: %v", got)
		}
		live, err := svc.SetWebhookSecret(ctx, m.ID, true, "", 0)
		if err != nil {
			t.Fatal(err)
		}
		gotTest, _ := svc.WebhookSecrets(ctx, m.ID, false)
		gotLive, _ := svc.WebhookSecrets(ctx, m.ID, true)
		if live == test || len(gotTest) != 1 || gotTest[0] != test || len(gotLive) != 1 || gotLive[0] != live {
			t.Fatalf("secrets test %v live %v, want [%s] [%s]", gotTest, gotLive, test, live)
		}
	}
}
