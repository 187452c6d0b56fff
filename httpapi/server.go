// Package httpapi is rampway's HTTP surface: the merchant API of the three areas, the admin
// API, health and metrics. Every route is in routes.go; every error is the spec's envelope.
package httpapi

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"

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
}

// Pinger checks a dependency for /readyz.
type Pinger interface {
	Ping(ctx context.Context) error
}

// Server is the rampway HTTP handler.
type Server struct {
	cfg       Config
	merchants *merchant.Service
	db        Pinger
	log       *slog.Logger
	metrics   *metrics
	registry  *prometheus.Registry
	mux       *http.ServeMux
	handler   http.Handler
}

// New returns the handler. reg receives the HTTP metrics and is served on /metrics.
func New(cfg Config, merchants *merchant.Service, db Pinger, log *slog.Logger, reg *prometheus.Registry) *Server {
	s := &Server{cfg: cfg, merchants: merchants, db: db, log: log, registry: reg, mux: http.NewServeMux()}
	s.metrics = newMetrics(reg)
	s.routes()
	s.handler = s.observe(s.recoverPanics(s.limitBody(s.mux)))
	return s
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }
