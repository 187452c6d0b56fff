package rampway

// FiatCurrency is a fiat currency users may pay in (areas B and C), with the payment methods
// it takes. Amounts of a currency are integers in its minor unit (cents).
type FiatCurrency struct {
	Symbol string // ISO 4217, "EUR"
	Name   string // "Euro"
	// Decimals is the number of digits of the minor unit (2 for EUR, 0 for JPY).
	Decimals uint8
	// Countries are the ISO 3166-1 alpha-2 codes of the countries that support it.
	Countries []string
	Methods   []PaymentMethod
}

// PaymentMethod is a way to pay a fiat currency: its id is the API's fiat_payment_method.
type PaymentMethod struct {
	ID   string // "credit_debit_card"
	Name string // "Card"; may be blank
	// Min and Max bound one payment, in whole units of the currency (the spec's minAmount and
	// maxAmount, integers).
	Min, Max int64
	// FeeBPS and FeeFixed are the method's fee: basis points of the amount, plus a fixed part
	// in minor units.
	FeeBPS   int64
	FeeFixed int64
}

// Method returns the currency's payment method id, if it takes it.
func (c *FiatCurrency) Method(id string) (*PaymentMethod, bool) {
	for i := range c.Methods {
		if c.Methods[i].ID == id {
			return &c.Methods[i], true
		}
	}
	return nil, false
}
