package storetest

import (
	"math/big"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
)

// fiatOrder stores an area B order of 25.00 EUR paid by method, and its payment started at the
// provider as ref.
func fiatOrder(t *testing.T, s rampway.Store, merchantID, method, ref string) (*rampway.Order, *rampway.FiatPayment) {
	return fiatOrderIn(t, s, rampway.AreaNFTRamp, merchantID, method, ref)
}

// fiatOrderIn is fiatOrder of an area (B or C).
func fiatOrderIn(t *testing.T, s rampway.Store, area rampway.Area, merchantID, method, ref string) (*rampway.Order, *rampway.FiatPayment) {
	t.Helper()
	at := now()
	o := orderAt(merchantID, at, 0)
	o.Area, o.DepositAddress, o.DepositIndex = area, [20]byte{}, 0
	if area == rampway.AreaDeposit {
		o.FunctionID, o.PayoutAddress = "", common.HexToAddress("0x00000000000000000000000000000000000dEaD1")
	}
	o.FiatSymbol, o.FiatMethod, o.FiatAmount, o.FiatDecimals = "EUR", method, big.NewInt(2500), 2
	if err := s.CreateOrder(t.Context(), o); err != nil {
		t.Fatal(err)
	}
	p := &rampway.FiatPayment{ID: rampway.NewID(rampway.PrefixFiatPayment, at), OrderID: o.ID, Provider: "sandbox", Method: method,
		Currency: "EUR", Amount: big.NewInt(2500), Received: new(big.Int), Decimals: 2, Status: rampway.FiatPending, CreatedAt: at, UpdatedAt: at}
	if err := s.CreateFiatPayment(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	next := &rampway.NextAction{Kind: "card_form", URL: "https://psp.example/pay"}
	if err := s.SetFiatPaymentStarted(t.Context(), p.ID, &rampway.ProviderPayment{Ref: ref, Next: next, Reference: "RW-1"}, at); err != nil {
		t.Fatal(err)
	}
	ps, err := s.FiatPayments(t.Context(), o.ID)
	if err != nil || len(ps) != 1 || ps[0].ProviderRef != ref || ps[0].Next == nil || ps[0].Next.URL != next.URL || ps[0].Reference != "RW-1" {
		t.Fatalf("payments %+v, %v", ps, err)
	}
	return o, ps[0]
}

func eventNames(t *testing.T, s rampway.Store, id string) []rampway.EventName {
	t.Helper()
	es, err := s.OrderEvents(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	var out []rampway.EventName
	for _, e := range es {
		out = append(out, e.Name)
	}
	return out
}

// Provider notifications are applied once each (by event id), in any order, duplicates and
// reorderings change nothing more; the fiat actions they bring are claimed and finished.
func testProviderEvents(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	ctx := t.Context()
	m := mustMerchant(t, s, "fiat")
	o, _ := fiatOrder(t, s, m.ID, rampway.MethodCard, "sbp_card")
	apply := func(id, typ string, st rampway.FiatPaymentStatus) bool {
		t.Helper()
		ok, err := s.ApplyProviderEvent(ctx, "sandbox", &rampway.ProviderEvent{ID: id, Type: typ, PaymentRef: "sbp_card", Status: st,
			CardBrand: "visa", CardLast4: "4242"}, now())
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		return ok
	}
	// The authorisation applied by eight deliveries at once: once.
	var applied atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if apply("ev_auth", rampway.ProviderPaymentAuthorized, rampway.FiatAuthorized) {
				applied.Add(1)
			}
		})
	}
	wg.Wait()
	if applied.Load() != 1 {
		t.Fatalf("the authorisation was applied %d times", applied.Load())
	}
	// A processing notification that was sent earlier arrives late: recorded, nothing moves back.
	if !apply("ev_proc", rampway.ProviderPaymentProcessing, rampway.FiatProcessing) || apply("ev_proc", rampway.ProviderPaymentProcessing, rampway.FiatProcessing) {
		t.Fatal("a late notification is applied once")
	}
	got, err := s.Order(ctx, o.ID)
	if err != nil || got.Status != rampway.StatusOnrampSuccess || got.FiatPaymentID == "" {
		t.Fatalf("order %+v, %v", got, err)
	}
	want := []rampway.EventName{rampway.EventCreated, rampway.EventOnrampProcessing, rampway.EventOnrampSuccess}
	if names := eventNames(t, s, o.ID); !slices.Equal(names, want) {
		t.Fatalf("events %v, want %v", names, want)
	}
	ps, _ := s.FiatPayments(ctx, o.ID)
	if ps[0].Status != rampway.FiatAuthorized || ps[0].CardLast4 != "4242" || ps[0].Next != nil {
		t.Fatalf("payment %+v", ps[0])
	}
	// Executed: the capture is asked once, claimed once, finished.
	for _, c := range []rampway.Cause{rampway.ExecutionStarted{}, rampway.ExecutionMined{}} {
		if _, err := s.Apply(ctx, o.ID, c, now()); err != nil {
			t.Fatal(err)
		}
	}
	as, err := s.FiatActions(ctx, o.ID)
	if err != nil || len(as) != 1 || as[0].Kind != rampway.ActionCapture || as[0].Amount.Int64() != 2500 || as[0].Status != rampway.ActionPending {
		t.Fatalf("actions %+v, %v", as, err)
	}
	at := now()
	claimed, err := s.ClaimFiatActions(ctx, at, time.Minute, 10)
	if err != nil || len(claimed) != 1 || claimed[0].ID != as[0].ID {
		t.Fatalf("claim: %+v, %v", claimed, err)
	}
	if again, _ := s.ClaimFiatActions(ctx, at, time.Minute, 10); len(again) != 0 {
		t.Fatalf("a leased action was claimed again: %+v", again)
	}
	if err := s.FinishFiatAction(ctx, as[0].ID, rampway.ActionPending, "", "provider down", at.Add(time.Second), at); err != nil {
		t.Fatal(err)
	}
	if claimed, _ := s.ClaimFiatActions(ctx, at.Add(2*time.Second), time.Minute, 10); len(claimed) != 1 || claimed[0].Attempts != 1 || claimed[0].LastError != "provider down" {
		t.Fatalf("retry: %+v", claimed)
	}
	// Done: never claimed again, the provider's ref kept.
	if err := s.FinishFiatAction(ctx, as[0].ID, rampway.ActionDone, "cap_1", "", at, at); err != nil {
		t.Fatal(err)
	}
	if claimed, _ := s.ClaimFiatActions(ctx, at.Add(time.Hour), time.Minute, 10); len(claimed) != 0 {
		t.Fatalf("a done action was claimed: %+v", claimed)
	}
	// The capture is in the ledger once: from the payer to the provider's balance.
	if err := s.FinishFiatAction(ctx, as[0].ID, rampway.ActionDone, "cap_1", "", at, at); err != nil {
		t.Fatal(err)
	}
	lt, err := s.LedgerTransfers(ctx, as[0].PaymentID)
	if err != nil || len(lt) != 1 || lt[0].Kind != "fiat_capture" || lt[0].Amount.Int64() != 2500 || lt[0].Asset != rampway.FiatAsset(as[0].Currency) ||
		lt[0].Debit != rampway.CustomersAccount("sandbox", as[0].Currency) || lt[0].Credit != rampway.ProviderAccount("sandbox", as[0].Currency) {
		t.Fatalf("ledger transfers of the capture: %+v, %v", lt, err)
	}
	if as, _ := s.FiatActions(ctx, o.ID); as[0].Status != rampway.ActionDone || as[0].ProviderRef != "cap_1" {
		t.Fatalf("finished: %+v", as[0])
	}
	if _, err := s.RetryFiatAction(ctx, as[0].ID, at); rampway.ErrorCode(err) != rampway.ECONFLICT {
		t.Fatalf("retrying a done action: %v", err)
	}
	// An unknown payment is ENOTFOUND, and nothing is recorded of it.
	_, err = s.ApplyProviderEvent(ctx, "sandbox", &rampway.ProviderEvent{ID: "ev_x", Type: rampway.ProviderPaymentAuthorized, PaymentRef: "nope",
		Status: rampway.FiatAuthorized}, now())
	wantCode(t, err, rampway.ENOTFOUND)

	// A bank transfer: a short credit is refunded and the order waits; the right one pays it;
	// the same notification again changes nothing.
	b, _ := fiatOrder(t, s, m.ID, rampway.MethodSEPABankTransfer, "sbp_bank")
	credit := func(id string, amount int64) bool {
		ok, err := s.ApplyProviderEvent(ctx, "sandbox", &rampway.ProviderEvent{ID: id, Type: rampway.ProviderPaymentCredited, PaymentRef: "sbp_bank",
			Status: rampway.FiatSucceeded, Credit: "c_" + id, Amount: big.NewInt(amount)}, now())
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	credit("ev_short", 500)
	if got, _ := s.Order(ctx, b.ID); got.Status != rampway.StatusCreated {
		t.Fatalf("after a short credit: %s", got.Status)
	}
	credit("ev_full", 2500)
	if credit("ev_full", 2500) {
		t.Fatal("a duplicate credit was applied")
	}
	if got, _ := s.Order(ctx, b.ID); got.Status != rampway.StatusOnrampSuccess {
		t.Fatalf("after the full credit: %s", got.Status)
	}
	as, _ = s.FiatActions(ctx, b.ID)
	if len(as) != 1 || as[0].Kind != rampway.ActionRefund || as[0].Amount.Int64() != 500 {
		t.Fatalf("bank actions %+v", as)
	}
	if ps, _ := s.FiatPayments(ctx, b.ID); ps[0].Received.Int64() != 3000 {
		t.Fatalf("received %s, want 3000", ps[0].Received)
	}
}

