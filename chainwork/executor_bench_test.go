package chainwork_test

import (
	"bytes"
	"cmp"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math/big"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain"
	"github.com/rampway/rampway/chain/devchain"
	"github.com/rampway/rampway/chain/devchain/bindings"
	"github.com/rampway/rampway/chain/rpcfault"
	"github.com/rampway/rampway/chainwork"
	"github.com/rampway/rampway/contract"
	"github.com/rampway/rampway/internal/pgtest"
	"github.com/rampway/rampway/internal/sqlstore"
	"github.com/rampway/rampway/postgres"
	"github.com/rampway/rampway/sqlite"
	"github.com/rampway/rampway/storetest"
)

// xOrders is the burst of paid orders: 200 for the target of BenchmarkExecute200Orders and
// BenchmarkExecute200Remote (docs/BENCHMARKS.md), more with -x-orders (1,000: docs/BENCHMARKS.md, "Cost as the database grows").
var xOrders = flag.Int("x-orders", 200, "paid orders in the executor benchmarks' burst")

const (
	// x200TargetBlocks is the target: every order's call mined within this many blocks of the
	// block that confirmed its payment.
	x200TargetBlocks = 3
	// x200Poll is the executor's and the watcher's poll in the app (cmd/rampway watchPoll).
	x200Poll = 500 * time.Millisecond
	// x200Timeout bounds one round: far beyond the target, short of hanging the run.
	x200Timeout = 3 * time.Minute
)

// BenchmarkExecute200Orders measures the target "200 orders paid at once all executed within
// 3 blocks of their confirmations" (docs/BENCHMARKS.md), on SQLite and, when
// RAMPWAY_TEST_POSTGRES_DSN is set, on PostgreSQL (a fresh database per round).
//
//	go test -run='^$' -bench=Execute200 -benchtime=1x -count=3 ./chainwork
//
// (With -count above 1, a count that fails after the first does not change go test's exit
// status, a quirk of package testing: look for "--- FAIL" in the output.)
//
// Each op is one round on a new chain and store: the embedded chain mines on its own at the
// dev default of one block per second (a background account sends a transfer every 200 ms,
// so that blocks keep coming like on a live network rather than only when our transactions
// wait). 200 orders of DemoNFT.mint (1 token each, 200 recipients, paid in ETH) wait in
// DEPOSIT_PROCESSING; an executor runs as in the app (Run, 500 ms poll, default config).
// When block H appears, it is the block confirming all 200 payments: 500 ms later (the
// watcher's poll, the longest it takes to notice the block) the 200 orders move to
// DEPOSIT_SUCCESS, one Transition each as the watcher's confirm does. The timer runs from
// H's arrival until all 200 are SUCCESS.
//
// Metrics: blocks-max and blocks-mean are (receipt block − H) over the 200 calls (the
// target: blocks-max ≤ 3, else the benchmark fails); s-sent and s-success are the seconds
// from H's arrival until the last call was broadcast and until the last order was SUCCESS;
// blocks-success is the head the executor saw when it settled the last one, minus H. The
// ms/… metrics are the mean cost of one call of the executor's work: preflight (an eth_call,
// through the batcher as in the app), start-exec (the StartExecution transaction, signing
// included), send (one batch of eth_sendRawTransaction: the executor broadcasts in batches
// since issue 19). Rounds log the full breakdown.
func BenchmarkExecute200Orders(b *testing.B) {
	b.Run("db=sqlite", func(b *testing.B) {
		x200Bench(b, "sqlite", func(b *testing.B) *sqlstore.Store {
			s, err := sqlite.Open(b.Context(), filepath.Join(b.TempDir(), "x.db"), nil)
			if err != nil {
				b.Fatal(err)
			}
			return s
		})
	})
	b.Run("db=postgres", func(b *testing.B) {
		pgtest.BaseDSN(b) // skips without a server (fails in CI)
		x200Bench(b, "postgres", func(b *testing.B) *sqlstore.Store {
			s, err := postgres.Open(b.Context(), pgtest.FreshDSN(b), nil, postgres.Options{})
			if err != nil {
				b.Fatal(err)
			}
			return s
		})
	})
}

