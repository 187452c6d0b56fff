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
	o := mustOrderOf(t, s, m.ID, 100) // paid in full by the transfer below: an underpaid order's address is not swept
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

// The fiat side's reconciliation reads: a payment's ledger net (its capture), busy while an
// action of it is pending; the payments moved since a time, those with a drift standing and a
// rolling look; a drift of a payment accepted moves the payment's own net.
func testFiatLedger(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	ctx := t.Context()
	m := mustMerchant(t, s, "fiatledger")
	before := now().Add(-time.Minute)
	o, pay := fiatOrder(t, s, m.ID, rampway.MethodCard, "sbp_fl")
	if _, err := s.ApplyProviderEvent(ctx, "sandbox", &rampway.ProviderEvent{ID: "ev_fl_auth", Type: rampway.ProviderPaymentAuthorized, PaymentRef: "sbp_fl",
		Status: rampway.FiatAuthorized}, now()); err != nil {
		t.Fatal(err)
	}
	for _, c := range []rampway.Cause{rampway.ExecutionStarted{}, rampway.ExecutionMined{}} {
		if _, err := s.Apply(ctx, o.ID, c, now()); err != nil {
			t.Fatal(err)
		}
	}
	find := func(since time.Time, after string, sweep int) (*rampway.FiatLedgerPayment, string) {
		t.Helper()
		ps, next, err := s.FiatLedgerPayments(ctx, since, after, sweep)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			if p.PaymentID == pay.ID {
				return &p, next
			}
		}
		return nil, next
	}
	// The capture to do: swept (it has a provider reference), busy, nothing in the ledger yet.
	p, _ := find(now().Add(time.Hour), "", 1000)
	if p == nil || !p.Busy || p.Ledger.Sign() != 0 || p.Provider != "sandbox" || p.ProviderRef != "sbp_fl" || p.Currency != "EUR" || p.OrderID != o.ID {
		t.Fatalf("before the capture: %+v", p)
	}
	as, _ := s.ClaimFiatActions(ctx, now(), time.Minute, 10)
	if len(as) != 1 {
		t.Fatalf("actions %+v", as)
	}
	if err := s.FinishFiatAction(ctx, as[0].ID, rampway.ActionDone, "cap_fl", "", now(), now()); err != nil {
		t.Fatal(err)
	}
	// Moved since before: listed, not busy, the capture's 2500 in the ledger; not swept past it.
	if p, _ := find(before, pay.ID, 1000); p == nil || p.Busy || p.Ledger.Int64() != 2500 {
		t.Fatalf("after the capture: %+v", p)
	}
	if p, _ := find(now().Add(time.Hour), pay.ID, 1000); p != nil {
		t.Fatalf("neither moved since nor swept, yet listed: %+v", p)
	}
	// The rolling look: one a round, the next round after it.
	if _, next := find(now().Add(time.Hour), "", 1); next == "" {
		t.Fatal("a full sweep gave no place to go on from")
	}
	// A drift: listed while it stands, whatever else.
	account := rampway.ProviderPaymentAccount("sandbox", "EUR", pay.ID)
	if err := s.RecordReconciliation(ctx, &rampway.Reconciliation{Network: rampway.LedgerFiat, At: now(), Checked: []rampway.LedgerCheck{{Account: account,
		Network: rampway.LedgerFiat, Asset: rampway.FiatAsset("EUR"), Ledger: big.NewInt(2500), Chain: big.NewInt(2000)}}}); err != nil {
		t.Fatal(err)
	}
	if p, _ := find(now().Add(time.Hour), pay.ID, 1000); p == nil || p.Ledger.Int64() != 2500 {
		t.Fatalf("a payment with a drift standing: %+v", p)
	}
	if ds, err := s.LedgerDrifts(ctx, rampway.LedgerFiat); err != nil || len(ds) != 1 || ds[0].Account != account || ds[0].Diff().Int64() != -500 {
		t.Fatalf("fiat drifts %+v, %v", ds, err)
	}
	// Accepted (the provider refunded 5.00 by hand): the payment's net is the provider's.
	adj, err := s.AcceptLedgerDrift(ctx, account, rampway.FiatAsset("EUR"), "refunded by hand at the provider", now())
	if err != nil || adj.Ref != pay.ID || adj.Debit != rampway.ProviderAccount("sandbox", "EUR") || adj.Credit != rampway.CustomersAccount("sandbox", "EUR") || adj.Amount.Int64() != 500 {
		t.Fatalf("accepted: %+v, %v", adj, err)
	}
	if p, _ := find(before, pay.ID, 1000); p == nil || p.Ledger.Int64() != 2000 {
		t.Fatalf("after the adjustment: %+v", p)
	}
	if ds, _ := s.LedgerDrifts(ctx, rampway.LedgerFiat); len(ds) != 0 {
		t.Fatalf("drifts after the accept: %+v", ds)
	}
}
