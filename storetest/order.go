package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
)

func mustOrder(t *testing.T, s rampway.Store, merchantID string, at time.Time) *rampway.Order {
	t.Helper()
	idx, err := s.NextDepositIndex(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	o := orderAt(merchantID, at, idx)
	if err := s.CreateOrder(t.Context(), o); err != nil {
		t.Fatalf("CreateOrder: %v", err)
	}
	return o
}

// mustOrderOf stores a new order of the merchant for amount (its crypto_amount), created now.
func mustOrderOf(t *testing.T, s rampway.Store, merchantID string, amount int64) *rampway.Order {
	t.Helper()
	idx, err := s.NextDepositIndex(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	o := orderAt(merchantID, now(), idx)
	o.CryptoAmount = big.NewInt(amount)
	if err := s.CreateOrder(t.Context(), o); err != nil {
		t.Fatalf("CreateOrder: %v", err)
	}
	return o
}

// mustOrderValues is a valid new order of the merchant, not stored.
func mustOrderValues(merchantID string) *rampway.Order { return orderAt(merchantID, now(), 1<<30) }

// NewOrder is a valid new order of the merchant, created now with deposit index idx, not
// stored: for a dialect's own tests.
func NewOrder(merchantID string, idx uint32) *rampway.Order { return orderAt(merchantID, now(), idx) }

// orderAt is a valid new order of the merchant created at at, with deposit index idx.
func orderAt(merchantID string, at time.Time, idx uint32) *rampway.Order {
	big1e18, _ := new(big.Int).SetString("123456789012345678901234567890", 10)
	return &rampway.Order{
		ID: rampway.NewID(rampway.PrefixOrder, at), MerchantID: merchantID, Area: rampway.AreaMint, Status: rampway.StatusCreated,
		MerchantUserID: "user-1", MerchantTxnID: "txn-1", MerchantRedirectURL: "https://shop.example/done",
		MerchantWebhookURL: "https://shop.example/hooks", User: map[string]string{"user_email_id": "a@b.example"},
		Network:      "devnet",
		Asset:        rampway.Asset{Symbol: "DUSD", Network: "devnet", Contract: common.HexToAddress("0x5FbDB2315678afecb367f032d93F642f64180aa3"), Decimals: 6},
		CryptoAmount: big1e18, CryptoReceived: big.NewInt(0), FunctionID: "scf_x", FunctionArgs: json.RawMessage(`{"to":"0x1","quantity":"1"}`),
		PaymentValue: big.NewInt(10_000_000), GasLimit: 300_000, NetworkFee: big.NewInt(42), ServiceFee: big.NewInt(7),
		DepositAddress: common.BigToAddress(big.NewInt(int64(idx) + 1000)), DepositIndex: idx,
		ExpiresAt: at.Add(30 * time.Minute), CreatedAt: at, UpdatedAt: at,
	}
}

func sameOrder(t *testing.T, got, want *rampway.Order) {
	t.Helper()
	g, w := *got, *want
	for _, p := range [][2]*time.Time{{&g.ExpiresAt, &w.ExpiresAt}, {&g.CreatedAt, &w.CreatedAt}, {&g.UpdatedAt, &w.UpdatedAt}} {
		if !p[0].Equal(*p[1]) {
			t.Fatalf("time %v, want %v", *p[0], *p[1])
		}
		*p[0], *p[1] = time.Time{}, time.Time{}
	}
	if string(g.FunctionArgs) != string(w.FunctionArgs) {
		t.Fatalf("function args %s, want %s", g.FunctionArgs, w.FunctionArgs)
	}
	g.FunctionArgs, w.FunctionArgs = nil, nil
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("order\n%+v\nwant\n%+v", g, w)
	}
}

func testOrders(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	m := mustMerchant(t, s, "acme")
	other := mustMerchant(t, s, "other")
	base := now()
	o := mustOrder(t, s, m.ID, base)
	got, err := s.Order(t.Context(), o.ID)
	if err != nil {
		t.Fatal(err)
	}
	sameOrder(t, got, o)
	_, err = s.Order(t.Context(), "ord_nope")
	wantCode(t, err, rampway.ENOTFOUND)
	dup := *o
	dup.ID = rampway.NewID(rampway.PrefixOrder, base)
	wantCode(t, s.CreateOrder(t.Context(), &dup), rampway.ECONFLICT) // same deposit index (and address)
	dup.ID = rampway.NewID(rampway.PrefixOrder, base)
	dup.DepositAddress = common.HexToAddress("0x00000000000000000000000000000000000000aa")
	wantCode(t, s.CreateOrder(t.Context(), &dup), rampway.ECONFLICT) // an index is never used twice
	if _, err := s.Order(t.Context(), dup.ID); rampway.ErrorCode(err) != rampway.ENOTFOUND {
		t.Fatalf("the refused order was stored: %v", err)
	}

	// List: newest first, filters, cursor.
	var ids []string
	for i := range 4 {
		ids = append(ids, mustOrder(t, s, m.ID, base.Add(time.Duration(i+1)*time.Second)).ID)
	}
	mustOrder(t, s, other.ID, base)
	var listed []string
	before := ""
	for {
		page, err := s.Orders(t.Context(), rampway.OrderFilter{MerchantID: m.ID, Area: rampway.AreaMint, Before: before, Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		for _, p := range page {
			listed = append(listed, p.ID)
		}
		before = page[len(page)-1].ID
	}
	want := []string{ids[3], ids[2], ids[1], ids[0], o.ID}
	if fmt.Sprint(listed) != fmt.Sprint(want) {
		t.Fatalf("listed %v, want %v", listed, want)
	}
	page, err := s.Orders(t.Context(), rampway.OrderFilter{MerchantID: m.ID, Area: rampway.AreaMint, CreatedFrom: base.Add(2 * time.Second), CreatedTo: base.Add(4 * time.Second), Limit: 10})
	if err != nil || len(page) != 2 || page[0].ID != ids[2] || page[1].ID != ids[1] {
		t.Fatalf("time filter: %v %v", page, err)
	}
	if page, err := s.Orders(t.Context(), rampway.OrderFilter{MerchantID: m.ID, Area: rampway.AreaMint, Status: rampway.StatusSuccess, Limit: 10}); err != nil || len(page) != 0 {
		t.Fatalf("status filter: %v %v", page, err)
	}
	if page, err := s.Orders(t.Context(), rampway.OrderFilter{MerchantID: m.ID, Area: rampway.AreaDeposit, Limit: 10}); err != nil || len(page) != 0 {
		t.Fatalf("area filter: %v %v", page, err)
	}
}

func testTransitions(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	m := hookedMerchant(t, s, "acme")
	o := mustOrder(t, s, m.ID, now())
	at := now().Add(time.Second)
	// What the domain decides is what is stored: the order, its events, its refunds.
	got, err := s.Apply(t.Context(), o.ID, rampway.Expired{}, at)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != rampway.StatusExpired || !got.UpdatedAt.Equal(at) || got.ID != o.ID {
		t.Fatalf("after the cause: %+v", got)
	}
	stored, _ := s.Order(t.Context(), o.ID)
	if stored.MerchantID != m.ID || stored.Status != rampway.StatusExpired || !stored.UpdatedAt.Equal(at) {
		t.Fatalf("stored %+v", stored)
	}
	// A cause the order's state does not take changes nothing and records nothing.
	_, err = s.Apply(t.Context(), o.ID, rampway.Cancelled{}, now())
	wantCode(t, err, rampway.ECONFLICT)
	_, err = s.Apply(t.Context(), "ord_nope", rampway.Expired{}, now())
	wantCode(t, err, rampway.ENOTFOUND)
	// A payment after expiry: credited, refunded, REFUND_PENDING, with both its events.
	Pay(t, s, o, big.NewInt(5))
	events, err := s.OrderEvents(t.Context(), o.ID)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range events {
		names = append(names, fmt.Sprintf("%s:%s>%s", e.Name, e.From, e.To))
	}
	wantEvents := "[order.created:>CREATED order.deposit.failure:CREATED>EXPIRED order.deposit.success:EXPIRED>REFUND_PENDING " +
		"order.refund.pending:EXPIRED>REFUND_PENDING]"
	if fmt.Sprint(names) != wantEvents {
		t.Fatalf("events %v, want %s", names, wantEvents)
	}
	got, _ = s.Order(t.Context(), o.ID)
	refunds, err := s.Refunds(t.Context(), o.ID)
	if err != nil || len(refunds) != 1 || refunds[0].Amount.Int64() != 5 || refunds[0].To != Payer || got.CryptoReceived.Int64() != 5 ||
		got.FailureReason != "paid after the order expired" {
		t.Fatalf("order %+v, refunds %+v, %v", got, refunds, err)
	}
	// The deliveries carry the bodies the domain rendered (the last one lists the refund).
	ds, err := s.Deliveries(t.Context(), o.ID)
	if err != nil || len(ds) != 4 || !strings.Contains(string(ds[3].Body), `"reason":"paid after the order expired"`) {
		t.Fatalf("deliveries %+v, %v", ds, err)
	}
}

// Workers racing to move the same order: exactly one wins.
func testConcurrentTransition(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	m := mustMerchant(t, s, "acme")
	o := mustOrder(t, s, m.ID, now())
	const n = 8
	var wg sync.WaitGroup
	results := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			var c rampway.Cause = rampway.Cancelled{}
			if i%2 == 1 {
				c = rampway.Expired{}
			}
			_, err := s.Apply(context.Background(), o.ID, c, now())
			results <- err
		})
	}
	wg.Wait()
	close(results)
	wins := 0
	for err := range results {
		switch rampway.ErrorCode(err) {
		case "":
			wins++
		case rampway.ECONFLICT:
		default:
			t.Fatalf("unexpected error: %v", err)
		}
	}
	if wins != 1 {
		t.Fatalf("%d workers moved the order on, want exactly 1", wins)
	}
	events, _ := s.OrderEvents(t.Context(), o.ID)
	if len(events) != 2 {
		t.Fatalf("%d events, want 2", len(events))
	}
}

