package storetest

import (
	"fmt"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
)

// The dashboard's orders: a merchant's orders of one mode, of every area or one, newest
// first, a page at a time either way; filtered by status and creation time; found by each
// search key exactly (the order id, merchant_txn_id, merchant_user_id, the deposit address
// in any case, a payment's or a signed transaction's hash, a fiat payment's or a refund's
// provider reference), never another merchant's or the other mode's.
func testSearchOrders(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	ctx := t.Context()
	m := mustMerchant(t, s, "acme")
	other := mustMerchant(t, s, "other")
	search := func(q rampway.OrderQuery) []string {
		t.Helper()
		if q.MerchantID == "" {
			q.MerchantID = m.ID
		}
		os, err := s.SearchOrders(ctx, q)
		if err != nil {
			t.Fatalf("SearchOrders(%+v): %v", q, err)
		}
		return ids(os, func(o *rampway.Order) string { return o.ID })
	}

	// Five orders a second apart, of every area; one of the other mode, one of another merchant.
	base := now().Add(-time.Hour)
	mint := orderAt(m.ID, base, uint32(transferSeq.Add(1)))
	mint.MerchantTxnID, mint.MerchantUserID = "T-mint", "U-1"
	if err := s.CreateOrder(ctx, mint); err != nil {
		t.Fatal(err)
	}
	Seen(t, s, mint, big.NewInt(5))
	paidA := paid(t, s, m.ID, big.NewInt(100)) // created now: the newest
	wallet := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	exec, err := s.StartExecution(ctx, paidA.ID, "devnet", wallet, 0, fakeSign(wallet, 2, 0x5e), now())
	if err != nil {
		t.Fatal(err)
	}
	_, txs, err := s.Execution(ctx, paidA.ID)
	if err != nil || len(txs) != 2 {
		t.Fatalf("execution txs %v, %v", txs, err)
	}
	fiat, _ := fiatOrder(t, s, m.ID, rampway.MethodCard, "pay_ref_"+m.ID)
	deposit, _ := fiatOrderIn(t, s, rampway.AreaDeposit, m.ID, rampway.MethodCard, "dep_ref_"+m.ID)
	refunded := succeededFiat(t, s, m.ID, "sbp_"+m.ID)
	rf, err := s.RequestRefund(ctx, refunded.ID, rampway.RefundRequested{Amount: big.NewInt(100)}, now())
	if err != nil {
		t.Fatal(err)
	}
	as, _ := s.FiatActions(ctx, refunded.ID)
	i := slices.IndexFunc(as, func(a *rampway.FiatAction) bool { return rampway.MerchantRefundOfAction(a) == rf.ID })
	if i < 0 {
		t.Fatalf("no action for refund %s: %+v", rf.ID, as)
	}
	if err := s.FinishFiatAction(ctx, as[i].ID, rampway.ActionDone, "rref_"+m.ID, "", now(), now()); err != nil {
		t.Fatal(err)
	}
	live := orderAt(m.ID, now(), uint32(transferSeq.Add(1)))
	live.Livemode, live.MerchantTxnID = true, "T-mint"
	if err := s.CreateOrder(ctx, live); err != nil {
		t.Fatal(err)
	}
	theirs := orderAt(other.ID, now(), uint32(transferSeq.Add(1)))
	theirs.MerchantTxnID = "T-mint"
	if err := s.CreateOrder(ctx, theirs); err != nil {
		t.Fatal(err)
	}

	// The list: every area, newest first; a page at a time both ways.
	all := search(rampway.OrderQuery{Limit: 100})
	if len(all) != 5 || all[len(all)-1] != mint.ID || !slices.Contains(all, deposit.ID) || !slices.Contains(all, fiat.ID) || slices.Contains(all, live.ID) {
		t.Fatalf("all = %v", all)
	}
	var walked []string
	for before := ""; ; {
		page := search(rampway.OrderQuery{Before: before, Limit: 2})
		if len(page) == 0 {
			break
		}
		walked = append(walked, page...)
		before = page[len(page)-1]
	}
	if fmt.Sprint(walked) != fmt.Sprint(all) {
		t.Fatalf("walked older %v, want %v", walked, all)
	}
	if got := search(rampway.OrderQuery{After: all[4], Limit: 2}); fmt.Sprint(got) != fmt.Sprint(all[2:4]) {
		t.Fatalf("newer than the oldest = %v, want %v", got, all[2:4])
	}
	if got := search(rampway.OrderQuery{After: all[1], Limit: 2}); fmt.Sprint(got) != fmt.Sprint(all[:1]) {
		t.Fatalf("newer than the second = %v, want %v", got, all[:1])
	}
	if got := search(rampway.OrderQuery{Before: theirs.ID, Limit: 2}); len(got) != 0 {
		t.Fatalf("before another merchant's order = %v", got)
	}
	if _, err := s.SearchOrders(ctx, rampway.OrderQuery{MerchantID: m.ID, Before: all[0], After: all[1]}); rampway.ErrorCode(err) != rampway.EINVALID {
		t.Fatalf("both cursors: %v", err)
	}
	if _, err := s.SearchOrders(ctx, rampway.OrderQuery{MerchantID: m.ID, Search: strings.Repeat("x", rampway.MaxOrderSearch+1)}); rampway.ErrorCode(err) != rampway.EINVALID {
		t.Fatalf("a long search: %v", err)
	}

	// Filters: area, status, time.
	if got := search(rampway.OrderQuery{Area: rampway.AreaDeposit}); fmt.Sprint(got) != fmt.Sprint([]string{deposit.ID}) {
		t.Fatalf("area deposit = %v", got)
	}
	if got := search(rampway.OrderQuery{Status: rampway.StatusSuccess}); fmt.Sprint(got) != fmt.Sprint([]string{refunded.ID}) {
		t.Fatalf("status SUCCESS = %v", got)
	}
	if got := search(rampway.OrderQuery{Area: rampway.AreaMint, Status: rampway.StatusDepositProcessing}); fmt.Sprint(got) != fmt.Sprint([]string{mint.ID}) {
		t.Fatalf("mint DEPOSIT_PROCESSING = %v", got)
	}
	if got := search(rampway.OrderQuery{CreatedTo: base.Add(time.Second)}); fmt.Sprint(got) != fmt.Sprint([]string{mint.ID}) {
		t.Fatalf("created before base+1s = %v", got)
	}
	if got := search(rampway.OrderQuery{CreatedFrom: base.Add(time.Second)}); len(got) != 4 || slices.Contains(got, mint.ID) {
		t.Fatalf("created from base+1s = %v", got)
	}

	// Each key finds its order; of this merchant and mode only.
	for _, c := range []struct {
		key, text string
		want      []string
	}{
		{"order id", mint.ID, []string{mint.ID}},
		{"merchant_txn_id", "T-mint", []string{mint.ID}},
		{"merchant_user_id", "U-1", []string{mint.ID}},
		{"deposit address", mint.DepositAddress.Hex(), []string{mint.ID}},
		{"deposit address, lower case", strings.ToLower(mint.DepositAddress.Hex()), []string{mint.ID}},
		{"payment's transaction", mustTransfers(t, s, mint.ID)[0].TxHash.Hex(), []string{mint.ID}},
		{"execution's transaction", exec.TxHash.Hex(), []string{paidA.ID}},
		{"execution's approve, upper case", "0x" + strings.ToUpper(txs[0].Hash.Hex()[2:]), []string{paidA.ID}},
		{"fiat payment's provider reference", "pay_ref_" + m.ID, []string{fiat.ID}},
		{"refund's provider reference", "rref_" + m.ID, []string{refunded.ID}},
		{"another merchant's order id", theirs.ID, nil},
		{"nothing", "nothing at all", nil},
	} {
		if got := search(rampway.OrderQuery{Search: c.text}); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("search by %s %q = %v, want %v", c.key, c.text, got, c.want)
		}
	}
	// A search is filtered too; the other mode's search sees the other mode's order.
	if got := search(rampway.OrderQuery{Search: "T-mint", Area: rampway.AreaDeposit}); len(got) != 0 {
		t.Fatalf("T-mint in area deposit = %v", got)
	}
	if got := search(rampway.OrderQuery{Search: "T-mint", Livemode: true}); fmt.Sprint(got) != fmt.Sprint([]string{live.ID}) {
		t.Fatalf("T-mint live = %v", got)
	}
	// An order found by two keys is listed once (its user id is its txn id here).
	twice := orderAt(m.ID, now(), uint32(transferSeq.Add(1)))
	twice.MerchantTxnID, twice.MerchantUserID = "same", "same"
	if err := s.CreateOrder(ctx, twice); err != nil {
		t.Fatal(err)
	}
	if got := search(rampway.OrderQuery{Search: "same"}); fmt.Sprint(got) != fmt.Sprint([]string{twice.ID}) {
		t.Fatalf("found by two keys = %v", got)
	}
}

