package httpapi

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rampway/rampway/config"
	"github.com/rampway/rampway/merchant"
)

// B2 and C2 list the configured currencies with the methods the provider takes, as the spec's
// fiat currency entries, each icon an absolute URL; an unknown merchant_id is 401.
func TestFiatCurrencies(t *testing.T) {
	store, svc := openMerchants(t)
	e := &env{t: t, store: store, svc: svc, logs: &syncBuffer{}, ping: &fakePinger{}}
	m, _ := svc.Create(t.Context(), merchant.CreateParams{Name: "Acme"})
	e.merchant = m
	_, e.key, _ = svc.IssueAPIKey(t.Context(), m.ID)
	cfg := config.Default()
	// A method the sandbox does not take is not offered.
	cfg.Fiat.Currencies[0].Methods = append(cfg.Fiat.Currencies[0].Methods, config.PaymentMethod{ID: "pm_unknown", MinAmount: 1, MaxAmount: 2})
	h := New(Config{BasePaths: BasePaths{Mint: "/mint", NFTRamp: "/nft-ramp", Deposit: "/deposit", Admin: "/admin"}, MaxBodyBytes: 1 << 20,
		AdminToken: adminToken, Version: "test", PublicURL: "https://pay.example/", Fiat: cfg.FiatCurrencies()},
		Deps{Merchants: svc, Functions: noChain{}, Checkout: noChain{}, Idempotency: store, DB: e.ping, Log: slog.New(slog.NewJSONHandler(e.logs, nil)),
			Metrics: prometheus.NewRegistry()})
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
