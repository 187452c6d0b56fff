package config

import (
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/provider"
)

// Fiat configures the fiat areas (B and C): the payment providers, the spread, and the
// currencies with their payment methods, limits and fees.
type Fiat struct {
	// Providers are the payment providers: any number, each an instance of a provider module
	// (provider.Names) under a name of its own, with the methods and currencies it takes. A
	// payment starts with the first provider in this list that serves the order's mode and
	// takes its currency and method; every later action and notification of the payment goes
	// to and comes from that provider. A mode without one offers no fiat methods. Default: the
	// dev default module in dev mode, none in production.
	Providers []ProviderConfig `yaml:"providers"`
	// Provider is the older form of Providers: one provider, by module name.
	Provider string `yaml:"provider"`
	// ActionGiveUpAfter is how long a capture, void or refund the provider refuses (or that
	// cannot reach it) is tried before it needs an operator (listed by `rampway admin
	// fiat-actions list`, counted in /metrics); default 24h.
	ActionGiveUpAfter time.Duration `yaml:"action_give_up_after"`
	// SpreadBPS is added to the price of the crypto a fiat quote buys, in basis points.
	SpreadBPS int64 `yaml:"spread_bps"`
	// Currencies replace the defaults when given.
	Currencies []FiatCurrency `yaml:"currencies"`

	// getenv reads the providers' secrets (set by ApplyEnv).
	getenv func(string) string
}

// ProviderConfig configures one payment provider. In the file it is a mapping, or just the
// module's name ("- mymodule").
type ProviderConfig struct {
	// Name is the provider's own name: unique, the {name} of its routes
	// (/providers/{name}/webhook), of its environment variables (RAMPWAY_<NAME>_...) and
	// recorded on every payment it holds. Default: the module's name.
	Name string `yaml:"name"`
	// Module is the provider module (provider.Names). Default: the name.
	Module string `yaml:"module"`
	// Methods are the payment methods it takes: default all of its module's.
	Methods []string `yaml:"methods"`
	// Currencies are the currencies it takes: default all configured.
	Currencies []string `yaml:"currencies"`
	// Options are the module's settings that are not secrets.
	Options map[string]string `yaml:"options"`
}

// providerKeys are a provider's fields in the file.
var providerKeys = []string{"name", "module", "methods", "currencies", "options"}

// UnmarshalYAML takes a mapping or a module's name.
func (p *ProviderConfig) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*p = ProviderConfig{Name: n.Value, Module: n.Value}
		return nil
	}
	// A mapping's keys are checked here: the file's decoder refuses unknown fields, but a
	// node decoded on its own does not.
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i]; !slices.Contains(providerKeys, k.Value) {
				return fmt.Errorf("line %d: field %s not found in a provider: it has %v", k.Line, k.Value, providerKeys)
			}
		}
	}
	type plain ProviderConfig
	var v plain
	if err := n.Decode(&v); err != nil {
		return err
	}
	*p = ProviderConfig(v)
	return nil
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
				m("sepa_debit", "SEPA Direct Debit", 80, "0")}}, // offered where a provider takes it
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

// FiatProviders are the configured payment providers, names and modules filled in
// (fiat.providers, or fiat.provider): by default the dev default module in dev mode and none in
// production.
func (c *Config) FiatProviders() []ProviderConfig {
	var out []ProviderConfig
	switch {
	case len(c.Fiat.Providers) > 0:
		out = slices.Clone(c.Fiat.Providers)
	case c.Fiat.Provider != "":
		out = []ProviderConfig{{Name: c.Fiat.Provider, Module: c.Fiat.Provider}}
	case c.Mode == ModeDev:
		for _, m := range provider.Modules() {
			if m.DevDefault {
				out = append(out, ProviderConfig{Name: m.Name, Module: m.Name})
			}
		}
	}
	for i, p := range out {
		if p.Module == "" {
			out[i].Module = p.Name
		}
		if p.Name == "" {
			out[i].Name = out[i].Module
		}
	}
	return out
}

// FiatProviderNames are the configured payment providers' names.
func (c *Config) FiatProviderNames() []string {
	var out []string
	for _, p := range c.FiatProviders() {
		out = append(out, p.Name)
	}
	return out
}

// ProviderSettings are a provider's settings for its module.
func (c *Config) ProviderSettings(p ProviderConfig) provider.Settings {
	m := hmac.New(sha256.New, []byte(c.Secrets.HashSecret))
	m.Write([]byte("payment provider " + p.Name))
	return provider.Settings{Name: p.Name, Module: p.Module, Options: p.Options, PublicURL: c.HTTP.PublicURL,
		Dev: c.Mode == ModeDev, Secret: m.Sum(nil), Getenv: c.Fiat.getenv}
}

