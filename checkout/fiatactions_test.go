package checkout_test

import (
	"testing"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/checkout"
)

// TestOperatorFiatActions: the fiat actions a provider kept refusing are listed for operators
// by status (with their currency's decimals); an operator retries one (pending again, its
// give-up clock started over) or resolves it by hand with a note; either only while it needs an
// operator (issue 29, 4).
func TestOperatorFiatActions(t *testing.T) {
	t.Parallel()
	w := newWorldWith(t, worldOptions{noChain: true})
	ctx := t.Context()
	o := w.storeFiatOrder(rampway.AreaNFTRamp, "EUR", rampway.MethodCard, 3599)
	p, err := w.svc.StartFiatPayment(ctx, o, "https://pay.example/back")
	if err != nil {
		t.Fatal(err)
	}
	// Authorised, then minted: the card's capture is asked of the provider.
	if _, err := w.store.ApplyProviderEvent(ctx, "sandbox", &rampway.ProviderEvent{ID: "ev_auth_" + p.ID, Type: rampway.ProviderPaymentAuthorized,
		PaymentRef: p.ProviderRef, Status: rampway.FiatAuthorized}, w.clock.Now()); err != nil {
		t.Fatal(err)
	}
	for _, c := range []rampway.Cause{rampway.ExecutionStarted{}, rampway.ExecutionMined{}} {
		if _, err := w.store.Apply(ctx, o.ID, c, w.clock.Now()); err != nil {
			t.Fatal(err)
		}
	}
	as, err := w.svc.FiatActions(ctx, o)
	if err != nil || len(as) != 1 || as[0].Kind != rampway.ActionCapture {
		t.Fatalf("actions %+v, %v", as, err)
	}
	id := as[0].ID
	giveUp := func() {
		t.Helper()
		if err := w.store.FinishFiatAction(ctx, id, rampway.ActionNeedsOperator, "", "provider says no", w.clock.Now(), w.clock.Now()); err != nil {
			t.Fatal(err)
		}
	}
	giveUp()

	list := func(status string) []checkout.OperatorFiatAction {
		t.Helper()
		l, err := w.svc.FiatActionsByStatus(ctx, status, "", 10)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	if l := list(string(rampway.ActionNeedsOperator)); len(l) != 1 || l[0].Decimals != 2 || l[0].Action.ID != id || l[0].Action.Status != rampway.ActionNeedsOperator ||
		l[0].Action.LastError != "provider says no" || l[0].Action.Amount.Int64() != 3599 || l[0].Action.Currency != "EUR" || l[0].Action.Kind != rampway.ActionCapture {
		t.Fatalf("needs_operator: %+v", l)
	}
	if l := list(string(rampway.ActionPending)); len(l) != 0 {
		t.Fatalf("pending: %+v", l)
	}
	_, err = w.svc.FiatActionsByStatus(ctx, "stuck", "", 10)
	wantError(t, err, rampway.EINVALID, "status must be one of")
	_, err = w.svc.FiatActionsByStatus(ctx, string(rampway.ActionPending), "", 0)
	wantError(t, err, rampway.EINVALID, "limit must be")

	r, err := w.svc.RetryFiatAction(ctx, id)
	if err != nil || r.Action.Status != rampway.ActionPending || r.Action.RetryFrom.Equal(r.Action.CreatedAt) || r.Decimals != 2 {
		t.Fatalf("retried: %+v, %v", r.Action, err)
	}
	_, err = w.svc.RetryFiatAction(ctx, id)
	wantError(t, err, rampway.ECONFLICT, "only one that needs an operator")
	giveUp()
	_, err = w.svc.ResolveFiatAction(ctx, id, "")
	wantError(t, err, rampway.EINVALID, "note is required")
	v, err := w.svc.ResolveFiatAction(ctx, id, "captured in the dashboard")
	if err != nil || v.Action.Status != rampway.ActionResolved || v.Action.ResolvedNote != "captured in the dashboard" {
		t.Fatalf("resolved: %+v, %v", v.Action, err)
	}
	_, err = w.svc.ResolveFiatAction(ctx, id, "again")
	wantError(t, err, rampway.ECONFLICT, "is resolved")
	for _, unknown := range []string{"fac_00000000000000000000000000", "nope"} {
		_, err = w.svc.RetryFiatAction(ctx, unknown)
		wantError(t, err, rampway.ENOTFOUND, "not found")
	}
}
