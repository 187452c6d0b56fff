package checkout

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"time"

	"github.com/shopspring/decimal"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/pricing"
)

// Area C: the user pays fiat, the merchant receives the asset at its deposit address.

// Transfer gas limits: a native transfer to an account, to a contract wallet (its receive
// code), and an ERC-20 transfer.
const (
	nativeTransferGas   = 21_000
	contractTransferGas = 100_000
	tokenTransferGas    = 100_000
)

// DepositQuoteParams is what C1 quotes: a fiat amount to convert into an asset for the merchant.
type DepositQuoteParams struct {
	MerchantID string
	// Livemode is the mode of the key asking: its currencies and methods, its networks.
	Livemode   bool
	FiatSymbol string // order_fiat_symbol
	FiatAmount string // order_fiat_amount, major units
	// Method is fiat_payment_method; "" quotes with each method the amount fits (the page then
	// asks the user to choose).
	Method          string
	CryptoSymbol    string // convert_to_crypto_symbol
	CryptoNetwork   string // convert_to_crypto_network
	ContractAddress string // convert_to_crypto_contractAddress
	ServiceFeeBPS   *int64
}

// DepositQuote is an area C quote: what the user's fiat amount buys for the merchant with one
// payment method, the reverse of B3: the method's fee and the spread come off the fiat amount,
// the rest is converted at the prices, the network fee of the transfer and the service fee
// come off that, and what remains is rounded down.
type DepositQuote struct {
	Currency   rampway.FiatCurrency
	Method     rampway.PaymentMethod
	FiatAmount *big.Int // minor units, as asked
	Network    *rampway.Network
	Asset      rampway.Asset
	Payout     *rampway.MerchantDepositAddress
	// MethodFee and Spread are in the currency's minor units, exact.
	MethodFee, Spread decimal.Decimal
	AssetUSD, FiatUSD decimal.Decimal
	// CryptoAmount is what the merchant receives; NetworkFee and ServiceFee what came off it,
	// in the asset's base units. GasLimit is the transfer's.
	CryptoAmount, NetworkFee, ServiceFee *big.Int
	GasLimit                             uint64
}

