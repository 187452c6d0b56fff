// Package devchain runs an in-process Ethereum chain (go-ethereum's ethclient/simulated) for
// `rampway dev` and for tests. It mines on its own when transactions wait, serves JSON-RPC over
// HTTP so that wallets and libraries can use it, and is pre-loaded with the demo contracts of
// contracts/src: DemoNFT (an ERC-721 with paid, token-paid and free mints), DemoToken (the
// "Demo USD" stable token), three PriceFeeds (Chainlink-style feeds: ETH / USD, EUR / USD and
// GBP / USD) and Multicall3.
//
// The contracts' compiled artifacts and Go bindings (package bindings) are committed files:
// building and testing this package never needs npm or solc.
package devchain

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/rpc"
)

// ChainID is the chain id of the dev chain (the go-ethereum simulator's, 1337).
const ChainID = 1337

// DefaultBlockTime is the block time used when Config.BlockTime is zero.
const DefaultBlockTime = time.Second

// pollInterval is how often the automining goroutine looks at the transaction pool.
const pollInterval = 25 * time.Millisecond

// ErrClosed is returned by Mine after Close.
var ErrClosed = errors.New("devchain: chain is closed")

// Funding gives an account native coin in the genesis block and demo tokens right after the
// contracts are deployed. Nil or zero amounts give nothing.
type Funding struct {
	Address common.Address
	// Wei is the native-coin balance at genesis.
	Wei *big.Int
	// TokenUnits is the DemoToken (DUSD) amount minted to Address, in base units (6 decimals).
	TokenUnits *big.Int
}

// Config configures Start. Only Deployer is required.
type Config struct {
	// RPCAddr is the host:port of the JSON-RPC HTTP endpoint, e.g. "127.0.0.1:8545". Port 0
	// picks a free port (read it back with RPCURL); "" serves no HTTP RPC (in-process use
	// through Client only). An empty host means 127.0.0.1.
	RPCAddr string
	// BlockTime is the shortest time between two automined blocks: a block is mined as soon as
	// transactions wait, but at most one per BlockTime, and never with a timestamp ahead of the
	// wall clock (so at most one per second). Zero means DefaultBlockTime; negative means never
	// mine by itself (tests call Mine).
	BlockTime time.Duration
	// Deployer deploys and owns the demo contracts. It is funded at genesis. The contract
	// addresses depend only on its address (see ContractAddresses): the same key gives the
	// same addresses on every start (except the fiat feeds of a chain an older version made:
	// see DataDir).
	Deployer *ecdsa.PrivateKey
	// Fund lists the accounts funded at genesis (native coin) and after deployment (tokens).
	Fund []Funding
	// Logger receives the chain's own log lines; nil discards them.
	Logger *slog.Logger
	// DataDir is where the chain's database lives; "" keeps it in memory. A chain started
	// again on the same DataDir goes on from its last block, its contracts deployed and its
	// accounts funded the first time only (a chain that an older version made gets the price
	// feeds it lacks, once): give it the same Deployer and Fund (they make its genesis;
	// another genesis is refused). Every block is synced to disk as it is mined
	// (Mine), so a process killed with SIGKILL comes back with all of them. One process at a
	// time may use a DataDir.
	DataDir string
	// BaseFee is the genesis block's base fee; nil is go-ethereum's initial one (1 gwei).
	// A chain that must start the same every time (the simulation's) gives the floor, 7 wei:
	// blocks under the gas target leave it there, so the base fee does not depend on how the
	// miner happened to split the deployment into blocks.
	BaseFee *big.Int
}

// Validate reports the first problem with c, or nil.
func (c Config) Validate() error {
	if c.Deployer == nil {
		return errors.New("devchain: Config.Deployer is required")
	}
	if c.RPCAddr != "" {
		if _, _, err := splitRPCAddr(c.RPCAddr); err != nil {
			return err
		}
	}
	for i, f := range c.Fund {
		if f.Wei != nil && f.Wei.Sign() < 0 {
			return fmt.Errorf("devchain: Fund[%d].Wei is negative", i)
		}
		if f.TokenUnits != nil && f.TokenUnits.Sign() < 0 {
			return fmt.Errorf("devchain: Fund[%d].TokenUnits is negative", i)
		}
	}
	return nil
}