func testDepositIndexes(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	const n = 20
	var mu sync.Mutex
	seen := map[uint32]bool{}
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			i, err := s.NextDepositIndex(context.Background())
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if seen[i] {
				t.Errorf("index %d handed out twice", i)
			}
			seen[i] = true
		})
	}
	wg.Wait()
	if len(seen) != n {
		t.Fatalf("%d distinct indexes, want %d", len(seen), n)
	}
}

func testDueOrders(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	m := mustMerchant(t, s, "acme")
	base := now()
	o1 := mustOrder(t, s, m.ID, base)                  // expires at base+30m
	o2 := mustOrder(t, s, m.ID, base.Add(time.Minute)) // base+31m
	o3 := mustOrder(t, s, m.ID, base.Add(time.Hour))   // base+90m
	Drive(t, s, o2.ID, rampway.StatusDepositProcessing)
	due, err := s.DueOrders(t.Context(), []rampway.OrderStatus{rampway.StatusCreated}, base.Add(40*time.Minute), 10)
	if err != nil || len(due) != 1 || due[0].ID != o1.ID {
		t.Fatalf("due CREATED = %v, %v; want only %s", due, err, o1.ID)
	}
	due, err = s.DueOrders(t.Context(), []rampway.OrderStatus{rampway.StatusCreated, rampway.StatusDepositProcessing}, base.Add(100*time.Minute), 10)
	if err != nil || len(due) != 3 || due[0].ID != o1.ID || due[1].ID != o2.ID || due[2].ID != o3.ID {
		t.Fatalf("due = %v, %v; want all three by expiry", due, err)
	}
	if due, _ := s.DueOrders(t.Context(), []rampway.OrderStatus{rampway.StatusCreated}, base.Add(100*time.Minute), 1); len(due) != 1 {
		t.Fatalf("limit 1 gave %d", len(due))
	}
}

