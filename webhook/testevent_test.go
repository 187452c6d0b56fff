package webhook_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/client"
	"github.com/rampway/rampway/merchant"
	"github.com/rampway/rampway/webhook"
)

// A test event is one POST, signed with the merchant's secret of its mode only, of the body
// given; a receiver's 500 is reported as status 500 with an error; nothing is stored and
// nothing retried; the production client refuses a private address as deliveries do.
func TestSendTest(t *testing.T) {
	t.Parallel()
	store := openSQLite(t, filepath.Join(t.TempDir(), "t.db"))
	type hit struct {
		method, ua string
		body       []byte
		sig        string
	}
	var (
		mu     sync.Mutex
		hits   []hit
		answer = http.StatusOK
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		hits = append(hits, hit{r.Method, r.UserAgent(), b, r.Header.Get(webhook.SignatureHeader)})
		w.WriteHeader(answer)
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
	d := webhook.New(webhook.Config{AllowPrivate: true, UserAgent: "rampway/test"}, store, svc, slog.New(slog.DiscardHandler), nil)
	take := func() []hit {
		mu.Lock()
		defer mu.Unlock()
		h := hits
		hits = nil
		return h
	}

	for _, live := range []bool{false, true} {
		id := rampway.NewID(rampway.PrefixEvent, time.Now())
		body, err := rampway.TestEventBody(id, m.ID, live, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		status, err := d.SendTest(t.Context(), m.ID, live, srv.URL+"/hooks", body)
		if status != http.StatusOK || err != nil {
			t.Fatalf("livemode %v: %d, %v", live, status, err)
		}
		hs := take()
		if len(hs) != 1 || hs[0].method != http.MethodPost || string(hs[0].body) != string(body) || hs[0].ua != "rampway/test" {
			t.Fatalf("livemode %v: hits %+v", live, hs)
		}
		ev, err := client.VerifyWebhook(secret[live], hs[0].body, hs[0].sig, time.Now())
		if err != nil {
			t.Fatalf("livemode %v: not signed with its mode's secret: %v", live, err)
		}
		if _, err := client.VerifyWebhook(secret[!live], hs[0].body, hs[0].sig, time.Now()); err == nil {
			t.Fatalf("livemode %v: signed with the other mode's secret too", live)
		}
		var c rampway.TestEventContext
		if err := ev.DecodeContext(&c); err != nil || ev.ID != id || ev.Name != string(rampway.EventWebhookTest) || c.MerchantID != m.ID || c.Livemode != live {
			t.Fatalf("livemode %v: event %+v, context %+v, %v", live, ev, c, err)
		}
	}

	// A 500: reported, not retried.
	mu.Lock()
	answer = http.StatusInternalServerError
	mu.Unlock()
	body, _ := rampway.TestEventBody("evt_x", m.ID, false, time.Now())
	status, err := d.SendTest(t.Context(), m.ID, false, srv.URL, body)
	if status != http.StatusInternalServerError || err == nil || !strings.Contains(err.Error(), "500") {
		t.Fatalf("a 500: %d, %v", status, err)
	}
	// Run a while: the outbox has nothing (no delivery stored), so nothing is sent again.
	if n, err := d.Step(t.Context()); n != 0 || err != nil {
		t.Fatalf("step after a test event: %d started, %v", n, err)
	}
	if hs := take(); len(hs) != 1 {
		t.Fatalf("the failed test event was sent %d times, want once", len(hs))
	}
	if ds, err := store.MerchantDeliveries(t.Context(), m.ID, false, 0, 10); err != nil || len(ds) != 0 {
		t.Fatalf("deliveries stored: %v, %v", ds, err)
	}

	// No secret of the mode: nothing sent.
	other, err := svc.Create(t.Context(), merchant.CreateParams{Name: "o", WebhookURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if status, err := d.SendTest(t.Context(), other.ID, false, srv.URL, body); status != 0 || err == nil {
		t.Fatalf("no secret: %d, %v", status, err)
	}
	// The production client refuses a loopback address, as for deliveries.
	prod := webhook.New(webhook.Config{}, store, svc, slog.New(slog.DiscardHandler), nil)
	if status, err := prod.SendTest(t.Context(), m.ID, false, srv.URL, body); status != 0 || err == nil {
		t.Fatalf("production client to loopback: %d, %v", status, err)
	}
	if hs := take(); len(hs) != 0 {
		t.Fatalf("hits %+v", hs)
	}
}
