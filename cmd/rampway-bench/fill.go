package main

import (
	"context"
	"crypto/ecdsa"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/pprof"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/gofrs/flock"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain/devchain"
	"github.com/rampway/rampway/chain/hd"
	"github.com/rampway/rampway/config"
	"github.com/rampway/rampway/contract"
	"github.com/rampway/rampway/internal/app"
	"github.com/rampway/rampway/internal/devworld"
	"github.com/rampway/rampway/internal/secretbox"
	"github.com/rampway/rampway/internal/sqlstore"
	"github.com/rampway/rampway/merchant"
	"github.com/rampway/rampway/postgres"
	"github.com/rampway/rampway/sqlite"
)

// `rampway-bench fill` grows a database to N orders in every state, quickly, so that a
// benchmark can run on a database that looks like a merchant's after months (see
// docs/BENCHMARKS.md, "A grown database"). It fills the database of a `rampway dev` data
// directory (SQLite) or a PostgreSQL database, with that directory's secrets and dev chain, so
// that `rampway dev --data-dir DIR` (or `rampway serve` on the PostgreSQL database) starts on
// it, and `rampway-bench orders --reuse` measures on it.

// fillOptions are the flags of `fill`.
type fillOptions struct {
	db                string
	dataDir           string
	pgDSN, pgDatabase string
	orders, open      int
	merchants         int
	disabled          int
	inFlight          int
	pendingDeliveries int
	seed              uint64
	days              int
	openFor           time.Duration
	webhookURL        string
	chunk, workers    int
	pgWriters         int
	out               string
	quiet             bool
	cpuProfile        string
	// serveConfig, for PostgreSQL, is where to write a `rampway serve` configuration of the
	// filled database, on the dev directory's chain at serveRPC, listening on serveAddr.
	serveConfig, serveRPC, serveAddr string
}

func fillFlags(fs *flag.FlagSet, o *fillOptions, getenv func(string) string) {
	fs.StringVar(&o.db, "db", "sqlite", "database: sqlite (DIR/rampway.db) or postgres (--pg-database on --pg-dsn's server)")
	fs.StringVar(&o.dataDir, "data-dir", "", "a data directory of rampway dev, run once and stopped: its secrets, keys and chain are the filled database's (SQLite: its rampway.db is filled)")
	fs.StringVar(&o.pgDSN, "pg-dsn", getenv(envPostgresDSN), "PostgreSQL server (env "+envPostgresDSN+")")
	fs.StringVar(&o.pgDatabase, "pg-database", "", "PostgreSQL database to fill (created when missing; migrated as rampway does)")
	fs.IntVar(&o.orders, "orders", 1_000_000, "orders to add, in all")
	fs.IntVar(&o.open, "open", 100_000, "of which still open (awaiting payment, expiring --open-for after the fill)")
	fs.IntVar(&o.merchants, "merchants", 10, "active merchants: the dev demo merchant and K-1 others")
	fs.IntVar(&o.disabled, "disabled-merchants", 1, "merchants besides those, disabled (their older orders, and their webhook deliveries since held)")
	fs.IntVar(&o.inFlight, "in-flight", 5, "orders in each state a worker is about to move on (DEPOSIT_PROCESSING, DEPOSIT_SUCCESS, ONRAMP_SUCCESS, SMARTCONTRACT_PROCESSING, a refund sent); the service finishes them when it starts")
	fs.IntVar(&o.pendingDeliveries, "pending-deliveries", 0, "webhook deliveries of the latest events left pending, due at once (a backlog for the dispatcher)")
	fs.IntVar(&o.days, "days", 180, "the orders' creation spreads over this many days before the fill")
	fs.DurationVar(&o.openFor, "open-for", 7*24*time.Hour, "the open orders expire this long (plus up to an hour) after the fill")
	fs.StringVar(&o.webhookURL, "webhook-url", "http://127.0.0.1:8099/webhooks", "the filled merchants' webhook URL prefix (the dev demo merchant keeps its own)")
	fs.IntVar(&o.chunk, "chunk", 5000, "orders per transaction")
	fs.IntVar(&o.workers, "workers", max(1, runtime.GOMAXPROCS(0)), "goroutines making rows")
	fs.IntVar(&o.pgWriters, "pg-writers", 2, "PostgreSQL: connections writing chunks at once (SQLite has one writer)")
	fs.StringVar(&o.out, "out", "", "where to write the fill's report with the merchants' keys (default DIR/fill.json, or DIR/fill-<pg-database>.json)")
	fs.BoolVar(&o.quiet, "quiet", false, "no progress lines")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write the fill's CPU profile to this file")
	fs.StringVar(&o.serveConfig, "serve-config", "", "postgres: write a rampway serve configuration of the filled database here (and its keys in FILE.env), on the chain of rampway dev --data-dir DIR at --serve-rpc-url")
	fs.StringVar(&o.serveRPC, "serve-rpc-url", "http://127.0.0.1:8545", "--serve-config: the dev chain's JSON-RPC URL (rampway dev --rpc-addr)")
	fs.StringVar(&o.serveAddr, "serve-addr", "127.0.0.1:8090", "--serve-config: the address rampway serve listens on")
	o.seed = 1
	fs.Func("seed", "seed of the mix (default 1; the same seed, counts and --chunk make the same orders on the same database, ids and times aside)", func(v string) error {
		var n int64
		if _, err := fmt.Sscan(v, &n); err != nil {
			return err
		}
		o.seed = uint64(n)
		return nil
	})
}

