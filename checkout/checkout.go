// Package checkout is the request-time use cases: quotes, orders and their lookup, the
// user's cancel, webhook logs, and the expiry of unpaid orders. The chain workers are in
// package chainwork.
package checkout

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"net/url"
	"slices"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/contract"
	"github.com/rampway/rampway/pricing"
)

// EVM is what a quote asks of a network's node.
type EVM interface {
	HeaderByNumber(ctx context.Context, number *big.Int) (*types.Header, error)
	SuggestGasTipCap(ctx context.Context) (*big.Int, error)
	// Simulate runs calls in order from `from` on the latest state, sending nothing, and
	// returns the reason the first failing call fails ("" when none does), or
	// rampway.ErrInsufficientFunds when from cannot pay (chain.QuoteClient).
	Simulate(ctx context.Context, from common.Address, calls []rampway.Call) (string, error)
}

// Chains gives the configured networks and their nodes.
type Chains interface {
	Network(name string) (*rampway.Network, bool)
	EVM(name string) (EVM, bool)
}

// Deriver gives deposit addresses by HD index (hd.Deriver): those of a block of indexes at
// once, in their order.
type Deriver interface {
	Addresses(indexes []uint32) ([]common.Address, error)
}

// Config tunes the service.
type Config struct {
	// PublicURL is where users reach the checkout page (gateway_url's base).
	PublicURL string
	// HashSecret keys the gateway hash of each order.
	HashSecret []byte
	// OrderExpiry is how long a user has to pay; default 30 minutes.
	OrderExpiry time.Duration
	// ServiceFeeBPS is the service fee in basis points of the paid value.
	ServiceFeeBPS int64
	// HotWallet executes calls; quotes simulate from it.
	HotWallet common.Address
	// DevMode allows http and loopback webhook URLs.
	DevMode bool
	// TestFiat and LiveFiat are the currencies and methods of areas B and C in each mode (the
	// methods of that mode's payment provider: none without one); FiatSpreadBPS is added to the
	// price of the crypto a fiat quote buys.
	TestFiat, LiveFiat []rampway.FiatCurrency
	FiatSpreadBPS      int64
	// BankTransferExpiry is how long an order paid by bank transfer or direct debit (rampway.SettlesLate) waits for its money;
	// default DefaultBankTransferExpiry.
	BankTransferExpiry time.Duration
}

// Store is what the checkout use cases keep orders in.
type Store interface {
	rampway.OrderStore
	rampway.RefundStore
	rampway.DeliveryStore
	rampway.FiatPaymentStore
	// MerchantDepositAddress is rampway.MerchantDepositAddressStore's: where area C delivers
	// (unless Deps.Payouts gives another source).
	MerchantDepositAddress(ctx context.Context, merchantID, network, symbol string) (*rampway.MerchantDepositAddress, error)
	// SetOrderUser adds the user fields to an order's (the page's identity step). ENOTFOUND.
	SetOrderUser(ctx context.Context, orderID string, fields map[string]string, at time.Time) (*rampway.Order, error)
	// OrderTransfers is rampway.DepositStore's: the payments seen for an order.
	OrderTransfers(ctx context.Context, orderID string) ([]*rampway.InboundTransfer, error)
}

// Cancel is the user's cancel on the hosted page: the order is CANCELLED when its state takes
// a cancel (unpaid); ECONFLICT when it no longer does (a payment came first).
func (s *Service) Cancel(ctx context.Context, orderID string) (*rampway.Order, error) {
	return s.store.Apply(ctx, orderID, rampway.Cancelled{}, s.now().UTC().Truncate(time.Microsecond))
}

// Service is the checkout use cases: quotes, orders' creation, the user's cancel and the
// expiry, fiat payments; and its Records (lookups, webhook logs, operators' fiat actions).
type Service struct {
	*Records
	cfg       Config
	store     Store
	functions *contract.Registry
	chains    Chains
	prices    pricing.Source
	deriver   Deriver
	addresses *addresses
	now       func() time.Time
	fees      feeCache
	// providers are the payment providers by name; routes the order in which a new payment
	// picks one (Deps.Providers).
	providers map[string]rampway.FiatProvider
	routes    []FiatRoute
	payouts   PayoutFunc
}

// PayoutFunc returns the merchant's deposit address for an asset on a network (ENOTFOUND when
// it has none): where an area C order delivers.
type PayoutFunc func(ctx context.Context, merchantID, network, symbol string) (*rampway.MerchantDepositAddress, error)

// FiatRoute is a payment provider and what it takes.
type FiatRoute struct {
	Provider rampway.FiatProvider
	// Takes are the methods it takes by currency; nil: each of its methods in every currency.
	Takes map[string][]string
}

func (r FiatRoute) takes(currency, method string) bool {
	if r.Takes == nil {
		return slices.Contains(r.Provider.Methods(), method)
	}
	return slices.Contains(r.Takes[currency], method)
}

// ProviderFor returns the payment provider a new payment of o starts with: the first of o's
// mode that takes its currency and method (nil when none does).
func (s *Service) ProviderFor(o *rampway.Order) rampway.FiatProvider {
	for _, r := range s.routes {
		if r.Provider.Livemode() == o.Livemode && r.takes(o.FiatSymbol, o.FiatMethod) {
			return r.Provider
		}
	}
	return nil
}

// ModeProviders returns the names of the payment providers of a mode, in the order added.
func (s *Service) ModeProviders(livemode bool) []string {
	var out []string
	for _, r := range s.routes {
		if r.Provider.Livemode() == livemode {
			out = append(out, r.Provider.Name())
		}
	}
	return out
}

