package webhook_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/client"
	"github.com/rampway/rampway/internal/devtest"
	"github.com/rampway/rampway/internal/pgtest"
	"github.com/rampway/rampway/internal/sqlstore"
	"github.com/rampway/rampway/merchant"
	"github.com/rampway/rampway/postgres"
	"github.com/rampway/rampway/sqlite"
	"github.com/rampway/rampway/storetest"
	"github.com/rampway/rampway/webhook"
)

type env struct {
	t     *testing.T
	store *sqlstore.Store
	// livemode is the mode of the orders order creates.
	livemode bool
}

func newEnv(t *testing.T) *env {
	store, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "w.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return &env{t: t, store: store}
}

// merchant makes a merchant whose events go to url, signed with secret.
func (e *env) merchant(url, secret string) *rampway.Merchant {
	e.t.Helper()
	now := time.Now().UTC().Truncate(time.Microsecond)
	m := &rampway.Merchant{ID: rampway.NewID(rampway.PrefixMerchant, now), Name: "m", Status: rampway.MerchantActive, WebhookURL: url,
		WebhookSecret: secret, CreatedAt: now, UpdatedAt: now}
	if err := e.store.CreateMerchant(e.t.Context(), m); err != nil {
		e.t.Fatal(err)
	}
	return m
}

// order makes an order of m (its order.created event is the first delivery) and moves it
// through steps more transitions.
func (e *env) order(m *rampway.Merchant, steps int) *rampway.Order {
	e.t.Helper()
	now := time.Now().UTC().Truncate(time.Microsecond)
	i, _ := e.store.NextDepositIndex(e.t.Context())
	o := &rampway.Order{ID: rampway.NewID(rampway.PrefixOrder, now), MerchantID: m.ID, Area: rampway.AreaMint, Status: rampway.StatusCreated,
		Livemode: e.livemode, MerchantUserID: "u", MerchantTxnID: "txn-" + m.ID, MerchantRedirectURL: "https://x.example", Network: "devnet",
		Asset: rampway.Asset{Symbol: "ETH", Network: "devnet", Decimals: 18}, CryptoAmount: big.NewInt(1e16), CryptoReceived: new(big.Int),
		PaymentValue: new(big.Int), NetworkFee: new(big.Int), ServiceFee: new(big.Int), FunctionArgs: []byte(`{}`),
		DepositAddress: common.BigToAddress(big.NewInt(int64(i) + 1)), DepositIndex: i, ExpiresAt: now.Add(time.Hour), CreatedAt: now, UpdatedAt: now}
	if err := e.store.CreateOrder(e.t.Context(), o); err != nil {
		e.t.Fatal(err)
	}
	if steps > 0 {
		storetest.Drive(e.t, e.store, o.ID, []rampway.OrderStatus{rampway.StatusDepositProcessing, rampway.StatusDepositSuccess}[steps-1])
	}
	return o
}

type secrets map[string][]string

func (s secrets) WebhookSecrets(_ context.Context, id string, _ bool) ([]string, error) {
	return s[id], nil
}

// gauge counts the requests a test receiver is handling and keeps the most at once.
type gauge struct{ in, most, total atomic.Int64 }

// enter counts a request in; the returned func counts it out.
func (g *gauge) enter() func() {
	g.total.Add(1)
	n := g.in.Add(1)
	for m := g.most.Load(); n > m && !g.most.CompareAndSwap(m, n); m = g.most.Load() {
	}
	return func() { g.in.Add(-1) }
}

// hangingReceiver is an endpoint that answers nothing until release is closed (then 503) or
// its request is cancelled. Close release before the server (Close waits for its handlers).
func hangingReceiver(g *gauge, release <-chan struct{}) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer g.enter()()
		select {
		case <-release:
			w.WriteHeader(http.StatusServiceUnavailable)
		case <-r.Context().Done():
		}
	}))
}

// okReceiver is an endpoint that answers 200 at once.
func okReceiver(g *gauge) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { g.enter()() }))
}

// fast retries for tests.
var fast = webhook.Schedule{First: 20 * time.Millisecond, Max: 40 * time.Millisecond, GiveUpAfter: time.Hour}

