// Package httpapi is rampway's HTTP surface: the merchant API of the three areas, the admin
// API, health and metrics. Every route is in routes.go; every error is the spec's envelope.
package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/checkout"
	"github.com/rampway/rampway/contract"
	"github.com/rampway/rampway/merchant"
)

// BasePaths are the path prefixes of the areas and the admin API (e.g. "/mint").
type BasePaths struct {
	Mint, NFTRamp, Deposit, Admin string
}

// Config configures the handler.
type Config struct {
	BasePaths BasePaths
	// MaxBodyBytes bounds request bodies; larger ones get 413.
	MaxBodyBytes int64
	// AdminToken is the bearer token of the admin API.
	AdminToken string
	// Version is reported by /healthz.
	Version string
	// RateLimit is each merchant's token bucket on the merchant API; the zero value is none.
	RateLimit RateLimit
	// PublicURL is where users and merchants reach the service: the base of the payment
	// method icons' absolute URLs in B2 and C2.
	PublicURL string
	// TrustedProxies are the proxies whose X-Forwarded-For names the client (clientAddr).
	TrustedProxies []netip.Prefix
}

// Pinger checks a dependency for /readyz.
type Pinger interface {
	Ping(ctx context.Context) error
}

// Checkout is the merchant API's use cases the handlers call (checkout.Service), by role.
type Checkout interface {
	Quotes
	Orders
	Webhooks
	FiatPayments
}

// Quotes are the crypto quotes of area A (checkout.Service).
type Quotes interface {
	Quote(ctx context.Context, p checkout.QuoteParams) (*checkout.Quote, error)
}

// Orders are the orders' creation in each area and their lookup in a scope
// (checkout.Service; the lookups are its checkout.Records).
type Orders interface {
	CreateMintOrder(ctx context.Context, m *rampway.Merchant, p checkout.MintOrderParams) (*checkout.Created, error)
	CreateFiatOrder(ctx context.Context, m *rampway.Merchant, p checkout.FiatOrderParams) (*checkout.Created, error)
	CreateDepositOrder(ctx context.Context, m *rampway.Merchant, p checkout.DepositOrderParams) (*checkout.Created, error)
	// Order returns an order in scope in an area; ENOTFOUND also for one out of scope.
	Order(ctx context.Context, scope rampway.Scope, area rampway.Area, id string) (*rampway.Order, error)
	Orders(ctx context.Context, f rampway.OrderFilter) ([]*rampway.Order, error)
	Refunds(ctx context.Context, o *rampway.Order) ([]*rampway.Refund, error)
	Transfers(ctx context.Context, o *rampway.Order) ([]*rampway.InboundTransfer, error)
	GatewayURL(orderID string) string
}

// Webhooks are an order's webhook log and its resends (checkout.Records).
type Webhooks interface {
	Deliveries(ctx context.Context, scope rampway.Scope, area rampway.Area, orderID string) ([]checkout.DeliveryLog, error)
	Resend(ctx context.Context, scope rampway.Scope, area rampway.Area, orderID, eventID string) (*rampway.Delivery, error)
}

// FiatPayments are what areas B and C add: fiat quotes, currencies and methods, an order's
// payments and actions, the providers' notifications, and the actions an operator looks after
// (checkout.Service; the operator's are its checkout.Records).
type FiatPayments interface {
	FiatQuote(ctx context.Context, p checkout.FiatQuoteParams) (*checkout.FiatQuote, error)
	// FiatCurrencies are the currencies and methods of a mode (B2, C2).
	FiatCurrencies(livemode bool) []rampway.FiatCurrency
	FiatPayments(ctx context.Context, o *rampway.Order) ([]*rampway.FiatPayment, error)
	FiatActions(ctx context.Context, o *rampway.Order) ([]*rampway.FiatAction, error)
	ProviderWebhook(ctx context.Context, name string, h http.Header, body []byte) (bool, error)
	FiatActionsByStatus(ctx context.Context, status, after string, limit int) ([]checkout.OperatorFiatAction, error)
	RetryFiatAction(ctx context.Context, id string) (checkout.OperatorFiatAction, error)
	ResolveFiatAction(ctx context.Context, id, note string) (checkout.OperatorFiatAction, error)
}

// Merchants is the onboarding and authentication the handlers call (merchant.Service).
type Merchants interface {
	Authenticate(ctx context.Context, raw string) (*rampway.Merchant, *rampway.APIKey, error)
	Create(ctx context.Context, p merchant.CreateParams) (*rampway.Merchant, error)
	Get(ctx context.Context, id string) (*rampway.Merchant, error)
	List(ctx context.Context, p rampway.Page) ([]*rampway.Merchant, error)
	Update(ctx context.Context, id string, p merchant.UpdateParams) (*rampway.Merchant, error)
	APIKeys(ctx context.Context, merchantID string) ([]*rampway.APIKey, error)
	IssueAPIKey(ctx context.Context, merchantID string, livemode bool) (*rampway.APIKey, string, error)
	RevokeAPIKey(ctx context.Context, merchantID, keyID string) (*rampway.APIKey, error)
	SetWebhookSecret(ctx context.Context, merchantID string, livemode bool, secret string, grace time.Duration) (string, error)
	// DefaultLivemode is the mode of keys and secrets issued without one named.
	DefaultLivemode() bool
}

