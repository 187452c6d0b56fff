package storetest

import (
	"errors"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
)

// heard records what a store's hooks were told.
type heard struct {
	mu      sync.Mutex
	applied []rampway.Outcome
	missing []rampway.RuleMissing
	// strays are outcomes told with another order than their own.
	strays int
}

func (h *heard) hooks() rampway.Hooks {
	return rampway.Hooks{
		Applied: func(o *rampway.Order, out *rampway.Outcome) {
			h.mu.Lock()
			defer h.mu.Unlock()
			if o != out.Order {
				h.strays++
			}
			h.applied = append(h.applied, *out)
		},
		RuleMissing: func(err *rampway.RuleMissing) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.missing = append(h.missing, *err)
		},
	}
}

func (h *heard) take() ([]rampway.Outcome, []rampway.RuleMissing) {
	h.mu.Lock()
	defer h.mu.Unlock()
	a, m := h.applied, h.missing
	h.applied, h.missing = nil, nil
	return a, m
}

// The store tells its listeners what the causes it applies did, once their transaction has
// committed: a payment in full wakes the executor (WakeExecute); a cause applied in a
// transaction that then rolls back is not told; a fact the order's state has no rule for is a
// *RuleMissing, told at once, the order unchanged; after stop, nothing more is told.
func testHooks(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	l, ok := s.(rampway.Listener)
	if !ok {
		t.Fatal("the store tells no listeners (rampway.Listener): internal/app wakes the workers through it")
	}
	ctx := t.Context()
	var h heard
	t.Cleanup(func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		if h.strays > 0 {
			t.Errorf("%d outcomes were told with another order than their own", h.strays)
		}
	})
	stop := l.Listen(h.hooks())
	m := mustMerchant(t, s, "acme")

	// Paid in full: told, after the commit, with the executor to wake.
	o := orderAt(m.ID, now(), uint32(transferSeq.Add(1)))
	o.CryptoAmount = big.NewInt(1000)
	if err := s.CreateOrder(ctx, o); err != nil {
		t.Fatal(err)
	}
	tr := &rampway.InboundTransfer{Network: "devnet", TxHash: common.BigToHash(new(big.Int).SetUint64(transferSeq.Add(1))), OrderID: o.ID,
		Token: o.Asset.Contract, From: Payer, To: o.DepositAddress, Amount: big.NewInt(1000), BlockNumber: 10, BlockHash: common.HexToHash("0xb")}
	if _, err := s.RecordTransfer(ctx, tr, now()); err != nil {
		t.Fatal(err)
	}
	if applied, _ := h.take(); len(applied) != 1 || applied[0].Order.Status != rampway.StatusDepositProcessing || applied[0].WakeExecute {
		t.Fatalf("seen: heard %+v", applied)
	}
	if err := s.ConfirmTransfer(ctx, "devnet", tr.TxHash, 0, now()); err != nil {
		t.Fatal(err)
	}
	if applied, _ := h.take(); len(applied) != 1 || applied[0].Order.Status != rampway.StatusDepositSuccess || !applied[0].WakeExecute ||
		len(applied[0].Events) != 1 {
		t.Fatalf("confirmed: heard %+v", applied)
	}

	// A fact without a rule: an execution mined of an order never executed.
	_, err := s.Apply(ctx, o.ID, rampway.ExecutionMined{TxHash: common.HexToHash("0xc0")}, now())
	var missing *rampway.RuleMissing
	if !errors.As(err, &missing) || missing.OrderID != o.ID || missing.Status != rampway.StatusDepositSuccess || missing.Cause != rampway.CauseExecutionMined {
		t.Fatalf("a fact without a rule: %v", err)
	}
	if applied, ms := h.take(); len(applied) != 0 || len(ms) != 1 || ms[0] != *missing {
		t.Fatalf("a fact without a rule: heard %+v %+v", applied, ms)
	}
	if got, _ := s.Order(ctx, o.ID); got.Status != rampway.StatusDepositSuccess {
		t.Fatalf("order %s after a fact without a rule", got.Status)
	}
	// A request the state does not take is a race: refused, nothing told.
	if _, err := s.Apply(ctx, o.ID, rampway.Cancelled{}, now()); rampway.ErrorCode(err) != rampway.ECONFLICT {
		t.Fatalf("a cancel of a paid order: %v", err)
	}
	if applied, ms := h.take(); len(applied) != 0 || len(ms) != 0 {
		t.Fatalf("a refused request: heard %+v %+v", applied, ms)
	}

	// Rolled back: the refund's payment is applied to its order, then the transaction fails
	// (its transaction hash is not stored): nothing is told, nothing is changed.
	failed, r := failedWithRefund(t, s, m.ID, Payer)
	h.take()
	wallet := common.HexToAddress("0x00000000000000000000000000000000000000bb")
	sent, err := s.StartRefund(ctx, r.ID, wallet, 0, big.NewInt(21), big.NewInt(979), signRefund(wallet, 9), now())
	if err != nil {
		t.Fatal(err)
	}
	if applied, _ := h.take(); len(applied) != 1 || applied[0].Order.Status != rampway.StatusRefundPending {
		t.Fatalf("refund sent: heard %+v", applied)
	}
	if err := s.FinishRefund(ctx, r.ID, rampway.MinedTx{Hash: common.HexToHash("0xdead"), OK: true}, "", now()); rampway.ErrorCode(err) != rampway.ENOTFOUND {
		t.Fatalf("finish with a transaction not stored: %v", err)
	}
	if applied, ms := h.take(); len(applied) != 0 || len(ms) != 0 {
		t.Fatalf("rolled back: heard %+v %+v", applied, ms)
	}
	if got, _ := s.Order(ctx, failed.ID); got.Status != rampway.StatusRefundPending {
		t.Fatalf("order %s after a rolled back refund payment", got.Status)
	}

	// Stopped: nothing more is told.
	stop()
	if err := s.FinishRefund(ctx, r.ID, rampway.MinedTx{Hash: sent.TxHash, OK: true}, "", now()); err != nil {
		t.Fatal(err)
	}
	if applied, ms := h.take(); len(applied) != 0 || len(ms) != 0 {
		t.Fatalf("after stop: heard %+v %+v", applied, ms)
	}
}

