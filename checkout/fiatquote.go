package checkout

import (
	"context"
	"fmt"
	"math/big"
	"time"

	"github.com/shopspring/decimal"

	"github.com/rampway/rampway"
)

// DefaultFiatQuoteTTL is how long a fiat quote's price is stated to hold (its expires_at).
const DefaultFiatQuoteTTL = 5 * time.Minute

// FiatQuoteParams is a B3 request.
type FiatQuoteParams struct {
	MerchantID string
	// Livemode is the mode of the key asking: its currencies and methods, its networks.
	Livemode   bool
	FiatSymbol string // order_fiat_symbol
	Method     string // fiat_payment_method
	Execution  ExecutionParams
	// ServiceFeeBPS is the merchant's own service fee (nil: the configured default).
	ServiceFeeBPS *int64
}

// FiatQuote is a priced fiat-paid order: the crypto the call needs (Crypto, in the payable
// asset, from our liquidity) and what the user pays for it in the currency, in its minor
// units: Subtotal (the crypto at the price), Spread, MethodFee, and Amount, their sum rounded
// up to the minor unit.
type FiatQuote struct {
	Crypto    *Quote
	Currency  rampway.FiatCurrency
	Method    rampway.PaymentMethod
	AssetUSD  decimal.Decimal // the paying asset's price, in USD
	FiatUSD   decimal.Decimal // the currency's price, in USD
	Subtotal  decimal.Decimal // minor units, exact
	Spread    decimal.Decimal
	MethodFee decimal.Decimal
	Amount    *big.Int // what the user pays, minor units
	// NoAmount: no fiat_amount is stated (""): below the method's minimum, or no price.
	NoAmount bool
	// NoPrice: no current price converts the asset into the currency (a feed down or stale):
	// a passing fault, not the request's.
	NoPrice   bool
	Allowed   bool
	Message   string
	ExpiresAt time.Time
}

// FiatQuote prices a fiat-paid order (B3; B1 quotes the same way): the call's crypto as A2
// prices it (value, network fee, service fee; simulated from the hot wallet), converted into
// the currency at the prices, plus fiat.spread_bps and the method's fee, rounded up to the
// minor unit. Invalid input is an error naming the request's field; a valid request that
// cannot be served (outside the method's limits, a call that would revert, no price) is a
// FiatQuote with Allowed false and a Message saying why.
func (s *Service) FiatQuote(ctx context.Context, p FiatQuoteParams) (*FiatQuote, error) {
	cur, err := s.fiatCurrency("order_fiat_symbol", p.FiatSymbol, p.Livemode)
	if err != nil {
		return nil, err
	}
	if p.Method == "" {
		return nil, rampway.FieldErrorf("fiat_payment_method", "fiat_payment_method is required")
	}
	method, ok := cur.Method(p.Method)
	if !ok {
		return nil, rampway.FieldErrorf("fiat_payment_method", "fiat_payment_method %s is not available for %s", rampway.Echo(p.Method), cur.Symbol)
	}
	// The crypto side, named by the contractExecution alone: its network, and the asset paid
	// to the function (the network's coin for a function paid nothing: the gas).
	x := p.Execution
	if x.NetworkName == "" {
		return nil, rampway.FieldErrorf(fNetwork, "%s is required", fNetwork)
	}
	net, ok := s.chains.Network(x.NetworkName)
	if !ok {
		return nil, rampway.FieldErrorf(fNetwork, "networkName %q is not a supported network", rampway.Echo(x.NetworkName))
	}
	if err := checkNetworkMode(fNetwork, net, p.Livemode); err != nil {
		return nil, err
	}
	symbol := net.Native.Symbol
	if x.Payment != nil && x.Payment.Symbol != "" {
		symbol = x.Payment.Symbol
	}
	cq, err := s.Quote(ctx, QuoteParams{MerchantID: p.MerchantID, Livemode: p.Livemode, CryptoSymbol: symbol, CryptoNetwork: net.Name, Execution: x,
		ServiceFeeBPS: p.ServiceFeeBPS, assetFromPayment: true, deferSimulation: true})
	if err != nil {
		return nil, err
	}
	q := &FiatQuote{Crypto: cq, Currency: *cur, Method: *method, ExpiresAt: s.now().UTC().Add(DefaultFiatQuoteTTL).Truncate(time.Millisecond)}
	if q.AssetUSD, err = s.prices.USDPrice(ctx, cq.Asset.Symbol); err == nil {
		q.FiatUSD, err = s.prices.USDPrice(ctx, cur.Symbol)
	}
	if err != nil {
		// A missing, stale or non-positive price is never a zero price: the quote is not
		// allowed, and says so.
		q.Amount, q.NoAmount, q.NoPrice, q.Allowed = new(big.Int), true, true, false
		q.Message = fmt.Sprintf("No current price converts %s into %s: try again later", cq.Asset.Symbol, cur.Symbol)
		return q, nil
	}
	// minor units = base units / 10^asset decimals * asset USD / fiat USD * 10^fiat decimals
	crypto := decimal.NewFromBigInt(cq.Amount, -int32(cq.Asset.Decimals))
	q.Subtotal = crypto.Mul(q.AssetUSD).Div(q.FiatUSD).Shift(int32(cur.Decimals))
	q.Spread = q.Subtotal.Mul(decimal.New(s.cfg.FiatSpreadBPS, -4))
	base := q.Subtotal.Add(q.Spread)
	q.MethodFee = base.Mul(decimal.New(method.FeeBPS, -4)).Add(decimal.NewFromInt(method.FeeFixed))
	q.Amount = base.Add(q.MethodFee).Ceil().BigInt()

	// The method's limits first: they cost nothing, and a quote outside them says so whatever
	// else is wrong with it (the call is simulated only for an amount the method takes).
	whole := decimal.NewFromBigInt(q.Amount, -int32(cur.Decimals))
	switch {
	case whole.LessThan(decimal.NewFromInt(method.Min)):
		q.NoAmount, q.Allowed, q.Message = true, false, fmt.Sprintf("Minimum buy amount is %d %s", method.Min, cur.Symbol)
		return q, nil
	case whole.GreaterThan(decimal.NewFromInt(method.Max)):
		q.Allowed, q.Message = false, fmt.Sprintf("Please place an order below %d %s", method.Max, cur.Symbol)
		return q, nil
	}
	if cq.Allowed {
		if err := s.runSimulation(ctx, cq); err != nil {
			return nil, err
		}
	}
	q.Allowed, q.Message = cq.Allowed, cq.Message
	if q.Allowed {
		q.Message = fmt.Sprintf("Quote valid until %s", q.ExpiresAt.Format(rampway.TimeFormat))
	}
	return q, nil
}