func (e *env) dispatcher(cfg webhook.Config, sec webhook.Secrets) (*webhook.Dispatcher, context.CancelFunc) {
	if cfg.Schedule == (webhook.Schedule{}) {
		cfg.Schedule = fast
	}
	cfg.AllowPrivate = true // the receivers are httptest servers on loopback
	cfg.UserAgent = "rampway/test"
	d := webhook.New(cfg, e.store, sec, slog.New(slog.DiscardHandler), nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { d.Run(ctx); close(done) }()
	stop := func() { cancel(); <-done }
	e.t.Cleanup(stop)
	return d, stop
}

func (e *env) waitDelivered(orderIDs []string) {
	e.t.Helper()
	storetest.WaitDelivered(e.t, e.store, orderIDs)
}

type hit struct {
	body []byte
	sig  string
	ua   string
	ct   string
}

// A receiver that fails three times gets the event four times: same eventId, same bytes, each
// attempt signed anew; the log shows the four attempts.
func TestRetriesUntilSuccess(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var mu sync.Mutex
	var hits []hit
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		hits = append(hits, hit{b, r.Header.Get(webhook.SignatureHeader), r.UserAgent(), r.Header.Get("Content-Type")})
		n := len(hits)
		mu.Unlock()
		if n <= 3 {
			w.WriteHeader(http.StatusInternalServerError)
		}
	}))
	defer srv.Close()
	m := e.merchant(srv.URL, "whsec_test")
	o := e.order(m, 0)
	e.dispatcher(webhook.Config{}, secrets{m.ID: {"whsec_test"}})
	e.waitDelivered([]string{o.ID})

	mu.Lock()
	defer mu.Unlock()
	if len(hits) != 4 {
		t.Fatalf("%d attempts, want 4", len(hits))
	}
	var first client.Event
	for i, h := range hits {
		if string(h.body) != string(hits[0].body) {
			t.Fatalf("attempt %d sent other bytes:\n%s\n%s", i+1, h.body, hits[0].body)
		}
		ev, err := client.VerifyWebhook("whsec_test", h.body, h.sig, time.Now())
		if err != nil || h.ua != "rampway/test" || h.ct != "application/json" {
			t.Fatalf("attempt %d: %v %q %q", i+1, err, h.ua, h.ct)
		}
		if i == 0 {
			first = *ev
		} else if ev.ID != first.ID {
			t.Fatalf("eventId changed: %s then %s", first.ID, ev.ID)
		}
	}
	if first.Name != string(rampway.EventCreated) {
		t.Fatalf("event %s", first.Name)
	}
	oc, err := first.Order()
	if err != nil || oc.OrderID != o.ID || oc.MerchantTxnID != o.MerchantTxnID || oc.Status != "CREATED" || oc.CryptoAmount != "0.01" {
		t.Fatalf("context: %+v %v", oc, err)
	}
	ds, _ := e.store.Deliveries(t.Context(), o.ID)
	all, _ := e.store.DeliveryAttempts(t.Context(), o.ID)
	var attempts []*rampway.DeliveryAttempt
	for _, a := range all {
		if a.EventID == ds[0].EventID {
			attempts = append(attempts, a)
		}
	}
	if len(attempts) != 4 || attempts[0].StatusCode != 500 || attempts[3].StatusCode != 200 || attempts[3].Error != "" || ds[0].DeliveredAt == nil {
		t.Fatalf("log: %+v / %+v", ds[0], attempts)
	}
}

// Events of an order arrive in order, the next waiting for the previous one's success.
func TestOrderOfEvents(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var mu sync.Mutex
	var got []string
	failures := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ev struct {
			EventName string `json:"eventName"`
		}
		_ = json.NewDecoder(r.Body).Decode(&ev)
		mu.Lock()
		defer mu.Unlock()
		if ev.EventName == string(rampway.EventCreated) && failures[ev.EventName] < 2 { // the first event fails twice
			failures[ev.EventName]++
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		got = append(got, ev.EventName)
	}))
	defer srv.Close()
	m := e.merchant(srv.URL, "s")
	o := e.order(m, 2)
	e.dispatcher(webhook.Config{}, secrets{m.ID: {"s"}})
	e.waitDelivered([]string{o.ID})
	mu.Lock()
	defer mu.Unlock()
	if want := []rampway.EventName{rampway.EventCreated, rampway.EventDepositProcessing, rampway.EventDepositSuccess}; !slices.Equal(got, []string{string(want[0]), string(want[1]), string(want[2])}) {
		t.Fatalf("arrived %v, want %v", got, want)
	}
}

