package stripe_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	stripego "github.com/stripe/stripe-go/v85"
	"github.com/stripe/stripe-go/v85/webhook"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/provider/stripe"
	"github.com/rampway/rampway/provider/stripe/stripetest"
)

const webhookSecret = "whsec_test_rampway"

func newProvider(t *testing.T, url string) *stripe.Provider {
	t.Helper()
	p, err := stripe.New(stripe.Config{SecretKey: "sk_test_123", PublishableKey: "pk_test_123", WebhookSecret: webhookSecret, APIURL: url})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Every call the provider makes, against stripe-mock (which checks each request against
// Stripe's OpenAPI description): the key check, a payment intent's creation (manual
// capture, the amount in minor units, an idempotency key) and reading, its capture,
// cancellation and refund.
func TestProviderCallsStripeMock(t *testing.T) {
	p := newProvider(t, stripetest.StartMock(t))
	ctx := t.Context()
	if err := p.Check(ctx); err != nil {
		t.Fatal(err)
	}
	if p.Mode() != "test" || p.Name() != "stripe" || len(p.Methods()) != 4 {
		t.Fatalf("mode %s, name %s, methods %v", p.Mode(), p.Name(), p.Methods())
	}
	pp, err := p.Start(ctx, rampway.StartFiatPayment{PaymentID: "fpy_1", OrderID: "ord_1", Amount: big.NewInt(2988), Currency: "EUR", Decimals: 2,
		Method: rampway.MethodCard, ReturnURL: "http://127.0.0.1/checkout"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(pp.Ref, "pi_") {
		t.Fatalf("start: %+v", pp)
	}
	if pp.Status != rampway.FiatPending || pp.Next == nil || pp.Next.Kind != stripe.NextKind || pp.Next.Meta["publishable_key"] != "pk_test_123" || pp.Next.Meta["client_secret"] == "" {
		t.Fatalf("next action %+v", pp.Next)
	}
	// Read with its latest charge expanded (stripe-mock refuses an unknown expansion): what
	// Stripe holds of it is known.
	if read, err := p.Payment(ctx, pp.Ref); err != nil || read.Held == nil {
		t.Fatalf("payment: %+v %v", read, err)
	}
	if err := p.Capture(ctx, pp.Ref, big.NewInt(2988), "fac_capture"); err != nil {
		t.Fatal(err)
	}
	if err := p.Void(ctx, pp.Ref, "fac_void"); err != nil {
		t.Fatal(err)
	}
	ref, err := p.Refund(ctx, pp.Ref, big.NewInt(500), "fac_refund")
	if err != nil || !strings.HasPrefix(ref, "re_") {
		t.Fatalf("refund: %q %v", ref, err)
	}
	// SEPA Direct Debit: collected by Stripe, no manual capture.
	sepa, err := p.Start(ctx, rampway.StartFiatPayment{PaymentID: "fpy_3", OrderID: "ord_3", Amount: big.NewInt(10_000), Currency: "EUR", Decimals: 2,
		Method: rampway.MethodSEPADebit})
	if err != nil || sepa.Status != rampway.FiatPending || sepa.Next == nil {
		t.Fatalf("sepa_debit start: %+v %v", sepa, err)
	}
	// A method Stripe does not take here, and an amount beyond int64, are refused before any call.
	if _, err := p.Start(ctx, rampway.StartFiatPayment{PaymentID: "fpy_2", Amount: big.NewInt(100), Currency: "EUR", Method: rampway.MethodSEPABankTransfer}); err == nil {
		t.Fatal("a bank transfer started on Stripe")
	}
	// A key Stripe refuses (stripe-mock takes any sk_test_ key; a malformed one is refused).
	bad, _ := stripe.New(stripe.Config{SecretKey: "nope", PublishableKey: "pk_test_1", WebhookSecret: webhookSecret, APIURL: stripetest.StartMock(t)})
	if err := bad.Check(ctx); err == nil {
		t.Fatal("a malformed key passed the start-up check")
	}
}

// event is a Stripe event of typ about obj, as Stripe sends it.
func event(t *testing.T, id, typ string, obj map[string]any) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{"id": id, "object": "event", "type": typ, "api_version": "2025-01-27.acacia", "created": time.Now().Unix(),
		"data": map[string]any{"object": obj}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func signed(body []byte, secret string, at time.Time) http.Header {
	sp := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: body, Secret: secret, Timestamp: at})
	return http.Header{"Stripe-Signature": {sp.Header}}
}

// Stripe's events, signed with the library's test helper, read as payments' states; a bad
// signature, an old one, and an event of another type.
func TestParseWebhook(t *testing.T) {
	p, err := stripe.New(stripe.Config{SecretKey: "sk_test_1", PublishableKey: "pk_test_1", WebhookSecret: webhookSecret})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	pi := func(status string, extra map[string]any) map[string]any {
		o := map[string]any{"id": "pi_1", "object": "payment_intent", "status": status, "amount": 2988, "currency": "eur", "capture_method": "manual"}
		for k, v := range extra {
			o[k] = v
		}
		return o
	}
	for _, c := range []struct {
		typ    string
		obj    map[string]any
		status rampway.FiatPaymentStatus
		kind   string
	}{
		{stripe.EventCapturable, pi("requires_capture", nil), rampway.FiatAuthorized, rampway.ProviderPaymentAuthorized},
		{stripe.EventSucceeded, pi("succeeded", map[string]any{"amount_received": 2988}), rampway.FiatSucceeded, rampway.ProviderPaymentCaptured},
		{stripe.EventFailed, pi("requires_payment_method", map[string]any{"last_payment_error": map[string]any{"message": "Your card was declined."}}),
			rampway.FiatFailed, rampway.ProviderPaymentFailed},
		{stripe.EventCanceled, pi("canceled", nil), rampway.FiatVoided, rampway.ProviderPaymentVoided},
		{stripe.EventRequires, pi("requires_action", nil), rampway.FiatProcessing, rampway.ProviderPaymentProcessing},
		{stripe.EventSucceeded, pi("succeeded", map[string]any{"capture_method": "automatic", "amount_received": 2988, "payment_method_types": []string{"sepa_debit"}}),
			rampway.FiatSucceeded, rampway.ProviderPaymentCredited},
		{stripe.EventRefunded, map[string]any{"id": "ch_1", "object": "charge", "payment_intent": "pi_1", "refunded": true, "amount": 2988, "amount_refunded": 2988},
			rampway.FiatRefunded, rampway.ProviderPaymentRefunded},
	} {
		body := event(t, "evt_"+c.typ, c.typ, c.obj)
		ev, err := p.ParseWebhook(signed(body, webhookSecret, now), body, now)
		if err != nil {
			t.Fatalf("%s: %v", c.typ, err)
		}
		if c.kind == rampway.ProviderPaymentCredited && (ev.Credit != "pi_1" || ev.Amount == nil || ev.Amount.Int64() != 2988) {
			t.Fatalf("a direct debit's money: %+v", ev)
		}
		if ev.ID != "evt_"+c.typ || ev.PaymentRef != "pi_1" || ev.Status != c.status || ev.Type != c.kind {
			t.Fatalf("%s: %+v, want %s %s", c.typ, ev, c.status, c.kind)
		}
		if c.typ == stripe.EventFailed && ev.FailureReason != "Your card was declined." {
			t.Fatalf("failure reason %q", ev.FailureReason)
		}
	}
	body := event(t, "evt_x", stripe.EventCapturable, pi("requires_capture", nil))
	if _, err := p.ParseWebhook(signed(body, "whsec_other", now), body, now); err == nil {
		t.Fatal("a bad signature was taken")
	}
	if _, err := p.ParseWebhook(signed(body, webhookSecret, now.Add(-10*time.Minute)), body, now); err == nil {
		t.Fatal("a 10-minute-old signature was taken")
	}
	if _, err := p.ParseWebhook(http.Header{}, body, now); err == nil {
		t.Fatal("no signature was taken")
	}
	// The window is 5 minutes both ways (issue 29, 6): a correctly signed event dated an hour
	// ahead is refused; a few seconds ahead (clocks differ) is not.
	if _, err := p.ParseWebhook(signed(body, webhookSecret, now.Add(time.Hour)), body, now); err == nil || !strings.Contains(err.Error(), "in the future") {
		t.Fatalf("a signature dated an hour ahead: %v", err)
	}
	if _, err := p.ParseWebhook(signed(body, webhookSecret, now.Add(10*time.Second)), body, now); err != nil {
		t.Fatalf("a signature 10 s ahead: %v", err)
	}
	other := event(t, "evt_y", "customer.created", map[string]any{"id": "cus_1", "object": "customer"})
	if _, err := p.ParseWebhook(signed(other, webhookSecret, now), other, now); !errors.Is(err, rampway.ErrEventNotRead) {
		t.Fatalf("an event of another type: %v, want ErrEventNotRead", err)
	}
}

// A refund Stripe refuses for good (the payment refunded already, or disputed; a refund it
// answers failed) is rampway.ErrProviderRefused: the fiat worker does not ask again. Any other
// error (the charge not captured yet, Stripe unreachable) is not: it is retried.
func TestRefundRefusedForGood(t *testing.T) {
	for _, c := range []struct {
		status  int
		body    string
		refused bool
	}{
		{400, `{"error":{"type":"invalid_request_error","code":"charge_already_refunded","message":"Charge ch_1 has already been refunded."}}`, true},
		{400, `{"error":{"type":"invalid_request_error","code":"charge_disputed","message":"Charge ch_1 has been charged back."}}`, true},
		{200, `{"id":"re_1","object":"refund","status":"failed","failure_reason":"expired_or_canceled_card"}`, true},
		{400, `{"error":{"type":"invalid_request_error","message":"This PaymentIntent does not have a successful charge to refund."}}`, false},
		{200, `{"id":"re_2","object":"refund","status":"pending"}`, false},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(c.status)
			_, _ = w.Write([]byte(c.body))
		}))
		ref, err := newProvider(t, srv.URL).Refund(t.Context(), "pi_1", big.NewInt(500), "fac_1")
		srv.Close()
		if refused := errors.Is(err, rampway.ErrProviderRefused); refused != c.refused || (c.status == 200 && !c.refused && (err != nil || ref != "re_2")) {
			t.Errorf("%d %s: ref %q, err %v; refused %v, want %v", c.status, c.body, ref, err, refused, c.refused)
		}
	}
}

// What Stripe holds of an intent: received less its charge's refunds; unknown (nil) when the
// charge is not expanded; nothing when nothing was received.
func TestHeld(t *testing.T) {
	for _, c := range []struct {
		name string
		pi   stripego.PaymentIntent
		want string
	}{
		{"captured, partly refunded", stripego.PaymentIntent{AmountReceived: 2988, LatestCharge: &stripego.Charge{Object: "charge", AmountRefunded: 500}}, "2488"},
		{"captured", stripego.PaymentIntent{AmountReceived: 2988, LatestCharge: &stripego.Charge{Object: "charge"}}, "2988"},
		{"charge not expanded", stripego.PaymentIntent{AmountReceived: 2988, LatestCharge: &stripego.Charge{ID: "ch_1"}}, "<nil>"},
		{"nothing received", stripego.PaymentIntent{}, "0"},
	} {
		if got := stripe.Held(&c.pi); fmt.Sprint(got) != c.want {
			t.Errorf("%s: held %v, want %s", c.name, got, c.want)
		}
	}
}
