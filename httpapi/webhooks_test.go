package httpapi

import (
	"net/http"
	"testing"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/merchant"
)

// The webhook log and resend, for the merchant (merchant API) and for an operator (admin API).
func TestWebhookLogAndResend(t *testing.T) {
	e := newMintEnv(t)
	if _, err := e.svc.SetWebhookSecret(t.Context(), e.merchant.ID, "", 0); err != nil {
		t.Fatal(err)
	}
	o := decode[MintOrderView](t, e.merchantAPI(http.MethodPost, mintOrderPath,
		e.body(func(b map[string]any) { b["merchant_webhook_url"] = "http://127.0.0.1:9/hooks" })), 201)
	logPath := mintOrderPath + "/" + o.OrderID + "/webhooks"
	log := decode[ListView[DeliveryView]](t, e.merchantAPI(http.MethodGet, logPath, nil), 200)
	if len(log.Data) != 1 {
		t.Fatalf("log: %+v", log)
	}
	d := log.Data[0]
	if d.EventName != rampway.EventCreated || d.Status != rampway.DeliveryPending || d.URL != "http://127.0.0.1:9/hooks" || d.NextAttemptAt == nil ||
		d.AttemptCount != 0 || len(d.Attempts) != 0 || d.OrderID != o.OrderID {
		t.Fatalf("delivery: %+v", d)
	}
	resend := logPath + "/" + d.EventID + "/resend"
	if r := decode[DeliveryView](t, e.merchantAPI(http.MethodPost, resend, nil), 202); r.EventID != d.EventID || r.Status != rampway.DeliveryPending {
		t.Fatalf("resend: %+v", r)
	}
	wantEnvelope(t, e.merchantAPI(http.MethodPost, logPath+"/evt_nope/resend", nil), 404, 404, logPath+"/evt_nope/resend", "not found")
	wantEnvelope(t, e.merchantAPI(http.MethodPost, resend, map[string]any{"x": 1}), 400, 400, resend, "Unknown field 'x'")

	// Another merchant sees neither the log nor the event.
	other, _ := e.svc.Create(t.Context(), merchant.CreateParams{Name: "Other"})
	_, otherKey, _ := e.svc.IssueAPIKey(t.Context(), other.ID)
	wantEnvelope(t, e.do(http.MethodGet, logPath, nil, map[string]string{"X-API-KEY": otherKey}), 404, 404, logPath, "not found")
	wantEnvelope(t, e.do(http.MethodPost, resend, nil, map[string]string{"X-API-KEY": otherKey}), 404, 404, resend, "not found")
	wantEnvelope(t, e.do(http.MethodGet, logPath, nil, nil), 401, 401, logPath, "Unauthorized")

	// The admin API: the same log under the merchant, and resend.
	adminLog := "/merchants/" + e.merchant.ID + "/orders/" + o.OrderID + "/webhooks"
	if a := decode[ListView[DeliveryView]](t, e.admin(http.MethodGet, adminLog, nil), 200); len(a.Data) != 1 || a.Data[0].EventID != d.EventID {
		t.Fatalf("admin log: %+v", a)
	}
	decode[DeliveryView](t, e.admin(http.MethodPost, adminLog+"/"+d.EventID+"/resend", nil), 202)
	wrong := "/merchants/" + other.ID + "/orders/" + o.OrderID + "/webhooks"
	wantEnvelope(t, e.admin(http.MethodGet, wrong, nil), 404, 404, "/admin"+wrong, "not found")
}
