package httpapi

import (
	"net/http"
	"strings"

	"github.com/rampway/rampway/checkoutpage"
)

// FiatCurrenciesView is B2's (and C2's) answer: the spec's fiat currency entries.
type FiatCurrenciesView struct {
	Currencies []FiatCurrencyView `json:"currencies"`
}

// FiatCurrencyView is a fiat currency entry of the spec.
type FiatCurrencyView struct {
	Symbol             string              `json:"symbol"`
	Name               string              `json:"name"`
	SupportedCountries []string            `json:"supportedCountries"`
	PaymentOptions     []PaymentOptionView `json:"paymentOptions"`
}

// PaymentOptionView is a payment method of a currency, as the spec names it.
type PaymentOptionView struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Icon      string `json:"icon"`
	MinAmount int64  `json:"minAmount"`
	MaxAmount int64  `json:"maxAmount"`
}

// handleFiatCurrencies answers B2 and C2: the configured currencies with the methods the
// configured provider takes, each method's icon an absolute URL served by rampway.
func (s *Server) handleFiatCurrencies(w http.ResponseWriter, r *http.Request) error {
	if err := checkQueryMerchantID(r); err != nil {
		return err
	}
	base := strings.TrimRight(s.cfg.PublicURL, "/")
	v := FiatCurrenciesView{Currencies: make([]FiatCurrencyView, 0, len(s.cfg.Fiat))}
	for _, c := range s.cfg.Fiat {
		cv := FiatCurrencyView{Symbol: c.Symbol, Name: c.Name, SupportedCountries: append([]string{}, c.Countries...),
			PaymentOptions: make([]PaymentOptionView, 0, len(c.Methods))}
		for _, m := range c.Methods {
			cv.PaymentOptions = append(cv.PaymentOptions, PaymentOptionView{ID: m.ID, Name: m.Name, Icon: base + checkoutpage.MethodIcon(m.ID),
				MinAmount: m.Min, MaxAmount: m.Max})
		}
		v.Currencies = append(v.Currencies, cv)
	}
	writeJSON(w, http.StatusOK, v)
	return nil
}