// A hanging endpoint holds at most its share of workers (per_merchant): another merchant's
// events go on. With as many workers as that share, they go on only because hanging attempts
// give their workers back after SlowAfter.
func TestHangingEndpointDoesNotDelayOthers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		cfg  webhook.Config
	}{
		{"spare workers", webhook.Config{Workers: 8, PerMerchant: 2}},
		{"every worker hangs", webhook.Config{Workers: 2, PerMerchant: 2, SlowAfter: 100 * time.Millisecond}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			release := make(chan struct{})
			var hung, fast gauge
			slow := hangingReceiver(&hung, release)
			defer slow.Close()
			defer close(release)
			quick := okReceiver(&fast)
			defer quick.Close()
			a, b := e.merchant(slow.URL, "a"), e.merchant(quick.URL, "b")
			var quickOrders []string
			for range 20 { // the dead endpoint's events first: they are claimed first
				e.order(a, 0)
			}
			for range 20 {
				quickOrders = append(quickOrders, e.order(b, 0).ID)
			}
			tc.cfg.Timeout = time.Hour // the hanging attempts end when the test releases them
			e.dispatcher(tc.cfg, secrets{a.ID: {"a"}, b.ID: {"b"}})
			// Delivered while the dead endpoint's attempts still hang (they end only when the
			// test ends): the other merchant's events did not wait for them.
			e.waitDelivered(quickOrders)
			if n := hung.in.Load(); n != 2 {
				t.Fatalf("%d attempts still hanging once the other merchant's events were delivered, want 2", n)
			}
			if n := hung.most.Load(); n != 2 {
				t.Fatalf("%d attempts hung at once on the dead endpoint, want 2 (per_merchant)", n)
			}
			if n := fast.total.Load(); n != 20 {
				t.Fatalf("%d deliveries to the quick endpoint, want 20", n)
			}
		})
	}
}

// A merchant with more due than its share: every event goes out, never more than PerMerchant at
// once, the claimed rest waiting in memory rather than going back to the store.
func TestPerMerchantShareWithQueue(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var g gauge
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		defer g.enter()()
		time.Sleep(20 * time.Millisecond)
	}))
	defer srv.Close()
	m := e.merchant(srv.URL, "q")
	var orders []string
	for range 20 {
		orders = append(orders, e.order(m, 0).ID)
	}
	e.dispatcher(webhook.Config{Workers: 8, PerMerchant: 3}, secrets{m.ID: {"q"}})
	e.waitDelivered(orders)
	if n := g.most.Load(); n > 3 {
		t.Fatalf("%d attempts at once, want at most 3 (per_merchant)", n)
	}
	if n := g.total.Load(); n != 20 {
		t.Fatalf("%d requests, want 20", n)
	}
}