// x200Result is what one round measured.
type x200Result struct {
	blocks          []uint64 // receipt block − H, per order
	sent, success   time.Duration
	successBlocks   uint64
	preflight, exec time.Duration // mean per call
	send            time.Duration
}

func x200Bench(b *testing.B, db string, openStore func(*testing.B) *sqlstore.Store) {
	var results []x200Result
	for round := range b.N {
		b.StopTimer()
		results = append(results, x200Round(b, fmt.Sprintf("%s round %d", db, round+1), storetest.OpenSQLite(b)))
	}
	b.StopTimer()
	var all []uint64
	var sent, success, pre, exec, send time.Duration
	var successBlocks uint64
	for _, r := range results {
		all = append(all, r.blocks...)
		sent += r.sent
		success += r.success
		pre += r.preflight
		exec += r.exec
		send += r.send
		successBlocks = max(successBlocks, r.successBlocks)
	}
	var sum uint64
	for _, v := range all {
		sum += v
	}
	n := time.Duration(len(results))
	worst := slices.Max(all)
	b.ReportMetric(float64(worst), "blocks-max")
	b.ReportMetric(float64(sum)/float64(len(all)), "blocks-mean")
	b.ReportMetric(float64(successBlocks), "blocks-success")
	b.ReportMetric((sent / n).Seconds(), "s-sent")
	b.ReportMetric((success / n).Seconds(), "s-success")
	b.ReportMetric(ms(pre/n), "ms/preflight")
	b.ReportMetric(ms(exec/n), "ms/start-exec")
	b.ReportMetric(ms(send/n), "ms/send")
	if worst > x200TargetBlocks {
		b.Fatalf("a call was mined %d blocks after the payments' confirmation (target: within %d)", worst, x200TargetBlocks)
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// x200Round runs one round on a new chain and store; the timer runs from the confirming
// block's arrival to the last SUCCESS.
func x200Round(b *testing.B, round string, store *sqlstore.Store) x200Result {
	e := newX200Env(b, store, x200Node{blockTime: time.Second})
	defer e.close()
	ctx := b.Context()

	orders := e.processingOrders(b)
	probe := &x200Probe{ops: map[string]*x200Op{}, sentNonces: map[uint64]bool{}, finished: map[string]bool{}, want: len(orders), done: make(chan struct{})}
	client, _ := e.nets.Client(e.net.Name) // the app's executor gets the same client, and batches through it as here
	timed := &x200Store{Store: store, p: probe}
	x := chainwork.NewExecutor(chainwork.ExecutorConfig{}, timed, contract.NewRegistry(contract.RegistryConfig{}, timed, e.nets, nil), e.net,
		&x200Client{BatchingClient: chain.NewBatchingClient(client, chain.BatchesInFlightRemote), p: probe}, &x200Signer{Signer: e.hot, p: probe},
		slog.New(slog.DiscardHandler), nil)
	xctx, stop := context.WithCancel(ctx)
	var running sync.WaitGroup
	running.Go(func() { x.Run(xctx, x200Poll) })
	defer func() { stop(); running.Wait() }()

	// Block H confirms the payments.
	prev, err := e.client.BlockNumber(ctx)
	if err != nil {
		b.Fatal(err)
	}
	h := prev
	for h == prev {
		time.Sleep(5 * time.Millisecond)
		if h, err = e.client.BlockNumber(ctx); err != nil {
			b.Fatal(err)
		}
	}
	start := time.Now()
	b.StartTimer()
	time.Sleep(x200Poll) // the watcher notices H
	for _, o := range orders {
		ts, err := store.OrderTransfers(ctx, o.ID)
		if err != nil || len(ts) != 1 {
			b.Fatalf("payments of %s: %v, %v", o.ID, ts, err)
		}
		if err := store.ConfirmTransfer(ctx, ts[0].Network, ts[0].TxHash, ts[0].LogIndex, time.Now().UTC().Truncate(time.Microsecond)); err != nil {
			b.Fatal(err)
		}
	}
	confirmed := time.Since(start)
	select {
	case <-probe.done:
	case <-time.After(x200Timeout):
		b.Fatalf("after %s, %d of %d orders are SUCCESS", x200Timeout, probe.finishedCount(), len(orders))
	}
	b.StopTimer()
	stop()
	running.Wait()

	// Every order SUCCESS, its call mined; one transaction per order; 200 tokens minted.
	res := x200Result{sent: probe.allSent.Sub(start), success: probe.allDone.Sub(start), successBlocks: probe.doneHead - h}
	perBlock := map[uint64]int{}
	var gasUsed uint64
	for _, o := range orders {
		got, err := store.Order(ctx, o.ID)
		if err != nil {
			b.Fatal(err)
		}
		if got.Status != rampway.StatusSuccess {
			b.Fatalf("order %s is %s (%s), want SUCCESS", o.ID, got.Status, got.FailureReason)
		}
		rec, err := e.client.TransactionReceipt(ctx, common.HexToHash(got.ExecutionTxHash))
		if err != nil || rec.Status != types.ReceiptStatusSuccessful {
			b.Fatalf("the call of %s: %v %+v", o.ID, err, rec)
		}
		d := rec.BlockNumber.Uint64() - h
		res.blocks = append(res.blocks, d)
		perBlock[d]++
		gasUsed += rec.GasUsed
	}
	nonce, err := e.client.NonceAt(ctx, e.hot.Address(), nil)
	if err != nil {
		b.Fatal(err)
	}
	if nonce != uint64(len(orders)) {
		b.Fatalf("the hot wallet's nonce is %d after %d orders, want one transaction each", nonce, len(orders))
	}
	if owned := e.owned(b, orders); owned != int64(len(orders)) {
		b.Fatalf("the recipients own %d tokens, want %d", owned, len(orders))
	}

	res.preflight, res.exec, res.send = probe.mean("eth_call"), probe.mean("StartExecution"), probe.mean("eth_sendRawTransaction batch")
	var dist []string
	for _, d := range slices.Sorted(maps.Keys(perBlock)) {
		dist = append(dist, fmt.Sprintf("H+%d: %d", d, perBlock[d]))
	}
	b.Logf("%s: %d orders DEPOSIT_SUCCESS %s after block H; executor batches %v; first sent after %s, all after %s (%d extra broadcasts); all SUCCESS after %s (head H+%d); calls mined %s; %d gas per mint",
		round, len(orders), confirmed.Round(time.Millisecond), probe.batches, probe.firstSent.Sub(start).Round(time.Millisecond),
		res.sent.Round(time.Millisecond), probe.sends()-len(orders),
		res.success.Round(time.Millisecond), res.successBlocks, strings.Join(dist, ", "), gasUsed/uint64(len(orders)))
	b.Logf("%s: executor calls (count × mean, max): %s", round, probe)
	return res
}

// x200Env is an auto-mining chain with a steady block every x200Node.blockTime, a store, the
// DemoNFT.mint function registered and a funded hot wallet.
type x200Env struct {
	chain  *devchain.Chain
	client *ethclient.Client // the benchmark's own: heartbeat and checks, never delayed
	nets   *chain.Networks   // the executor's: through proxy when the node is remote
	proxy  *rpcfault.Proxy   // nil for a node on loopback
	remote *x200Requests     // counts the requests through proxy
	store  *sqlstore.Store
	net    *rampway.Network
	reg    *contract.Registry
	hot    *chain.KeySigner
	mid    string
	mint   *rampway.ContractFunction

	stopBeat func()
	once     sync.Once
}

// x200Node is where the executor's node is: a dev chain mining a block every blockTime (at
// most; the heartbeat keeps them coming), reached directly or, with delay, through an
// rpcfault proxy that holds every request that long (a node that far away).
type x200Node struct {
	blockTime time.Duration
	delay     time.Duration
}

// x200Requests counts the HTTP requests that pass, and the JSON-RPC batches among them.
type x200Requests struct {
	h                 http.Handler
	requests, batches atomic.Int64
}

func (c *x200Requests) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	c.requests.Add(1)
	if body = bytes.TrimSpace(body); len(body) > 0 && body[0] == '[' {
		c.batches.Add(1)
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	c.h.ServeHTTP(w, r)
}

func newX200Env(b *testing.B, store *sqlstore.Store, node x200Node) *x200Env {
	b.Helper()
	ctx := b.Context()
	e := &x200Env{store: store, stopBeat: func() {}}
	b.Cleanup(e.close) // when a round fails; rounds close their env themselves
	deployer, _ := crypto.GenerateKey()
	hotKey, _ := crypto.GenerateKey()
	beatKey, _ := crypto.GenerateKey()
	e.hot = chain.NewKeySigner(hotKey)
	eth := func(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(1e18)) }
	var err error
	e.chain, err = devchain.Start(ctx, devchain.Config{RPCAddr: "127.0.0.1:0", Deployer: deployer, BlockTime: node.blockTime, Fund: []devchain.Funding{
		{Address: e.hot.Address(), Wei: eth(100)}, // 200 × 0.01 ETH plus gas
		{Address: crypto.PubkeyToAddress(beatKey.PublicKey), Wei: eth(1)},
	}})
	if err != nil {
		b.Fatal(err)
	}
	if e.client, err = ethclient.Dial(e.chain.RPCURL()); err != nil {
		b.Fatal(err)
	}
	devnet := e.chain.Network("devnet") // confirmations 1, as `rampway dev`
	if node.delay > 0 {
		e.proxy = rpcfault.New(e.chain.RPCURL())
		e.proxy.Set(rpcfault.Rule{Fault: rpcfault.Delay, Delay: node.delay})
		e.remote = &x200Requests{h: e.proxy}
		srv := httptest.NewServer(e.remote)
		b.Cleanup(srv.Close)
		devnet.RPCURLs = []string{srv.URL}
	}
	if e.nets, err = chain.Dial(ctx, []rampway.Network{devnet}); err != nil {
		b.Fatal(err)
	}
	e.net, _ = e.nets.Network("devnet")
	e.mid = storetest.NewMerchant(b, store).ID
	e.reg = contract.NewRegistry(contract.RegistryConfig{}, store, e.nets, nil)
	frag, err := contract.FunctionFragment(devchain.NFTABI(), "mint")
	if err != nil {
		b.Fatal(err)
	}
	if e.mint, err = e.reg.Register(ctx, e.mid, contract.RegisterParams{Network: "devnet", ContractAddress: e.chain.Contracts().NFT.Hex(),
		ABI: frag, DefaultGasLimit: 200_000, PayableSymbol: "ETH"}); err != nil {
		b.Fatal(err)
	}
	beatCtx, stopBeat := context.WithCancel(context.WithoutCancel(ctx))
	var beating sync.WaitGroup
	beating.Go(func() { e.heartbeat(beatCtx, beatKey) })
	e.stopBeat = func() { stopBeat(); beating.Wait() }
	return e
}

// close stops the heartbeat and closes the clients, the store and the chain; it is safe to
// call more than once.
func (e *x200Env) close() {
	e.once.Do(func() {
		e.stopBeat()
		if e.nets != nil {
			e.nets.Close()
		}
		if e.client != nil {
			e.client.Close()
		}
		e.store.Close()
		e.chain.Close()
	})
}

// heartbeat sends a 1 wei transfer every 200 ms: the dev chain mines only when transactions
// wait, so this keeps one block a second coming, as on a live network.
func (e *x200Env) heartbeat(ctx context.Context, key *ecdsa.PrivateKey) {
	from := crypto.PubkeyToAddress(key.PublicKey)
	signer := types.LatestSignerForChainID(e.chain.ChainID())
	var nonce uint64
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		head, err := e.client.HeaderByNumber(ctx, nil)
		if err != nil {
			continue
		}
		tip := big.NewInt(1e9)
		tx, err := types.SignNewTx(key, signer, &types.DynamicFeeTx{ChainID: e.chain.ChainID(), Nonce: nonce, GasTipCap: tip,
			GasFeeCap: new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip), Gas: 21_000, To: &from, Value: big.NewInt(1)})
		if err != nil {
			continue
		}
		if err := e.client.SendTransaction(ctx, tx); err != nil {
			nonce, _ = e.client.PendingNonceAt(ctx, from)
			continue
		}
		nonce++
	}
}

