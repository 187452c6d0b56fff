// Package mock has function-field implementations of the use cases the HTTP API calls, for
// tests of the API's own behaviour (request decoding, validation of the HTTP layer, error
// envelopes, authentication) without a chain, prices or providers behind it: each method
// calls its Fn field. A method whose Fn is nil answers EUNAVAILABLE naming itself, so a
// test sets only what its requests reach. Each is safe for concurrent use when its Fn fields
// are.
package mock

import (
	"context"
	"net/http"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/checkout"
	"github.com/rampway/rampway/contract"
)

// unset is the error of a method whose function is not set.
func unset(method string) error {
	return rampway.Errorf(rampway.EUNAVAILABLE, "mock: %s is not set", method)
}

// Checkout implements the checkout use cases the HTTP API calls (httpapi.Checkout: quotes,
// orders, webhook logs, fiat payments), as checkout.Service does.
type Checkout struct {
	QuoteFn               func(ctx context.Context, p checkout.QuoteParams) (*checkout.Quote, error)
	FiatQuoteFn           func(ctx context.Context, p checkout.FiatQuoteParams) (*checkout.FiatQuote, error)
	FiatCurrenciesFn      func(livemode bool) []rampway.FiatCurrency
	CreateMintOrderFn     func(ctx context.Context, m *rampway.Merchant, p checkout.MintOrderParams) (*checkout.Created, error)
	CreateFiatOrderFn     func(ctx context.Context, m *rampway.Merchant, p checkout.FiatOrderParams) (*checkout.Created, error)
	CreateDepositOrderFn  func(ctx context.Context, m *rampway.Merchant, p checkout.DepositOrderParams) (*checkout.Created, error)
	FiatPaymentsFn        func(ctx context.Context, o *rampway.Order) ([]*rampway.FiatPayment, error)
	FiatActionsFn         func(ctx context.Context, o *rampway.Order) ([]*rampway.FiatAction, error)
	ProviderWebhookFn     func(ctx context.Context, name string, h http.Header, body []byte) (bool, error)
	OrderFn               func(ctx context.Context, scope rampway.Scope, area rampway.Area, id string) (*rampway.Order, error)
	OrdersFn              func(ctx context.Context, f rampway.OrderFilter) ([]*rampway.Order, error)
	RefundsFn             func(ctx context.Context, o *rampway.Order) ([]*rampway.Refund, error)
	TransfersFn           func(ctx context.Context, o *rampway.Order) ([]*rampway.InboundTransfer, error)
	GatewayURLFn          func(orderID string) string
	DeliveriesFn          func(ctx context.Context, scope rampway.Scope, area rampway.Area, orderID string) ([]checkout.DeliveryLog, error)
	ResendFn              func(ctx context.Context, scope rampway.Scope, area rampway.Area, orderID, eventID string) (*rampway.Delivery, error)
	FiatActionsByStatusFn func(ctx context.Context, status, after string, limit int) ([]checkout.OperatorFiatAction, error)
	RetryFiatActionFn     func(ctx context.Context, id string) (checkout.OperatorFiatAction, error)
	ResolveFiatActionFn   func(ctx context.Context, id, note string) (checkout.OperatorFiatAction, error)
}

// Quote calls QuoteFn.
func (c *Checkout) Quote(ctx context.Context, p checkout.QuoteParams) (*checkout.Quote, error) {
	if c.QuoteFn == nil {
		return nil, unset("Quote")
	}
	return c.QuoteFn(ctx, p)
}

// FiatQuote calls FiatQuoteFn.
func (c *Checkout) FiatQuote(ctx context.Context, p checkout.FiatQuoteParams) (*checkout.FiatQuote, error) {
	if c.FiatQuoteFn == nil {
		return nil, unset("FiatQuote")
	}
	return c.FiatQuoteFn(ctx, p)
}

// FiatCurrencies calls FiatCurrenciesFn; none when it is nil.
func (c *Checkout) FiatCurrencies(livemode bool) []rampway.FiatCurrency {
	if c.FiatCurrenciesFn == nil {
		return nil
	}
	return c.FiatCurrenciesFn(livemode)
}

// CreateMintOrder calls CreateMintOrderFn.
func (c *Checkout) CreateMintOrder(ctx context.Context, m *rampway.Merchant, p checkout.MintOrderParams) (*checkout.Created, error) {
	if c.CreateMintOrderFn == nil {
		return nil, unset("CreateMintOrder")
	}
	return c.CreateMintOrderFn(ctx, m, p)
}

// CreateFiatOrder calls CreateFiatOrderFn.
func (c *Checkout) CreateFiatOrder(ctx context.Context, m *rampway.Merchant, p checkout.FiatOrderParams) (*checkout.Created, error) {
	if c.CreateFiatOrderFn == nil {
		return nil, unset("CreateFiatOrder")
	}
	return c.CreateFiatOrderFn(ctx, m, p)
}

// CreateDepositOrder calls CreateDepositOrderFn.
func (c *Checkout) CreateDepositOrder(ctx context.Context, m *rampway.Merchant, p checkout.DepositOrderParams) (*checkout.Created, error) {
	if c.CreateDepositOrderFn == nil {
		return nil, unset("CreateDepositOrder")
	}
	return c.CreateDepositOrderFn(ctx, m, p)
}

// FiatPayments calls FiatPaymentsFn.
func (c *Checkout) FiatPayments(ctx context.Context, o *rampway.Order) ([]*rampway.FiatPayment, error) {
	if c.FiatPaymentsFn == nil {
		return nil, unset("FiatPayments")
	}
	return c.FiatPaymentsFn(ctx, o)
}

