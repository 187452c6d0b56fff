package httpapi

import (
	"net/http"
	"testing"
	"time"

	"github.com/rampway/rampway"
)

// The admin API lists the fiat actions a provider kept refusing, and an operator retries one
// (pending again) or resolves it by hand (issue 29, 4).
func TestAdminFiatActions(t *testing.T) {
	t.Parallel()
	e := newFiatEnv(t)
	ctx := t.Context()
	o := decode[FiatOrderView](t, e.merchantAPI(http.MethodPost, fiatOrderPath, e.rampBody(func(b map[string]any) {
		b["order_fiat_symbol"], b["fiat_payment_method"] = "EUR", rampway.MethodCard
	})), 201)
	ord, err := e.store.Order(ctx, o.OrderID)
	if err != nil {
		t.Fatal(err)
	}
	p, err := e.checkout.StartFiatPayment(ctx, ord, "https://pay.example/back")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.ApplyProviderEvent(ctx, "sandbox", &rampway.ProviderEvent{ID: "ev_auth_" + p.ID, Type: rampway.ProviderPaymentAuthorized,
		PaymentRef: p.ProviderRef, Status: rampway.FiatAuthorized}, time.Now()); err != nil {
		t.Fatal(err)
	}
	for _, c := range []rampway.Cause{rampway.ExecutionStarted{}, rampway.ExecutionMined{}} {
		if _, err := e.store.Apply(ctx, o.OrderID, c, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	as, err := e.store.FiatActions(ctx, o.OrderID)
	if err != nil || len(as) != 1 || as[0].Kind != rampway.ActionCapture {
		t.Fatalf("actions %+v, %v", as, err)
	}
	id := as[0].ID
	giveUp := func() {
		t.Helper()
		if err := e.store.FinishFiatAction(ctx, id, rampway.ActionNeedsOperator, "", "provider says no", time.Now(), time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	giveUp()

	l := decode[ListView[FiatActionView]](t, e.admin(http.MethodGet, "/fiat-actions", nil), 200)
	if len(l.Data) != 1 || l.Data[0].ActionID != id || l.Data[0].Status != string(rampway.ActionNeedsOperator) || l.Data[0].LastError != "provider says no" ||
		l.Data[0].Amount != o.OrderFiatAmount || l.Data[0].Currency != "EUR" || l.Data[0].Kind != "capture" {
		t.Fatalf("list: %+v", l)
	}
	if l := decode[ListView[FiatActionView]](t, e.admin(http.MethodGet, "/fiat-actions?status=pending", nil), 200); len(l.Data) != 0 {
		t.Fatalf("pending: %+v", l)
	}
	wantEnvelope(t, e.admin(http.MethodGet, "/fiat-actions?status=stuck", nil), 400, 400, "/admin/fiat-actions", "status must be one of")
	wantEnvelope(t, e.admin(http.MethodGet, "/fiat-actions?limit=0", nil), 400, 400, "/admin/fiat-actions", "limit must be")

	r := decode[FiatActionView](t, e.admin(http.MethodPost, "/fiat-actions/"+id+"/retry", nil), 200)
	if r.Status != string(rampway.ActionPending) || r.RetryFrom == r.CreatedAt {
		t.Fatalf("retried: %+v", r)
	}
	wantEnvelope(t, e.admin(http.MethodPost, "/fiat-actions/"+id+"/retry", nil), 409, 409, "/admin/fiat-actions/"+id+"/retry", "only one that needs an operator")
	giveUp()
	path := "/admin/fiat-actions/" + id + "/resolve"
	wantEnvelope(t, e.admin(http.MethodPost, "/fiat-actions/"+id+"/resolve", map[string]any{}), 400, 400, path, "note is required")
	wantEnvelope(t, e.admin(http.MethodPost, "/fiat-actions/"+id+"/resolve", map[string]any{"note": "x", "by": "me"}), 400, 400, path, "by")
	v := decode[FiatActionView](t, e.admin(http.MethodPost, "/fiat-actions/"+id+"/resolve", map[string]any{"note": "captured in the dashboard"}), 200)
	if v.Status != string(rampway.ActionResolved) || v.ResolvedNote != "captured in the dashboard" {
		t.Fatalf("resolved: %+v", v)
	}
	wantEnvelope(t, e.admin(http.MethodPost, "/fiat-actions/"+id+"/resolve", map[string]any{"note": "again"}), 409, 409, path, "is resolved")
	unknown := "/fiat-actions/fac_00000000000000000000000000/retry"
	wantEnvelope(t, e.admin(http.MethodPost, unknown, nil), 404, 404, "/admin"+unknown, "not found")
	wantEnvelope(t, e.admin(http.MethodPost, "/fiat-actions/nope/retry", nil), 404, 404, "/admin/fiat-actions/nope/retry", "not found")
	// The merchant API never sees it.
	if r := e.merchantAPI(http.MethodGet, "/admin/fiat-actions", nil); r.status != 401 {
		t.Fatalf("a merchant key on the admin API: %d", r.status)
	}
}
