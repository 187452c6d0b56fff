package httpapi

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"maps"
	"math/big"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/shopspring/decimal"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain/devchain/devchaintest"
	"github.com/rampway/rampway/checkout"
	"github.com/rampway/rampway/merchant"
	"github.com/rampway/rampway/provider/sandbox"
)

// Area C through HTTP against the dev chain: C1 creates an order that converts the user's fiat
// amount into an asset sent to the merchant's deposit address (onboarded through the admin
// API), quoted the reverse of B3; the lookups under /deposit show it.

const (
	depositOrderPath  = "/deposit" + routeOnRampOrder
	depositOrdersPath = "/deposit" + routeOnRampOrders
)

// The test merchant's deposit addresses: accounts of nobody here (not the payer, the hot
// wallet or a contract), so a plain transfer to them needs no simulation of their code.
var (
	payoutETH  = common.HexToAddress("0x90F79bf6EB2c4f870365E785982E1f101E93b906")
	payoutDUSD = common.HexToAddress("0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65")
)

// depositEnv is a fiatEnv whose server also onboards deposit addresses (as the app wires it),
// and whose merchant has one for ETH and one for DUSD on devnet, set through the admin route.
type depositEnv struct {
	*fiatEnv
}

func newDepositEnv(t *testing.T) *depositEnv {
	t.Helper()
	e := &depositEnv{fiatEnv: &fiatEnv{mintEnv: newMintEnv(t)}}
	srv := httptest.NewUnstartedServer(nil)
	e.sandbox = sandbox.New(sandbox.Config{BaseURL: "http://" + srv.Listener.Addr().String(), Secret: sandboxTestSecret}, sandbox.NewBooks(e.store, sandbox.Name), nil)
	e.withProviders(e.sandbox)
	srv.Config.Handler = New(testConfig(), Deps{Merchants: e.svc, Functions: e.functions, Checkout: e.checkout, Idempotency: e.store,
		DB: e.ping, Log: slog.New(slog.NewJSONHandler(e.logs, nil)), Metrics: prometheus.NewRegistry(), Providers: []rampway.FiatProvider{e.sandbox},
		DepositAddresses: newDepositAddresses(t, e.env)})
	srv.Start()
	t.Cleanup(srv.Close)
	e.srv = srv
	e.onboard(t, "ETH", payoutETH)
	e.onboard(t, "DUSD", payoutDUSD)
	return e
}

// onboard sets the merchant's deposit address for symbol on devnet through the admin API.
func (e *depositEnv) onboard(t *testing.T, symbol string, a common.Address) {
	t.Helper()
	r := e.admin(http.MethodPost, "/merchants/"+e.merchant.ID+"/deposit-addresses", map[string]any{"network": "devnet", "symbol": symbol, "address": a.Hex()})
	if v := decode[DepositAddressView](t, r, 201); v.Address != a.Hex() || v.Symbol != symbol || v.Network != "devnet" {
		t.Fatalf("onboard %s: %s", symbol, r.body)
	}
}

// depositBody is a valid C1 body: 100.00 EUR by card into ETH on devnet; edit changes it.
func (e *depositEnv) depositBody(edit func(b map[string]any)) map[string]any {
	b := map[string]any{"merchant_id": e.merchant.ID, "order_fiat_symbol": "EUR", "order_fiat_amount": "100.00",
		"convert_to_crypto_symbol": "ETH", "convert_to_crypto_network": "devnet", "fiat_payment_method": "credit_debit_card",
		"merchant_user_id": "user-7", "merchant_txn_id": "txn-7", "merchant_redirect_url": "https://shop.example/back"}
	if edit != nil {
		edit(b)
	}
	return b
}

// inToken makes a body convert into DUSD, naming its contract.
func (e *depositEnv) inToken(b map[string]any) {
	b["convert_to_crypto_symbol"], b["convert_to_crypto_contractAddress"] = "DUSD", e.chain.Contracts().Token.Hex()
}

var (
	depositOrderKeys = []string{"convert_to_crypto_contractAddress", "convert_to_crypto_network", "convert_to_crypto_symbol", "crypto_amount",
		"gateway_url", "hash", "livemode", "order_fiat_amount", "order_fiat_symbol", "order_id"}
	positiveDecimal = regexp.MustCompile(`^(0|[1-9][0-9]*)(\.[0-9]*[1-9])?$`)
	// fiatAmount is an amount of the test's currencies as the answers write it: two decimals.
	fiatAmount = regexp.MustCompile(`^(0|[1-9][0-9]*)\.[0-9]{2}$`)
)