func runFill(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	fs := flag.NewFlagSet("fill", flag.ContinueOnError)
	fs.SetOutput(stdout)
	var o fillOptions
	fillFlags(fs, &o, getenv)
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		return nil
	} else if err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("fill: unexpected arguments %v", fs.Args())
	}
	if o.cpuProfile != "" {
		f, err := os.Create(o.cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	rep, err := fill(ctx, o, stdout)
	if err != nil {
		return err
	}
	rep.print(stdout)
	return nil
}

// fillReport is what a fill did: written to --out (with the merchants' keys) and printed.
type fillReport struct {
	Database string    `json:"database"`
	DataDir  string    `json:"data_dir"`
	DSN      string    `json:"dsn,omitempty"`
	Orders   int       `json:"orders"`
	Open     int       `json:"open"`
	InFlight int       `json:"in_flight"`
	Seed     uint64    `json:"seed"`
	At       time.Time `json:"filled_at"`
	Seconds  float64   `json:"seconds"`
	// The time of each part: the merchants, the rows, the indexes made again, the rest
	// (statistics, counts).
	MerchantsSeconds float64         `json:"merchants_seconds"`
	RowsSeconds      float64         `json:"rows_seconds"`
	IndexSeconds     float64         `json:"index_seconds"`
	ByStatus         map[string]int  `json:"by_status"`   // the orders this fill made
	InDatabase       map[string]int  `json:"in_database"` // every order of the database, by status
	Rows             map[string]int  `json:"rows"`        // rows this fill wrote, by table
	Merchants        []*fillMerchant `json:"merchants"`
	OpenUntil        time.Time       `json:"open_orders_expire_after"`
	out              string
}

func (r *fillReport) print(w io.Writer) {
	fmt.Fprintf(w, "\n# rampway-bench fill: %d orders (%d open, %d in flight) into %s in %.1f s (%.0f orders/s): merchants %.1f s, rows %.1f s, indexes %.1f s, the rest %.1f s\n",
		r.Orders, r.Open, r.InFlight, r.Database, r.Seconds, float64(r.Orders)/max(r.Seconds, 0.001), r.MerchantsSeconds, r.RowsSeconds, r.IndexSeconds,
		r.Seconds-r.MerchantsSeconds-r.RowsSeconds-r.IndexSeconds)
	fmt.Fprintln(w, "\n| Status | Made by this fill | In the database |")
	fmt.Fprintln(w, "|---|---|---|")
	for _, s := range rampway.OrderStatuses {
		fmt.Fprintf(w, "| %s | %d | %d |\n", s, r.ByStatus[string(s)], r.InDatabase[string(s)])
	}
	var tables []string
	for t := range r.Rows {
		tables = append(tables, t)
	}
	sort.Strings(tables)
	var parts []string
	for _, t := range tables {
		parts = append(parts, fmt.Sprintf("%s %d", t, r.Rows[t]))
	}
	fmt.Fprintf(w, "\nRows written: %s.\n", strings.Join(parts, ", "))
	fmt.Fprintf(w, "Merchants (keys in %s):\n", r.out)
	for _, m := range r.Merchants {
		fmt.Fprintf(w, "  %s  %-28s %s  %s\n", m.ID, m.Name, m.Status, m.APIKey)
	}
	fmt.Fprintf(w, "Open orders expire after %s.\n", r.OpenUntil.Format(time.RFC3339))
}

// devDirState is what the fill reads of a `rampway dev` data directory: the secrets the
// database's keys and sealed fields are made with, and the chain's keys.
type devDirState struct{ devworld.State }

const (
	devStateFile = devworld.StateFile
	devDBFile    = "rampway.db"
	devLockFile  = "dev.lock"
)

// readDevState reads DIR/dev-state.json.
func readDevState(dir string) (*devDirState, error) {
	read, err := devworld.ReadState(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s has no %s: run `rampway dev --data-dir %s` once (and stop it) first", dir, devStateFile, dir)
	} else if err != nil {
		return nil, err
	}
	st := devDirState{*read}
	if st.HashSecret == "" || st.DeployerKey == "" || st.HotWalletKey == "" || st.DepositMnemonic == "" {
		return nil, fmt.Errorf("%s is incomplete: run `rampway dev --data-dir %s` once (and stop it) first", filepath.Join(dir, devStateFile), dir)
	}
	return &st, nil
}

func (st *devDirState) key(hexKey string) (*ecdsa.PrivateKey, error) {
	return crypto.HexToECDSA(hexKey)
}

// contracts are the dev chain's demo contracts (their addresses follow from the deployer).
func (st *devDirState) contracts() (devchain.Contracts, error) {
	k, err := st.key(st.DeployerKey)
	if err != nil {
		return devchain.Contracts{}, fmt.Errorf("%s: deployer key: %w", devStateFile, err)
	}
	return devchain.ContractAddresses(crypto.PubkeyToAddress(k.PublicKey)), nil
}

// devConfig is the configuration `rampway dev` runs the directory with, as far as the store,
// the merchant service and the registry read it, on database db.
func devConfig(st *devDirState, contracts devchain.Contracts) (config.Config, error) {
	cfg := config.Default()
	cfg.Mode = config.ModeDev
	cfg.HTTP.PublicURL = "http://127.0.0.1:8080"
	cfg.Admin.Token = st.AdminToken
	cfg.Secrets.HashSecret, cfg.Secrets.EncryptionKey = st.HashSecret, st.EncryptionKey
	cfg.Networks = []config.Network{devworld.NetworkConfig("http://127.0.0.1:8545", contracts.Token.Hex())}
	seed, err := hd.FromMnemonic(st.DepositMnemonic, "")
	if err != nil {
		return cfg, fmt.Errorf("%s: %w", devStateFile, err)
	}
	if cfg.Checkout.DepositXPub, err = seed.XPub(); err != nil {
		return cfg, err
	}
	hot, err := st.key(st.HotWalletKey)
	if err != nil {
		return cfg, fmt.Errorf("%s: hot wallet key: %w", devStateFile, err)
	}
	cfg.Checkout.HotWalletAddress = crypto.PubkeyToAddress(hot.PublicKey).Hex()
	return cfg, nil
}

// fillTarget opens what a fill writes: the configuration's database (created on PostgreSQL
// when missing), migrated, and a function releasing the directory's lock.
func fillTarget(ctx context.Context, o fillOptions, cfg *config.Config) (unlock func(), err error) {
	unlock = func() {}
	switch o.db {
	case "sqlite":
		path := filepath.Join(o.dataDir, devDBFile)
		if _, err := os.Stat(path); err != nil {
			return unlock, fmt.Errorf("%s: %w (run `rampway dev --data-dir %s` once first)", path, err, o.dataDir)
		}
		// One dev process per directory holds this lock: the fill must be the database's
		// only writer.
		lock := flock.New(filepath.Join(o.dataDir, devLockFile))
		if ok, err := lock.TryLock(); err != nil {
			return unlock, err
		} else if !ok {
			return unlock, fmt.Errorf("%s is in use by a rampway dev: stop it first", o.dataDir)
		}
		cfg.Database.Driver, cfg.Database.Path = "sqlite", path
		return func() { _ = lock.Unlock() }, nil
	case "postgres":
		if o.pgDSN == "" || o.pgDatabase == "" {
			return unlock, fmt.Errorf("--db postgres needs --pg-dsn (or %s) and --pg-database", envPostgresDSN)
		}
		if err := ensureDatabase(ctx, o.pgDSN, o.pgDatabase); err != nil {
			return unlock, err
		}
		cfg.Database.Driver, cfg.Database.DSN = "postgres", withDatabase(o.pgDSN, o.pgDatabase)
		return unlock, nil
	}
	return unlock, fmt.Errorf("--db: unknown database %q (sqlite or postgres)", o.db)
}

// ensureDatabase creates database name on the server of dsn unless it exists.
func ensureDatabase(ctx context.Context, dsn, name string) error {
	if !validDBName(name) {
		return fmt.Errorf("--pg-database %q: letters, digits and _ only", name)
	}
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		return err
	}
	defer admin.Close()
	var n int
	if err := admin.QueryRowContext(ctx, `SELECT COUNT(*) FROM pg_database WHERE datname = $1`, name).Scan(&n); err != nil {
		return fmt.Errorf("PostgreSQL server: %w", err)
	}
	if n == 0 {
		if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
			return fmt.Errorf("create database %s: %w", name, err)
		}
	}
	return nil
}

