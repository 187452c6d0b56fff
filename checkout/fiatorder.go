package checkout

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"regexp"
	"time"

	"github.com/shopspring/decimal"

	"github.com/rampway/rampway"
)

// DefaultBankTransferExpiry is how long a bank-transfer order waits for its money (and keeps
// its quote): a transfer takes a working day or two.
const DefaultBankTransferExpiry = 72 * time.Hour

// FiatOrderParams is a B1 request.
type FiatOrderParams struct {
	Quote FiatQuoteParams
	Order OrderParams
	// Reply is as in MintOrderParams.
	Reply func(c *Created) (*rampway.IdempotentReply, error)
}

// CreateFiatOrder creates an area B order: it quotes as B3 does, refuses what the quote does
// not allow (400 naming the limit or the reason), and stores the order with its quote (the
// fiat amount and the crypto it pays for) and its order.created event. The user pays on the
// hosted page; nothing is asked of the provider yet.
func (s *Service) CreateFiatOrder(ctx context.Context, m *rampway.Merchant, p FiatOrderParams) (*Created, error) {
	if err := s.checkOrderParams(p.Order); err != nil {
		return nil, err
	}
	if err := checkIdentity(p.Order.User, s.now()); err != nil {
		return nil, err
	}
	p.Quote.MerchantID, p.Quote.ServiceFeeBPS = m.ID, m.ServiceFeeBPS
	q, err := s.FiatQuote(ctx, p.Quote)
	if err != nil {
		return nil, err
	}
	switch {
	case q.NoPrice: // a feed down or stale: the merchant may retry, as for a node that is down
		return nil, rampway.Errorf(rampway.EUNAVAILABLE, "%s", q.Message)
	case !q.Allowed:
		return nil, rampway.Errorf(rampway.EINVALID, "%s", q.Message)
	}
	now := s.now().UTC().Truncate(time.Microsecond)
	expiry := s.cfg.OrderExpiry
	if rampway.SettlesLate(q.Method.ID) {
		expiry = s.cfg.BankTransferExpiry
	}
	cq := q.Crypto
	o := &rampway.Order{
		ID: rampway.NewID(rampway.PrefixOrder, now), MerchantID: m.ID, Area: rampway.AreaNFTRamp, Status: rampway.StatusCreated, Livemode: p.Quote.Livemode,
		MerchantUserID: p.Order.MerchantUserID, MerchantTxnID: p.Order.MerchantTxnID, MerchantRedirectURL: p.Order.MerchantRedirectURL,
		MerchantWebhookURL: p.Order.MerchantWebhookURL, User: p.Order.User,
		Network: cq.Network.Name, Asset: cq.Asset, CryptoAmount: cq.Amount, CryptoReceived: new(big.Int),
		FunctionID: cq.Function.ID, FunctionArgs: cq.Args, PaymentValue: cq.Value, GasLimit: cq.GasLimit,
		NetworkFee: cq.NetworkFee, ServiceFee: cq.ServiceFee,
		FiatSymbol: q.Currency.Symbol, FiatMethod: q.Method.ID, FiatAmount: q.Amount, FiatDecimals: q.Currency.Decimals,
		FiatPricing: fiatPricing(q.Currency, q.Method, s.cfg.FiatSpreadBPS, q.AssetUSD, q.FiatUSD, q.Subtotal, q.Spread, q.MethodFee),
		ExpiresAt:   now.Add(expiry), CreatedAt: now, UpdatedAt: now,
	}
	return s.storeNew(ctx, m, o, p.Reply)
}

// fiatPricing is what an order keeps of its fiat quote (rampway.FiatPricing): the prices, and
// the parts given in minor units, exact, as major-unit decimal strings (B3's).
func fiatPricing(cur rampway.FiatCurrency, m rampway.PaymentMethod, spreadBPS int64, assetUSD, fiatUSD, subtotal, spread, fee decimal.Decimal) *rampway.FiatPricing {
	major := func(minor decimal.Decimal) string { return minor.Shift(-int32(cur.Decimals)).String() }
	return &rampway.FiatPricing{CryptoPriceUSD: assetUSD.String(), FiatPriceUSD: fiatUSD.String(), Subtotal: major(subtotal), Spread: major(spread),
		MethodFee: major(fee), SpreadBPS: spreadBPS, MethodFeeBPS: m.FeeBPS, MethodFeeFixed: rampway.FormatFixed(big.NewInt(m.FeeFixed), cur.Decimals)}
}

