package storetest

import (
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
)

// paid stores a new order of amount and pays it in full: DEPOSIT_SUCCESS.
func paid(t *testing.T, s rampway.Store, merchantID string, amount *big.Int) *rampway.Order {
	t.Helper()
	o := orderAt(merchantID, now(), uint32(transferSeq.Add(1)))
	o.CryptoAmount = new(big.Int).Set(amount)
	if err := s.CreateOrder(t.Context(), o); err != nil {
		t.Fatal(err)
	}
	return Drive(t, s, o.ID, rampway.StatusDepositSuccess)
}

// fakeSign signs n transactions from first as sign functions do (the call last).
func fakeSign(wallet common.Address, n int, tag byte) func(uint64) ([]*rampway.ChainTx, error) {
	return func(first uint64) ([]*rampway.ChainTx, error) {
		var out []*rampway.ChainTx
		for i := range n {
			kind := rampway.TxCall
			if i < n-1 {
				kind = rampway.TxApprove
			}
			nonce := first + uint64(i)
			out = append(out, &rampway.ChainTx{Hash: common.BytesToHash([]byte{tag, byte(nonce), byte(i)}), Network: "devnet", Wallet: wallet,
				Nonce: nonce, Kind: kind, Raw: []byte{tag, byte(nonce)}, SentBlock: 7})
		}
		return out, nil
	}
}

