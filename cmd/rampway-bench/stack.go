package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain"
	"github.com/rampway/rampway/chain/devchain"
	"github.com/rampway/rampway/chain/hd"
	"github.com/rampway/rampway/config"
	"github.com/rampway/rampway/internal/app"
	"github.com/rampway/rampway/internal/devworld"
	"github.com/rampway/rampway/internal/sqlstore"
	"github.com/rampway/rampway/sqlite"
)

// devNetwork is the embedded chain's network name, as in `rampway dev`.
const devNetwork = devworld.Network

// stackOptions say which database a stack runs on.
type stackOptions struct {
	db      string // "sqlite" or "postgres"
	dataDir string // SQLite file and logs
	pgDSN   string // a server the bench may create a database on (postgres)
	// What-ifs for checkout's chain client (the defaults are what rampway does): rpcHTTP
	// calls the dev chain over HTTP on loopback instead of in process; with it,
	// rpcIdleConns > 0 sets its MaxIdleConnsPerHost (chain.Dial's is 64), rpcGzip makes it
	// ask the node on loopback for gzip (rampway asks only remote nodes), and noChain makes the chain free: head and tip answered from a
	// copy and every simulation answered "would succeed" without asking the node, which
	// leaves rampway's own work.
	rpcHTTP      bool
	rpcIdleConns int
	rpcGzip      bool
	noChain      bool
	// stubNode sends the order path's simulations over HTTP on loopback, batched as to a
	// remote node, to a JSON-RPC server in this process that answers every eth_call "would
	// succeed" without an EVM: what a node on another machine costs rampway's process (plus
	// the stub's own JSON-RPC work, which a remote node would do there).
	stubNode bool
	// baselineOneWriter serializes the baseline's inserts on a Go mutex on SQLite (a what-if).
	baselineOneWriter bool
	// grown is a grown database (rampway-bench fill) to run on instead of a fresh one: its dev
	// directory's keys and secrets are the stack's (the chain's contracts at the addresses
	// its functions name).
	grown *grownDB
}

// grownDB is a database `rampway-bench fill` grew, and the dev directory it was filled with.
type grownDB struct {
	world *devDirState
	demo  devworld.Merchant // the demo merchant, with its credentials when they are known
	// sqlitePath is the SQLite file; pgDatabase the PostgreSQL database on the stack's server.
	sqlitePath, pgDatabase string
	// snapshot runs on a copy (a copy of the file; a database made from the grown one as its
	// template), dropped afterwards: the grown database stays as it was.
	snapshot bool
}

// stack is one process's worth of rampway plus the baseline, on one database.
type stack struct {
	db       string
	chain    *devchain.Chain
	store    *sqlstore.Store
	networks *chain.Networks
	rpc      *rpcCounter
	evm      *ethclient.Client // checkout's chain client
	baseline *baseline
	baseDB   *sql.DB // the baseline's own pool, on SQLite
	logFile  *os.File
	servers  []*http.Server
	app      *app.App
	stopApp  context.CancelFunc // ends the app's Serve, which drains and closes the store
	served   chan error         // Serve's answer
	dropDB   func() error
	// restoreCursor puts back the watcher's cursor of a grown database run on in place.
	restoreCursor func() error

	rampwayURL  string // rampway's listener, "http://host:port"
	basePaths   config.BasePaths
	baselineURL string // the baselines' listener, "http://host:port" (a path for each scenario)
	merchantID  string
	apiKey      string
	functionID  string
	payer       common.Address
	dbName      string // what the database is, for the report
}

