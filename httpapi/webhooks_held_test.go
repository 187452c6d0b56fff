package httpapi

import (
	"net/http"
	"testing"

	"github.com/rampway/rampway"
)

// While an operator has a merchant disabled its deliveries are held: the admin log shows them
// pending with held true and held_since (no next_attempt_at), a resend is refused with 409 in
// the error envelope, naming the merchant disabled (the merchant's own API refuses its key
// anyway); enabled again, they are due at once and a resend is taken.
func TestAdminDisabledMerchantDeliveriesHeld(t *testing.T) {
	t.Parallel()
	e, o, logPath := newHookedOrder(t)
	adminLog := "/merchants/" + e.merchant.ID + "/orders/" + o.OrderID + "/webhooks"
	d := decode[ListView[DeliveryView]](t, e.admin(http.MethodGet, adminLog, nil), 200).Data[0]
	if d.Held || d.HeldSince != nil || d.NextAttemptAt == nil {
		t.Fatalf("delivery of an active merchant: %+v", d)
	}
	decode[map[string]any](t, e.admin(http.MethodPatch, "/merchants/"+e.merchant.ID, map[string]any{"status": "disabled"}), 200)

	d = decode[ListView[DeliveryView]](t, e.admin(http.MethodGet, adminLog, nil), 200).Data[0]
	if d.Status != string(rampway.DeliveryPending) || !d.Held || d.HeldSince == nil || d.NextAttemptAt != nil {
		t.Fatalf("delivery of a disabled merchant: %+v", d)
	}
	resend := adminLog + "/" + d.EventID + "/resend"
	wantEnvelope(t, e.admin(http.MethodPost, resend, nil), 409, 409, "/admin"+resend, "is disabled")
	wantEnvelope(t, e.merchantAPI(http.MethodGet, logPath, nil), 401, 401, logPath, "Unauthorized")

	decode[map[string]any](t, e.admin(http.MethodPatch, "/merchants/"+e.merchant.ID, map[string]any{"status": "active"}), 200)
	d = decode[ListView[DeliveryView]](t, e.admin(http.MethodGet, adminLog, nil), 200).Data[0]
	if d.Status != string(rampway.DeliveryPending) || d.Held || d.HeldSince != nil || d.NextAttemptAt == nil {
		t.Fatalf("delivery once the merchant is enabled again: %+v", d)
	}
	if r := decode[DeliveryView](t, e.admin(http.MethodPost, resend, nil), 202); r.Held || r.Status != string(rampway.DeliveryPending) {
		t.Fatalf("resend once enabled: %+v", r)
	}
	decode[DeliveryView](t, e.merchantAPI(http.MethodPost, logPath+"/"+d.EventID+"/resend", nil), 202)
}