func testExecutions(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	ctx := t.Context()
	m := mustMerchant(t, s, "acme")
	wallet := common.HexToAddress("0x00000000000000000000000000000000000000aa")

	// Nonces start at the chain's, and go on from the store's.
	a := paid(t, s, m.ID, big.NewInt(100))
	ea, err := s.StartExecution(ctx, a.ID, "devnet", wallet, 5, fakeSign(wallet, 2, 1), now())
	if err != nil || ea.Nonce != 6 {
		t.Fatalf("StartExecution = %+v, %v; want the call at nonce 6", ea, err)
	}
	if got, _ := s.Order(ctx, a.ID); got.Status != rampway.StatusSmartContractProcessing || got.ExecutionTxHash != ea.TxHash.Hex() {
		t.Fatalf("order after start: %s %s", got.Status, got.ExecutionTxHash)
	}
	// An order is started once; the refused attempt consumes no nonce.
	_, err = s.StartExecution(ctx, a.ID, "devnet", wallet, 0, fakeSign(wallet, 1, 2), now())
	wantCode(t, err, rampway.ECONFLICT)
	b := paid(t, s, m.ID, big.NewInt(100))
	eb, err := s.StartExecution(ctx, b.ID, "devnet", wallet, 3, fakeSign(wallet, 1, 3), now()) // the node lags: ours wins
	if err != nil || eb.Nonce != 7 {
		t.Fatalf("second execution at nonce %+v, %v; want 7", eb, err)
	}
	// A failing sign stores nothing and keeps the order.
	c := paid(t, s, m.ID, big.NewInt(100))
	_, err = s.StartExecution(ctx, c.ID, "devnet", wallet, 0, func(uint64) ([]*rampway.ChainTx, error) { return nil, errors.New("hsm down") }, now())
	if err == nil {
		t.Fatal("a failed signature started an execution")
	}
	if got, _ := s.Order(ctx, c.ID); got.Status != rampway.StatusDepositSuccess {
		t.Fatalf("order after a failed start: %s", got.Status)
	}
	ec, err := s.StartExecution(ctx, c.ID, "devnet", wallet, 0, fakeSign(wallet, 1, 4), now())
	if err != nil || ec.Nonce != 8 {
		t.Fatalf("after a failed start: %+v, %v; want nonce 8", ec, err)
	}

	pending, err := s.PendingTxs(ctx, "devnet")
	if err != nil || len(pending) != 4 || pending[0].Nonce != 5 || pending[0].Kind != rampway.TxApprove || pending[3].Nonce != 8 || pending[0].SentBlock != 7 {
		t.Fatalf("pending = %+v, %v", pending, err)
	}
	// A replacement of a pending nonce is kept with it; a settled nonce takes none.
	repl := &rampway.ChainTx{Hash: common.HexToHash("0xbeef"), Network: "devnet", Wallet: wallet, Nonce: 7, Kind: rampway.TxCall, Ref: b.ID, Raw: []byte{9}, SentBlock: 9, CreatedAt: now()}
	if err := s.AddTx(ctx, repl); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishExecution(ctx, b.ID, rampway.MinedTx{Hash: repl.Hash, OK: true}, "", now()); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Order(ctx, b.ID); got.Status != rampway.StatusSuccess || got.ExecutionTxHash != repl.Hash.Hex() {
		t.Fatalf("order b: %s %s; want SUCCESS with the replacement's hash", got.Status, got.ExecutionTxHash)
	}
	_, txs, err := s.Execution(ctx, b.ID)
	if err != nil || len(txs) != 2 || txs[0].Status != rampway.TxReplaced || txs[1].Status != rampway.TxMined {
		t.Fatalf("b's transactions: %+v, %v", txs, err)
	}
	repl2 := *repl
	repl2.Hash = common.HexToHash("0xbeef2")
	wantCode(t, s.AddTx(ctx, &repl2), rampway.ECONFLICT)
	// The approve settles by itself.
	if err := s.SettleTx(ctx, "devnet", rampway.MinedTx{Hash: pending[0].Hash, OK: true}, now()); err != nil {
		t.Fatal(err)
	}

	// A revert: FAILED with its reason and a refund of what was paid (up to the price).
	if err := s.FinishExecution(ctx, a.ID, rampway.MinedTx{Hash: ea.TxHash, OK: false}, "the smart-contract call reverted: sold out", now()); err != nil {
		t.Fatal(err)
	}
	got, _ := s.Order(ctx, a.ID)
	if got.Status != rampway.StatusFailed || got.FailureReason != "the smart-contract call reverted: sold out" {
		t.Fatalf("order a: %s %q", got.Status, got.FailureReason)
	}
	refunds, err := s.Refunds(ctx, a.ID)
	if err != nil || len(refunds) != 1 || refunds[0].Amount.Int64() != 100 || refunds[0].Cause != "failed" || refunds[0].Status != rampway.RefundPending ||
		refunds[0].Token != a.Asset.Contract || refunds[0].Reason != got.FailureReason {
		t.Fatalf("refunds = %+v, %v", refunds, err)
	}
	// Finishing twice changes nothing.
	if err := s.FinishExecution(ctx, a.ID, rampway.MinedTx{Hash: ea.TxHash, OK: true}, "", now()); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Order(ctx, a.ID); got.Status != rampway.StatusFailed {
		t.Fatalf("a finished execution finished again: %s", got.Status)
	}
	if pending, _ := s.PendingTxs(ctx, "devnet"); len(pending) != 1 || pending[0].Ref != c.ID {
		t.Fatalf("pending after settling: %+v", pending)
	}
	_, _, err = s.Execution(ctx, "ord_unknown")
	wantCode(t, err, rampway.ENOTFOUND)

	// Signing holds no database lock: a signer that takes its time (a remote one) does not
	// block the store, here so much that another execution of the same wallet starts while it
	// signs (on SQLite a write inside a write transaction would wait out its busy timeout, on
	// PostgreSQL the nonce row's lock would wait forever). That one takes the nonce; the slow
	// one's claim finds it moved and it signs again with the next.
	w2 := common.HexToAddress("0x00000000000000000000000000000000000000ab")
	d, e := paid(t, s, m.ID, big.NewInt(100)), paid(t, s, m.ID, big.NewInt(100))
	var firsts []uint64
	var ee *rampway.Execution
	ed, err := s.StartExecution(ctx, d.ID, "devnet", w2, 0, func(first uint64) ([]*rampway.ChainTx, error) {
		firsts = append(firsts, first)
		if ee == nil {
			var err error
			if ee, err = s.StartExecution(ctx, e.ID, "devnet", w2, 0, fakeSign(w2, 1, 0xe0), now()); err != nil {
				return nil, err
			}
		}
		return fakeSign(w2, 1, 0xd0+byte(len(firsts)))(first)
	}, now())
	if err != nil || ee == nil || ee.Nonce != 0 || ed.Nonce != 1 || fmt.Sprint(firsts) != "[0 1]" {
		t.Fatalf("execution signed while another started: %+v (signed from %v), the other %+v, %v; want 1 then 0", ed, firsts, ee, err)
	}
	_, dtxs, err := s.Execution(ctx, d.ID)
	if err != nil || len(dtxs) != 1 || dtxs[0].Hash != ed.TxHash || dtxs[0].Nonce != 1 {
		t.Fatalf("d's stored transactions %+v, %v: only the signature made with nonce 1", dtxs, err)
	}
}