// startStack starts the chain, the store, rampway's handler and the baseline's.
func startStack(ctx context.Context, opt stackOptions) (s *stack, err error) {
	st := &stack{db: opt.db}
	s = st
	defer func() {
		if err != nil {
			// st, not s: a "return nil, err" has set s to nil by now.
			err = errors.Join(err, st.close())
			s = nil
		}
	}()
	if s.logFile, err = os.Create(filepath.Join(opt.dataDir, "rampway-"+opt.db+".log")); err != nil {
		return nil, err
	}
	log := slog.New(slog.NewJSONHandler(s.logFile, &slog.HandlerOptions{Level: slog.LevelInfo}))

	keys := make([]*ecdsaKey, 3) // deployer, payer, hot wallet
	for i := range keys {
		if keys[i], err = newKey(); err != nil {
			return nil, err
		}
	}
	if g := opt.grown; g != nil {
		for i, h := range []string{g.world.DeployerKey, g.world.PayerKey, g.world.HotWalletKey} {
			k, err := crypto.HexToECDSA(h)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", devStateFile, err)
			}
			keys[i] = &ecdsaKey{key: k, addr: crypto.PubkeyToAddress(k.PublicKey)}
		}
	}
	deployer, payer, hot := keys[0], keys[1], keys[2]
	s.payer = payer.addr
	s.chain, err = devchain.Start(ctx, devchain.Config{
		RPCAddr: "127.0.0.1:0", BlockTime: devchain.DefaultBlockTime, Deployer: deployer.key, Logger: log.With("component", "devchain"),
		Fund: devworld.Funding(payer.addr, hot.addr),
	})
	if err != nil {
		return nil, fmt.Errorf("embedded chain: %w", err)
	}

	// The configuration `rampway dev` builds, on the chosen database.
	cfg := config.Default()
	cfg.Mode = config.ModeDev
	cfg.HTTP.Addr = "127.0.0.1:0"
	cfg.HTTP.PublicURL = "http://127.0.0.1"
	cfg.Admin.Token = devSecret()
	cfg.Secrets.HashSecret = devSecret()
	cfg.Secrets.EncryptionKey = devSecret()
	cfg.Log.Format = "json"
	g := opt.grown
	if g != nil { // the secrets its keys are hashed and its secrets sealed with
		cfg.Admin.Token, cfg.Secrets.HashSecret, cfg.Secrets.EncryptionKey = g.world.AdminToken, g.world.HashSecret, g.world.EncryptionKey
	}
	switch {
	case opt.db == "sqlite" && g != nil:
		cfg.Database.Driver, cfg.Database.Path = "sqlite", g.sqlitePath
		s.dbName = "SQLite file " + g.sqlitePath + " (grown, in place)"
		if g.snapshot {
			tmp, err := os.MkdirTemp("", "rampway-bench-snapshot-")
			if err != nil {
				return nil, err
			}
			s.dropDB = func() error { return os.RemoveAll(tmp) }
			cfg.Database.Path = filepath.Join(tmp, "rampway.db")
			if err := copyFile(g.sqlitePath, cfg.Database.Path); err != nil {
				return nil, err
			}
			s.dbName = "SQLite file " + cfg.Database.Path + " (a copy of the grown " + g.sqlitePath + ")"
		}
	case opt.db == "sqlite":
		cfg.Database.Driver, cfg.Database.Path = "sqlite", filepath.Join(opt.dataDir, "rampway.db")
		s.dbName = "SQLite file " + cfg.Database.Path
	case opt.db == "postgres" && g != nil:
		cfg.Database.Driver, cfg.Database.DSN = "postgres", withDatabase(opt.pgDSN, g.pgDatabase)
		s.dbName = "PostgreSQL database " + g.pgDatabase + " (grown, in place)"
		if g.snapshot {
			dsn, name, drop, err := templateDatabase(ctx, opt.pgDSN, g.pgDatabase)
			if err != nil {
				return nil, err
			}
			s.dropDB, cfg.Database.DSN = drop, dsn
			s.dbName = "PostgreSQL database " + name + " (a copy of the grown " + g.pgDatabase + ")"
		}
	case opt.db == "postgres":
		dsn, name, drop, err := freshDatabase(ctx, opt.pgDSN)
		if err != nil {
			return nil, err
		}
		s.dropDB = drop
		cfg.Database.Driver, cfg.Database.DSN = "postgres", dsn
		s.dbName = "PostgreSQL database " + name
	default:
		return nil, fmt.Errorf("--db: unknown database %q (sqlite or postgres)", opt.db)
	}
	// The dev network, without its tracing of internal transfers (off, as in the benchmark's
	// earlier runs: no order is paid here, and the figures stay comparable).
	dev := devworld.NetworkConfig(s.chain.RPCURL(), s.chain.Contracts().Token.Hex())
	dev.InternalTransfers, dev.Native.MinAmount = "", "0.000001"
	cfg.Networks = []config.Network{dev}
	mnemonic, err := hd.NewMnemonic()
	if err != nil {
		return nil, err
	}
	if g != nil {
		mnemonic = g.world.DepositMnemonic // the filled orders' deposit addresses are its
	}
	seed, err := hd.FromMnemonic(mnemonic, "")
	if err != nil {
		return nil, err
	}
	if cfg.Checkout.DepositXPub, err = seed.XPub(); err != nil {
		return nil, err
	}
	cfg.Checkout.HotWalletAddress = hot.addr.Hex()
	// USD prices: the assets', and the fiat currencies' as the dev chain's feeds give them
	// (USD is 1), which B1 and B3 convert the crypto into.
	cfg.Checkout.Prices = map[string]string{devchain.NativeSymbol: "3000", devchain.TokenSymbol: "1", "EUR": "1.08", "GBP": "1.27"}

	// No per-merchant rate limit: the benchmark's one merchant sends as fast as it can.
	cfg.HTTP.RateLimit = config.RateLimit{}
	cfg.Secrets.HotWalletKey = hex.EncodeToString(crypto.FromECDSA(hot.key)) // the executor runs, idle
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("configuration: %w", err)
	}
	// As `rampway dev`: the chain runs in this process and rampway calls it in process.
	if s.networks, err = chain.Dial(ctx, cfg.DomainNetworks(), chain.InProcess(s.chain.RPCURL(), s.chain.RPC())); err != nil {
		return nil, fmt.Errorf("networks: %w", err)
	}
	// The order path's chain client, its calls counted: the one rampway dev's order path
	// uses (in process, eth_calls batched), or its own over HTTP (a what-if).
	s.rpc = newRPCCounter(opt.rpcIdleConns, opt.rpcGzip)
	devEVM, _ := s.networks.Client(devNetwork)
	var evm chain.QuoteNode
	if opt.rpcHTTP {
		rc, err := rpc.DialOptions(ctx, s.chain.RPCURL(), rpc.WithHTTPClient(&http.Client{Transport: s.rpc}))
		if err != nil {
			return nil, fmt.Errorf("chain client: %w", err)
		}
		s.evm = ethclient.NewClient(rc)
		devEVM, evm = s.evm, chain.NewBatchingClient(s.evm, chain.BatchesInFlightLoopback) // as chain.Dial's for a node on loopback
	} else {
		evm, _ = s.networks.Batching(devNetwork)
		evm = countingEVM{QuoteNode: evm, c: s.rpc}
	}
	if opt.noChain {
		evm = &freeChain{Client: devEVM}
	}
	if opt.stubNode {
		addr, err := s.serveStubNode()
		if err != nil {
			return nil, err
		}
		rc, err := rpc.DialOptions(ctx, "http://"+addr, rpc.WithHTTPClient(&http.Client{Transport: s.rpc}))
		if err != nil {
			return nil, fmt.Errorf("stub node client: %w", err)
		}
		evm = stubSimulations{QuoteNode: evm, calls: chain.NewBatchingClient(ethclient.NewClient(rc), chain.BatchesInFlightRemote)}
	}
	// rampway itself, as cmd/rampway starts it (internal/app: the store, the services, the
	// server, the workers), with that chain client on the order path.
	ln, err := net.Listen("tcp", cfg.HTTP.Addr)
	if err != nil {
		return nil, err
	}
	s.rampwayURL, s.basePaths = "http://"+ln.Addr().String(), cfg.HTTP.BasePaths
	if g != nil && !g.snapshot {
		// The watcher's cursor on the dev directory's own chain, put back when the run ends
		// (the run's chain is another).
		if s.restoreCursor, err = saveWatchCursor(ctx, cfg); err != nil {
			return nil, err
		}
	}
	s.app, err = app.Start(ctx, cfg, log, app.Options{Version: "bench", Networks: s.networks, Listener: ln,
		QuoteNode: func(string, chain.QuoteNode) chain.QuoteNode { return evm }})
	s.networks = nil // the app's now
	if err != nil {
		return nil, err
	}
	s.store = s.app.Store

	// The dev world, as `rampway dev` makes it (without the demo store's webhook receiver and
	// pictures): the demo merchant, its functions (the benchmark orders the native-paid mint)
	// and its deposit addresses, where C1 sends what the user's fiat buys.
	depositKey, err := newKey()
	if err != nil {
		return nil, err
	}
	spec := devworld.Spec{Contracts: s.chain.Contracts(), DepositAddress: depositKey.addr}
	if g != nil { // its demo merchant, functions and deposit addresses
		spec.Merchant = g.demo
	}
	world, err := devworld.Ensure(ctx, devworld.Services{Merchants: s.app.Merchants, Functions: s.app.Functions,
		Deposits: app.NewDepositAddresses(cfg, s.store, s.app.Networks, 0)}, spec)
	if err != nil {
		return nil, err
	}
	mint, _ := world.Function(devchain.NativeSymbol)
	s.merchantID, s.apiKey, s.functionID = world.Merchant.ID, world.Merchant.APIKey, mint.Registered.ID

	// The baseline's table, in the same database.
	blob := "BLOB"
	if opt.db == "postgres" {
		blob = "BYTEA"
	}
	if _, err := s.store.DB().ExecContext(ctx, `CREATE TABLE IF NOT EXISTS bench_baseline (id TEXT PRIMARY KEY, body `+blob+` NOT NULL)`); err != nil {
		return nil, fmt.Errorf("create bench_baseline: %w", err)
	}

	// The baseline, behind the same server settings, on a loopback listener; rampway serves
	// (and runs its background work: the executor and sweeper idle, no order is paid here).
	baseDB := s.store.DB()
	if opt.db == "sqlite" {
		// The store's connections leave WAL checkpoints to the store, which copies the WAL
		// back in its writer's turn; the baseline's inserts do not take that turn, and a
		// minimal handler would run SQLite's defaults: its own pool on the same file, whose
		// connections checkpoint as SQLite does by default.
		if baseDB, err = sqlite.OpenDBSelfCheckpointing(ctx, cfg.Database.Path); err != nil {
			return nil, err
		}
		s.baseDB = baseDB
	}
	s.baseline = newBaseline(baseDB, opt.db)
	if opt.baselineOneWriter && opt.db == "sqlite" {
		s.baseline.oneWriter = new(sync.Mutex)
	}
	mux := http.NewServeMux()
	for _, sc := range scenarios {
		mux.Handle(sc.baselinePath, sc.baselineHandler(s.baseline))
	}
	base, err := s.serve(cfg, mux, log)
	if err != nil {
		return nil, err
	}
	s.baselineURL = "http://" + base

	serveCtx, stop := context.WithCancel(context.WithoutCancel(ctx))
	s.stopApp = stop
	s.served = make(chan error, 1)
	go func() { s.served <- s.app.Serve(serveCtx) }()
	return s, nil
}

