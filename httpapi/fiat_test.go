package httpapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/shopspring/decimal"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/config"
	"github.com/rampway/rampway/mock"
)

// B2 and C2 list the configured currencies with the methods the provider takes, as the spec's
// fiat currency entries, each icon an absolute URL; an unknown merchant_id is 401.
func TestFiatCurrencies(t *testing.T) {
	t.Parallel()
	e, log := newMerchantEnv(t)
	cfg := config.Default()
	cfg.Mode = config.ModeDev // the sandbox, test mode's provider
	// A method the sandbox does not take is not offered.
	cfg.Fiat.Currencies[0].Methods = append(cfg.Fiat.Currencies[0].Methods, config.PaymentMethod{ID: "pm_unknown", MinAmount: 1, MaxAmount: 2})
	c := testConfig()
	c.PublicURL = "https://pay.example/"
	fiats := map[bool][]rampway.FiatCurrency{false: cfg.FiatCurrencies(false), true: cfg.FiatCurrencies(true)}
	fiat := &mock.Checkout{FiatCurrenciesFn: func(live bool) []rampway.FiatCurrency { return fiats[live] }}
	h := New(c, Deps{Merchants: e.svc, Functions: &mock.Functions{}, Checkout: fiat, Idempotency: e.store, DB: e.ping, Log: log, Metrics: prometheus.NewRegistry()})
	e.srv = httptest.NewServer(h)
	t.Cleanup(e.srv.Close)

	for _, path := range []string{"/nft-ramp" + routeFiatCurrencies, "/deposit" + routeDepositFiat} {
		r := e.merchantAPI(http.MethodGet, path, nil)
		if r.status != 200 {
			t.Fatalf("%s: %d %s", path, r.status, r.body)
		}
		var raw map[string][]map[string]any
		if err := json.Unmarshal(r.body, &raw); err != nil || len(raw) != 1 {
			t.Fatalf("%s: %s", path, r.body)
		}
		v := decode[FiatCurrenciesView](t, r, 200)
		var symbols []string
		for _, c := range v.Currencies {
			symbols = append(symbols, c.Symbol)
			if c.Name == "" || len(c.SupportedCountries) == 0 || len(c.PaymentOptions) == 0 {
				t.Fatalf("%s: currency %+v", path, c)
			}
			for _, o := range c.PaymentOptions {
				if o.ID == "pm_unknown" || o.MinAmount != 20 || o.MaxAmount != 10_000 || o.Name == "" ||
					o.Icon != "https://pay.example/checkout/assets/methods/"+o.ID+".svg" {
					t.Fatalf("%s: %s option %+v", path, c.Symbol, o)
				}
			}
		}
		if !slices.Equal(symbols, []string{"EUR", "GBP", "USD"}) {
			t.Fatalf("%s: currencies %v", path, symbols)
		}
		eur := v.Currencies[0]
		var ids []string
		for _, o := range eur.PaymentOptions {
			ids = append(ids, o.ID)
		}
		if !slices.Equal(ids, []string{"credit_debit_card", "apple_pay", "google_pay", "sepa_bank_transfer", "pm_open_banking"}) {
			t.Fatalf("%s: EUR methods %v", path, ids)
		}
		wantEnvelope(t, e.merchantAPI(http.MethodGet, path+"?merchant_id=mch_someone", nil), 401, 401, path, "Unauthorized")
		wantEnvelope(t, e.do(http.MethodGet, path, nil, nil), 401, 401, path, "Unauthorized")
	}
}

const fiatQuotePath = "/nft-ramp" + routeFiatQuote

// fiatBody is a B3 body for the native mint of one token, in EUR by card; edit changes it.
func (e *mintEnv) fiatBody(edit func(b map[string]any)) map[string]any {
	b := e.body(nil)
	q := map[string]any{"merchant_id": b["merchant_id"], "order_fiat_symbol": "EUR", "fiat_payment_method": "credit_debit_card",
		"contractExecution": b["contractExecution"]}
	if edit != nil {
		edit(q)
	}
	return q
}

// B3 prices the call's crypto as A2 does, in the currency at the prices, plus the spread and
// the method's fee, rounded up to the cent; the limits and the call's simulation answer 200
// with allowed false and why.
func TestFiatQuote(t *testing.T) {
	t.Parallel()
	e := newMintEnv(t)
	crypto := decode[CryptoQuoteView](t, e.merchantAPI(http.MethodPost, quotePath, e.body(nil)), 200)
	q := decode[FiatQuoteView](t, e.merchantAPI(http.MethodPost, fiatQuotePath, e.fiatBody(nil)), 200)
	// The same crypto, at 3000 USD/ETH and 1.08 USD/EUR, +1 % spread, +2.9 % + 0.25 EUR card fee.
	eth := decimal.RequireFromString(crypto.CryptoAmount)
	sub := eth.Mul(decimal.NewFromInt(3000)).Div(decimal.RequireFromString("1.08"))
	base := sub.Mul(decimal.RequireFromString("1.01"))
	want := base.Mul(decimal.RequireFromString("1.029")).Add(decimal.RequireFromString("0.25")).Mul(decimal.NewFromInt(100)).Ceil().Div(decimal.NewFromInt(100))
	if q.FiatAmount != want.StringFixed(2) || !q.Allowed || !strings.HasPrefix(q.Message, "Quote valid until ") || q.FiatSymbol != "EUR" ||
		q.PayableCryptoSymbol != "ETH" || q.PayableCryptoContractAddress != nil || q.PayableCryptoNetwork != "devnet" ||
		q.PayableCryptoAmount != crypto.CryptoAmount || q.TotalValue != "0.01" || q.FiatPaymentMethod != "credit_debit_card" ||
		q.CryptoPriceUSD != "3000" || q.FiatPriceUSD != "1.08" {
		t.Fatalf("quote %+v, want fiat_amount %s for %s ETH", q, want.StringFixed(2), crypto.CryptoAmount)
	}
	if exp, err := time.Parse(rampway.TimeFormat, q.ExpiresAt); err != nil || time.Until(exp) < 4*time.Minute || time.Until(exp) > 6*time.Minute {
		t.Fatalf("expires_at %q", q.ExpiresAt)
	}
	// The token-paid mint: the crypto is the token, with its contract.
	qt := decode[FiatQuoteView](t, e.merchantAPI(http.MethodPost, fiatQuotePath, e.fiatBody(func(b map[string]any) {
		x := b["contractExecution"].(map[string]any)
		x["smartContractFunctionId"] = e.token
		x["function_args"] = map[string]any{"to": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", "quantity": "3"}
		x["payment"] = map[string]any{"payableCryptoSymbol": "DUSD", "totalValue": "30"} // about 24 GBP
		b["order_fiat_symbol"], b["fiat_payment_method"] = "GBP", "gbp_bank_transfer"
	})), 200)
	if qt.PayableCryptoSymbol != "DUSD" || qt.PayableCryptoContractAddress == nil || *qt.PayableCryptoContractAddress != e.chain.Contracts().Token.Hex() ||
		qt.FiatSymbol != "GBP" || qt.FiatAmount == "" {
		t.Fatalf("token quote %+v", qt)
	}
	// Not allowed: 200 with why.
	for _, tc := range []struct {
		name, fiat, msg string
		edit            func(b map[string]any)
	}{
		{"below the minimum", "", "Minimum buy amount is 20 EUR", func(b map[string]any) {
			x := b["contractExecution"].(map[string]any)
			x["smartContractFunctionId"] = e.free
			delete(x, "payment")
		}},
		{"above the maximum", "given", "Please place an order below 10000 EUR", func(b map[string]any) {
			x := b["contractExecution"].(map[string]any)
			x["function_args"] = map[string]any{"to": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", "quantity": "400"}
			x["payment"] = map[string]any{"payableCryptoSymbol": "ETH", "totalValue": "4"}
			x["network_params"] = map[string]any{"networkName": "devnet", "customGasLimit": "20000000"} // 400 mints
		}},
		// Issue 29, 8: the limit is named, not the failing call's reason (the call is not even
		// simulated: limits cost nothing).
		{"above the maximum, and would revert", "given", "Please place an order below 10000 EUR", func(b map[string]any) {
			x := b["contractExecution"].(map[string]any)
			x["payment"] = map[string]any{"payableCryptoSymbol": "ETH", "totalValue": "4"} // one mint is 0.01
		}},
		{"would revert", "given", "The smart-contract call would fail", func(b map[string]any) {
			x := b["contractExecution"].(map[string]any)
			x["payment"] = map[string]any{"payableCryptoSymbol": "ETH", "totalValue": "0.02"}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := decode[FiatQuoteView](t, e.merchantAPI(http.MethodPost, fiatQuotePath, e.fiatBody(tc.edit)), 200)
			if q.Allowed || !strings.HasPrefix(q.Message, tc.msg) || (q.FiatAmount == "") != (tc.fiat == "") {
				t.Fatalf("quote %+v, want allowed false with %q", q, tc.msg)
			}
		})
	}
	// No price for the currency: not allowed, no amount (never a zero price).
	delete(e.prices, "GBP")
	qn := decode[FiatQuoteView](t, e.merchantAPI(http.MethodPost, fiatQuotePath, e.fiatBody(func(b map[string]any) {
		b["order_fiat_symbol"], b["fiat_payment_method"] = "GBP", "credit_debit_card"
	})), 200)
	if qn.Allowed || qn.FiatAmount != "" || qn.Message != "No current price converts ETH into GBP: try again later" {
		t.Fatalf("a quote without a price: %+v", qn)
	}
	// Refused: 400 naming the request's own field.
	for _, tc := range []struct {
		name, msg string
		edit      func(b map[string]any)
	}{
		{"unknown currency", "order_fiat_symbol JPY is not a supported currency", func(b map[string]any) { b["order_fiat_symbol"] = "JPY" }},
		{"currency missing", "order_fiat_symbol is required", func(b map[string]any) { delete(b, "order_fiat_symbol") }},
		{"method of another currency", "fiat_payment_method gbp_bank_transfer is not available for EUR", func(b map[string]any) {
			b["fiat_payment_method"] = "gbp_bank_transfer"
		}},
		{"method missing", "fiat_payment_method is required", func(b map[string]any) { delete(b, "fiat_payment_method") }},
		{"payable asset invalid", "payableCryptoSymbol BTC is not valid for network devnet", func(b map[string]any) {
			b["contractExecution"].(map[string]any)["payment"] = map[string]any{"payableCryptoSymbol": "BTC", "totalValue": "1"}
		}},
		{"unknown network", `networkName "mainnet" is not a supported network`, func(b map[string]any) {
			b["contractExecution"].(map[string]any)["network_params"] = map[string]any{"networkName": "mainnet"}
		}},
		{"no contractExecution", "contractExecution is required", func(b map[string]any) { delete(b, "contractExecution") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantEnvelope(t, e.merchantAPI(http.MethodPost, fiatQuotePath, e.fiatBody(tc.edit)), 400, 400, fiatQuotePath, tc.msg)
		})
	}
	// Function arguments: HTTP 400 with 403 in the body, as A2.
	wantEnvelope(t, e.merchantAPI(http.MethodPost, fiatQuotePath, e.fiatBody(func(b map[string]any) {
		b["contractExecution"].(map[string]any)["function_args"] = map[string]any{"to": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"}
	})), 400, 403, fiatQuotePath, "Function arguments are not valid")
}
