package httpapi

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rampway/rampway/merchant"
	"github.com/rampway/rampway/storetest"
)

// sseEvent is one server-sent event.
type sseEvent struct{ name, id, data string }

// openStream opens the delivery stream with key (and Last-Event-ID when set) and returns its
// events as they come; the stream closes with the test.
func openStream(t *testing.T, base, key, lastID string) (*http.Response, <-chan sseEvent) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+routeListen, nil)
	req.Header.Set("X-API-KEY", key)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan sseEvent, 100)
	if res.StatusCode != http.StatusOK {
		close(ch)
		return res, ch
	}
	go func() {
		defer close(ch)
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		var ev sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.name != "" {
					ch <- ev
				}
				ev = sseEvent{}
			case strings.HasPrefix(line, "event: "):
				ev.name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "id: "):
				ev.id = strings.TrimPrefix(line, "id: ")
			case strings.HasPrefix(line, "data: "):
				ev.data += strings.TrimPrefix(line, "data: ")
			case strings.HasPrefix(line, ": ") && ev.name == "":
				ev.name = strings.TrimPrefix(line, ": ") // a comment: the keep-alive
			}
		}
	}()
	return res, ch
}

func next(t *testing.T, ch <-chan sseEvent) sseEvent {
	t.Helper()
	select {
	case ev, ok := <-ch:
		if !ok {
			t.Fatal("the stream ended")
		}
		return ev
	case <-time.After(time.Minute):
		t.Fatal("no event in a minute")
	}
	return sseEvent{}
}

// The stream of a merchant's deliveries: authenticated, from the newest event on, each
// delivery's body byte for byte, none of another merchant's; resumed after Last-Event-ID;
// at most listenPerMerch streams at once.
func TestListenStream(t *testing.T) {
	t.Parallel()
	e := newMintEnv(t)
	srv := httptest.NewServer(New(testConfig(), Deps{Merchants: e.svc, Functions: e.functions, Checkout: e.checkout, Idempotency: e.store,
		DB: e.ping, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Metrics: prometheus.NewRegistry(), Events: e.store}))
	t.Cleanup(srv.Close)
	e.srv = srv
	if _, err := e.svc.SetWebhookSecret(t.Context(), e.merchant.ID, false, "", 0); err != nil {
		t.Fatal(err)
	}
	hooked := func(b map[string]any) { b["merchant_webhook_url"] = "http://127.0.0.1:9/hooks" }
	before := decode[MintOrderView](t, e.merchantAPI(http.MethodPost, mintOrderPath, e.body(hooked)), 201)

	if res, _ := openStream(t, srv.URL, "rw_test_not-a-key", ""); res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a bad key: %d", res.StatusCode)
	}
	res, ch := openStream(t, srv.URL, e.key, "")
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("stream: %d %q", res.StatusCode, res.Header.Get("Content-Type"))
	}
	ready := next(t, ch)
	if ready.name != "ready" || !strings.Contains(ready.data, e.merchant.ID) {
		t.Fatalf("first event %+v", ready)
	}

	// Another merchant's order, then one of ours: only ours comes, as stored.
	other, err := e.svc.Create(t.Context(), merchant.CreateParams{Name: "Other Shop", WebhookURL: "https://other.example/hooks"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.SetWebhookSecret(t.Context(), other.ID, false, "", 0); err != nil {
		t.Fatal(err)
	}
	o := decode[MintOrderView](t, e.merchantAPI(http.MethodPost, mintOrderPath, e.body(hooked)), 201)
	ev := next(t, ch)
	ds, err := e.store.Deliveries(t.Context(), o.OrderID)
	if err != nil || len(ds) != 1 {
		t.Fatalf("deliveries %v %v", ds, err)
	}
	if ev.name != "delivery" || ev.data != string(ds[0].Body) {
		t.Fatalf("event %+v\nwant the delivery's body %s", ev, ds[0].Body)
	}
	var body struct {
		Context struct {
			OrderID string `json:"order_id"`
		} `json:"context"`
	}
	if err := json.Unmarshal([]byte(ev.data), &body); err != nil || body.Context.OrderID != o.OrderID || o.OrderID == before.OrderID {
		t.Fatalf("event body %s: %v", ev.data, err)
	}

	// Resumed from the ready event's id: the order made before it is not sent again, the
	// later one is.
	_, ch2 := openStream(t, srv.URL, e.key, ready.id)
	if r := next(t, ch2); r.name != "ready" {
		t.Fatalf("resumed stream's first event %+v", r)
	}
	if ev2 := next(t, ch2); ev2.data != ev.data {
		t.Fatalf("resumed: %+v, want the later order's delivery", ev2)
	}
	if res, _ := openStream(t, srv.URL, e.key, "x"); res.StatusCode != http.StatusBadRequest {
		t.Fatalf("a bad Last-Event-ID: %d", res.StatusCode)
	}
	// Two open; three more allowed, the sixth refused.
	for range listenPerMerch - 2 {
		if res, ch := openStream(t, srv.URL, e.key, ""); res.StatusCode != http.StatusOK || next(t, ch).name != "ready" {
			t.Fatalf("stream %d", res.StatusCode)
		}
	}
	if res, _ := openStream(t, srv.URL, e.key, ""); res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("one stream too many: %d", res.StatusCode)
	}
}

// A quiet merchant's stream moves its resume point over the other merchants' events once they
// are settled: its reads do not start ever further back while others write (each read would
// walk every event written since the merchant's last one).
func TestListenMovesOverOtherMerchantsEvents(t *testing.T) {
	t.Parallel()
	e := newMintEnv(t)
	s := New(testConfig(), Deps{Merchants: e.svc, Functions: e.functions, Checkout: e.checkout, Idempotency: e.store,
		DB: e.ping, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Metrics: prometheus.NewRegistry(), Events: e.store})
	s.listenSettle, s.listenKeepAlive = 50*time.Millisecond, 20*time.Millisecond
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	_, ch := openStream(t, srv.URL, e.key, "")
	ready := next(t, ch)
	start, err := strconv.ParseInt(ready.id, 10, 64)
	if ready.name != "ready" || err != nil {
		t.Fatalf("first event %+v", ready)
	}
	other := storetest.NewMerchant(t, e.store)
	for range 3 {
		idx, err := e.store.NextDepositIndex(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if err := e.store.CreateOrder(t.Context(), storetest.NewOrder(other.ID, idx)); err != nil {
			t.Fatal(err)
		}
	}
	top, err := e.store.LastEventSeq(t.Context())
	if err != nil || top <= start {
		t.Fatalf("the other merchant's events: up to %d (%v), the stream started at %d", top, err, start)
	}
	deadline := time.After(30 * time.Second) // a bound for a stuck test, not a margin: it passes as soon as it can
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				t.Fatal("the stream ended")
			}
			if ev.name == "delivery" {
				t.Fatalf("another merchant's delivery in the stream: %+v", ev)
			}
			if id, _ := strconv.ParseInt(ev.id, 10, 64); id >= top {
				return
			}
		case <-deadline:
			t.Fatalf("the resume point stayed below the other merchant's events (%d)", top)
		}
	}
}
