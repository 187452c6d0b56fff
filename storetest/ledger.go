package storetest

import (
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
)

// The ledger: a credit and a settled gas top-up record balanced transfers once however often
// they are written; the holdings, the balances above a block, the opening of a hot wallet,
// the drifts a round records (standing until they agree) and the report add up to the unit.
func testLedger(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	ctx := t.Context()
	m := mustMerchant(t, s, "acme")
	o := mustOrder(t, s, m.ID, now())
	tr := &rampway.InboundTransfer{Network: "devnet", TxHash: common.HexToHash("0x01"), LogIndex: 3, OrderID: o.ID, Token: o.Asset.Contract,
		To: o.DepositAddress, Amount: big.NewInt(100), BlockNumber: 10, BlockHash: common.HexToHash("0xb")}
	if _, err := s.RecordTransfer(ctx, tr, now()); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := s.ConfirmTransfer(ctx, "devnet", tr.TxHash, tr.LogIndex, now()); err != nil {
			t.Fatal(err)
		}
	}
	hot := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	if err := s.AddHotWallet(ctx, "devnet", hot); err != nil {
		t.Fatal(err)
	}
	cands, err := s.SweepCandidates(ctx, "devnet", 10)
	if err != nil || len(cands) != 1 {
		t.Fatalf("candidates = %+v, %v", cands, err)
	}
	sw := cands[0]
	if err := s.StartSweep(ctx, sw, hot, 0, rampway.TxGas, fakeOne(hot, 0xa1), now()); err != nil {
		t.Fatal(err)
	}
	pending, _ := s.PendingTxs(ctx, "devnet")
	if len(pending) != 1 {
		t.Fatalf("pending = %+v", pending)
	}
	gas := rampway.MinedTx{Hash: pending[0].Hash, Block: 12, OK: true, To: o.DepositAddress, Value: big.NewInt(50), Fee: big.NewInt(7)}
	for range 2 {
		if err := s.FinishSweepTx(ctx, "devnet", gas, now()); err != nil {
			t.Fatal(err)
		}
	}
	hotAcc, dep := rampway.HotAccount("devnet", hot), rampway.DepositAccount("devnet", o.DepositAddress)
	native, token := rampway.NativeAsset("devnet"), rampway.TokenAsset("devnet", o.Asset.Contract)
	got, err := s.LedgerTransfers(ctx, sw.ID)
	if err != nil || len(got) != 2 {
		t.Fatalf("transfers of the sweep = %+v, %v", got, err)
	}
	for _, x := range got {
		switch x.Kind {
		case "fee":
			if x.Debit != hotAcc || x.Credit != rampway.FeesAccount("devnet") || x.Amount.Int64() != 7 || x.Block != 12 || x.Asset != native {
				t.Fatalf("fee %+v", x)
			}
		case "gas":
			if x.Debit != hotAcc || x.Credit != dep || x.Amount.Int64() != 50 || x.Asset != native {
				t.Fatalf("gas %+v", x)
			}
		default:
			t.Fatalf("transfer %+v", x)
		}
	}
	if d, _ := s.LedgerTransfers(ctx, dep); len(d) != 2 {
		t.Fatalf("transfers of the deposit account = %+v", d)
	}

	sweepAfter := "~" // no sweep of the others ("~" sorts after every account)
	holdings := func(block uint64) map[string]*rampway.LedgerHolding {
		t.Helper()
		hs, _, err := s.LedgerHoldings(ctx, "devnet", block, sweepAfter, 1)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]*rampway.LedgerHolding{}
		for _, h := range hs {
			out[h.Account] = h
		}
		return out
	}
	hs := holdings(100)
	if h := hs[hotAcc]; h == nil || h.Opened || h.Kind != rampway.AccountHot || h.Balances[native].Int64() != -57 {
		t.Fatalf("hot holding %+v", h)
	}
	if h := hs[dep]; h == nil || !h.Opened || h.Address != o.DepositAddress || h.Balances[native].Int64() != 50 || h.Balances[token].Int64() != 100 {
		t.Fatalf("deposit holding %+v", h)
	}
	// At block 11, before the top-up was mined: the payment only.
	hs = holdings(11)
	if h := hs[dep]; h.Balances[native].Sign() != 0 || h.Balances[token].Int64() != 100 || hs[hotAcc].Balances[native].Sign() != 0 {
		t.Fatalf("holdings at block 11: %+v %+v", hs[dep], hs[hotAcc])
	}
	// The hot wallet opens at the chain's balance, once.
	for range 2 {
		if err := s.OpenLedgerAccount(ctx, "devnet", hotAcc, 12, map[string]*big.Int{native: big.NewInt(1000)}, now()); err != nil {
			t.Fatal(err)
		}
	}
	if h := holdings(100)[hotAcc]; !h.Opened || h.Balances[native].Int64() != 943 {
		t.Fatalf("hot holding after opening %+v", h)
	}

	// A round finds the deposit address 10 short: a drift, until the balances agree.
	round := func(chain int64) {
		t.Helper()
		h := holdings(12)[dep]
		r := &rampway.Reconciliation{Network: "devnet", Block: 12, At: now(), Moves: map[string]map[string]int64{dep: h.Moves},
			Checked: []rampway.LedgerCheck{{Account: dep, Network: "devnet", Address: o.DepositAddress, Asset: native, Block: 12,
				Ledger: h.Balances[native], Chain: big.NewInt(chain)}}}
		if err := s.RecordReconciliation(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	round(40)
	ds, err := s.LedgerDrifts(ctx, "devnet")
	if err != nil || len(ds) != 1 || ds[0].Account != dep || ds[0].Diff().Int64() != -10 || ds[0].Block != 12 {
		t.Fatalf("drifts = %+v, %v", ds, err)
	}
	if all, _ := s.LedgerDrifts(ctx, ""); len(all) != 1 {
		t.Fatalf("drifts of every network = %+v", all)
	}
	if _, ok := holdings(12)[dep]; !ok {
		t.Fatal("an account with a drift is not compared again")
	}
	round(40) // seen again: still one
	if ds, _ := s.LedgerDrifts(ctx, "devnet"); len(ds) != 1 || ds[0].FirstSeen.After(ds[0].LastSeen) {
		t.Fatalf("drifts after a second round = %+v", ds)
	}
	round(50)
	if ds, _ := s.LedgerDrifts(ctx, "devnet"); len(ds) != 0 {
		t.Fatalf("drifts after the balances agree = %+v", ds)
	}
	// An operator accepts a drift (a note is required): the ledger takes the chain's word at
	// the drift's block, and the next round agrees.
	sweepAfter = "" // the deposit address has moved nothing since: it comes by the sweep
	round(40)
	wantCode(t, func() error { _, err := s.AcceptLedgerDrift(ctx, dep, native, " ", now()); return err }(), rampway.EINVALID)
	wantCode(t, func() error { _, err := s.AcceptLedgerDrift(ctx, dep, token, "no drift", now()); return err }(), rampway.ENOTFOUND)
	adj, err := s.AcceptLedgerDrift(ctx, dep, native, "moved by hand", now())
	if err != nil || adj.Debit != dep || adj.Credit != rampway.ExternalAccount("devnet") || adj.Amount.Int64() != 10 || adj.Block != 12 || adj.Kind != "adjustment" {
		t.Fatalf("adjustment %+v, %v", adj, err)
	}
	if ds, _ := s.LedgerDrifts(ctx, "devnet"); len(ds) != 0 {
		t.Fatalf("drifts after the acceptance = %+v", ds)
	}
	if h := holdings(12)[dep]; h.Balances[native].Int64() != 40 {
		t.Fatalf("deposit holding after the acceptance %+v", h)
	}
	round(40)
	if ds, _ := s.LedgerDrifts(ctx, "devnet"); len(ds) != 0 {
		t.Fatalf("drifts after the next round = %+v", ds)
	}
	if b, _, ok, err := s.Reconciled(ctx, "devnet"); err != nil || !ok || b != 12 {
		t.Fatalf("reconciled = %d, %v, %v", b, ok, err)
	}

	// The report of today: 100 tokens and the opening's 1000 in, the adjustment's 10 out, 7 in
	// fees, and held what the held accounts hold.
	day := now().UTC().Truncate(24 * time.Hour)
	rep, err := s.LedgerReport(ctx, day, day.Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string]rampway.LedgerDay{}
	for _, l := range rep {
		lines[l.Asset] = l
	}
	if l := lines[token]; l.In.Int64() != 100 || l.Out.Sign() != 0 || l.Held.Int64() != 100 {
		t.Fatalf("report of the token %+v", l)
	}
	if l := lines[native]; l.In.Int64() != 1000 || l.Fees.Int64() != 7 || l.Out.Int64() != 10 || l.Held.Int64() != 983 {
		t.Fatalf("report of the native coin %+v", l)
	}
	// Yesterday held nothing yet.
	if rep, _ := s.LedgerReport(ctx, day.Add(-24*time.Hour), day); len(rep) != 0 {
		t.Fatalf("report of yesterday %+v", rep)
	}
}