// settle runs d's steps until one finds nothing due at d's clock with nothing in flight: d
// then makes no attempt until its clock moves (or a delivery is added), a fact rather than a
// quiet spell. Between steps Run, its context already ended, waits for the attempts in
// flight (it returns once they are recorded) and gives the queued deliveries back.
func settle(t *testing.T, d *webhook.Dispatcher) {
	t.Helper()
	ended, cancel := context.WithCancel(t.Context())
	cancel()
	for range 100 {
		d.Run(ended)
		n, err := d.Step(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
	}
	t.Fatal("the dispatcher still starts attempts after 100 steps")
}

// An endpoint that keeps failing has its merchant's due deliveries paused (moved out of the due
// range claims walk), while another merchant's go on; a success ends the pause. The
// dispatcher's clock stands still unless the test moves it and the test runs its steps: no
// attempt while paused is shown by a dispatcher with nothing due until the pause's end, on a
// slow machine as on a fast one.
func TestFailingEndpointIsPaused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var failing atomic.Bool
	failing.Store(true)
	var badHits, goodHits atomic.Int64
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		badHits.Add(1)
		if failing.Load() {
			w.WriteHeader(http.StatusBadGateway)
		}
	}))
	defer bad.Close()
	good := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { goodHits.Add(1) }))
	defer good.Close()
	a, b := e.merchant(bad.URL, "a"), e.merchant(good.URL, "b")
	var aOrders, bOrders []string
	for range 20 {
		aOrders = append(aOrders, e.order(a, 0).ID)
	}
	for range 10 {
		bOrders = append(bOrders, e.order(b, 0).ID)
	}
	clk := devtest.NewClock(time.Now())
	start := clk.Now()
	const breakFor = 2 * time.Second
	d := webhook.New(webhook.Config{Workers: 8, PerMerchant: 2, BreakAfter: 3, BreakFor: breakFor, AllowPrivate: true, UserAgent: "rampway/test",
		Schedule: webhook.Schedule{First: 10 * time.Millisecond, Max: 10 * time.Second, GiveUpAfter: time.Hour}},
		e.store, secrets{a.ID: {"a"}, b.ID: {"b"}}, slog.New(slog.DiscardHandler), clk.Now)
	settle(t, d)
	// b's deliveries all went out; a's paused after 3 failures (and the attempts in flight).
	e.waitDelivered(bOrders)
	if n := goodHits.Load(); n != 10 {
		t.Fatalf("%d deliveries to the working endpoint, want 10", n)
	}
	hits := badHits.Load()
	if hits < 3 || hits > 3+2*2 {
		t.Fatalf("%d attempts to the failing endpoint, want the pause after 3 (and those in flight)", hits)
	}
	for _, id := range aOrders {
		ds, err := e.store.Deliveries(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if ds[0].Status != rampway.DeliveryPending || !ds[0].NextAttemptAt.After(start.Add(breakFor-time.Millisecond)) {
			t.Fatalf("a's delivery %s is %s, due at %s: not paused until %s", ds[0].EventID, ds[0].Status, ds[0].NextAttemptAt, start.Add(breakFor))
		}
	}
	// Nothing goes out until the pause's end.
	clk.Advance(breakFor - time.Millisecond)
	settle(t, d)
	if n := badHits.Load(); n != hits {
		t.Fatalf("%d attempts to the failing endpoint before the pause's end, had %d when it began", n, hits)
	}
	// The endpoint recovers: after the pause every delivery goes out.
	failing.Store(false)
	clk.Advance(2 * time.Millisecond)
	settle(t, d)
	e.waitDelivered(aOrders)
	if n := badHits.Load(); n != hits+20 {
		t.Fatalf("%d attempts to the recovered endpoint after the pause, want one per delivery (20)", n-hits)
	}
}

// A dispatcher that dies mid-attempt leaves a leased delivery; when the lease runs out another
// delivers it: at least once, nothing lost.
func TestCrashedDispatcherLeaseExpires(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	defer srv.Close()
	m := e.merchant(srv.URL, "s")
	o := e.order(m, 0)
	// The dead process claimed it (lease 40 s) and never recorded an attempt.
	claimed, err := e.store.ClaimDeliveries(t.Context(), time.Now().UTC(), 40*time.Second, 10, 10, nil)
	if err != nil || len(claimed) != 1 {
		t.Fatalf("claim: %v %v", claimed, err)
	}
	if again, _ := e.store.ClaimDeliveries(t.Context(), time.Now().UTC(), time.Minute, 10, 10, nil); len(again) != 0 {
		t.Fatalf("a leased delivery was claimed twice: %v", again)
	}
	// A restarted process, a minute later.
	later := func() time.Time { return time.Now().Add(time.Minute) }
	d := webhook.New(webhook.Config{Schedule: fast, AllowPrivate: true}, e.store, secrets{m.ID: {"s"}}, slog.New(slog.DiscardHandler), later)
	if n, err := d.Step(t.Context()); err != nil || n != 1 {
		t.Fatalf("step: %d %v", n, err)
	}
	e.waitDelivered([]string{o.ID})
	if hits.Load() != 1 {
		t.Fatalf("%d deliveries", hits.Load())
	}
}

