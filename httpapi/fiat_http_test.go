package httpapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/checkout"
	"github.com/rampway/rampway/merchant"
	"github.com/rampway/rampway/mock"
)

// Areas B and C's HTTP layer on mock use cases, without a chain: the keys and bodies refused
// before the use case is asked, what reaches it, and its errors as envelopes. What the use
// cases decide (quotes, limits, identity checks) is tested end to end in fiatorders_test.go
// and deposit_orders_test.go.

// newMockEnv starts a server on a fresh SQLite store with merchants, whose checkout use cases
// are c.
func newMockEnv(t *testing.T, c *mock.Checkout) *env {
	t.Helper()
	e, log := newMerchantEnv(t)
	e.srv = httptest.NewServer(New(testConfig(), Deps{Merchants: e.svc, Functions: &mock.Functions{}, Checkout: c, Idempotency: e.store,
		DB: e.ping, Log: log, Metrics: prometheus.NewRegistry()}))
	t.Cleanup(e.srv.Close)
	return e
}

// TestFiatOrderHTTP: B1 and C1 refuse a missing or foreign key and a body that is not one JSON
// object without asking the use case; a body that is one reaches it decoded, and the field
// error it answers is the 400 envelope naming it.
func TestFiatOrderHTTP(t *testing.T) {
	t.Parallel()
	var reached atomic.Int32
	refused := rampway.FieldErrorf("user_dob", "user_dob must be in the past")
	var fiat checkout.FiatOrderParams
	var deposit checkout.DepositOrderParams
	c := &mock.Checkout{
		CreateFiatOrderFn: func(_ context.Context, _ *rampway.Merchant, p checkout.FiatOrderParams) (*checkout.Created, error) {
			reached.Add(1)
			fiat = p
			return nil, refused
		},
		CreateDepositOrderFn: func(_ context.Context, _ *rampway.Merchant, p checkout.DepositOrderParams) (*checkout.Created, error) {
			reached.Add(1)
			deposit = p
			return nil, refused
		},
	}
	e := newMockEnv(t, c)
	other, err := e.svc.Create(t.Context(), merchant.CreateParams{Name: "Other"})
	if err != nil {
		t.Fatal(err)
	}
	_, otherKey, err := e.svc.IssueAPIKey(t.Context(), other.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	bodies := map[string]map[string]any{
		fiatOrderPath: {"merchant_id": e.merchant.ID, "order_fiat_symbol": "EUR", "fiat_payment_method": "credit_debit_card",
			"merchant_user_id": "user-7", "merchant_txn_id": "txn-7", "merchant_redirect_url": "https://shop.example/back",
			"user_dob": "1990-12-10", "contractExecution": map[string]any{"smartContractFunctionId": "scf_x", "function_args": map[string]any{},
				"network_params": map[string]any{"networkName": "devnet"}}},
		depositOrderPath: {"merchant_id": e.merchant.ID, "order_fiat_symbol": "EUR", "order_fiat_amount": "50.00",
			"fiat_payment_method": "credit_debit_card", "convert_to_crypto_symbol": "ETH", "convert_to_crypto_network": "devnet",
			"merchant_user_id": "user-7", "merchant_redirect_url": "https://shop.example/back", "user_dob": "1990-12-10"},
	}
	for path, body := range bodies {
		t.Run(path, func(t *testing.T) {
			reached.Store(0)
			// Keys: none, unknown, another merchant's (with this merchant's id).
			for name, h := range map[string]map[string]string{"no key": nil, "unknown key": {"X-API-KEY": "rw_test_" + strings.Repeat("a", 32)},
				"another merchant's key": {"X-API-KEY": otherKey}} {
				t.Run(name, func(t *testing.T) {
					wantEnvelope(t, e.do(http.MethodPost, path, body, h), 401, 401, path, "Unauthorized")
				})
			}
			// The body itself.
			for _, tc := range []struct{ name, body, msg string }{
				{"malformed", "{\n  \"merchant_id\": \"x\",\n}", "Malformed JSON at line 3, column 1"},
				{"truncated", `{"order_fiat_symbol": "EUR"`, "Malformed JSON at line 1, column 28: unexpected end of input"},
				{"an array", `[{"order_fiat_symbol": "EUR"}]`, "Request body must be a JSON object, not an array"},
				{"null", `null`, "Request body must be a JSON object, not null"},
				{"empty", ``, "Request body is required"},
				{"two objects", `{} {}`, "exactly one JSON object"},
				{"an empty object", `{}`, "merchant_id is required"},
			} {
				t.Run(tc.name, func(t *testing.T) {
					wantEnvelope(t, e.merchantAPI(http.MethodPost, path, tc.body), 400, 400, path, tc.msg)
				})
			}
			if n := reached.Load(); n != 0 {
				t.Fatalf("the use case was asked %d times for refused requests", n)
			}
			// A body that is one object reaches the use case; its field error is the answer.
			b := wantEnvelope(t, e.merchantAPI(http.MethodPost, path, body), 400, 400, path, "user_dob must be in the past")
			if reached.Load() != 1 || b.Message != "user_dob must be in the past" {
				t.Fatalf("asked %d times, message %q", reached.Load(), b.Message)
			}
		})
	}
	if q, o := fiat.Quote, fiat.Order; q.MerchantID != e.merchant.ID || q.Livemode || q.FiatSymbol != "EUR" || q.Method != "credit_debit_card" ||
		o.MerchantUserID != "user-7" || o.MerchantTxnID != "txn-7" || o.MerchantRedirectURL != "https://shop.example/back" || o.User["user_dob"] != "1990-12-10" {
		t.Fatalf("B1 reached the use case with %+v", fiat)
	}
	if q, o := deposit.Quote, deposit.Order; q.MerchantID != e.merchant.ID || q.FiatSymbol != "EUR" || q.FiatAmount != "50.00" ||
		q.Method != "credit_debit_card" || q.CryptoSymbol != "ETH" || q.CryptoNetwork != "devnet" || o.MerchantUserID != "user-7" ||
		o.User["user_dob"] != "1990-12-10" {
		t.Fatalf("C1 reached the use case with %+v", deposit)
	}
}