// Functions is the function registry the admin handlers call (contract.Registry).
type Functions interface {
	Register(ctx context.Context, merchantID string, p contract.RegisterParams) (*rampway.ContractFunction, error)
	Get(ctx context.Context, merchantID, id string) (*rampway.ContractFunction, error)
	List(ctx context.Context, merchantID string) ([]*rampway.ContractFunction, error)
	Disable(ctx context.Context, merchantID, id string) (*rampway.ContractFunction, error)
}

var (
	_ Checkout  = (*checkout.Service)(nil)
	_ Webhooks  = (*checkout.Records)(nil)
	_ Merchants = (*merchant.Service)(nil)
	_ Functions = (*contract.Registry)(nil)
)

// Deps are the use cases and parts the handlers call.
type Deps struct {
	Merchants Merchants
	Functions Functions
	Checkout  Checkout
	// Idempotency remembers POST answers by Idempotency-Key; nil turns the header off.
	Idempotency rampway.IdempotencyStore
	// DB is checked by /readyz.
	DB Pinger
	// Ready are further checks of /readyz, after DB: each that fails makes it answer 503 with
	// its *rampway.Error's message (the chains' watchers: a head below the recorded block).
	Ready []Pinger
	Log   *slog.Logger
	// Metrics receives the HTTP metrics and is served on /metrics.
	Metrics *prometheus.Registry
	// Page is the hosted checkout page (a checkoutpage.Handler, possibly wrapped), served on
	// checkoutpage.Routes; nil serves none.
	Page http.Handler
	// Home, when set, serves GET / and /demo/* (the dev server's demo store).
	Home http.Handler
	// Dashboard, when set, serves /dashboard/ (a dashboard.Handler): the merchants' and
	// operators' pages, with their own sessions and CSRF tokens.
	Dashboard http.Handler
	// Providers are the payment providers: their own pages (provider.Router) and operators'
	// operations (provider.AdminOps) are served.
	Providers []rampway.FiatProvider
	// DepositAddresses onboards merchants' deposit addresses (area C).
	DepositAddresses DepositAddresses
	// Refunds are area A's refund use cases (checkout.Refunds), and Orders reads the order of
	// a refund (the store) for its asset; without both the refund routes answer 503.
	Refunds Refunds
	Orders  OrderReader
	// Events is the merchants' stream of their webhook deliveries (`rampway listen`); nil
	// answers 503.
	Events EventStream
	// Ledger serves the admin API's ledger routes (drifts, report, transfers); nil answers 503.
	Ledger rampway.LedgerStore
	// Warnings are listed by /readyz, which stays 200 (the ledger's drifts).
	Warnings []Warner
}

// Server is the rampway HTTP handler.
type Server struct {
	cfg       Config
	merchants Merchants
	functions Functions
	checkout  Checkout
	idem      rampway.IdempotencyStore
	db        Pinger
	ready     []Pinger
	log       *slog.Logger
	metrics   *metrics
	registry  *prometheus.Registry
	page      http.Handler
	home      http.Handler
	dashboard http.Handler
	providers []rampway.FiatProvider
	deposits  DepositAddresses
	refunds   Refunds
	orders    OrderReader
	events    EventStream
	ledger    rampway.LedgerStore
	warnings  []Warner
	listening listeners
	// listenSettle and listenKeepAlive are the event stream's (the constants; a test shortens them).
	listenSettle, listenKeepAlive time.Duration
	limiter                       *merchantLimiter // nil: no rate limit
	mux                           *http.ServeMux
	handler                       http.Handler
}

// New returns the handler.
func New(cfg Config, d Deps) *Server {
	s := &Server{cfg: cfg, merchants: d.Merchants, functions: d.Functions, checkout: d.Checkout, idem: d.Idempotency, db: d.DB, ready: d.Ready, log: d.Log, registry: d.Metrics, page: d.Page, home: d.Home, dashboard: d.Dashboard, providers: d.Providers, deposits: d.DepositAddresses,
		refunds: d.Refunds, orders: d.Orders, events: d.Events, ledger: d.Ledger, warnings: d.Warnings, mux: http.NewServeMux(), listenSettle: listenSettle, listenKeepAlive: listenKeepAlive}
	s.metrics = newMetrics(d.Metrics)
	s.limiter = newMerchantLimiter(cfg.RateLimit)
	s.routes()
	s.handler = clientAddr(cfg.TrustedProxies, s.observe(s.recoverPanics(s.limitBody(s.mux))))
	return s
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }
