// Package config is rampway's configuration: one YAML file with defaults, secrets optionally
// from the environment, and Validate naming the field at fault.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/rampway/rampway"
)

// Modes.
const (
	ModeProduction = "production"
	ModeDev        = "dev"
)

// DevSecretPrefix starts every secret that `rampway dev` generates; production refuses them.
const DevSecretPrefix = "dev_"

// Environment variables that override secrets and the DSN from the file.
const (
	EnvAdminToken    = "RAMPWAY_ADMIN_TOKEN"
	EnvHashSecret    = "RAMPWAY_HASH_SECRET"
	EnvEncryptionKey = "RAMPWAY_ENCRYPTION_KEY"
	EnvDatabaseDSN   = "RAMPWAY_DATABASE_DSN"
	EnvDepositXPub   = "RAMPWAY_DEPOSIT_XPUB"
	// EnvHotWalletKey is the hot wallet's hex private key; it is only ever read from the
	// environment, never from the file.
	EnvHotWalletKey = "RAMPWAY_HOT_WALLET_KEY"
	// EnvHotWalletPassphrase unlocks checkout.hot_wallet_keystore.
	EnvHotWalletPassphrase = "RAMPWAY_HOT_WALLET_PASSPHRASE"
	// EnvDepositXPrv is the extended private key of the deposit addresses (the sweeper's); it
	// is only ever read from the environment.
	EnvDepositXPrv = "RAMPWAY_DEPOSIT_XPRV"
)

// Config is the whole configuration.
type Config struct {
	// Mode is "production" (the default) or "dev" (loopback webhook URLs, dev secrets allowed).
	Mode     string   `yaml:"mode"`
	HTTP     HTTP     `yaml:"http"`
	Database Database `yaml:"database"`
	Admin    Admin    `yaml:"admin"`
	Secrets  Secrets  `yaml:"secrets"`
	Log      Log      `yaml:"log"`
	// Networks are the EVM chains rampway works on.
	Networks []Network `yaml:"networks"`
	Checkout Checkout  `yaml:"checkout"`
	Webhooks Webhooks  `yaml:"webhooks"`
	// Fiat configures the fiat areas (B and C).
	Fiat Fiat `yaml:"fiat"`
	// Refunds configures how area A's refunds are paid back.
	Refunds Refunds `yaml:"refunds"`
	// Dashboard configures the dashboard at /dashboard.
	Dashboard Dashboard `yaml:"dashboard"`
}

// Dashboard configures the dashboard served at /dashboard.
type Dashboard struct {
	// Enabled serves it; unset: on in dev mode, off in production (where an operator turns it
	// on once it is behind HTTPS).
	Enabled *bool `yaml:"enabled"`
}

// DashboardEnabled reports whether the dashboard is served.
func (c Config) DashboardEnabled() bool {
	if c.Dashboard.Enabled != nil {
		return *c.Dashboard.Enabled
	}
	return c.Mode == ModeDev
}

// Webhooks configures the delivery of order events to merchants.
type Webhooks struct {
	// Timeout bounds one attempt: a 2xx within it is success. Default 10s.
	Timeout time.Duration `yaml:"timeout"`
	// Workers bounds the attempts in flight; default 64.
	Workers int `yaml:"workers"`
	// PerMerchant bounds one merchant's attempts in flight (a dead endpoint holds no more);
	// default 4. A claim takes at most this many of one merchant's due deliveries.
	PerMerchant int `yaml:"per_merchant"`
	// SlowAfter is when an attempt still in flight stops counting against Workers (it still
	// counts against PerMerchant): slow and dead endpoints do not shrink the pool the others
	// are served by. Default 250ms.
	SlowAfter time.Duration `yaml:"slow_after"`
	// RetryFirst is the wait after the first failed attempt, doubling each time up to RetryMax,
	// with +-20% jitter, until GiveUpAfter since the event. Defaults 10s, 1h, 72h.
	RetryFirst  time.Duration `yaml:"retry_first"`
	RetryMax    time.Duration `yaml:"retry_max"`
	GiveUpAfter time.Duration `yaml:"give_up_after"`
}

// Checkout configures quotes and orders.
type Checkout struct {
	// OrderExpiry is how long a user has to pay an order; default 30m.
	OrderExpiry time.Duration `yaml:"order_expiry"`
	// BankTransferExpiry is how long an order paid by bank transfer or direct debit waits for its money (and
	// keeps its quote); default 72h.
	BankTransferExpiry time.Duration `yaml:"bank_transfer_expiry"`
	// FiatExecutionTimeout is how long a fiat-paid order (areas B and C) waits for the hot
	// wallet's funds before it fails and its payment is voided or refunded; default 1h.
	FiatExecutionTimeout time.Duration `yaml:"fiat_execution_timeout"`
	// ServiceFeeBPS is the service fee in basis points of the value paid to a function.
	ServiceFeeBPS int64 `yaml:"service_fee_bps"`
	// DepositXPub is the extended public key of m/44'/60'/0'/0 that deposit addresses derive
	// from; env RAMPWAY_DEPOSIT_XPUB. Required with networks.
	DepositXPub string `yaml:"deposit_xpub"`
	// HotWalletAddress is the wallet that executes calls (quotes simulate from it).
	HotWalletAddress string `yaml:"hot_wallet_address"`
	// HotWalletKeystore is a go-ethereum keystore file of the hot wallet, unlocked with
	// env RAMPWAY_HOT_WALLET_PASSPHRASE. With it (or env RAMPWAY_HOT_WALLET_KEY) this instance
	// executes paid orders; without either it serves the API only.
	HotWalletKeystore string `yaml:"hot_wallet_keystore"`
	// TreasuryAddress receives swept deposits. With it and env RAMPWAY_DEPOSIT_XPRV (and a hot
	// wallet key, for the gas of token sweeps) this instance sweeps; without, deposits stay.
	TreasuryAddress string `yaml:"treasury_address"`
	// ExecutorRepriceBlocks is how many blocks an execution may wait unmined before it is
	// re-priced (both EIP-1559 fee caps +12.5%); default 3.
	ExecutorRepriceBlocks int `yaml:"executor_reprice_blocks"`
	// Prices are fixed USD prices per asset or fiat currency symbol ("3000.50", "1.08"), used
	// to convert network fees into tokens and crypto into fiat (USD is 1 unless given).
	Prices map[string]string `yaml:"prices"`
	// PriceFeeds are Chainlink-style USD aggregators read instead of Prices for their symbols.
	PriceFeeds []PriceFeed `yaml:"price_feeds"`
}

// PriceFeed is an on-chain USD price feed (AggregatorV3Interface: latestRoundData).
type PriceFeed struct {
	Symbol  string `yaml:"symbol"`  // an asset's or a currency's, as in prices
	Network string `yaml:"network"` // a configured network's name
	Address string `yaml:"address"`
	// MaxAge is how old the feed's last update may be before its price is refused; default 1h.
	MaxAge time.Duration `yaml:"max_age"`
}

// HTTP configures the API server.
type HTTP struct {
	// Addr is the listen address, default ":8080".
	Addr string `yaml:"addr"`
	// PublicURL is the address users and merchants reach this service at (gateway_url base).
	PublicURL string `yaml:"public_url"`
	// MaxBodyBytes bounds request bodies (413 above it); default 1 MiB.
	MaxBodyBytes      int64         `yaml:"max_body_bytes"`
	ReadHeaderTimeout time.Duration `yaml:"read_header_timeout"`
	ReadTimeout       time.Duration `yaml:"read_timeout"`
	WriteTimeout      time.Duration `yaml:"write_timeout"`
	IdleTimeout       time.Duration `yaml:"idle_timeout"`
	// ShutdownTimeout bounds the drain of in-flight requests on SIGTERM.
	ShutdownTimeout time.Duration `yaml:"shutdown_timeout"`
	BasePaths       BasePaths     `yaml:"base_paths"`
	// RateLimit is each merchant's token bucket on the merchant API, in this instance.
	RateLimit RateLimit `yaml:"rate_limit"`
	// TrustedProxies are the reverse proxies in front (addresses or CIDR networks) whose
	// X-Forwarded-For rampway believes: the client's address is then the right-most one there
	// that is not a trusted proxy. Empty (the default): the header is ignored and the client is
	// the peer. Behind Caddy or nginx on the same machine: [127.0.0.1, "::1"].
	TrustedProxies []string `yaml:"trusted_proxies"`
}

// TrustedProxyPrefixes are TrustedProxies parsed (Validate reports an entry that is neither).
func (h HTTP) TrustedProxyPrefixes() ([]netip.Prefix, error) {
	return parseTrustedProxies(h.TrustedProxies)
}

