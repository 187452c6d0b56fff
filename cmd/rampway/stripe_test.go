package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stripe/stripe-go/v85/webhook"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain/devchain"
	"github.com/rampway/rampway/chain/devchain/bindings"
	"github.com/rampway/rampway/internal/devtest"
	"github.com/rampway/rampway/provider/stripe/stripetest"
)

const stripeWebhookSecret = "whsec_test_rampway_journeys"

// stripeEnv is `rampway serve` with fiat.provider stripe, its API at stripe-mock, on the
// embedded chain: the merchant's server, the user's browser and Stripe's webhooks.
type stripeEnv struct {
	*refundEnv
}

func newStripeEnv(t *testing.T) *stripeEnv {
	t.Helper()
	mock := freshIntents(t, stripetest.StartMock(t))
	e := newChainEnv(t)
	e.cfgPath = devServeConfig(t, e.dbPath, e.ch.RPCURL(), 1, crypto.PubkeyToAddress(e.hotKey.PublicKey),
		"fiat: {provider: stripe}\nwebhooks: {timeout: 10s, retry_first: 1s}\n")
	env := map[string]string{"RAMPWAY_HOT_WALLET_KEY": hex.EncodeToString(crypto.FromECDSA(e.hotKey)),
		"RAMPWAY_STRIPE_SECRET_KEY": "sk_test_rampway", "RAMPWAY_STRIPE_PUBLISHABLE_KEY": "pk_test_rampway",
		"RAMPWAY_STRIPE_WEBHOOK_SECRET": stripeWebhookSecret, "RAMPWAY_STRIPE_API_URL": mock}
	e.base, e.out = serveInProcess(t, e.cfgPath, func(k string) string { return env[k] })
	e.onboard()
	e.mineEvery(200 * time.Millisecond)
	return &stripeEnv{e}
}

// freshIntents serves stripe-mock (at mock) with its reads of a PaymentIntent as Stripe answers
// them for an intent nobody has paid yet: stripe-mock answers every read with one fixture, whose
// last_payment_error is set (a declined intent), and the page reads the intent it shows (the
// GET its start step leads back to).
func freshIntents(t *testing.T, mock string) string {
	t.Helper()
	target, err := url.Parse(mock)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(target)
	direct := rp.Director
	rp.Director = func(r *http.Request) {
		direct(r)
		r.Header.Del("Accept-Encoding") // the body is read here: plain
	}
	rp.ModifyResponse = func(res *http.Response) error {
		if res.Request.Method != http.MethodGet || !strings.HasPrefix(res.Request.URL.Path, "/v1/payment_intents/") || res.StatusCode != http.StatusOK {
			return nil
		}
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			return err
		}
		var pi map[string]any
		if err := json.Unmarshal(body, &pi); err != nil {
			return err
		}
		pi["last_payment_error"] = nil
		body, _ = json.Marshal(pi)
		res.Body, res.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		res.Header.Set("Content-Length", strconv.Itoa(len(body)))
		return nil
	}
	srv := httptest.NewServer(rp)
	t.Cleanup(srv.Close)
	return srv.URL
}

// fiatOrder creates a B1 order (the mint, paid by card in EUR), or a C1 order (100 EUR of ETH
// to the merchant's deposit address) when deposit is set.
func (e *stripeEnv) fiatOrder(deposit bool, method string) map[string]any {
	t := e.t
	t.Helper()
	body := map[string]any{"merchant_id": e.merchantID, "order_fiat_symbol": "EUR", "fiat_payment_method": method,
		"merchant_user_id": "u1", "merchant_redirect_url": "https://shop.example/done", "merchant_webhook_url": e.hookURL}
	for k, v := range identity {
		body[k] = v
	}
	path := "/nft-ramp/merchant/hosted/nftCheckout/order"
	if deposit {
		body["order_fiat_amount"], body["convert_to_crypto_symbol"], body["convert_to_crypto_network"] = "100.00", "ETH", "devnet"
		path = "/deposit/merchant/sdk/on-ramp/order"
	} else {
		body["contractExecution"] = map[string]any{"smartContractFunctionId": e.functionID, "function_args": map[string]any{"to": e.payer.Hex(), "quantity": "1"},
			"payment":        map[string]any{"payableCryptoSymbol": "ETH", "totalValue": rampway.FormatUnits(big.NewInt(devchain.NFTPriceWei), 18)},
			"network_params": map[string]any{"networkName": "devnet"}}
	}
	return call(t, "POST", e.base+path, e.apiKey, body)
}

