// Package app is rampway's composition root: it opens the store, dials the networks, builds the
// services, the HTTP server and the background workers from a configuration, and runs them.
// `rampway serve`, `rampway dev` and the benchmark (cmd/rampway-bench) all start rampway
// through it, so that what is measured is what runs.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain"
	"github.com/rampway/rampway/chain/hd"
	"github.com/rampway/rampway/chainwork"
	"github.com/rampway/rampway/checkout"
	"github.com/rampway/rampway/checkoutpage"
	"github.com/rampway/rampway/config"
	"github.com/rampway/rampway/contract"
	"github.com/rampway/rampway/dashboard"
	"github.com/rampway/rampway/fiatwork"
	"github.com/rampway/rampway/httpapi"
	"github.com/rampway/rampway/internal/lease"
	"github.com/rampway/rampway/internal/secretbox"
	"github.com/rampway/rampway/internal/sqlstore"
	"github.com/rampway/rampway/merchant"
	"github.com/rampway/rampway/postgres"
	"github.com/rampway/rampway/pricing"
	"github.com/rampway/rampway/provider"
	_ "github.com/rampway/rampway/provider/all" // the payment provider modules of this build
	"github.com/rampway/rampway/sqlite"
	"github.com/rampway/rampway/webhook"
)

// OpenStore opens the configured database and applies pending migrations.
func OpenStore(ctx context.Context, cfg config.Config) (*sqlstore.Store, error) {
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

// NewMerchantService returns the merchant service; authCache > 0 keeps API keys and their
// merchants that long (the server's, see cacheTTL; the admin CLI reads every time).
func NewMerchantService(cfg config.Config, store *sqlstore.Store, authCache time.Duration) *merchant.Service {
	return merchant.NewService(store, merchant.Options{HashSecret: cfg.Secrets.HashSecret, DevMode: cfg.Mode == config.ModeDev,
		AuthCacheTTL: authCache})
}

// NewDepositAddresses returns the onboarding of merchants' deposit addresses on nets, testing
// contracts with transfers simulated from the configured hot wallet; payoutCache > 0 keeps
// the addresses area C's orders read that long (the server's, see cacheTTL; the admin CLI
// reads every time).
func NewDepositAddresses(cfg config.Config, store *sqlstore.Store, nets merchant.DepositChains, payoutCache time.Duration) *merchant.DepositAddresses {
	return merchant.NewDepositAddresses(merchant.DepositAddressesConfig{HotWallet: common.HexToAddress(cfg.Checkout.HotWalletAddress),
		PayoutCacheTTL: payoutCache}, store, nets, nil)
}

// NewRegistry returns the registry of merchants' contract functions on nets (dev mode takes
// http image URLs, as its merchant service does logos); activeCache > 0 keeps the functions
// orders read that long (the server's, see cacheTTL; the admin CLI reads every time).
func NewRegistry(cfg config.Config, store *sqlstore.Store, nets contract.Chains, activeCache time.Duration) *contract.Registry {
	return contract.NewRegistry(contract.RegistryConfig{DevMode: cfg.Mode == config.ModeDev, ActiveCacheTTL: activeCache}, store, nets, nil)
}

// cacheTTL is how long the server keeps what every order request reads and merchants rarely
// change: API keys with their merchants, registered functions, merchants' deposit addresses,
// and price feeds' rounds (a feed's on-chain price moves every few minutes at most). A key revoked, a merchant or a function disabled, a deposit address changed by
// another process (the admin CLI, another instance) takes effect
// within it; through this process's admin API at once.
const cacheTTL = 2 * time.Second

// expiryInterval is how often orders whose time is up are ended.
const expiryInterval = 5 * time.Second

// fiatPoll is how often the fiat worker looks for captures, voids and refunds to do, and the
// in-process providers for notifications to send (it sends a new one at once).
const fiatPoll = time.Second

// watchPoll is how often each network's deposit watcher looks for new blocks.
const watchPoll = 500 * time.Millisecond

// chains gives checkout the networks' clients.
// chains gives checkout and the page the networks; wrap, when set, wraps the order path's node
// clients (Options.QuoteNode).
type chains struct {
	*chain.Networks
	wrap func(string, chain.QuoteNode) chain.QuoteNode
}

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
	var n chain.QuoteNode = cl
	if c.wrap != nil {
		n = c.wrap(name, n)
	}
	return chain.QuoteClient{Node: n}, true
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

// Options are what a caller gives besides the configuration; all are optional.
type Options struct {
	// Version is reported by the API and in webhooks' User-Agent.
	Version string
	// Dial says how to reach networks that are not dialled over their URL (dev mode's chain,
	// in this process).
	Dial []chain.DialOption
	// Store and Networks, when set, are used instead of opening the configured ones (dev mode
	// prepares its demo merchant on them first); the App closes them with itself.
	Store    *sqlstore.Store
	Networks *chain.Networks
	// Listener, when set, is listened on instead of cfg.HTTP.Addr: a caller that must know the
	// port before the App exists (cfg.HTTP.PublicURL, dev mode's demo store) listens first.
	Listener net.Listener
	// Home serves GET / and /demo/* (dev mode's demo store); 404 when nil.
	Home http.Handler
	// QuoteNode, when set, wraps each network's node client as the order path's quotes ask
	// it (the benchmark counts its calls, or answers them without a node).
	QuoteNode func(network string, n chain.QuoteNode) chain.QuoteNode
}

// App is a running API server with its background workers.
type App struct {
	Cfg       config.Config
	Log       *slog.Logger
	Store     *sqlstore.Store
	Networks  *chain.Networks
	Merchants *merchant.Service
	Functions *contract.Registry
	Checkout  *checkout.Service
	// Refunds are the refund use cases people act on (an address, an approval).
	Refunds *checkout.Refunds
	// signer is the hot wallet; nil when this instance only serves the API.
	signer  rampway.Signer
	version string
	// watchers are the networks' deposit watchers, in network order: Serve runs them, and
	// /readyz asks them whether a chain's head is behind the block they have recorded.
	watchers []*chainwork.Watcher
	// executors are the networks' executors, in network order (nil without a hot wallet).
	executors []*chainwork.Executor
	// sweepers are the networks' sweepers, in network order; none without a hot wallet, the
	// deposit addresses' keys and a treasury.
	sweepers []*chainwork.Sweeper
	// sweepersErr is why the sweepers could not be made (the deposit key), logged by Serve.
	sweepersErr error
	// reconcilers compare the networks' ledger with their chain, in network order.
	reconcilers []*chainwork.Reconciler
	srv         *http.Server
	ln          net.Listener
	// providers are the payment providers, in the configuration's order.
	providers []rampway.FiatProvider
	// prices are the configured price sources (a token refund's network fee is converted).
	prices pricing.Source
	// leases run the chain workers on one instance at a time (internal/lease).
	leases *lease.Runner
	// rulesMissing counts the causes the rule table had no rule for (storeHooks).
	rulesMissing *prometheus.CounterVec
	// dispatcher delivers webhook events (Serve runs it on every instance) and sends the
	// dashboard's test events.
	dispatcher *webhook.Dispatcher
}

// dashboardMerchants are the dashboard's Merchants: the merchant use cases, and the store's
// webhook event log.
type dashboardMerchants struct {
	*merchant.Service
	rampway.WebhookLogStore
}

// nodesPinger makes /readyz fail while none of a network's nodes is usable.
type nodesPinger struct {
	nets *chain.Networks
	name string
}

func (p nodesPinger) Ping(context.Context) error { return p.nets.Ping(p.name) }

// Start opens the store, dials the networks, builds the services and the server, and listens;
// Serve starts answering and working. Everything comes from cfg and opt, at construction.
func Start(ctx context.Context, cfg config.Config, log *slog.Logger, opt Options) (_ *App, err error) {
	a := &App{Cfg: cfg, Log: log, Store: opt.Store, Networks: opt.Networks, ln: opt.Listener, version: opt.Version}
	defer func() {
		if err != nil {
			a.Close() // a, not the result: every error return has set that to nil
		}
	}()
	if a.version == "" {
		a.version = "dev"
	}
	if a.Store == nil {
		if a.Store, err = OpenStore(ctx, cfg); err != nil {
			return nil, err
		}
	}
	if a.Networks == nil {
		if a.Networks, err = chain.Dial(ctx, cfg.DomainNetworks(), append(opt.Dial, chain.WithLog(log.With("component", "rpc")))...); err != nil {
			return nil, fmt.Errorf("networks: %w", err)
		}
	}
	for _, n := range a.Networks.List() {
		log.Info("network ready", "network", n.Name, "chain_id", n.ChainID.String(), "rpc", chain.Redact(n.RPCURLs[0]), "assets", len(n.Tokens)+1)
	}
	if a.signer, err = hotWallet(cfg); err != nil {
		return nil, err
	}
	a.Merchants = NewMerchantService(cfg, a.Store, cacheTTL)
	a.Functions = NewRegistry(cfg, a.Store, a.Networks, cacheTTL)
	var deriver checkout.Deriver
	if cfg.Checkout.DepositXPub != "" {
		if deriver, err = hd.FromXPub(cfg.Checkout.DepositXPub); err != nil {
			return nil, err
		}
	}
	nets := chains{Networks: a.Networks, wrap: opt.QuoteNode}
	// Prices: the configured table, and the on-chain feeds for their symbols.
	var prices pricing.Source = pricing.Static(cfg.PriceTable())
	if feeds := cfg.Feeds(func(n string) (pricing.Caller, bool) { cl, ok := a.Networks.Client(n); return cl, ok }); len(feeds) > 0 {
		prices = pricing.NewFeeds(pricing.FeedsConfig{Feeds: feeds, Fallback: prices, CacheFor: cacheTTL}, nil) // a burst of fiat quotes reads each feed once
	}
	a.prices = prices
	// One deposit address service for the admin API and area C's orders, so that a change
	// through the API applies to the next order at once.
	deposits := NewDepositAddresses(cfg, a.Store, a.Networks, cacheTTL)
	// The payment providers, each an instance of a registered module (provider/all), in the
	// configuration's order: a new payment starts with the first of its order's mode that takes
	// its currency and method.
	var routes []checkout.FiatRoute
	for _, pc := range cfg.FiatProviders() {
		m, ok := provider.Lookup(pc.Module)
		if !ok {
			return nil, fmt.Errorf("fiat.providers: no payment provider module %q in this build (it has %v)", pc.Module, provider.Names())
		}
		inst, err := m.New(ctx, cfg.ProviderSettings(pc), provider.Deps{Books: a.Store, Log: log.With("provider", pc.Name), Now: time.Now})
		if err != nil {
			return nil, fmt.Errorf("fiat.providers: %s: %w", pc.Name, err)
		}
		if inst.Name() != pc.Name || inst.Livemode() != m.LivemodeOf(cfg.ProviderSettings(pc)) {
			return nil, fmt.Errorf("fiat.providers: %s: the module %s built a provider named %s of %s mode", pc.Name, pc.Module, inst.Name(), rampway.ModeName(inst.Livemode()))
		}
		routes = append(routes, checkout.FiatRoute{Provider: inst, Takes: cfg.ProviderTakes(pc)})
		a.providers = append(a.providers, inst)
	}
	a.Checkout = checkout.New(checkout.Config{
		PublicURL: cfg.HTTP.PublicURL, HashSecret: []byte(cfg.Secrets.HashSecret), OrderExpiry: cfg.Checkout.OrderExpiry,
		ServiceFeeBPS: cfg.Checkout.ServiceFeeBPS, HotWallet: common.HexToAddress(cfg.Checkout.HotWalletAddress), DevMode: cfg.Mode == config.ModeDev,
		TestFiat: cfg.FiatCurrencies(false), LiveFiat: cfg.FiatCurrencies(true), FiatSpreadBPS: cfg.Fiat.SpreadBPS, BankTransferExpiry: cfg.Checkout.BankTransferExpiry,
	}, checkout.Deps{Store: a.Store, Functions: a.Functions, Chains: nets, Prices: prices, Deriver: deriver, Payouts: deposits.Payout, Providers: routes})
	a.Refunds = checkout.NewRefunds(a.Store, a.Networks, common.HexToAddress(cfg.Checkout.HotWalletAddress), nil)
	// A provider that still holds open payments cannot be taken out of the configuration: its
	// notifications would answer 404 and its captures, voids and refunds go nowhere.
	inUse, err := a.Store.ProvidersInUse(ctx)
	if err != nil {
		return nil, err
	}
	for _, name := range slices.Sorted(maps.Keys(inUse)) {
		if _, ok := a.Checkout.FiatProviders()[name]; !ok {
			return nil, fmt.Errorf("fiat.providers: payment provider %q still holds %d open payment(s) (waiting, authorised, or with a capture, void or refund to do): keep it configured until they are settled (rampway admin fiat-actions list shows what is left to do)", name, inUse[name])
		}
	}
	logModes(log, cfg, a.Networks.List(), a.Checkout)
	for _, n := range a.Networks.List() {
		// Open orders of the other mode than their network's are not executed (the executor
		// fails them, holding their refunds): an operator is told at once, not order by order.
		switch k, err := a.Store.OpenOrdersOfMode(ctx, n.Name, !n.Livemode); {
		case err != nil:
			return nil, err
		case k > 0:
			log.Error("open orders of the other mode than their network's: they will not be executed (they fail, their refunds wait for an operator); see docs/production.md, \"Upgrading to a version with modes\"",
				"network", n.Name, "network_mode", rampway.ModeName(n.Livemode), "orders", k, "orders_mode", rampway.ModeName(!n.Livemode))
		}
	}
	// A chain whose head stays below the block the database has recorded (a node that lost
	// blocks, or lags) is logged as an error and makes /readyz answer 503. The dev chain
	// mines its own blocks and never lags: at once there; a minute's grace elsewhere.
	// A network's executor (with a hot wallet) is woken by its watcher's credits: a confirmed
	// payment is executed at once, not at the next poll.
	var ready []httpapi.Pinger
	for _, n := range a.Networks.List() {
		cl, _ := a.Networks.Client(n.Name)
		var x *chainwork.Executor
		if a.signer != nil {
			// The executor shares the network's batcher with the order path (its in-flight
			// limit set for where the node is: loopback or remote).
			var xcl chainwork.ExecClient = cl
			if bc, ok := a.Networks.Batching(n.Name); ok {
				xcl = bc
			}
			x = chainwork.NewExecutor(chainwork.ExecutorConfig{RepriceAfter: uint64(cfg.Checkout.ExecutorRepriceBlocks),
				FiatGiveUpAfter: cfg.Checkout.FiatExecutionTimeout, RefundPolicies: cfg.RefundPolicies(), Prices: a.prices}, a.Store, a.Functions, n, xcl,
				a.signer, log.With("worker", "executor"), nil)
		}
		wcfg := chainwork.WatcherConfig{CannotLag: cfg.Mode == config.ModeDev}
		field := internalTransfers(&wcfg, cfg, n.Name, cl, log)
		w, err := chainwork.NewWatcher(wcfg, a.Store, n, cl, log.With("worker", "watcher"), nil)
		if err == nil {
			err = w.CheckInternalTransfers(ctx)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", field, err)
		}
		// A new database's watcher starts at the head now, before any order is taken: one
		// started at its first step would miss the payments mined before it.
		if err := w.Begin(ctx); err != nil {
			return nil, fmt.Errorf("network %s: the deposit watcher's first block: %w", n.Name, err)
		}
		if wcfg.Internal.Mode != "" {
			log.Info("internal transfers watched", "network", n.Name, "mode", wcfg.Internal.Mode)
		}
		a.watchers = append(a.watchers, w)
		a.executors = append(a.executors, x)
		// The ledger knows the hot wallet before anything moves (a sweep to it is to a held
		// account); its reconciler compares the ledger with the chain block after block.
		var hot []common.Address
		if cfg.Checkout.HotWalletAddress != "" {
			hot = append(hot, common.HexToAddress(cfg.Checkout.HotWalletAddress))
		}
		rc := chainwork.NewReconciler(chainwork.ReconcilerConfig{HotWallets: hot}, a.Store, n, cl, log.With("worker", "reconciler"), nil)
		if err := rc.AddHotWallets(ctx); err != nil {
			return nil, err
		}
		a.reconcilers = append(a.reconcilers, rc)
		ready = append(ready, w, nodesPinger{a.Networks, n.Name})
	}
	// The deposit addresses' sweepers (Serve runs them, under their leases).
	if keys, err := depositKeys(cfg); err != nil {
		a.sweepersErr = err
	} else if keys != nil && a.signer != nil {
		for _, n := range a.Networks.List() {
			cl, _ := a.Networks.Client(n.Name)
			a.sweepers = append(a.sweepers, chainwork.NewSweeper(chainwork.SweeperConfig{Treasury: common.HexToAddress(cfg.Checkout.TreasuryAddress),
				RepriceAfter: uint64(cfg.Checkout.ExecutorRepriceBlocks)}, a.Store, n, cl, a.signer, keys, log.With("worker", "sweeper"), nil))
		}
	}
	// The chain workers of a network read all its blocks and receipts: each runs on the one
	// instance holding its lease (several instances on one database share the work, not
	// repeat it); another takes over within lease.TTL of a holder's death.
	a.leases = lease.New(lease.Config{}, a.Store, lease.Holder(), log.With("worker", "leases"))
	if cfg.Database.Driver == "sqlite" {
		a.leases = lease.Solo(log.With("worker", "leases")) // one process: nothing to share
	}
	reg := prometheus.NewRegistry()
	a.rulesMissing = newRuleMissingCounter()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), newQueueCollector(a.Store, log),
		newLeaseCollector(a.leases), a.rulesMissing, newLedgerCollector(a.Store, ledgerNetworks(a.Networks.List(), len(a.providers) > 0), log),
		newHotWalletCollector(hotWallets{a.executors, a.sweepers}))
	proxies, err := cfg.HTTP.TrustedProxyPrefixes()
	if err != nil {
		return nil, fmt.Errorf("http.trusted_proxies: %w", err)
	}
	// The checkout page's live streams end when the shutdown starts: Shutdown waits for
	// every active request, and a stream would hold it for its whole life (minutes).
	streams, endStreams := context.WithCancel(context.Background())
	bp := cfg.HTTP.BasePaths
	// The webhook dispatcher: Serve runs it on every instance (it needs no lease); the
	// dashboard sends its test events through it, so that they go as deliveries do.
	wh := cfg.Webhooks
	a.dispatcher = webhook.New(webhook.Config{Timeout: wh.Timeout, Workers: wh.Workers, PerMerchant: wh.PerMerchant, SlowAfter: wh.SlowAfter,
		Schedule:  webhook.Schedule{First: wh.RetryFirst, Max: wh.RetryMax, Jitter: 0.2, GiveUpAfter: wh.GiveUpAfter},
		UserAgent: "rampway/" + a.version + " (+webhooks)", AllowPrivate: cfg.Mode == config.ModeDev},
		a.Store, a.Merchants, log.With("worker", "webhooks"), nil) // secrets read at every attempt: a rotation applies at once
	var dash http.Handler // the dashboard, when the configuration serves it
	if cfg.DashboardEnabled() {
		dashLog := log.With("component", "dashboard")
		dash = dashboard.NewHandler(dashboard.Deps{Accounts: dashboard.NewAccounts(a.Store, dashboard.Config{}, dashLog), Log: dashLog,
			Merchants: dashboardMerchants{a.Merchants, a.Store}, Orders: &dashboard.OrderCases{Service: a.Checkout, Store: a.Store, Refunder: a.Refunds, Networks: cfg.DomainNetworks()}, Refunds: a.Refunds, Functions: a.Functions, Deposits: deposits, Stats: a.Store,
			TestEvents: a.dispatcher})
	}
	h := httpapi.New(httpapi.Config{
		TrustedProxies: proxies,
		BasePaths:      httpapi.BasePaths{Mint: bp.Mint, NFTRamp: bp.NFTRamp, Deposit: bp.Deposit, Admin: bp.Admin},
		MaxBodyBytes:   cfg.HTTP.MaxBodyBytes,
		AdminToken:     cfg.Admin.Token,
		Version:        a.version,
		RateLimit:      httpapi.RateLimit{RequestsPerSecond: cfg.HTTP.RateLimit.RequestsPerSecond, Burst: cfg.HTTP.RateLimit.Burst},
		PublicURL:      cfg.HTTP.PublicURL,
	}, httpapi.Deps{Merchants: a.Merchants, Functions: a.Functions, Checkout: a.Checkout, Idempotency: a.Store, DB: a.Store, Ready: ready, Log: log, Metrics: reg,
		DepositAddresses: deposits, Refunds: a.Refunds, Orders: a.Store, Events: a.Store, Ledger: a.Store, Warnings: []httpapi.Warner{ledgerWarner{a.Store}, hotWallets{a.executors, a.sweepers}},
		Home: opt.Home, Providers: a.providers, Dashboard: dash, Page: endStreamsOnShutdown(checkoutpage.New(checkoutpage.Config{PublicRPCURLs: publicRPCURLs(cfg.Networks)}, checkoutpage.Deps{Store: a.Store, Checkout: a.Checkout,
			Fiat: a.Checkout, Refunds: a.Refunds, Chains: nets, Log: log.With("component", "checkout-page")}), streams)})
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
	if a.ln == nil {
		if a.ln, err = net.Listen("tcp", cfg.HTTP.Addr); err != nil {
			endStreams()
			return nil, fmt.Errorf("listen on %s: %w", cfg.HTTP.Addr, err)
		}
	}
	return a, nil
}

