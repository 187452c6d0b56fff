package httpapi

import (
	"net/http"
	"strings"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/checkout"
	"github.com/rampway/rampway/checkoutpage"
	"github.com/shopspring/decimal"
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
	fiat := s.checkout.FiatCurrencies(livemodeFrom(r.Context())) // none in a mode without a provider
	v := FiatCurrenciesView{Currencies: make([]FiatCurrencyView, 0, len(fiat))}
	for _, c := range fiat {
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

// fiatQuoteBody is B3's body.
type fiatQuoteBody struct {
	MerchantID        *string        `json:"merchant_id"`
	OrderFiatSymbol   *string        `json:"order_fiat_symbol"`
	FiatPaymentMethod *string        `json:"fiat_payment_method"`
	ContractExecution *executionBody `json:"contractExecution"`
}

// FiatQuoteView is B3's answer: the spec's fields, then the quote's inputs (as A2 states
// its): the crypto the call needs and its parts, the prices, the fiat parts (fiat_subtotal,
// spread and method fee, in the currency, before the round-up to its minor unit) and until
// when the price holds.
type FiatQuoteView struct {
	FiatAmount                   string  `json:"fiat_amount"`
	FiatSymbol                   string  `json:"fiat_symbol"`
	PayableCryptoSymbol          string  `json:"payable_crypto_symbol"`
	PayableCryptoContractAddress *string `json:"payable_crypto_contract_address"`
	PayableCryptoNetwork         string  `json:"payable_crypto_network"`
	PayableCryptoAmount          string  `json:"payable_crypto_amount"`
	Allowed                      bool    `json:"allowed"`
	Message                      string  `json:"message"`
	FiatPaymentMethod            string  `json:"fiat_payment_method"`
	TotalValue                   string  `json:"total_value"`
	NetworkFee                   string  `json:"network_fee"`
	ServiceFee                   string  `json:"service_fee"`
	GasLimit                     uint64  `json:"gas_limit"`
	CryptoPriceUSD               string  `json:"crypto_price_usd"`
	FiatPriceUSD                 string  `json:"fiat_price_usd"`
	FiatSubtotal                 string  `json:"fiat_subtotal"`
	FiatSpread                   string  `json:"fiat_spread"`
	FiatMethodFee                string  `json:"fiat_method_fee"`
	ExpiresAt                    string  `json:"expires_at"`
}

func (s *Server) handleFiatQuote(w http.ResponseWriter, r *http.Request) error {
	var body fiatQuoteBody
	if err := decodeJSON(r, &body, decodeOptions{}); err != nil {
		return err
	}
	if err := checkMerchantID(r, body.MerchantID); err != nil {
		return err
	}
	x, err := executionParams(body.ContractExecution)
	if err != nil {
		return err
	}
	m := merchantFrom(r.Context())
	q, err := s.checkout.FiatQuote(r.Context(), checkout.FiatQuoteParams{MerchantID: m.ID, Livemode: livemodeFrom(r.Context()), FiatSymbol: deref(body.OrderFiatSymbol),
		Method: deref(body.FiatPaymentMethod), Execution: x, ServiceFeeBPS: m.ServiceFeeBPS})
	if err != nil {
		return err
	}
	c, fd := q.Crypto, int32(q.Currency.Decimals)
	major := func(minor decimal.Decimal) string { return minor.Shift(-fd).String() }
	v := FiatQuoteView{FiatSymbol: q.Currency.Symbol, PayableCryptoSymbol: c.Asset.Symbol, PayableCryptoContractAddress: contractOf(c.Asset),
		PayableCryptoNetwork: c.Network.Name, PayableCryptoAmount: rampway.FormatUnits(c.Amount, c.Asset.Decimals), Allowed: q.Allowed,
		Message: q.Message, FiatPaymentMethod: q.Method.ID, TotalValue: rampway.FormatUnits(c.Value, c.Asset.Decimals),
		NetworkFee: rampway.FormatUnits(c.NetworkFee, c.Asset.Decimals), ServiceFee: rampway.FormatUnits(c.ServiceFee, c.Asset.Decimals),
		GasLimit: c.GasLimit, CryptoPriceUSD: q.AssetUSD.String(), FiatPriceUSD: q.FiatUSD.String(), FiatSubtotal: major(q.Subtotal),
		FiatSpread: major(q.Spread), FiatMethodFee: major(q.MethodFee), ExpiresAt: q.ExpiresAt.Format(rampway.TimeFormat)}
	if !q.NoAmount {
		v.FiatAmount = rampway.FormatFixed(q.Amount, q.Currency.Decimals)
	}
	writeJSON(w, http.StatusOK, v)
	return nil
}
