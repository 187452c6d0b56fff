package config

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/rampway/rampway"
)

// Fiat configures the fiat areas (B and C): the payment provider, the spread, and the
// currencies with their payment methods, limits and fees.
type Fiat struct {
	// Providers are the fiat payment providers, at most one per mode: "sandbox" (built in, test
	// mode only: test data, never real money) and "stripe" (the mode of its keys: sk_test_ test,
	// sk_live_ live). A mode without one offers no fiat methods (B2 and C2 list none for its
	// keys). Default: sandbox in dev mode, none in production.
	Providers []string `yaml:"providers"`
	// Provider is the older form of Providers: one provider.
	Provider string `yaml:"provider"`
	// StripeAPIURL points the Stripe provider at another API (stripe-mock), from env
	// RAMPWAY_STRIPE_API_URL, in dev mode only: tests run journeys against it.
	StripeAPIURL string `yaml:"-"`
	// ActionGiveUpAfter is how long a capture, void or refund the provider refuses (or that
	// cannot reach it) is tried before it needs an operator (listed by `rampway admin
	// fiat-actions list`, counted in /metrics); default 24h.
	ActionGiveUpAfter time.Duration `yaml:"action_give_up_after"`
	// SpreadBPS is added to the price of the crypto a fiat quote buys, in basis points.
	SpreadBPS int64 `yaml:"spread_bps"`
	// Currencies replace the defaults when given.
	Currencies []FiatCurrency `yaml:"currencies"`
}

// FiatCurrency configures a currency.
type FiatCurrency struct {
	Symbol string `yaml:"symbol"` // ISO 4217, "EUR"
	Name   string `yaml:"name"`
	// Decimals are the digits of the minor unit; default 2.
	Decimals *int `yaml:"decimals"`
	// Countries are ISO 3166-1 alpha-2 codes.
	Countries []string        `yaml:"countries"`
	Methods   []PaymentMethod `yaml:"methods"`
}

// PaymentMethod configures a way to pay a currency; id is the API's fiat_payment_method.
type PaymentMethod struct {
	ID   string `yaml:"id"`
	Name string `yaml:"name"`
	// MinAmount and MaxAmount bound one payment, in whole units (the spec's integers).
	MinAmount int64 `yaml:"min_amount"`
	MaxAmount int64 `yaml:"max_amount"`
	// FeeBPS and FeeFixed are the method's fee: basis points of the amount plus a fixed part,
	// a decimal in whole units ("0.25").
	FeeBPS   int64  `yaml:"fee_bps"`
	FeeFixed string `yaml:"fee_fixed"`
}

// FiatProviders are the fiat payment providers this build has.
var FiatProviders = []string{"sandbox", "stripe"}

// ProviderMethods are the payment methods each provider takes: a currency's other methods are
// not offered with it.
var ProviderMethods = map[string][]string{
	"sandbox": {"credit_debit_card", "apple_pay", "google_pay", "sepa_bank_transfer", "gbp_bank_transfer", "pm_open_banking",
		"pm_cash_app", "pm_jwire"},
	// Stripe: cards, and Apple Pay and Google Pay (card wallets), authorised and captured;
	// SEPA Direct Debit, credited when the money arrives.
	"stripe": {"credit_debit_card", "apple_pay", "google_pay", "sepa_debit"},
}

// defaultFiat is DESIGN's: EUR, GBP and USD, every method from 20 to 10,000.
func defaultFiat() Fiat {
	m := func(id, name string, feeBPS int64, fixed string) PaymentMethod {
		return PaymentMethod{ID: id, Name: name, MinAmount: 20, MaxAmount: 10_000, FeeBPS: feeBPS, FeeFixed: fixed}
	}
	card := m("credit_debit_card", "Card", 290, "0.25")
	apple, google := m("apple_pay", "Apple Pay", 290, "0.25"), m("google_pay", "Google Pay", 290, "0.25")
	openBanking := m("pm_open_banking", "Open banking", 100, "0")
	return Fiat{SpreadBPS: 100, ActionGiveUpAfter: 24 * time.Hour, Currencies: []FiatCurrency{
		{Symbol: "EUR", Name: "Euro", Countries: []string{"AT", "BE", "DE", "ES", "FI", "FR", "IE", "IT", "LU", "NL", "PT"},
			Methods: []PaymentMethod{card, apple, google, m("sepa_bank_transfer", "SEPA bank transfer", 0, "0"), openBanking,
				m("sepa_debit", "SEPA Direct Debit", 80, "0")}}, // Stripe's; the sandbox does not take it
		{Symbol: "GBP", Name: "Pound sterling", Countries: []string{"GB"},
			Methods: []PaymentMethod{card, m("gbp_bank_transfer", "Bank transfer (Faster Payments)", 0, "0"), openBanking}},
		{Symbol: "USD", Name: "US dollar", Countries: []string{"US"},
			Methods: []PaymentMethod{card, apple, google, m("pm_cash_app", "Cash App", 150, "0"), m("pm_jwire", "JWire", 100, "0")}},
	}}
}