// splitRPCAddr parses "host:port" into a host (default 127.0.0.1) and a port (0 = pick one).
func splitRPCAddr(addr string) (string, int, error) {
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, fmt.Errorf("devchain: RPCAddr %q: %w", addr, err)
	}
	port, err := strconv.Atoi(portStr)
	if err != nil || port < 0 || port > 65535 {
		return "", 0, fmt.Errorf("devchain: RPCAddr %q: bad port", addr)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return host, port, nil
}

// Contracts holds the addresses of the deployed demo contracts.
type Contracts struct {
	NFT        common.Address // DemoNFT
	Token      common.Address // DemoToken (DUSD)
	PriceFeed  common.Address // PriceFeed ETH / USD
	Multicall  common.Address // Multicall3
	EURUSDFeed common.Address // PriceFeed EUR / USD
	GBPUSDFeed common.Address // PriceFeed GBP / USD
}

// USDFeed is one of the dev chain's PriceFeeds: the USD price of Symbol.
type USDFeed struct {
	Symbol      string // "ETH", "EUR", "GBP"
	Description string // the feed's description(), "ETH / USD"
	Answer      int64  // the answer at deployment, with PriceFeedDecimals decimals
	Address     common.Address
}

// USDFeeds returns the price feeds of c: ETH / USD, EUR / USD and GBP / USD, in that order.
func (c Contracts) USDFeeds() []USDFeed {
	return []USDFeed{
		{Symbol: NativeSymbol, Description: PriceFeedDescription, Answer: PriceFeedAnswer, Address: c.PriceFeed},
		{Symbol: "EUR", Description: EURUSDFeedDescription, Answer: EURUSDFeedAnswer, Address: c.EURUSDFeed},
		{Symbol: "GBP", Description: GBPUSDFeedDescription, Answer: GBPUSDFeedAnswer, Address: c.GBPUSDFeed},
	}
}

// Deployment order of a new chain: the deployer's nonces 0..5, so that the addresses are known
// in advance, then the token mints. (Versions before the fiat feeds minted from nonce 4: see
// Chain.resume for their chains.)
const (
	nonceToken = iota
	noncePriceFeed
	nonceMulticall
	nonceNFT
	nonceEURUSDFeed
	nonceGBPUSDFeed
	nonceFirstMint
)

// ContractAddresses returns the addresses at which Start deploys the demo contracts for the
// given deployer address, without starting a chain. They are a chain's Contracts if this
// version made the chain; one that an older version made (on a data directory) got the
// EUR / USD and GBP / USD feeds later, at other addresses: Chain.Contracts says which.
func ContractAddresses(deployer common.Address) Contracts {
	return Contracts{
		Token:      crypto.CreateAddress(deployer, nonceToken),
		PriceFeed:  crypto.CreateAddress(deployer, noncePriceFeed),
		Multicall:  crypto.CreateAddress(deployer, nonceMulticall),
		NFT:        crypto.CreateAddress(deployer, nonceNFT),
		EURUSDFeed: crypto.CreateAddress(deployer, nonceEURUSDFeed),
		GBPUSDFeed: crypto.CreateAddress(deployer, nonceGBPUSDFeed),
	}
}

// Chain is a running dev chain. Its methods are safe for concurrent use.
type Chain struct {
	log       *slog.Logger
	backend   *devNode
	client    simulated.Client
	raw       *rpc.Client // in-process RPC, for txpool_status
	rpcURL    string
	chainID   *big.Int
	contracts Contracts
	blockTime time.Duration

	mu        sync.Mutex // serializes Commit (not goroutine-safe) with itself and with Close
	closed    bool
	lastMined time.Time

	stop      chan struct{} // closed by Close to stop automining; nil when not automining
	done      chan struct{} // closed when the automining goroutine has returned
	closeOnce sync.Once
	closeErr  error
}

// Start starts a dev chain, deploys the demo contracts, mints the demo tokens of cfg.Fund and
// returns once all of that is mined. ctx bounds the start only, not the chain's life: call
// Close to stop it. On error the partly started chain is closed again.
func Start(ctx context.Context, cfg Config) (*Chain, error) {
	return start(ctx, cfg, layoutCurrent)
}

// start is Start, deploying the contracts of lay on a new chain.
func start(ctx context.Context, cfg Config, lay layout) (*Chain, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	blockTime := cfg.BlockTime
	if blockTime == 0 {
		blockTime = DefaultBlockTime
	}

	deployer := crypto.PubkeyToAddress(cfg.Deployer.PublicKey)
	alloc := types.GenesisAlloc{}
	addWei := func(addr common.Address, wei *big.Int) {
		acct := alloc[addr]
		if acct.Balance == nil {
			acct.Balance = new(big.Int)
		}
		acct.Balance = new(big.Int).Add(acct.Balance, wei)
		alloc[addr] = acct
	}
	addWei(deployer, deployerWei())
	for _, f := range cfg.Fund {
		if f.Wei != nil && f.Wei.Sign() > 0 {
			addWei(f.Address, f.Wei)
		}
	}

	backend, rpcURL, err := startBackend(alloc, cfg.BaseFee, cfg.RPCAddr, cfg.DataDir)
	if err != nil {
		return nil, err
	}
	c := &Chain{
		log:       log,
		backend:   backend,
		client:    backend.client,
		raw:       backend.client.Client(),
		rpcURL:    rpcURL,
		blockTime: blockTime,
	}
	fail := func(err error) (*Chain, error) {
		return nil, errors.Join(err, c.Close())
	}
	if c.chainID, err = c.client.ChainID(ctx); err != nil {
		return fail(fmt.Errorf("devchain: read chain id: %w", err))
	}
	if c.contracts, err = c.deploy(ctx, cfg.Deployer, cfg.Fund, lay); err != nil {
		return fail(err)
	}
	if blockTime > 0 {
		c.stop = make(chan struct{})
		c.done = make(chan struct{})
		go c.automine()
	}
	log.Info("dev chain ready",
		"rpc_url", c.rpcURL, "chain_id", c.chainID, "deployer", deployer,
		"nft", c.contracts.NFT, "token", c.contracts.Token,
		"price_feed", c.contracts.PriceFeed, "eur_usd_feed", c.contracts.EURUSDFeed,
		"gbp_usd_feed", c.contracts.GBPUSDFeed, "multicall", c.contracts.Multicall)
	return c, nil
}

// startBackend starts the node, with an HTTP RPC endpoint when rpcAddr is set, and returns
// it with the endpoint's URL.
func startBackend(alloc types.GenesisAlloc, baseFee *big.Int, rpcAddr, dataDir string) (*devNode, string, error) {
	if rpcAddr == "" {
		b, err := newNode(alloc, baseFee, "", 0, dataDir)
		return b, "", err
	}
	host, port, err := splitRPCAddr(rpcAddr)
	if err != nil {
		return nil, "", err
	}
	// go-ethereum cannot report the port it picked for HTTPPort 0, so pick one here. Another
	// process could take it before the node binds it: retry a few times with a new one.
	attempts := 1
	if port == 0 {
		attempts = 3
	}
	for i := 0; ; i++ {
		p := port
		if p == 0 {
			if p, err = freePort(host); err != nil {
				return nil, "", err
			}
		} else if err := portFree(host, p); err != nil {
			// Fail before building a node: a node that cannot bind leaves goroutines behind.
			return nil, "", err
		}
		b, err := newNode(alloc, baseFee, host, p, dataDir)
		if err == nil {
			urlHost := host
			if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
				urlHost = "127.0.0.1"
			}
			return b, "http://" + net.JoinHostPort(urlHost, strconv.Itoa(p)), nil
		}
		if i+1 >= attempts {
			return nil, "", err
		}
	}
}

// portFree reports whether host:port can be listened on now.
func portFree(host string, port int) error {
	l, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return fmt.Errorf("devchain: RPC address: %w", err)
	}
	return l.Close()
}