// internalTransfers sets in wcfg how network's watcher sees native payments made inside
// transactions (networks[].internal_transfers), and returns the setting's field for the
// errors of the watcher's start (NewWatcher, CheckInternalTransfers: a node without tracing,
// or no Multicall3 where the config says). Off is logged: such payments are not seen.
func internalTransfers(wcfg *chainwork.WatcherConfig, cfg config.Config, network string, cl *ethclient.Client, log *slog.Logger) string {
	i := slices.IndexFunc(cfg.Networks, func(n config.Network) bool { return n.Name == network })
	if i < 0 {
		return "network " + network // a network given to Start already dialled, not in the config: off
	}
	field := fmt.Sprintf("networks[%d].internal_transfers", i)
	n := cfg.Networks[i]
	mode := n.InternalMode()
	if mode == config.InternalTransfersOff {
		log.Warn("internal transfers are off: native payments made inside transactions (contract wallets, batch payouts) are not seen; set internal_transfers to trace or balance",
			"network", network, "field", field)
		return field
	}
	var mc common.Address
	if n.Multicall3 != "" {
		mc = common.HexToAddress(n.Multicall3)
	}
	wcfg.Internal = chainwork.InternalTransfers{Mode: chainwork.InternalMode(mode), Node: cl.Client(), Multicall3: mc}
	return field
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

// Addr is the address the server listens on (the real port when the config said 0).
func (a *App) Addr() string { return a.ln.Addr().String() }

// Serve answers requests until ctx ends, then drains in-flight requests and closes.
func (a *App) Serve(ctx context.Context) error {
	errc := make(chan error, 1)
	go func() { errc <- a.srv.Serve(a.ln) }()
	// Background work stops with the server.
	wctx, stopWork := context.WithCancel(context.WithoutCancel(ctx))
	var workers sync.WaitGroup
	// The expiry can wait for requests: a burst of orders expiring at once must not slow them.
	workers.Go(func() { a.Checkout.RunExpiry(rampway.Background(wctx), expiryInterval, a.Log.With("worker", "expiry")) })

	if a.signer == nil && len(a.Networks.List()) > 0 {
		a.Log.Warn("no hot wallet key: this instance does not execute paid orders", "env", config.EnvHotWalletKey)
	}
	leases := a.leases
	wakes := workerWakes{executors: map[string]func(){}} // the workers the store's hooks wake
	for i, n := range a.Networks.List() {
		w := a.watchers[i]
		if x := a.executors[i]; x != nil {
			wakes.executors[n.Name] = x.Wake
			workers.Go(func() {
				leases.Run(wctx, "executor/"+n.Name+"/"+a.signer.Address().Hex(), func(ctx context.Context) { x.Run(ctx, watchPoll) })
			})
		}
		workers.Go(func() { leases.Run(wctx, "watcher/"+n.Name, func(ctx context.Context) { w.Run(ctx, watchPoll) }) })
		rc := a.reconcilers[i]
		workers.Go(func() {
			leases.Run(wctx, "reconciler/"+n.Name, func(ctx context.Context) { rc.Run(rampway.Background(ctx), reconcilePoll) })
		})
	}
	if a.sweepersErr != nil {
		a.Log.Error("sweeper not started", "error", a.sweepersErr)
	}
	for i, sw := range a.sweepers {
		n := a.Networks.List()[i]
		workers.Go(func() {
			leases.Run(wctx, "sweeper/"+n.Name, func(ctx context.Context) { sw.Run(rampway.Background(ctx), sweepPoll) })
		})
	}
	if ps := a.Checkout.FiatProviders(); len(ps) > 0 {
		fw := fiatwork.New(a.Store, ps, fiatwork.Config{GiveUpAfter: a.Cfg.Fiat.ActionGiveUpAfter}, a.Log.With("worker", "fiat"), nil)
		wakes.fiat = fw.Wake
		workers.Go(func() { fw.Run(wctx, fiatPoll) })
		// The ledger's fiat side against the providers' records (docs/ledger.md), one
		// instance at a time.
		fr := fiatwork.NewReconciler(a.Store, ps, fiatwork.ReconcilerConfig{}, a.Log.With("worker", "fiat-reconciler"), nil)
		workers.Go(func() {
			leases.Run(wctx, "reconciler/"+rampway.LedgerFiat, func(ctx context.Context) { fr.Run(rampway.Background(ctx), fiatReconcileEvery) })
		})
	}
	for _, p := range a.providers {
		if r, ok := p.(provider.Runner); ok { // an in-process provider's own work (its notifications)
			workers.Go(func() {
				r.Run(wctx, fiatPoll, func(err error) { a.Log.Error("payment provider", "provider", p.Name(), "error", err) })
			})
		}
	}
	dispatcher := a.dispatcher
	wakes.webhooks = dispatcher.Wake
	stopHooks := a.Store.Listen(storeHooks(a.Log, a.rulesMissing, wakes))
	workers.Go(func() { dispatcher.Run(wctx) })
	stopWorkers := func() {
		stopWork()
		workers.Wait()
		stopHooks()
	}
	a.Log.Info("listening", "addr", a.Addr(), "version", a.version)
	select {
	case err := <-errc:
		stopWorkers()
		a.Close()
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	a.Log.Info("shutting down: draining in-flight requests", "timeout", a.Cfg.HTTP.ShutdownTimeout.String())
	sctx, cancel := context.WithTimeout(context.Background(), a.Cfg.HTTP.ShutdownTimeout)
	defer cancel()
	err := a.srv.Shutdown(sctx)
	stopWorkers() // before the store closes under them
	if cerr := a.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	a.Log.Info("stopped")
	return nil
}

// Close releases what was started; it works after a partial start.
func (a *App) Close() error {
	var errs []error
	if a.ln != nil {
		_ = a.ln.Close() // already closed when the server shut down
	}
	a.Networks.Close()
	a.Networks = nil
	if a.Store != nil {
		errs = append(errs, a.Store.Close())
		a.Store = nil
	}
	return errors.Join(errs...)
}

// logModes says at start what each mode runs on: which networks and which payment provider
// take test money, which real money. A mode without a provider offers no fiat methods; a live
// mode with neither is off. A test-only provider in production is said loudly: test data only.
func logModes(log *slog.Logger, cfg config.Config, nets []*rampway.Network, c *checkout.Service) {
	for _, live := range []bool{false, true} {
		var names []string
		for _, n := range nets {
			if n.Livemode == live {
				names = append(names, n.Name+" (chain "+n.ChainID.String()+")")
			}
		}
		providers := "none: no fiat methods"
		if ps := c.ModeProviders(live); len(ps) > 0 {
			providers = strings.Join(ps, ", ")
		}
		mode := rampway.ModeName(live)
		switch {
		case live && len(names) == 0 && len(c.ModeProviders(live)) == 0:
			log.Info("live mode is off: no live network and no live payment provider; live keys (rw_live_) can create nothing")
		default:
			log.Info(mode+" mode", "networks", strings.Join(names, ", "), "payment_provider", providers,
				"keys", rampway.APIKeyPrefix(live)+"…", "money", map[bool]string{false: "test money only", true: "REAL money"}[live])
		}
	}
	for _, p := range cfg.FiatProviders() {
		if m, ok := provider.Lookup(p.Module); ok && m.TestOnly && cfg.Mode == config.ModeProduction {
			log.Warn("a test-only payment provider is configured: it takes test data for test-mode orders only, never real money",
				"provider", p.Name, "module", p.Module)
		}
	}
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

// networkNames are the names of nets.
func networkNames(nets []*rampway.Network) []string {
	out := make([]string, len(nets))
	for i, n := range nets {
		out[i] = n.Name
	}
	return out
}
