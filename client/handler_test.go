package client_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rampway/rampway/client"
)

// deliver POSTs body to url signed at t with secret (none when empty), as rampway does, and
// returns the status (0 after reporting an error). It may run in any goroutine.
func deliver(tb testing.TB, url, secret, body string, t time.Time) int {
	tb.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		tb.Error(err)
		return 0
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "rampway/test")
	if secret != "" {
		req.Header.Set(client.SignatureHeader, client.Sign(secret, []byte(body), t))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Error(err)
		return 0
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

func TestWebhookHandler(t *testing.T) {
	var (
		mu    sync.Mutex
		calls []string
		fail  atomic.Bool
	)
	v := &client.Verifier{Secrets: []string{testSecret}, Seen: client.NewMemoryDeduper(time.Hour)}
	srv := httptest.NewServer(client.WebhookHandler(v, func(ctx context.Context, ev *client.Event) error {
		if ctx == nil {
			t.Error("nil context")
		}
		mu.Lock()
		calls = append(calls, ev.ID)
		mu.Unlock()
		if fail.Load() {
			return errors.New("database down")
		}
		return nil
	}))
	defer srv.Close()

	body2 := strings.Replace(testBody, "evt_01", "evt_02", 1)
	now := time.Now()
	steps := []struct {
		name   string
		secret string
		body   string
		t      time.Time
		fail   bool
		want   int
	}{
		{"valid", testSecret, testBody, now, false, http.StatusOK},
		{"duplicate acknowledged, fn not called", testSecret, testBody, now.Add(time.Second), false, http.StatusOK},
		{"bad signature", otherSecret, body2, now, false, http.StatusBadRequest},
		{"no signature", "", body2, now, false, http.StatusBadRequest},
		{"t too old", testSecret, body2, now.Add(-6 * time.Minute), false, http.StatusBadRequest},
		{"t too new", testSecret, body2, now.Add(6 * time.Minute), false, http.StatusBadRequest},
		{"bad body", testSecret, `{"eventName":"order.success"}`, now, false, http.StatusBadRequest},
		{"fn fails: 500 so rampway retries", testSecret, body2, now, true, http.StatusInternalServerError},
		{"retry after a failure reaches fn", testSecret, body2, now, false, http.StatusOK},
		{"then it is a duplicate", testSecret, body2, now, false, http.StatusOK},
	}
	for _, s := range steps {
		fail.Store(s.fail)
		if got := deliver(t, srv.URL, s.secret, s.body, s.t); got != s.want {
			t.Errorf("%s: status %d, want %d", s.name, got, s.want)
		}
	}
	want := []string{"evt_01", "evt_02", "evt_02"}
	if strings.Join(calls, ",") != strings.Join(want, ",") {
		t.Fatalf("fn called with %v, want %v", calls, want)
	}
}

func TestWebhookHandlerWithoutDeduper(t *testing.T) {
	var calls atomic.Int32
	v := &client.Verifier{Secrets: []string{testSecret}}
	h := client.WebhookHandler(v, func(context.Context, *client.Event) error { calls.Add(1); return nil })
	for range 2 {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, "/webhooks/rampway", strings.NewReader(testBody))
		req.Header.Set(client.SignatureHeader, client.Sign(testSecret, []byte(testBody), time.Now()))
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("status %d", rec.Code)
		}
	}
	if calls.Load() != 2 {
		t.Fatalf("fn called %d times, want 2 (nothing dedupes)", calls.Load())
	}
}