// serve runs h on a new loopback listener with the configured server settings and returns
// its address.
func (s *stack) serve(cfg config.Config, h http.Handler, log *slog.Logger) (string, error) {
	ln, err := net.Listen("tcp", cfg.HTTP.Addr)
	if err != nil {
		return "", err
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: cfg.HTTP.ReadHeaderTimeout,
		ReadTimeout:       cfg.HTTP.ReadTimeout,
		WriteTimeout:      cfg.HTTP.WriteTimeout,
		IdleTimeout:       cfg.HTTP.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	s.servers = append(s.servers, srv)
	go func() { _ = srv.Serve(ln) }()
	return ln.Addr().String(), nil
}

// serveStubNode serves, on loopback, a JSON-RPC endpoint that answers every eth_call, alone or
// in a batch, with empty data: a call that would succeed, without running it. It stands for a
// node on another machine, so it does as little as a JSON-RPC server can (decode the ids and
// methods, write the answers); go-ethereum's rpc.Server, which it was until 2026-11-25, spent
// ~3 % of the bench process's CPU on reflection and a goroutine per call: the node's work,
// not rampway's.
func (s *stack) serveStubNode() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	hs := &http.Server{Handler: http.HandlerFunc(stubNode), ReadHeaderTimeout: 10 * time.Second}
	s.servers = append(s.servers, hs)
	go func() { _ = hs.Serve(ln) }()
	return ln.Addr().String(), nil
}