// PaidOrders are a network's orders in DEPOSIT_SUCCESS, longest waiting first; an order leaves
// them when its execution starts.
func testPaidOrders(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	ctx := t.Context()
	m := mustMerchant(t, s, "acme")
	base := now()
	var orders []*rampway.Order
	for i := range 5 {
		o := orderAt(m.ID, base.Add(time.Duration(i)*time.Second), uint32(100+i))
		if i == 4 {
			o.Network, o.Asset.Network = "othernet", "othernet"
		}
		if err := s.CreateOrder(ctx, o); err != nil {
			t.Fatal(err)
		}
		orders = append(orders, o)
	}
	pay := func(o *rampway.Order) { t.Helper(); Drive(t, s, o.ID, rampway.StatusDepositSuccess) }
	pay(orders[3]) // paid first, waits longest
	pay(orders[1])
	pay(orders[0]) // then executing: no longer waiting
	Drive(t, s, orders[0].ID, rampway.StatusSmartContractProcessing)
	pay(orders[4]) // another network
	ids := func(os []*rampway.Order) (out []string) {
		for _, o := range os {
			out = append(out, o.ID)
		}
		return out
	}
	for _, tt := range []struct {
		network string
		limit   int
		want    []string
	}{
		{"devnet", 10, []string{orders[3].ID, orders[1].ID}},
		{"devnet", 1, []string{orders[3].ID}},
		{"othernet", 10, []string{orders[4].ID}},
		{"nonet", 10, nil},
	} {
		got, err := s.PaidOrders(ctx, tt.network, tt.limit)
		if err != nil || !slices.Equal(ids(got), tt.want) {
			t.Errorf("PaidOrders(%s, %d) = %v, %v; want %v", tt.network, tt.limit, ids(got), err, tt.want)
		}
	}
}

