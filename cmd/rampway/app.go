package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain"
	"github.com/rampway/rampway/chain/hd"
	"github.com/rampway/rampway/chainwork"
	"github.com/rampway/rampway/checkout"
	"github.com/rampway/rampway/checkoutpage"
	"github.com/rampway/rampway/config"
	"github.com/rampway/rampway/contract"
	"github.com/rampway/rampway/httpapi"
	"github.com/rampway/rampway/internal/secretbox"
	"github.com/rampway/rampway/internal/sqlstore"
	"github.com/rampway/rampway/merchant"
	"github.com/rampway/rampway/postgres"
	"github.com/rampway/rampway/pricing"
	"github.com/rampway/rampway/sqlite"
	"github.com/rampway/rampway/webhook"
)

// openStore opens the configured database and applies pending migrations.
func openStore(ctx context.Context, cfg config.Config) (*sqlstore.Store, error) {
	var box *secretbox.Box
	if cfg.Secrets.EncryptionKey != "" {
		var err error
		if box, err = secretbox.New(cfg.Secrets.EncryptionKey); err != nil {
			return nil, err
		}
	}
	switch cfg.Database.Driver {
	case "postgres":
		return postgres.Open(ctx, cfg.Database.DSN, box, postgres.Options{MaxOpenConns: cfg.Database.MaxOpenConns})
	default:
		return sqlite.Open(ctx, cfg.Database.Path, box)
	}
}

// openDB opens the configured database without migrating it, with its migrate function.
func openDB(ctx context.Context, cfg config.Config) (*sql.DB, func(context.Context, *sql.DB) (int, error), error) {
	if cfg.Database.Driver == "postgres" {
		db, err := postgres.OpenDB(ctx, cfg.Database.DSN, postgres.Options{MaxOpenConns: 2})
		return db, postgres.Migrate, err
	}
	db, err := sqlite.OpenDB(ctx, cfg.Database.Path)
	return db, sqlite.Migrate, err
}

func newLogger(cfg config.Config, w io.Writer) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(cfg.Log.Level))
	opts := &slog.HandlerOptions{Level: level}
	if cfg.Log.Format == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}

// newMerchantService returns the merchant service; authCache > 0 keeps API keys and their
// merchants that long (the server's, see cacheTTL; the admin CLI reads every time).
func newMerchantService(cfg config.Config, store *sqlstore.Store, authCache time.Duration) *merchant.Service {
	return merchant.NewService(store, merchant.Options{HashSecret: cfg.Secrets.HashSecret, DevMode: cfg.Mode == config.ModeDev,
		AuthCacheTTL: authCache})
}

// cacheTTL is how long the server keeps what every order request reads and merchants rarely
// change: API keys with their merchants, and registered functions. A key revoked, a merchant
// or a function disabled by another process (the admin CLI, another instance) takes effect
// within it; through this process's admin API at once.
const cacheTTL = 2 * time.Second

// expiryInterval is how often orders whose time is up are ended.
const expiryInterval = 5 * time.Second

// watchPoll is how often each network's deposit watcher looks for new blocks.
const watchPoll = 500 * time.Millisecond

// chains gives checkout the networks' clients.
type chains struct{ *chain.Networks }

// Head is a network's latest block number (the page's confirmation count).
func (c chains) Head(ctx context.Context, name string) (uint64, error) {
	cl, ok := c.Client(name)
	if !ok {
		return 0, fmt.Errorf("no network %s", name)
	}
	return cl.BlockNumber(ctx)
}

func (c chains) EVM(name string) (checkout.EVM, bool) {
	cl, ok := c.Batching(name)
	if !ok {
		return nil, false
	}
	return chain.QuoteClient{Node: cl}, true
}