// quoteDeposit checks a C1 request and quotes it with method (the request's, or each one the
// caller tries). Refusals are errors naming the field or the limit; a price or node that
// cannot answer is EUNAVAILABLE.
func (s *Service) quoteDeposit(ctx context.Context, p DepositQuoteParams) (*DepositQuote, []rampway.PaymentMethod, error) {
	cur, err := s.fiatCurrency("order_fiat_symbol", p.FiatSymbol, p.Livemode)
	if err != nil {
		return nil, nil, err
	}
	if p.FiatAmount == "" {
		return nil, nil, rampway.FieldErrorf("order_fiat_amount", "order_fiat_amount is required")
	}
	amount, err := rampway.ParseUnits(p.FiatAmount, cur.Decimals)
	if err != nil || amount.Sign() <= 0 {
		return nil, nil, rampway.FieldErrorf("order_fiat_amount", "order_fiat_amount must be a positive decimal with at most %d decimal places, such as 100.00, not %q",
			cur.Decimals, rampway.Echo(p.FiatAmount))
	}
	// The methods the amount may be paid with: the one asked, or every one whose limits take it.
	whole := decimal.NewFromBigInt(amount, -int32(cur.Decimals))
	fits := func(m rampway.PaymentMethod) bool {
		return !whole.LessThan(decimal.NewFromInt(m.Min)) && !whole.GreaterThan(decimal.NewFromInt(m.Max))
	}
	var methods []rampway.PaymentMethod
	if p.Method != "" {
		m, ok := cur.Method(p.Method)
		if !ok {
			return nil, nil, rampway.FieldErrorf("fiat_payment_method", "fiat_payment_method %s is not available for %s", rampway.Echo(p.Method), cur.Symbol)
		}
		if err := limits(whole, []rampway.PaymentMethod{*m}, cur.Symbol); err != nil {
			return nil, nil, err
		}
		methods = []rampway.PaymentMethod{*m}
	} else {
		for _, m := range cur.Methods {
			if fits(m) {
				methods = append(methods, m)
			}
		}
		if len(methods) == 0 {
			return nil, nil, limits(whole, cur.Methods, cur.Symbol)
		}
	}
	// The asset, on a configured network, with the merchant's deposit address for it.
	if p.CryptoNetwork == "" {
		return nil, nil, rampway.FieldErrorf("convert_to_crypto_network", "convert_to_crypto_network is required")
	}
	net, ok := s.chains.Network(p.CryptoNetwork)
	if !ok {
		return nil, nil, rampway.FieldErrorf("convert_to_crypto_network", "convert_to_crypto_network %q is not a supported network", rampway.Echo(p.CryptoNetwork))
	}
	if err := checkNetworkMode("convert_to_crypto_network", net, p.Livemode); err != nil {
		return nil, nil, err
	}
	if p.CryptoSymbol == "" {
		return nil, nil, rampway.FieldErrorf("convert_to_crypto_symbol", "convert_to_crypto_symbol is required")
	}
	asset, ok := net.Asset(p.CryptoSymbol)
	if !ok {
		return nil, nil, rampway.FieldErrorf("convert_to_crypto_symbol", "convert_to_crypto_symbol %s is not valid for network %s", rampway.Echo(p.CryptoSymbol), net.Name)
	}
	if p.ContractAddress != "" { // optional in the spec: the symbol and network name the asset
		if err := checkContractAddress("convert_to_crypto_contractAddress", p.ContractAddress, asset); err != nil {
			return nil, nil, err
		}
	}
	payout, err := s.payouts(ctx, p.MerchantID, net.Name, asset.Symbol)
	if rampway.ErrorCode(err) == rampway.ENOTFOUND {
		return nil, nil, rampway.FieldErrorf("convert_to_crypto_symbol", "The merchant has no deposit address for %s on %s: onboard one first", asset.Symbol, net.Name)
	} else if err != nil {
		return nil, nil, err
	}
	q := &DepositQuote{Currency: *cur, Method: methods[0], FiatAmount: amount, Network: net, Asset: asset, Payout: payout}
	if q.AssetUSD, err = s.prices.USDPrice(ctx, asset.Symbol); err == nil {
		q.FiatUSD, err = s.prices.USDPrice(ctx, cur.Symbol)
	}
	if err != nil {
		return nil, nil, &rampway.Error{Code: rampway.EUNAVAILABLE, Err: err,
			Message: fmt.Sprintf("No current price converts %s into %s: try again later", cur.Symbol, asset.Symbol)}
	}
	return q, methods, nil
}

// limits is the refusal of an amount no method of methods takes: below the lowest minimum, or
// above the highest maximum (nil when one takes it).
func limits(whole decimal.Decimal, methods []rampway.PaymentMethod, symbol string) error {
	lo, hi := methods[0].Min, methods[0].Max
	for _, m := range methods {
		lo, hi = min(lo, m.Min), max(hi, m.Max)
		if !whole.LessThan(decimal.NewFromInt(m.Min)) && !whole.GreaterThan(decimal.NewFromInt(m.Max)) {
			return nil
		}
	}
	if whole.LessThan(decimal.NewFromInt(lo)) {
		return rampway.FieldErrorf("order_fiat_amount", "Minimum buy amount is %d %s", lo, symbol)
	}
	if whole.GreaterThan(decimal.NewFromInt(hi)) {
		return rampway.FieldErrorf("order_fiat_amount", "Please place an order below %d %s", hi, symbol)
	}
	return rampway.FieldErrorf("order_fiat_amount", "No payment method of %s takes %s %s", symbol, whole.String(), symbol)
}