// processingOrders stores 200 orders of DemoNFT.mint, one token each to its own recipient,
// paid and waiting for their confirmation (DEPOSIT_PROCESSING).
func (e *x200Env) processingOrders(b *testing.B) []*rampway.Order {
	b.Helper()
	ctx := b.Context()
	asset, _ := e.net.Asset(e.mint.PayableSymbol)
	value := big.NewInt(devchain.NFTPriceWei)
	amount := new(big.Int).Add(value, big.NewInt(1000)) // the fees
	out := make([]*rampway.Order, *xOrders)
	for i := range out {
		to, _ := crypto.GenerateKey()
		args, _ := json.Marshal(map[string]any{"to": crypto.PubkeyToAddress(to.PublicKey).Hex(), "quantity": 1})
		key, _ := crypto.GenerateKey()
		now := time.Now().UTC().Truncate(time.Microsecond)
		idx, err := e.store.NextDepositIndex(ctx)
		if err != nil {
			b.Fatal(err)
		}
		o := &rampway.Order{ID: rampway.NewID(rampway.PrefixOrder, now), MerchantID: e.mid, Area: rampway.AreaMint, Status: rampway.StatusCreated,
			MerchantUserID: "u", MerchantRedirectURL: "https://x.example", Network: e.net.Name, Asset: asset,
			CryptoAmount: amount, CryptoReceived: new(big.Int), FunctionID: e.mint.ID, FunctionArgs: args, PaymentValue: value, GasLimit: e.mint.DefaultGasLimit,
			NetworkFee: big.NewInt(1000), ServiceFee: new(big.Int), DepositAddress: crypto.PubkeyToAddress(key.PublicKey), DepositIndex: idx,
			ExpiresAt: now.Add(time.Hour), CreatedAt: now, UpdatedAt: now}
		if err := e.store.CreateOrder(ctx, o); err != nil {
			b.Fatal(err)
		}
		storetest.Seen(b, e.store, o, amount) // DEPOSIT_PROCESSING
		out[i] = o
	}
	return out
}