// freePort returns a TCP port on host that was free a moment ago.
func freePort(host string) (int, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return 0, fmt.Errorf("devchain: pick a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// RPCURL returns the URL of the JSON-RPC HTTP endpoint, e.g. "http://127.0.0.1:8545", or ""
// when Config.RPCAddr was empty.
func (c *Chain) RPCURL() string { return c.rpcURL }

// ChainID returns the chain id (ChainID, 1337) as a new big.Int.
func (c *Chain) ChainID() *big.Int { return new(big.Int).Set(c.chainID) }

// RPC returns the chain's in-process JSON-RPC client (no socket, no HTTP), for rampway's own
// calls of the chain it runs (chain.InProcess). Callers must not close it; it stops working
// after Close.
func (c *Chain) RPC() *rpc.Client { return c.raw }

// Client returns an in-process client of the chain. It stops working after Close.
func (c *Chain) Client() simulated.Client { return c.client }

// Contracts returns the addresses of the demo contracts.
func (c *Chain) Contracts() Contracts { return c.contracts }

// Mine mines one block now, with the waiting transactions, and returns its hash once the
// block is on disk (with Config.DataDir: a kill of the process after that keeps it) and their
// receipts can be looked up. It is safe
// to call while automining runs. Blocks mined this way come at most one per call, not one
// per second: their timestamps (parent+1 at least) can then run ahead of the wall clock.
func (c *Chain) Mine() (common.Hash, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return common.Hash{}, ErrClosed
	}
	parent, err := c.client.HeaderByNumber(context.Background(), nil)
	if err != nil {
		return common.Hash{}, fmt.Errorf("devchain: read head: %w", err)
	}
	hash := c.backend.beacon.Commit()
	if hash == parent.Hash() {
		// Commit only logs sealing errors (to go-ethereum's logger) and returns the head.
		return common.Hash{}, errors.New("devchain: sealing a block failed")
	}
	c.lastMined = time.Now()
	// On disk before anyone is told of it: a kill of the process right after keeps it.
	// (Between the seal and here, a few milliseconds, a reader of the head can see it first.)
	if err := c.backend.sync(); err != nil {
		return common.Hash{}, fmt.Errorf("devchain: block %s mined but not written to disk: %w", hash, err)
	}
	// go-ethereum indexes a block's transactions in the background, after the block is
	// head: until then their receipts are "not found" or "indexing in progress". Mine
	// returns once they can be looked up (the block is indexed at once, so its last
	// transaction tells), so that a caller, or a watcher that sees the new head, finds them.
	block, err := c.client.BlockByHash(context.Background(), hash)
	if err != nil {
		return common.Hash{}, fmt.Errorf("devchain: read block %s: %w", hash, err)
	}
	if txs := block.Transactions(); len(txs) > 0 {
		if _, err := waitReceipt(context.Background(), c.client, txs[len(txs)-1].Hash()); err != nil {
			return common.Hash{}, fmt.Errorf("devchain: block %s not indexed: %w", hash, err)
		}
	}
	return hash, nil
}

// Close stops mining and the RPC endpoint (freeing its port) and releases the chain. It is
// safe to call more than once, and on a nil *Chain.
func (c *Chain) Close() error {
	if c == nil {
		return nil
	}
	c.closeOnce.Do(func() {
		if c.stop != nil {
			close(c.stop)
			<-c.done
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		c.closed = true
		if c.backend != nil {
			c.closeErr = c.backend.Close()
		}
	})
	return c.closeErr
}

// automine mines a block whenever transactions wait in the pool, at most one per blockTime
// and never with a timestamp ahead of the wall clock.
func (c *Chain) automine() {
	defer close(c.done)
	ticker := time.NewTicker(pollInterval)
	defer ticker.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-ticker.C:
		}
		c.mu.Lock()
		due := time.Since(c.lastMined) >= c.blockTime
		c.mu.Unlock()
		if !due {
			continue
		}
		n, err := c.pendingCount()
		if err != nil || n == 0 {
			continue
		}
		head, err := c.client.HeaderByNumber(context.Background(), nil)
		if err != nil || uint64(time.Now().Unix()) <= head.Time {
			continue // the next block would be stamped in the future: wait
		}
		if _, err := c.Mine(); err != nil && !errors.Is(err, ErrClosed) {
			c.log.Warn("dev chain: mining failed", "err", err)
		}
	}
}

// pendingCount returns the number of executable transactions in the pool (txpool_status,
// cheap: no pending block is built).
func (c *Chain) pendingCount() (int, error) {
	var status map[string]hexutil.Uint
	if err := c.raw.CallContext(context.Background(), &status, "txpool_status"); err != nil {
		return 0, err
	}
	return int(status["pending"]), nil
}

// Fork starts a side chain from the block parent, for tests of reorganisations: the blocks
// Mine makes next build on parent, and the side chain becomes canonical once it is longer.
func (c *Chain) Fork(parent common.Hash) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return ErrClosed
	}
	if err := c.backend.beacon.Fork(parent); err != nil {
		return err
	}
	return c.backend.sync()
}
