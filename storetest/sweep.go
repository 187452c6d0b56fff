package storetest

import (
	"math/big"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
)

func testSweeps(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	ctx := t.Context()
	m := mustMerchant(t, s, "acme")
	o := mustOrder(t, s, m.ID, now())
	for i, tx := range []string{"0x01", "0x02"} {
		tr := &rampway.InboundTransfer{Network: "devnet", TxHash: common.HexToHash(tx), LogIndex: int64(i), OrderID: o.ID, Token: o.Asset.Contract,
			To: o.DepositAddress, Amount: big.NewInt(10), BlockNumber: 10, BlockHash: common.HexToHash("0xb")}
		if _, err := s.RecordTransfer(ctx, tr, now()); err != nil {
			t.Fatal(err)
		}
		if i == 0 { // the second stays unconfirmed
			if err := s.ConfirmTransfer(ctx, "devnet", tr.TxHash, tr.LogIndex, now()); err != nil {
				t.Fatal(err)
			}
		}
	}
	cands, err := s.SweepCandidates(ctx, "devnet", 10)
	if err != nil || len(cands) != 1 || cands[0].Address != o.DepositAddress || cands[0].Index != o.DepositIndex || cands[0].Token != o.Asset.Contract {
		t.Fatalf("candidates = %+v, %v", cands, err)
	}
	hot := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	sw := cands[0]
	sw.Amount = big.NewInt(10)
	if err := s.StartSweep(ctx, sw, hot, 4, rampway.TxGas, fakeOne(hot, 0xa1), now()); err != nil {
		t.Fatal(err)
	}
	if sw.ID == "" || sw.Status != rampway.SweepFunding {
		t.Fatalf("sweep = %+v", sw)
	}
	// Claimed: no longer a candidate, and a racing start finds nothing.
	if cands, _ := s.SweepCandidates(ctx, "devnet", 10); len(cands) != 0 {
		t.Fatalf("candidates after the start = %+v", cands)
	}
	again := &rampway.Sweep{Network: "devnet", Address: sw.Address, Index: sw.Index, Token: sw.Token}
	wantCode(t, s.StartSweep(ctx, again, hot, 0, rampway.TxGas, fakeOne(hot, 0xa2), now()), rampway.ECONFLICT)
	pending, _ := s.PendingTxs(ctx, "devnet")
	if len(pending) != 1 || pending[0].Kind != rampway.TxGas || pending[0].Ref != sw.ID || pending[0].Nonce != 4 {
		t.Fatalf("pending = %+v", pending)
	}
	if err := s.FinishSweepTx(ctx, "devnet", rampway.MinedTx{Hash: pending[0].Hash, OK: true}, now()); err != nil {
		t.Fatal(err)
	}
	funded, err := s.FundedSweeps(ctx, "devnet")
	if err != nil || len(funded) != 1 || funded[0].ID != sw.ID {
		t.Fatalf("funded = %+v, %v", funded, err)
	}
	// The fees rose past its gas: more gas, funding again, funded when it is mined.
	if err := s.RefuelSweep(ctx, sw.ID, hot, 5, fakeOne(hot, 0xa5), now()); err != nil {
		t.Fatal(err)
	}
	wantCode(t, s.RefuelSweep(ctx, sw.ID, hot, 6, fakeOne(hot, 0xa6), now()), rampway.ECONFLICT)
	wantCode(t, s.SendSweep(ctx, sw.ID, big.NewInt(12), 0, fakeOne(sw.Address, 0xa7), now()), rampway.ECONFLICT)
	if funded, _ := s.FundedSweeps(ctx, "devnet"); len(funded) != 0 {
		t.Fatalf("funded while more gas is on its way = %+v", funded)
	}
	pending, _ = s.PendingTxs(ctx, "devnet")
	if len(pending) != 1 || pending[0].Kind != rampway.TxGas || pending[0].Ref != sw.ID || pending[0].Wallet != hot || pending[0].Nonce != 5 {
		t.Fatalf("pending after the refuel = %+v", pending)
	}
	if err := s.FinishSweepTx(ctx, "devnet", rampway.MinedTx{Hash: pending[0].Hash, OK: true}, now()); err != nil {
		t.Fatal(err)
	}
	if funded, err = s.FundedSweeps(ctx, "devnet"); err != nil || len(funded) != 1 || funded[0].ID != sw.ID {
		t.Fatalf("funded after the refuel = %+v, %v", funded, err)
	}
	if err := s.SendSweep(ctx, sw.ID, big.NewInt(12), 0, fakeOne(sw.Address, 0xa3), now()); err != nil {
		t.Fatal(err)
	}
	wantCode(t, s.SendSweep(ctx, sw.ID, big.NewInt(12), 0, fakeOne(sw.Address, 0xa4), now()), rampway.ECONFLICT)
	pending, _ = s.PendingTxs(ctx, "devnet")
	if len(pending) != 1 || pending[0].Kind != rampway.TxSweep || pending[0].Wallet != sw.Address {
		t.Fatalf("pending = %+v", pending)
	}
	// It reverted: failed, and the transfers are candidates again.
	if err := s.FinishSweepTx(ctx, "devnet", rampway.MinedTx{Hash: pending[0].Hash, OK: false}, now()); err != nil {
		t.Fatal(err)
	}
	sweeps, err := s.Sweeps(ctx, "devnet", sw.Address)
	if err != nil || len(sweeps) != 1 || sweeps[0].Status != rampway.SweepFailed || sweeps[0].Amount.Int64() != 12 {
		t.Fatalf("sweeps = %+v, %v", sweeps, err)
	}
	if cands, _ := s.SweepCandidates(ctx, "devnet", 10); len(cands) != 1 {
		t.Fatalf("candidates after a failed sweep = %+v", cands)
	}
	// Too small to sweep: skipped, no transaction.
	skip := &rampway.Sweep{Network: "devnet", Address: sw.Address, Index: sw.Index, Token: sw.Token, Amount: big.NewInt(1)}
	if err := s.StartSweep(ctx, skip, sw.Address, 0, rampway.TxSweep, nil, now()); err != nil || skip.Status != rampway.SweepSkipped {
		t.Fatalf("skip = %+v, %v", skip, err)
	}
	if pending, _ := s.PendingTxs(ctx, "devnet"); len(pending) != 0 {
		t.Fatalf("pending after a skip = %+v", pending)
	}
}