func mustTransfers(t *testing.T, s rampway.Store, orderID string) []*rampway.InboundTransfer {
	t.Helper()
	ts, err := s.OrderTransfers(t.Context(), orderID)
	if err != nil || len(ts) == 0 {
		t.Fatalf("transfers of %s: %v, %v", orderID, ts, err)
	}
	return ts
}

// SearchStatements runs one search of each kind for merchant merchantID on s while record
// (sqlite.RecordStatements, sqlstore.RecordQueries) sees the statements the store runs, and
// returns the statement of each kind by name: the list (of every area, with a cursor either
// way, by status) and the search by each key. For the dialects' plan tests.
func SearchStatements(t *testing.T, s rampway.Store, merchantID string, record func(func(query string)) (stop func())) map[string]string {
	t.Helper()
	hash := "0x" + strings.Repeat("ab", 32)
	out := map[string]string{}
	for name, q := range map[string]rampway.OrderQuery{
		"list":             {},
		"list older":       {Before: "ord_x"},
		"list newer":       {After: "ord_x"},
		"list by status":   {Status: rampway.StatusSuccess},
		"list of one area": {Area: rampway.AreaMint, CreatedFrom: now().Add(-time.Hour), CreatedTo: now()},
		"search text":      {Search: "txn-1"},
		"search in area":   {Search: "txn-1", Area: rampway.AreaDeposit},
		"search order id":  {Search: rampway.NewID(rampway.PrefixOrder, now())},
		"search address":   {Search: "0x00000000000000000000000000000000000003e9"},
		"search hash":      {Search: hash},
	} {
		q.MerchantID, q.Limit = merchantID, 50
		var seen []string
		stop := record(func(query string) {
			if strings.Contains(query, "FROM orders") {
				seen = append(seen, query)
			}
		})
		_, err := s.SearchOrders(t.Context(), q)
		stop()
		if err != nil || len(seen) == 0 {
			t.Fatalf("%s: %v (statements %q)", name, err, seen)
		}
		out[name] = seen[len(seen)-1]
	}
	return out
}