// parseTrustedProxies reads http.trusted_proxies: each entry an address (127.0.0.1, ::1) or a
// network in CIDR notation (10.0.0.0/8).
func parseTrustedProxies(entries []string) ([]netip.Prefix, error) {
	out := make([]netip.Prefix, 0, len(entries))
	for _, e := range entries {
		e = strings.TrimSpace(e)
		if p, err := netip.ParsePrefix(e); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(e)
		if err != nil || a.Zone() != "" {
			return nil, fmt.Errorf("%q is neither an IP address nor a CIDR network", e)
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}

// RateLimit bounds each merchant's requests to the merchant API, per instance: a bucket of
// Burst requests refilled at RequestsPerSecond; a request over it is 429 with Retry-After.
// Defaults 100 per second, bursts of 200; requests_per_second 0 turns the limit off.
type RateLimit struct {
	RequestsPerSecond float64 `yaml:"requests_per_second"`
	Burst             int     `yaml:"burst"`
}

// BasePaths are the path prefixes of the three merchant API areas and the admin API.
type BasePaths struct {
	Mint    string `yaml:"mint"`     // area A, default /mint
	NFTRamp string `yaml:"nft_ramp"` // area B, default /nft-ramp
	Deposit string `yaml:"deposit"`  // area C, default /deposit
	Admin   string `yaml:"admin"`    // admin API, default /admin
}

// Database selects and configures the store.
type Database struct {
	// Driver is "sqlite" or "postgres".
	Driver string `yaml:"driver"`
	// Path is the SQLite database file (driver sqlite).
	Path string `yaml:"path"`
	// DSN is the PostgreSQL connection string (driver postgres); env RAMPWAY_DATABASE_DSN.
	DSN          string `yaml:"dsn"`
	MaxOpenConns int    `yaml:"max_open_conns"`
}

// Admin configures the admin API.
type Admin struct {
	// Token is the bearer token of the admin API; env RAMPWAY_ADMIN_TOKEN.
	Token string `yaml:"token"`
}

// Secrets are the service's own keys.
type Secrets struct {
	// HashSecret keys the hashes of API keys and checkout links; env RAMPWAY_HASH_SECRET.
	// Changing it invalidates every API key.
	HashSecret string `yaml:"hash_secret"`
	// EncryptionKey encrypts webhook secrets at rest; env RAMPWAY_ENCRYPTION_KEY. Optional.
	EncryptionKey string `yaml:"encryption_key"`
	// HotWalletKey is the hot wallet's hex private key: env RAMPWAY_HOT_WALLET_KEY only.
	HotWalletKey string `yaml:"-"`
	// HotWalletPassphrase unlocks checkout.hot_wallet_keystore: env only.
	HotWalletPassphrase string `yaml:"-"`
	// DepositXPrv is the deposit addresses' extended private key: env RAMPWAY_DEPOSIT_XPRV only.
	DepositXPrv string `yaml:"-"`
}

// Log configures logging.
type Log struct {
	Level  string `yaml:"level"`  // debug, info (default), warn, error
	Format string `yaml:"format"` // json (default) or text
}

// Default returns the configuration with every default filled in.
func Default() Config {
	return Config{
		Mode: ModeProduction,
		HTTP: HTTP{
			Addr:              ":8080",
			MaxBodyBytes:      1 << 20,
			ReadHeaderTimeout: 10 * time.Second,
			ReadTimeout:       30 * time.Second,
			WriteTimeout:      60 * time.Second,
			IdleTimeout:       120 * time.Second,
			ShutdownTimeout:   20 * time.Second,
			BasePaths:         BasePaths{Mint: "/mint", NFTRamp: "/nft-ramp", Deposit: "/deposit", Admin: "/admin"},
			RateLimit:         RateLimit{RequestsPerSecond: 100, Burst: 200},
		},
		Database: Database{Driver: "sqlite", Path: "rampway.db"},
		Log:      Log{Level: "info", Format: "json"},
		Checkout: Checkout{OrderExpiry: 30 * time.Minute, BankTransferExpiry: 72 * time.Hour, FiatExecutionTimeout: time.Hour, ExecutorRepriceBlocks: 3},
		Webhooks: Webhooks{Timeout: 10 * time.Second, Workers: 128, PerMerchant: 16, SlowAfter: 250 * time.Millisecond, RetryFirst: 10 * time.Second, RetryMax: time.Hour,
			GiveUpAfter: 72 * time.Hour},
		Fiat:    defaultFiat(),
		Refunds: defaultRefunds(),
	}
}

// Load reads the YAML file at path over the defaults, applies environment overrides and
// validates the result.
func Load(path string, getenv func(string) string) (Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return Config{}, fmt.Errorf("config: %w", err)
	}
	defer f.Close()
	cfg, err := Parse(f, getenv)
	if err != nil {
		return Config{}, fmt.Errorf("config %s: %w", path, err)
	}
	return cfg, nil
}

// Parse is Load for a reader.
func Parse(r io.Reader, getenv func(string) string) (Config, error) {
	cfg := Default()
	data, err := io.ReadAll(r)
	if err != nil {
		return Config{}, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil && !errors.Is(err, io.EOF) {
		return Config{}, fmt.Errorf("parse: %w", err)
	}
	cfg.ApplyEnv(getenv)
	cfg.expandRPCURLs(getenv)
	if err := cfg.Validate(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// ApplyEnv overrides secrets and the DSN with the environment variables that are set.
func (c *Config) ApplyEnv(getenv func(string) string) {
	for env, dst := range map[string]*string{
		EnvAdminToken:          &c.Admin.Token,
		EnvHashSecret:          &c.Secrets.HashSecret,
		EnvEncryptionKey:       &c.Secrets.EncryptionKey,
		EnvDatabaseDSN:         &c.Database.DSN,
		EnvDepositXPub:         &c.Checkout.DepositXPub,
		EnvHotWalletKey:        &c.Secrets.HotWalletKey,
		EnvHotWalletPassphrase: &c.Secrets.HotWalletPassphrase,
		EnvDepositXPrv:         &c.Secrets.DepositXPrv,
	} {
		if v := getenv(env); v != "" {
			*dst = v
		}
	}
	c.Fiat.getenv = getenv // the providers' secrets (provider.Settings.Env)
}

// FieldError is a configuration error naming its field, e.g. "database.driver".
type FieldError struct {
	Field   string
	Message string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Message }

// Validate checks every field and returns all problems, each a *FieldError, joined.
func (c *Config) Validate() error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, &FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
	}
	prod := c.Mode == ModeProduction
	if c.Mode != ModeProduction && c.Mode != ModeDev {
		bad("mode", "must be %q or %q, not %q", ModeProduction, ModeDev, c.Mode)
	}

	if _, _, err := net.SplitHostPort(c.HTTP.Addr); err != nil {
		bad("http.addr", "must be host:port (e.g. \":8080\"): %v", err)
	}
	if c.HTTP.PublicURL == "" {
		bad("http.public_url", "is required (the address users reach the checkout page at)")
	} else if u, err := url.Parse(c.HTTP.PublicURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		bad("http.public_url", "must be an absolute http(s) URL, not %q", c.HTTP.PublicURL)
	} else if prod && u.Scheme != "https" && !rampway.IsLoopbackHost(u.Hostname()) {
		bad("http.public_url", "must be https in production")
	} else if u.RawQuery != "" || u.Fragment != "" {
		bad("http.public_url", "must not have a query or fragment")
	}
	if c.HTTP.MaxBodyBytes < 1024 || c.HTTP.MaxBodyBytes > 64<<20 {
		bad("http.max_body_bytes", "must be between 1024 and 67108864, not %d", c.HTTP.MaxBodyBytes)
	}
	for name, d := range map[string]time.Duration{
		"http.read_header_timeout": c.HTTP.ReadHeaderTimeout, "http.read_timeout": c.HTTP.ReadTimeout,
		"http.write_timeout": c.HTTP.WriteTimeout, "http.idle_timeout": c.HTTP.IdleTimeout,
		"http.shutdown_timeout": c.HTTP.ShutdownTimeout,
	} {
		if d <= 0 {
			bad(name, "must be a positive duration such as \"30s\", not %v", d)
		}
	}
	if _, err := c.HTTP.TrustedProxyPrefixes(); err != nil {
		bad("http.trusted_proxies", "%v", err)
	}
	if rl := c.HTTP.RateLimit; rl.RequestsPerSecond != 0 && !(rl.RequestsPerSecond >= 0.01 && rl.RequestsPerSecond <= 1e6) {
		bad("http.rate_limit.requests_per_second", "must be 0 (no limit) or between 0.01 and 1000000, not %v", rl.RequestsPerSecond)
	} else if rl.Burst < 0 || rl.Burst > 1e6 || (rl.RequestsPerSecond > 0 && rl.Burst < 1) {
		bad("http.rate_limit.burst", "must be between 1 and 1000000 (requests_per_second: 0 turns the limit off), not %d", rl.Burst)
	}
	seen := map[string]string{}
	for _, p := range []struct{ field, path string }{
		{"http.base_paths.mint", c.HTTP.BasePaths.Mint}, {"http.base_paths.nft_ramp", c.HTTP.BasePaths.NFTRamp},
		{"http.base_paths.deposit", c.HTTP.BasePaths.Deposit}, {"http.base_paths.admin", c.HTTP.BasePaths.Admin},
	} {
		switch {
		case !validBasePath(p.path):
			bad(p.field, "must be a path like \"/mint\" (starts with /, no trailing /, letters, digits, - _ . / only), not %q", p.path)
		case seen[p.path] != "":
			bad(p.field, "%q is also %s", p.path, seen[p.path])
		default:
			seen[p.path] = p.field
		}
	}

	c.Database.validate(bad)

	checkSecret := func(field, env, v string, required bool) {
		switch {
		case v == "" && required:
			bad(field, "is required (or set %s)", env)
		case v == "":
		case len(v) < 32:
			bad(field, "must be at least 32 characters")
		case prod && strings.HasPrefix(v, DevSecretPrefix):
			bad(field, "is a dev-mode secret; production needs its own")
		}
	}
	checkSecret("admin.token", EnvAdminToken, c.Admin.Token, true)
	checkSecret("secrets.hash_secret", EnvHashSecret, c.Secrets.HashSecret, true)
	checkSecret("secrets.encryption_key", EnvEncryptionKey, c.Secrets.EncryptionKey, false)

	c.validateNetworks(bad)
	c.validateCheckout(bad)
	c.validateFiat(bad)
	c.validateRefunds(bad)
	w := c.Webhooks
	if w.Timeout < time.Second || w.Timeout > time.Minute {
		bad("webhooks.timeout", "must be between 1s and 1m, not %v", w.Timeout)
	}
	if w.Workers < 1 || w.Workers > 4096 {
		bad("webhooks.workers", "must be between 1 and 4096, not %d", w.Workers)
	}
	if w.PerMerchant < 1 || w.PerMerchant > w.Workers {
		bad("webhooks.per_merchant", "must be between 1 and webhooks.workers, not %d", w.PerMerchant)
	}
	if w.SlowAfter < 10*time.Millisecond || w.SlowAfter > w.Timeout {
		bad("webhooks.slow_after", "must be between 10ms and webhooks.timeout, not %v", w.SlowAfter)
	}
	if w.RetryFirst < time.Second || w.RetryMax < w.RetryFirst || w.GiveUpAfter < w.RetryFirst || w.GiveUpAfter > 30*24*time.Hour {
		bad("webhooks.retry_first", "retry_first (>= 1s) <= retry_max, and give_up_after between retry_first and 720h: got %v, %v, %v",
			w.RetryFirst, w.RetryMax, w.GiveUpAfter)
	}

	switch c.Log.Level {
	case "debug", "info", "warn", "error":
	default:
		bad("log.level", "must be debug, info, warn or error, not %q", c.Log.Level)
	}
	if c.Log.Format != "json" && c.Log.Format != "text" {
		bad("log.format", "must be json or text, not %q", c.Log.Format)
	}
	return errors.Join(errs...)
}

// validate checks the database section.
func (d Database) validate(bad func(field, format string, args ...any)) {
	switch d.Driver {
	case "sqlite":
		if d.Path == "" {
			bad("database.path", "is required with driver sqlite")
		}
	case "postgres":
		if d.DSN == "" {
			bad("database.dsn", "is required with driver postgres (or set %s)", EnvDatabaseDSN)
		}
	default:
		bad("database.driver", "must be \"sqlite\" or \"postgres\", not %q", d.Driver)
	}
	if d.MaxOpenConns < 0 {
		bad("database.max_open_conns", "must not be negative")
	}
}

// LoadDatabase reads only the database section of the YAML file at path over its defaults,
// with RAMPWAY_DATABASE_DSN applied, and validates it: for commands that need the database and
// nothing else (rampway backup), so that they run without the service's secrets in their
// environment. The other sections are not read, nor checked.
func LoadDatabase(path string, getenv func(string) string) (Database, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Database{}, fmt.Errorf("config: %w", err)
	}
	doc := struct {
		Database Database `yaml:"database"`
	}{Default().Database}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return Database{}, fmt.Errorf("config %s: parse: %w", path, err)
	}
	if v := getenv(EnvDatabaseDSN); v != "" {
		doc.Database.DSN = v
	}
	var errs []error
	doc.Database.validate(func(field, format string, args ...any) {
		errs = append(errs, &FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
	})
	if err := errors.Join(errs...); err != nil {
		return Database{}, fmt.Errorf("config %s: %w", path, err)
	}
	return doc.Database, nil
}

func validBasePath(p string) bool {
	if len(p) < 2 || p[0] != '/' || strings.HasSuffix(p, "/") || strings.Contains(p, "//") {
		return false
	}
	for _, r := range p {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./", r)) {
			return false
		}
	}
	return !strings.Contains(p, "/./") && !strings.Contains(p, "/../") && !strings.HasSuffix(p, "/..")
}
