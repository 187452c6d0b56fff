package chainwork_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chainwork"
	"github.com/rampway/rampway/client"
	"github.com/rampway/rampway/storetest"
	"github.com/rampway/rampway/webhook"
)

// receiver is a merchant's webhook endpoint: it keeps the events whose signature checks out.
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	events map[string]*client.Event // by eventId
}

func newReceiver(t *testing.T, secret string) *receiver {
	v := &client.Verifier{Secrets: []string{secret}}
	r := &receiver{events: map[string]*client.Event{}}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		ev, err := v.Verify(body, req.Header.Get(client.SignatureHeader), time.Now())
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.mu.Lock()
		r.events[ev.ID] = ev
		r.mu.Unlock()
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) event(id string) *client.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.events[id]
}

// hookEvents has the environment's merchant send its events to r, signed with secret.
func (e *execEnv) hookEvents(r *receiver, secret string) {
	e.t.Helper()
	now := time.Now().UTC().Truncate(time.Microsecond)
	url := r.URL + "/hooks"
	if _, err := e.store.UpdateMerchant(e.t.Context(), e.mid, rampway.MerchantUpdate{WebhookURL: &url, UpdatedAt: now}); err != nil {
		e.t.Fatal(err)
	}
	if err := e.store.SetWebhookSecret(e.t.Context(), e.mid, false, secret, 0, now); err != nil {
		e.t.Fatal(err)
	}
}

// mineSent mines a block once the node holds every transaction the payer sent (it takes
// them into its pending set in the background).
func (e *execEnv) mineSent() {
	e.t.Helper()
	payer := crypto.PubkeyToAddress(e.payer.PublicKey)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		n, err := e.client.PendingNonceAt(e.t.Context(), payer)
		if err == nil && n >= e.payerNonce {
			break
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("the node's pending nonce is %d (%v), %d transactions were sent", n, err, e.payerNonce)
		}
	}
	e.mine()
}