var (
	currencySymbol = regexp.MustCompile(`^[A-Z]{3}$`)
	methodID       = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)
)

// Provider names.
const (
	ProviderSandbox = "sandbox"
	ProviderStripe  = "stripe"
)

// FiatProviderNames are the configured payment providers (fiat.providers, or fiat.provider):
// by default the sandbox in dev mode and none in production.
func (c *Config) FiatProviderNames() []string {
	switch {
	case len(c.Fiat.Providers) > 0:
		return c.Fiat.Providers
	case c.Fiat.Provider != "":
		return []string{c.Fiat.Provider}
	case c.Mode == ModeDev:
		return []string{ProviderSandbox}
	}
	return nil
}

// ProviderLivemode is the mode a provider serves: the sandbox test only, Stripe the mode of its
// secret key.
func (c *Config) ProviderLivemode(name string) bool {
	if name == ProviderStripe {
		k := c.Secrets.StripeSecretKey
		return strings.HasPrefix(k, "sk_live_") || strings.HasPrefix(k, "rk_live_")
	}
	return false
}

// ModeProvider is the payment provider of a mode ("" for none).
func (c *Config) ModeProvider(livemode bool) string {
	for _, p := range c.FiatProviderNames() {
		if c.ProviderLivemode(p) == livemode {
			return p
		}
	}
	return ""
}

// validateFiat checks the fiat section; bad reports each problem.
func (c *Config) validateFiat(bad func(field, format string, args ...any)) {
	f := c.Fiat
	field := "fiat.providers"
	if len(f.Providers) == 0 {
		field = "fiat.provider"
	}
	if len(f.Providers) > 0 && f.Provider != "" {
		bad("fiat.provider", "and fiat.providers are both set: keep providers")
	}
	byMode := map[bool]string{}
	for _, p := range c.FiatProviderNames() {
		if !slices.Contains(FiatProviders, p) {
			bad(field, "must be among %v, not %q", FiatProviders, p)
			continue
		}
		live := c.ProviderLivemode(p)
		if other, ok := byMode[live]; ok {
			bad(field, "%s and %s both serve %s mode: one provider per mode", other, p, rampway.ModeName(live))
		}
		byMode[live] = p
		if p == ProviderStripe {
			c.validateStripe(bad)
		}
	}
	if f.ActionGiveUpAfter < time.Minute || f.ActionGiveUpAfter > 30*24*time.Hour {
		bad("fiat.action_give_up_after", "must be between 1m and 720h, not %v", f.ActionGiveUpAfter)
	}
	if f.SpreadBPS < 0 || f.SpreadBPS > 10_000 {
		bad("fiat.spread_bps", "must be between 0 and 10000 (basis points), not %d", f.SpreadBPS)
	}
	symbols := map[string]bool{}
	for i, cur := range f.Currencies {
		p := fmt.Sprintf("fiat.currencies[%d]", i)
		if !currencySymbol.MatchString(cur.Symbol) {
			bad(p+".symbol", "must be an ISO 4217 code such as EUR, not %q", cur.Symbol)
		} else if symbols[cur.Symbol] {
			bad(p+".symbol", "%s is listed twice", cur.Symbol)
		}
		symbols[cur.Symbol] = true
		if cur.Name == "" {
			bad(p+".name", "is required")
		}
		if cur.Decimals != nil && (*cur.Decimals < 0 || *cur.Decimals > 4) {
			bad(p+".decimals", "must be between 0 and 4, not %d", *cur.Decimals)
		}
		if len(cur.Countries) == 0 {
			bad(p+".countries", "is required: the ISO alpha-2 codes of the countries that support it")
		}
		for j, cc := range cur.Countries {
			if !rampway.ValidCountry(cc) {
				bad(fmt.Sprintf("%s.countries[%d]", p, j), "must be an ISO 3166-1 alpha-2 code such as DE, not %q", cc)
			}
		}
		if len(cur.Methods) == 0 {
			bad(p+".methods", "is required")
		}
		ids := map[string]bool{}
		for j, m := range cur.Methods {
			q := fmt.Sprintf("%s.methods[%d]", p, j)
			switch {
			case !methodID.MatchString(m.ID):
				bad(q+".id", "must be lowercase letters, digits and _ (such as credit_debit_card), not %q", m.ID)
			case ids[m.ID]:
				bad(q+".id", "%s is listed twice", m.ID)
			}
			ids[m.ID] = true
			if m.MinAmount <= 0 {
				bad(q+".min_amount", "must be a positive whole amount, not %d", m.MinAmount)
			}
			if m.MaxAmount < m.MinAmount {
				bad(q+".max_amount", "must be at least min_amount (%d), not %d", m.MinAmount, m.MaxAmount)
			}
			if m.FeeBPS < 0 || m.FeeBPS > 10_000 {
				bad(q+".fee_bps", "must be between 0 and 10000 (basis points), not %d", m.FeeBPS)
			}
			if m.FeeFixed != "" {
				if _, err := rampway.ParseUnits(m.FeeFixed, uint8(cur.decimals())); err != nil {
					bad(q+".fee_fixed", "must be a plain decimal with at most %d decimal places, not %q", cur.decimals(), m.FeeFixed)
				}
			}
		}
	}
}