// A bank transfer that arrives after its area C order expired is refunded, all of it, and the
// order stays EXPIRED: nothing is delivered.
func testLateTransfer(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	ctx := t.Context()
	m := mustMerchant(t, s, "late")
	o, _ := fiatOrderIn(t, s, rampway.AreaDeposit, m.ID, rampway.MethodSEPABankTransfer, "sbp_late")
	if got, _ := s.Order(ctx, o.ID); got.PayoutAddress != o.PayoutAddress {
		t.Fatalf("payout address %s, want %s", got.PayoutAddress.Hex(), o.PayoutAddress.Hex())
	}
	if _, err := s.Apply(ctx, o.ID, rampway.Expired{}, now()); err != nil {
		t.Fatal(err)
	}
	applied, err := s.ApplyProviderEvent(ctx, "sandbox", &rampway.ProviderEvent{ID: "ev_late", Type: rampway.ProviderPaymentCredited, PaymentRef: "sbp_late",
		Status: rampway.FiatSucceeded, Credit: "c_late", Amount: big.NewInt(2500)}, now())
	if err != nil || !applied {
		t.Fatalf("late credit: %v %v", applied, err)
	}
	got, _ := s.Order(ctx, o.ID)
	as, _ := s.FiatActions(ctx, o.ID)
	if got.Status != rampway.StatusExpired || got.FiatPaymentID != "" || len(as) != 1 || as[0].Kind != rampway.ActionRefund ||
		as[0].Amount.Int64() != 2500 || as[0].Reason != "arrived when the order was EXPIRED" {
		t.Fatalf("after a late transfer: %s %q, actions %+v", got.Status, got.FiatPaymentID, as)
	}
}

