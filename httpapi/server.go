// Package httpapi is rampway's HTTP surface: the merchant API of the three areas, the admin
// API, health and metrics. Every route is in routes.go; every error is the spec's envelope.
package httpapi

import (
	"context"
	"log/slog"
	"net/http"

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
}

// Pinger checks a dependency for /readyz.
type Pinger interface {
	Ping(ctx context.Context) error
}

// Deps are the use cases and parts the handlers call.
type Deps struct {
	Merchants *merchant.Service
	Functions *contract.Registry
	Checkout  *checkout.Service
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
}

// Server is the rampway HTTP handler.
type Server struct {
	cfg       Config
	merchants *merchant.Service
	functions *contract.Registry
	checkout  *checkout.Service
	idem      rampway.IdempotencyStore
	db        Pinger
	ready     []Pinger
	log       *slog.Logger
	metrics   *metrics
	registry  *prometheus.Registry
	page      http.Handler
	home      http.Handler
	limiter   *merchantLimiter // nil: no rate limit
	mux       *http.ServeMux
	handler   http.Handler
}

// New returns the handler.
func New(cfg Config, d Deps) *Server {
	s := &Server{cfg: cfg, merchants: d.Merchants, functions: d.Functions, checkout: d.Checkout, idem: d.Idempotency, db: d.DB, ready: d.Ready, log: d.Log, registry: d.Metrics, page: d.Page, home: d.Home, mux: http.NewServeMux()}
	s.metrics = newMetrics(d.Metrics)
	s.limiter = newMerchantLimiter(cfg.RateLimit)
	s.routes()
	s.handler = s.observe(s.recoverPanics(s.limitBody(s.mux)))
	return s
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }
