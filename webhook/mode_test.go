package webhook_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/rampway/rampway/client"
	"github.com/rampway/rampway/merchant"
	"github.com/rampway/rampway/webhook"
)

// Webhook secrets are per mode: a test order's events are signed with the merchant's test-mode
// secret only, a live order's with its live-mode secret only, and each body says its mode.
func TestDeliveriesSignedWithTheirModesSecret(t *testing.T) {
	t.Parallel()
	store := openSQLite(t, filepath.Join(t.TempDir(), "m.db"))
	type hit struct {
		body []byte
		sig  string
	}
	hits := make(chan hit, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		hits <- hit{b, r.Header.Get(webhook.SignatureHeader)}
	}))
	defer srv.Close()
	svc := merchant.NewService(store, merchant.Options{HashSecret: "test-hash-secret-0123456789abcdef", DevMode: true})
	m, err := svc.Create(t.Context(), merchant.CreateParams{Name: "m", WebhookURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	secret := map[bool]string{}
	for _, live := range []bool{false, true} {
		if secret[live], err = svc.SetWebhookSecret(t.Context(), m.ID, live, "", 0); err != nil {
			t.Fatal(err)
		}
	}
	e := &env{t: t, store: store}
	e.dispatcher(webhook.Config{}, svc)
	for _, live := range []bool{false, true} {
		e.livemode = live
		o := e.order(m, 0)
		var h hit
		select {
		case h = <-hits:
		case <-time.After(time.Minute): // a bound for a stuck test
			t.Fatal("no delivery within a minute")
		}
		if _, err := client.VerifyWebhook(secret[live], h.body, h.sig, time.Now()); err != nil {
			t.Fatalf("livemode %v: not signed with its mode's secret: %v", live, err)
		}
		if _, err := client.VerifyWebhook(secret[!live], h.body, h.sig, time.Now()); err == nil {
			t.Fatalf("livemode %v: signed with the other mode's secret too", live)
		}
		var ev struct {
			Context struct {
				OrderID  string `json:"order_id"`
				Livemode *bool  `json:"livemode"`
			} `json:"context"`
		}
		if err := json.Unmarshal(h.body, &ev); err != nil || ev.Context.OrderID != o.ID || ev.Context.Livemode == nil || *ev.Context.Livemode != live {
			t.Fatalf("body %s: %v", h.body, err)
		}
	}
}
