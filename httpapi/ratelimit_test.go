package httpapi

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rampway/rampway/checkoutpage"
	"github.com/rampway/rampway/internal/devtest"
	"github.com/rampway/rampway/merchant"
	"github.com/rampway/rampway/mock"
)

// limitEnv is a server with a rate limit and a clock the test moves, and two merchants.
type limitEnv struct {
	t      *testing.T
	srv    *Server
	clock  *devtest.Clock
	keyA   string
	keyB   string
	idA    string
	pageOK atomic.Int32
}

// fiatPath is a merchant GET that needs no chain: area B's fiat currencies.
const fiatPath = "/nft-ramp" + routeFiatCurrencies

func newLimitEnv(t *testing.T, rl RateLimit) *limitEnv {
	t.Helper()
	store, svc := openMerchants(t)
	e := &limitEnv{t: t, clock: devtest.NewClock(time.Date(2026, 11, 21, 14, 0, 0, 0, time.UTC))}
	for _, dst := range []*string{&e.keyA, &e.keyB} {
		m, err := svc.Create(t.Context(), merchant.CreateParams{Name: "Shop"})
		if err != nil {
			t.Fatal(err)
		}
		if _, *dst, err = svc.IssueAPIKey(t.Context(), m.ID, false); err != nil {
			t.Fatal(err)
		}
		if e.idA == "" {
			e.idA = m.ID
		}
	}
	page := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.pageOK.Add(1)
		w.WriteHeader(http.StatusNoContent)
	})
	e.srv = New(Config{BasePaths: BasePaths{Mint: "/mint", NFTRamp: "/nft-ramp", Deposit: "/deposit", Admin: "/admin"},
		MaxBodyBytes: 1 << 20, AdminToken: adminToken, Version: "test", RateLimit: rl},
		Deps{Merchants: svc, Checkout: &mock.Checkout{}, Idempotency: store, DB: &fakePinger{}, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
			Metrics: prometheus.NewRegistry(), Page: page})
	if e.srv.limiter != nil {
		e.srv.limiter.now = e.clock.Now
	}
	return e
}

func (e *limitEnv) do(method, path, body string, header map[string]string) resp {
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, path, r)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	e.srv.ServeHTTP(rec, req)
	return resp{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
}

func (e *limitEnv) get(key string) resp {
	return e.do(http.MethodGet, fiatPath, "", map[string]string{"X-API-KEY": key})
}

// wantAdmitted fails unless r got past the limit: the route's own answer, 200 (B2) or 400 (B1
// with a body lacking its fields).
func wantAdmitted(t *testing.T, r resp, what string) {
	t.Helper()
	if r.status != http.StatusOK && r.status != http.StatusBadRequest {
		t.Fatalf("%s: %d %s, want the route's own answer", what, r.status, r.body)
	}
}

// wantLimited checks the 429: envelope, message and Retry-After.
func wantLimited(t *testing.T, r resp, path, perSecond, retryAfter string) {
	t.Helper()
	wantEnvelope(t, r, http.StatusTooManyRequests, http.StatusTooManyRequests, path,
		"Too many requests: at most "+perSecond+" per second for this merchant; retry after "+retryAfter+" s")
	if got := r.header.Get("Retry-After"); got != retryAfter {
		t.Fatalf("Retry-After %q, want %q", got, retryAfter)
	}
}

func TestRateLimitPerMerchant(t *testing.T) {
	t.Parallel()
	e := newLimitEnv(t, RateLimit{RequestsPerSecond: 1, Burst: 3})
	// An unauthenticated flood, even naming merchant A, takes nothing from A's bucket.
	for range 10 {
		if r := e.do(http.MethodGet, fiatPath+"?merchant_id="+e.idA, "", map[string]string{"X-API-KEY": "nope"}); r.status != http.StatusUnauthorized {
			t.Fatalf("unauthenticated: %d %s", r.status, r.body)
		}
	}
	for i := range 3 {
		wantAdmitted(t, e.get(e.keyA), fmt.Sprintf("A's request %d of its burst", i+1))
	}
	wantLimited(t, e.get(e.keyA), fiatPath, "1", "1")
	wantLimited(t, e.get(e.keyA), fiatPath, "1", "1")
	// Another merchant has its own bucket.
	for i := range 3 {
		wantAdmitted(t, e.get(e.keyB), fmt.Sprintf("B's request %d", i+1))
	}
	// A POST too, before its body is read; the admin API, the checkout page and operations are not limited.
	r := e.do(http.MethodPost, "/nft-ramp"+routeOrder, `{"merchant_id":"`+e.idA+`"}`, map[string]string{"X-API-KEY": e.keyA})
	wantLimited(t, r, "/nft-ramp"+routeOrder, "1", "1")
	page := regexp.MustCompile(`\{[^}]+\}`).ReplaceAllString(strings.TrimPrefix(checkoutpage.Routes()[0], "GET "), "x")
	for range 5 {
		if r := e.do(http.MethodGet, "/admin/merchants", "", map[string]string{"Authorization": "Bearer " + adminToken, "X-API-KEY": e.keyA}); r.status != http.StatusOK {
			t.Fatalf("admin: %d %s", r.status, r.body)
		}
		if r := e.do(http.MethodGet, "/healthz", "", map[string]string{"X-API-KEY": e.keyA}); r.status != http.StatusOK {
			t.Fatalf("healthz: %d %s", r.status, r.body)
		}
		if r := e.do(http.MethodGet, page, "", map[string]string{"X-API-KEY": e.keyA}); r.status != http.StatusNoContent {
			t.Fatalf("checkout page %s: %d %s", page, r.status, r.body)
		}
	}
	if e.pageOK.Load() != 5 {
		t.Fatalf("checkout page served %d times", e.pageOK.Load())
	}

	// The bucket refills at 1 per second.
	e.clock.Advance(time.Second)
	wantAdmitted(t, e.get(e.keyA), "A after a second")
	wantLimited(t, e.get(e.keyA), fiatPath, "1", "1")
	e.clock.Advance(3 * time.Second)
	for i := range 3 {
		wantAdmitted(t, e.get(e.keyA), fmt.Sprintf("A's refilled request %d", i+1))
	}
	wantLimited(t, e.get(e.keyA), fiatPath, "1", "1")
}