// owned is the number of DemoNFT tokens the orders' recipients own.
func (e *x200Env) owned(b *testing.B, orders []*rampway.Order) int64 {
	b.Helper()
	nft := bindings.NewDemoNFT()
	inst := nft.Instance(e.client, e.chain.Contracts().NFT)
	var total int64
	for _, o := range orders {
		var args struct{ To string }
		if err := json.Unmarshal(o.FunctionArgs, &args); err != nil {
			b.Fatal(err)
		}
		n, err := bind.Call(inst, nil, nft.PackBalanceOf(common.HexToAddress(args.To)), nft.UnpackBalanceOf)
		if err != nil {
			b.Fatal(err)
		}
		total += n.Int64()
	}
	return total
}

// x200Probe times the executor's calls to the node, the store and the signer, and notes when
// the last call was sent and the last order settled.
type x200Probe struct {
	mu         sync.Mutex
	ops        map[string]*x200Op
	head       uint64 // the last head the executor read
	sentNonces map[uint64]bool
	sent       int // broadcasts accepted, replacements included
	firstSent  time.Time
	allSent    time.Time
	batches    []int // the sizes of the non-empty batches of paid orders the steps started
	finished   map[string]bool
	want       int
	allDone    time.Time
	doneHead   uint64
	done       chan struct{}
}