// ApplyEach applies a cause to each order as Apply would, in one transaction: an order whose
// state no longer takes it (ECONFLICT) or that does not exist (ENOTFOUND) is answered alone,
// nothing of it written, and the others are moved, with their events; the listeners hear of
// the moved ones only.
func testApplyEach(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	ctx := t.Context()
	var h heard
	stop := s.(rampway.Listener).Listen(h.hooks())
	defer stop()
	m := mustMerchant(t, s, "Each")
	at := now()
	a, b, c := mustOrder(t, s, m.ID, at), mustOrder(t, s, m.ID, at), mustOrder(t, s, m.ID, at)
	if _, err := s.Apply(ctx, b.ID, rampway.Cancelled{}, at); err != nil {
		t.Fatal(err)
	}
	h.take()
	later := at.Add(time.Hour)
	errs, err := s.ApplyEach(ctx, []string{a.ID, b.ID, "ord_unknown", c.ID}, rampway.Expired{}, later)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"", rampway.ECONFLICT, rampway.ENOTFOUND, ""}
	for i, e := range errs {
		if rampway.ErrorCode(e) != want[i] {
			t.Errorf("order %d: %v, want %q", i, e, want[i])
		}
	}
	if len(errs) != len(want) {
		t.Fatalf("%d answers, want %d", len(errs), len(want))
	}
	for _, tc := range []struct {
		o      *rampway.Order
		status rampway.OrderStatus
		events int
	}{{a, rampway.StatusExpired, 2}, {b, rampway.StatusCancelled, 2}, {c, rampway.StatusExpired, 2}} {
		got, err := s.Order(ctx, tc.o.ID)
		if err != nil || got.Status != tc.status {
			t.Fatalf("order %s: %v, %v; want %s", tc.o.ID, got.Status, err, tc.status)
		}
		if evs, err := s.OrderEvents(ctx, tc.o.ID); err != nil || len(evs) != tc.events {
			t.Fatalf("order %s: %d events, %v; want %d", tc.o.ID, len(evs), err, tc.events)
		}
	}
	applied, _ := h.take()
	if len(applied) != 2 || applied[0].Order.ID != a.ID || applied[1].Order.ID != c.ID {
		t.Fatalf("listeners heard %d outcomes, want a's and c's", len(applied))
	}
}