func TestWebhookHandlerRequests(t *testing.T) {
	v := &client.Verifier{Secrets: []string{testSecret}}
	h := client.WebhookHandler(v, func(context.Context, *client.Event) error { return nil })
	big := `{"eventId":"evt_01","eventName":"order.success","context":{"pad":"` + strings.Repeat("x", client.MaxBodyBytes) + `"}}`
	tests := []struct {
		name    string
		method  string
		body    string
		secrets []string
		want    int
		wantIn  string // in the answer's body
	}{
		{name: "GET", method: http.MethodGet, body: "", want: http.StatusMethodNotAllowed},
		{name: "body too large", method: http.MethodPost, body: big, want: http.StatusRequestEntityTooLarge},
		{name: "reason in the answer", method: http.MethodPost, body: testBody, secrets: []string{otherSecret},
			want: http.StatusBadRequest, wantIn: "bad signature"},
		{name: "no secret configured", method: http.MethodPost, body: testBody, secrets: []string{""},
			want: http.StatusInternalServerError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := h
			if tt.secrets != nil {
				h = client.WebhookHandler(&client.Verifier{Secrets: tt.secrets}, func(context.Context, *client.Event) error { return nil })
			}
			rec := httptest.NewRecorder()
			req := httptest.NewRequest(tt.method, "/webhooks/rampway", strings.NewReader(tt.body))
			req.Header.Set(client.SignatureHeader, client.Sign(testSecret, []byte(tt.body), time.Now()))
			h.ServeHTTP(rec, req)
			if rec.Code != tt.want || !strings.Contains(rec.Body.String(), tt.wantIn) {
				t.Fatalf("answer %d %q, want %d containing %q", rec.Code, rec.Body.String(), tt.want, tt.wantIn)
			}
		})
	}
}

// A retry that arrives while the first delivery is still in fn is not acknowledged: if fn
// then failed, the event would be lost.
func TestWebhookHandlerInFlight(t *testing.T) {
	for _, fnFails := range []bool{false, true} {
		entered, release := make(chan struct{}), make(chan struct{})
		var calls atomic.Int32
		v := &client.Verifier{Secrets: []string{testSecret}, Seen: client.NewMemoryDeduper(time.Hour)}
		srv := httptest.NewServer(client.WebhookHandler(v, func(ctx context.Context, ev *client.Event) error {
			if calls.Add(1) == 1 {
				close(entered)
				<-release
				if fnFails {
					return errors.New("failed")
				}
			}
			return nil
		}))

		first := make(chan int)
		go func() { first <- deliver(t, srv.URL, testSecret, testBody, time.Now()) }()
		<-entered
		if got := deliver(t, srv.URL, testSecret, testBody, time.Now()); got != http.StatusConflict {
			t.Errorf("fnFails=%v: retry during processing: status %d, want 409", fnFails, got)
		}
		close(release)
		wantFirst := http.StatusOK
		if fnFails {
			wantFirst = http.StatusInternalServerError
		}
		if got := <-first; got != wantFirst {
			t.Errorf("fnFails=%v: first delivery: status %d, want %d", fnFails, got, wantFirst)
		}
		// The next retry: acknowledged without fn after a success, processed after a failure.
		if got := deliver(t, srv.URL, testSecret, testBody, time.Now()); got != http.StatusOK {
			t.Errorf("fnFails=%v: later retry: status %d", fnFails, got)
		}
		if want := map[bool]int32{false: 1, true: 2}[fnFails]; calls.Load() != want {
			t.Errorf("fnFails=%v: fn called %d times, want %d", fnFails, calls.Load(), want)
		}
		srv.Close()
	}
}

func TestWebhookHandlerPanicForgets(t *testing.T) {
	var calls atomic.Int32
	v := &client.Verifier{Secrets: []string{testSecret}, Seen: client.NewMemoryDeduper(time.Hour)}
	h := client.WebhookHandler(v, func(context.Context, *client.Event) error {
		if calls.Add(1) == 1 {
			panic("boom")
		}
		return nil
	})
	serve := func() (code int, panicked bool) {
		defer func() {
			if recover() != nil {
				panicked = true
			}
		}()
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(testBody))
		req.Header.Set(client.SignatureHeader, client.Sign(testSecret, []byte(testBody), time.Now()))
		h.ServeHTTP(rec, req)
		return rec.Code, false
	}
	if _, panicked := serve(); !panicked {
		t.Fatal("panic swallowed")
	}
	if code, _ := serve(); code != http.StatusOK || calls.Load() != 2 {
		t.Fatalf("retry after a panic: status %d, fn called %d times", code, calls.Load())
	}
}

func TestWebhookHandlerNil(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	client.WebhookHandler(nil, nil)
}