// Reservations of several indexes at once, racing with each other and with single ones, never
// hand out an index twice.
func testReserveDepositIndexes(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	var (
		mu   sync.Mutex
		seen = map[uint32]bool{}
		wg   sync.WaitGroup
	)
	take := func(idx []uint32, err error) {
		if err != nil {
			t.Error(err)
			return
		}
		if !slices.IsSorted(idx) {
			t.Errorf("indexes not in ascending order: %v", idx)
		}
		mu.Lock()
		defer mu.Unlock()
		for _, i := range idx {
			if seen[i] {
				t.Errorf("index %d handed out twice", i)
			}
			seen[i] = true
		}
	}
	for range 8 {
		wg.Go(func() {
			for range 5 {
				take(s.ReserveDepositIndexes(t.Context(), 16))
				i, err := s.NextDepositIndex(t.Context())
				take([]uint32{i}, err)
			}
		})
	}
	wg.Wait()
	if len(seen) != 8*5*17 {
		t.Fatalf("%d distinct indexes, want %d", len(seen), 8*5*17)
	}
	for _, n := range []int{0, -1, 1001} {
		if _, err := s.ReserveDepositIndexes(t.Context(), n); err == nil {
			t.Fatalf("reserved %d indexes", n)
		}
	}
}

// AdvanceDepositIndex (what an operator runs after a restore) moves the next index on by n,
// also while indexes are being handed out: no index is handed out twice, and none after the
// advance is below its new next one.
func testAdvanceDepositIndex(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	adv, ok := s.(interface {
		AdvanceDepositIndex(ctx context.Context, n int64) (before, after int64, err error)
	})
	if !ok {
		t.Fatalf("%T has no AdvanceDepositIndex", s)
	}
	first, err := s.ReserveDepositIndexes(t.Context(), 3)
	if err != nil {
		t.Fatal(err)
	}
	before, after, err := adv.AdvanceDepositIndex(t.Context(), 1000)
	if err != nil {
		t.Fatal(err)
	}
	if before != int64(first[2])+1 || after != before+1000 {
		t.Fatalf("after indexes %v, advance by 1000: next %d -> %d, want %d -> %d", first, before, after, first[2]+1, int64(first[2])+1001)
	}
	if next, err := s.NextDepositIndex(t.Context()); err != nil || int64(next) != after {
		t.Fatalf("next index %d (%v), want %d", next, err, after)
	}
	// Concurrently with orders' reservations.
	var (
		mu   sync.Mutex
		seen = map[uint32]bool{}
		wg   sync.WaitGroup
	)
	for range 4 {
		wg.Go(func() {
			for range 10 {
				idx, err := s.ReserveDepositIndexes(t.Context(), 5)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				for _, i := range idx {
					if seen[i] {
						t.Errorf("index %d handed out twice", i)
					}
					seen[i] = true
				}
				mu.Unlock()
			}
		})
	}
	_, moved, err := adv.AdvanceDepositIndex(t.Context(), 100_000)
	if err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	next, err := s.NextDepositIndex(t.Context())
	if err != nil || int64(next) < moved {
		t.Fatalf("next index %d (%v) after an advance to %d", next, err, moved)
	}
	for _, n := range []int64{0, -5, 1 << 31} {
		if _, _, err := adv.AdvanceDepositIndex(t.Context(), n); rampway.ErrorCode(err) != rampway.EINVALID {
			t.Errorf("advance by %d: %v, want EINVALID", n, err)
		}
	}
	if _, _, err := adv.AdvanceDepositIndex(t.Context(), 1<<31-int64(next)); rampway.ErrorCode(err) != rampway.EINVALID {
		t.Errorf("advance past 2^31: %v, want EINVALID", err)
	}
}