// wantDepositOrder checks C1's 201 answer: exactly DESIGN.md's fields (fiat_payment_method
// when one was given, info when info is true), its id, hash and gateway_url, the inputs as
// asked (order_fiat_amount written with the currency's two decimals), and crypto_amount a
// positive decimal.
func wantDepositOrder(t *testing.T, e *depositEnv, r resp, body map[string]any, info bool) DepositOrderView {
	t.Helper()
	o := decode[DepositOrderView](t, r, 201)
	keys := slices.Clone(depositOrderKeys)
	method, _ := body["fiat_payment_method"].(string)
	if method != "" {
		keys = append(keys, "fiat_payment_method")
	}
	if info {
		keys = append(keys, "info")
	}
	slices.Sort(keys)
	if got := rawKeys(t, r.body); !slices.Equal(got, keys) {
		t.Fatalf("C1 answer has %q, want %q: %s", got, keys, r.body)
	}
	var contract *string
	if body["convert_to_crypto_symbol"] == "DUSD" {
		c := e.chain.Contracts().Token.Hex()
		contract = &c
	}
	if !regexp.MustCompile(`^ord_[0-9a-hjkmnp-tv-z]{26}$`).MatchString(o.OrderID) || !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(o.Hash) ||
		o.GatewayURL != "https://pay.example/checkout?order_id="+o.OrderID+"&hash="+o.Hash || !e.checkout.CheckHash(o.OrderID, o.Hash) ||
		o.OrderFiatSymbol != body["order_fiat_symbol"] || !fiatAmount.MatchString(o.OrderFiatAmount) ||
		!decimal.RequireFromString(o.OrderFiatAmount).Equal(decimal.RequireFromString(body["order_fiat_amount"].(string))) || o.FiatPaymentMethod != method ||
		o.ConvertToCryptoSymbol != body["convert_to_crypto_symbol"] || o.ConvertToCryptoNetwork != "devnet" ||
		(o.ConvertToCryptoContractAddress == nil) != (contract == nil) || (contract != nil && *o.ConvertToCryptoContractAddress != *contract) {
		t.Fatalf("C1 answer %s for %v", r.body, body)
	}
	if !positiveDecimal.MatchString(o.CryptoAmount) || o.CryptoAmount == "0" {
		t.Fatalf("crypto_amount %q is not a positive decimal", o.CryptoAmount)
	}
	if info != (o.Info != "") || (info && o.Info != checkout.NoWebhookSecretInfo(false)) {
		t.Fatalf("info %q", o.Info)
	}
	return o
}

// TestCreateDepositOrder: C1 answers 201 with DESIGN.md's area C response; the lookup under
// /deposit shows the merchant's deposit address for the asset, the crypto_amount C1 answered and
// the fiat side, no payment yet; the order is unknown under /nft-ramp and /mint.
func TestCreateDepositOrder(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	for _, tc := range []struct {
		name     string
		payout   common.Address
		gasLimit uint64
		expiry   time.Duration
		edit     func(b map[string]any)
	}{
		{"EUR card into ETH", payoutETH, 21_000, 30 * time.Minute, nil},
		{"EUR without a method into ETH", payoutETH, 21_000, 30 * time.Minute, func(b map[string]any) { delete(b, "fiat_payment_method") }},
		{"EUR, method empty", payoutETH, 21_000, 30 * time.Minute, func(b map[string]any) { b["fiat_payment_method"] = "" }},
		{"GBP bank transfer into DUSD, every user field", payoutDUSD, 100_000, checkout.DefaultBankTransferExpiry, func(b map[string]any) {
			e.inToken(b)
			b["order_fiat_symbol"], b["order_fiat_amount"], b["fiat_payment_method"] = "GBP", "250.50", "gbp_bank_transfer"
			maps.Copy(b, identity())
		}},
		{"USD Cash App into ETH, no merchant_txn_id, contract address empty", payoutETH, 21_000, 30 * time.Minute, func(b map[string]any) {
			b["order_fiat_symbol"], b["order_fiat_amount"], b["fiat_payment_method"] = "USD", "20", "pm_cash_app"
			b["convert_to_crypto_contractAddress"] = ""
			delete(b, "merchant_txn_id")
		}},
		{"EUR without a method into DUSD, at the maximum", payoutDUSD, 100_000, 30 * time.Minute, func(b map[string]any) {
			e.inToken(b)
			b["order_fiat_amount"] = "10000"
			delete(b, "fiat_payment_method")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := e.depositBody(tc.edit)
			before := time.Now()
			o := wantDepositOrder(t, e, e.merchantAPI(http.MethodPost, depositOrderPath, body), body, false)

			p := depositOrderPath + "/" + o.OrderID
			r := e.merchantAPI(http.MethodGet, p, nil)
			got := decode[OrderView](t, r, 200)
			var raw map[string]json.RawMessage
			_ = json.Unmarshal(r.body, &raw)
			if fp, ok := raw["fiat_payment"]; ok && string(fp) != "null" {
				t.Fatalf("fiat_payment before any payment: %s", fp)
			}
			if m := raw["fiat_movements"]; string(m) != "[]" {
				t.Fatalf("fiat_movements before any payment: %s, want []", m)
			}
			txn, _ := body["merchant_txn_id"].(string)
			method, _ := body["fiat_payment_method"].(string)
			if got.OrderID != o.OrderID || got.Status != "CREATED" || got.MerchantID != e.merchant.ID ||
				got.DepositAddress != tc.payout.Hex() || got.CryptoAmount != o.CryptoAmount || got.CryptoSymbol != o.ConvertToCryptoSymbol ||
				got.CryptoNetwork != "devnet" || got.CryptoAmountReceived != "0" || got.GasLimit != tc.gasLimit ||
				got.OrderFiatSymbol != o.OrderFiatSymbol || got.OrderFiatAmount != o.OrderFiatAmount || got.FiatPaymentMethod != method ||
				got.FiatPayment != nil || got.GatewayURL != o.GatewayURL || got.MerchantUserID != "user-7" || got.MerchantTxnID != txn ||
				got.MerchantRedirectURL != "https://shop.example/back" || got.MerchantWebhookURL != "" || got.ExecutionTxHash != nil ||
				got.FailureReason != nil || got.SmartContractFunctionID != "" || got.TotalValue != "0" ||
				got.Deposits == nil || len(got.Deposits) != 0 || got.Refunds == nil || len(got.Refunds) != 0 {
				t.Fatalf("lookup %s, C1 answered %+v", r.body, o)
			}
			if (got.CryptoContractAddress == nil) != (o.ConvertToCryptoContractAddress == nil) ||
				(got.CryptoContractAddress != nil && *got.CryptoContractAddress != *o.ConvertToCryptoContractAddress) {
				t.Fatalf("crypto_contract_address %v, C1 answered %v", got.CryptoContractAddress, o.ConvertToCryptoContractAddress)
			}
			// What came off it: the transfer's network fee, and no service fee (the merchant has none).
			if !positiveDecimal.MatchString(got.NetworkFee) || got.NetworkFee == "0" || got.ServiceFee != "0" {
				t.Fatalf("network_fee %q, service_fee %q", got.NetworkFee, got.ServiceFee)
			}
			created, _ := time.Parse(rampway.TimeFormat, got.CreatedAt)
			expires, _ := time.Parse(rampway.TimeFormat, got.ExpiresAt)
			if created.Before(before.Add(-time.Second)) || expires.Sub(created) < tc.expiry-time.Second || expires.Sub(created) > tc.expiry+time.Second {
				t.Fatalf("created_at %s, expires_at %s: want %s later", got.CreatedAt, got.ExpiresAt, tc.expiry)
			}
			for _, k := range []string{"user_email_id", "user_first_name", "user_last_name"} {
				if v, ok := body[k]; ok && got.User[k] != v {
					t.Fatalf("user %v lacks %s=%v", got.User, k, v)
				}
			}
			// Identity data is shown to nobody but the order's page.
			for _, k := range []string{"user_mobileNumber", "user_dob", "user_addressLine1", "user_countryCode"} {
				if _, ok := got.User[k]; ok {
					t.Fatalf("lookup shows %s: %v", k, got.User)
				}
			}
			// Areas A and B do not know it.
			for _, other := range []string{fiatOrderPath + "/" + o.OrderID, mintOrderPath + "/" + o.OrderID} {
				wantEnvelope(t, e.merchantAPI(http.MethodGet, other, nil), 404, 404, other, `Order "`+o.OrderID+`" not found`)
			}
		})
	}

	// Without a method, crypto_amount is the estimate of the first method the amount fits (the
	// currency's first, the card): the same as asked with the card.
	card := wantDepositOrder(t, e, e.merchantAPI(http.MethodPost, depositOrderPath, e.depositBody(nil)), e.depositBody(nil), false)
	none := e.depositBody(func(b map[string]any) { delete(b, "fiat_payment_method") })
	if o := wantDepositOrder(t, e, e.merchantAPI(http.MethodPost, depositOrderPath, none), none, false); o.CryptoAmount != card.CryptoAmount {
		t.Fatalf("without a method crypto_amount %s, with the card %s", o.CryptoAmount, card.CryptoAmount)
	}
	// A method with a lower fee buys more for the same amount.
	sepa := e.depositBody(func(b map[string]any) { b["fiat_payment_method"] = "sepa_bank_transfer" })
	o := wantDepositOrder(t, e, e.merchantAPI(http.MethodPost, depositOrderPath, sepa), sepa, false)
	if !decimal.RequireFromString(o.CryptoAmount).GreaterThan(decimal.RequireFromString(card.CryptoAmount)) {
		t.Fatalf("SEPA (no fee) buys %s, the card %s", o.CryptoAmount, card.CryptoAmount)
	}
}