// stubCall is what the stub node reads of a JSON-RPC request.
type stubCall struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// stubNode answers a JSON-RPC request or batch: "0x" for eth_call, "method not found" for the
// rest (the order path sends nothing else here).
func stubNode(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	body = bytes.TrimSpace(body)
	batch := len(body) > 0 && body[0] == '['
	var calls []stubCall
	if batch {
		err = json.Unmarshal(body, &calls)
	} else {
		calls = make([]stubCall, 1)
		err = json.Unmarshal(body, &calls[0])
	}
	if err != nil {
		http.Error(w, "parse error: "+err.Error(), http.StatusBadRequest)
		return
	}
	out := make([]byte, 0, 64*len(calls)+2)
	if batch {
		out = append(out, '[')
	}
	for i, c := range calls {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, `{"jsonrpc":"2.0","id":`...)
		out = append(out, c.ID...)
		if c.Method == "eth_call" {
			out = append(out, `,"result":"0x"}`...)
		} else {
			out = append(out, `,"error":{"code":-32601,"message":"the stub node answers eth_call only"}}`...)
		}
	}
	if batch {
		out = append(out, ']')
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(out)
}

// stubSimulations is the order path's chain client with its simulations sent to the stub node.
type stubSimulations struct {
	chain.QuoteNode
	calls *chain.BatchingClient
}

