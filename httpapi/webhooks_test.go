package httpapi

import (
	"net/http"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/merchant"
)

// The webhook log and resend, for the merchant (merchant API) and for an operator (admin API).
func TestWebhookLogAndResend(t *testing.T) {
	t.Parallel()
	e, o, logPath := newHookedOrder(t)
	log := decode[ListView[DeliveryView]](t, e.merchantAPI(http.MethodGet, logPath, nil), 200)
	if len(log.Data) != 1 {
		t.Fatalf("log: %+v", log)
	}
	d := log.Data[0]
	if d.EventName != string(rampway.EventCreated) || d.Status != string(rampway.DeliveryPending) || d.URL != "http://127.0.0.1:9/hooks" || d.NextAttemptAt == nil ||
		d.AttemptCount != 0 || len(d.Attempts) != 0 || d.OrderID != o.OrderID {
		t.Fatalf("delivery: %+v", d)
	}
	resend := logPath + "/" + d.EventID + "/resend"
	if r := decode[DeliveryView](t, e.merchantAPI(http.MethodPost, resend, nil), 202); r.EventID != d.EventID || r.Status != string(rampway.DeliveryPending) {
		t.Fatalf("resend: %+v", r)
	}
	wantEnvelope(t, e.merchantAPI(http.MethodPost, logPath+"/evt_nope/resend", nil), 404, 404, logPath+"/evt_nope/resend", "not found")
	// Its body, optional, may name the merchant (checked, as in every merchant POST) and carry
	// fields it does not take, as other merchant bodies may.
	decode[DeliveryView](t, e.merchantAPI(http.MethodPost, resend, map[string]any{"merchant_id": e.merchant.ID, "x": 1}), 202)
	wantEnvelope(t, e.merchantAPI(http.MethodPost, resend, map[string]any{"merchant_id": "mch_other"}), 401, 401, resend, "Unauthorized")
	wantEnvelope(t, e.merchantAPI(http.MethodPost, resend, "[]"), 400, 400, resend, "not an array")

	// Another merchant sees neither the log nor the event.
	other, _ := e.svc.Create(t.Context(), merchant.CreateParams{Name: "Other"})
	_, otherKey, _ := e.svc.IssueAPIKey(t.Context(), other.ID, false)
	wantEnvelope(t, e.do(http.MethodGet, logPath, nil, map[string]string{"X-API-KEY": otherKey}), 404, 404, logPath, "not found")
	wantEnvelope(t, e.do(http.MethodPost, resend, nil, map[string]string{"X-API-KEY": otherKey}), 404, 404, resend, "not found")
	wantEnvelope(t, e.do(http.MethodGet, logPath, nil, nil), 401, 401, logPath, "Unauthorized")

	// The admin API: the same log under the merchant, and resend.
	adminLog := "/merchants/" + e.merchant.ID + "/orders/" + o.OrderID + "/webhooks"
	if a := decode[ListView[DeliveryView]](t, e.admin(http.MethodGet, adminLog, nil), 200); len(a.Data) != 1 || a.Data[0].EventID != d.EventID {
		t.Fatalf("admin log: %+v", a)
	}
	decode[DeliveryView](t, e.admin(http.MethodPost, adminLog+"/"+d.EventID+"/resend", nil), 202)
	wantEnvelope(t, e.admin(http.MethodPost, adminLog+"/"+d.EventID+"/resend", map[string]any{"x": 1}), 400, 400, "/admin"+adminLog+"/"+d.EventID+"/resend", "Unknown field 'x'")
	wrong := "/merchants/" + other.ID + "/orders/" + o.OrderID + "/webhooks"
	wantEnvelope(t, e.admin(http.MethodGet, wrong, nil), 404, 404, "/admin"+wrong, "not found")
}