// Orders created at once (SQLite shares their transactions) are each stored with their event,
// and one that conflicts fails alone: the others are stored all the same.
func testConcurrentCreateOrders(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	m := mustMerchant(t, s, "acme")
	if err := s.SetWebhookSecret(t.Context(), m.ID, false, "whsec_acme", 0, now()); err != nil {
		t.Fatal(err)
	}
	existing := mustOrder(t, s, m.ID, now())
	const n = 48
	var (
		wg        sync.WaitGroup
		mu        sync.Mutex
		created   []string
		refused   []string
		conflicts int
	)
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			o := *existing
			o.ID = rampway.NewID(rampway.PrefixOrder, now())
			o.DepositIndex = uint32(1_000_000 + i)
			o.DepositAddress = common.BigToAddress(big.NewInt(int64(o.DepositIndex)))
			switch i % 8 {
			case 0:
				o.ID = existing.ID // a duplicate: ECONFLICT, and only for itself
			case 4:
				o.MerchantID = "mch_unknown" // refused, and only itself
			}
			// Every other order was asked for under an Idempotency-Key: its answer is stored
			// with it (and only with it).
			var reply *rampway.IdempotentReply
			if i%2 == 0 {
				key, at := fmt.Sprintf("key-%d", i), now()
				if got, err := s.BeginIdempotent(t.Context(), &rampway.IdempotencyRecord{MerchantID: o.MerchantID, Key: key, RequestHash: []byte("h"), CreatedAt: at}, at.Add(-time.Hour)); err != nil || got != nil {
					t.Errorf("order %d: claim %s: %+v, %v", i, key, got, err)
					return
				}
				reply = &rampway.IdempotentReply{IdempotencyClaim: rampway.IdempotencyClaim{MerchantID: o.MerchantID, Key: key, ClaimedAt: at},
					Status: 201, Body: []byte(o.ID)}
			}
			err := s.CreateOrderWithReply(t.Context(), &o, reply)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil && i%8 != 0 && i%8 != 4:
				created = append(created, o.ID)
			case rampway.ErrorCode(err) == rampway.ECONFLICT && i%8 == 0:
				conflicts++
			case err != nil && rampway.ErrorCode(err) != rampway.ECONFLICT && i%8 == 4:
				refused = append(refused, o.ID)
			default:
				t.Errorf("order %d: %v", i, err)
			}
		})
	}
	close(start)
	wg.Wait()
	if len(created) != n-n/4 || conflicts != n/8 || len(refused) != n/8 {
		t.Fatalf("%d created, %d conflicts, %d refused; want %d, %d and %d", len(created), conflicts, len(refused), n-n/4, n/8, n/8)
	}
	for _, id := range created {
		if _, err := s.Order(t.Context(), id); err != nil {
			t.Fatal(err)
		}
		ds, err := s.Deliveries(t.Context(), id)
		if err != nil || len(ds) != 1 || ds[0].EventName != rampway.EventCreated {
			t.Fatalf("order %s: deliveries %v, %v", id, ds, err)
		}
	}
	for _, id := range refused {
		if _, err := s.Order(t.Context(), id); rampway.ErrorCode(err) != rampway.ENOTFOUND {
			t.Fatalf("refused order %s: %v; want not found", id, err)
		}
	}
	// The keys of the stored orders hold their answers; those of the refused ones (0 and 4
	// modulo 8) are still unanswered claims.
	for i := 0; i < n; i += 2 {
		merchant := m.ID
		if i%8 == 4 {
			merchant = "mch_unknown"
		}
		got, err := s.BeginIdempotent(t.Context(), &rampway.IdempotencyRecord{MerchantID: merchant, Key: fmt.Sprintf("key-%d", i), RequestHash: []byte("h"), CreatedAt: now()}, now().Add(-time.Hour))
		switch {
		case err != nil || got == nil:
			t.Fatalf("key-%d: %+v, %v", i, got, err)
		case i%8 == 0 || i%8 == 4:
			if got.Done {
				t.Fatalf("key-%d of a refused order was answered: %d %s", i, got.Status, got.Body)
			}
		case !got.Done || got.Status != 201 || !slices.Contains(created, string(got.Body)):
			t.Fatalf("key-%d: done %v, %d %q; want the answer of a created order", i, got.Done, got.Status, got.Body)
		}
	}
}