// After the retry period a delivery is failed, and a resend by hand delivers it (same event).
// The dispatcher's clock moves only when the test moves it, to each attempt's due time, so the
// number of attempts before the retry period ends is the schedule's, however loaded the machine.
func TestGiveUpAndResend(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var ok atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !ok.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	m := e.merchant(srv.URL, "s")
	o := e.order(m, 0)
	clk := devtest.NewClock(time.Now())
	// Waits of 1, 2, 4 and 8 minutes, then 10 each: the ninth attempt, 55 minutes on, is the
	// last: a tenth would fall after the hour.
	d := webhook.New(webhook.Config{AllowPrivate: true, UserAgent: "rampway/test",
		Schedule: webhook.Schedule{First: time.Minute, Max: 10 * time.Minute, GiveUpAfter: time.Hour}},
		e.store, secrets{m.ID: {"s"}}, slog.New(slog.DiscardHandler), clk.Now)
	var ds []*rampway.Delivery
	for range 20 {
		settle(t, d)
		var err error
		if ds, err = e.store.Deliveries(t.Context(), o.ID); err != nil {
			t.Fatal(err)
		}
		if ds[0].Status != rampway.DeliveryPending {
			break
		}
		clk.Set(ds[0].NextAttemptAt)
	}
	if ds[0].Status != rampway.DeliveryFailed || ds[0].Attempts != 9 || ds[0].LastStatusCode != 503 {
		t.Fatalf("delivery after the retry period: %+v, want failed after 9 attempts (503)", ds[0])
	}
	if _, err := e.store.ResendDelivery(t.Context(), "mch_other", ds[0].EventID, time.Now().UTC()); rampway.ErrorCode(err) != rampway.ENOTFOUND {
		t.Fatalf("another merchant resent it: %v", err)
	}
	ok.Store(true)
	if _, err := e.store.ResendDelivery(t.Context(), m.ID, ds[0].EventID, time.Now().UTC()); err != nil {
		t.Fatal(err)
	}
	e.dispatcher(webhook.Config{}, secrets{m.ID: {"s"}})
	e.waitDelivered([]string{o.ID})
}

// Without a secret, or without any URL, nothing is queued (the order said so when created).
func TestNoSecretNoDelivery(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, m := range []*rampway.Merchant{e.merchant("https://shop.example/hooks", ""), e.merchant("", "s")} {
		o := e.order(m, 1)
		if ds, err := e.store.Deliveries(t.Context(), o.ID); err != nil || len(ds) != 0 {
			t.Fatalf("deliveries %v %v", ds, err)
		}
	}
}

func TestSignWithSeveralSecrets(t *testing.T) {
	t.Parallel()
	body := []byte(`{"eventId":"evt_1"}`)
	at := time.Unix(1_800_000_000, 0)
	h := webhook.Sign([]string{"old", "new"}, body, at)
	if strings.Count(h, ",v1=") != 2 || !strings.HasPrefix(h, "t=1800000000,") {
		t.Fatalf("header %q", h)
	}
	for _, s := range []string{"old", "new"} {
		if _, err := client.VerifyWebhook(s, body, h, at); err != nil && !errors.Is(err, client.ErrBadBody) {
			t.Fatalf("secret %s: %v", s, err)
		}
	}
	if h != webhook.Sign([]string{"old", "new"}, body, at) || client.Sign("old", body, at) != h[:strings.LastIndex(h, ",v1=")] {
		t.Fatalf("signatures differ from the client's: %q vs %q", h, client.Sign("old", body, at))
	}
}

// In production the client refuses, at connect time, every address that is not public: by IP,
// by a name that resolves to one, and it follows no redirect.
func TestProductionClientRefusesPrivateAddresses(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	defer srv.Close()
	port := srv.URL[strings.LastIndex(srv.URL, ":"):]
	c := webhook.NewHTTPClient(time.Minute, false)
	for _, u := range []string{srv.URL, "http://localhost" + port, "http://10.0.0.1:443", "http://169.254.169.254/latest/meta-data", "http://[::1]" + port} {
		res, err := c.Post(u, "application/json", strings.NewReader("{}"))
		if err == nil {
			res.Body.Close()
			t.Fatalf("%s: delivered", u)
		}
		if !errors.Is(err, webhook.ErrNotPublic) {
			t.Fatalf("%s: %v, want ErrNotPublic", u, err)
		}
	}
	if hits.Load() != 0 {
		t.Fatal("a private address was reached")
	}
	// Redirects are answers, never followed (dev-mode client, to reach the test servers).
	target := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	defer target.Close()
	redirect := httptest.NewServer(http.RedirectHandler(target.URL, http.StatusTemporaryRedirect))
	defer redirect.Close()
	// Dev mode reaches loopback (the test servers) but never link-local: the metadata address.
	for _, u := range []string{"http://169.254.169.254/latest/meta-data", "http://100.64.0.1" + port} {
		res, err := webhook.NewHTTPClient(time.Minute, true).Post(u, "application/json", strings.NewReader("{}"))
		if err == nil {
			res.Body.Close()
		}
		if !errors.Is(err, webhook.ErrNotPublic) {
			t.Fatalf("dev client %s: %v, want ErrNotPublic", u, err)
		}
	}
	res, err := webhook.NewHTTPClient(time.Minute, true).Post(redirect.URL, "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusTemporaryRedirect || hits.Load() != 0 {
		t.Fatalf("redirect: %d, target hit %d times", res.StatusCode, hits.Load())
	}
}