type x200Op struct {
	n          int
	total, max time.Duration
}

func (p *x200Probe) time(op string, start time.Time) {
	d := time.Since(start)
	p.mu.Lock()
	defer p.mu.Unlock()
	s, ok := p.ops[op]
	if !ok {
		s = &x200Op{}
		p.ops[op] = s
	}
	s.n++
	s.total += d
	s.max = max(s.max, d)
}

func (p *x200Probe) mean(op string) time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	s, ok := p.ops[op]
	if !ok || s.n == 0 {
		return 0
	}
	return s.total / time.Duration(s.n)
}

func (p *x200Probe) sends() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sent
}

func (p *x200Probe) finishedCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.finished)
}

// String lists the calls by total time, e.g. "StartExecution 200 × 2.1ms (max 9ms), ...".
func (p *x200Probe) String() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	names := slices.SortedFunc(maps.Keys(p.ops), func(a, b string) int { return cmp.Compare(p.ops[b].total, p.ops[a].total) })
	var parts []string
	for _, name := range names {
		s := p.ops[name]
		parts = append(parts, fmt.Sprintf("%s %d × %.2fms (max %.1fms)", name, s.n, ms(s.total/time.Duration(s.n)), ms(s.max)))
	}
	return strings.Join(parts, ", ")
}