func (c stubSimulations) CallContract(ctx context.Context, msg ethereum.CallMsg, block *big.Int) ([]byte, error) {
	return c.calls.CallContract(ctx, msg, block)
}

// close stops everything that was started; it works after a partial start.
func (s *stack) close() error {
	var errs []error
	for _, srv := range s.servers {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		errs = append(errs, srv.Shutdown(ctx))
		cancel()
	}
	if s.baseDB != nil {
		errs = append(errs, s.baseDB.Close())
	}
	switch {
	case s.stopApp != nil: // served: Serve drains, stops the workers and closes the store
		s.stopApp()
		errs = append(errs, <-s.served)
	case s.app != nil:
		errs = append(errs, s.app.Close())
	}
	if s.evm != nil {
		s.evm.Close()
	}
	s.networks.Close()
	if s.chain != nil {
		errs = append(errs, s.chain.Close())
	}
	if s.restoreCursor != nil {
		errs = append(errs, s.restoreCursor())
	}
	if s.dropDB != nil {
		errs = append(errs, s.dropDB())
	}
	if s.logFile != nil {
		errs = append(errs, s.logFile.Close())
	}
	return errors.Join(errs...)
}

// rowSize returns the bytes of one row as the driver returns them (text for numbers and
// times): what a row of the table costs to write, roughly.
func rowSize(ctx context.Context, db *sql.DB, query string, args ...any) (int, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return 0, err
	}
	if !rows.Next() {
		return 0, fmt.Errorf("no row: %s", query)
	}
	vals := make([]sql.RawBytes, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return 0, err
	}
	n := 0
	for _, v := range vals {
		n += len(v)
	}
	return n, rows.Err()
}

// countingEVM counts the order path's chain calls by JSON-RPC method when they go in
// process (over HTTP, rpcCounter counts them as they are sent).
type countingEVM struct {
	chain.QuoteNode
	c *rpcCounter
}

func (e countingEVM) HeaderByNumber(ctx context.Context, number *big.Int) (*types.Header, error) {
	e.c.count("eth_getBlockByNumber")
	return e.QuoteNode.HeaderByNumber(ctx, number)
}

func (e countingEVM) SuggestGasTipCap(ctx context.Context) (*big.Int, error) {
	e.c.count("eth_maxPriorityFeePerGas")
	return e.QuoteNode.SuggestGasTipCap(ctx)
}

func (e countingEVM) CallContract(ctx context.Context, msg ethereum.CallMsg, block *big.Int) ([]byte, error) {
	e.c.count("eth_call")
	return e.QuoteNode.CallContract(ctx, msg, block)
}

func (e countingEVM) SimulateV1(ctx context.Context, opts ethclient.SimulateOptions, block *rpc.BlockNumberOrHash) ([]ethclient.SimulateBlockResult, error) {
	e.c.count("eth_simulateV1")
	return e.QuoteNode.SimulateV1(ctx, opts, block)
}

func (c *rpcCounter) count(method string) {
	c.mu.Lock()
	c.calls[method]++
	c.mu.Unlock()
}

// rpcCounter is an HTTP transport that counts JSON-RPC calls by method and the TCP connections
// it opens. Its settings are those of chain.Dial's HTTP client (Go's default transport keeping
// 256 idle connections, 64 per host: keep them in step); idleConns > 0 overrides the per-host
// number and gzip makes it ask the node for gzip, which chain.Dial's does only for a node
// not on loopback (what-ifs).
type rpcCounter struct {
	tr       *http.Transport
	dials    atomic.Int64
	requests atomic.Int64 // HTTP requests: a batch of calls is one
	mu       sync.Mutex
	calls    map[string]int64
}

