package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/checkout"
)

func TestIdempotencyKey(t *testing.T) {
	t.Parallel()
	e := newMintEnv(t)
	send := func(key string, body map[string]any) resp {
		data, _ := json.Marshal(body)
		return e.do(http.MethodPost, mintOrderPath, string(data), map[string]string{"X-API-KEY": e.key, "Idempotency-Key": key, "Content-Type": "application/json"})
	}
	body := e.body(nil)
	first := send("order-1", body)
	o1 := decode[MintOrderView](t, first, 201)
	// The same key and body: the first answer again, byte for byte; no second order.
	again := send("order-1", body)
	if again.status != 201 || !bytes.Equal(again.body, first.body) || again.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay %d %s (replayed header %q)", again.status, again.body, again.header.Get("Idempotent-Replayed"))
	}
	page := decode[ListView[OrderView]](t, e.merchantAPI(http.MethodGet, "/mint/merchant/hosted/nftCheckout/orders", nil), 200)
	if len(page.Data) != 1 || page.Data[0].OrderID != o1.OrderID {
		t.Fatalf("%d orders after a replay, want 1", len(page.Data))
	}
	// The same key with another body: 422.
	other := e.body(func(b map[string]any) { b["merchant_txn_id"] = "txn-8" })
	wantEnvelope(t, send("order-1", other), 422, 422, mintOrderPath, "was already used with a different request")
	// Another key: a new order.
	if o2 := decode[MintOrderView](t, send("order-2", body), 201); o2.OrderID == o1.OrderID {
		t.Fatal("a new key replayed the old order")
	}
	// A refused request leaves no result (Stripe: validation failures are not saved): the same
	// request is checked again, and the corrected one goes through under the same key.
	bad := e.body(func(b map[string]any) { delete(b, "merchant_user_id") })
	wantEnvelope(t, send("order-3", bad), 400, 400, mintOrderPath, "merchant_user_id is required")
	if r := send("order-3", bad); r.status != 400 || r.header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("a refused request was replayed: %d %q", r.status, r.header.Get("Idempotent-Replayed"))
	}
	fixed := decode[MintOrderView](t, send("order-3", body), 201)
	if r := send("order-3", body); r.status != 201 || r.header.Get("Idempotent-Replayed") != "true" || !bytes.Contains(r.body, []byte(fixed.OrderID)) {
		t.Fatalf("the corrected request was not remembered: %d %s", r.status, r.body)
	}
	// Keys are per merchant and checked for shape.
	wantEnvelope(t, send("has space", body), 400, 400, mintOrderPath, "Idempotency-Key must be")
	// Quotes take keys too.
	data, _ := json.Marshal(body)
	q1 := e.do(http.MethodPost, quotePath, string(data), map[string]string{"X-API-KEY": e.key, "Idempotency-Key": "quote-1"})
	q2 := e.do(http.MethodPost, quotePath, string(data), map[string]string{"X-API-KEY": e.key, "Idempotency-Key": "quote-1"})
	if q1.status != 200 || !bytes.Equal(q1.body, q2.body) {
		t.Fatalf("quote replay: %d %s / %s", q1.status, q1.body, q2.body)
	}
}