// x200Client is the executor's node client, timed (a batch is timed as one call).
type x200Client struct {
	*chain.BatchingClient
	p *x200Probe
}

var (
	_ chainwork.ExecClient  = (*x200Client)(nil)
	_ chainwork.BatchClient = (*x200Client)(nil)
)

func (c *x200Client) BlockNumber(ctx context.Context) (uint64, error) {
	defer c.p.time("eth_blockNumber", time.Now())
	n, err := c.BatchingClient.BlockNumber(ctx)
	if err == nil {
		c.p.mu.Lock()
		c.p.head = n
		c.p.mu.Unlock()
	}
	return n, err
}

func (c *x200Client) HeaderByNumber(ctx context.Context, number *big.Int) (*types.Header, error) {
	defer c.p.time("eth_getBlockByNumber", time.Now())
	return c.BatchingClient.HeaderByNumber(ctx, number)
}

func (c *x200Client) SuggestGasTipCap(ctx context.Context) (*big.Int, error) {
	defer c.p.time("eth_maxPriorityFeePerGas", time.Now())
	return c.BatchingClient.SuggestGasTipCap(ctx)
}

func (c *x200Client) PendingNonceAt(ctx context.Context, account common.Address) (uint64, error) {
	defer c.p.time("eth_getTransactionCount", time.Now())
	return c.BatchingClient.PendingNonceAt(ctx, account)
}

func (c *x200Client) BalanceAt(ctx context.Context, account common.Address, block *big.Int) (*big.Int, error) {
	defer c.p.time("eth_getBalance", time.Now())
	return c.BatchingClient.BalanceAt(ctx, account, block)
}

func (c *x200Client) CallContract(ctx context.Context, msg ethereum.CallMsg, block *big.Int) ([]byte, error) {
	defer c.p.time("eth_call", time.Now())
	return c.BatchingClient.CallContract(ctx, msg, block)
}

func (c *x200Client) TransactionReceipt(ctx context.Context, hash common.Hash) (*types.Receipt, error) {
	defer c.p.time("eth_getTransactionReceipt", time.Now())
	return c.BatchingClient.TransactionReceipt(ctx, hash)
}

