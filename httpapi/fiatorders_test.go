package httpapi

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/checkout"
	"github.com/rampway/rampway/merchant"
	"github.com/rampway/rampway/provider/sandbox"
)

// Area B through HTTP against the dev chain: B1 creates an order priced as B3 quotes it, the
// lookups show its fiat side, and the sandbox provider's notifications arrive signed at
// /providers/sandbox/webhook.

const (
	fiatOrderPath  = "/nft-ramp" + routeOrder
	fiatOrdersPath = "/nft-ramp" + routeOrders
	sandboxHook    = "/providers/sandbox/webhook"
)

// sandboxTestSecret signs the sandbox's notifications in these tests.
var sandboxTestSecret = []byte("sandbox-test-secret-0123456789abcdef")

// fiatEnv is a mintEnv served with the sandbox payment provider, as rampway dev configures it:
// its pages and the admin bank-transfer route mounted, its notifications addressed to this
// server's /providers/sandbox/webhook.
type fiatEnv struct {
	*mintEnv
	sandbox *sandbox.Provider
}

func newFiatEnv(t *testing.T) *fiatEnv {
	t.Helper()
	e := &fiatEnv{mintEnv: newMintEnv(t)}
	// Listening before it is built, so that the sandbox knows where to send.
	srv := httptest.NewUnstartedServer(nil)
	e.sandbox = sandbox.New(sandbox.Config{BaseURL: "http://" + srv.Listener.Addr().String(), Secret: sandboxTestSecret}, sandbox.NewBooks(e.store, sandbox.Name), nil)
	e.withProviders(e.sandbox)
	srv.Config.Handler = New(testConfig(), Deps{Merchants: e.svc, Functions: e.functions, Checkout: e.checkout, Idempotency: e.store,
		DB: e.ping, Log: slog.New(slog.NewJSONHandler(e.logs, nil)), Metrics: prometheus.NewRegistry(), Providers: []rampway.FiatProvider{e.sandbox}})
	srv.Start()
	t.Cleanup(srv.Close)
	e.srv = srv // newEnv's server, without the provider, is asked nothing more
	return e
}

// rampBody is a valid B1 body: B3's (the native mint of one token, in EUR by card) with the
// order's fields; edit changes it.
func (e *fiatEnv) rampBody(edit func(b map[string]any)) map[string]any {
	b := e.fiatBody(nil)
	b["merchant_user_id"], b["merchant_txn_id"], b["merchant_redirect_url"] = "user-7", "txn-7", "https://shop.example/back"
	if edit != nil {
		edit(b)
	}
	return b
}

// quoteOf is B3's body for the same inputs as the B1 body b.
func quoteOf(b map[string]any) map[string]any {
	q := map[string]any{}
	for _, k := range []string{"merchant_id", "order_fiat_symbol", "fiat_payment_method", "contractExecution"} {
		if v, ok := b[k]; ok {
			q[k] = v
		}
	}
	return q
}

// identity is every user_* field of B1, valid.
func identity() map[string]any {
	return map[string]any{"user_email_id": "ada@example.com", "user_first_name": "Ada", "user_last_name": "Lovelace",
		"user_mobileNumber": "+447700900123", "user_dob": "1990-12-10", "user_addressLine1": "12 Example Street",
		"user_addressLine2": "Flat 3", "user_city": "London", "user_state": "Greater London", "user_postCode": "SW1A 1AA",
		"user_countryCode": "GB"}
}

// rawKeys are the members of a JSON object answer, sorted.
func rawKeys(t *testing.T, body []byte) []string {
	t.Helper()
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	return slices.Sorted(maps.Keys(raw))
}

var fiatOrderKeys = []string{"fiat_payment_method", "gateway_url", "hash", "livemode", "order_fiat_amount", "order_fiat_symbol", "order_id"}

// wantFiatOrder checks B1's 201 answer: exactly the spec's fields and livemode (with info when info is true),
// its order id, hash and gateway_url, the currency and method asked for, and the amount quoted.
func wantFiatOrder(t *testing.T, e *fiatEnv, r resp, symbol, method, amount string, info bool) FiatOrderView {
	t.Helper()
	o := decode[FiatOrderView](t, r, 201)
	keys := slices.Clone(fiatOrderKeys)
	if info {
		keys = append(keys, "info")
	}
	slices.Sort(keys)
	if got := rawKeys(t, r.body); !slices.Equal(got, keys) {
		t.Fatalf("B1 answer has %q, want %q: %s", got, keys, r.body)
	}
	if !regexp.MustCompile(`^ord_[0-9a-hjkmnp-tv-z]{26}$`).MatchString(o.OrderID) || !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(o.Hash) ||
		o.GatewayURL != "https://pay.example/checkout?order_id="+o.OrderID+"&hash="+o.Hash || !e.checkout.CheckHash(o.OrderID, o.Hash) ||
		o.OrderFiatSymbol != symbol || o.FiatPaymentMethod != method || o.OrderFiatAmount != amount {
		t.Fatalf("B1 answer %+v, want %s %s %s", o, amount, symbol, method)
	}
	if info != (o.Info != "") || (info && o.Info != checkout.NoWebhookSecretInfo(false)) {
		t.Fatalf("info %q", o.Info)
	}
	return o
}