// FiatActions calls FiatActionsFn.
func (c *Checkout) FiatActions(ctx context.Context, o *rampway.Order) ([]*rampway.FiatAction, error) {
	if c.FiatActionsFn == nil {
		return nil, unset("FiatActions")
	}
	return c.FiatActionsFn(ctx, o)
}

// ProviderWebhook calls ProviderWebhookFn.
func (c *Checkout) ProviderWebhook(ctx context.Context, name string, h http.Header, body []byte) (bool, error) {
	if c.ProviderWebhookFn == nil {
		return false, unset("ProviderWebhook")
	}
	return c.ProviderWebhookFn(ctx, name, h, body)
}

// Order calls OrderFn.
func (c *Checkout) Order(ctx context.Context, scope rampway.Scope, area rampway.Area, id string) (*rampway.Order, error) {
	if c.OrderFn == nil {
		return nil, unset("Order")
	}
	return c.OrderFn(ctx, scope, area, id)
}

// Orders calls OrdersFn.
func (c *Checkout) Orders(ctx context.Context, f rampway.OrderFilter) ([]*rampway.Order, error) {
	if c.OrdersFn == nil {
		return nil, unset("Orders")
	}
	return c.OrdersFn(ctx, f)
}

// Refunds calls RefundsFn.
func (c *Checkout) Refunds(ctx context.Context, o *rampway.Order) ([]*rampway.Refund, error) {
	if c.RefundsFn == nil {
		return nil, unset("Refunds")
	}
	return c.RefundsFn(ctx, o)
}

// Transfers calls TransfersFn.
func (c *Checkout) Transfers(ctx context.Context, o *rampway.Order) ([]*rampway.InboundTransfer, error) {
	if c.TransfersFn == nil {
		return nil, unset("Transfers")
	}
	return c.TransfersFn(ctx, o)
}

// GatewayURL calls GatewayURLFn; "" when it is nil.
func (c *Checkout) GatewayURL(orderID string) string {
	if c.GatewayURLFn == nil {
		return ""
	}
	return c.GatewayURLFn(orderID)
}

// Deliveries calls DeliveriesFn.
func (c *Checkout) Deliveries(ctx context.Context, scope rampway.Scope, area rampway.Area, orderID string) ([]checkout.DeliveryLog, error) {
	if c.DeliveriesFn == nil {
		return nil, unset("Deliveries")
	}
	return c.DeliveriesFn(ctx, scope, area, orderID)
}

// Resend calls ResendFn.
func (c *Checkout) Resend(ctx context.Context, scope rampway.Scope, area rampway.Area, orderID, eventID string) (*rampway.Delivery, error) {
	if c.ResendFn == nil {
		return nil, unset("Resend")
	}
	return c.ResendFn(ctx, scope, area, orderID, eventID)
}

// FiatActionsByStatus calls FiatActionsByStatusFn.
func (c *Checkout) FiatActionsByStatus(ctx context.Context, status, after string, limit int) ([]checkout.OperatorFiatAction, error) {
	if c.FiatActionsByStatusFn == nil {
		return nil, unset("FiatActionsByStatus")
	}
	return c.FiatActionsByStatusFn(ctx, status, after, limit)
}

// RetryFiatAction calls RetryFiatActionFn.
func (c *Checkout) RetryFiatAction(ctx context.Context, id string) (checkout.OperatorFiatAction, error) {
	if c.RetryFiatActionFn == nil {
		return checkout.OperatorFiatAction{}, unset("RetryFiatAction")
	}
	return c.RetryFiatActionFn(ctx, id)
}

// ResolveFiatAction calls ResolveFiatActionFn.
func (c *Checkout) ResolveFiatAction(ctx context.Context, id, note string) (checkout.OperatorFiatAction, error) {
	if c.ResolveFiatActionFn == nil {
		return checkout.OperatorFiatAction{}, unset("ResolveFiatAction")
	}
	return c.ResolveFiatActionFn(ctx, id, note)
}

// Functions implements the function registry the admin API calls (httpapi.Functions), as
// contract.Registry does.
type Functions struct {
	RegisterFn func(ctx context.Context, merchantID string, p contract.RegisterParams) (*rampway.ContractFunction, error)
	GetFn      func(ctx context.Context, merchantID, id string) (*rampway.ContractFunction, error)
	ListFn     func(ctx context.Context, merchantID string) ([]*rampway.ContractFunction, error)
	DisableFn  func(ctx context.Context, merchantID, id string) (*rampway.ContractFunction, error)
}

// Register calls RegisterFn.
func (f *Functions) Register(ctx context.Context, merchantID string, p contract.RegisterParams) (*rampway.ContractFunction, error) {
	if f.RegisterFn == nil {
		return nil, unset("Register")
	}
	return f.RegisterFn(ctx, merchantID, p)
}

// Get calls GetFn.
func (f *Functions) Get(ctx context.Context, merchantID, id string) (*rampway.ContractFunction, error) {
	if f.GetFn == nil {
		return nil, unset("Get")
	}
	return f.GetFn(ctx, merchantID, id)
}

// List calls ListFn.
func (f *Functions) List(ctx context.Context, merchantID string) ([]*rampway.ContractFunction, error) {
	if f.ListFn == nil {
		return nil, unset("List")
	}
	return f.ListFn(ctx, merchantID)
}

// Disable calls DisableFn.
func (f *Functions) Disable(ctx context.Context, merchantID, id string) (*rampway.ContractFunction, error) {
	if f.DisableFn == nil {
		return nil, unset("Disable")
	}
	return f.DisableFn(ctx, merchantID, id)
}
