package httpapi

import (
	"context"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/shopspring/decimal"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/checkout"
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

// TestFiatQuote: B3 passes the body to the use case as read and answers 200 with its quote as
// the spec's fiat quote (amounts in major units, the token's contract or null), also when it
// is not allowed (fiat_amount "" when the quote states none); its refusals are envelopes
// (function arguments HTTP 400 with 403 in the body); a body without contractExecution is
// refused before it. What the quote is (its arithmetic, its limits) is checkout's TestFiatQuote.
func TestFiatQuote(t *testing.T) {
	t.Parallel()
	var asked []checkout.FiatQuoteParams
	var answer *checkout.FiatQuote
	var refusal error
	e := newMockEnv(t, &mock.Checkout{FiatQuoteFn: func(_ context.Context, p checkout.FiatQuoteParams) (*checkout.FiatQuote, error) {
		asked = append(asked, p)
		return answer, refusal
	}})
	body := func(edit func(b map[string]any)) map[string]any {
		b := e.rampBody(nil)
		q := map[string]any{"merchant_id": b["merchant_id"], "order_fiat_symbol": "EUR", "fiat_payment_method": "credit_debit_card",
			"contractExecution": b["contractExecution"]}
		if edit != nil {
			edit(q)
		}
		return q
	}
	expires := mockT0.Add(checkout.DefaultFiatQuoteTTL)
	eth := &checkout.Quote{Network: &rampway.Network{Name: "devnet"}, Asset: rampway.Asset{Symbol: "ETH", Network: "devnet", Decimals: 18},
		Value: big.NewInt(10_000_000_000_000_000), GasLimit: 250_000, NetworkFee: big.NewInt(500_000_000_000_000), ServiceFee: big.NewInt(100_000_000_000_000),
		Amount: big.NewInt(10_600_000_000_000_000), Allowed: true}
	eur := rampway.FiatCurrency{Symbol: "EUR", Decimals: 2}
	answer = &checkout.FiatQuote{Crypto: eth, Currency: eur, Method: rampway.PaymentMethod{ID: "credit_debit_card"}, AssetUSD: decimal.NewFromInt(3000),
		FiatUSD: decimal.RequireFromString("1.08"), Subtotal: decimal.RequireFromString("2944.444444444444444444"), Spread: decimal.RequireFromString("29.444444444444444444"),
		MethodFee: decimal.RequireFromString("111.24"), Amount: big.NewInt(3086), Allowed: true, Message: "Quote valid until 2030-06-14T12:05:00.000Z", ExpiresAt: expires}
	r := e.merchantAPI(http.MethodPost, fiatQuotePath, body(nil))
	q := decode[FiatQuoteView](t, r, 200)
	want := FiatQuoteView{FiatAmount: "30.86", FiatSymbol: "EUR", PayableCryptoSymbol: "ETH", PayableCryptoNetwork: "devnet", PayableCryptoAmount: "0.0106",
		Allowed: true, Message: "Quote valid until 2030-06-14T12:05:00.000Z", FiatPaymentMethod: "credit_debit_card", TotalValue: "0.01", NetworkFee: "0.0005",
		ServiceFee: "0.0001", GasLimit: 250_000, CryptoPriceUSD: "3000", FiatPriceUSD: "1.08", FiatSubtotal: "29.44444444444444444444",
		FiatSpread: "0.29444444444444444444", FiatMethodFee: "1.1124", ExpiresAt: "2030-06-14T12:05:00.000Z"}
	if q != want || rawMember(t, r.body, "payable_crypto_contract_address") != "null" {
		t.Fatalf("quote %s, want %+v", r.body, want)
	}
	empty := ""
	if len(asked) != 1 || asked[0].MerchantID != e.merchant.ID || asked[0].Livemode || asked[0].FiatSymbol != "EUR" || asked[0].Method != "credit_debit_card" ||
		asked[0].ServiceFeeBPS != nil || asked[0].Execution.FunctionID != "scf_00000000000000000000000001" || asked[0].Execution.NetworkName != "devnet" ||
		!reflect.DeepEqual(asked[0].Execution.Payment, &checkout.PaymentParams{Symbol: "ETH", ContractAddress: &empty, TotalValue: "0.01"}) {
		t.Fatalf("asked %+v", asked)
	}
	// The token-paid mint: the token's contract.
	token := *eth
	token.Asset = rampway.Asset{Symbol: "DUSD", Network: "devnet", Contract: mockToken, Decimals: 6}
	token.Amount = big.NewInt(30_500_000)
	answer.Crypto = &token
	if q := decode[FiatQuoteView](t, e.merchantAPI(http.MethodPost, fiatQuotePath, body(nil)), 200); q.PayableCryptoSymbol != "DUSD" ||
		q.PayableCryptoContractAddress == nil || *q.PayableCryptoContractAddress != mockToken.Hex() || q.PayableCryptoAmount != "30.5" {
		t.Fatalf("token quote %+v", q)
	}
	answer.Crypto = eth
	// Not allowed: 200 with why, fiat_amount "" when the quote states none.
	for _, tc := range []struct {
		name, msg string
		noAmount  bool
	}{
		{"below the minimum", "Minimum buy amount is 20 EUR", true},
		{"above the maximum", "Please place an order below 10000 EUR", false},
		{"no price", "No current price converts ETH into GBP: try again later", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			answer.Allowed, answer.Message, answer.NoAmount = false, tc.msg, tc.noAmount
			r := e.merchantAPI(http.MethodPost, fiatQuotePath, body(nil))
			q := decode[FiatQuoteView](t, r, 200)
			wantAmount := `"30.86"`
			if tc.noAmount {
				wantAmount = `""`
			}
			if q.Allowed || q.Message != tc.msg || rawMember(t, r.body, "fiat_amount") != wantAmount {
				t.Fatalf("quote %s, want allowed false with %q", r.body, tc.msg)
			}
		})
	}
	// Refused by the use case: the envelope, 400 naming the field; function arguments HTTP 400
	// with 403 in the body.
	answer = nil
	for _, tc := range []struct {
		name       string
		err        error
		bodyStatus int
	}{
		{"a field", rampway.FieldErrorf("order_fiat_symbol", "order_fiat_symbol JPY is not a supported currency"), 400},
		{"function arguments", rampway.Errorf(rampway.EFUNCARGS, "Function arguments are not valid: 2 arguments required, 1 given"), 403},
	} {
		refusal = tc.err
		if b := wantEnvelope(t, e.merchantAPI(http.MethodPost, fiatQuotePath, body(nil)), 400, tc.bodyStatus, fiatQuotePath, ""); b.Message != rampway.ErrorMessage(tc.err) {
			t.Fatalf("%s: message %q", tc.name, b.Message)
		}
	}
	// Refused before the use case: no contractExecution, a foreign merchant_id.
	asked = nil
	wantEnvelope(t, e.merchantAPI(http.MethodPost, fiatQuotePath, body(func(b map[string]any) { delete(b, "contractExecution") })), 400, 400, fiatQuotePath,
		"contractExecution is required")
	wantEnvelope(t, e.merchantAPI(http.MethodPost, fiatQuotePath, body(func(b map[string]any) { b["merchant_id"] = "mch_00000000000000000000000000" })), 401, 401,
		fiatQuotePath, "Unauthorized")
	if len(asked) != 0 {
		t.Fatalf("asked %+v", asked)
	}
}