func (c *x200Client) TransactionReceipts(ctx context.Context, hashes []common.Hash) ([]*types.Receipt, []error) {
	defer c.p.time("eth_getTransactionReceipt batch", time.Now())
	return c.BatchingClient.TransactionReceipts(ctx, hashes)
}

func (c *x200Client) SendTransaction(ctx context.Context, tx *types.Transaction) error {
	defer c.p.time("eth_sendRawTransaction", time.Now())
	err := c.BatchingClient.SendTransaction(ctx, tx)
	if err == nil {
		c.p.sentTx(tx)
	}
	return err
}

func (c *x200Client) SendTransactions(ctx context.Context, txs []*types.Transaction) []error {
	defer c.p.time("eth_sendRawTransaction batch", time.Now())
	errs := c.BatchingClient.SendTransactions(ctx, txs)
	for i, err := range errs {
		if err == nil {
			c.p.sentTx(txs[i])
		}
	}
	return errs
}

// sentTx notes a transaction the node took.
func (p *x200Probe) sentTx(tx *types.Transaction) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sent++
	if p.firstSent.IsZero() {
		p.firstSent = time.Now()
	}
	p.sentNonces[tx.Nonce()] = true
	if len(p.sentNonces) == p.want && p.allSent.IsZero() {
		p.allSent = time.Now()
	}
}

// x200Store is the executor's (and the registry's) store, timed.
type x200Store struct {
	*sqlstore.Store
	p *x200Probe
}

var _ chainwork.ExecutorStore = (*x200Store)(nil)

func (s *x200Store) PaidOrders(ctx context.Context, network string, limit int) ([]*rampway.Order, error) {
	defer s.p.time("PaidOrders", time.Now())
	orders, err := s.Store.PaidOrders(ctx, network, limit)
	if len(orders) > 0 {
		s.p.mu.Lock()
		s.p.batches = append(s.p.batches, len(orders))
		s.p.mu.Unlock()
	}
	return orders, err
}

func (s *x200Store) PendingTxs(ctx context.Context, network string) ([]*rampway.ChainTx, error) {
	defer s.p.time("PendingTxs", time.Now())
	return s.Store.PendingTxs(ctx, network)
}

func (s *x200Store) ContractFunction(ctx context.Context, id string) (*rampway.ContractFunction, error) {
	defer s.p.time("ContractFunction", time.Now())
	return s.Store.ContractFunction(ctx, id)
}

func (s *x200Store) StartExecution(ctx context.Context, orderID, network string, wallet common.Address, chainNonce uint64,
	sign func(uint64) ([]*rampway.ChainTx, error), at time.Time) (*rampway.Execution, error) {
	defer s.p.time("StartExecution", time.Now())
	return s.Store.StartExecution(ctx, orderID, network, wallet, chainNonce, sign, at)
}

func (s *x200Store) Execution(ctx context.Context, orderID string) (*rampway.Execution, []*rampway.ChainTx, error) {
	defer s.p.time("Execution", time.Now())
	return s.Store.Execution(ctx, orderID)
}

func (s *x200Store) FinishExecution(ctx context.Context, orderID string, m rampway.MinedTx, reason string, at time.Time) error {
	defer s.p.time("FinishExecution", time.Now())
	err := s.Store.FinishExecution(ctx, orderID, m, reason, at)
	if err == nil && m.OK {
		s.p.mu.Lock()
		s.p.finished[orderID] = true
		if len(s.p.finished) == s.p.want && s.p.allDone.IsZero() {
			s.p.allDone, s.p.doneHead = time.Now(), s.p.head
			close(s.p.done)
		}
		s.p.mu.Unlock()
	}
	return err
}

// x200Signer is the hot wallet, timed.
type x200Signer struct {
	rampway.Signer
	p *x200Probe
}

func (s *x200Signer) SignTx(ctx context.Context, tx *types.Transaction, chainID *big.Int) (*types.Transaction, error) {
	defer s.p.time("SignTx", time.Now())
	return s.Signer.SignTx(ctx, tx, chainID)
}