func (c FiatCurrency) decimals() int {
	if c.Decimals == nil {
		return 2
	}
	return *c.Decimals
}

// FiatCurrencies are the configured currencies of a mode as the domain names them, each with
// only the methods the mode's provider takes (a currency left with none is not offered; a mode
// without a provider offers none).
func (c *Config) FiatCurrencies(livemode bool) []rampway.FiatCurrency {
	takes := ProviderMethods[c.ModeProvider(livemode)]
	var out []rampway.FiatCurrency
	for _, cur := range c.Fiat.Currencies {
		d := rampway.FiatCurrency{Symbol: cur.Symbol, Name: cur.Name, Decimals: uint8(cur.decimals()), Countries: slices.Clone(cur.Countries)}
		for _, m := range cur.Methods {
			if !slices.Contains(takes, m.ID) {
				continue
			}
			fixed := int64(0)
			if m.FeeFixed != "" {
				if v, err := rampway.ParseUnits(m.FeeFixed, d.Decimals); err == nil {
					fixed = v.Int64()
				}
			}
			d.Methods = append(d.Methods, rampway.PaymentMethod{ID: m.ID, Name: m.Name, Min: m.MinAmount, Max: m.MaxAmount, FeeBPS: m.FeeBPS, FeeFixed: fixed})
		}
		if len(d.Methods) > 0 {
			out = append(out, d)
		}
	}
	return out
}

// validateStripe checks the Stripe keys, which come from the environment only: each present,
// of its kind, and all of one mode (test or live).
func (c *Config) validateStripe(bad func(field, format string, args ...any)) {
	sec := c.Secrets
	modes := map[string]bool{}
	for _, k := range []struct{ field, env, v string }{
		{"secrets.stripe_secret_key", EnvStripeSecretKey, sec.StripeSecretKey},
		{"secrets.stripe_publishable_key", EnvStripePublishableKey, sec.StripePublishableKey},
	} {
		prefixes := []string{"sk_", "rk_"}
		if strings.HasSuffix(k.field, "publishable_key") {
			prefixes = []string{"pk_"}
		}
		ok := false
		for _, pre := range prefixes {
			for _, mode := range []string{"test", "live"} {
				if strings.HasPrefix(k.v, pre+mode+"_") {
					ok, modes[mode] = true, true
				}
			}
		}
		switch {
		case k.v == "":
			bad(k.field, "is required with fiat.provider stripe: set %s (never in the file)", k.env)
		case !ok:
			bad(k.field, "%s must start with %s_test_ or %s_live_", k.env, prefixes[0][:2], prefixes[0][:2])
		}
	}
	if len(modes) > 1 {
		bad("secrets.stripe_publishable_key", "%s and %s must both be test keys or both live keys", EnvStripeSecretKey, EnvStripePublishableKey)
	}
	switch {
	case sec.StripeWebhookSecret == "":
		bad("secrets.stripe_webhook_secret", "is required with fiat.provider stripe: set %s, the signing secret of the webhook endpoint (never in the file)", EnvStripeWebhookSecret)
	case !strings.HasPrefix(sec.StripeWebhookSecret, "whsec_"):
		bad("secrets.stripe_webhook_secret", "%s must start with whsec_", EnvStripeWebhookSecret)
	}
}