// priceDeposit fills q's amounts for method m: fees off the fiat amount, the rest at the
// prices, then the transfer's network fee and the service fee off the crypto, rounded down to
// AmountDigits significant digits (the rounding goes to the network fee, so the parts add up).
// The transfer is simulated from the hot wallet: one it cannot pay, or that the deposit
// address refuses, is refused now, never discovered after the user paid.
func (s *Service) priceDeposit(ctx context.Context, q *DepositQuote, m rampway.PaymentMethod, feeBPS *int64) error {
	q.Method = m
	fiat := decimal.NewFromBigInt(q.FiatAmount, 0)
	base := fiat.Sub(decimal.NewFromInt(m.FeeFixed)).DivRound(decimal.New(10_000+m.FeeBPS, -4), 18)
	subtotal := base.DivRound(decimal.New(10_000+s.cfg.FiatSpreadBPS, -4), 18)
	q.MethodFee, q.Spread = fiat.Sub(base), base.Sub(subtotal)
	if subtotal.Sign() <= 0 {
		return rampway.FieldErrorf("order_fiat_amount", "%s %s does not cover the fees of %s", rampway.FormatFixed(q.FiatAmount, q.Currency.Decimals), q.Currency.Symbol, m.ID)
	}
	// minor units -> major -> USD -> asset -> base units, down, as one exact fraction floored
	// once (rounding each step could land a base unit short of a whole amount):
	// (fiat - fixed) * 10^8 * fiatUSD * 10^assetDecimals / ((10^4+fee)(10^4+spread) * 10^curDecimals * assetUSD).
	num := fiat.Sub(decimal.NewFromInt(m.FeeFixed)).Shift(8).Mul(q.FiatUSD).Shift(int32(q.Asset.Decimals))
	den := decimal.NewFromInt((10_000 + m.FeeBPS) * (10_000 + s.cfg.FiatSpreadBPS)).Shift(int32(q.Currency.Decimals)).Mul(q.AssetUSD)
	whole, _ := num.QuoRem(den, 0)
	gross := whole.BigInt()

	evm, ok := s.chains.EVM(q.Network.Name)
	if !ok {
		return fmt.Errorf("no client for network %s", q.Network.Name)
	}
	if err := s.simulateTransfer(ctx, evm, q, gross); err != nil {
		return err
	}
	fd, err := s.fees.get(ctx, q.Network.Name, evm, s.now())
	if err != nil {
		return unavailable(q.Network.Name, err)
	}
	feeWei := new(big.Int).Mul(new(big.Int).Add(fd.tip, fd.baseFee), new(big.Int).SetUint64(q.GasLimit))
	if q.NetworkFee, err = pricing.Convert(ctx, s.prices, feeWei, q.Network.Native, q.Asset); err != nil {
		return &rampway.Error{Code: rampway.EUNAVAILABLE, Message: fmt.Sprintf("No price is available to convert the network fee into %s", q.Asset.Symbol), Err: err}
	}
	bps := s.cfg.ServiceFeeBPS
	if feeBPS != nil {
		bps = *feeBPS
	}
	q.ServiceFee = pricing.BPS(gross, bps)
	exact := new(big.Int).Sub(gross, q.NetworkFee)
	exact.Sub(exact, q.ServiceFee)
	if exact.Sign() <= 0 {
		return rampway.FieldErrorf("order_fiat_amount", "%s %s does not cover the network fee of the transfer: place a larger order",
			rampway.FormatFixed(q.FiatAmount, q.Currency.Decimals), q.Currency.Symbol)
	}
	q.CryptoAmount = rampway.RoundDownSignificant(exact, rampway.AmountDigits)
	q.NetworkFee.Add(q.NetworkFee, new(big.Int).Sub(exact, q.CryptoAmount))
	return nil
}

// simulateTransfer runs the transfer of v to the merchant's deposit address from the hot
// wallet and sets q.GasLimit: a native transfer at 21,000 gas, or more when the address is a
// contract wallet whose code runs; a token's transfer.
func (s *Service) simulateTransfer(ctx context.Context, evm EVM, q *DepositQuote, v *big.Int) error {
	to := q.Payout.Address
	tries := []rampway.Call{rampway.PayoutCall(q.Asset, to, v, nativeTransferGas), rampway.PayoutCall(q.Asset, to, v, contractTransferGas)}
	if !q.Asset.IsNative() {
		tries = []rampway.Call{rampway.PayoutCall(q.Asset, to, v, tokenTransferGas)}
	}
	cannot := rampway.Errorf(rampway.EUNAVAILABLE, "The service cannot deliver %s %s on %s at the moment: try a smaller amount or again later",
		rampway.FormatUnits(rampway.RoundDownSignificant(v, rampway.AmountDigits), q.Asset.Decimals), q.Asset.Symbol, q.Network.Name)
	var reason string
	for _, c := range tries {
		var err error
		reason, err = evm.Simulate(ctx, s.cfg.HotWallet, []rampway.Call{c})
		switch {
		case errors.Is(err, rampway.ErrInsufficientFunds):
			return cannot
		case err != nil:
			return unavailable(q.Network.Name, err)
		case reason == "":
			q.GasLimit = c.Gas
			return nil
		}
	}
	if !q.Asset.IsNative() {
		// A token's revert says little (a custom error, often): the same transfer to the hot
		// wallet itself tells the hot wallet's shortfall from the deposit address's refusal.
		self, err := evm.Simulate(ctx, s.cfg.HotWallet, []rampway.Call{rampway.PayoutCall(q.Asset, s.cfg.HotWallet, v, tokenTransferGas)})
		switch {
		case err != nil && !errors.Is(err, rampway.ErrInsufficientFunds):
			return unavailable(q.Network.Name, err)
		case err != nil || self != "":
			return cannot
		}
	}
	return rampway.FieldErrorf("convert_to_crypto_symbol", "The merchant's deposit address %s refuses a transfer of %s: %s", to.Hex(), q.Asset.Symbol, reason)
}