// deliverAll runs a webhook dispatcher until every delivery of the orders is delivered.
func (e *execEnv) deliverAll(orders ...*rampway.Order) {
	e.t.Helper()
	d := webhook.New(webhook.Config{AllowPrivate: true, UserAgent: "rampway/test",
		Schedule: webhook.Schedule{First: 20 * time.Millisecond, Max: 40 * time.Millisecond, GiveUpAfter: time.Hour}},
		e.store, secretsOf{e.mid: {closedSecret}}, slog.New(slog.DiscardHandler), nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { d.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	ids := make([]string, len(orders))
	for i, o := range orders {
		ids[i] = o.ID
	}
	storetest.WaitDelivered(e.t, e.store, ids)
}

type secretsOf map[string][]string

func (s secretsOf) WebhookSecrets(_ context.Context, merchantID string, _ bool) ([]string, error) {
	return s[merchantID], nil
}

const closedSecret = "whsec_closed_orders"

// history is what an order has been through: its events, deliveries and refunds.
type history struct {
	order      *rampway.Order
	events     []*rampway.OrderEvent
	deliveries []*rampway.Delivery
	refunds    []*rampway.Refund
}

func (e *execEnv) history(o *rampway.Order) history {
	e.t.Helper()
	ctx := e.t.Context()
	h := history{order: e.order(o)}
	var err1, err2, err3 error
	h.events, err1 = e.store.OrderEvents(ctx, o.ID)
	h.deliveries, err2 = e.store.Deliveries(ctx, o.ID)
	h.refunds, err3 = e.store.Refunds(ctx, o.ID)
	for _, err := range []error{err1, err2, err3} {
		if err != nil {
			e.t.Fatal(err)
		}
	}
	return h
}

// A payment to an order that takes none any more (here one already executed, SUCCESS, and one
// the user cancelled) is credited and refunded, never executed, and the merchant hears of it:
// one order.deposit.success per confirmed transfer, the order's status as it was, with its
// signed webhook showing what came in and what is owed back. A rescan by a restarted watcher
// records nothing twice.
func TestPaymentsToClosedOrders(t *testing.T) {
	t.Parallel()
	e := newExecEnv(t)
	ctx := t.Context()
	r := newReceiver(t, closedSecret)
	e.hookEvents(r, closedSecret)
	eth, _ := e.net.Asset("ETH")
	watched := *e.net
	watched.Confirmations = 2 // a payment is seen a block before it is credited
	log := slog.New(slog.DiscardHandler)
	w := mustWatcher(t, chainwork.WatcherConfig{}, e.store, &watched, e.client, log, nil)
	watch := func(w *chainwork.Watcher) {
		t.Helper()
		if err := w.Step(ctx); err != nil {
			t.Fatal(err)
		}
	}
	watch(w) // starts at the head

	buyer := newRecipient()
	sold := e.unpaidOrder(e.native, buyer, 1)
	cancelled := e.unpaidOrder(e.native, newRecipient(), 1)
	if _, err := e.store.Apply(ctx, cancelled.ID, rampway.Cancelled{}, time.Now()); err != nil {
		t.Fatal(err)
	}

	// The first order is paid, credited and executed.
	e.send(eth, sold.DepositAddress, sold.CryptoAmount)
	e.mineSent()
	watch(w)
	e.wantStatus(sold, rampway.StatusDepositProcessing)
	e.mine()
	watch(w)
	e.wantStatus(sold, rampway.StatusDepositSuccess)
	x := e.executor(nil)
	e.step(x)
	e.mine()
	e.step(x)
	e.wantStatus(sold, rampway.StatusSuccess)
	if e.balance(buyer) != 1 {
		t.Fatalf("the buyer owns %d tokens, want 1", e.balance(buyer))
	}

	// Both are paid (again).
	before := map[string]history{sold.ID: e.history(sold), cancelled.ID: e.history(cancelled)}
	again := map[string]*big.Int{sold.ID: big.NewInt(5e15), cancelled.ID: big.NewInt(3e15)}
	e.send(eth, sold.DepositAddress, again[sold.ID])
	e.send(eth, cancelled.DepositAddress, again[cancelled.ID])
	e.mineSent()
	watch(w)
	// Seen, not yet confirmed: nothing happens to either.
	for _, o := range []*rampway.Order{sold, cancelled} {
		b, now := before[o.ID], e.history(o)
		if now.order.Status != b.order.Status || now.order.CryptoReceived.Cmp(b.order.CryptoReceived) != 0 || len(now.events) != len(b.events) ||
			len(now.deliveries) != len(b.deliveries) || len(now.refunds) != len(b.refunds) {
			t.Fatalf("order %s once a payment is seen: %s with %s received, %d events, %d deliveries, %d refunds; want it as it was (%s with %s, %d, %d, %d)",
				o.ID, now.order.Status, now.order.CryptoReceived, len(now.events), len(now.deliveries), len(now.refunds),
				b.order.Status, b.order.CryptoReceived, len(b.events), len(b.deliveries), len(b.refunds))
		}
	}
	e.mine()
	watch(w)

	payer := crypto.PubkeyToAddress(e.payer.PublicKey)
	credited := map[string]string{} // order id -> its new event's id
	check := func(when string) {
		t.Helper()
		for _, c := range []struct {
			o      *rampway.Order
			status rampway.OrderStatus
			reason string
		}{{sold, rampway.StatusSuccess, "paid after the order was paid in full"}, {cancelled, rampway.StatusCancelled, "paid after the order was closed"}} {
			b, now := before[c.o.ID], e.history(c.o)
			wantReceived := new(big.Int).Add(b.order.CryptoReceived, again[c.o.ID])
			if now.order.Status != c.status || now.order.CryptoReceived.Cmp(wantReceived) != 0 {
				t.Fatalf("%s: order %s is %s with %s received, want %s with %s", when, c.o.ID, now.order.Status, now.order.CryptoReceived, c.status, wantReceived)
			}
			if len(now.refunds) != len(b.refunds)+1 {
				t.Fatalf("%s: refunds of %s %+v, want one more than the %d before", when, c.o.ID, now.refunds, len(b.refunds))
			}
			if rf := now.refunds[len(now.refunds)-1]; rf.Amount.Cmp(again[c.o.ID]) != 0 || rf.Reason != c.reason || rf.To != payer || rf.Status != rampway.RefundPending {
				t.Fatalf("%s: refund of %s %+v, want %s to the payer for %q", when, c.o.ID, rf, again[c.o.ID], c.reason)
			}
			if len(now.events) != len(b.events)+1 || len(now.deliveries) != len(b.deliveries)+1 {
				t.Fatalf("%s: order %s has %d events and %d deliveries, want one more of each than the %d and %d before",
					when, c.o.ID, len(now.events), len(now.deliveries), len(b.events), len(b.deliveries))
			}
			ev, d := now.events[len(now.events)-1], now.deliveries[len(now.deliveries)-1]
			if ev.Name != rampway.EventDepositSuccess || ev.From != c.status || ev.To != c.status {
				t.Fatalf("%s: new event of %s: %s %s -> %s, want %s with its status unchanged", when, c.o.ID, ev.Name, ev.From, ev.To, rampway.EventDepositSuccess)
			}
			if d.EventID != ev.ID || d.EventName != ev.Name {
				t.Fatalf("%s: new delivery of %s is %s %s, want the event %s", when, c.o.ID, d.EventID, d.EventName, ev.ID)
			}
			if id, ok := credited[c.o.ID]; ok && id != ev.ID {
				t.Fatalf("%s: order %s's last event is %s, was %s", when, c.o.ID, ev.ID, id)
			}
			credited[c.o.ID] = ev.ID
		}
	}
	check("credited")

	// A restarted watcher rescans the blocks of both payments: nothing is recorded twice.
	cur, _, _, err := e.store.WatchCursor(ctx, "devnet")
	if err != nil {
		t.Fatal(err)
	}
	back, err := e.client.HeaderByNumber(ctx, new(big.Int).SetUint64(cur-4))
	if err != nil {
		t.Fatal(err)
	}
	if err := e.store.SetWatchCursor(ctx, "devnet", cur-4, back.Hash(), time.Now()); err != nil {
		t.Fatal(err)
	}
	w2 := mustWatcher(t, chainwork.WatcherConfig{}, e.store, &watched, e.client, log, nil)
	for range 3 {
		watch(w2)
		e.mine()
	}
	watch(w2)
	check("after a rescan")

	// The merchant gets each of them, signed, showing the credit and the refund.
	e.deliverAll(sold, cancelled)
	deposits := map[string]int{sold.ID: 2, cancelled.ID: 1}
	for _, o := range []*rampway.Order{sold, cancelled} {
		ev := r.event(credited[o.ID])
		if ev == nil || ev.Name != client.EventOrderDepositSuccess {
			t.Fatalf("the merchant did not get the order.deposit.success of %s: %+v", o.ID, ev)
		}
		h := e.history(o)
		var c struct {
			OrderID              string   `json:"order_id"`
			Status               string   `json:"status"`
			CryptoAmountReceived string   `json:"crypto_amount_received"`
			DepositTxHashes      []string `json:"deposit_tx_hashes"`
			Refunds              []struct {
				Amount    string `json:"amount"`
				Reason    string `json:"reason"`
				ToAddress string `json:"to_address"`
			} `json:"refunds"`
		}
		if err := json.Unmarshal(ev.Context, &c); err != nil {
			t.Fatal(err)
		}
		last := h.refunds[len(h.refunds)-1]
		if c.OrderID != o.ID || c.Status != string(h.order.Status) || c.CryptoAmountReceived != rampway.FormatUnits(h.order.CryptoReceived, eth.Decimals) ||
			len(c.DepositTxHashes) != deposits[o.ID] || len(c.Refunds) != len(h.refunds) {
			t.Fatalf("context of %s: %s; want status %s, %s received, %d deposits, %d refunds", o.ID, ev.Context, h.order.Status,
				rampway.FormatUnits(h.order.CryptoReceived, eth.Decimals), deposits[o.ID], len(h.refunds))
		}
		if rf := c.Refunds[len(c.Refunds)-1]; rf.Amount != rampway.FormatUnits(last.Amount, eth.Decimals) || rf.Reason != last.Reason || rf.ToAddress != payer.Hex() {
			t.Fatalf("context of %s: %s; its last refund is not %s to %s for %q", o.ID, ev.Context, last.Amount, payer.Hex(), last.Reason)
		}
	}
	var names []string
	for _, ev := range e.history(sold).events {
		names = append(names, string(ev.Name))
	}
	if want := []rampway.EventName{rampway.EventCreated, rampway.EventDepositProcessing, rampway.EventDepositSuccess, rampway.EventSmartContractProcessing,
		rampway.EventSmartContractSuccess, rampway.EventSuccess, rampway.EventDepositSuccess}; !slices.Equal(names, eventStrings(want)) {
		t.Fatalf("events of the paid order %q, want %q", names, want)
	}
}

// A payment to a closed order that a reorganisation takes away before it is confirmed leaves
// nothing behind.
func TestWatcherReorgOfPaymentToClosedOrder(t *testing.T) {
	t.Parallel()
	e := newWatchEnv(t)
	w := mustWatcher(t, chainwork.WatcherConfig{}, e.store, &e.net, e.client, slog.New(slog.DiscardHandler), nil)
	step := stepper(t, w)
	step()
	o := e.order(e.net.Native, 1e16)
	if _, err := e.store.Apply(t.Context(), o.ID, rampway.Cancelled{}, time.Now()); err != nil {
		t.Fatal(err)
	}
	parent, _ := e.client.HeaderByNumber(t.Context(), nil)
	e.pay(o, 1e15)
	e.mine()
	step()
	e.want(o, rampway.StatusCancelled, "0") // seen: nothing happens yet

	if err := e.chain.Fork(parent.Hash()); err != nil {
		t.Fatal(err)
	}
	e.replaceLast() // the new branch surely lacks the payment
	for range 3 {
		e.mine()
	}
	for range 3 {
		step()
		e.mine()
	}
	step()
	ctx := t.Context()
	got, _ := e.store.Order(ctx, o.ID)
	events, _ := e.store.OrderEvents(ctx, o.ID)
	refunds, _ := e.store.Refunds(ctx, o.ID)
	transfers, _ := e.store.OrderTransfers(ctx, o.ID)
	var states []string
	for _, tr := range transfers {
		states = append(states, string(tr.Status))
	}
	t.Logf("after the reorg: %s with %s received, %d events, %d refunds, transfers %v", got.Status, got.CryptoReceived, len(events), len(refunds), states)
	if got.Status != rampway.StatusCancelled {
		t.Fatalf("the cancelled order is %s", got.Status)
	}
	if len(transfers) != 1 {
		t.Fatalf("transfers %v, want the one payment", states)
	}
	if transfers[0].Status != rampway.TransferDropped || got.CryptoReceived.Sign() != 0 || len(events) != 2 || len(refunds) != 0 {
		t.Fatalf("a dropped payment: %s, left %s received, %d events, %d refunds", transfers[0].Status, got.CryptoReceived, len(events), len(refunds))
	}
}

func eventStrings(es []rampway.EventName) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = string(e)
	}
	return out
}
