package chainwork_test

import (
	"context"
	"log/slog"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/shopspring/decimal"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain/devchain/bindings"
	"github.com/rampway/rampway/chainwork"
	"github.com/rampway/rampway/pricing"
)

// refunder is an executor that pays refunds, with prices for a token refund's fee.
func (e *execEnv) refunder(policies map[string]rampway.RefundPolicy) *chainwork.Executor {
	return chainwork.NewExecutor(chainwork.ExecutorConfig{RepriceAfter: 2, RefundPolicies: policies,
		Prices: pricing.Static{"ETH": decimal.NewFromInt(3000), "DUSD": decimal.NewFromInt(1)}}, e.store, e.reg, e.net, e.client, e.hot, slog.New(slog.DiscardHandler), nil)
}

// until steps and mines until cond holds (at most 10 rounds).
func (e *execEnv) until(x *chainwork.Executor, cond func() bool) {
	e.t.Helper()
	for range 10 {
		e.step(x)
		if cond() {
			return
		}
		e.mine()
	}
	e.t.Fatal("not reached in 10 steps")
}

func (e *execEnv) refunds(o *rampway.Order) []*rampway.Refund {
	e.t.Helper()
	rs, err := e.store.Refunds(e.t.Context(), o.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	return rs
}

// Failed orders paid in ETH and in DUSD are paid back: the network fee (converted into DUSD
// for the token, at the prices) comes out of each, what is sent reaches the payer to the base
// unit, and the orders end REFUNDED.
func TestExecutorPaysRefunds(t *testing.T) {
	t.Parallel()
	e := newExecEnv(t)
	e.capSupply(0)
	a := e.paidOrder(e.native, newRecipient(), 1)
	b := e.paidOrder(e.token, newRecipient(), 1)
	x := e.refunder(nil)
	e.until(x, func() bool {
		return e.order(a).Status == rampway.StatusRefunded && e.order(b).Status == rampway.StatusRefunded
	})
	token := bindings.NewDemoToken()
	for _, o := range []*rampway.Order{a, b} {
		rs := e.refunds(o)
		if len(rs) != 1 {
			t.Fatalf("refunds of %s: %+v", o.ID, rs)
		}
		r := rs[0]
		if r.Status != rampway.RefundDone || r.Fee.Sign() <= 0 || new(big.Int).Add(r.Fee, r.Sent).Cmp(r.Amount) != 0 || r.Amount.Cmp(o.CryptoAmount) != 0 {
			t.Fatalf("refund %+v of %s", r, o.CryptoAmount)
		}
		tx, _, err := e.client.TransactionByHash(t.Context(), r.TxHash)
		if err != nil {
			t.Fatal(err)
		}
		if o.Asset.IsNative() {
			bal, _ := e.client.BalanceAt(t.Context(), r.To, nil)
			if bal.Cmp(r.Sent) != 0 || *tx.To() != r.To || tx.Gas() != 21_000 {
				t.Fatalf("the payer holds %s, sent %s (tx to %s, gas %d)", bal, r.Sent, tx.To().Hex(), tx.Gas())
			}
			continue
		}
		out, err := e.client.CallContract(t.Context(), ethereum.CallMsg{To: &o.Asset.Contract, Data: token.PackBalanceOf(r.To)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if bal := new(big.Int).SetBytes(out); bal.Cmp(r.Sent) != 0 || *tx.To() != o.Asset.Contract {
			t.Fatalf("the payer holds %s DUSD units, sent %s", bal, r.Sent)
		}
		// The fee in DUSD is the fee in ETH at 3000 USD, rounded up: at most 1 DUSD here.
		if r.Fee.Cmp(big.NewInt(1_000_000)) > 0 {
			t.Fatalf("token refund fee %s DUSD units", r.Fee)
		}
	}
}

// A refund owed to a contract waits for an address; one above the limit for an approval; one
// that the fee eats is dust. None of them is sent.
func TestExecutorHoldsRefunds(t *testing.T) {
	t.Parallel()
	e := newExecEnv(t)
	e.capSupply(0)
	ctx := t.Context()
	now := time.Now().UTC().Truncate(time.Microsecond)
	// Paid by a contract (the NFT's address), then failed.
	fromContract := e.unpaidOrder(e.native, newRecipient(), 1)
	tr := &rampway.InboundTransfer{Network: "devnet", TxHash: common.HexToHash("0xc0ffee"), LogIndex: -1, OrderID: fromContract.ID,
		From: e.chain.Contracts().NFT, To: fromContract.DepositAddress, Amount: fromContract.CryptoAmount, BlockNumber: 1, BlockHash: common.HexToHash("0x1")}
	if _, err := e.store.RecordTransfer(ctx, tr, now); err != nil {
		t.Fatal(err)
	}
	if err := e.store.ConfirmTransfer(ctx, "devnet", tr.TxHash, -1, now); err != nil {
		t.Fatal(err)
	}
	big1 := e.paidOrder(e.native, newRecipient(), 2)
	x := e.refunder(map[string]rampway.RefundPolicy{"devnet/ETH": {AutoMax: big.NewInt(15e15), Dust: new(big.Int)}})
	e.step(x) // the executor fails them (sold out), then holds their refunds
	e.step(x)
	for _, c := range []struct {
		o    *rampway.Order
		want rampway.RefundStatus
	}{{fromContract, rampway.RefundAwaitingAddress}, {big1, rampway.RefundAwaitingApproval}} {
		rs := e.refunds(c.o)
		if len(rs) != 1 || rs[0].Status != c.want || rs[0].StatusReason == "" || rs[0].TxHash != (common.Hash{}) {
			t.Fatalf("refunds of %s: %+v, want one %s", c.o.ID, rs, c.want)
		}
		if got := e.order(c.o); got.Status != rampway.StatusFailed {
			t.Fatalf("order %s with a held refund is %s", c.o.ID, got.Status)
		}
	}

	// The fee is more than the refund: dust, nothing sent, the order stays FAILED.
	tiny := e.paidOrder(e.native, newRecipient(), 1)
	if _, err := e.store.Apply(ctx, tiny.ID, rampway.ExecutionRefused{Reason: "x"}, now); err != nil {
		t.Fatal(err)
	}
	dust := e.refunder(map[string]rampway.RefundPolicy{"devnet/ETH": {Dust: new(big.Int).Set(tiny.CryptoAmount)}})
	e.step(dust)
	rs := e.refunds(tiny)
	if len(rs) != 1 || rs[0].Status != rampway.RefundDust || rs[0].Sent.Sign() != 0 || rs[0].Fee.Sign() <= 0 {
		t.Fatalf("refunds of %s: %+v, want one dust", tiny.ID, rs)
	}
	if got := e.order(tiny); got.Status != rampway.StatusFailed {
		t.Fatalf("order %s with a dust refund is %s", tiny.ID, got.Status)
	}
	if n, _ := e.client.PendingNonceAt(ctx, e.hot.Address()); n != 0 {
		t.Fatalf("the hot wallet sent %d transactions", n)
	}
}

// l2Client is a node of a network that charges its L1 data in gas (Arbitrum): every estimate
// is l1 above Ethereum's.
type l2Client struct {
	*ethclient.Client
	l1 uint64
}

func (c l2Client) EstimateGas(ctx context.Context, msg ethereum.CallMsg) (uint64, error) {
	g, err := c.Client.EstimateGas(ctx, msg)
	return g + c.l1, err
}

// A native refund's gas is the node's estimate, not Ethereum's 21,000: on a network whose
// plain transfer costs more, the refund's fee is the estimate's and its limit 25 % above it,
// and it is paid (with 21,000 the node would refuse it for ever, the refund stranded).
func TestExecutorRefundGasEstimated(t *testing.T) {
	t.Parallel()
	e := newExecEnv(t)
	e.capSupply(0)
	o := e.paidOrder(e.native, newRecipient(), 1)
	x := chainwork.NewExecutor(chainwork.ExecutorConfig{RepriceAfter: 2}, e.store, e.reg, e.net, l2Client{e.client, 15_000}, e.hot, slog.New(slog.DiscardHandler), nil)
	e.until(x, func() bool { return e.order(o).Status == rampway.StatusRefunded })
	r := e.refunds(o)[0]
	tx, _, err := e.client.TransactionByHash(t.Context(), r.TxHash)
	if err != nil {
		t.Fatal(err)
	}
	const gas = 21_000 + 15_000
	if tx.Gas() != gas+gas/4 {
		t.Fatalf("refund gas limit %d, want %d", tx.Gas(), gas+gas/4)
	}
	if r.Fee.Sign() <= 0 || new(big.Int).Rem(r.Fee, big.NewInt(gas)).Sign() != 0 {
		t.Fatalf("refund fee %s wei: not a price times the estimate's %d gas", r.Fee, gas)
	}
}
