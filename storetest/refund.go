package storetest

import (
	"math/big"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
)

// failedWithRefund stores an order of 1000 paid in full by payer, then failed: FAILED, with one
// refund of 1000 (cause "failed"), which it returns.
func failedWithRefund(t *testing.T, s rampway.Store, merchantID string, payer common.Address) (*rampway.Order, *rampway.Refund) {
	t.Helper()
	ctx := t.Context()
	o := paidMint(t, s, merchantID, payer)
	if _, err := s.Apply(ctx, o.ID, rampway.ExecutionRefused{Reason: "cannot execute"}, now()); err != nil {
		t.Fatal(err)
	}
	refunds, err := s.Refunds(ctx, o.ID)
	if err != nil || len(refunds) != 1 || refunds[0].Status != rampway.RefundPending || refunds[0].ToSource != rampway.RefundToPayer {
		t.Fatalf("refunds %+v, %v", refunds, err)
	}
	return o, refunds[0]
}

// paidMint stores an area A order of 1000 paid in full by payer: DEPOSIT_SUCCESS.
func paidMint(t *testing.T, s rampway.Store, merchantID string, payer common.Address) *rampway.Order {
	t.Helper()
	ctx := t.Context()
	o := orderAt(merchantID, now(), uint32(transferSeq.Add(1)))
	o.CryptoAmount = big.NewInt(1000)
	if err := s.CreateOrder(ctx, o); err != nil {
		t.Fatal(err)
	}
	tr := &rampway.InboundTransfer{Network: "devnet", TxHash: common.BigToHash(new(big.Int).SetUint64(transferSeq.Add(1))), LogIndex: 0, OrderID: o.ID,
		Token: o.Asset.Contract, From: payer, To: o.DepositAddress, Amount: big.NewInt(1000), BlockNumber: 10, BlockHash: common.HexToHash("0xb")}
	if _, err := s.RecordTransfer(ctx, tr, now()); err != nil {
		t.Fatal(err)
	}
	if err := s.ConfirmTransfer(ctx, "devnet", tr.TxHash, 0, now()); err != nil {
		t.Fatal(err)
	}
	return o
}

// signRefund signs one refund transaction from first as the executor's sign function does.
func signRefund(wallet common.Address, tag byte) func(uint64) (*rampway.ChainTx, error) {
	return func(first uint64) (*rampway.ChainTx, error) {
		return &rampway.ChainTx{Hash: common.BytesToHash([]byte{0xee, tag, byte(first)}), Network: "devnet", Wallet: wallet, Nonce: first,
			Raw: []byte{0xee, tag}, SentBlock: 9}, nil
	}
}