// fakeOne signs one transaction of wallet.
func fakeOne(wallet common.Address, tag byte) func(uint64) (*rampway.ChainTx, error) {
	return func(n uint64) (*rampway.ChainTx, error) {
		return &rampway.ChainTx{Hash: common.BytesToHash([]byte{tag, byte(n)}), Network: "devnet", Wallet: wallet, Nonce: n, Raw: []byte{tag}, SentBlock: 1}, nil
	}
}

// The address of an order paid short is not swept while the order waits for the rest: the
// payer's wallet estimates the rest's transfer on the balance there.
func testNoSweepWhileUnderpaid(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	ctx := t.Context()
	m := mustMerchant(t, s, "short")
	o := mustOrderOf(t, s, m.ID, 100)
	pay := func(tx string, amount int64) {
		t.Helper()
		tr := &rampway.InboundTransfer{Network: "devnet", TxHash: common.HexToHash(tx), OrderID: o.ID, Token: o.Asset.Contract,
			To: o.DepositAddress, Amount: big.NewInt(amount), BlockNumber: 10, BlockHash: common.HexToHash("0xb")}
		if _, err := s.RecordTransfer(ctx, tr, now()); err != nil {
			t.Fatal(err)
		}
		if err := s.ConfirmTransfer(ctx, "devnet", tr.TxHash, tr.LogIndex, now()); err != nil {
			t.Fatal(err)
		}
	}
	candidate := func() bool {
		t.Helper()
		cands, err := s.SweepCandidates(ctx, "devnet", 100)
		if err != nil {
			t.Fatal(err)
		}
		return slices.ContainsFunc(cands, func(c *rampway.Sweep) bool { return c.Address == o.DepositAddress })
	}
	pay("0x0a", 40)
	if got, _ := s.Order(ctx, o.ID); got.Status != rampway.StatusUnderpaid || candidate() {
		t.Fatalf("paid 40 of 100: %s, a sweep candidate: %v", got.Status, candidate())
	}
	pay("0x0b", 60)
	if got, _ := s.Order(ctx, o.ID); got.Status == rampway.StatusUnderpaid || !candidate() {
		t.Fatalf("paid in full: %s, a sweep candidate: %v", got.Status, candidate())
	}
}