// A refused request takes no token, and Retry-After is the wait for the next one, rounded up.
func TestRateLimitRetryAfter(t *testing.T) {
	t.Parallel()
	e := newLimitEnv(t, RateLimit{RequestsPerSecond: 0.25, Burst: 1})
	wantAdmitted(t, e.get(e.keyA), "first")
	wantLimited(t, e.get(e.keyA), fiatPath, "0.25", "4")
	e.clock.Advance(1500 * time.Millisecond)
	wantLimited(t, e.get(e.keyA), fiatPath, "0.25", "3")
	e.clock.Advance(2 * time.Second)
	wantLimited(t, e.get(e.keyA), fiatPath, "0.25", "1") // 0.5 s
	e.clock.Advance(500 * time.Millisecond)
	// Four refusals later, the token is there on time: they took nothing.
	wantAdmitted(t, e.get(e.keyA), "after 4 s")
	wantLimited(t, e.get(e.keyA), fiatPath, "0.25", "4")
}

// An idempotent replay is a request like any other.
func TestRateLimitCountsIdempotentReplays(t *testing.T) {
	t.Parallel()
	e := newLimitEnv(t, RateLimit{RequestsPerSecond: 1, Burst: 2})
	path := "/nft-ramp" + routeOrder
	send := func() resp {
		return e.do(http.MethodPost, path, `{"merchant_id":"`+e.idA+`"}`, map[string]string{"X-API-KEY": e.keyA, "Idempotency-Key": "k-1"})
	}
	for i := range 2 {
		wantAdmitted(t, send(), fmt.Sprintf("send %d", i+1))
	}
	wantLimited(t, send(), path, "1", "1")
}

// Concurrent requests of one merchant: exactly the burst gets through.
func TestRateLimitConcurrent(t *testing.T) {
	t.Parallel()
	e := newLimitEnv(t, RateLimit{RequestsPerSecond: 1, Burst: 20})
	var admitted, limited atomic.Int32
	var wg sync.WaitGroup
	for range 100 {
		wg.Go(func() {
			switch r := e.get(e.keyA); r.status {
			case http.StatusOK:
				admitted.Add(1)
			case http.StatusTooManyRequests:
				limited.Add(1)
			default:
				t.Errorf("%d %s", r.status, r.body)
			}
		})
	}
	wg.Wait()
	if admitted.Load() != 20 || limited.Load() != 80 {
		t.Fatalf("admitted %d, limited %d; want 20 and 80", admitted.Load(), limited.Load())
	}
}

func TestRateLimitOff(t *testing.T) {
	t.Parallel()
	for _, rl := range []RateLimit{{}, {RequestsPerSecond: 0, Burst: 200}} {
		e := newLimitEnv(t, rl)
		if e.srv.limiter != nil {
			t.Fatalf("%+v: a limiter", rl)
		}
		for i := range 300 {
			wantAdmitted(t, e.get(e.keyA), fmt.Sprintf("%+v: request %d", rl, i+1))
		}
	}
}

// Buckets of merchants idle until their bucket is full again are dropped: memory holds the
// merchants of the last two idle periods at most.
func TestRateLimitEvictsIdleBuckets(t *testing.T) {
	t.Parallel()
	if l := newMerchantLimiter(RateLimit{RequestsPerSecond: 1, Burst: 120}); l.idle != 120*time.Second {
		t.Fatalf("idle %v, want the 120 s that refill a bucket", l.idle)
	}
	l := newMerchantLimiter(RateLimit{RequestsPerSecond: 10, Burst: 5})
	if l.idle != minBucketIdle {
		t.Fatalf("idle %v, want %v", l.idle, minBucketIdle)
	}
	now := time.Date(2026, 11, 21, 14, 0, 0, 0, time.UTC)
	l.now = func() time.Time { return now }
	for i := range 1000 {
		if ok, _ := l.allow(fmt.Sprintf("mch_%d", i)); !ok {
			t.Fatal("refused")
		}
	}
	for range 4 {
		l.allow("mch_0")
	}
	if ok, _ := l.allow("mch_0"); ok {
		t.Fatal("mch_0 over its burst admitted")
	}
	if n := l.size(); n != 1000 {
		t.Fatalf("%d buckets, want 1000", n)
	}
	now = now.Add(30 * time.Second)
	l.allow("mch_1")
	if n := l.size(); n != 1000 {
		t.Fatalf("%d buckets before a minute, want 1000", n)
	}
	now = now.Add(31 * time.Second)
	l.allow("mch_new")
	if n := l.size(); n != 2 { // mch_1, used 31 s ago, and mch_new
		t.Fatalf("%d buckets after a minute, want 2", n)
	}
	// mch_0 comes back to a full bucket, as its old one would be by now.
	for i := range 5 {
		if ok, _ := l.allow("mch_0"); !ok {
			t.Fatalf("mch_0's request %d refused", i+1)
		}
	}
	if ok, _ := l.allow("mch_0"); ok {
		t.Fatal("mch_0 over its burst admitted")
	}
}