// An action the provider kept refusing is given up on: it needs an operator, is no longer
// claimed, is listed, and an operator retries it (pending again, its give-up clock started
// over) or resolves it by hand (kept with the operator's note, never claimed again).
func testFiatActionsNeedingOperator(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	ctx := t.Context()
	m := mustMerchant(t, s, "operator")
	o, _ := fiatOrder(t, s, m.ID, rampway.MethodCard, "sbp_op")
	if _, err := s.ApplyProviderEvent(ctx, "sandbox", &rampway.ProviderEvent{ID: "ev_op", Type: rampway.ProviderPaymentAuthorized, PaymentRef: "sbp_op",
		Status: rampway.FiatAuthorized}, now()); err != nil {
		t.Fatal(err)
	}
	for _, c := range []rampway.Cause{rampway.ExecutionStarted{}, rampway.ExecutionMined{}} {
		if _, err := s.Apply(ctx, o.ID, c, now()); err != nil {
			t.Fatal(err)
		}
	}
	as, err := s.FiatActions(ctx, o.ID)
	if err != nil || len(as) != 1 {
		t.Fatalf("actions %+v, %v", as, err)
	}
	at := now()
	claimed, err := s.ClaimFiatActions(ctx, at, time.Minute, 10)
	if err != nil || len(claimed) != 1 {
		t.Fatalf("claim: %+v, %v", claimed, err)
	}
	if claimed[0].RetryFrom.IsZero() || !claimed[0].RetryFrom.Equal(claimed[0].CreatedAt) {
		t.Fatalf("give-up clock of a new action: %v, created %v", claimed[0].RetryFrom, claimed[0].CreatedAt)
	}
	if err := s.FinishFiatAction(ctx, as[0].ID, rampway.ActionNeedsOperator, "", "provider says no", at.Add(time.Second), at.Add(2*time.Second)); err != nil {
		t.Fatal(err)
	}
	if claimed, _ := s.ClaimFiatActions(ctx, at.Add(time.Hour), time.Minute, 10); len(claimed) != 0 {
		t.Fatalf("an action needing an operator was claimed: %+v", claimed)
	}
	needy, err := s.FiatActionsByStatus(ctx, rampway.ActionNeedsOperator, "", 10)
	if err != nil || len(needy) != 1 || needy[0].ID != as[0].ID || needy[0].LastError != "provider says no" {
		t.Fatalf("needing an operator: %+v, %v", needy, err)
	}
	if after, err := s.FiatActionsByStatus(ctx, rampway.ActionNeedsOperator, as[0].ID, 10); err != nil || len(after) != 0 {
		t.Fatalf("after the cursor: %+v, %v", after, err)
	}
	// An operator retries it: pending, due at once, its give-up clock started over.
	retryAt := at.Add(3 * time.Second)
	r, err := s.RetryFiatAction(ctx, as[0].ID, retryAt)
	if err != nil || r.Status != rampway.ActionPending || !r.RetryFrom.Equal(retryAt) {
		t.Fatalf("retry: %+v, %v", r, err)
	}
	if _, err := s.RetryFiatAction(ctx, as[0].ID, retryAt); rampway.ErrorCode(err) != rampway.ECONFLICT {
		t.Fatalf("a second retry: %v", err)
	}
	if _, err := s.ResolveFiatAction(ctx, "fac_unknown", "done", retryAt); rampway.ErrorCode(err) != rampway.ENOTFOUND {
		t.Fatalf("resolving an unknown action: %v", err)
	}
	if claimed, _ := s.ClaimFiatActions(ctx, retryAt, time.Minute, 10); len(claimed) != 1 {
		t.Fatalf("a retried action is not claimed: %+v", claimed)
	}
	if err := s.FinishFiatAction(ctx, as[0].ID, rampway.ActionNeedsOperator, "", "provider says no", retryAt, retryAt); err != nil {
		t.Fatal(err)
	}
	// Resolved by hand: kept with the operator's note, never claimed.
	if r, err := s.ResolveFiatAction(ctx, as[0].ID, "captured by hand in the provider's dashboard", retryAt); err != nil ||
		r.Status != rampway.ActionResolved || r.ResolvedNote != "captured by hand in the provider's dashboard" {
		t.Fatalf("resolve: %+v, %v", r, err)
	}
	if claimed, _ := s.ClaimFiatActions(ctx, at.Add(time.Hour), time.Minute, 10); len(claimed) != 0 {
		t.Fatalf("a resolved action was claimed: %+v", claimed)
	}
	if as, _ := s.FiatActions(ctx, o.ID); as[0].Status != rampway.ActionResolved {
		t.Fatalf("resolved: %+v", as[0])
	}
	if _, err := s.RetryFiatAction(ctx, as[0].ID, retryAt); rampway.ErrorCode(err) != rampway.ECONFLICT {
		t.Fatalf("retrying a resolved action: %v", err)
	}
}