// TestCreateFiatOrder: B1 answers 201 with the spec's fields, order_fiat_amount the B3 quote's
// fiat_amount for the same inputs; the lookup under /nft-ramp shows the order's fiat side, and
// no fiat payment before the user pays.
func TestCreateFiatOrder(t *testing.T) {
	t.Parallel()
	e := newFiatEnv(t)
	for _, tc := range []struct {
		name, symbol, method string
		expiry               time.Duration
		edit                 func(b map[string]any)
	}{
		{"EUR card, every user field", "EUR", "credit_debit_card", 30 * time.Minute, func(b map[string]any) { maps.Copy(b, identity()) }},
		{"GBP bank transfer of the token-paid mint", "GBP", "gbp_bank_transfer", checkout.DefaultBankTransferExpiry, func(b map[string]any) {
			b["order_fiat_symbol"], b["fiat_payment_method"] = "GBP", "gbp_bank_transfer"
			x := ex(b)
			x["smartContractFunctionId"] = e.token
			x["function_args"] = map[string]any{"to": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", "quantity": "3"}
			x["payment"] = map[string]any{"payableCryptoSymbol": "DUSD", "payableCryptoContractAddress": e.chain.Contracts().Token.Hex(), "totalValue": "30"}
		}},
		{"USD Cash App, no merchant_txn_id", "USD", "pm_cash_app", 30 * time.Minute, func(b map[string]any) {
			b["order_fiat_symbol"], b["fiat_payment_method"] = "USD", "pm_cash_app"
			delete(b, "merchant_txn_id")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := e.rampBody(tc.edit)
			q := decode[FiatQuoteView](t, e.merchantAPI(http.MethodPost, fiatQuotePath, quoteOf(body)), 200)
			if !q.Allowed || q.FiatAmount == "" {
				t.Fatalf("quote %+v", q)
			}
			before := time.Now()
			o := wantFiatOrder(t, e, e.merchantAPI(http.MethodPost, fiatOrderPath, body), tc.symbol, tc.method, q.FiatAmount, false)

			// The lookup: the order's fiat side, its crypto side as B3 quoted it, no payment yet.
			txn, _ := body["merchant_txn_id"].(string)
			r := e.merchantAPI(http.MethodGet, fiatOrderPath+"/"+o.OrderID, nil)
			got := decode[OrderView](t, r, 200)
			var raw map[string]json.RawMessage
			_ = json.Unmarshal(r.body, &raw)
			if p, ok := raw["fiat_payment"]; ok && string(p) != "null" {
				t.Fatalf("fiat_payment before any payment: %s", p)
			}
			if m := raw["fiat_movements"]; string(m) != "[]" {
				t.Fatalf("fiat_movements before any payment: %s, want []", m)
			}
			if got.OrderID != o.OrderID || got.Status != "CREATED" || got.MerchantID != e.merchant.ID || got.OrderFiatSymbol != tc.symbol ||
				got.OrderFiatAmount != q.FiatAmount || got.FiatPaymentMethod != tc.method || got.FiatPayment != nil ||
				got.CryptoSymbol != q.PayableCryptoSymbol || got.CryptoNetwork != "devnet" || got.CryptoAmount != q.PayableCryptoAmount ||
				got.TotalValue != q.TotalValue || got.CryptoAmountReceived != "0" || got.GatewayURL != o.GatewayURL ||
				got.MerchantUserID != "user-7" || got.MerchantTxnID != txn ||
				got.MerchantRedirectURL != "https://shop.example/back" || got.ExecutionTxHash != nil || got.FailureReason != nil ||
				got.Deposits == nil || len(got.Deposits) != 0 || got.Refunds == nil || len(got.Refunds) != 0 {
				t.Fatalf("lookup %s", r.body)
			}
			if (got.CryptoContractAddress == nil) != (q.PayableCryptoContractAddress == nil) ||
				(got.CryptoContractAddress != nil && *got.CryptoContractAddress != *q.PayableCryptoContractAddress) {
				t.Fatalf("crypto_contract_address %v, quoted %v", got.CryptoContractAddress, q.PayableCryptoContractAddress)
			}
			// The order keeps its quote until it expires (bank transfers wait longer).
			created, _ := time.Parse(rampway.TimeFormat, got.CreatedAt)
			expires, _ := time.Parse(rampway.TimeFormat, got.ExpiresAt)
			if created.Before(before.Add(-time.Second)) || expires.Sub(created) < tc.expiry-time.Second || expires.Sub(created) > tc.expiry+time.Second {
				t.Fatalf("created_at %s, expires_at %s: want %s later", got.CreatedAt, got.ExpiresAt, tc.expiry)
			}
			// The user's e-mail and names are kept with the order, as in area A.
			for _, k := range []string{"user_email_id", "user_first_name", "user_last_name"} {
				if v, ok := body[k]; ok && got.User[k] != v {
					t.Fatalf("user %v lacks %s=%v", got.User, k, v)
				}
			}
		})
	}
}

// TestCreateFiatOrderInfo: merchant_webhook_url while the merchant has no webhook secret: 201
// with info, as A1; with a secret, no info, and the order's events are logged under /nft-ramp.
func TestCreateFiatOrderInfo(t *testing.T) {
	t.Parallel()
	e := newFiatEnv(t)
	hooked := func(b map[string]any) { b["merchant_webhook_url"] = "http://127.0.0.1:9/hooks" }
	q := decode[FiatQuoteView](t, e.merchantAPI(http.MethodPost, fiatQuotePath, e.fiatBody(nil)), 200)
	o := wantFiatOrder(t, e, e.merchantAPI(http.MethodPost, fiatOrderPath, e.rampBody(hooked)), "EUR", "credit_debit_card", q.FiatAmount, true)
	if got := decode[OrderView](t, e.merchantAPI(http.MethodGet, fiatOrderPath+"/"+o.OrderID, nil), 200); got.MerchantWebhookURL != "http://127.0.0.1:9/hooks" {
		t.Fatalf("merchant_webhook_url %q", got.MerchantWebhookURL)
	}
	// Without merchant_webhook_url: no info.
	wantFiatOrder(t, e, e.merchantAPI(http.MethodPost, fiatOrderPath, e.rampBody(nil)), "EUR", "credit_debit_card", q.FiatAmount, false)

	if _, err := e.svc.SetWebhookSecret(t.Context(), e.merchant.ID, false, "", 0); err != nil {
		t.Fatal(err)
	}
	o = wantFiatOrder(t, e, e.merchantAPI(http.MethodPost, fiatOrderPath, e.rampBody(hooked)), "EUR", "credit_debit_card", q.FiatAmount, false)
	logPath := fiatOrderPath + "/" + o.OrderID + "/webhooks"
	l := decode[ListView[DeliveryView]](t, e.merchantAPI(http.MethodGet, logPath, nil), 200)
	if len(l.Data) != 1 || l.Data[0].EventName != "order.created" || l.Data[0].OrderID != o.OrderID || l.Data[0].URL != "http://127.0.0.1:9/hooks" {
		t.Fatalf("webhook log %+v", l)
	}
	resend := logPath + "/" + l.Data[0].EventID + "/resend"
	if d := decode[DeliveryView](t, e.merchantAPI(http.MethodPost, resend, nil), 202); d.EventID != l.Data[0].EventID || d.Status != string(rampway.DeliveryPending) {
		t.Fatalf("resend %+v", d)
	}
	// Area A's routes do not know area B's order.
	mintLog := mintOrderPath + "/" + o.OrderID + "/webhooks"
	wantEnvelope(t, e.merchantAPI(http.MethodGet, mintLog, nil), 404, 404, mintLog, "not found")
	mintResend := mintLog + "/" + l.Data[0].EventID + "/resend"
	wantEnvelope(t, e.merchantAPI(http.MethodPost, mintResend, nil), 404, 404, mintResend, "not found")
}

// TestFiatOrderRequestErrors: what B1 refuses, each with the envelope naming the field or the
// limit; function arguments are HTTP 400 with 403 in the body, as A1; nothing is created.
func TestFiatOrderRequestErrors(t *testing.T) {
	t.Parallel()
	e := newFiatEnv(t)
	other, _ := e.svc.Create(t.Context(), merchant.CreateParams{Name: "Other"})
	tomorrow := time.Now().UTC().Add(24 * time.Hour).Format(time.DateOnly)
	today := time.Now().UTC().Format(time.DateOnly)
	set := func(k string, v any) func(b map[string]any) { return func(b map[string]any) { b[k] = v } }
	del := func(k string) func(b map[string]any) { return func(b map[string]any) { delete(b, k) } }
	for _, tc := range []struct {
		name       string
		edit       func(b map[string]any)
		bodyStatus int
		msg        string
	}{
		// The user_* fields (DESIGN.md "KYC").
		{"email not an address", set("user_email_id", "not-an-email"), 400, "user_email_id must be an e-mail address"},
		{"email with a display name", set("user_email_id", "Ada <ada@example.com>"), 400, "user_email_id must be an e-mail address"},
		{"email too long", set("user_email_id", strings.Repeat("a", 250)+"@x.io"), 400, "user_email_id must be at most 254 characters"},
		{"mobile without plus", set("user_mobileNumber", "447700900123"), 400, "user_mobileNumber must be an international number with its ISD code, plus sign first (E.164)"},
		{"mobile national", set("user_mobileNumber", "07700900123"), 400, "user_mobileNumber must be an international number"},
		{"mobile with spaces", set("user_mobileNumber", "+44 7700 900123"), 400, "user_mobileNumber must be an international number"},
		{"mobile with a leading zero", set("user_mobileNumber", "+0447700900"), 400, "user_mobileNumber must be an international number"},
		{"mobile too short", set("user_mobileNumber", "+44123"), 400, "user_mobileNumber must be an international number"},
		{"mobile with letters", set("user_mobileNumber", "+44770090012a"), 400, "user_mobileNumber must be an international number"},
		{"mobile too long", set("user_mobileNumber", "+"+strings.Repeat("4", 20)), 400, "user_mobileNumber must be at most 20 characters"},
		{"dob day first", set("user_dob", "10-12-1990"), 400, "user_dob must be a date written yyyy-mm-dd"},
		{"dob with slashes", set("user_dob", "1990/12/10"), 400, "user_dob must be a date written yyyy-mm-dd"},
		{"dob without zeros", set("user_dob", "1990-2-1"), 400, "user_dob must be a date written yyyy-mm-dd"},
		{"dob not a date", set("user_dob", "1990-02-30"), 400, "user_dob must be a date written yyyy-mm-dd"},
		{"dob with a time", set("user_dob", "1990-12-10T00:00:00Z"), 400, "user_dob must be at most 10 characters"},
		{"dob in the future", set("user_dob", tomorrow), 400, "user_dob must be in the past"},
		{"dob today", set("user_dob", today), 400, "user_dob must be in the past"},
		{"dob before 1900", set("user_dob", "1899-12-31"), 400, "user_dob must be after 1900"},
		{"country lowercase", set("user_countryCode", "gb"), 400, "user_countryCode must be an ISO 3166-1 alpha-2 country code in capitals, such as DE"},
		{"country mixed case", set("user_countryCode", "Gb"), 400, "user_countryCode must be an ISO 3166-1 alpha-2 country code"},
		{"country alpha-3", set("user_countryCode", "GBR"), 400, "user_countryCode must be at most 2 characters"},
		{"country a name", set("user_countryCode", "Germany"), 400, "user_countryCode must be at most 2 characters"},
		{"country not a country", set("user_countryCode", "EU"), 400, "user_countryCode must be an ISO 3166-1 alpha-2 country code"},
		{"country unknown", set("user_countryCode", "ZZ"), 400, "user_countryCode must be an ISO 3166-1 alpha-2 country code"},
		{"country private use", set("user_countryCode", "QO"), 400, "user_countryCode must be an ISO 3166-1 alpha-2 country code"},
		{"country digits", set("user_countryCode", "12"), 400, "user_countryCode must be an ISO 3166-1 alpha-2 country code"},
		{"post code with symbols", set("user_postCode", "SW1A_1AA"), 400, "user_postCode must be letters, digits, spaces and hyphens"},
		{"post code starting with a space", set("user_postCode", " 10115"), 400, "user_postCode must be letters, digits, spaces and hyphens"},
		{"post code too long", set("user_postCode", strings.Repeat("1", 21)), 400, "user_postCode must be at most 20 characters"},
		{"first name too long", set("user_first_name", strings.Repeat("n", 101)), 400, "user_first_name must be at most 100 characters"},
		{"last name too long", set("user_last_name", strings.Repeat("n", 101)), 400, "user_last_name must be at most 100 characters"},
		{"address line 1 too long", set("user_addressLine1", strings.Repeat("a", 201)), 400, "user_addressLine1 must be at most 200 characters"},
		{"address line 2 too long", set("user_addressLine2", strings.Repeat("a", 201)), 400, "user_addressLine2 must be at most 200 characters"},
		{"city too long", set("user_city", strings.Repeat("c", 101)), 400, "user_city must be at most 100 characters"},
		{"state too long", set("user_state", strings.Repeat("s", 101)), 400, "user_state must be at most 100 characters"},

		// The currency and the method.
		{"unknown currency", set("order_fiat_symbol", "JPY"), 400, "order_fiat_symbol JPY is not a supported currency"},
		{"currency lowercase", set("order_fiat_symbol", "eur"), 400, "order_fiat_symbol eur is not a supported currency"},
		{"currency missing", del("order_fiat_symbol"), 400, "order_fiat_symbol is required"},
		{"currency empty", set("order_fiat_symbol", ""), 400, "order_fiat_symbol is required"},
		{"method of another currency", set("fiat_payment_method", "gbp_bank_transfer"), 400, "fiat_payment_method gbp_bank_transfer is not available for EUR"},
		{"method of another currency (USD)", set("fiat_payment_method", "pm_cash_app"), 400, "fiat_payment_method pm_cash_app is not available for EUR"},
		{"unknown method", set("fiat_payment_method", "pm_nope"), 400, "fiat_payment_method pm_nope is not available for EUR"},
		{"method missing", del("fiat_payment_method"), 400, "fiat_payment_method is required"},

		// The order's own fields.
		{"merchant_user_id missing", del("merchant_user_id"), 400, "merchant_user_id is required"},
		{"merchant_user_id too long", set("merchant_user_id", strings.Repeat("u", 257)), 400, "merchant_user_id must be at most 256 characters"},
		{"merchant_txn_id too long", set("merchant_txn_id", strings.Repeat("t", 257)), 400, "merchant_txn_id must be at most 256 characters"},
		{"redirect missing", del("merchant_redirect_url"), 400, "merchant_redirect_url is required"},
		{"redirect relative", set("merchant_redirect_url", "shop/back"), 400, "merchant_redirect_url must be an absolute http(s) URL"},
		{"webhook not http", set("merchant_webhook_url", "ftp://x"), 400, "merchant_webhook_url must be an absolute http(s) URL"},
		{"webhook with credentials", set("merchant_webhook_url", "https://u:p@shop.example/hook"), 400, "merchant_webhook_url must not carry credentials"},
		{"merchant_id missing", del("merchant_id"), 400, "merchant_id is required"},

		// The contractExecution, as A1 checks it.
		{"no contractExecution", del("contractExecution"), 400, "contractExecution is required"},
		{"no function_args", func(b map[string]any) { delete(ex(b), "function_args") }, 400, "contractExecution.function_args is required"},
		{"no network_params", func(b map[string]any) { delete(ex(b), "network_params") }, 400, "contractExecution.network_params is required"},
		{"no networkName", func(b map[string]any) { ex(b)["network_params"] = map[string]any{} }, 400, "networkName is required"},
		{"payment missing", func(b map[string]any) { delete(ex(b), "payment") }, 400, "contractExecution.payment is required"},
		{"unknown function", func(b map[string]any) { ex(b)["smartContractFunctionId"] = "scf_nope" }, 400, `smartContractFunctionId "scf_nope" is not a registered function`},
		{"payable asset invalid", func(b map[string]any) { payment(b)["payableCryptoSymbol"] = "BTC" }, 400, "payableCryptoSymbol BTC is not valid for network devnet"},
		{"unknown network", func(b map[string]any) { ex(b)["network_params"] = map[string]any{"networkName": "mainnet"} }, 400, `networkName "mainnet" is not a supported network`},
		{"totalValue not a number", func(b map[string]any) { payment(b)["totalValue"] = "abc" }, 400, "totalValue must be a positive decimal"},
		{"bad gas limit", func(b map[string]any) {
			ex(b)["network_params"] = map[string]any{"networkName": "devnet", "customGasLimit": "lots"}
		}, 400, "customGasLimit must be a whole number"},
		{"too few args", func(b map[string]any) {
			ex(b)["function_args"] = map[string]any{"to": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"}
		}, 403, "Function arguments are not valid: 2 arguments required, 1 given"},
		{"too many args", func(b map[string]any) {
			ex(b)["function_args"] = map[string]any{"to": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", "quantity": "1", "extra": "1"}
		}, 403, "Function arguments are not valid: 2 arguments required, 3 given"},
		{"arg of wrong type", func(b map[string]any) {
			ex(b)["function_args"] = map[string]any{"to": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", "quantity": "many"}
		}, 403, "Function arguments are not valid: argument 'quantity' must be of type uint256"},
		{"address arg of wrong type", func(b map[string]any) {
			ex(b)["function_args"] = map[string]any{"to": "nobody", "quantity": "1"}
		}, 403, "Function arguments are not valid: argument 'to' must be of type address"},

		// What the quote does not allow: refused, naming the limit or the reason.
		{"below the minimum", func(b map[string]any) {
			ex(b)["smartContractFunctionId"] = e.free
			delete(ex(b), "payment")
		}, 400, "Minimum buy amount is 20 EUR"},
		{"above the maximum", func(b map[string]any) {
			x := ex(b)
			x["function_args"] = map[string]any{"to": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", "quantity": "400"}
			x["payment"] = map[string]any{"payableCryptoSymbol": "ETH", "totalValue": "4"}
			x["network_params"] = map[string]any{"networkName": "devnet", "customGasLimit": "20000000"}
		}, 400, "Please place an order below 10000 EUR"},
		{"would revert", func(b map[string]any) { payment(b)["totalValue"] = "0.02" }, 400, "The smart-contract call would fail"},

		// Wrong JSON types, named.
		{"currency a number", set("order_fiat_symbol", 978), 400, "Field 'order_fiat_symbol' must be a string, not a number"},
		{"method an array", set("fiat_payment_method", []string{"credit_debit_card"}), 400, "Field 'fiat_payment_method' must be a string, not an array"},
		{"dob a number", set("user_dob", 19901210), 400, "Field 'user_dob' must be a string, not a number"},
		{"mobile a number", set("user_mobileNumber", 447700900123), 400, "Field 'user_mobileNumber' must be a string, not a number"},
		{"country a boolean", set("user_countryCode", true), 400, "Field 'user_countryCode' must be a string, not a boolean"},
		{"contractExecution a string", set("contractExecution", "x"), 400, "Field 'contractExecution' must be an object, not a string"},
		{"totalValue a number", func(b map[string]any) { payment(b)["totalValue"] = 0.01 }, 400, "Field 'contractExecution.payment.totalValue' must be a string"},
		{"merchant_id a number", set("merchant_id", 7), 400, "Field 'merchant_id' must be a string, not a number"},

		// Another merchant's id, or no merchant's.
		{"another merchant's merchant_id", set("merchant_id", other.ID), 401, "Unauthorized"},
		{"unknown merchant_id", set("merchant_id", "mch_00000000000000000000000000"), 401, "Unauthorized"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status := 400
			if tc.bodyStatus == 401 {
				status = 401
			}
			b := wantEnvelope(t, e.merchantAPI(http.MethodPost, fiatOrderPath, e.rampBody(tc.edit)), status, tc.bodyStatus, fiatOrderPath, tc.msg)
			if tc.bodyStatus == 401 && b.Message != "Unauthorized" {
				t.Fatalf("message %q, want exactly Unauthorized", b.Message)
			}
		})
	}
	// Keys and bodies that are not one JSON object: TestFiatOrderHTTP.
	// A refused request creates nothing.
	if page := decode[ListView[OrderView]](t, e.merchantAPI(http.MethodGet, fiatOrdersPath, nil), 200); len(page.Data) != 0 {
		t.Fatalf("%d orders stored by refused requests", len(page.Data))
	}
	// And the same body, corrected, is an order.
	decode[FiatOrderView](t, e.merchantAPI(http.MethodPost, fiatOrderPath, e.rampBody(func(b map[string]any) { maps.Copy(b, identity()) })), 201)
}

// TestFiatOrderCountryCodes: user_countryCode takes the ISO 3166-1 alpha-2 codes in use, and
// no other. Known bug, reported, skipped below until fixed: checkout.checkIdentity asks
// golang.org/x/text/language, whose regions also hold codes that are not assigned ISO 3166-1
// alpha-2 codes (UK, which merchants write for GB; the withdrawn SU, YU, DD, ZR, TP, AN, CS,
// BU, NT, FX; CLDR's UN and EZ; the reserved AC, TA, IC, EA, CP, DG, CQ), and takes them.
func TestFiatOrderCountryCodes(t *testing.T) {
	t.Parallel()
	e := newFiatEnv(t)
	for _, c := range []string{"GB", "DE", "FR", "US", "IE", "CH", "NO", "JP", "BR", "ZA"} {
		r := e.merchantAPI(http.MethodPost, fiatOrderPath, e.rampBody(func(b map[string]any) { b["user_countryCode"] = c }))
		if r.status != 201 {
			t.Fatalf("user_countryCode %s: %d %s", c, r.status, r.body)
		}
	}
	t.Run("not assigned", func(t *testing.T) {
		for _, c := range []string{"UK", "SU", "YU", "DD", "ZR", "TP", "AN", "CS", "BU", "NT", "FX", "UN", "EZ", "AC", "TA", "IC", "EA", "CP", "DG", "CQ"} {
			wantEnvelope(t, e.merchantAPI(http.MethodPost, fiatOrderPath, e.rampBody(func(b map[string]any) { b["user_countryCode"] = c })),
				400, 400, fiatOrderPath, "user_countryCode must be an ISO 3166-1 alpha-2 country code")
		}
	})
}

// TestFiatOrderIdempotency: the same Idempotency-Key and body replays the first answer byte
// for byte and creates nothing; another body under the same key is 422.
func TestFiatOrderIdempotency(t *testing.T) {
	t.Parallel()
	e := newFiatEnv(t)
	send := func(key string, body map[string]any) resp {
		data, _ := json.Marshal(body)
		return e.do(http.MethodPost, fiatOrderPath, string(data), map[string]string{"X-API-KEY": e.key, "Idempotency-Key": key, "Content-Type": "application/json"})
	}
	body := e.rampBody(func(b map[string]any) { maps.Copy(b, identity()) })
	first := send("fiat-1", body)
	o := decode[FiatOrderView](t, first, 201)
	again := send("fiat-1", body)
	if again.status != 201 || !bytes.Equal(again.body, first.body) || again.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay %d %s (Idempotent-Replayed %q), first %s", again.status, again.body, again.header.Get("Idempotent-Replayed"), first.body)
	}
	page := decode[ListView[OrderView]](t, e.merchantAPI(http.MethodGet, fiatOrdersPath, nil), 200)
	if len(page.Data) != 1 || page.Data[0].OrderID != o.OrderID {
		t.Fatalf("%d orders after a replay, want 1", len(page.Data))
	}
	for name, edit := range map[string]func(b map[string]any){
		"another txn id":   func(b map[string]any) { b["merchant_txn_id"] = "txn-8" },
		"another currency": func(b map[string]any) { b["order_fiat_symbol"] = "GBP" },
		"another user":     func(b map[string]any) { b["user_dob"] = "1990-12-11" },
	} {
		t.Run(name, func(t *testing.T) {
			other := e.rampBody(func(b map[string]any) { maps.Copy(b, identity()); edit(b) })
			wantEnvelope(t, send("fiat-1", other), 422, 422, fiatOrderPath, `Idempotency-Key "fiat-1" was already used with a different request`)
		})
	}
	// The same key on area A's path is another request too.
	data, _ := json.Marshal(body)
	r := e.do(http.MethodPost, mintOrderPath, string(data), map[string]string{"X-API-KEY": e.key, "Idempotency-Key": "fiat-1"})
	wantEnvelope(t, r, 422, 422, mintOrderPath, "was already used with a different request")
	// A refused request is not remembered: corrected, it goes through under the same key.
	bad := e.rampBody(func(b map[string]any) { b["user_countryCode"] = "gb" })
	wantEnvelope(t, send("fiat-2", bad), 400, 400, fiatOrderPath, "user_countryCode")
	o2 := decode[FiatOrderView](t, send("fiat-2", body), 201)
	if o2.OrderID == o.OrderID {
		t.Fatal("a new key replayed the old order")
	}
}

// TestFiatOrderLookups: under /nft-ramp an area B order is found, listed by status and a page
// at a time; under /mint, or for another merchant, it is 404; area A's are not in B's list.
func TestFiatOrderLookups(t *testing.T) {
	t.Parallel()
	e := newFiatEnv(t)
	var ids []string // oldest first
	for i := range 3 {
		o := decode[FiatOrderView](t, e.merchantAPI(http.MethodPost, fiatOrderPath, e.rampBody(func(b map[string]any) {
			b["merchant_txn_id"] = "txn-" + string(rune('a'+i))
		})), 201)
		ids = append(ids, o.OrderID)
	}
	mint := decode[MintOrderView](t, e.merchantAPI(http.MethodPost, mintOrderPath, e.body(nil)), 201)
	// The second order is cancelled by its user.
	if _, err := e.checkout.Cancel(t.Context(), ids[1]); err != nil {
		t.Fatal(err)
	}

	p := fiatOrderPath + "/" + ids[0]
	if got := decode[OrderView](t, e.merchantAPI(http.MethodGet, p, nil), 200); got.OrderID != ids[0] || got.MerchantTxnID != "txn-a" {
		t.Fatalf("lookup %+v", got)
	}
	if got := decode[OrderView](t, e.merchantAPI(http.MethodGet, p+"?merchant_id="+e.merchant.ID, nil), 200); got.OrderID != ids[0] {
		t.Fatalf("lookup with merchant_id %+v", got)
	}
	wantEnvelope(t, e.merchantAPI(http.MethodGet, p+"?merchant_id=mch_00000000000000000000000000", nil), 401, 401, p, "Unauthorized")
	// Another area, another merchant, an unknown id: 404, the same message.
	mp := mintOrderPath + "/" + ids[0]
	wantEnvelope(t, e.merchantAPI(http.MethodGet, mp, nil), 404, 404, mp, `Order "`+ids[0]+`" not found`)
	ap := fiatOrderPath + "/" + mint.OrderID
	wantEnvelope(t, e.merchantAPI(http.MethodGet, ap, nil), 404, 404, ap, `Order "`+mint.OrderID+`" not found`)
	if got := decode[OrderView](t, e.merchantAPI(http.MethodGet, mintOrderPath+"/"+mint.OrderID, nil), 200); got.OrderFiatSymbol != "" || got.FiatPayment != nil || got.FiatMovements != nil {
		t.Fatalf("area A lookup with fiat fields %+v", got)
	}
	other, _ := e.svc.Create(t.Context(), merchant.CreateParams{Name: "Other"})
	_, otherKey, _ := e.svc.IssueAPIKey(t.Context(), other.ID, false)
	wantEnvelope(t, e.do(http.MethodGet, p, nil, map[string]string{"X-API-KEY": otherKey}), 404, 404, p, `Order "`+ids[0]+`" not found`)
	wantEnvelope(t, e.do(http.MethodGet, p, nil, nil), 401, 401, p, "Unauthorized")
	np := fiatOrderPath + "/ord_nope"
	wantEnvelope(t, e.merchantAPI(http.MethodGet, np, nil), 404, 404, np, `Order "ord_nope" not found`)
	// The other merchant's list is empty.
	if page := decode[ListView[OrderView]](t, e.do(http.MethodGet, fiatOrdersPath, nil, map[string]string{"X-API-KEY": otherKey}), 200); len(page.Data) != 0 {
		t.Fatalf("another merchant's list %+v", page)
	}

	list := func(query string) ListView[OrderView] {
		t.Helper()
		return decode[ListView[OrderView]](t, e.merchantAPI(http.MethodGet, fiatOrdersPath+query, nil), 200)
	}
	idsOf := func(l ListView[OrderView]) []string {
		var out []string
		for _, o := range l.Data {
			out = append(out, o.OrderID)
			if o.OrderFiatSymbol != "EUR" || o.FiatPaymentMethod != "credit_debit_card" || o.OrderFiatAmount == "" {
				t.Fatalf("listed without its fiat side: %+v", o)
			}
		}
		return out
	}
	// Newest first, area B only.
	if l := list(""); !slices.Equal(idsOf(l), []string{ids[2], ids[1], ids[0]}) || l.HasMore {
		t.Fatalf("list %v (has_more %v), want %v", idsOf(l), l.HasMore, []string{ids[2], ids[1], ids[0]})
	}
	// By status.
	if l := list("?status=CREATED"); !slices.Equal(idsOf(l), []string{ids[2], ids[0]}) {
		t.Fatalf("CREATED: %v", idsOf(l))
	}
	if l := list("?status=CANCELLED"); !slices.Equal(idsOf(l), []string{ids[1]}) || l.Data[0].Status != "CANCELLED" {
		t.Fatalf("CANCELLED: %+v", l)
	}
	if l := list("?status=ONRAMP_SUCCESS"); len(l.Data) != 0 || l.HasMore {
		t.Fatalf("ONRAMP_SUCCESS: %+v", l)
	}
	// A page at a time.
	l := list("?limit=2")
	if !slices.Equal(idsOf(l), []string{ids[2], ids[1]}) || !l.HasMore {
		t.Fatalf("page 1: %v, has_more %v", idsOf(l), l.HasMore)
	}
	l = list("?limit=2&starting_after=" + ids[1])
	if !slices.Equal(idsOf(l), []string{ids[0]}) || l.HasMore {
		t.Fatalf("page 2: %v, has_more %v", idsOf(l), l.HasMore)
	}
	if l := list("?limit=1&status=CREATED&starting_after=" + ids[2]); !slices.Equal(idsOf(l), []string{ids[0]}) || l.HasMore {
		t.Fatalf("CREATED page 2: %v", idsOf(l))
	}
	// Area A's order is neither listed nor a cursor here; area B's are not in A's list.
	wantEnvelope(t, e.merchantAPI(http.MethodGet, fiatOrdersPath+"?starting_after="+mint.OrderID, nil), 400, 400, fiatOrdersPath,
		"starting_after must be the order_id of one of your orders")
	if l := decode[ListView[OrderView]](t, e.merchantAPI(http.MethodGet, "/mint"+routeOrders, nil), 200); len(l.Data) != 1 || l.Data[0].OrderID != mint.OrderID {
		t.Fatalf("area A list %+v", l)
	}
	wantEnvelope(t, e.merchantAPI(http.MethodGet, fiatOrdersPath+"?status=PAID", nil), 400, 400, fiatOrdersPath, `status "PAID" is not an order status`)
	wantEnvelope(t, e.merchantAPI(http.MethodGet, fiatOrdersPath+"?limit=0", nil), 400, 400, fiatOrdersPath, "limit must be an integer between 1 and 100")
	wantEnvelope(t, e.merchantAPI(http.MethodGet, fiatOrdersPath+"?created_to=tomorrow", nil), 400, 400, fiatOrdersPath, "created_to must be an ISO-8601 time")
}

// TestFiatOrderPaidByBankTransfer: the user's bank transfer, told to the sandbox through the
// admin API, reaches the order through the sandbox's signed notification: the lookup shows the
// payment (with its reference) and the order in ONRAMP_SUCCESS. A notification applied twice
// counts once.
func TestFiatOrderPaidByBankTransfer(t *testing.T) {
	t.Parallel()
	e := newFiatEnv(t)
	o := decode[FiatOrderView](t, e.merchantAPI(http.MethodPost, fiatOrderPath, e.rampBody(func(b map[string]any) {
		b["fiat_payment_method"] = "sepa_bank_transfer"
	})), 201)
	// The user chooses to pay on the page: the payment is started at the sandbox.
	ord, err := e.checkout.Order(t.Context(), rampway.AdminScope(e.merchant.ID), rampway.AreaNFTRamp, o.OrderID)
	if err != nil {
		t.Fatal(err)
	}
	started, err := e.checkout.StartFiatPayment(t.Context(), ord, o.GatewayURL)
	if err != nil {
		t.Fatal(err)
	}
	p := fiatOrderPath + "/" + o.OrderID
	got := decode[OrderView](t, e.merchantAPI(http.MethodGet, p, nil), 200)
	fp := got.FiatPayment
	if got.Status != "CREATED" || fp == nil || fp.Method != "sepa_bank_transfer" || fp.Status != "pending" || fp.Amount != o.OrderFiatAmount ||
		fp.Currency != "EUR" || fp.Reference != started.Reference || !strings.HasPrefix(fp.Reference, "RW-") || fp.CardBrand != "" ||
		!timestampRE.MatchString(fp.CreatedAt) {
		t.Fatalf("lookup after the payment started: %+v, payment %+v", got, fp)
	}

	// The admin route: refused requests first.
	bt := "/admin/sandbox/bank-transfers"
	for _, tc := range []struct {
		name   string
		body   any
		status int
		msg    string
	}{
		{"no reference", map[string]any{"amount": "1", "currency": "EUR"}, 400, "reference is required"},
		{"no amount", map[string]any{"reference": started.Reference, "currency": "EUR"}, 400, "amount is required"},
		{"no currency", map[string]any{"reference": started.Reference, "amount": "1"}, 400, "currency is required"},
		{"empty amount", map[string]any{"reference": started.Reference, "amount": "", "currency": "EUR"}, 400, "amount is required"},
		{"unknown reference", map[string]any{"reference": "RW-NOPE", "amount": "1", "currency": "EUR"}, 404, `no bank transfer payment has the reference "RW-NOPE"`},
		{"another currency", map[string]any{"reference": started.Reference, "amount": "1", "currency": "GBP"}, 400, "currency must be EUR, the payment's"},
		{"negative amount", map[string]any{"reference": started.Reference, "amount": "-1", "currency": "EUR"}, 400, "amount must be a positive decimal with at most 2 decimals"},
		{"too precise", map[string]any{"reference": started.Reference, "amount": "1.001", "currency": "EUR"}, 400, "amount must be a positive decimal with at most 2 decimals"},
		{"amount a number", map[string]any{"reference": started.Reference, "amount": 1, "currency": "EUR"}, 400, "Field 'amount' must be a string, not a number"},
		{"unknown field", map[string]any{"reference": started.Reference, "amount": "1", "currency": "EUR", "iban": "x"}, 400, "Unknown field 'iban'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantEnvelope(t, e.admin(http.MethodPost, "/sandbox/bank-transfers", tc.body), tc.status, tc.status, bt, tc.msg)
		})
	}
	wantEnvelope(t, e.do(http.MethodPost, bt, map[string]any{"reference": started.Reference, "amount": o.OrderFiatAmount, "currency": "EUR"},
		map[string]string{"X-API-KEY": e.key}), 401, 401, bt, "Unauthorized")
	if evs, _ := sandbox.NewBooks(e.store, sandbox.Name).SandboxDueEvents(t.Context(), time.Now().Add(time.Hour), 10); len(evs) != 0 {
		t.Fatalf("refused transfers sent %d notifications", len(evs))
	}

	// The transfer arrives.
	r := e.admin(http.MethodPost, "/sandbox/bank-transfers", map[string]any{"reference": started.Reference, "amount": o.OrderFiatAmount, "currency": "EUR"})
	credit := decode[sandbox.BankTransferView](t, r, 201)
	if !strings.HasPrefix(credit.Credit, "sbc_") || credit.Reference != started.Reference || credit.Amount != o.OrderFiatAmount || credit.Currency != "EUR" {
		t.Fatalf("bank transfer %s", r.body)
	}
	if got := rawKeys(t, r.body); !slices.Equal(got, []string{"amount", "credit_id", "currency", "reference"}) {
		t.Fatalf("bank transfer answer %s", r.body)
	}
	// Not yet told to rampway: the order is unchanged.
	if got := decode[OrderView](t, e.merchantAPI(http.MethodGet, p, nil), 200); got.Status != "CREATED" || got.FiatPayment.Status != "pending" {
		t.Fatalf("before the notification: %+v", got)
	}

	// The sandbox's notification, as it sends it: signed, to the webhook route.
	evs, err := sandbox.NewBooks(e.store, sandbox.Name).SandboxDueEvents(t.Context(), time.Now().Add(time.Hour), 10)
	if err != nil || len(evs) != 1 {
		t.Fatalf("%d notifications due (%v), want the credit", len(evs), err)
	}
	notify := func(body []byte, sig string) resp {
		return e.do(http.MethodPost, sandboxHook, string(body), map[string]string{sandbox.SignatureHeader: sig})
	}
	body := evs[0].Body
	// Tampered or unsigned: 400, nothing applied.
	tampered := bytes.Replace(body, []byte(`"amount":"`), []byte(`"amount":"9`), 1)
	for _, tc := range []struct {
		name, sig, msg string
		body           []byte
	}{
		{"no signature", "", "sandbox webhook: missing or malformed Sandbox-Signature header", body},
		{"wrong secret", sandbox.Sign([]byte("another secret"), body, time.Now()), "sandbox webhook: no valid signature", body},
		{"tampered body", sandbox.Sign(sandboxTestSecret, body, time.Now()) /* the genuine body's */, "sandbox webhook: no valid signature", tampered},
		{"too old", sandbox.Sign(sandboxTestSecret, body, time.Now().Add(-sandbox.Tolerance-time.Minute)), "sandbox webhook: the signature's timestamp is outside the tolerance", body},
		{"from the future", sandbox.Sign(sandboxTestSecret, body, time.Now().Add(sandbox.Tolerance+time.Minute)), "outside the tolerance", body},
		{"malformed header", "v1=00,t=soon", "sandbox webhook: missing or malformed Sandbox-Signature header", body},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantEnvelope(t, notify(tc.body, tc.sig), 400, 400, sandboxHook, tc.msg)
		})
	}
	if got := decode[OrderView](t, e.merchantAPI(http.MethodGet, p, nil), 200); got.Status != "CREATED" || got.FiatPayment.Status != "pending" {
		t.Fatalf("after refused notifications: %+v", got)
	}

	// Genuine: applied once; the same event again is a duplicate.
	for i, want := range []string{`{"duplicate":false,"ignored":false,"received":true}`, `{"duplicate":true,"ignored":false,"received":true}`} {
		r := notify(body, sandbox.Sign(sandboxTestSecret, body, time.Now()))
		if r.status != 200 || strings.TrimSpace(string(r.body)) != want || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
			t.Fatalf("notification %d: %d %s, want 200 %s", i+1, r.status, r.body, want)
		}
	}
	// The sandbox sends it too (its books do not know it arrived): received, a duplicate.
	if n, err := e.sandbox.Deliver(t.Context()); n != 1 || err != nil {
		t.Fatalf("sandbox delivered %d (%v)", n, err)
	}
	got = decode[OrderView](t, e.merchantAPI(http.MethodGet, p, nil), 200)
	if got.Status != "ONRAMP_SUCCESS" || got.FiatPayment == nil || got.FiatPayment.Status != "succeeded" || got.FiatPayment.Amount != o.OrderFiatAmount ||
		got.FiatPayment.Reference != started.Reference || got.OrderFiatAmount != o.OrderFiatAmount {
		t.Fatalf("after the credit: %+v, payment %+v", got, got.FiatPayment)
	}
	if l := decode[ListView[OrderView]](t, e.merchantAPI(http.MethodGet, fiatOrdersPath+"?status=ONRAMP_SUCCESS", nil), 200); len(l.Data) != 1 || l.Data[0].OrderID != o.OrderID {
		t.Fatalf("ONRAMP_SUCCESS list %+v", l)
	}
}