func validDBName(name string) bool {
	if name == "" || len(name) > 63 {
		return false
	}
	for _, c := range name {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// fillChains stands for the dev network where the merchant service and the registry check the
// chain (the fill runs without one): the demo contracts hold code, every other address is an
// account.
type fillChains struct {
	nets []*rampway.Network
	code map[common.Address]bool
}

func (c fillChains) Network(name string) (*rampway.Network, bool) {
	for _, n := range c.nets {
		if n.Name == name {
			return n, true
		}
	}
	return nil, false
}

func (c fillChains) List() []*rampway.Network { return c.nets }

func (c fillChains) HasCode(_ context.Context, _ string, addr common.Address) (bool, error) {
	return c.code[addr], nil
}

func (c fillChains) Simulate(context.Context, string, common.Address, []rampway.Call) (string, error) {
	return "", nil
}

// fillWorld makes the merchants the orders go to, through the merchant service and the
// registry as the admin API would: the dev demo merchant (devworld.Ensure), merchants-1
// others with an API key, a webhook secret, the demo functions and deposit addresses, and the
// disabled ones. It returns them, active first.
func fillWorld(ctx context.Context, o fillOptions, cfg config.Config, store *sqlstore.Store, st *devDirState, c devchain.Contracts,
	now time.Time, start time.Time) ([]*fillMerchant, error) {
	chains := fillChains{code: map[common.Address]bool{c.NFT: true, c.Token: true}}
	for _, n := range cfg.DomainNetworks() {
		chains.nets = append(chains.nets, &n)
	}
	svc := devworld.Services{Merchants: app.NewMerchantService(cfg, store, 0), Functions: app.NewRegistry(cfg, store, chains, 0),
		Deposits: merchant.NewDepositAddresses(merchant.DepositAddressesConfig{HotWallet: common.HexToAddress(cfg.Checkout.HotWalletAddress)}, store, chains, nil)}
	hook := strings.TrimSuffix(o.webhookURL, "/")

	// The demo merchant: the directory's (SQLite), or one of that name made on PostgreSQL.
	demo := devworld.Merchant{ID: st.MerchantID, APIKey: st.APIKey, WebhookSecret: st.WebhookSecret}
	made := map[string]bool{}
	if o.db == "postgres" {
		id, err := merchantNamed(ctx, store, "Demo Store")
		if err != nil {
			return nil, err
		}
		demo = devworld.Merchant{ID: id}
	}
	depKey := st.MerchantDepositKey
	if depKey == "" {
		depKey = st.PayerKey
	}
	dk, err := st.key(depKey)
	if err != nil {
		return nil, fmt.Errorf("%s: merchant deposit key: %w", devStateFile, err)
	}
	w, err := devworld.Ensure(ctx, svc, devworld.Spec{Merchant: demo, Contracts: c, DepositAddress: crypto.PubkeyToAddress(dk.PublicKey),
		WebhookURL: hook + "/demo"})
	if err != nil {
		return nil, err
	}
	made[w.Merchant.ID] = demo.ID == ""
	dm, err := svc.Merchants.Get(ctx, w.Merchant.ID)
	if err != nil {
		return nil, err
	}
	fm := &fillMerchant{ID: w.Merchant.ID, Name: dm.Name, APIKey: w.Merchant.APIKey, WebhookSecret: w.Merchant.WebhookSecret, WebhookURL: dm.WebhookURL,
		Status: string(rampway.MerchantActive), Functions: map[string]string{}, Payouts: map[string]common.Address{}}
	for _, f := range w.Functions {
		fm.Functions[f.Name] = f.Registered.ID
	}
	for _, a := range w.DepositAddresses {
		fm.Payouts[a.Symbol] = a.Address
	}
	out := []*fillMerchant{fm}

	for i := 2; i <= o.merchants+o.disabled; i++ {
		disabled := i > o.merchants
		name := fmt.Sprintf("Bench Merchant %02d", i)
		if disabled {
			name = fmt.Sprintf("Bench Merchant %02d (disabled)", i)
		}
		m, isNew, err := fillMerchantNamed(ctx, svc, store, c, name, fmt.Sprintf("%s/m%02d", hook, i), i)
		if err != nil {
			return nil, fmt.Errorf("merchant %s: %w", name, err)
		}
		made[m.ID] = isNew
		if disabled {
			status := string(rampway.MerchantDisabled)
			if _, err := svc.Merchants.Update(ctx, m.ID, merchant.UpdateParams{Status: &status}); err != nil {
				return nil, err
			}
			m.Status, m.DisabledAt = status, now.Add(-6*time.Hour).Truncate(time.Microsecond)
		}
		out = append(out, m)
	}
	// The merchants the fill made are as old as their orders.
	for _, m := range out {
		if made[m.ID] {
			if _, err := store.DB().ExecContext(ctx, store.Q(`UPDATE merchants SET created_at = $1, updated_at = $1 WHERE id = $2`),
				store.Time(start.Add(-24*time.Hour)), m.ID); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

func merchantNamed(ctx context.Context, store *sqlstore.Store, name string) (string, error) {
	var id string
	err := store.DB().QueryRowContext(ctx, store.Q(`SELECT id FROM merchants WHERE name = $1 ORDER BY created_at, id LIMIT 1`), name).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return id, err
}

// fillMerchantNamed finds or makes merchant name with its webhook URL, a new API key and
// webhook secret, the demo functions and a deposit address for each dev asset.
func fillMerchantNamed(ctx context.Context, svc devworld.Services, store *sqlstore.Store, c devchain.Contracts, name, hook string, i int) (*fillMerchant, bool, error) {
	id, err := merchantNamed(ctx, store, name)
	if err != nil {
		return nil, false, err
	}
	isNew := id == ""
	var fee *int64
	if i%3 == 0 {
		bps := int64(100)
		fee = &bps
	}
	if isNew {
		m, err := svc.Merchants.Create(ctx, merchant.CreateParams{Name: name, WebhookURL: hook, ServiceFeeBPS: fee})
		if err != nil {
			return nil, false, err
		}
		id = m.ID
	} else {
		active := string(rampway.MerchantActive)
		if _, err := svc.Merchants.Update(ctx, id, merchant.UpdateParams{Status: &active, WebhookURL: &hook}); err != nil {
			return nil, false, err
		}
	}
	m, err := svc.Merchants.Get(ctx, id)
	if err != nil {
		return nil, false, err
	}
	fm := &fillMerchant{ID: id, Name: name, WebhookURL: hook, Status: string(m.Status), Functions: map[string]string{}, Payouts: map[string]common.Address{}}
	if m.ServiceFeeBPS != nil {
		fm.ServiceFeeBPS = *m.ServiceFeeBPS
	}
	if _, fm.APIKey, err = svc.Merchants.IssueAPIKey(ctx, id, false); err != nil {
		return nil, false, err
	}
	if fm.WebhookSecret, err = svc.Merchants.SetWebhookSecret(ctx, id, false, "", 0); err != nil {
		return nil, false, err
	}
	existing, err := svc.Functions.List(ctx, id)
	if err != nil {
		return nil, false, err
	}
	for _, d := range devworld.Demos {
		fragment, err := contract.FunctionFragment(devchain.NFTABI(), d.Name)
		if err != nil {
			return nil, false, err
		}
		fn, err := contract.ParseFunction(fragment)
		if err != nil {
			return nil, false, err
		}
		var f *rampway.ContractFunction
		for _, e := range existing {
			if e.Status == rampway.ContractFunctionActive && e.Network == devworld.Network && e.Contract == c.NFT && e.Signature == fn.Signature() &&
				e.PayableSymbol == d.Payable {
				f = e
			}
		}
		if f == nil {
			if f, err = svc.Functions.Register(ctx, id, contract.RegisterParams{Network: devworld.Network, ContractAddress: c.NFT.Hex(),
				ABI: fragment, DefaultGasLimit: 300_000, PayableSymbol: d.Payable, DisplayName: d.Display}); err != nil {
				return nil, false, err
			}
		}
		fm.Functions[d.Name] = f.ID
	}
	for _, symbol := range devworld.DepositSymbols {
		a, err := svc.Deposits.Get(ctx, id, devworld.Network, symbol)
		if rampway.ErrorCode(err) == rampway.ENOTFOUND {
			addr := common.BytesToAddress(crypto.Keccak256([]byte("rampway-bench fill deposit " + id + symbol))[12:])
			a, err = svc.Deposits.Set(ctx, id, merchant.DepositAddressParams{Network: devworld.Network, Symbol: symbol, Address: addr.Hex()})
		}
		if err != nil {
			return nil, false, err
		}
		fm.Payouts[symbol] = a.Address
	}
	return fm, isNew, nil
}

// fill runs a fill.
func fill(ctx context.Context, o fillOptions, stdout io.Writer) (*fillReport, error) {
	if o.dataDir == "" {
		return nil, errors.New("fill: --data-dir (a `rampway dev` data directory) is required")
	}
	if o.orders < 1 || o.open < 0 || o.inFlight < 0 || o.merchants < 1 || o.disabled < 0 || o.chunk < 1 || o.workers < 1 || o.pgWriters < 1 || o.days < 1 || o.pendingDeliveries < 0 {
		return nil, errors.New("fill: --orders, --merchants, --chunk, --workers and --days must be positive; --open, --in-flight, --disabled-merchants, --pending-deliveries not negative")
	}
	closed := o.orders - o.open - o.inFlight*len(inFlightStates)
	if closed < 0 {
		return nil, fmt.Errorf("fill: --orders %d is fewer than --open %d plus %d in flight", o.orders, o.open, o.inFlight*len(inFlightStates))
	}
	st, err := readDevState(o.dataDir)
	if err != nil {
		return nil, err
	}
	contracts, err := st.contracts()
	if err != nil {
		return nil, err
	}
	cfg, err := devConfig(st, contracts)
	if err != nil {
		return nil, err
	}
	unlock, err := fillTarget(ctx, o, &cfg)
	defer unlock()
	if err != nil {
		return nil, err
	}
	began := time.Now()
	now := began.UTC().Truncate(time.Microsecond)
	start := now.Add(-time.Duration(o.days) * 24 * time.Hour)

	// The merchants, through the services, on the store as rampway opens it (migrated).
	store, err := app.OpenStore(ctx, cfg)
	if err != nil {
		return nil, err
	}
	merchants, err := fillWorld(ctx, o, cfg, store, st, contracts, now, start)
	if cerr := store.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("fill: merchants: %w", err)
	}
	merchantsSeconds := time.Since(began).Seconds()
	if !o.quiet {
		fmt.Fprintf(stdout, "# fill: %d merchants ready in %.1f s\n", len(merchants), merchantsSeconds)
	}

	// The rows, on a connection of the fill's own.
	var db *sql.DB
	if o.db == "sqlite" {
		db, err = sqlite.OpenDB(ctx, cfg.Database.Path)
	} else {
		db, err = postgres.OpenDB(ctx, cfg.Database.DSN, postgres.Options{MaxOpenConns: 4})
	}
	if err != nil {
		return nil, err
	}
	defer db.Close()

	spec, err := newFillSpec(o, cfg, st, contracts, merchants, now, start, closed)
	if err != nil {
		return nil, err
	}
	if spec.depositBase, err = reserveDepositIndexes(ctx, db, o.db, o.orders); err != nil {
		return nil, err
	}
	if spec.hotNonce, err = nextNonce(ctx, db, o.db, spec.hot); err != nil {
		return nil, err
	}
	seqBase, err := scalar(ctx, db, `SELECT COALESCE(MAX(seq), 0) FROM order_events`)
	if err != nil {
		return nil, err
	}
	rep := &fillReport{Database: o.db, DataDir: o.dataDir, Orders: o.orders, Open: o.open, InFlight: o.inFlight * len(inFlightStates), Seed: o.seed,
		At: now, ByStatus: map[string]int{}, Rows: map[string]int{}, Merchants: merchants, OpenUntil: now.Add(o.openFor), MerchantsSeconds: merchantsSeconds}
	if o.db == "postgres" {
		rep.Database, rep.DSN = "PostgreSQL database "+o.pgDatabase, cfg.Database.DSN
	} else {
		rep.Database = "SQLite " + cfg.Database.Path
	}
	// On PostgreSQL the rows go in without the tables' secondary indexes, made again at the
	// end (also after a failed fill; several at once, each with parallel workers), unless the
	// database holds more orders than the fill adds: then keeping them up costs less than
	// making them again. SQLite keeps them: it makes an index again on one core, after the
	// rows, where keeping it up costs its one writer about as much but overlaps the making of
	// the rows (1,000,000 orders: 681 s of rows and 210 s of indexes).
	var idx *droppedIndexes
	existing, err := scalar(ctx, db, `SELECT COUNT(*) FROM orders`)
	if err != nil {
		return nil, err
	}
	if o.db == "postgres" && int64(o.orders) >= existing {
		idx, err = dropIndexes(ctx, db, o.db)
	} else {
		err = restoreLeftIndexes(ctx, db, o.db)
	}
	if err != nil {
		return nil, fmt.Errorf("fill: indexes: %w", err)
	}
	writers := 1 // SQLite has one writer
	if o.db == "postgres" {
		writers = o.pgWriters
	}
	var ws []rowsWriter
	for range writers {
		var w rowsWriter
		if o.db == "sqlite" {
			w, err = newSQLiteWriter(ctx, db)
		} else {
			w, err = newPGWriter(ctx, db)
		}
		if err != nil {
			break
		}
		ws = append(ws, w)
	}
	var lastSeq int64
	var nextHot uint64
	if err == nil {
		lastSeq, nextHot, err = writeChunks(ctx, spec, ws, seqBase, rep, stdout, o.quiet, o.workers, began)
	}
	for _, w := range ws {
		err = errors.Join(err, w.close())
	}
	ib := time.Now()
	rep.RowsSeconds = ib.Sub(began).Seconds() - merchantsSeconds
	err = errors.Join(err, idx.restore(ctx, 2))
	rep.IndexSeconds = time.Since(ib).Seconds()
	if err != nil {
		return nil, err
	}
	if !o.quiet {
		fmt.Fprintf(stdout, "# fill: indexes made again in %.1f s\n", time.Since(ib).Seconds())
	}
	if err := finishFill(ctx, db, o, spec, lastSeq, nextHot, now); err != nil {
		return nil, err
	}
	rep.Seconds = time.Since(began).Seconds()
	if rep.InDatabase, err = statusCounts(ctx, db); err != nil {
		return nil, err
	}
	if o.serveConfig != "" && o.db == "postgres" {
		if err := writeServeConfig(o, cfg, st, contracts); err != nil {
			return nil, err
		}
	}
	rep.out = o.out
	if rep.out == "" {
		rep.out = filepath.Join(o.dataDir, "fill.json")
		if o.db == "postgres" {
			rep.out = filepath.Join(o.dataDir, "fill-"+o.pgDatabase+".json")
		}
	}
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(rep.out, append(data, '\n'), 0o600); err != nil {
		return nil, err
	}
	return rep, nil
}

// newFillSpec is what the chunks are made from.
func newFillSpec(o fillOptions, cfg config.Config, st *devDirState, c devchain.Contracts, merchants []*fillMerchant, now, start time.Time,
	closed int) (*fillSpec, error) {
	box, err := secretbox.New(cfg.Secrets.EncryptionKey)
	if err != nil {
		return nil, err
	}
	hot, err := st.key(st.HotWalletKey)
	if err != nil {
		return nil, err
	}
	d, err := hd.FromXPub(cfg.Checkout.DepositXPub)
	if err != nil {
		return nil, err
	}
	s := &fillSpec{seed: o.seed, now: now, start: start, closedEnd: now.Add(-2 * time.Hour), closed: closed, inFlight: o.inFlight, open: o.open,
		chunkSize: o.chunk, deriver: d, box: box, hashSecret: []byte(cfg.Secrets.HashSecret), publicURL: cfg.HTTP.PublicURL,
		orderExpiry: cfg.Checkout.OrderExpiry, bankExpiry: cfg.Checkout.BankTransferExpiry, openFor: o.openFor,
		hotKey: hot, hot: crypto.PubkeyToAddress(hot.PublicKey), chainID: bigInt(devchain.ChainID), nft: c.NFT,
		nftFunctions: map[string]*contract.Function{}, failedDeliveryOlderThan: 72 * time.Hour, failedDeliveryPerMillion: 500,
		eth:  rampway.Asset{Symbol: devchain.NativeSymbol, Network: devworld.Network, Decimals: 18},
		dusd: rampway.Asset{Symbol: devchain.TokenSymbol, Network: devworld.Network, Contract: c.Token, Decimals: devchain.TokenDecimals}}
	var seedBytes [8]byte
	binary.BigEndian.PutUint64(seedBytes[:], o.seed)
	s.retired = common.BytesToAddress(crypto.Keccak256([]byte("rampway-bench fill: the history's hot wallet"), seedBytes[:])[12:])
	for _, d := range devworld.Demos {
		fragment, err := contract.FunctionFragment(devchain.NFTABI(), d.Name)
		if err != nil {
			return nil, err
		}
		if s.nftFunctions[d.Name], err = contract.ParseFunction(fragment); err != nil {
			return nil, err
		}
	}
	// The demo merchant takes a third of the orders; the others share the rest, the first
	// more than the last (1/rank).
	total := 0.0
	for i, m := range merchants {
		if m.Status == string(rampway.MerchantDisabled) {
			if s.disabled == nil {
				s.disabled = m
			}
			continue
		}
		m.weight = 1 / float64(i)
		if i == 0 {
			m.weight = 0
		}
		total += m.weight
	}
	for i, m := range merchants {
		if m.Status == string(rampway.MerchantDisabled) {
			continue
		}
		if i == 0 {
			m.weight = 1
			if total > 0 {
				m.weight = total / 2
			}
		}
		s.merchants = append(s.merchants, m)
		prev := 0.0
		if len(s.cumWeights) > 0 {
			prev = s.cumWeights[len(s.cumWeights)-1]
		}
		s.cumWeights = append(s.cumWeights, prev+m.weight)
	}
	return s, nil
}

func bigInt(v int64) *big.Int { return new(big.Int).SetInt64(v) }

// reserveDepositIndexes reserves n deposit indexes as the store's reservation does (the
// counter row on SQLite, the sequence on PostgreSQL) and returns the first: the orders the
// service makes after the fill take the indexes after them.
func reserveDepositIndexes(ctx context.Context, db *sql.DB, dialect string, n int) (uint32, error) {
	var first int64
	if dialect == "sqlite" {
		var last int64
		if err := db.QueryRowContext(ctx, `UPDATE sequences SET value = value + ? WHERE name = 'deposit_index' RETURNING value`, n).Scan(&last); err != nil {
			return 0, fmt.Errorf("reserve deposit indexes: %w", err)
		}
		first = last - int64(n) + 1
	} else {
		if err := db.QueryRowContext(ctx, `SELECT nextval('deposit_index_seq')`).Scan(&first); err != nil {
			return 0, fmt.Errorf("reserve deposit indexes: %w", err)
		}
		if _, err := db.ExecContext(ctx, `SELECT setval('deposit_index_seq', $1)`, first+int64(n)-1); err != nil {
			return 0, fmt.Errorf("reserve deposit indexes: %w", err)
		}
	}
	if first < 0 || first+int64(n) >= math.MaxInt32 {
		return 0, errors.New("reserve deposit indexes: the derivation range is used up")
	}
	return uint32(first), nil
}

// nextNonce is the hot wallet's next nonce as the store has it (0 when it has none).
func nextNonce(ctx context.Context, db *sql.DB, dialect string, wallet common.Address) (uint64, error) {
	q := `SELECT COALESCE(MAX(next), 0) FROM wallet_nonces WHERE network = $1 AND wallet = $2`
	if dialect == "sqlite" {
		q = strings.NewReplacer("$1", "?", "$2", "?").Replace(q)
	}
	var n int64
	if err := db.QueryRowContext(ctx, q, devworld.Network, wallet.Hex()).Scan(&n); err != nil {
		return 0, fmt.Errorf("hot wallet nonce: %w", err)
	}
	return uint64(n), nil
}

var placeholderRE = regexp.MustCompile(`\$(\d+)`)

func scalar(ctx context.Context, db *sql.DB, q string, args ...any) (int64, error) {
	var n int64
	err := db.QueryRowContext(ctx, q, args...).Scan(&n)
	return n, err
}

// writeChunks makes the chunks on workers goroutines and has the writers write them (each
// chunk's events numbered after the previous chunk's); it returns the last event's seq and the
// hot wallet's next nonce.
func writeChunks(ctx context.Context, spec *fillSpec, ws []rowsWriter, seqBase int64, rep *fillReport, stdout io.Writer, quiet bool,
	workers int, began time.Time) (int64, uint64, error) {
	chunks := spec.chunks()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	jobs := make(chan chunkSpec)
	made := make(chan *chunk, workers)
	slots := make(chan struct{}, workers+len(ws)+1) // chunks made and not yet written
	go func() {
		defer close(jobs)
		for _, cs := range chunks {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- cs:
			case <-ctx.Done():
				return
			}
		}
	}()
	var makers sync.WaitGroup
	for range workers {
		makers.Go(func() {
			for cs := range jobs {
				select {
				case made <- spec.makeChunk(cs):
				case <-ctx.Done():
					return
				}
			}
		})
	}
	go func() { makers.Wait(); close(made) }()

	// The writers: chunks in any order, each with its events' first seq.
	type job struct {
		c    *chunk
		base int64
	}
	toWrite := make(chan job)
	var (
		mu        sync.Mutex
		orders    int
		events    int64
		writing   time.Duration
		written   int
		lastPrint = time.Now()
	)
	var writers sync.WaitGroup
	for _, w := range ws {
		writers.Go(func() {
			for j := range toWrite {
				t := time.Now()
				if err := w.write(ctx, j.c, j.base); err != nil {
					cancel(fmt.Errorf("chunk %d: %w", j.c.index, err))
					continue
				}
				mu.Lock()
				writing += time.Since(t)
				for tb, rows := range j.c.rows {
					rep.Rows[tb.name] += len(rows)
				}
				for s, n := range j.c.counts {
					rep.ByStatus[s] += n
				}
				orders += len(j.c.rows[tOrders])
				events += j.c.events
				written++
				if !quiet && (time.Since(lastPrint) > 5*time.Second || written == len(chunks)) {
					el := time.Since(began).Seconds()
					fmt.Fprintf(stdout, "# fill: %d/%d orders, %d events, %.0f s (writers busy %.0f s), %.0f orders/s\n", orders, rep.Orders, events, el,
						writing.Seconds(), float64(orders)/el)
					lastPrint = time.Now()
				}
				mu.Unlock()
				<-slots
			}
		})
	}

	seq, hot := seqBase, spec.hotNonce
	pending := map[int]*chunk{}
	next := 0
	var err error
	for c := range made {
		pending[c.index] = c
		for pending[next] != nil && err == nil {
			c := pending[next]
			delete(pending, next)
			if c.err != nil {
				err = c.err
				cancel(err)
				break
			}
			select {
			case toWrite <- job{c, seq}:
			case <-ctx.Done():
			}
			seq += c.events
			hot = max(hot, c.nextHot)
			next++
		}
	}
	close(toWrite)
	writers.Wait()
	if cause := context.Cause(ctx); cause != nil && err == nil {
		err = cause
	}
	if err == nil && written != len(chunks) {
		err = fmt.Errorf("fill: %d of %d chunks written", written, len(chunks))
	}
	return seq, hot, err
}

// finishFill does what comes after the rows: the latest deliveries left pending
// (--pending-deliveries), the sequences moved past what the fill used (events; the hot
// wallet's nonces), and on PostgreSQL the planner's statistics.
func finishFill(ctx context.Context, db *sql.DB, o fillOptions, spec *fillSpec, lastSeq int64, nextHot uint64, now time.Time) error {
	q := func(s string) string {
		if o.db != "sqlite" {
			return s
		}
		return placeholderRE.ReplaceAllString(s, "?$1")
	}
	at := any(now)
	if o.db == "sqlite" {
		at = now.UnixMicro()
	}
	if o.pendingDeliveries > 0 {
		from := lastSeq - int64(o.pendingDeliveries)
		if _, err := db.ExecContext(ctx, q(`DELETE FROM webhook_attempts WHERE event_id IN
			(SELECT event_id FROM webhook_deliveries WHERE event_seq > $1 AND status = 'delivered')`), from); err != nil {
			return fmt.Errorf("pending deliveries: %w", err)
		}
		if _, err := db.ExecContext(ctx, q(`UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = $1, last_status_code = 0,
			last_error = '', delivered_at = NULL, updated_at = $1 WHERE event_seq > $2 AND status = 'delivered'`), at, from); err != nil {
			return fmt.Errorf("pending deliveries: %w", err)
		}
	}
	if nextHot > spec.hotNonce {
		if _, err := db.ExecContext(ctx, q(`INSERT INTO wallet_nonces (network, wallet, next) VALUES ($1, $2, $3)
			ON CONFLICT (network, wallet) DO UPDATE SET next = excluded.next`), devworld.Network, spec.hot.Hex(), int64(nextHot)); err != nil {
			return fmt.Errorf("hot wallet nonce: %w", err)
		}
	}
	if o.db == "postgres" {
		if _, err := db.ExecContext(ctx, `SELECT setval(pg_get_serial_sequence('order_events', 'seq'), (SELECT MAX(seq) FROM order_events))`); err != nil {
			return fmt.Errorf("order events sequence: %w", err)
		}
		if _, err := db.ExecContext(ctx, `ANALYZE`); err != nil {
			return fmt.Errorf("analyze: %w", err)
		}
		return nil
	}
	_, err := db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
	return err
}

// statusCounts counts the database's orders by status.
func statusCounts(ctx context.Context, db *sql.DB) (map[string]int, error) {
	rows, err := db.QueryContext(ctx, `SELECT status, COUNT(*) FROM orders GROUP BY status`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var s string
		var n int
		if err := rows.Scan(&s, &n); err != nil {
			return nil, err
		}
		out[s] = n
	}
	return out, rows.Err()
}

// writeServeConfig writes the `rampway serve` configuration of a filled PostgreSQL database:
// dev mode (the dev directory's secrets), the dev directory's chain over HTTP, its prices and
// refund limits as `rampway dev` has them; the keys go in FILE.env, for the environment.
func writeServeConfig(o fillOptions, cfg config.Config, st *devDirState, c devchain.Contracts) error {
	deployer, err := st.key(st.DeployerKey)
	if err != nil {
		return err
	}
	seed, err := hd.FromMnemonic(st.DepositMnemonic, "")
	if err != nil {
		return err
	}
	var feeds []string
	for _, f := range devworld.PriceFeeds(c) {
		feeds = append(feeds, fmt.Sprintf("    - {symbol: %s, network: %s, address: %q, max_age: 876000h}", f.Symbol, f.Network, f.Address))
	}
	yaml := fmt.Sprintf(`# rampway serve on the PostgreSQL database %[1]s, filled by rampway-bench fill with the keys and
# secrets of the rampway dev directory %[2]s, on that directory's chain:
#   rampway dev --data-dir %[2]s --addr 127.0.0.1:8091 --rpc-addr %[3]s   (the chain; its own database stays small)
#   set -a; . %[4]s.env; set +a; rampway serve --config %[4]s
# The hot wallet is the dev directory's: do not have both execute orders at once.
mode: dev
http:
  addr: %[5]s
  public_url: http://%[5]s
  rate_limit: {requests_per_second: 0}
database:
  driver: postgres
  dsn: %[6]q
admin:
  token: %[7]s
secrets:
  hash_secret: %[8]s
  encryption_key: %[9]s
log: {level: info, format: text}
checkout:
  deposit_xpub: %[10]s
  hot_wallet_address: %[11]q
  treasury_address: %[12]q
  prices: {DUSD: "1"}
  price_feeds:
%[13]s
refunds:
  assets:
    - {network: devnet, symbol: ETH, auto_max: "1"}
    - {network: devnet, symbol: DUSD, auto_max: "1000"}
networks:
  - name: devnet
    mode: test
    chain_id: %[14]d
    rpc_urls: [%[15]q]
    confirmations: 1
    native: {symbol: ETH, min_amount: %[16]q, max_amount: "100"}
    tokens:
      - {symbol: DUSD, address: %[17]q, decimals: 6, min_amount: "0.01", max_amount: "100000"}
`, o.pgDatabase, o.dataDir, strings.TrimPrefix(o.serveRPC, "http://"), o.serveConfig, o.serveAddr, cfg.Database.DSN, st.AdminToken,
		st.HashSecret, st.EncryptionKey, cfg.Checkout.DepositXPub, cfg.Checkout.HotWalletAddress, crypto.PubkeyToAddress(deployer.PublicKey).Hex(),
		strings.Join(feeds, "\n"), devchain.ChainID, o.serveRPC, devworld.MinETH, c.Token.Hex())
	env := fmt.Sprintf("RAMPWAY_HOT_WALLET_KEY=%s\nRAMPWAY_DEPOSIT_XPRV=%s\n", st.HotWalletKey, seed.XPrv())
	// What rampway serve will read must load.
	if _, err := config.Parse(strings.NewReader(yaml), func(k string) string {
		switch k {
		case config.EnvHotWalletKey:
			return st.HotWalletKey
		case config.EnvDepositXPrv:
			return seed.XPrv()
		}
		return ""
	}); err != nil {
		return fmt.Errorf("--serve-config: %w", err)
	}
	if err := os.WriteFile(o.serveConfig, []byte(yaml), 0o600); err != nil {
		return err
	}
	return os.WriteFile(o.serveConfig+".env", []byte(env), 0o600)
}