// countingSecrets counts the reads of secrets.
type countingSecrets struct {
	secrets
	n atomic.Int64
}

func (c *countingSecrets) WebhookSecrets(ctx context.Context, id string, live bool) ([]string, error) {
	c.n.Add(1)
	return c.secrets.WebhookSecrets(ctx, id, live)
}

// The attempts of a merchant started together share one read of its secrets; each later batch
// reads again.
func TestSecretsReadOncePerBatch(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var g gauge
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		defer g.enter()()
		<-release
	}))
	defer srv.Close()
	m := e.merchant(srv.URL, "s")
	var orders []string
	for range 8 {
		orders = append(orders, e.order(m, 0).ID)
	}
	src := &countingSecrets{secrets: secrets{m.ID: {"s"}}}
	e.dispatcher(webhook.Config{Workers: 8, PerMerchant: 4}, src)
	deadline := time.Now().Add(time.Minute) // a bound for a stuck test
	for g.in.Load() < 4 {
		if time.Now().After(deadline) {
			close(release)
			t.Fatalf("%d attempts in flight, want 4", g.in.Load())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if n := src.n.Load(); n != 1 {
		close(release)
		t.Fatalf("%d reads for the first 4 attempts, started together; want 1", n)
	}
	close(release)
	e.waitDelivered(orders)
	if n := src.n.Load(); n < 2 || n > 5 {
		t.Fatalf("%d reads for 8 attempts, want 2 to 5 (one per batch started)", n)
	}
}

// A rotation applies to the next delivery, also when another instance on the same database
// makes it (another store and merchant.Service, as the admin API of another process), right
// after deliveries signed with the old secret: with a grace period it carries one v1 for the
// new secret and one for the old; without, only the new secret's; once the grace period is
// over, only the current secret's.
func TestRotationAppliesToNextDelivery(t *testing.T) {
	t.Parallel()
	for _, db := range []string{"sqlite", "postgres"} {
		t.Run(db, func(t *testing.T) {
			t.Parallel()
			var admin, sender *sqlstore.Store // two instances on one database
			switch db {
			case "sqlite":
				path := filepath.Join(t.TempDir(), "r.db")
				admin, sender = openSQLite(t, path), openSQLite(t, path)
			case "postgres":
				dsn := pgtest.FreshDSN(t)
				admin, sender = openPostgres(t, dsn), openPostgres(t, dsn)
			}
			hits := make(chan hit, 16)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				hits <- hit{body: b, sig: r.Header.Get(webhook.SignatureHeader)}
			}))
			defer srv.Close()
			opt := merchant.Options{HashSecret: "test-hash-secret-0123456789abcdef", DevMode: true}
			admins := merchant.NewService(admin, opt)
			var later atomic.Int64 // how far the sending instance's clock is ahead
			opt.Now = func() time.Time { return time.Now().Add(time.Duration(later.Load())) }
			e := &env{t: t, store: sender}
			e.dispatcher(webhook.Config{}, merchant.NewService(sender, opt))

			m, err := admins.Create(t.Context(), merchant.CreateParams{Name: "m", WebhookURL: srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			old, err := admins.SetWebhookSecret(t.Context(), m.ID, false, "", 0)
			if err != nil {
				t.Fatal(err)
			}
			deliver := func() hit {
				t.Helper()
				e.order(m, 0)
				select {
				case h := <-hits:
					return h
				case <-time.After(time.Minute): // a bound for a stuck test
					t.Fatal("no delivery within a minute")
					return hit{}
				}
			}
			signedWith := func(h hit, want ...string) {
				t.Helper()
				var got, exp []string
				for part := range strings.SplitSeq(h.sig, ",") {
					if v, ok := strings.CutPrefix(part, "v1="); ok {
						got = append(got, v)
					}
				}
				t0 := strings.TrimPrefix(strings.SplitN(h.sig, ",", 2)[0], "t=")
				for _, s := range want {
					sec, _ := strconv.ParseInt(t0, 10, 64)
					exp = append(exp, strings.TrimPrefix(client.Sign(s, h.body, time.Unix(sec, 0)), "t="+t0+",v1="))
					if _, err := client.VerifyWebhook(s, h.body, h.sig, time.Now()); err != nil {
						t.Fatalf("%s does not verify with a secret it must carry: %v", h.sig, err)
					}
				}
				slices.Sort(got)
				slices.Sort(exp)
				if !slices.Equal(got, exp) {
					t.Fatalf("signature %s: v1 %v, want one for each of %d secrets: %v", h.sig, got, len(want), exp)
				}
			}
			for range 3 { // the old secret, read by the sending instance
				signedWith(deliver(), old)
			}

			rotated, err := admins.SetWebhookSecret(t.Context(), m.ID, false, "", time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			for range 2 { // at once: the new secret beside the old one
				signedWith(deliver(), rotated, old)
			}

			again, err := admins.SetWebhookSecret(t.Context(), m.ID, false, "", 0)
			if err != nil {
				t.Fatal(err)
			}
			h := deliver() // no grace: only the new one, at once
			signedWith(h, again)
			for _, s := range []string{rotated, old} {
				if _, err := client.VerifyWebhook(s, h.body, h.sig, time.Now()); !errors.Is(err, client.ErrBadSignature) {
					t.Fatalf("a replaced secret still verifies after a rotation without grace: %v", err)
				}
			}

			newest, err := admins.SetWebhookSecret(t.Context(), m.ID, false, "", time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			signedWith(deliver(), newest, again)
			later.Store(int64(time.Hour + time.Second)) // the grace period is over
			signedWith(deliver(), newest)
		})
	}
}

func openSQLite(t *testing.T, path string) *sqlstore.Store {
	t.Helper()
	s, err := sqlite.Open(t.Context(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func openPostgres(t *testing.T, dsn string) *sqlstore.Store {
	t.Helper()
	s, err := postgres.Open(t.Context(), dsn, nil, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// roundTripFunc is an http.RoundTripper of a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// A caller that steps the dispatcher itself (the simulation, package sim) gives it a
// transport in process and a jitter source, and Wait returns once the attempts a Step
// started are recorded: a failed attempt's next try is then due at a time that depends on
// the given Rand only, and a Step after Wait sees it.
func TestSteppedWithTransportAndRand(t *testing.T) {
	e := newEnv(t)
	m := e.merchant("http://receiver.invalid/hooks", "whsec_test")
	o := e.order(m, 0)
	var calls atomic.Int64
	fail := func(r *http.Request) (*http.Response, error) {
		calls.Add(1)
		code := http.StatusInternalServerError
		if calls.Load() > 1 {
			code = http.StatusOK
		}
		return &http.Response{StatusCode: code, Body: io.NopCloser(strings.NewReader("")), Header: http.Header{}, Request: r}, nil
	}
	now := time.Now().UTC().Add(time.Second) // after the order's event
	clock := func() time.Time { return now }
	d := webhook.New(webhook.Config{Workers: 1, Transport: roundTripFunc(fail), Rand: func() float64 { return 1 },
		Schedule: webhook.Schedule{First: 10 * time.Second, Max: time.Minute, Jitter: 0.5, GiveUpAfter: time.Hour}},
		e.store, secrets{m.ID: {"whsec_test"}}, slog.New(slog.DiscardHandler), clock)
	if n, err := d.Step(t.Context()); err != nil || n != 1 {
		t.Fatalf("first step: started %d, %v", n, err)
	}
	d.Wait()
	if calls.Load() != 1 {
		t.Fatalf("%d attempts reached the transport after Wait, want 1", calls.Load())
	}
	if n, err := d.Step(t.Context()); err != nil || n != 0 {
		t.Fatalf("a step before the retry is due started %d, %v", n, err)
	}
	// Rand 1 with jitter 0.5: the retry waits 15 s, not less.
	now = now.Add(14 * time.Second)
	if n, _ := d.Step(t.Context()); n != 0 {
		t.Fatalf("the retry went after 14 s: the jitter did not come from Rand")
	}
	now = now.Add(time.Second)
	if n, err := d.Step(t.Context()); err != nil || n != 1 {
		t.Fatalf("retry step: started %d, %v", n, err)
	}
	d.Wait()
	e.waitDelivered([]string{o.ID})
}