// TestProviderWebhookRoute: a provider that is not configured is 404; a signed notification for
// a payment rampway never started is acknowledged and ignored; the route takes POST only.
func TestProviderWebhookRoute(t *testing.T) {
	t.Parallel()
	e := newFiatEnv(t)
	body := []byte(`{"id":"sbe_x","type":"payment.updated","data":{"payment":{"id":"sbp_nope","status":"processing"}}}`)
	sig := sandbox.Sign(sandboxTestSecret, body, time.Now())
	for _, name := range []string{"stripe", "Sandbox", "nope"} {
		path := "/providers/" + name + "/webhook"
		wantEnvelope(t, e.do(http.MethodPost, path, string(body), map[string]string{sandbox.SignatureHeader: sig}), 404, 404, path,
			`no payment provider "`+name+`" is configured`)
	}
	// Signed, about a payment never started here: acknowledged and ignored (or sent for ever).
	if r := e.do(http.MethodPost, sandboxHook, string(body), map[string]string{sandbox.SignatureHeader: sig}); r.status != 200 ||
		strings.TrimSpace(string(r.body)) != `{"duplicate":false,"ignored":true,"received":true}` {
		t.Fatalf("unknown payment: %d %s", r.status, r.body)
	}
	wantEnvelope(t, e.do(http.MethodPost, sandboxHook, `{"id":"x"}`, map[string]string{sandbox.SignatureHeader: sandbox.Sign(sandboxTestSecret, []byte(`{"id":"x"}`), time.Now())}),
		400, 400, sandboxHook, "sandbox webhook: malformed notification")
	wantEnvelope(t, e.do(http.MethodPost, sandboxHook, "not json", map[string]string{sandbox.SignatureHeader: "t=1,v1=00"}), 400, 400, sandboxHook, "sandbox webhook:")
	r := e.do(http.MethodGet, sandboxHook, nil, nil)
	wantEnvelope(t, r, 405, 405, sandboxHook, "Method GET is not allowed")
	big := strings.Repeat("x", maxProviderWebhook+1)
	wantEnvelope(t, e.do(http.MethodPost, sandboxHook, big, map[string]string{sandbox.SignatureHeader: sig}), 413, 413, sandboxHook, "larger than")

	// Without a provider configured (newEnv's server), the sandbox is unknown too.
	plain := newEnv(t)
	wantEnvelope(t, plain.do(http.MethodPost, sandboxHook, string(body), map[string]string{sandbox.SignatureHeader: sig}), 404, 404, sandboxHook,
		`no payment provider "sandbox" is configured`)
	wantEnvelope(t, plain.admin(http.MethodPost, "/sandbox/bank-transfers", map[string]any{"reference": "RW-X", "amount": "1", "currency": "EUR"}),
		404, 404, "/admin/sandbox/bank-transfers", "Cannot POST /admin/sandbox/bank-transfers")
}