func (e *stripeEnv) lookup(id string, deposit bool) map[string]any {
	path := "/nft-ramp/merchant/hosted/nftCheckout/order/"
	if deposit {
		path = "/deposit/merchant/sdk/on-ramp/order/"
	}
	return call(e.t, "GET", e.base+path+id, e.apiKey, nil)
}

func (e *stripeEnv) waitFor(id string, deposit bool, what string, cond func(v map[string]any) bool) map[string]any {
	e.t.Helper()
	deadline := time.Now().Add(40 * time.Second)
	for {
		v := e.lookup(id, deposit)
		if cond(v) {
			return v
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("order %s: %v, fiat_payment %v, fiat_movements %v; want %s\n%s", id, v["status"], v["fiat_payment"], v["fiat_movements"], what, e.log())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// openPage is the user opening the order's gateway_url and pressing its start step's button (a
// GET creates nothing at Stripe, nor loads Stripe.js): the payment intent is created, the page
// mounts Stripe's Payment Element; it returns the intent's id, from the lookup.
func (e *stripeEnv) openPage(o map[string]any, deposit bool) string {
	t := e.t
	t.Helper()
	// The configured public URL is not this server's address (port 0): the page is asked here.
	gw := strings.Replace(o["gateway_url"].(string), "http://127.0.0.1:9", e.base, 1)
	res, err := http.Get(gw)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if page := string(body); res.StatusCode != 200 || !strings.Contains(page, `id="start-form"`) || strings.Contains(page, "js.stripe.com") ||
		strings.Contains(res.Header.Get("Content-Security-Policy"), "stripe") || e.lookup(o["order_id"].(string), deposit)["fiat_payment"] != nil {
		t.Fatalf("the page before the start: %d\n%s", res.StatusCode, page)
	}
	devtest.PaymentPage(t, http.DefaultClient, gw)
	// The page opened again: the same intent, read from Stripe.
	res, err = http.Get(gw)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(res.Body)
	res.Body.Close()
	page, csp := string(body), res.Header.Get("Content-Security-Policy")
	if res.StatusCode != 200 || !strings.Contains(page, `id="payment-element"`) || !strings.Contains(page, `<script src="https://js.stripe.com/v3/" defer>`) ||
		!strings.Contains(page, `data-publishable-key="pk_test_rampway"`) || !strings.Contains(page, `data-client-secret="pi_`) {
		t.Fatalf("the page does not mount Stripe's Payment Element: %d\n%s", res.StatusCode, page)
	}
	if !strings.Contains(csp, "script-src 'self' https://js.stripe.com;") || !strings.Contains(csp, "frame-src https://js.stripe.com https://hooks.stripe.com;") ||
		!strings.Contains(csp, "connect-src 'self' https://api.stripe.com;") {
		t.Fatalf("CSP %q", csp)
	}
	v := e.waitFor(o["order_id"].(string), deposit, "a payment intent", func(v map[string]any) bool {
		fp, _ := v["fiat_payment"].(map[string]any)
		return fp != nil && strings.HasPrefix(fmt.Sprint(fp["provider_ref"]), "pi_")
	})
	return v["fiat_payment"].(map[string]any)["provider_ref"].(string)
}

// stripeEvent POSTs a Stripe event about intent pi (status, extra fields) to the provider
// route, signed with secret, and returns the status and answer.
func (e *stripeEnv) stripeEvent(id, typ string, obj map[string]any, secret string) (int, map[string]any) {
	t := e.t
	t.Helper()
	body, _ := json.Marshal(map[string]any{"id": id, "object": "event", "type": typ, "api_version": "2025-01-27.acacia", "created": time.Now().Unix(),
		"data": map[string]any{"object": obj}})
	sp := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: body, Secret: secret})
	req, _ := http.NewRequest(http.MethodPost, e.base+"/providers/stripe/webhook", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Stripe-Signature", sp.Header)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var v map[string]any
	_ = json.NewDecoder(res.Body).Decode(&v)
	return res.StatusCode, v
}

func intent(id, status string, extra map[string]any) map[string]any {
	o := map[string]any{"id": id, "object": "payment_intent", "status": status, "currency": "eur", "capture_method": "manual",
		"payment_method": map[string]any{"id": "pm_1", "object": "payment_method", "type": "card", "card": map[string]any{"brand": "visa", "last4": "4242"}}}
	for k, v := range extra {
		o[k] = v
	}
	return o
}

func movement(v map[string]any, kind string) map[string]any {
	ms, _ := v["fiat_movements"].([]any)
	for _, m := range ms {
		if mm := m.(map[string]any); mm["kind"] == kind {
			return mm
		}
	}
	return nil
}

// Areas B and C on Stripe (stripe-mock for its API, the library's test signing for its
// webhooks): the page mounts the Payment Element; the authorisation Stripe reports executes
// the order and its capture is asked of Stripe; duplicates, a late older event, a bad
// signature and an event of another type change nothing; a failure after authorisation
// cancels the intent, nothing captured.
func TestStripeJourneys(t *testing.T) {
	t.Parallel()
	e := newStripeEnv(t)

	// B2 and C2 list only what Stripe takes: cards, Apple Pay, Google Pay, SEPA Direct Debit.
	for _, path := range []string{"/nft-ramp/merchant/hosted/nftCheckout/fiatCurrencies", "/deposit/merchant/sdk/onramp-to-deposit/fiatCurrencies"} {
		cur := call(t, "GET", e.base+path+"?merchant_id="+e.merchantID, e.apiKey, nil)
		var methods []string
		for _, c := range cur["currencies"].([]any) {
			for _, m := range c.(map[string]any)["paymentOptions"].([]any) {
				methods = append(methods, m.(map[string]any)["id"].(string))
			}
		}
		for _, m := range methods {
			if m != rampway.MethodCard && m != rampway.MethodApplePay && m != rampway.MethodGooglePay && m != rampway.MethodSEPADebit {
				t.Fatalf("%s lists %s with fiat.provider stripe: %v", path, m, methods)
			}
		}
		if len(methods) == 0 {
			t.Fatalf("%s lists no method", path)
		}
	}

	for _, deposit := range []bool{false, true} {
		if deposit {
			call(t, "POST", e.base+"/admin/merchants/"+e.merchantID+"/deposit-addresses", refundAdmin,
				map[string]any{"network": "devnet", "symbol": "ETH", "address": e.payer.Hex()})
		}
		o := e.fiatOrder(deposit, rampway.MethodCard)
		id := o["order_id"].(string)
		pi := e.openPage(o, deposit)

		// A bad signature: 400, nothing applied.
		if code, _ := e.stripeEvent("evt_bad_"+pi, "payment_intent.amount_capturable_updated", intent(pi, "requires_capture", nil), "whsec_wrong"); code != 400 {
			t.Fatalf("a bad signature: %d", code)
		}
		if v := e.lookup(id, deposit); v["status"] != "CREATED" {
			t.Fatalf("order %v after a bad signature", v["status"])
		}
		// Authorised, twice (Stripe retries), then an older event arriving late.
		for i, want := range []bool{false, true} {
			code, ans := e.stripeEvent("evt_auth_"+pi, "payment_intent.amount_capturable_updated", intent(pi, "requires_capture", nil), stripeWebhookSecret)
			if code != 200 || ans["duplicate"] != want {
				t.Fatalf("authorisation, delivery %d: %d %v", i+1, code, ans)
			}
		}
		if code, ans := e.stripeEvent("evt_action_"+pi, "payment_intent.requires_action", intent(pi, "requires_action", nil), stripeWebhookSecret); code != 200 || ans["duplicate"] != false {
			t.Fatalf("a late requires_action: %d %v", code, ans)
		}
		// Of another type: acknowledged, ignored.
		if code, ans := e.stripeEvent("evt_cus_"+pi, "customer.created", map[string]any{"id": "cus_1", "object": "customer"}, stripeWebhookSecret); code != 200 || ans["ignored"] != true {
			t.Fatalf("an event of another type: %d %v", code, ans)
		}
		v := e.waitFor(id, deposit, "SUCCESS, its capture done", func(v map[string]any) bool {
			m := movement(v, "capture")
			return v["status"] == "SUCCESS" && m != nil && m["status"] == "done"
		})
		if fp := v["fiat_payment"].(map[string]any); fp["card_brand"] != "visa" || fp["card_last4"] != "4242" {
			t.Fatalf("fiat_payment %v", fp)
		}
		// Stripe tells the capture: the payment is ours.
		if code, ans := e.stripeEvent("evt_captured_"+pi, "payment_intent.succeeded", intent(pi, "succeeded", map[string]any{"amount_received": 100}),
			stripeWebhookSecret); code != 200 || ans["duplicate"] != false {
			t.Fatalf("succeeded: %d %v", code, ans)
		}
		e.waitFor(id, deposit, "the payment succeeded", func(v map[string]any) bool {
			return v["fiat_payment"].(map[string]any)["status"] == string(rampway.FiatSucceeded)
		})
	}

	// Authorised, then the mint sold out: FAILED, the intent cancelled, nothing captured, and
	// REFUNDED once Stripe says it is cancelled.
	// SEPA Direct Debit: the order waits the bank transfer expiry; Stripe collects the money and
	// reports it arrived (succeeded, captured by Stripe itself): credited, executed, no capture.
	o := e.fiatOrder(false, rampway.MethodSEPADebit)
	id := o["order_id"].(string)
	if exp, _ := time.Parse(time.RFC3339, fmt.Sprint(e.lookup(id, false)["expires_at"])); time.Until(exp) < 71*time.Hour {
		t.Fatalf("a direct debit's order expires at %v", exp)
	}
	pi := e.openPage(o, false)
	minor, _ := rampway.ParseUnits(o["order_fiat_amount"].(string), 2)
	if code, _ := e.stripeEvent("evt_proc_"+pi, "payment_intent.processing", intent(pi, "processing", map[string]any{"capture_method": "automatic"}), stripeWebhookSecret); code != 200 {
		t.Fatalf("processing: %d", code)
	}
	e.waitFor(id, false, "ONRAMP_PROCESSING", func(v map[string]any) bool { return v["status"] == "ONRAMP_PROCESSING" })
	if code, _ := e.stripeEvent("evt_paid_"+pi, "payment_intent.succeeded", intent(pi, "succeeded", map[string]any{"capture_method": "automatic",
		"amount_received": minor.Int64(), "payment_method_types": []string{"sepa_debit"}}), stripeWebhookSecret); code != 200 {
		t.Fatalf("succeeded: %d", code)
	}
	v := e.waitFor(id, false, "SUCCESS", func(v map[string]any) bool { return v["status"] == "SUCCESS" })
	if movement(v, "capture") != nil {
		t.Fatalf("a direct debit captured: %v", v["fiat_movements"])
	}

	// A direct debit whose money arrives after the order expired: refunded through Stripe
	// (a Refund of the intent), and the payment is refunded once Stripe says so
	// (charge.refunded).
	o = e.fiatOrder(false, rampway.MethodSEPADebit)
	id = o["order_id"].(string)
	pi = e.openPage(o, false)
	minor, _ = rampway.ParseUnits(o["order_fiat_amount"].(string), 2)
	e.expire(id)
	e.waitFor(id, false, "EXPIRED", func(v map[string]any) bool { return v["status"] == "EXPIRED" })
	if code, _ := e.stripeEvent("evt_late_"+pi, "payment_intent.succeeded", intent(pi, "succeeded", map[string]any{"capture_method": "automatic",
		"amount_received": minor.Int64(), "payment_method_types": []string{"sepa_debit"}}), stripeWebhookSecret); code != 200 {
		t.Fatalf("a late succeeded: %d", code)
	}
	v = e.waitFor(id, false, "its money refunded", func(v map[string]any) bool {
		m := movement(v, "refund")
		return m != nil && m["status"] == "done"
	})
	if v["status"] != "EXPIRED" || movement(v, "refund")["amount"] != o["order_fiat_amount"] {
		t.Fatalf("a late direct debit: %v, movements %v", v["status"], v["fiat_movements"])
	}
	if code, _ := e.stripeEvent("evt_refunded_"+pi, "charge.refunded", map[string]any{"id": "ch_" + pi, "object": "charge", "payment_intent": pi,
		"refunded": true, "amount": minor.Int64(), "amount_refunded": minor.Int64()}, stripeWebhookSecret); code != 200 {
		t.Fatalf("charge.refunded: %d", code)
	}
	e.waitFor(id, false, "the payment refunded", func(v map[string]any) bool {
		return v["fiat_payment"].(map[string]any)["status"] == string(rampway.FiatRefunded)
	})

	o = e.fiatOrder(false, rampway.MethodCard)
	id = o["order_id"].(string)
	pi = e.openPage(o, false)
	nft := bindings.NewDemoNFT()
	minted := new(big.Int).SetBytes(mustCallView(t, e.c, e.ch.Contracts().NFT, nft.PackTotalMinted()))
	e.ownerSend(e.ch.Contracts().NFT, nft.PackSetMaxSupply(minted))
	if code, _ := e.stripeEvent("evt_auth_"+pi, "payment_intent.amount_capturable_updated", intent(pi, "requires_capture", nil), stripeWebhookSecret); code != 200 {
		t.Fatalf("authorisation: %d", code)
	}
	v = e.waitFor(id, false, "FAILED with its void done", func(v map[string]any) bool {
		m := movement(v, "void")
		return (v["status"] == "FAILED" || v["status"] == "REFUNDED") && m != nil && m["status"] == "done"
	})
	if movement(v, "capture") != nil || !strings.Contains(fmt.Sprint(v["failure_reason"]), "sold out") {
		t.Fatalf("a failed order: %v, movements %v", v["failure_reason"], v["fiat_movements"])
	}
	if code, _ := e.stripeEvent("evt_canceled_"+pi, "payment_intent.canceled", intent(pi, "canceled", nil), stripeWebhookSecret); code != 200 {
		t.Fatalf("canceled: %d", code)
	}
	e.waitFor(id, false, "REFUNDED", func(v map[string]any) bool { return v["status"] == "REFUNDED" })
	e.wantEventsInOrder(id, []rampway.EventName{rampway.EventOnrampSuccess, rampway.EventSmartContractFailure, rampway.EventRefunded})
}

// Issue 29, 1 and 2, in the order Stripe can send them: a card declined on the page and then
// authorised on the same PaymentIntent (the user tried again) is fulfilled, captured and
// minted; a decline Stripe delivers late, after the authorisation, leaves the payment as Stripe
// last left it, not failed.
func TestStripeDeclineThenAuthorised(t *testing.T) {
	t.Parallel()
	e := newStripeEnv(t)
	o := e.fiatOrder(false, rampway.MethodCard)
	id := o["order_id"].(string)
	pi := e.openPage(o, false)
	failed := intent(pi, "requires_payment_method", map[string]any{"last_payment_error": map[string]any{"type": "card_error",
		"code": "card_declined", "message": "Your card was declined."}})
	if code, _ := e.stripeEvent("evt_failed_"+pi, "payment_intent.payment_failed", failed, stripeWebhookSecret); code != 200 {
		t.Fatalf("payment_failed: %d", code)
	}
	e.waitFor(id, false, "CREATED with its payment failed", func(v map[string]any) bool {
		return v["status"] == "CREATED" && v["fiat_payment"].(map[string]any)["status"] == string(rampway.FiatFailed)
	})
	if code, _ := e.stripeEvent("evt_auth_"+pi, "payment_intent.amount_capturable_updated", intent(pi, "requires_capture", nil), stripeWebhookSecret); code != 200 {
		t.Fatalf("authorisation after the decline: %d", code)
	}
	e.waitFor(id, false, "SUCCESS, its capture done", func(v map[string]any) bool {
		m := movement(v, "capture")
		return v["status"] == "SUCCESS" && m != nil && m["status"] == "done"
	})
	// An older decline delivered late (Stripe does not promise an order).
	if code, ans := e.stripeEvent("evt_failed_again_"+pi, "payment_intent.payment_failed", failed, stripeWebhookSecret); code != 200 || ans["duplicate"] != false {
		t.Fatalf("a late payment_failed: %d %v", code, ans)
	}
	v := e.lookup(id, false)
	if fp := v["fiat_payment"].(map[string]any); v["status"] != "SUCCESS" || fp["status"] != string(rampway.FiatAuthorized) || fp["failure_reason"] != nil && fp["failure_reason"] != "" {
		t.Fatalf("after a late decline: %v, payment %v", v["status"], fp)
	}
}