func newRPCCounter(idleConns int, gzip bool) *rpcCounter {
	c := &rpcCounter{calls: map[string]int64{}}
	c.tr = http.DefaultTransport.(*http.Transport).Clone()
	c.tr.MaxIdleConns, c.tr.MaxIdleConnsPerHost = 256, 64
	if idleConns > 0 {
		c.tr.MaxIdleConnsPerHost = idleConns
	}
	c.tr.DisableCompression = !gzip
	dial := c.tr.DialContext
	c.tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c.dials.Add(1)
		return dial(ctx, network, addr)
	}
	return c
}

// RoundTrip implements http.RoundTripper.
func (c *rpcCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	methods := map[string]int64{}
	if r.GetBody != nil { // go-ethereum's client sets it: the body is a byte slice
		if b, err := r.GetBody(); err == nil {
			body, _ := io.ReadAll(b)
			for { // one method per call; a batch has several
				_, rest, ok := bytes.Cut(body, []byte(`"method":"`))
				if !ok {
					break
				}
				m, after, ok := bytes.Cut(rest, []byte(`"`))
				if !ok {
					break
				}
				methods[string(m)]++
				body = after
			}
		}
	}
	if len(methods) == 0 {
		methods["unknown"] = 1
	}
	c.requests.Add(1)
	c.mu.Lock()
	for m, n := range methods {
		c.calls[m] += n
	}
	c.mu.Unlock()
	return c.tr.RoundTrip(r)
}

// freeChain is the what-if of a chain that costs nothing: the head and the tip are read once,
// and simulations answer "would succeed" without asking the node.
type freeChain struct {
	*ethclient.Client

	mu   sync.Mutex
	head *types.Header
	tip  *big.Int
}

func (c *freeChain) HeaderByNumber(ctx context.Context, number *big.Int) (*types.Header, error) {
	if number != nil {
		return c.Client.HeaderByNumber(ctx, number)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.head == nil {
		h, err := c.Client.HeaderByNumber(ctx, nil)
		if err != nil {
			return nil, err
		}
		c.head = h
	}
	return types.CopyHeader(c.head), nil
}

func (c *freeChain) SuggestGasTipCap(ctx context.Context) (*big.Int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tip == nil {
		t, err := c.Client.SuggestGasTipCap(ctx)
		if err != nil {
			return nil, err
		}
		c.tip = t
	}
	return new(big.Int).Set(c.tip), nil
}

func (c *freeChain) CallContract(context.Context, ethereum.CallMsg, *big.Int) ([]byte, error) {
	return nil, nil
}

// rpcCounts is a snapshot of the counts by JSON-RPC method, with "TCP connections".
type rpcCounts map[string]int64

const (
	dialsKey    = "new TCP connections"
	requestsKey = "HTTP requests"
)

func (c *rpcCounter) snapshot() rpcCounts {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := rpcCounts{dialsKey: c.dials.Load(), requestsKey: c.requests.Load()}
	for m, n := range c.calls {
		out[m] = n
	}
	return out
}

// perRequest describes the calls made between two snapshots, per request.
func (c rpcCounts) perRequest(before rpcCounts, requests int) string {
	var parts []string
	var total int64
	for m, n := range c {
		d := n - before[m]
		if m != dialsKey && m != requestsKey {
			total += d
		}
		parts = append(parts, fmt.Sprintf("%s %.2f", m, float64(d)/float64(max(requests, 1))))
	}
	sort.Strings(parts)
	return fmt.Sprintf("%.2f (%s)", float64(total)/float64(max(requests, 1)), strings.Join(parts, ", "))
}

// ecdsaKey is a key and its address.
type ecdsaKey struct {
	key  *ecdsa.PrivateKey
	addr common.Address
}

func newKey() (*ecdsaKey, error) {
	k, err := crypto.GenerateKey()
	if err != nil {
		return nil, err
	}
	return &ecdsaKey{key: k, addr: crypto.PubkeyToAddress(k.PublicKey)}, nil
}

// devSecret is a random secret marked as a dev one, like `rampway dev` makes.
func devSecret() string {
	var b [24]byte
	_, _ = rand.Read(b[:])
	return config.DevSecretPrefix + hex.EncodeToString(b[:])
}

// freshDatabase creates rampway_bench_<time>_<random> on the server of base and returns its
// DSN, its name and a function that drops it.
func freshDatabase(ctx context.Context, base string) (dsn, name string, drop func() error, err error) {
	if base == "" {
		return "", "", nil, fmt.Errorf("--db postgres needs a server: set %s or --pg-dsn", envPostgresDSN)
	}
	admin, err := sql.Open("pgx", base)
	if err != nil {
		return "", "", nil, fmt.Errorf("open the PostgreSQL server: %w", err)
	}
	defer admin.Close()
	var b [3]byte
	_, _ = rand.Read(b[:])
	name = "rampway_bench_" + time.Now().UTC().Format("20060102_150405") + "_" + hex.EncodeToString(b[:])
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		return "", "", nil, fmt.Errorf("create database %s: %w", name, err)
	}
	drop = func() error {
		db, err := sql.Open("pgx", base)
		if err != nil {
			return err
		}
		defer db.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := db.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			return fmt.Errorf("drop database %s: %w", name, err)
		}
		return nil
	}
	return withDatabase(base, name), name, drop, nil
}