// TestIdempotencyKeyIgnoresJSONWhitespace: the same JSON request laid out another way (indented,
// with a final newline, CRLF) is the same request: its key replays the first answer. Any other
// difference in the JSON is another request.
func TestIdempotencyKeyIgnoresJSONWhitespace(t *testing.T) {
	t.Parallel()
	e := newMintEnv(t)
	body := e.body(nil)
	compact, _ := json.Marshal(body)
	indented, _ := json.MarshalIndent(body, "", "    ")
	send := func(data string) resp {
		return e.do(http.MethodPost, mintOrderPath, data, map[string]string{"X-API-KEY": e.key, "Idempotency-Key": "layout-1", "Content-Type": "application/json"})
	}
	first := send(string(compact))
	decode[MintOrderView](t, first, 201)
	for _, tc := range []struct {
		name, body string
		status     int
	}{
		{"the same bytes", string(compact), 201},
		{"indented", string(indented), 201},
		{"with a final newline", string(compact) + "\n", 201},
		{"indented with CRLF and tabs", strings.ReplaceAll(strings.ReplaceAll(string(indented), "\n", "\r\n"), "    ", "\t"), 201},
		{"another value", strings.Replace(string(compact), `"txn-7"`, `"txn-8"`, 1), 422},
		{"a space inside a string", strings.Replace(string(compact), `"txn-7"`, `"txn- 7"`, 1), 422},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := send(tc.body)
			if tc.status == 422 {
				wantEnvelope(t, r, 422, 422, mintOrderPath, "was already used with a different request")
				return
			}
			if r.status != 201 || !bytes.Equal(r.body, first.body) || r.header.Get("Idempotent-Replayed") != "true" {
				t.Fatalf("replay %d %s (replayed %q), want the first answer %s", r.status, r.body, r.header.Get("Idempotent-Replayed"), first.body)
			}
		})
	}
	if page := decode[ListView[OrderView]](t, e.merchantAPI(http.MethodGet, "/mint/merchant/hosted/nftCheckout/orders", nil), 200); len(page.Data) != 1 {
		t.Fatalf("%d orders, want 1", len(page.Data))
	}
}

// faultyOrders fails the next CreateOrderWithReply, after its write (the answer of a commit
// lost on the way back) or instead of it.
type faultyOrders struct {
	checkout.Store
	mu          sync.Mutex
	afterWrite  bool
	failures    int
	withReplies int
}

func (f *faultyOrders) CreateOrderWithReply(ctx context.Context, o *rampway.Order, reply *rampway.IdempotentReply) error {
	f.mu.Lock()
	fail, after := f.failures > 0, f.afterWrite
	if fail {
		f.failures--
	}
	if reply != nil {
		f.withReplies++
	}
	f.mu.Unlock()
	if fail && !after {
		return errors.New("connection refused")
	}
	if err := f.Store.CreateOrderWithReply(ctx, o, reply); err != nil || !fail {
		return err
	}
	return errors.New("connection reset by peer")
}

// An order is stored with its Idempotency-Key's answer: a retry after an error whose write went
// through (or a crash right after it) replays that order instead of creating a second one; a
// retry after an error before the write creates the order.
func TestIdempotentOrderAnsweredWithItsWrite(t *testing.T) {
	t.Parallel()
	faulty := &faultyOrders{}
	e := newMintEnv(t, func(s checkout.Store) checkout.Store { faulty.Store = s; return faulty })
	body, _ := json.Marshal(e.body(nil))
	send := func(key string) resp {
		return e.do(http.MethodPost, mintOrderPath, string(body), map[string]string{"X-API-KEY": e.key, "Idempotency-Key": key})
	}
	orders := func() []OrderView {
		return decode[ListView[OrderView]](t, e.merchantAPI(http.MethodGet, "/mint/merchant/hosted/nftCheckout/orders", nil), 200).Data
	}

	faulty.failures, faulty.afterWrite = 1, true
	if r := send("lost-answer"); r.status != 500 {
		t.Fatalf("a failed write answered %d %s", r.status, r.body)
	}
	stored := orders()
	if len(stored) != 1 {
		t.Fatalf("%d orders after the write, want 1", len(stored))
	}
	r := send("lost-answer")
	o := decode[MintOrderView](t, r, 201)
	if r.header.Get("Idempotent-Replayed") != "true" || o.OrderID != stored[0].OrderID {
		t.Fatalf("the retry answered order %s (replayed %q); want the stored %s", o.OrderID, r.header.Get("Idempotent-Replayed"), stored[0].OrderID)
	}
	if n := len(orders()); n != 1 {
		t.Fatalf("%d orders after the retry, want 1", n)
	}

	faulty.failures, faulty.afterWrite = 1, false
	if r := send("no-write"); r.status != 500 {
		t.Fatalf("a failed write answered %d %s", r.status, r.body)
	}
	r = send("no-write")
	o = decode[MintOrderView](t, r, 201)
	if r.header.Get("Idempotent-Replayed") != "" || len(orders()) != 2 {
		t.Fatalf("the retry after a write that failed: replayed %q, %d orders; want a new order (2)", r.header.Get("Idempotent-Replayed"), len(orders()))
	}
	again := send("no-write")
	if again.status != 201 || !bytes.Equal(again.body, r.body) {
		t.Fatalf("replay %d %s, want %s", again.status, again.body, r.body)
	}
	// Without a key, no answer is stored.
	before := faulty.withReplies
	decode[MintOrderView](t, e.merchantAPI(http.MethodPost, mintOrderPath, e.body(nil)), 201)
	if faulty.withReplies != before {
		t.Fatal("an order without an Idempotency-Key was given a reply to store")
	}
}