// DepositQuotes prices an area C request with its method, or with each method its amount
// fits (the page's quote screen), in the currency's order.
func (s *Service) DepositQuotes(ctx context.Context, p DepositQuoteParams) ([]*DepositQuote, error) {
	q, methods, err := s.quoteDeposit(ctx, p)
	if err != nil {
		return nil, err
	}
	var out []*DepositQuote
	for _, m := range methods {
		mq := *q
		if err := s.priceDeposit(ctx, &mq, m, p.ServiceFeeBPS); err != nil {
			return nil, err
		}
		out = append(out, &mq)
	}
	return out, nil
}

// DepositOrderParams is a C1 request.
type DepositOrderParams struct {
	Quote DepositQuoteParams
	Order OrderParams
	Reply func(c *Created) (*rampway.IdempotentReply, error)
}

// CreateDepositOrder creates an area C order: checked and quoted (with the method given, or
// with the first the amount fits: crypto_amount is then an estimate the page's choice
// settles), the transfer simulated from the hot wallet, stored with its order.created event.
// merchant_webhook_url overrides the merchant's URL for this order's events.
func (s *Service) CreateDepositOrder(ctx context.Context, m *rampway.Merchant, p DepositOrderParams) (*Created, error) {
	if err := s.checkOrderParams(p.Order); err != nil {
		return nil, err
	}
	p.Order.User = isdMobile(p.Order.User)
	if err := checkIdentity(p.Order.User, s.now()); err != nil {
		return nil, err
	}
	p.Quote.MerchantID, p.Quote.ServiceFeeBPS = m.ID, m.ServiceFeeBPS
	q, methods, err := s.quoteDeposit(ctx, p.Quote)
	if err != nil {
		return nil, err
	}
	// Without a method, each method the amount fits is quoted now and kept: the page's quote
	// screen shows these, and the user's choice takes the one shown.
	var quotes []rampway.MethodQuote
	first := *q
	var firstErr error
	for _, m := range methods {
		mq := *q
		if err := s.priceDeposit(ctx, &mq, m, p.Quote.ServiceFeeBPS); err != nil {
			if rampway.ErrorCode(err) != rampway.EINVALID || p.Quote.Method != "" {
				return nil, err
			}
			// A method whose fee the amount does not cover is left out of the choice.
			firstErr = cmp.Or(firstErr, err)
			continue
		}
		if first.CryptoAmount == nil {
			first = mq
		}
		if p.Quote.Method == "" {
			quotes = append(quotes, rampway.MethodQuote{Method: m.ID, Name: m.Name, CryptoAmount: mq.CryptoAmount, NetworkFee: mq.NetworkFee,
				ServiceFee: mq.ServiceFee, MethodFee: mq.MethodFee.Ceil().BigInt(), Pricing: s.depositPricing(&mq)})
		}
	}
	if first.CryptoAmount == nil {
		return nil, firstErr
	}
	q = &first
	now := s.now().UTC().Truncate(time.Microsecond)
	expiry := s.cfg.OrderExpiry
	method := ""
	var pricing *rampway.FiatPricing
	if p.Quote.Method != "" {
		method, pricing = q.Method.ID, s.depositPricing(q)
		if rampway.SettlesLate(method) {
			expiry = s.cfg.BankTransferExpiry
		}
	}
	o := &rampway.Order{
		ID: rampway.NewID(rampway.PrefixOrder, now), MerchantID: m.ID, Area: rampway.AreaDeposit, Status: rampway.StatusCreated, Livemode: p.Quote.Livemode,
		MerchantUserID: p.Order.MerchantUserID, MerchantTxnID: p.Order.MerchantTxnID, MerchantRedirectURL: p.Order.MerchantRedirectURL,
		MerchantWebhookURL: p.Order.MerchantWebhookURL, User: p.Order.User,
		Network: q.Network.Name, Asset: q.Asset, CryptoAmount: q.CryptoAmount, CryptoReceived: new(big.Int),
		FunctionArgs: normalizeArgs(nil), PaymentValue: new(big.Int), GasLimit: q.GasLimit, NetworkFee: q.NetworkFee, ServiceFee: q.ServiceFee,
		PayoutAddress: q.Payout.Address, MethodQuotes: quotes,
		FiatSymbol: q.Currency.Symbol, FiatMethod: method, FiatAmount: q.FiatAmount, FiatDecimals: q.Currency.Decimals, FiatPricing: pricing,
		ExpiresAt: now.Add(expiry), CreatedAt: now, UpdatedAt: now,
	}
	return s.storeNew(ctx, m, o, p.Reply)
}