// ProviderLivemode is the mode a configured provider serves (false for an unknown one).
func (c *Config) ProviderLivemode(name string) bool {
	for _, p := range c.FiatProviders() {
		if p.Name == name {
			m, ok := provider.Lookup(p.Module)
			return ok && m.LivemodeOf(c.ProviderSettings(p))
		}
	}
	return false
}

// ModeProviders are the names of the providers of a mode, in the configuration's order.
func (c *Config) ModeProviders(livemode bool) []string {
	var out []string
	for _, p := range c.FiatProviders() {
		if c.ProviderLivemode(p.Name) == livemode {
			out = append(out, p.Name)
		}
	}
	return out
}

// ProviderTakes are the methods a provider takes, by currency: its module's methods, or the
// configured subset, in the configured currencies it takes.
func (c *Config) ProviderTakes(p ProviderConfig) map[string][]string {
	m, ok := provider.Lookup(p.Module)
	if !ok {
		return nil
	}
	methods := m.Methods
	if len(p.Methods) > 0 {
		methods = p.Methods
	}
	out := map[string][]string{}
	for _, cur := range c.Fiat.Currencies {
		if len(p.Currencies) > 0 && !slices.Contains(p.Currencies, cur.Symbol) {
			continue
		}
		for _, pm := range cur.Methods {
			if slices.Contains(methods, pm.ID) {
				out[cur.Symbol] = append(out[cur.Symbol], pm.ID)
			}
		}
	}
	return out
}

// validateFiat checks the fiat section; bad reports each problem.
func (c *Config) validateFiat(bad func(field, format string, args ...any)) {
	f := c.Fiat
	if len(f.Providers) > 0 && f.Provider != "" {
		bad("fiat.provider", "and fiat.providers are both set: keep providers")
	}
	symbols := map[string]bool{}
	for _, cur := range f.Currencies {
		symbols[cur.Symbol] = true
	}
	names := map[string]bool{}
	for i, p := range c.FiatProviders() {
		field := fmt.Sprintf("fiat.providers[%d]", i)
		if len(f.Providers) == 0 {
			field = "fiat.provider"
		}
		m, ok := provider.Lookup(p.Module)
		if !ok {
			bad(field, "must be among %v, not %q", provider.Names(), p.Module)
			continue
		}
		switch {
		case !provider.ValidName(p.Name):
			bad(field+".name", "must be lowercase letters, digits, - and _ (at most 32), not %q", p.Name)
		case names[p.Name]:
			bad(field+".name", "%s is used twice: give each provider a name of its own", p.Name)
		}
		names[p.Name] = true
		for j, id := range p.Methods {
			if !slices.Contains(m.Methods, id) {
				bad(fmt.Sprintf("%s.methods[%d]", field, j), "%s does not take %q: it takes %v", p.Module, id, m.Methods)
			}
		}
		for j, sym := range p.Currencies {
			if !symbols[sym] {
				bad(fmt.Sprintf("%s.currencies[%d]", field, j), "%q is not among fiat.currencies", sym)
			}
		}
		for _, k := range slices.Sorted(maps.Keys(p.Options)) {
			if !slices.Contains(m.Options, k) {
				bad(field+".options."+k, "%s takes no option %q (its options: %v)", p.Module, k, m.Options)
			}
		}
		if m.Check != nil {
			m.Check(c.ProviderSettings(p), func(setting, format string, args ...any) {
				bad(field+" ("+setting+")", format, args...)
			})
		}
	}
	if f.ActionGiveUpAfter < time.Minute || f.ActionGiveUpAfter > 30*24*time.Hour {
		bad("fiat.action_give_up_after", "must be between 1m and 720h, not %v", f.ActionGiveUpAfter)
	}
	if f.SpreadBPS < 0 || f.SpreadBPS > 10_000 {
		bad("fiat.spread_bps", "must be between 0 and 10000 (basis points), not %d", f.SpreadBPS)
	}
	symbols = map[string]bool{}
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
// only the methods the mode's providers take (a currency left with none is not offered; a mode
// without a provider offers none).
func (c *Config) FiatCurrencies(livemode bool) []rampway.FiatCurrency {
	takes := map[string][]string{}
	for _, p := range c.FiatProviders() {
		if c.ProviderLivemode(p.Name) != livemode {
			continue
		}
		for sym, ms := range c.ProviderTakes(p) {
			takes[sym] = append(takes[sym], ms...)
		}
	}
	var out []rampway.FiatCurrency
	for _, cur := range c.Fiat.Currencies {
		d := rampway.FiatCurrency{Symbol: cur.Symbol, Name: cur.Name, Decimals: uint8(cur.decimals()), Countries: slices.Clone(cur.Countries)}
		for _, m := range cur.Methods {
			if !slices.Contains(takes[cur.Symbol], m.ID) {
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