// Many workers starting executions at once never share a nonce.
func testConcurrentNonces(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	m := mustMerchant(t, s, "acme")
	wallet := common.HexToAddress("0x00000000000000000000000000000000000000bb")
	var orders []*rampway.Order
	for range 8 {
		orders = append(orders, paid(t, s, m.ID, big.NewInt(1)))
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(orders)*2)
	for i, o := range orders {
		for w := range 2 { // two instances try each order
			wg.Go(func() {
				_, err := s.StartExecution(t.Context(), o.ID, "devnet", wallet, 0, fakeSign(wallet, 1+i%2, byte(10+2*i+w)), now())
				if err != nil && rampway.ErrorCode(err) != rampway.ECONFLICT {
					errs <- err
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	pending, err := s.PendingTxs(t.Context(), "devnet")
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for i := range orders {
		want += 1 + i%2
	}
	if len(pending) != want {
		t.Fatalf("%d transactions stored, want %d (one execution per order)", len(pending), want)
	}
	for i, p := range pending {
		if p.Nonce != uint64(i) {
			t.Fatalf("nonces %v: not one of each from 0", pending)
		}
	}
}

func testRefunds(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	ctx := t.Context()
	m := mustMerchant(t, s, "acme")
	o := orderAt(m.ID, now(), 7)
	o.CryptoAmount = big.NewInt(1000)
	if err := s.CreateOrder(ctx, o); err != nil {
		t.Fatal(err)
	}
	payer := common.HexToAddress("0x00000000000000000000000000000000000000cc")
	pay := func(tx string, amount int64) {
		t.Helper()
		tr := &rampway.InboundTransfer{Network: "devnet", TxHash: common.HexToHash(tx), LogIndex: 0, OrderID: o.ID, Token: o.Asset.Contract,
			From: payer, To: o.DepositAddress, Amount: big.NewInt(amount), BlockNumber: 10, BlockHash: common.HexToHash("0xb")}
		if _, err := s.RecordTransfer(ctx, tr, now()); err != nil {
			t.Fatal(err)
		}
		if err := s.ConfirmTransfer(ctx, "devnet", tr.TxHash, 0, now()); err != nil {
			t.Fatal(err)
		}
	}
	pay("0x01", 600)  // underpaid
	pay("0x02", 500)  // paid in full, 100 over
	pay("0x03", 2000) // after it was paid in full: all of it
	got, _ := s.Order(ctx, o.ID)
	if got.Status != rampway.StatusDepositSuccess || got.CryptoReceived.Int64() != 3100 {
		t.Fatalf("order: %s with %s", got.Status, got.CryptoReceived)
	}
	refunds, err := s.Refunds(ctx, o.ID)
	if err != nil || len(refunds) != 2 {
		t.Fatalf("refunds = %+v, %v", refunds, err)
	}
	for i, want := range []int64{100, 2000} {
		if r := refunds[i]; r.Amount.Int64() != want || r.To != payer || r.Token != o.Asset.Contract || r.Network != "devnet" {
			t.Fatalf("refund %d = %+v, want %d to the payer", i, r, want)
		}
	}
	// Failing now refunds the price (the excess is already owed), once.
	if _, err := s.Apply(ctx, o.ID, rampway.ExecutionRefused{Reason: "cannot execute"}, now()); err != nil {
		t.Fatal(err)
	}
	refunds, _ = s.Refunds(ctx, o.ID)
	if len(refunds) != 3 || refunds[2].Amount.Int64() != 1000 || refunds[2].Reason != "cannot execute" || refunds[2].To != payer {
		t.Fatalf("refunds after failing = %+v", refunds)
	}
}

// A wallet whose nonce on chain is past every nonce the store assigned (used outside rampway,
// or the database restored from an older backup) is not signed with: no signature, nothing
// stored, the order as it was; an operator adopts the chain's nonce (never one below the
// store's), and signing goes on from it.
func testNonceAhead(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	ctx := t.Context()
	m := mustMerchant(t, s, "ahead")
	wallet := common.HexToAddress("0x00000000000000000000000000000000000000bb")
	a := paid(t, s, m.ID, big.NewInt(100))
	if ea, err := s.StartExecution(ctx, a.ID, "devnet", wallet, 3, fakeSign(wallet, 1, 1), now()); err != nil || ea.Nonce != 3 {
		t.Fatalf("first execution: %+v, %v", ea, err)
	}
	b := paid(t, s, m.ID, big.NewInt(100))
	signed := false
	_, err := s.StartExecution(ctx, b.ID, "devnet", wallet, 6, func(uint64) ([]*rampway.ChainTx, error) { signed = true; return nil, nil }, now())
	if !errors.Is(err, rampway.ErrNonceAhead) || signed || !strings.Contains(err.Error(), "rampway admin nonces adopt --network devnet --wallet "+wallet.Hex()+" --next 6") {
		t.Fatalf("the chain at nonce 6, the store at 4: signed %v, %v", signed, err)
	}
	if got, _ := s.Order(ctx, b.ID); got.Status != rampway.StatusDepositSuccess {
		t.Fatalf("the order after the refusal: %s", got.Status)
	}
	if _, err := s.AdoptNonce(ctx, "devnet", wallet, 2); rampway.ErrorCode(err) != rampway.EINVALID {
		t.Fatalf("adopting a nonce below the store's: %v", err)
	}
	if _, err := s.AdoptNonce(ctx, "devnet", common.HexToAddress("0x01"), 6); rampway.ErrorCode(err) != rampway.ENOTFOUND {
		t.Fatalf("adopting for a wallet never used: %v", err)
	}
	before, err := s.AdoptNonce(ctx, "devnet", wallet, 6)
	if err != nil || before != 4 {
		t.Fatalf("adopt: %d, %v", before, err)
	}
	ns, err := s.Nonces(ctx)
	if err != nil || !slices.ContainsFunc(ns, func(n rampway.WalletNonce) bool { return n.Wallet == wallet && n.Network == "devnet" && n.Next == 6 }) {
		t.Fatalf("nonces %+v, %v", ns, err)
	}
	if eb, err := s.StartExecution(ctx, b.ID, "devnet", wallet, 6, fakeSign(wallet, 1, 2), now()); err != nil || eb.Nonce != 6 {
		t.Fatalf("after the adoption: %+v, %v", eb, err)
	}
}