// A resend answers the delivery as the log then shows it: pending, every earlier attempt listed
// (as many as attempt_count), and no delivered_at while it is not delivered (again); the log
// agrees, and delivered_at comes back with the next success.
func TestResendShowsItsAttempts(t *testing.T) {
	t.Parallel()
	e, o, logPath := newHookedOrder(t)
	entry := func() DeliveryView {
		t.Helper()
		log := decode[ListView[DeliveryView]](t, e.merchantAPI(http.MethodGet, logPath, nil), 200)
		if len(log.Data) != 1 {
			t.Fatalf("log: %+v", log)
		}
		return log.Data[0]
	}
	eventID := entry().EventID
	// What a dispatcher records: a 503, then a 200.
	start := time.Now().UTC().Truncate(time.Millisecond)
	record := func(n, code int, status rampway.DeliveryStatus) time.Time {
		t.Helper()
		a := &rampway.DeliveryAttempt{EventID: eventID, Attempt: n, At: start.Add(time.Duration(n) * time.Second), StatusCode: code, Latency: 20 * time.Millisecond}
		if code != 200 {
			a.Error = "answered " + strconv.Itoa(code)
		}
		if err := e.store.RecordAttempt(t.Context(), a, status, a.At.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		return a.At.Add(a.Latency)
	}
	record(1, 503, rampway.DeliveryPending)
	deliveredAt := record(2, 200, rampway.DeliveryDelivered).Format(TimeFormat)
	d := entry()
	if d.Status != string(rampway.DeliveryDelivered) || d.AttemptCount != 2 || len(d.Attempts) != 2 || d.DeliveredAt == nil || *d.DeliveredAt != deliveredAt ||
		d.NextAttemptAt != nil {
		t.Fatalf("delivered: %+v", d)
	}

	checkResent := func(r DeliveryView, codes ...int) {
		t.Helper()
		if r.EventID != eventID || r.Status != string(rampway.DeliveryPending) || r.NextAttemptAt == nil || r.DeliveredAt != nil ||
			r.AttemptCount != len(codes) || len(r.Attempts) != len(codes) || r.LastStatusCode == nil || *r.LastStatusCode != codes[len(codes)-1] {
			t.Fatalf("resent: %+v", r)
		}
		for i, a := range r.Attempts {
			if a.Attempt != i+1 || a.StatusCode == nil || *a.StatusCode != codes[i] {
				t.Fatalf("resent, attempt %d: %+v", i+1, a)
			}
		}
		if l := entry(); !reflect.DeepEqual(l, r) { // the log shows what the resend answered
			t.Fatalf("the log after a resend:\n%+v\nthe resend's answer:\n%+v", l, r)
		}
	}
	checkResent(decode[DeliveryView](t, e.merchantAPI(http.MethodPost, logPath+"/"+eventID+"/resend", nil), 202), 503, 200)
	adminResend := "/merchants/" + e.merchant.ID + "/orders/" + o.OrderID + "/webhooks/" + eventID + "/resend"
	checkResent(decode[DeliveryView](t, e.admin(http.MethodPost, adminResend, nil), 202), 503, 200)

	// The resent event fails for good: failed, still no delivered_at; then a resend delivers it.
	record(3, 500, rampway.DeliveryFailed)
	if d := entry(); d.Status != string(rampway.DeliveryFailed) || d.DeliveredAt != nil || d.NextAttemptAt != nil || d.AttemptCount != 3 || len(d.Attempts) != 3 {
		t.Fatalf("failed: %+v", d)
	}
	checkResent(decode[DeliveryView](t, e.merchantAPI(http.MethodPost, logPath+"/"+eventID+"/resend", nil), 202), 503, 200, 500)
	deliveredAt = record(4, 204, rampway.DeliveryDelivered).Format(TimeFormat)
	if d := entry(); d.Status != string(rampway.DeliveryDelivered) || d.DeliveredAt == nil || *d.DeliveredAt != deliveredAt || d.AttemptCount != 4 || len(d.Attempts) != 4 {
		t.Fatalf("delivered again: %+v", d)
	}
}

// newHookedOrder is an order of a merchant with a webhook secret, whose events go to a port
// nobody listens on, and the path of its webhook log.
func newHookedOrder(t *testing.T) (*mintEnv, MintOrderView, string) {
	t.Helper()
	e := newMintEnv(t)
	if _, err := e.svc.SetWebhookSecret(t.Context(), e.merchant.ID, false, "", 0); err != nil {
		t.Fatal(err)
	}
	o := decode[MintOrderView](t, e.merchantAPI(http.MethodPost, mintOrderPath,
		e.body(func(b map[string]any) { b["merchant_webhook_url"] = "http://127.0.0.1:9/hooks" })), 201)
	return e, o, mintOrderPath + "/" + o.OrderID + "/webhooks"
}