// An order whose Idempotency-Key claim a later request took over (the first ran past the
// claim's staleness) is not created: ECONFLICT, nothing stored, the new claim untouched; the
// later request's order is created with its answer. Alone and among other orders.
func testOrderClaimTakenOver(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	m := mustMerchant(t, s, "acme")
	for _, company := range []int{0, 5} {
		key := fmt.Sprintf("slow-%d", company)
		t0 := now().Add(-2 * time.Minute)
		begin := func(at time.Time) {
			if got, err := s.BeginIdempotent(t.Context(), &rampway.IdempotencyRecord{MerchantID: m.ID, Key: key, RequestHash: []byte("h"), CreatedAt: at}, at.Add(-time.Minute)); err != nil || got != nil {
				t.Fatalf("claim at %s: %+v, %v", at, got, err)
			}
		}
		begin(t0)
		t1 := now()
		begin(t1) // taken over: t0's claim is over a minute old
		reply := func(at time.Time, o *rampway.Order) *rampway.IdempotentReply {
			return &rampway.IdempotentReply{IdempotencyClaim: rampway.IdempotencyClaim{MerchantID: m.ID, Key: key, ClaimedAt: at}, Status: 201, Body: []byte(o.ID)}
		}
		idx := uint32(2_000_000 + company*100)
		slow := orderAt(m.ID, now(), idx)
		errs := make(chan error, company+1)
		var wg sync.WaitGroup
		for i := range company { // orders without a key, in the same batches
			wg.Go(func() { errs <- s.CreateOrder(t.Context(), orderAt(m.ID, now(), idx+1+uint32(i))) })
		}
		wg.Go(func() { errs <- s.CreateOrderWithReply(t.Context(), slow, reply(t0, slow)) })
		wg.Wait()
		close(errs)
		conflicts := 0
		for err := range errs {
			switch {
			case rampway.ErrorCode(err) == rampway.ECONFLICT:
				conflicts++
			case err != nil:
				t.Fatal(err)
			}
		}
		if conflicts != 1 {
			t.Fatalf("%d conflicts with %d orders beside, want the slow order's alone", conflicts, company)
		}
		if _, err := s.Order(t.Context(), slow.ID); rampway.ErrorCode(err) != rampway.ENOTFOUND {
			t.Fatalf("the order of a taken-over claim: %v; want not stored", err)
		}
		if got, err := s.BeginIdempotent(t.Context(), &rampway.IdempotencyRecord{MerchantID: m.ID, Key: key, RequestHash: []byte("h"), CreatedAt: now()}, t0); err != nil || got == nil || got.Done || !got.CreatedAt.Equal(t1) {
			t.Fatalf("the new claim after the slow order: %+v, %v", got, err)
		}
		retry := orderAt(m.ID, now(), idx+99)
		if err := s.CreateOrderWithReply(t.Context(), retry, reply(t1, retry)); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.BeginIdempotent(t.Context(), &rampway.IdempotencyRecord{MerchantID: m.ID, Key: key, RequestHash: []byte("h"), CreatedAt: now()}, t0); got == nil || !got.Done || string(got.Body) != retry.ID {
			t.Fatalf("the later request's answer: %+v", got)
		}
	}
}