// templateDatabase creates a copy of database from on the server of base (CREATE DATABASE ...
// TEMPLATE: no one may be connected to it meanwhile) and returns its DSN, its name and a
// function that drops it.
func templateDatabase(ctx context.Context, base, from string) (dsn, name string, drop func() error, err error) {
	if !validDBName(from) {
		return "", "", nil, fmt.Errorf("--pg-database %q: letters, digits and _ only", from)
	}
	admin, err := sql.Open("pgx", base)
	if err != nil {
		return "", "", nil, fmt.Errorf("open the PostgreSQL server: %w", err)
	}
	defer admin.Close()
	var b [3]byte
	_, _ = rand.Read(b[:])
	name = from + "_bench_" + hex.EncodeToString(b[:])
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name+" TEMPLATE "+from); err != nil {
		return "", "", nil, fmt.Errorf("copy database %s: %w", from, err)
	}
	drop = func() error {
		db, err := sql.Open("pgx", base)
		if err != nil {
			return err
		}
		defer db.Close()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := db.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			return fmt.Errorf("drop database %s: %w", name, err)
		}
		return nil
	}
	return withDatabase(base, name), name, drop, nil
}

// saveWatchCursor reads the watchers' cursors of cfg's database and returns a function that
// writes them back as they were (on a connection of its own: the store is closed by then).
func saveWatchCursor(ctx context.Context, cfg config.Config) (func() error, error) {
	open := func(ctx context.Context) (*sql.DB, error) {
		if cfg.Database.Driver == "sqlite" {
			return sqlite.OpenDB(ctx, cfg.Database.Path)
		}
		return sql.Open("pgx", cfg.Database.DSN)
	}
	db, err := open(ctx)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	type cursor struct {
		network, hash string
		block         int64
		updated       any
	}
	var saved []cursor
	rows, err := db.QueryContext(ctx, `SELECT network, block_number, block_hash, updated_at FROM watch_cursors`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var c cursor
		if err := rows.Scan(&c.network, &c.block, &c.hash, &c.updated); err != nil {
			rows.Close()
			return nil, err
		}
		saved = append(saved, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	ph := "$1, $2, $3, $4"
	if cfg.Database.Driver == "sqlite" {
		ph = "?, ?, ?, ?"
	}
	return func() error {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		db, err := open(ctx)
		if err != nil {
			return err
		}
		defer db.Close()
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer func() { _ = tx.Rollback() }()
		if _, err := tx.ExecContext(ctx, `DELETE FROM watch_cursors`); err != nil {
			return err
		}
		for _, c := range saved {
			if _, err := tx.ExecContext(ctx, `INSERT INTO watch_cursors (network, block_number, block_hash, updated_at) VALUES (`+ph+`)`,
				c.network, c.block, c.hash, c.updated); err != nil {
				return err
			}
		}
		return tx.Commit()
	}, nil
}

// copyFile copies the file src to dst (a grown SQLite database: its WAL is empty once the fill
// or a dev server closed it).
func copyFile(src, dst string) error {
	if fi, err := os.Stat(src + "-wal"); err == nil && fi.Size() > 0 {
		return fmt.Errorf("%s-wal is not empty: is a rampway dev running on it?", src)
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// withDatabase returns dsn (URL or key=value form) pointing at database name.
func withDatabase(dsn, name string) string {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		if u, err := url.Parse(dsn); err == nil {
			u.Path = "/" + name
			return u.String()
		}
	}
	return dsn + " dbname=" + name // a later keyword wins in the key=value form
}

// totalValue is the demo NFT's price for one token, in ETH ("0.01").
var totalValue = rampway.FormatUnits(big.NewInt(devchain.NFTPriceWei), 18)