// ChooseFiatMethod is the page's quote screen's choice for an area C order created without a
// method: the order takes the quote of that method it kept from its creation (the one the
// screen showed). ECONFLICT when it has a method; EINVALID for a method it has no quote for.
func (s *Service) ChooseFiatMethod(ctx context.Context, o *rampway.Order, method string) (*rampway.Order, error) {
	if o.Area != rampway.AreaDeposit || o.FiatMethod != "" || o.Status != rampway.StatusCreated {
		return nil, rampway.Errorf(rampway.ECONFLICT, "order %s takes no choice of payment method", o.ID)
	}
	i := slices.IndexFunc(o.MethodQuotes, func(q rampway.MethodQuote) bool { return q.Method == method })
	if i < 0 {
		return nil, rampway.FieldErrorf("method", "method %q is not one this order was quoted for", rampway.Echo(method))
	}
	q := o.MethodQuotes[i]
	now := s.now().UTC().Truncate(time.Microsecond)
	expires := o.ExpiresAt
	if rampway.SettlesLate(method) {
		expires = now.Add(s.cfg.BankTransferExpiry)
	}
	return s.store.Apply(ctx, o.ID, rampway.FiatMethodChosen{Method: method, CryptoAmount: q.CryptoAmount, NetworkFee: q.NetworkFee,
		ServiceFee: q.ServiceFee, Pricing: q.Pricing, ExpiresAt: expires}, now)
}

// depositPricing is the fiat side of an area C quote as the order keeps it: the fees came off
// the fiat amount, the subtotal is what was converted.
func (s *Service) depositPricing(q *DepositQuote) *rampway.FiatPricing {
	subtotal := decimal.NewFromBigInt(q.FiatAmount, 0).Sub(q.MethodFee).Sub(q.Spread)
	return fiatPricing(q.Currency, q.Method, s.cfg.FiatSpreadBPS, q.AssetUSD, q.FiatUSD, subtotal, q.Spread, q.MethodFee)
}

func contractText(a rampway.Asset) string {
	if a.IsNative() {
		return ""
	}
	return a.Contract.Hex()
}

// isdDigits is a mobile number written with its ISD code first but no plus sign.
var isdDigits = regexp.MustCompile(`^[1-9][0-9]{6,14}$`)

// isdMobile returns the user fields with an area C user_mobileNumber written without its plus
// sign ("4915112345678": C1 asks only for the ISD code prefix, where B1 asks for the plus sign
// too) in E.164, as B1 takes it ("+4915112345678"); the fields are not changed in place.
func isdMobile(u map[string]string) map[string]string {
	v, ok := u["user_mobileNumber"]
	if !ok || !isdDigits.MatchString(v) {
		return u
	}
	out := make(map[string]string, len(u))
	for k, x := range u {
		out[k] = x
	}
	out["user_mobileNumber"] = "+" + v
	return out
}
