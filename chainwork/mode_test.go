package chainwork_test

import (
	"math/big"
	"strings"
	"testing"

	"github.com/rampway/rampway"
)

// setLivemode forges an order row's mode, as a bug or a hand-edited database could: the API
// never creates an order whose mode is not its network's.
func (e *execEnv) setLivemode(o *rampway.Order, live bool) {
	e.t.Helper()
	if _, err := e.store.DB().ExecContext(e.t.Context(), "UPDATE orders SET livemode = $1 WHERE id = $2", live, o.ID); err != nil {
		e.t.Fatal(err)
	}
}

// The executor is the last guard before money moves: on a network of one mode it executes
// only orders of that mode. A forged row of the other mode (areas A and C here: every area's
// execution is planned through the same check) fails with the reason an operator reads,
// nothing is sent from the hot wallet, and its refund is held for an operator rather than
// paid on the wrong mode's network. An order of the network's mode executes as usual.
func TestExecutorRefusesOrdersOfTheOtherMode(t *testing.T) {
	t.Parallel()
	for _, netLive := range []bool{false, true} {
		t.Run("live network "+map[bool]string{false: "no", true: "yes"}[netLive], func(t *testing.T) {
			t.Parallel()
			e := newExecEnv(t)
			e.net.Livemode = netLive
			f := e.register("mint", "ETH")
			x := e.executor(nil)
			ctx := t.Context()

			ok := e.paidOrder(f, newRecipient(), 1)
			e.setLivemode(ok, netLive)
			forged := e.paidOrder(f, newRecipient(), 1)
			e.setLivemode(forged, !netLive)
			// Area C: a transfer to the merchant, fiat-paid (ONRAMP_SUCCESS), forged likewise.
			payout := newRecipient()
			c := e.payoutOrder(payout, big.NewInt(1e15), 21_000, !netLive)
			nonce, err := e.client.NonceAt(ctx, e.hot.Address(), nil)
			if err != nil {
				t.Fatal(err)
			}

			e.step(x)
			e.wantStatus(ok, rampway.StatusSmartContractProcessing)
			for _, o := range []*rampway.Order{forged, c} {
				got := e.order(o)
				if !failed(got) || !strings.Contains(got.FailureReason, "-mode order cannot move money on network devnet, which is "+rampway.ModeName(netLive)+" mode") {
					t.Fatalf("forged order %s (%s): %s %q", o.ID, o.Area, got.Status, got.FailureReason)
				}
				if _, txs, err := e.store.Execution(ctx, o.ID); rampway.ErrorCode(err) != rampway.ENOTFOUND {
					t.Fatalf("forged order %s: an execution (%d transactions, %v)", o.ID, len(txs), err)
				}
			}
			// Only the order of the network's mode was sent.
			if pending, err := e.client.PendingNonceAt(ctx, e.hot.Address()); err != nil || pending != nonce+1 {
				t.Fatalf("hot wallet pending nonce %d (%v), want %d: only one transaction", pending, err, nonce+1)
			}
			e.mine()
			e.step(x)
			e.wantStatus(ok, rampway.StatusSuccess)
			if bal, err := e.client.BalanceAt(ctx, payout, nil); err != nil || bal.Sign() != 0 {
				t.Fatalf("the forged area C order paid out %v (%v)", bal, err)
			}
			// The forged crypto-paid order's refund: held for an operator with the reason, not sent.
			e.step(x)
			rs, err := e.store.Refunds(ctx, forged.ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(rs) != 1 || rs[0].Status != rampway.RefundAwaitingApproval || !strings.Contains(rs[0].StatusReason, "cannot move money on network devnet") {
				t.Fatalf("forged order's refunds: %+v", rs)
			}
			if pending, err := e.client.PendingNonceAt(ctx, e.hot.Address()); err != nil || pending != nonce+1 {
				t.Fatalf("hot wallet pending nonce %d (%v) after the refund step, want %d", pending, err, nonce+1)
			}
		})
	}
}
