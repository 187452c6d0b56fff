package storetest

import (
	"math/big"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
)

// succeededMint stores an area A order of price 1000 paid in full by payer and executed:
// SUCCESS.
func succeededMint(t *testing.T, s rampway.Store, merchantID string, payer common.Address) *rampway.Order {
	t.Helper()
	ctx := t.Context()
	o := paidMint(t, s, merchantID, payer)
	for _, c := range []rampway.Cause{rampway.ExecutionStarted{TxHash: common.HexToHash("0xca11")}, rampway.ExecutionMined{TxHash: common.HexToHash("0xca11")}} {
		if _, err := s.Apply(ctx, o.ID, c, now()); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Order(ctx, o.ID)
	if err != nil || got.Status != rampway.StatusSuccess {
		t.Fatalf("order %+v, %v", got, err)
	}
	return got
}

// succeededFiat stores an area B order of 25.00 EUR paid by card and executed: SUCCESS, its
// capture asked.
func succeededFiat(t *testing.T, s rampway.Store, merchantID, ref string) *rampway.Order {
	t.Helper()
	ctx := t.Context()
	o, _ := fiatOrder(t, s, merchantID, rampway.MethodCard, ref)
	if _, err := s.ApplyProviderEvent(ctx, "sandbox", &rampway.ProviderEvent{ID: "ev_auth_" + ref, Type: rampway.ProviderPaymentAuthorized, PaymentRef: ref,
		Status: rampway.FiatAuthorized, CardBrand: "visa", CardLast4: "4242"}, now()); err != nil {
		t.Fatal(err)
	}
	for _, c := range []rampway.Cause{rampway.ExecutionStarted{}, rampway.ExecutionMined{}} {
		if _, err := s.Apply(ctx, o.ID, c, now()); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Order(ctx, o.ID)
	if err != nil || got.Status != rampway.StatusSuccess || got.FiatPaymentID == "" {
		t.Fatalf("order %+v, %v", got, err)
	}
	return got
}

// Refunds a merchant asks for: what is left is never exceeded, by requests one after the other
// or at once; the merchant's approval threshold and daily cap; area A's record on its way to
// the payer; area B's asked of the provider, ended by its answer, the order REFUNDED once all
// is paid back; a failed one is not sent again.
func testMerchantRefunds(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	ctx := t.Context()
	m := mustMerchant(t, s, "refunds")
	payer := common.HexToAddress("0x00000000000000000000000000000000000000cc")
	request := func(o *rampway.Order, amount int64, reason string) (*rampway.Refund, error) {
		t.Helper()
		c := rampway.RefundRequested{Reason: reason}
		if amount > 0 {
			c.Amount = big.NewInt(amount)
		}
		return s.RequestRefund(ctx, o.ID, c, now())
	}

	// Area A: a part, to the payer.
	o := succeededMint(t, s, m.ID, payer)
	r, err := request(o, 300, "returned")
	if err != nil || r.Status != rampway.RefundPending || r.Amount.Int64() != 300 || r.To != payer || r.ToSource != rampway.RefundToPayer ||
		r.Merchant != m.ID || r.Currency != o.Asset.Symbol || r.Network != "devnet" || r.Reason != "returned" || r.Cause != "merchant:"+r.ID {
		t.Fatalf("refund %+v, %v", r, err)
	}
	rs, _ := s.Refunds(ctx, o.ID)
	if len(rs) != 1 || rs[0].ID != r.ID || rs[0].Merchant != m.ID || rs[0].Currency != o.Asset.Symbol || rs[0].Livemode != o.Livemode {
		t.Fatalf("stored %+v", rs)
	}
	if names := eventNames(t, s, o.ID); names[len(names)-1] != rampway.EventRefundPending {
		t.Fatalf("events %v", names)
	}
	// Eight requests of 400 at once, 700 left: one is taken, the others refused naming the amount.
	var (
		mu      sync.Mutex
		taken   int
		refused []error
		wg      sync.WaitGroup
	)
	for range 8 {
		wg.Go(func() {
			_, err := request(o, 400, "")
			mu.Lock()
			defer mu.Unlock()
			if err == nil {
				taken++
			} else {
				refused = append(refused, err)
			}
		})
	}
	wg.Wait()
	if taken != 1 || len(refused) != 7 {
		t.Fatalf("%d taken, refused %v", taken, refused)
	}
	for _, err := range refused {
		if rampway.ErrorCode(err) != rampway.EINVALID || !strings.Contains(err.Error(), "left to refund") {
			t.Fatalf("refused: %v", err)
		}
	}
	// The rest, then nothing is left.
	rest, err := request(o, 0, "")
	if err != nil || rest.Amount.Int64() != 300 || rest.Reason != rampway.DefaultMerchantRefundReason {
		t.Fatalf("rest %+v, %v", rest, err)
	}
	if _, err := request(o, 1, ""); rampway.ErrorCode(err) != rampway.ECONFLICT {
		t.Fatalf("nothing left: %v", err)
	}
	// Only an order that succeeded.
	_, failed := failedWithRefund(t, s, m.ID, payer)
	if _, err := s.RequestRefund(ctx, failed.OrderID, rampway.RefundRequested{}, now()); rampway.ErrorCode(err) != rampway.ECONFLICT {
		t.Fatalf("a failed order's refund: %v", err)
	}
	if _, err := s.RequestRefund(ctx, "ord_nope", rampway.RefundRequested{}, now()); rampway.ErrorCode(err) != rampway.ENOTFOUND {
		t.Fatalf("unknown order: %v", err)
	}

	// The merchant's policy for the asset: above 600 waits for approval; 1500 a day.
	d := o.Asset.Decimals
	units := func(v int64) string { return rampway.FormatUnits(big.NewInt(v), d) }
	if _, err := s.UpdateMerchant(ctx, m.ID, rampway.MerchantUpdate{RefundPolicies: map[string]rampway.RefundLimits{
		o.Asset.Symbol: {ApprovalAbove: units(600), DailyCap: units(2500)}}, UpdatedAt: now()}); err != nil {
		t.Fatal(err)
	}
	// Today so far: 1000 of the first order.
	o2 := succeededMint(t, s, m.ID, payer)
	big2, err := request(o2, 700, "")
	if err != nil || big2.Status != rampway.RefundAwaitingApproval || !strings.Contains(big2.StatusReason, "approval") {
		t.Fatalf("above the threshold: %+v %v", big2, err)
	}
	approved, err := s.ApproveRefund(ctx, big2.ID, "alice", now())
	if err != nil || approved.Status != rampway.RefundPending || approved.ApprovedBy != "alice" {
		t.Fatalf("approved %+v %v", approved, err)
	}
	// 2000 today after this one: 501 more is over the cap of 2500.
	if _, err := request(o2, 300, ""); err != nil {
		t.Fatal(err)
	}
	o3 := succeededMint(t, s, m.ID, payer)
	if _, err := request(o3, 501, ""); rampway.ErrorCode(err) != rampway.EINVALID || !strings.Contains(err.Error(), "daily refund cap") {
		t.Fatalf("over the cap: %v", err)
	}
	// A failed refund frees its amount, of the order and of the day.
	r3, err := request(o3, 500, "")
	if err != nil {
		t.Fatal(err)
	}
	wallet := common.HexToAddress("0x00000000000000000000000000000000000000bb")
	if _, err := s.StartRefund(ctx, r3.ID, wallet, 0, big.NewInt(1), big.NewInt(499), signRefund(wallet, 9), now()); err != nil {
		t.Fatal(err)
	}
	sent, _ := s.Refund(ctx, r3.ID)
	if err := s.FinishRefund(ctx, r3.ID, rampway.MinedTx{Hash: sent.TxHash, OK: false}, "reverted", now()); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Refund(ctx, r3.ID); got.Status != rampway.RefundFailed {
		t.Fatalf("reverted: %+v", got)
	}
	if names := eventNames(t, s, o3.ID); names[len(names)-1] != rampway.EventMerchantRefundFailed {
		t.Fatalf("events %v", names)
	}
	for _, err := range []error{second(s.ApproveRefund(ctx, r3.ID, "alice", now())), second(s.SetRefundAddress(ctx, r3.ID, payer, rampway.RefundToAdmin, now()))} {
		if rampway.ErrorCode(err) != rampway.ECONFLICT {
			t.Fatalf("a failed merchant refund sent again: %v", err)
		}
	}
	if _, err := request(o3, 500, ""); err != nil {
		t.Fatalf("after a failed refund: %v", err)
	}

	// Area B: asked of the provider; its answer ends the refund.
	f := succeededFiat(t, s, m.ID, "sbp_mr1")
	fr, err := request(f, 1000, "")
	if err != nil || fr.Status != rampway.RefundPending || !fr.Fiat() || fr.Currency != "EUR" || fr.Amount.Int64() != 1000 {
		t.Fatalf("fiat refund %+v %v", fr, err)
	}
	action := func(refundID string) *rampway.FiatAction {
		t.Helper()
		as, err := s.FiatActions(ctx, f.ID)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(as, func(a *rampway.FiatAction) bool { return rampway.MerchantRefundOfAction(a) == refundID })
		if i < 0 {
			return nil
		}
		return as[i]
	}
	a := action(fr.ID)
	if a == nil || a.Kind != rampway.ActionRefund || a.Amount.Int64() != 1000 || a.PaymentID != f.FiatPaymentID || a.Status != rampway.ActionPending {
		t.Fatalf("action %+v", a)
	}
	if err := s.FinishFiatAction(ctx, a.ID, rampway.ActionDone, "sbr_1", "", now(), now()); err != nil {
		t.Fatal(err)
	}
	done, _ := s.Refund(ctx, fr.ID)
	if done.Status != rampway.RefundDone || done.ProviderRef != "sbr_1" || done.Fee.Sign() != 0 || done.Sent.Int64() != 1000 {
		t.Fatalf("done %+v", done)
	}
	if got, _ := s.Order(ctx, f.ID); got.Status != rampway.StatusSuccess {
		t.Fatalf("a part refunded: %s", got.Status)
	}
	// The provider refuses the rest for good: failed, never asked again, nothing reserved.
	fr2, err := request(f, 0, "")
	if err != nil || fr2.Amount.Int64() != 1500 {
		t.Fatalf("rest %+v %v", fr2, err)
	}
	if err := s.FinishFiatAction(ctx, action(fr2.ID).ID, rampway.ActionFailed, "", "the issuer refused", now(), now()); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Refund(ctx, fr2.ID); got.Status != rampway.RefundFailed || got.StatusReason != "the issuer refused" {
		t.Fatalf("refused %+v", got)
	}
	if got := action(fr2.ID); got.Status != rampway.ActionFailed {
		t.Fatalf("action %+v", got)
	}
	if claimed, _ := s.ClaimFiatActions(ctx, now().Add(time.Hour), time.Minute, 50); slices.ContainsFunc(claimed, func(c *rampway.FiatAction) bool { return c.ID == action(fr2.ID).ID }) {
		t.Fatalf("a failed action was claimed: %+v", claimed)
	}
	if names := eventNames(t, s, f.ID); !slices.Contains(names, rampway.EventMerchantRefundSucceeded) || names[len(names)-1] != rampway.EventMerchantRefundFailed {
		t.Fatalf("events %v", names)
	}
	// Asked again, and paid: all of it is back, REFUNDED.
	fr3, err := request(f, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.FinishFiatAction(ctx, action(fr3.ID).ID, rampway.ActionDone, "sbr_2", "", now(), now()); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Order(ctx, f.ID); got.Status != rampway.StatusRefunded {
		t.Fatalf("all refunded: %s", got.Status)
	}
	// Above the merchant's EUR threshold: waits, and only its approval asks the provider.
	if _, err := s.UpdateMerchant(ctx, m.ID, rampway.MerchantUpdate{RefundPolicies: map[string]rampway.RefundLimits{"EUR": {ApprovalAbove: "5.00"}},
		UpdatedAt: now()}); err != nil {
		t.Fatal(err)
	}
	f = succeededFiat(t, s, m.ID, "sbp_mr2")
	wait, err := request(f, 600, "")
	if err != nil || wait.Status != rampway.RefundAwaitingApproval || action(wait.ID) != nil {
		t.Fatalf("waits %+v %v", wait, err)
	}
	if _, err := s.ApproveRefund(ctx, wait.ID, "bob", now()); err != nil {
		t.Fatal(err)
	}
	if a := action(wait.ID); a == nil || a.Amount.Int64() != 600 || a.Status != rampway.ActionPending {
		t.Fatalf("approved: action %+v", a)
	}
	// Refused instead: failed, nothing asked, the merchant told, its amount free again.
	held, err := request(f, 700, "")
	if err != nil || held.Status != rampway.RefundAwaitingApproval {
		t.Fatalf("waits %+v %v", held, err)
	}
	if got, err := s.RejectRefund(ctx, held.ID, "bob", "not this one", now()); err != nil || got.Status != rampway.RefundFailed ||
		got.StatusReason != "refused by bob: not this one" || action(held.ID) != nil {
		t.Fatalf("rejected %+v %v", got, err)
	}
	if names := eventNames(t, s, f.ID); names[len(names)-1] != rampway.EventMerchantRefundFailed {
		t.Fatalf("events %v", names)
	}
	if _, err := s.RejectRefund(ctx, held.ID, "bob", "", now()); rampway.ErrorCode(err) != rampway.ECONFLICT {
		t.Fatalf("rejected twice: %v", err)
	}
	if _, err := request(f, 1900, ""); err != nil {
		t.Fatalf("after a refused refund, the rest (1900) is left: %v", err)
	}
	// A refund the service owes on its own is never refused.
	_, auto := failedWithRefund(t, s, m.ID, payer)
	if _, err := s.HoldRefund(ctx, auto.ID, rampway.RefundAwaitingApproval, "above the limit", now()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RejectRefund(ctx, auto.ID, "bob", "", now()); rampway.ErrorCode(err) != rampway.ECONFLICT {
		t.Fatalf("an automatic refund refused: %v", err)
	}
}

func second[T any](_ T, err error) error { return err }