// gatedOrders holds the first CreateOrderWithReply until released: a request still running
// when its claim goes stale.
type gatedOrders struct {
	checkout.Store
	calls   atomic.Int32
	entered chan struct{}
	release chan struct{}
}

func (g *gatedOrders) CreateOrderWithReply(ctx context.Context, o *rampway.Order, reply *rampway.IdempotentReply) error {
	if g.calls.Add(1) == 1 {
		close(g.entered)
		<-g.release
	}
	return g.Store.CreateOrderWithReply(ctx, o, reply)
}

// A request that runs past its claim's staleness loses the key to the retry that takes it
// over: the retry creates the order, the first request creates none (409), never two orders.
func TestIdempotentSlowRequestTakenOver(t *testing.T) {
	t.Parallel()
	gate := &gatedOrders{entered: make(chan struct{}), release: make(chan struct{})}
	e := newMintEnv(t, func(s checkout.Store) checkout.Store { gate.Store = s; return gate })
	body, _ := json.Marshal(e.body(nil))
	send := func() resp {
		return e.do(http.MethodPost, mintOrderPath, string(body), map[string]string{"X-API-KEY": e.key, "Idempotency-Key": "slow"})
	}
	first := make(chan resp, 1)
	go func() { first <- send() }()
	<-gate.entered
	// While it runs, a retry is told to come back (409 with Retry-After: SDKs retry such a
	// 409, and not one a retry would only repeat).
	busy := send()
	wantEnvelope(t, busy, 409, 409, mintOrderPath, `A request with Idempotency-Key "slow" is still in progress`)
	if busy.header.Get("Retry-After") != "1" {
		t.Fatalf("in progress: Retry-After %q, want 1", busy.header.Get("Retry-After"))
	}
	// The first request's claim is now older than a retry waits for.
	// (SQLite keeps times in microseconds.)
	if _, err := e.store.DB().ExecContext(t.Context(), `UPDATE idempotency_keys SET created_at = created_at - ?`, (2 * time.Minute).Microseconds()); err != nil {
		t.Fatal(err)
	}
	retry := decode[MintOrderView](t, send(), 201)
	close(gate.release)
	lost := <-first
	wantEnvelope(t, lost, 409, 409, mintOrderPath, "was taken over by a later request")
	if lost.header.Get("Retry-After") != "1" { // retried, it gets the later request's order
		t.Fatalf("taken over: Retry-After %q, want 1", lost.header.Get("Retry-After"))
	}
	page := decode[ListView[OrderView]](t, e.merchantAPI(http.MethodGet, "/mint/merchant/hosted/nftCheckout/orders", nil), 200)
	if len(page.Data) != 1 || page.Data[0].OrderID != retry.OrderID {
		t.Fatalf("%d orders, want the retry's alone", len(page.Data))
	}
	if again := send(); again.status != 201 || again.header.Get("Idempotent-Replayed") != "true" || !bytes.Contains(again.body, []byte(retry.OrderID)) {
		t.Fatalf("replay after the takeover: %d %s", again.status, again.body)
	}
}