// hotWallet loads the hot wallet's key from the environment or its keystore file; nil when
// neither is configured.
func hotWallet(cfg config.Config) (rampway.Signer, error) {
	var s *chain.KeySigner
	var err error
	switch {
	case cfg.Secrets.HotWalletKey != "":
		s, err = chain.ParseKey(cfg.Secrets.HotWalletKey)
	case cfg.Checkout.HotWalletKeystore != "":
		s, err = chain.LoadKeystore(cfg.Checkout.HotWalletKeystore, cfg.Secrets.HotWalletPassphrase)
	default:
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if want := common.HexToAddress(cfg.Checkout.HotWalletAddress); s.Address() != want {
		return nil, fmt.Errorf("hot wallet: the key is of %s, not of checkout.hot_wallet_address %s", s.Address().Hex(), want.Hex())
	}
	return s, nil
}

// depositKeys is the sweeper's key of the deposit addresses; nil when none is configured.
func depositKeys(cfg config.Config) (*hd.Signer, error) {
	if cfg.Secrets.DepositXPrv == "" || cfg.Checkout.TreasuryAddress == "" {
		return nil, nil
	}
	return hd.FromXPrv(cfg.Secrets.DepositXPrv)
}

// sweepPoll is how often each network's sweeper looks for confirmed deposits.
const sweepPoll = 5 * time.Second

// lateHandler is a handler set after the server is built (dev mode's demo store needs dev.json).
type lateHandler struct{ h atomic.Pointer[http.Handler] }

func (l *lateHandler) set(h http.Handler) { l.h.Store(&h) }

func (l *lateHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h := l.h.Load(); h != nil {
		(*h).ServeHTTP(w, r)
		return
	}
	http.NotFound(w, r)
}

// app is a running API server.
type app struct {
	cfg       config.Config
	log       *slog.Logger
	store     *sqlstore.Store
	networks  *chain.Networks
	merchants *merchant.Service
	functions *contract.Registry
	checkout  *checkout.Service
	// signer is the hot wallet; nil when this instance only serves the API.
	signer rampway.Signer
	// watchers are the networks' deposit watchers, in network order: serve runs them, and
	// /readyz asks them whether a chain's head is behind the block they have recorded.
	watchers []*chainwork.Watcher
	// home serves / once dev mode sets it (the demo store); 404 until then and in production.
	home lateHandler
	srv  *http.Server
	ln   net.Listener
}

// startApp opens the store and listens; serve starts answering. dial says how to reach
// networks that are not dialled over their URL (dev mode's chain, in this process).
func startApp(ctx context.Context, cfg config.Config, log *slog.Logger, dial ...chain.DialOption) (_ *app, err error) {
	a := &app{cfg: cfg, log: log}
	defer func() {
		if err != nil {
			a.close() // a, not the result: every error return has set that to nil
		}
	}()
	if a.store, err = openStore(ctx, cfg); err != nil {
		return nil, err
	}
	if a.networks, err = chain.Dial(ctx, cfg.DomainNetworks(), dial...); err != nil {
		return nil, fmt.Errorf("networks: %w", err)
	}
	for _, n := range a.networks.List() {
		log.Info("network ready", "network", n.Name, "chain_id", n.ChainID.String(), "rpc", chain.Redact(n.RPCURLs[0]), "assets", len(n.Tokens)+1)
	}
	if a.signer, err = hotWallet(cfg); err != nil {
		return nil, err
	}
	a.merchants = newMerchantService(cfg, a.store, cacheTTL)
	a.functions = contract.NewRegistry(a.store, a.networks, nil).CacheActive(cacheTTL)
	var deriver checkout.Deriver
	if cfg.Checkout.DepositXPub != "" {
		if deriver, err = hd.FromXPub(cfg.Checkout.DepositXPub); err != nil {
			return nil, err
		}
	}
	a.checkout = checkout.New(checkout.Config{
		PublicURL: cfg.HTTP.PublicURL, HashSecret: []byte(cfg.Secrets.HashSecret), OrderExpiry: cfg.Checkout.OrderExpiry,
		ServiceFeeBPS: cfg.Checkout.ServiceFeeBPS, HotWallet: common.HexToAddress(cfg.Checkout.HotWalletAddress), DevMode: cfg.Mode == config.ModeDev,
	}, a.store, a.functions, chains{a.networks}, pricing.Static(cfg.PriceTable()), deriver, nil)
	// A chain whose head stays below the block the database has recorded (a node that lost
	// blocks, or lags) is logged as an error and makes /readyz answer 503. The dev chain
	// mines its own blocks and never lags: at once there; a minute's grace elsewhere.
	var ready []httpapi.Pinger
	for _, n := range a.networks.List() {
		cl, _ := a.networks.Client(n.Name)
		w := chainwork.NewWatcher(a.store, n, cl, log.With("worker", "watcher"), nil)
		if cfg.Mode == config.ModeDev {
			w.SetBehindGrace(0)
		}
		a.watchers = append(a.watchers, w)
		ready = append(ready, w)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), newQueueCollector(a.store, log))
	// The checkout page's live streams end when the shutdown starts: Shutdown waits for
	// every active request, and a stream would hold it for its whole life (minutes).
	streams, endStreams := context.WithCancel(context.Background())
	bp := cfg.HTTP.BasePaths
	h := httpapi.New(httpapi.Config{
		BasePaths:    httpapi.BasePaths{Mint: bp.Mint, NFTRamp: bp.NFTRamp, Deposit: bp.Deposit, Admin: bp.Admin},
		MaxBodyBytes: cfg.HTTP.MaxBodyBytes,
		AdminToken:   cfg.Admin.Token,
		Version:      version,
		RateLimit:    httpapi.RateLimit{RequestsPerSecond: cfg.HTTP.RateLimit.RequestsPerSecond, Burst: cfg.HTTP.RateLimit.Burst},
	}, httpapi.Deps{Merchants: a.merchants, Functions: a.functions, Checkout: a.checkout, Idempotency: a.store, DB: a.store, Ready: ready, Log: log, Metrics: reg,
		Home: &a.home, Page: endStreamsOnShutdown(checkoutpage.New(checkoutpage.Config{PublicRPCURLs: publicRPCURLs(cfg.Networks)}, a.store, a.checkout, chains{a.networks}, log.With("component", "checkout-page"), nil), streams)})
	a.srv = &http.Server{
		Handler:           h,
		ReadHeaderTimeout: cfg.HTTP.ReadHeaderTimeout,
		ReadTimeout:       cfg.HTTP.ReadTimeout,
		WriteTimeout:      cfg.HTTP.WriteTimeout,
		IdleTimeout:       cfg.HTTP.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	a.srv.RegisterOnShutdown(endStreams)
	if a.ln, err = net.Listen("tcp", cfg.HTTP.Addr); err != nil {
		endStreams()
		return nil, fmt.Errorf("listen on %s: %w", cfg.HTTP.Addr, err)
	}
	return a, nil
}

// endStreamsOnShutdown gives the checkout page's server-sent-events requests a context that
// also ends with streams (when the server starts shutting down): the browser reconnects to
// another instance, or to this one once restarted. Its other requests are short, and drain.
func endStreamsOnShutdown(page http.Handler, streams context.Context) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/checkout/events" {
			ctx, cancel := context.WithCancel(r.Context())
			defer cancel()
			defer context.AfterFunc(streams, cancel)()
			r = r.WithContext(ctx)
		}
		page.ServeHTTP(w, r)
	})
}

// addr is the address the server listens on (the real port when the config said 0).
func (a *app) addr() string { return a.ln.Addr().String() }

// serve answers requests until ctx ends, then drains in-flight requests and closes.
func (a *app) serve(ctx context.Context) error {
	errc := make(chan error, 1)
	go func() { errc <- a.srv.Serve(a.ln) }()
	// Background work stops with the server.
	wctx, stopWork := context.WithCancel(context.WithoutCancel(ctx))
	var workers sync.WaitGroup
	workers.Go(func() { a.checkout.RunExpiry(wctx, expiryInterval, a.log.With("worker", "expiry")) })

	if a.signer == nil && len(a.networks.List()) > 0 {
		a.log.Warn("no hot wallet key: this instance does not execute paid orders", "env", config.EnvHotWalletKey)
	}
	for i, n := range a.networks.List() {
		cl, _ := a.networks.Client(n.Name)
		w := a.watchers[i]
		if a.signer != nil {
			x := chainwork.NewExecutor(chainwork.ExecutorConfig{RepriceAfter: uint64(a.cfg.Checkout.ExecutorRepriceBlocks)}, a.store, a.functions, n, cl,
				a.signer, a.log.With("worker", "executor"), nil)
			w.OnCredit(x.Wake) // a confirmed payment is executed at once, not at the next poll
			workers.Go(func() { x.Run(wctx, watchPoll) })
		}
		workers.Go(func() { w.Run(wctx, watchPoll) })
	}
	if keys, err := depositKeys(a.cfg); err != nil {
		a.log.Error("sweeper not started", "error", err)
	} else if keys != nil && a.signer != nil {
		for _, n := range a.networks.List() {
			cl, _ := a.networks.Client(n.Name)
			sw := chainwork.NewSweeper(chainwork.SweeperConfig{Treasury: common.HexToAddress(a.cfg.Checkout.TreasuryAddress),
				RepriceAfter: uint64(a.cfg.Checkout.ExecutorRepriceBlocks)}, a.store, n, cl, a.signer, keys, a.log.With("worker", "sweeper"), nil)
			workers.Go(func() { sw.Run(wctx, sweepPoll) })
		}
	}
	wh := a.cfg.Webhooks
	dispatcher := webhook.New(webhook.Config{Timeout: wh.Timeout, Workers: wh.Workers, PerMerchant: wh.PerMerchant, SlowAfter: wh.SlowAfter,
		Schedule:  webhook.Schedule{First: wh.RetryFirst, Max: wh.RetryMax, Jitter: 0.2, GiveUpAfter: wh.GiveUpAfter},
		UserAgent: "rampway/" + version + " (+webhooks)", AllowPrivate: a.cfg.Mode == config.ModeDev},
		a.store, a.merchants, a.log.With("worker", "webhooks"), nil) // secrets read at every attempt: a rotation applies at once
	workers.Go(func() { dispatcher.Run(wctx) })
	stopWorkers := func() {
		stopWork()
		workers.Wait()
	}
	a.log.Info("listening", "addr", a.addr(), "version", version)
	select {
	case err := <-errc:
		stopWorkers()
		a.close()
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	a.log.Info("shutting down: draining in-flight requests", "timeout", a.cfg.HTTP.ShutdownTimeout.String())
	sctx, cancel := context.WithTimeout(context.Background(), a.cfg.HTTP.ShutdownTimeout)
	defer cancel()
	err := a.srv.Shutdown(sctx)
	stopWorkers() // before the store closes under them
	if cerr := a.close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	a.log.Info("stopped")
	return nil
}

// close releases what was started; it works after a partial start.
func (a *app) close() error {
	var errs []error
	if a.ln != nil {
		_ = a.ln.Close() // already closed when the server shut down
	}
	a.networks.Close()
	a.networks = nil
	if a.store != nil {
		errs = append(errs, a.store.Close())
		a.store = nil
	}
	return errors.Join(errs...)
}

func runServe(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stdout)
	path := fs.String("config", getenv("RAMPWAY_CONFIG"), "configuration file (env RAMPWAY_CONFIG)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *path == "" {
		return errors.New("serve: --config is required")
	}
	cfg, err := config.Load(*path, getenv)
	if err != nil {
		return err
	}
	log := newLogger(cfg, stdout)
	a, err := startApp(ctx, cfg, log)
	if err != nil {
		return err
	}
	return a.serve(ctx)
}

func runMigrate(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	fs.SetOutput(stdout)
	path := fs.String("config", getenv("RAMPWAY_CONFIG"), "configuration file (env RAMPWAY_CONFIG)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *path == "" {
		return errors.New("migrate: --config is required")
	}
	cfg, err := config.Load(*path, getenv)
	if err != nil {
		return err
	}
	db, migrate, err := openDB(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	start := time.Now()
	n, err := migrate(ctx, db)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "applied %d migration(s) to %s in %s; schema is up to date\n", n, cfg.Database.Driver, time.Since(start).Round(time.Millisecond))
	return nil
}

// publicRPCURLs are the networks' public RPC URLs (public_rpc_url), by network name, for the
// checkout page to offer wallets.
func publicRPCURLs(nets []config.Network) map[string]string {
	out := map[string]string{}
	for _, n := range nets {
		if n.PublicRPCURL != "" {
			out[n.Name] = n.PublicRPCURL
		}
	}
	return out
}