// TestCreateDepositOrderInfo: merchant_webhook_url while the merchant has no webhook secret is
// 201 with info; the URL is kept on the order, and overrides the merchant's onboarded URL for
// its events (the webhook log under /deposit, and its resend).
func TestCreateDepositOrderInfo(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	hooked := func(b map[string]any) { b["merchant_webhook_url"] = "http://127.0.0.1:9/hooks" }
	body := e.depositBody(hooked)
	o := wantDepositOrder(t, e, e.merchantAPI(http.MethodPost, depositOrderPath, body), body, true)
	if got := decode[OrderView](t, e.merchantAPI(http.MethodGet, depositOrderPath+"/"+o.OrderID, nil), 200); got.MerchantWebhookURL != "http://127.0.0.1:9/hooks" {
		t.Fatalf("merchant_webhook_url %q", got.MerchantWebhookURL)
	}
	// Without merchant_webhook_url, or with the method left to the page: no info unless a URL is given.
	wantDepositOrder(t, e, e.merchantAPI(http.MethodPost, depositOrderPath, e.depositBody(nil)), e.depositBody(nil), false)
	noMethod := e.depositBody(func(b map[string]any) { hooked(b); delete(b, "fiat_payment_method") })
	wantDepositOrder(t, e, e.merchantAPI(http.MethodPost, depositOrderPath, noMethod), noMethod, true)

	// With a secret and an onboarded URL: no info, and the order's URL is where its events go.
	if r := e.admin(http.MethodPatch, "/merchants/"+e.merchant.ID, map[string]any{"webhook_url": "https://shop.example/onboarded"}); r.status != 200 {
		t.Fatalf("set webhook_url: %d %s", r.status, r.body)
	}
	if _, err := e.svc.SetWebhookSecret(t.Context(), e.merchant.ID, false, "", 0); err != nil {
		t.Fatal(err)
	}
	o = wantDepositOrder(t, e, e.merchantAPI(http.MethodPost, depositOrderPath, body), body, false)
	plain := wantDepositOrder(t, e, e.merchantAPI(http.MethodPost, depositOrderPath, e.depositBody(nil)), e.depositBody(nil), false)
	for id, url := range map[string]string{o.OrderID: "http://127.0.0.1:9/hooks", plain.OrderID: "https://shop.example/onboarded"} {
		logPath := depositOrderPath + "/" + id + "/webhooks"
		l := decode[ListView[DeliveryView]](t, e.merchantAPI(http.MethodGet, logPath, nil), 200)
		if len(l.Data) != 1 || l.Data[0].EventName != "order.created" || l.Data[0].OrderID != id || l.Data[0].URL != url {
			t.Fatalf("webhook log of %s %+v, want order.created to %s", id, l, url)
		}
		resend := logPath + "/" + l.Data[0].EventID + "/resend"
		if d := decode[DeliveryView](t, e.merchantAPI(http.MethodPost, resend, nil), 202); d.EventID != l.Data[0].EventID || d.Status != string(rampway.DeliveryPending) || d.URL != url {
			t.Fatalf("resend %+v", d)
		}
		// Area B's routes do not know area C's order.
		rampLog := fiatOrderPath + "/" + id + "/webhooks"
		wantEnvelope(t, e.merchantAPI(http.MethodGet, rampLog, nil), 404, 404, rampLog, "not found")
		rampResend := rampLog + "/" + l.Data[0].EventID + "/resend"
		wantEnvelope(t, e.merchantAPI(http.MethodPost, rampResend, nil), 404, 404, rampResend, "not found")
	}
	unknown := depositOrderPath + "/ord_nope/webhooks"
	wantEnvelope(t, e.merchantAPI(http.MethodGet, unknown, nil), 404, 404, unknown, `Order "ord_nope" not found`)
}

// TestDepositOrderRequestErrors: what C1 refuses, each 400 with the envelope naming the field
// or the limit (401 for another merchant); nothing is created.
func TestDepositOrderRequestErrors(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	other, _ := e.svc.Create(t.Context(), merchant.CreateParams{Name: "Other"})
	_, otherKey, _ := e.svc.IssueAPIKey(t.Context(), other.ID, false)
	token := e.chain.Contracts().Token.Hex()
	set := func(k string, v any) func(b map[string]any) { return func(b map[string]any) { b[k] = v } }
	del := func(k string) func(b map[string]any) { return func(b map[string]any) { delete(b, k) } }
	both := func(fs ...func(b map[string]any)) func(b map[string]any) {
		return func(b map[string]any) {
			for _, f := range fs {
				f(b)
			}
		}
	}
	for _, tc := range []struct {
		name   string
		edit   func(b map[string]any)
		status int
		msg    string
	}{
		// The limits: per method, or across the currency's methods when none is given.
		{"below the minimum", set("order_fiat_amount", "19.99"), 400, "Minimum buy amount is 20 EUR"},
		{"above the maximum", set("order_fiat_amount", "10000.01"), 400, "Please place an order below 10000 EUR"},
		{"below the minimum, no method", both(set("order_fiat_amount", "5"), del("fiat_payment_method")), 400, "Minimum buy amount is 20 EUR"},
		{"above the maximum, no method", both(set("order_fiat_amount", "25000"), del("fiat_payment_method")), 400, "Please place an order below 10000 EUR"},
		{"below the GBP minimum", both(set("order_fiat_symbol", "GBP"), set("fiat_payment_method", "gbp_bank_transfer"), set("order_fiat_amount", "1")), 400, "Minimum buy amount is 20 GBP"},

		// The currency and the method.
		{"unknown currency", set("order_fiat_symbol", "JPY"), 400, "order_fiat_symbol JPY is not a supported currency"},
		{"currency lowercase", set("order_fiat_symbol", "eur"), 400, "order_fiat_symbol eur is not a supported currency"},
		{"currency missing", del("order_fiat_symbol"), 400, "order_fiat_symbol is required"},
		{"currency empty", set("order_fiat_symbol", ""), 400, "order_fiat_symbol is required"},
		{"method of another currency", set("fiat_payment_method", "gbp_bank_transfer"), 400, "fiat_payment_method gbp_bank_transfer is not available for EUR"},
		{"method of another currency (USD)", set("fiat_payment_method", "pm_cash_app"), 400, "fiat_payment_method pm_cash_app is not available for EUR"},
		{"unknown method", set("fiat_payment_method", "pm_nope"), 400, "fiat_payment_method pm_nope is not available for EUR"},

		// order_fiat_amount.
		{"amount missing", del("order_fiat_amount"), 400, "order_fiat_amount is required"},
		{"amount empty", set("order_fiat_amount", ""), 400, "order_fiat_amount is required"},
		{"amount not a number", set("order_fiat_amount", "lots"), 400, "order_fiat_amount must be a positive decimal with at most 2 decimal places, such as 100.00"},
		{"amount negative", set("order_fiat_amount", "-100"), 400, "order_fiat_amount must be a positive decimal"},
		{"amount zero", set("order_fiat_amount", "0.00"), 400, "order_fiat_amount must be a positive decimal"},
		{"amount too precise", set("order_fiat_amount", "100.001"), 400, "order_fiat_amount must be a positive decimal with at most 2 decimal places"},
		{"amount in exponent form", set("order_fiat_amount", "1e2"), 400, "order_fiat_amount must be a positive decimal"},
		{"amount with a currency", set("order_fiat_amount", "100 EUR"), 400, "order_fiat_amount must be a positive decimal"},
		{"amount a number", set("order_fiat_amount", 100), 400, "Field 'order_fiat_amount' must be a string, not a number"},

		// The asset and its network.
		{"network missing", del("convert_to_crypto_network"), 400, "convert_to_crypto_network is required"},
		{"network unknown", set("convert_to_crypto_network", "mainnet"), 400, `convert_to_crypto_network "mainnet" is not a supported network`},
		{"symbol missing", del("convert_to_crypto_symbol"), 400, "convert_to_crypto_symbol is required"},
		{"symbol not configured", set("convert_to_crypto_symbol", "BTC"), 400, "convert_to_crypto_symbol BTC is not valid for network devnet"},
		{"symbol lowercase", set("convert_to_crypto_symbol", "eth"), 400, "convert_to_crypto_symbol eth is not valid for network devnet"},
		{"contract address for the native coin", set("convert_to_crypto_contractAddress", token), 400,
			"convert_to_crypto_contractAddress must be empty for ETH, the native coin of devnet"},
		{"token with another contract", both(e.inToken, set("convert_to_crypto_contractAddress", e.chain.Contracts().NFT.Hex())), 400,
			"convert_to_crypto_contractAddress " + e.chain.Contracts().NFT.Hex() + " is not the contract of DUSD on devnet"},
		{"token with a malformed address", both(e.inToken, set("convert_to_crypto_contractAddress", "0x1234")), 400, "convert_to_crypto_contractAddress"},
		{"symbol a number", set("convert_to_crypto_symbol", 1), 400, "Field 'convert_to_crypto_symbol' must be a string, not a number"},

		// The user_* fields (DESIGN.md "KYC"), as B1 checks them (a mobile number may come without its plus sign).
		{"email not an address", set("user_email_id", "not-an-email"), 400, "user_email_id must be an e-mail address"},
		{"mobile with a leading zero", set("user_mobileNumber", "0447700900123"), 400, "user_mobileNumber must be an international number"}, // without its plus it is taken: TestSpecInputs
		{"dob day first", set("user_dob", "10-12-1990"), 400, "user_dob must be a date written yyyy-mm-dd"},
		{"dob in the future", set("user_dob", time.Now().UTC().Add(48*time.Hour).Format(time.DateOnly)), 400, "user_dob must be in the past"},
		{"country lowercase", set("user_countryCode", "gb"), 400, "user_countryCode must be an ISO 3166-1 alpha-2 country code"},
		{"post code with symbols", set("user_postCode", "SW1A_1AA"), 400, "user_postCode must be letters, digits, spaces and hyphens"},
		{"city too long", set("user_city", strings.Repeat("c", 101)), 400, "user_city must be at most 100 characters"},

		// The order's own fields.
		{"merchant_user_id missing", del("merchant_user_id"), 400, "merchant_user_id is required"},
		{"redirect missing", del("merchant_redirect_url"), 400, "merchant_redirect_url is required"},
		{"redirect relative", set("merchant_redirect_url", "shop/back"), 400, "merchant_redirect_url must be an absolute http(s) URL"},
		{"webhook not http", set("merchant_webhook_url", "ftp://x"), 400, "merchant_webhook_url must be an absolute http(s) URL"},
		{"merchant_txn_id too long", set("merchant_txn_id", strings.Repeat("t", 257)), 400, "merchant_txn_id must be at most 256 characters"},
		{"merchant_id missing", del("merchant_id"), 400, "merchant_id is required"},
		{"another merchant's merchant_id", set("merchant_id", other.ID), 401, "Unauthorized"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := wantEnvelope(t, e.merchantAPI(http.MethodPost, depositOrderPath, e.depositBody(tc.edit)), tc.status, tc.status, depositOrderPath, tc.msg)
			if tc.status == 401 && b.Message != "Unauthorized" {
				t.Fatalf("message %q, want exactly Unauthorized", b.Message)
			}
		})
	}

	// No deposit address for the asset: onboard one first. The other merchant has none; this
	// one loses its ETH address, then gets it back.
	for _, edit := range []func(b map[string]any){nil, e.inToken} {
		b := e.depositBody(edit)
		b["merchant_id"] = other.ID
		sym := b["convert_to_crypto_symbol"].(string)
		wantEnvelope(t, e.do(http.MethodPost, depositOrderPath, b, map[string]string{"X-API-KEY": otherKey}), 400, 400, depositOrderPath,
			"The merchant has no deposit address for "+sym+" on devnet: onboard one first")
	}
	if r := e.admin(http.MethodDelete, "/merchants/"+e.merchant.ID+"/deposit-addresses/devnet/ETH", nil); r.status != 204 {
		t.Fatalf("delete the ETH deposit address: %d %s", r.status, r.body)
	}
	wantEnvelope(t, e.merchantAPI(http.MethodPost, depositOrderPath, e.depositBody(nil)), 400, 400, depositOrderPath,
		"The merchant has no deposit address for ETH on devnet: onboard one first")

	// Keys and bodies that are not one JSON object: TestFiatOrderHTTP.

	// A refused request creates nothing.
	if page := decode[ListView[OrderView]](t, e.merchantAPI(http.MethodGet, depositOrdersPath, nil), 200); len(page.Data) != 0 {
		t.Fatalf("%d orders stored by refused requests", len(page.Data))
	}
	// Onboarded again, the same body is an order.
	e.onboard(t, "ETH", payoutETH)
	decode[DepositOrderView](t, e.merchantAPI(http.MethodPost, depositOrderPath, e.depositBody(func(b map[string]any) { maps.Copy(b, identity()) })), 201)
}

// TestDepositOrderUnavailable: a hot wallet that cannot deliver the amount, and a currency
// without a price, are 503 (not the merchant's fault), saying so without the wallet's address;
// nothing is created.
func TestDepositOrderUnavailable(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	// No price for EUR: nothing converts it.
	eur := e.prices["EUR"]
	delete(e.prices, "EUR")
	wantEnvelope(t, e.merchantAPI(http.MethodPost, depositOrderPath, e.depositBody(nil)), 503, 503, depositOrderPath,
		"No current price converts EUR into ETH: try again later")
	e.prices["EUR"] = eur

	// The hot wallet sends nearly all its ETH away: 100 EUR of ETH is more than it has.
	c := e.chain.Client()
	hot, _ := crypto.HexToECDSA(hotWalletKey)
	bal, err := c.BalanceAt(t.Context(), e.hotWallet, nil)
	if err != nil {
		t.Fatal(err)
	}
	tx := devchaintest.SignTx(t, c, e.chain.ChainID(), hot, 0, common.Address{0x01}, new(big.Int).Sub(bal, big.NewInt(5e15)), nil, 21_000)
	if err := c.SendTransaction(t.Context(), tx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.chain.Mine(); err != nil {
		t.Fatal(err)
	}
	for _, edit := range []func(b map[string]any){nil, func(b map[string]any) { delete(b, "fiat_payment_method") }} {
		b := wantEnvelope(t, e.merchantAPI(http.MethodPost, depositOrderPath, e.depositBody(edit)), 503, 503, depositOrderPath,
			"The service cannot deliver ")
		if !strings.Contains(b.Message, " ETH on devnet at the moment: try a smaller amount or again later") ||
			strings.Contains(strings.ToLower(b.Message), strings.ToLower(e.hotWallet.Hex()[2:])) {
			t.Fatalf("message %q", b.Message)
		}
	}
	if page := decode[ListView[OrderView]](t, e.merchantAPI(http.MethodGet, depositOrdersPath, nil), 200); len(page.Data) != 0 {
		t.Fatalf("%d orders stored by refused requests", len(page.Data))
	}
	// The token still goes: the hot wallet holds DUSD.
	b := e.depositBody(e.inToken)
	wantDepositOrder(t, e, e.merchantAPI(http.MethodPost, depositOrderPath, b), b, false)
}

// TestDepositOrderIdempotency: the same Idempotency-Key and body replays the first answer byte
// for byte and creates nothing; another body under the same key is 422.
func TestDepositOrderIdempotency(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	send := func(key string, body map[string]any) resp {
		data, _ := json.Marshal(body)
		return e.do(http.MethodPost, depositOrderPath, string(data), map[string]string{"X-API-KEY": e.key, "Idempotency-Key": key, "Content-Type": "application/json"})
	}
	body := e.depositBody(func(b map[string]any) { maps.Copy(b, identity()) })
	first := send("dep-1", body)
	o := wantDepositOrder(t, e, first, body, false)
	again := send("dep-1", body)
	if again.status != 201 || !bytes.Equal(again.body, first.body) || again.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay %d %s (Idempotent-Replayed %q), first %s", again.status, again.body, again.header.Get("Idempotent-Replayed"), first.body)
	}
	if page := decode[ListView[OrderView]](t, e.merchantAPI(http.MethodGet, depositOrdersPath, nil), 200); len(page.Data) != 1 || page.Data[0].OrderID != o.OrderID {
		t.Fatalf("%d orders after a replay, want 1", len(page.Data))
	}
	for name, edit := range map[string]func(b map[string]any){
		"another amount":  func(b map[string]any) { b["order_fiat_amount"] = "100.01" },
		"another asset":   e.inToken,
		"no method":       func(b map[string]any) { delete(b, "fiat_payment_method") },
		"another webhook": func(b map[string]any) { b["merchant_webhook_url"] = "http://127.0.0.1:9/hooks" },
	} {
		t.Run(name, func(t *testing.T) {
			other := e.depositBody(func(b map[string]any) { maps.Copy(b, identity()); edit(b) })
			wantEnvelope(t, send("dep-1", other), 422, 422, depositOrderPath, `Idempotency-Key "dep-1" was already used with a different request`)
		})
	}
	// The same key on area B's path is another request too.
	data, _ := json.Marshal(body)
	r := e.do(http.MethodPost, fiatOrderPath, string(data), map[string]string{"X-API-KEY": e.key, "Idempotency-Key": "dep-1"})
	wantEnvelope(t, r, 422, 422, fiatOrderPath, "was already used with a different request")
	// A refused request is not remembered: corrected, it goes through under the same key.
	wantEnvelope(t, send("dep-2", e.depositBody(func(b map[string]any) { b["order_fiat_amount"] = "1" })), 400, 400, depositOrderPath, "Minimum buy amount is 20 EUR")
	if o2 := wantDepositOrder(t, e, send("dep-2", body), body, false); o2.OrderID == o.OrderID {
		t.Fatal("a new key replayed the old order")
	}
	if page := decode[ListView[OrderView]](t, e.merchantAPI(http.MethodGet, depositOrdersPath, nil), 200); len(page.Data) != 2 {
		t.Fatalf("%d orders, want 2", len(page.Data))
	}
}

// TestDepositOrderLookups: under /deposit an area C order is found and listed (by status, a page
// at a time, with its fiat side and deposit address); area B's orders are not listed there, nor
// area C's under /nft-ramp; another merchant's is 404.
func TestDepositOrderLookups(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	var ids []string // oldest first
	for i, edit := range []func(b map[string]any){nil, e.inToken, func(b map[string]any) { delete(b, "fiat_payment_method") }} {
		o := decode[DepositOrderView](t, e.merchantAPI(http.MethodPost, depositOrderPath, e.depositBody(func(b map[string]any) {
			b["merchant_txn_id"] = "txn-" + string(rune('a'+i))
			if edit != nil {
				edit(b)
			}
		})), 201)
		ids = append(ids, o.OrderID)
	}
	ramp := decode[FiatOrderView](t, e.merchantAPI(http.MethodPost, fiatOrderPath, e.rampBody(nil)), 201)
	if _, err := e.checkout.Cancel(t.Context(), ids[1]); err != nil {
		t.Fatal(err)
	}

	p := depositOrderPath + "/" + ids[0]
	if got := decode[OrderView](t, e.merchantAPI(http.MethodGet, p+"?merchant_id="+e.merchant.ID, nil), 200); got.OrderID != ids[0] || got.MerchantTxnID != "txn-a" {
		t.Fatalf("lookup with merchant_id %+v", got)
	}
	wantEnvelope(t, e.merchantAPI(http.MethodGet, p+"?merchant_id=mch_00000000000000000000000000", nil), 401, 401, p, "Unauthorized")
	bp := depositOrderPath + "/" + ramp.OrderID
	wantEnvelope(t, e.merchantAPI(http.MethodGet, bp, nil), 404, 404, bp, `Order "`+ramp.OrderID+`" not found`)
	other, _ := e.svc.Create(t.Context(), merchant.CreateParams{Name: "Other"})
	_, otherKey, _ := e.svc.IssueAPIKey(t.Context(), other.ID, false)
	wantEnvelope(t, e.do(http.MethodGet, p, nil, map[string]string{"X-API-KEY": otherKey}), 404, 404, p, `Order "`+ids[0]+`" not found`)
	wantEnvelope(t, e.do(http.MethodGet, p, nil, nil), 401, 401, p, "Unauthorized")
	if page := decode[ListView[OrderView]](t, e.do(http.MethodGet, depositOrdersPath, nil, map[string]string{"X-API-KEY": otherKey}), 200); len(page.Data) != 0 {
		t.Fatalf("another merchant's list %+v", page)
	}

	list := func(query string) []string {
		t.Helper()
		l := decode[ListView[OrderView]](t, e.merchantAPI(http.MethodGet, depositOrdersPath+query, nil), 200)
		var out []string
		for _, o := range l.Data {
			out = append(out, o.OrderID)
			want := payoutETH
			if o.CryptoSymbol == "DUSD" {
				want = payoutDUSD
			}
			if o.OrderFiatSymbol != "EUR" || o.OrderFiatAmount != "100.00" || o.DepositAddress != want.Hex() || o.FiatMovements == nil {
				t.Fatalf("listed without its fiat side or deposit address: %+v", o)
			}
		}
		return out
	}
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"", []string{ids[2], ids[1], ids[0]}},
		{"?status=CREATED", []string{ids[2], ids[0]}},
		{"?status=CANCELLED", []string{ids[1]}},
		{"?status=ONRAMP_SUCCESS", nil},
		{"?status=DEPOSIT_PROCESSING", nil},
		{"?limit=2", []string{ids[2], ids[1]}},
		{"?limit=2&starting_after=" + ids[1], []string{ids[0]}},
		{"?limit=1&status=CREATED&starting_after=" + ids[2], []string{ids[0]}},
	} {
		if got := list(tc.query); !slices.Equal(got, tc.want) {
			t.Fatalf("list%s: %v, want %v", tc.query, got, tc.want)
		}
	}
	// Area B's order is neither listed nor a cursor here; area C's are not in B's list.
	wantEnvelope(t, e.merchantAPI(http.MethodGet, depositOrdersPath+"?starting_after="+ramp.OrderID, nil), 400, 400, depositOrdersPath,
		"starting_after must be the order_id of one of your orders")
	if l := decode[ListView[OrderView]](t, e.merchantAPI(http.MethodGet, fiatOrdersPath, nil), 200); len(l.Data) != 1 || l.Data[0].OrderID != ramp.OrderID {
		t.Fatalf("area B list %+v", l)
	}
	wantEnvelope(t, e.merchantAPI(http.MethodGet, depositOrdersPath+"?status=PAID", nil), 400, 400, depositOrdersPath, `status "PAID" is not an order status`)
	wantEnvelope(t, e.merchantAPI(http.MethodGet, depositOrdersPath+"?limit=101", nil), 400, 400, depositOrdersPath, "limit must be an integer between 1 and 100")
}

// TestDepositOrderQuoteArithmetic: crypto_amount worked out here from the configuration (the
// method's fee, the spread, the static prices), the node's fee data and the merchant's service
// fee, exactly: the fiat amount less the method's fee (bps and fixed) and the spread, converted
// at the prices and rounded down to the base unit, less the transfer's network fee and the
// service fee, rounded down to 5 significant digits (the rounding goes to the network fee).
func TestDepositOrderQuoteArithmetic(t *testing.T) {
	t.Parallel()
	e := newDepositEnv(t)
	if r := e.admin(http.MethodPatch, "/merchants/"+e.merchant.ID, map[string]any{"service_fee_bps": 75}); r.status != 200 {
		t.Fatalf("service fee: %d %s", r.status, r.body)
	}
	for _, tc := range []struct {
		name, currency, method, amount string
		edit                           func(b map[string]any)
		why                            string
	}{
		{"EUR card into ETH", "EUR", "credit_debit_card", "123.45", nil, ""},
		{"GBP open banking into DUSD", "GBP", "pm_open_banking", "987.65", e.inToken, ""},
		{"USD Cash App into ETH", "USD", "pm_cash_app", "20.01", nil, ""},
		{"EUR SEPA into DUSD", "EUR", "sepa_bank_transfer", "4321.09", e.inToken, ""},
		// (693.11 - 0.25) / 1.029 / 1.01 EUR at 1.08 USD is exactly 720 DUSD.
		{"EUR card into exactly 720 DUSD", "EUR", "credit_debit_card", "693.11", e.inToken,
			"priceDeposit once rounded each step to 18 places and landed one base unit short (719.999999): one exact fraction, floored once"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := e.depositBody(func(b map[string]any) {
				b["order_fiat_symbol"], b["fiat_payment_method"], b["order_fiat_amount"] = tc.currency, tc.method, tc.amount
				if tc.edit != nil {
					tc.edit(b)
				}
			})
			// The fee data the quote reads: the head's base fee and the node's tip (the dev
			// chain mines no block meanwhile).
			head, err := e.chain.Client().HeaderByNumber(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			tip, err := e.chain.Client().SuggestGasTipCap(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			o := wantDepositOrder(t, e, e.merchantAPI(http.MethodPost, depositOrderPath, body), body, false)
			got := decode[OrderView](t, e.merchantAPI(http.MethodGet, depositOrderPath+"/"+o.OrderID, nil), 200)
			if after, _ := e.chain.Client().HeaderByNumber(t.Context(), nil); after.Number.Cmp(head.Number) != 0 {
				t.Fatal("a block was mined during the quote")
			}

			// The configuration: the method's fee, the spread, the prices.
			var cur rampway.FiatCurrency
			for _, c := range defaultFiat() {
				if c.Symbol == tc.currency {
					cur = c
				}
			}
			m, ok := cur.Method(tc.method)
			if !ok {
				t.Fatalf("no %s for %s", tc.method, tc.currency)
			}
			asset, native := rampway.Asset{Symbol: "ETH", Decimals: 18}, rampway.Asset{Symbol: "ETH", Decimals: 18}
			if body["convert_to_crypto_symbol"] == "DUSD" {
				asset = rampway.Asset{Symbol: "DUSD", Decimals: 6}
			}
			const spreadBPS, serviceBPS = 100, 75
			ten := func(n int) decimal.Decimal { return decimal.New(1, int32(n)) }
			minor := decimal.RequireFromString(tc.amount).Shift(int32(cur.Decimals))
			// gross = (minor - fixed) / (1 + fee) / (1 + spread) in the currency's minor units,
			// at fiat/USD over asset/USD, in the asset's base units, rounded down.
			num := minor.Sub(decimal.NewFromInt(m.FeeFixed)).Mul(ten(8)).Mul(e.prices[tc.currency]).Mul(ten(int(asset.Decimals)))
			den := decimal.NewFromInt((10_000 + m.FeeBPS) * (10_000 + spreadBPS)).Mul(ten(int(cur.Decimals))).Mul(e.prices[asset.Symbol])
			grossD, _ := num.QuoRem(den, 0)
			gross := grossD.BigInt()
			// The network fee: the transfer's gas at base fee plus tip, in wei, converted into
			// the asset at the prices, rounded up.
			wei := decimal.NewFromBigInt(new(big.Int).Add(head.BaseFee, tip), 0).Mul(decimal.NewFromInt(int64(got.GasLimit)))
			networkFee := wei.BigInt()
			if asset.Symbol != native.Symbol {
				n := wei.Mul(e.prices[native.Symbol]).Mul(ten(int(asset.Decimals)))
				d := ten(int(native.Decimals)).Mul(e.prices[asset.Symbol])
				q, r := n.QuoRem(d, 0)
				if r.Sign() > 0 {
					q = q.Add(decimal.NewFromInt(1))
				}
				networkFee = q.BigInt()
			}
			// The service fee: 75 bps of the gross, rounded up.
			sq, sr := decimal.NewFromBigInt(gross, 0).Mul(decimal.NewFromInt(serviceBPS)).QuoRem(decimal.NewFromInt(10_000), 0)
			if sr.Sign() > 0 {
				sq = sq.Add(decimal.NewFromInt(1))
			}
			serviceFee := sq.BigInt()
			// What remains, rounded down to 5 significant digits.
			exact := new(big.Int).Sub(gross, networkFee)
			exact.Sub(exact, serviceFee)
			unit := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(max(len(exact.String())-5, 0))), nil)
			crypto := new(big.Int).Mul(new(big.Int).Quo(exact, unit), unit)
			networkFee.Add(networkFee, new(big.Int).Sub(exact, crypto))

			// The lookup's fees, and what C1 answered, exactly.
			d := asset.Decimals
			if want := rampway.FormatUnits(crypto, d); o.CryptoAmount != want || got.CryptoAmount != want {
				t.Errorf("crypto_amount %s (lookup %s), want %s: gross %s, network fee %s, service fee %s", o.CryptoAmount, got.CryptoAmount, want,
					rampway.FormatUnits(gross, d), rampway.FormatUnits(networkFee, d), rampway.FormatUnits(serviceFee, d))
			}
			if want := rampway.FormatUnits(networkFee, d); got.NetworkFee != want {
				t.Errorf("network_fee %s, want %s", got.NetworkFee, want)
			}
			if want := rampway.FormatUnits(serviceFee, d); got.ServiceFee != want {
				t.Errorf("service_fee %s, want %s", got.ServiceFee, want)
			}
			// And the parts add up to the converted amount, from the lookup's own figures.
			sum := decimal.RequireFromString(got.CryptoAmount).Add(decimal.RequireFromString(got.NetworkFee)).Add(decimal.RequireFromString(got.ServiceFee))
			if !sum.Equal(decimal.NewFromBigInt(gross, -int32(d))) {
				t.Errorf("crypto_amount + network_fee + service_fee = %s, converted %s", sum, rampway.FormatUnits(gross, d))
			}
		})
	}
}