var (
	e164 = regexp.MustCompile(`^\+[1-9][0-9]{6,14}$`)
	// postCode: letters, digits, spaces and hyphens, as postal codes are written.
	postCode = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9 -]*$`)
)

// checkIdentity checks the KYC fields of a fiat order as DESIGN.md says: an E.164 mobile
// number, a yyyy-mm-dd date of birth in the past, an ISO 3166-1 alpha-2 country.
func checkIdentity(u map[string]string, now time.Time) error {
	if v, ok := u["user_mobileNumber"]; ok && !e164.MatchString(v) {
		return rampway.FieldErrorf("user_mobileNumber", "user_mobileNumber must be an international number with its ISD code, plus sign first (E.164), such as +447700900123")
	}
	if v, ok := u["user_dob"]; ok {
		d, err := time.Parse(time.DateOnly, v)
		switch {
		case err != nil:
			return rampway.FieldErrorf("user_dob", "user_dob must be a date written yyyy-mm-dd")
		case !d.Before(now.UTC().Truncate(24 * time.Hour)):
			return rampway.FieldErrorf("user_dob", "user_dob must be in the past")
		case d.Year() < 1900:
			return rampway.FieldErrorf("user_dob", "user_dob must be after 1900")
		}
	}
	if v, ok := u["user_countryCode"]; ok {
		if !rampway.ValidCountry(v) {
			return rampway.FieldErrorf("user_countryCode", "user_countryCode must be an ISO 3166-1 alpha-2 country code in capitals, such as DE")
		}
	}
	if v, ok := u["user_postCode"]; ok && !postCode.MatchString(v) {
		return rampway.FieldErrorf("user_postCode", "user_postCode must be letters, digits, spaces and hyphens")
	}
	return nil
}

// IdentityFields are the user fields the hosted page's identity step asks for before a fiat
// payment, in its order; an order carrying all of them skips the step.
var IdentityFields = []string{"user_first_name", "user_last_name", "user_email_id", "user_dob", "user_countryCode"}

// IdentityComplete reports whether an order carries every field of the identity step.
func IdentityComplete(o *rampway.Order) bool {
	for _, f := range IdentityFields {
		if o.User[f] == "" {
			return false
		}
	}
	return true
}

// IdentityComplete reports whether an order carries every field of the identity step.
func (s *Service) IdentityComplete(o *rampway.Order) bool { return IdentityComplete(o) }

// SetIdentity stores what the user entered at the page's identity step, checked as B1
// checks it, for an order awaiting its fiat payment.
func (s *Service) SetIdentity(ctx context.Context, orderID string, fields map[string]string) (*rampway.Order, error) {
	for _, f := range IdentityFields {
		if fields[f] == "" {
			return nil, rampway.FieldErrorf(f, "%s is required", f)
		}
	}
	if err := s.checkOrderParams(OrderParams{MerchantUserID: "-", MerchantRedirectURL: "https://x.invalid", User: fields}); err != nil {
		return nil, err
	}
	if err := checkIdentity(fields, s.now()); err != nil {
		return nil, err
	}
	return s.store.SetOrderUser(ctx, orderID, fields, s.now().UTC().Truncate(time.Microsecond))
}

// ErrNoFiatProvider is returned for a fiat payment when no provider of its order's mode is
// configured.
var ErrNoFiatProvider = errors.New("no fiat payment provider of the order's mode takes its currency and method")

// paymentProvider returns the provider of a payment of o: the one named (an existing payment's),
// or for a new payment ("") the first of o's mode that takes its currency and method. It refuses a provider of the other mode
// than o's (rampway.ModeMatches): test money never reaches a live provider, nor the reverse.
func (s *Service) paymentProvider(o *rampway.Order, name string) (rampway.FiatProvider, error) {
	var p rampway.FiatProvider
	if name == "" {
		p = s.ProviderFor(o)
	} else {
		p = s.providers[name]
	}
	if p == nil {
		if name == "" {
			return nil, ErrNoFiatProvider
		}
		return nil, fmt.Errorf("order %s: payment provider %s is not configured", o.ID, name)
	}
	if err := rampway.ModeMatches("payment provider "+p.Name(), o.Livemode, p.Livemode()); err != nil {
		return nil, fmt.Errorf("order %s: %w", o.ID, err)
	}
	return p, nil
}

// StartFiatPayment returns the payment the user pays an area B or C order with: the order's
// payment still waiting for the user (as OpenFiatPayment finds it), or a new one started at the
// provider (after a decline, another card is a new payment). returnURL is where the provider
// sends the user back. ECONFLICT when the order no longer takes a payment.
func (s *Service) StartFiatPayment(ctx context.Context, o *rampway.Order, returnURL string) (*rampway.FiatPayment, error) {
	o, p, err := s.openFiatPayment(ctx, o)
	if err != nil {
		return nil, err
	}
	now := s.now().UTC().Truncate(time.Microsecond)
	name := ""
	if p != nil {
		name = p.Provider
	}
	prov, err := s.paymentProvider(o, name)
	if err != nil {
		return nil, err
	}
	if p == nil {
		p = &rampway.FiatPayment{ID: rampway.NewID(rampway.PrefixFiatPayment, now), OrderID: o.ID, Provider: prov.Name(),
			Method: o.FiatMethod, Currency: o.FiatSymbol, Amount: o.FiatAmount, Received: new(big.Int), Decimals: o.FiatDecimals,
			Status: rampway.FiatPending, CreatedAt: now, UpdatedAt: now}
		if err := s.store.CreateFiatPayment(ctx, p); err != nil {
			return nil, err
		}
	}
	if p.ProviderRef != "" {
		return p, nil
	}
	// Stored first, then started under its id: a retry after a crash between the two gets the
	// provider's same payment back.
	pp, err := prov.Start(ctx, rampway.StartFiatPayment{PaymentID: p.ID, OrderID: o.ID, Amount: p.Amount, Currency: p.Currency,
		Decimals: p.Decimals, Method: p.Method, ReturnURL: returnURL, Livemode: o.Livemode})
	if err != nil {
		return nil, fmt.Errorf("start %s payment: %w", prov.Name(), err)
	}
	if err := s.store.SetFiatPaymentStarted(ctx, p.ID, pp, now); err != nil {
		return nil, err
	}
	p.ProviderRef, p.Reference, p.Next = pp.Ref, pp.Reference, pp.Next
	return p, nil
}

// OpenFiatPayment returns the order's payment still waiting for the user, or nil when it has
// none (nothing started yet, or the last one failed): it creates nothing, here or at the
// provider, so a GET of the page may call it. A payment the provider holds is read from the
// provider first, as StartFiatPayment reads it. ECONFLICT when the order no longer takes a
// payment; ErrNoFiatProvider for none when no provider could start one.
func (s *Service) OpenFiatPayment(ctx context.Context, o *rampway.Order) (*rampway.FiatPayment, error) {
	o, p, err := s.openFiatPayment(ctx, o)
	if err != nil {
		return nil, err
	}
	if p == nil {
		if _, err := s.paymentProvider(o, ""); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// openFiatPayment is OpenFiatPayment, with the order as it is after the provider's state of
// its payment was applied.
func (s *Service) openFiatPayment(ctx context.Context, o *rampway.Order) (*rampway.Order, *rampway.FiatPayment, error) {
	if !rampway.TakesFiatPayment(o) {
		return nil, nil, rampway.Errorf(rampway.ECONFLICT, "order %s takes no payment in %s", o.ID, o.Status)
	}
	p, err := s.openPayment(ctx, o)
	if err != nil || p == nil || p.ProviderRef == "" {
		return o, p, err
	}
	// The user may be back from the provider's page before its notification: its state is
	// read from the provider and applied (once, as the notification would be).
	prov, err := s.paymentProvider(o, p.Provider)
	if err != nil {
		return nil, nil, err
	}
	pp, err := prov.Payment(ctx, p.ProviderRef)
	if err != nil {
		return nil, nil, fmt.Errorf("read %s payment: %w", prov.Name(), err)
	}
	if pp.Status == p.Status {
		return o, p, nil
	}
	if _, err := s.store.ApplyProviderEvent(ctx, prov.Name(), rampway.SyncEvent(pp), s.now().UTC().Truncate(time.Microsecond)); err != nil {
		return nil, nil, err
	}
	if o, err = s.store.Order(ctx, o.ID); err != nil {
		return nil, nil, err
	}
	if o.Status != rampway.StatusCreated && o.Status != rampway.StatusOnrampProcessing {
		return nil, nil, rampway.Errorf(rampway.ECONFLICT, "order %s takes no payment in %s", o.ID, o.Status)
	}
	if p, err = s.openPayment(ctx, o); err != nil {
		return nil, nil, err
	}
	return o, p, nil
}

// openPayment is the order's latest payment still waiting for the user or the provider (nil
// for none).
func (s *Service) openPayment(ctx context.Context, o *rampway.Order) (*rampway.FiatPayment, error) {
	ps, err := s.store.FiatPayments(ctx, o.ID)
	if err != nil {
		return nil, err
	}
	for i := len(ps) - 1; i >= 0; i-- {
		switch p := ps[i]; {
		case p.Status == rampway.FiatPending || p.Status == rampway.FiatProcessing:
			return p, nil
		case rampway.IsBankTransfer(p.Method) && (p.Status == rampway.FiatSucceeded || p.Status == rampway.FiatRefunded) &&
			o.Status == rampway.StatusCreated:
			// Money arrived that did not pay the order (short; sent back): the same account
			// and reference take the right amount.
			return p, nil
		}
	}
	return nil, nil
}

// FiatPayments returns an order's fiat payments, oldest first.
func (s *Service) FiatPayments(ctx context.Context, o *rampway.Order) ([]*rampway.FiatPayment, error) {
	return s.store.FiatPayments(ctx, o.ID)
}

// FiatActions returns an order's captures, voids and refunds, oldest first.
func (s *Service) FiatActions(ctx context.Context, o *rampway.Order) ([]*rampway.FiatAction, error) {
	return s.store.FiatActions(ctx, o.ID)
}

// ProviderWebhook applies a notification that reached /providers/{name}/webhook: verified by
// its provider (a bad signature is EINVALID and changes nothing), then applied once. It reports
// whether it was new.
func (s *Service) ProviderWebhook(ctx context.Context, name string, h http.Header, body []byte) (bool, error) {
	prov := s.providers[name]
	if prov == nil {
		return false, rampway.Errorf(rampway.ENOTFOUND, "no payment provider %q is configured", rampway.Echo(name))
	}
	now := s.now().UTC().Truncate(time.Microsecond)
	ev, err := prov.ParseWebhook(h, body, now)
	if errors.Is(err, rampway.ErrEventNotRead) {
		return false, fmt.Errorf("%w: %s: %v", ErrIgnored, name, err)
	}
	if err != nil {
		return false, rampway.Errorf(rampway.EINVALID, "%s webhook: %v", name, err)
	}
	applied, err := s.store.ApplyProviderEvent(ctx, name, ev, now)
	if rampway.ErrorCode(err) == rampway.ENOTFOUND {
		return false, fmt.Errorf("%w: %s %s", ErrUnknownPayment, name, ev.PaymentRef)
	}
	return applied, err
}

// ErrIgnored is a verified provider notification that changes nothing here: acknowledged
// and ignored (a 4xx or 5xx would have the provider send it again for days).
var ErrIgnored = errors.New("notification ignored")

// ErrUnknownPayment is a verified provider notification about a payment this service never
// started (another installation on the same provider account): ignored.
var ErrUnknownPayment = fmt.Errorf("%w: about an unknown payment", ErrIgnored)