// FormFirst reports whether the payment of o starts from its provider's form, shown before the
// payment exists (rampway.FormFirst).
func (s *Service) FormFirst(o *rampway.Order) bool {
	f, ok := s.ProviderFor(o).(rampway.FormFirst)
	return ok && f.FormFirst(o.FiatMethod)
}

// FiatProviders returns the payment providers by name.
func (s *Service) FiatProviders() map[string]rampway.FiatProvider { return s.providers }

// fiat returns the currencies and methods of a mode.
func (s *Service) fiat(livemode bool) []rampway.FiatCurrency {
	if livemode {
		return s.cfg.LiveFiat
	}
	return s.cfg.TestFiat
}

// FiatCurrencies returns the currencies and payment methods orders of a mode may pay with
// (B2, C2): none in a mode without a payment provider.
func (s *Service) FiatCurrencies(livemode bool) []rampway.FiatCurrency { return s.fiat(livemode) }

// fiatCurrency returns the currency of a mode named by field. EINVALID when the mode does not
// take it.
func (s *Service) fiatCurrency(field, symbol string, livemode bool) (*rampway.FiatCurrency, error) {
	if symbol == "" {
		return nil, rampway.FieldErrorf(field, "%s is required", field)
	}
	fiat := s.fiat(livemode)
	for i := range fiat {
		if fiat[i].Symbol == symbol {
			return &fiat[i], nil
		}
	}
	if len(fiat) == 0 {
		return nil, rampway.FieldErrorf(field, "%s %s is not a supported currency: no payment provider takes %s-mode payments",
			field, rampway.Echo(symbol), rampway.ModeName(livemode))
	}
	return nil, rampway.FieldErrorf(field, "%s %s is not a supported currency", field, rampway.Echo(symbol))
}

// checkNetworkMode refuses a network of the other mode than an order's (named by field): test
// keys pay and execute on test networks only, live keys on live networks only. EINVALID.
func checkNetworkMode(field string, n *rampway.Network, livemode bool) error {
	if n.Livemode == livemode {
		return nil
	}
	return rampway.FieldErrorf(field, "%s %s is a %s network: a %s-mode key (%s…) orders on %s networks only",
		field, n.Name, rampway.ModeName(n.Livemode), rampway.ModeName(livemode), rampway.APIKeyPrefix(livemode), rampway.ModeName(livemode))
}

// Deps are what the use cases work with. Store is required; each other one only by the use
// cases that need it (the expiry and the webhook log need only the store).
type Deps struct {
	Store Store
	// Functions are the merchants' registered functions (area A's quotes and orders).
	Functions *contract.Registry
	// Chains are the networks and their nodes (quotes and orders).
	Chains Chains
	// Prices convert between assets and currencies (fees, areas B and C).
	Prices pricing.Source
	// Deriver gives the orders' deposit addresses (area A); nil: none are derived.
	Deriver Deriver
	// Payouts gives where area C delivers (merchant.DepositAddresses' Payout, cached); nil:
	// Store's MerchantDepositAddress.
	Payouts PayoutFunc
	// Providers are the payment providers, in the order a new payment picks one: the first of
	// its order's mode that takes its currency and method (ProviderFor). Names are unique (the
	// configuration checks it; a later one of a name already given is left out).
	Providers []FiatRoute
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// New returns a Service.
func New(cfg Config, deps Deps) *Service {
	if cfg.OrderExpiry <= 0 {
		cfg.OrderExpiry = 30 * time.Minute
	}
	if cfg.BankTransferExpiry <= 0 {
		cfg.BankTransferExpiry = DefaultBankTransferExpiry
	}
	if deps.Now == nil {
		deps.Now = time.Now
	}
	if deps.Payouts == nil {
		deps.Payouts = deps.Store.MerchantDepositAddress
	}
	s := &Service{Records: NewRecords(deps.Store, deps.Now), cfg: cfg, store: deps.Store, functions: deps.Functions, chains: deps.Chains, prices: deps.Prices, deriver: deps.Deriver,
		now: deps.Now, payouts: deps.Payouts, providers: map[string]rampway.FiatProvider{}}
	for _, r := range deps.Providers {
		if _, ok := s.providers[r.Provider.Name()]; !ok {
			s.providers[r.Provider.Name()] = r.Provider
			s.routes = append(s.routes, r)
		}
	}
	if deps.Deriver != nil {
		s.addresses = &addresses{reserve: deps.Store.ReserveDepositIndexes, derive: deps.Deriver.Addresses}
	}
	return s
}

// Hash is the order's gateway hash: HMAC-SHA256 of its id under the hash secret, hex.
func (s *Service) Hash(orderID string) string {
	m := hmac.New(sha256.New, s.cfg.HashSecret)
	m.Write([]byte("checkout:" + orderID))
	return hex.EncodeToString(m.Sum(nil))
}

// CheckHash reports, in constant time, whether hash is the order's gateway hash.
func (s *Service) CheckHash(orderID, hash string) bool {
	return hmac.Equal([]byte(s.Hash(orderID)), []byte(hash))
}

// GatewayURL is the order's hosted checkout address.
func (s *Service) GatewayURL(orderID string) string {
	// order_id first, as DESIGN.md writes it.
	return s.cfg.PublicURL + "/checkout?order_id=" + url.QueryEscape(orderID) + "&hash=" + s.Hash(orderID)
}

// FunctionArgs returns args as given, or {} when absent.
func normalizeArgs(args json.RawMessage) json.RawMessage {
	if len(args) == 0 {
		return json.RawMessage("{}")
	}
	return args
}