// A refund's life in the store: held for an address, given one, held for approval, approved,
// sent (its order REFUND_PENDING with order.refund.processing), paid (REFUNDED); every step
// refused from a status that does not take it.
func testRefundPayouts(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	ctx := t.Context()
	m := mustMerchant(t, s, "acme")
	payer := common.HexToAddress("0x00000000000000000000000000000000000000cc")
	wallet := common.HexToAddress("0x00000000000000000000000000000000000000bb")
	user := common.HexToAddress("0x00000000000000000000000000000000000000dd")
	o, r := failedWithRefund(t, s, m.ID, payer)
	conflict := func(err error) {
		t.Helper()
		if rampway.ErrorCode(err) != rampway.ECONFLICT {
			t.Fatalf("want ECONFLICT, got %v", err)
		}
	}

	// Not waiting for anything yet: no address, no approval.
	_, err := s.SetRefundAddress(ctx, r.ID, user, rampway.RefundToUser, now())
	conflict(err)
	_, err = s.ApproveRefund(ctx, r.ID, "alice", now())
	conflict(err)
	if _, err := s.HoldRefund(ctx, r.ID, rampway.RefundSent, "x", now()); err == nil {
		t.Fatal("held in a status that is not a wait")
	}

	held, err := s.HoldRefund(ctx, r.ID, rampway.RefundAwaitingAddress, "the payer is a contract", now())
	if err != nil || held.Status != rampway.RefundAwaitingAddress || held.StatusReason != "the payer is a contract" {
		t.Fatalf("hold: %+v %v", held, err)
	}
	_, err = s.HoldRefund(ctx, r.ID, rampway.RefundAwaitingApproval, "x", now())
	conflict(err)
	given, err := s.SetRefundAddress(ctx, r.ID, user, rampway.RefundToUser, now())
	if err != nil || given.Status != rampway.RefundPending || given.To != user || given.ToSource != rampway.RefundToUser || given.StatusReason != "" {
		t.Fatalf("address: %+v %v", given, err)
	}
	if _, err := s.HoldRefund(ctx, r.ID, rampway.RefundAwaitingApproval, "above the limit", now()); err != nil {
		t.Fatal(err)
	}
	approvedAt := now()
	approved, err := s.ApproveRefund(ctx, r.ID, "alice", approvedAt)
	if err != nil || approved.Status != rampway.RefundPending || approved.ApprovedBy != "alice" || !approved.ApprovedAt.Equal(approvedAt) {
		t.Fatalf("approve: %+v %v", approved, err)
	}
	got, err := s.Refund(ctx, r.ID)
	if err != nil || got.To != user || got.ApprovedBy != "alice" || !got.ApprovedAt.Equal(approvedAt) || got.Amount.Int64() != 1000 {
		t.Fatalf("read back: %+v %v", got, err)
	}
	if list, err := s.ListRefunds(ctx, rampway.RefundFilter{Status: rampway.RefundPending, Network: "devnet"}); err != nil || len(list) != 1 || list[0].ID != r.ID {
		t.Fatalf("list pending: %+v %v", list, err)
	}
	if list, err := s.ListRefunds(ctx, rampway.RefundFilter{Status: rampway.RefundDone}); err != nil || len(list) != 0 {
		t.Fatalf("list done: %+v %v", list, err)
	}

	// Sent: the transaction stored, the refund sent with its fee, the order REFUND_PENDING.
	sent, err := s.StartRefund(ctx, r.ID, wallet, 5, big.NewInt(21), big.NewInt(979), signRefund(wallet, 1), now())
	if err != nil || sent.Status != rampway.RefundSent || sent.Fee.Int64() != 21 || sent.Sent.Int64() != 979 || sent.TxHash == (common.Hash{}) {
		t.Fatalf("start: %+v %v", sent, err)
	}
	_, err = s.StartRefund(ctx, r.ID, wallet, 5, big.NewInt(21), big.NewInt(979), signRefund(wallet, 2), now())
	conflict(err)
	pending, _ := s.PendingTxs(ctx, "devnet")
	if len(pending) != 1 || pending[0].Kind != rampway.TxRefund || pending[0].Ref != r.ID || pending[0].Nonce != 5 || pending[0].Hash != sent.TxHash {
		t.Fatalf("pending txs %+v", pending)
	}
	if got, _ := s.Order(ctx, o.ID); got.Status != rampway.StatusRefundPending {
		t.Fatalf("order %s after the refund was sent", got.Status)
	}
	if err := s.DustRefund(ctx, r.ID, big.NewInt(1), "x", now()); rampway.ErrorCode(err) != rampway.ECONFLICT {
		t.Fatalf("dust of a sent refund: %v", err)
	}

	// Paid: done, the transaction mined, the order REFUNDED; finishing again changes nothing.
	if err := s.FinishRefund(ctx, r.ID, rampway.MinedTx{Hash: sent.TxHash, OK: true}, "", now()); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishRefund(ctx, r.ID, rampway.MinedTx{Hash: sent.TxHash, OK: false}, "late", now()); err != nil {
		t.Fatal(err)
	}
	got, _ = s.Refund(ctx, r.ID)
	if got.Status != rampway.RefundDone || got.TxHash != sent.TxHash {
		t.Fatalf("finished: %+v", got)
	}
	if pending, _ := s.PendingTxs(ctx, "devnet"); len(pending) != 0 {
		t.Fatalf("pending after the refund was paid: %+v", pending)
	}
	final, _ := s.Order(ctx, o.ID)
	if final.Status != rampway.StatusRefunded {
		t.Fatalf("order %s after its refund was paid", final.Status)
	}
	events, err := s.OrderEvents(ctx, o.ID)
	if err != nil {
		t.Fatal(err)
	}
	var names []rampway.EventName
	for _, e := range events {
		names = append(names, e.Name)
	}
	if n := len(names); n < 2 || names[n-2] != rampway.EventRefundProcessing || names[n-1] != rampway.EventRefunded {
		t.Fatalf("events %v", names)
	}

	// A reverted refund: failed (the order stays REFUND_PENDING), then approved again.
	o2, r2 := failedWithRefund(t, s, m.ID, payer)
	sent2, err := s.StartRefund(ctx, r2.ID, wallet, 0, big.NewInt(21), big.NewInt(979), signRefund(wallet, 3), now())
	if err != nil || sent2.TxHash.Bytes()[31] != 6 { // the wallet's next nonce is 6
		t.Fatalf("start: %+v %v", sent2, err)
	}
	if err := s.FinishRefund(ctx, r2.ID, rampway.MinedTx{Hash: sent2.TxHash, OK: false}, "the refund's transfer reverted", now()); err != nil {
		t.Fatal(err)
	}
	got, _ = s.Refund(ctx, r2.ID)
	if got.Status != rampway.RefundFailed || got.StatusReason != "the refund's transfer reverted" {
		t.Fatalf("failed: %+v", got)
	}
	if o, _ := s.Order(ctx, o2.ID); o.Status != rampway.StatusRefundPending {
		t.Fatalf("order %s after its refund failed", o.Status)
	}
	if again, err := s.ApproveRefund(ctx, r2.ID, "bob", now()); err != nil || again.Status != rampway.RefundPending {
		t.Fatalf("approve a failed refund: %+v %v", again, err)
	}

	// Dust: settled unsent; a failed order stays FAILED.
	o3, r3 := failedWithRefund(t, s, m.ID, payer)
	if err := s.DustRefund(ctx, r3.ID, big.NewInt(2000), "does not cover the fee", now()); err != nil {
		t.Fatal(err)
	}
	got, _ = s.Refund(ctx, r3.ID)
	if got.Status != rampway.RefundDust || got.Fee.Int64() != 2000 || got.Sent.Sign() != 0 || got.StatusReason != "does not cover the fee" {
		t.Fatalf("dust: %+v", got)
	}
	if o, _ := s.Order(ctx, o3.ID); o.Status != rampway.StatusFailed {
		t.Fatalf("order %s after its only refund was dust", o.Status)
	}
	if _, err := s.Refund(ctx, "rfd_00000000000000000000000000"); rampway.ErrorCode(err) != rampway.ENOTFOUND {
		t.Fatalf("unknown refund: %v", err)
	}
}

// Two instances send the same refund at once: one transaction is stored, one nonce used.
func testConcurrentRefunds(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	m := mustMerchant(t, s, "acme")
	payer := common.HexToAddress("0x00000000000000000000000000000000000000cc")
	wallet := common.HexToAddress("0x00000000000000000000000000000000000000b1")
	var refunds []*rampway.Refund
	for range 4 {
		_, r := failedWithRefund(t, s, m.ID, payer)
		refunds = append(refunds, r)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 2*len(refunds))
	for i, r := range refunds {
		for w := range 2 {
			wg.Go(func() {
				_, err := s.StartRefund(t.Context(), r.ID, wallet, 0, big.NewInt(1), big.NewInt(999), signRefund(wallet, byte(10+2*i+w)), now())
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
	pending, _ := s.PendingTxs(t.Context(), "devnet")
	var ours []*rampway.ChainTx
	for _, p := range pending {
		if p.Wallet == wallet {
			ours = append(ours, p)
		}
	}
	if len(ours) != len(refunds) {
		t.Fatalf("%d refund transactions stored, want %d", len(ours), len(refunds))
	}
	for i, p := range ours {
		if p.Nonce != uint64(i) {
			t.Fatalf("nonces %+v: not one of each from 0", ours)
		}
	}
}
