package chainwork_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain/devchain"
	"github.com/rampway/rampway/chain/devchain/bindings"
	"github.com/rampway/rampway/chain/devchain/devchaintest"
	"github.com/rampway/rampway/chainwork"
	"github.com/rampway/rampway/internal/sqlstore"
	"github.com/rampway/rampway/storetest"
)

// BenchmarkWatcherRPC counts the JSON-RPC requests the deposit watcher sends per block with
// 1, 1,000 and 100,000 open orders. The target (docs/BENCHMARKS.md) is the same count at every
// size: the watcher reads each block once and queries its token logs once, whatever the number
// of orders. It fails when the sizes differ.
//
// Each op is one block holding three payments (two native, one DUSD transfer) to open orders,
// mined untimed, then one Step of the watcher, timed. The orders are real rows, stored through
// the store's CreateOrder from 4 goroutines (the 100,000 take 20 s to a minute on SQLite here,
// logged as "setup"), and every size checks that the store's WatchedDeposits returns exactly
// that many. Payments are 1 wei or 1 DUSD unit, so paid orders stay UNDERPAID and watched.
//
//	go test -run='^$' -bench=WatcherRPC -benchtime=20x ./chainwork
//
// Metrics: rpc/block counts the HTTP requests reaching the node (every JSON-RPC call of the
// watcher's client); ns/op is the Step time per block (payments and mining are not timed).
func BenchmarkWatcherRPC(b *testing.B) {
	env := newWatchBenchEnv(b)
	perBlock := map[int]float64{}
	for _, n := range []int{1, 1_000, 100_000} {
		b.Run(fmt.Sprintf("orders=%d", n), func(b *testing.B) {
			env.grow(b, n) // once per size: the b.N rounds of a size share the orders
			calls, methods := env.run(b)
			v := float64(calls) / float64(b.N)
			perBlock[n] = v
			b.ReportMetric(v, "rpc/block")
			b.Logf("%d open orders, %d blocks: %s", n, b.N, methods)
		})
	}
	var sizes []int
	for n := range perBlock {
		sizes = append(sizes, n)
	}
	sort.Ints(sizes)
	for _, n := range sizes[min(1, len(sizes)):] {
		if math.Abs(perBlock[n]-perBlock[sizes[0]]) > 1e-9 {
			b.Fatalf("RPC calls per block differ with the number of open orders: %.3f with %d, %.3f with %d (target: the same count)",
				perBlock[sizes[0]], sizes[0], perBlock[n], n)
		}
	}
}

// watchBenchEnv is a chain, a store and a watcher whose node client is counted.
type watchBenchEnv struct {
	chain   *devchain.Chain
	send    *ethclient.Client // the payer's, not counted
	store   *sqlstore.Store
	net     rampway.Network
	payer   *ecdsa.PrivateKey
	nonce   uint64
	mid     string
	watcher *chainwork.Watcher
	rpc     *watchBenchTransport
	node    *rpc.Client // the watcher's, counted
	// forward, when set, adds a payment forwarded by Multicall3 (an internal transfer) to
	// each block.
	forward bool

	native, token []*rampway.Order // open orders by asset, in creation order
	next          int              // round-robin position of the next payments
}

func newWatchBenchEnv(b *testing.B) *watchBenchEnv { return newWatchBenchEnvVia(b, false) }

// newWatchBenchEnvVia is newWatchBenchEnv whose watcher reaches the node through proxy, when
// set: an HTTP server of the benchmark's own that serves every namespace of the chain's
// in-process client (the debug one too, which the chain's own HTTP endpoint does not), so that
// the watcher traces over HTTP as it does against a node with tracing.
func newWatchBenchEnvVia(b *testing.B, proxy bool) *watchBenchEnv {
	payer, _ := crypto.GenerateKey()
	hundredETH := new(big.Int).Mul(big.NewInt(100), big.NewInt(1e18))
	c := devchaintest.Start(b, devchain.Funding{Address: crypto.PubkeyToAddress(payer.PublicKey), Wei: hundredETH, TokenUnits: big.NewInt(1e12)})
	send, err := ethclient.Dial(c.RPCURL())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(send.Close)
	// The watcher's client goes through a transport that counts the HTTP requests: each is one
	// JSON-RPC call (ethclient does not batch), so nothing the watcher asks escapes the count,
	// whatever methods its WatchClient has.
	ht := &watchBenchTransport{next: http.DefaultTransport, calls: map[string]int64{}}
	url := c.RPCURL()
	if proxy {
		srv := httptest.NewServer(rpcProxy(c.RPC()))
		b.Cleanup(srv.Close)
		url = srv.URL
	}
	rc, err := rpc.DialOptions(b.Context(), url, rpc.WithHTTPClient(&http.Client{Transport: ht}))
	if err != nil {
		b.Fatal(err)
	}
	wc := ethclient.NewClient(rc)
	b.Cleanup(wc.Close)
	store := storetest.OpenSQLite(b)
	m := storetest.NewMerchant(b, store)
	net := c.Network("devnet")
	net.Confirmations = 2
	e := &watchBenchEnv{chain: c, send: send, store: store, net: net, payer: payer, mid: m.ID, rpc: ht, node: rc}
	e.watcher = mustWatcher(b, chainwork.WatcherConfig{}, store, &e.net, wc, slog.New(slog.DiscardHandler), nil)
	if err := e.watcher.Step(b.Context()); err != nil { // starts at the head
		b.Fatal(err)
	}
	return e
}

// grow stores open orders until there are n (every fourth in DUSD, the rest in ETH) and checks
// that the watcher's store query returns exactly n.
func (e *watchBenchEnv) grow(b *testing.B, n int) {
	have := len(e.native) + len(e.token)
	if have < n {
		start := time.Now()
		orders := e.createOrders(b, have, n-have)
		for _, o := range orders {
			if o.Asset.IsNative() {
				e.native = append(e.native, o)
			} else {
				e.token = append(e.token, o)
			}
		}
		d := time.Since(start)
		b.Logf("setup: stored %d orders through CreateOrder in %s (%.0f orders/s)", n-have, d.Round(time.Millisecond), float64(n-have)/d.Seconds())
	}
	watched, err := e.store.WatchedDeposits(b.Context(), e.net.Name, time.Now().Add(-24*time.Hour))
	if err != nil {
		b.Fatal(err)
	}
	if len(watched) != n {
		b.Fatalf("the store watches %d orders, want %d", len(watched), n)
	}
	b.ResetTimer()
}

// createOrders stores count orders, numbered from first, through the store's CreateOrder from
// a few goroutines (SQLite takes one writer at a time; the others prepare their next order).
func (e *watchBenchEnv) createOrders(b *testing.B, first, count int) []*rampway.Order {
	out := make([]*rampway.Order, count)
	ctx := b.Context()
	var wg sync.WaitGroup
	var failed atomic.Pointer[error]
	const workers = 4
	for w := range workers {
		wg.Go(func() {
			for i := w; i < count && failed.Load() == nil; i += workers {
				num := first + i
				asset, amount := e.net.Native, big.NewInt(1e16)
				if num%4 == 3 {
					asset, amount = e.net.Tokens[0], big.NewInt(10_000_000)
				}
				var addr common.Address
				_, _ = rand.Read(addr[:])
				now := time.Now().UTC().Truncate(time.Microsecond) // each order its own time, as CreateMintOrder gives
				o := &rampway.Order{ID: rampway.NewID(rampway.PrefixOrder, now), MerchantID: e.mid, Area: rampway.AreaMint, Status: rampway.StatusCreated,
					MerchantUserID: "u", MerchantTxnID: fmt.Sprintf("bench-%d", num), MerchantRedirectURL: "https://x.example", Network: e.net.Name, Asset: asset,
					CryptoAmount: amount, CryptoReceived: new(big.Int), PaymentValue: new(big.Int), NetworkFee: new(big.Int), ServiceFee: new(big.Int),
					DepositAddress: addr, DepositIndex: uint32(num), ExpiresAt: now.Add(24 * time.Hour), CreatedAt: now, UpdatedAt: now}
				if err := e.store.CreateOrder(ctx, o); err != nil {
					failed.Store(&err)
					return
				}
				out[i] = o
			}
		})
	}
	wg.Wait()
	if err := failed.Load(); err != nil {
		b.Fatal(*err)
	}
	return out
}

// run mines b.N blocks with payments and steps the watcher once per block; it returns the
// node calls of the steps and their split by method.
func (e *watchBenchEnv) run(b *testing.B) (int64, string) {
	ctx := b.Context()
	e.rpc.reset()
	for range b.N {
		b.StopTimer()
		e.payments(b)
		if _, err := e.chain.Mine(); err != nil {
			b.Fatal(err)
		}
		head, err := e.send.BlockNumber(ctx)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if err := e.watcher.Step(ctx); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		// One step per block: the step scanned exactly the new block.
		if cur, _, _, err := e.store.WatchCursor(ctx, e.net.Name); err != nil || cur != head {
			b.Fatalf("after the step the watch cursor is at %d (%v), the head at %d", cur, err, head)
		}
		b.StartTimer()
	}
	b.StopTimer()
	return e.rpc.total()
}

// payments sends the next block's payments: 1 wei to two ETH orders and 1 DUSD unit to a DUSD
// order (to the ETH order when there is none: a transfer the watcher must ignore).
func (e *watchBenchEnv) payments(b *testing.B) {
	ctx := context.Background()
	pick := func(list []*rampway.Order) *rampway.Order {
		if len(list) == 0 {
			return e.native[0]
		}
		return list[e.next%len(list)]
	}
	a, c := pick(e.native), pick(e.token)
	e.next++
	d := pick(e.native)
	e.next++
	if e.forward {
		f := pick(e.native)
		e.next++
		data := bindings.NewMulticall3().PackAggregate3Value([]bindings.Multicall3Call3Value{{Target: f.DepositAddress, Value: big.NewInt(1)}})
		tx := devchaintest.SignTx(b, e.send, e.chain.ChainID(), e.payer, e.nonce, e.chain.Contracts().Multicall, big.NewInt(1), data, 200_000)
		e.nonce++
		if err := e.send.SendTransaction(ctx, tx); err != nil {
			b.Fatal(err)
		}
	}
	for _, p := range []struct {
		to    *rampway.Order
		token bool
	}{{a, false}, {d, false}, {c, true}} {
		to, value, data, gas := p.to.DepositAddress, big.NewInt(1), []byte(nil), uint64(21_000)
		if p.token {
			to, value, gas = e.net.Tokens[0].Contract, nil, 100_000
			data = append(crypto.Keccak256([]byte("transfer(address,uint256)"))[:4],
				append(common.LeftPadBytes(p.to.DepositAddress.Bytes(), 32), common.LeftPadBytes(big.NewInt(1).Bytes(), 32)...)...)
		}
		tx := devchaintest.SignTx(b, e.send, e.chain.ChainID(), e.payer, e.nonce, to, value, data, gas)
		e.nonce++
		if err := e.send.SendTransaction(ctx, tx); err != nil {
			b.Fatal(err)
		}
	}
}

// watchBenchTransport counts the HTTP requests a client sends (each one JSON-RPC call:
// ethclient does not batch), by JSON-RPC method.
type watchBenchTransport struct {
	next  http.RoundTripper
	mu    sync.Mutex
	calls map[string]int64
}

func (t *watchBenchTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	method := "unknown"
	if r.GetBody != nil { // go-ethereum's client sets it
		if body, err := r.GetBody(); err == nil {
			head := make([]byte, 200)
			n, _ := io.ReadFull(body, head)
			if _, rest, ok := bytes.Cut(head[:n], []byte(`"method":"`)); ok {
				if m, _, ok := bytes.Cut(rest, []byte(`"`)); ok {
					method = string(m)
				}
			}
		}
	}
	t.mu.Lock()
	t.calls[method]++
	t.mu.Unlock()
	return t.next.RoundTrip(r)
}

func (t *watchBenchTransport) reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	clear(t.calls)
}

// total returns the calls and their split by method, e.g. "eth_blockNumber 20, ...".
func (t *watchBenchTransport) total() (int64, string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var n int64
	var parts []string
	for m, c := range t.calls {
		n += c
		parts = append(parts, fmt.Sprintf("%s %d", m, c))
	}
	sort.Strings(parts)
	return n, strings.Join(parts, ", ")
}

// BenchmarkWatcherInternalRPC is BenchmarkWatcherRPC with internal transfers watched, by
// tracing (one debug_traceBlockByHash per block) and by balances (Multicall3 aggregate3 of
// getEthBalance, at most 1,000 addresses per eth_call), with 1, 1,000 and 100,000 open orders.
// The targets (docs/BENCHMARKS.md): tracing, the same count at every size; balances, at most
// one call per 1,000 open native deposit addresses (one in four orders is in DUSD: 750 and
// 75,000 native addresses) beyond the block scan's calls. It fails when they are missed.
//
// Each op is one block holding the three top-level payments of BenchmarkWatcherRPC and a
// fourth forwarded by Multicall3's aggregate3Value (1 wei, an internal transfer), mined
// untimed, then one Step of the watcher, timed. Both modes run on the same chain, store and
// orders, one watcher each; a mode's first step after the other's (untimed) starts its
// balances afresh.
//
//	go test -run='^$' -bench=WatcherInternalRPC -benchtime=20x ./chainwork
//
// Metrics: rpc/block as in BenchmarkWatcherRPC, eth_call/block the balance checks' share;
// ns/op is the Step time per block. The watcher reaches the chain through a proxy of the
// benchmark's own (newWatchBenchEnvVia): every call is an HTTP request, counted.
func BenchmarkWatcherInternalRPC(b *testing.B) {
	env := newWatchBenchEnvVia(b, true)
	env.forward = true
	watchers := map[chainwork.InternalMode]*chainwork.Watcher{}
	for _, mode := range []chainwork.InternalMode{chainwork.InternalTrace, chainwork.InternalBalance} {
		watchers[mode] = mustWatcher(b, chainwork.WatcherConfig{Internal: chainwork.InternalTransfers{Mode: mode, Node: env.node, Multicall3: env.chain.Contracts().Multicall}},
			env.store, &env.net, ethclient.NewClient(env.node), slog.New(slog.DiscardHandler), nil)
	}
	perBlock := map[chainwork.InternalMode]map[int]float64{chainwork.InternalTrace: {}, chainwork.InternalBalance: {}}
	for _, n := range []int{1, 1_000, 100_000} {
		for _, mode := range []chainwork.InternalMode{chainwork.InternalTrace, chainwork.InternalBalance} {
			b.Run(fmt.Sprintf("mode=%s/orders=%d", mode, n), func(b *testing.B) {
				env.grow(b, n)
				env.watcher = watchers[mode]
				b.StopTimer()
				if _, err := env.chain.Mine(); err != nil { // an empty block: the mode's first step, untimed
					b.Fatal(err)
				}
				if err := env.watcher.Step(b.Context()); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				calls, methods := env.run(b)
				v := float64(calls) / float64(b.N)
				perBlock[mode][n] = v
				b.ReportMetric(v, "rpc/block")
				b.ReportMetric(float64(env.rpc.count("eth_call"))/float64(b.N), "eth_call/block")
				b.Logf("%s, %d open orders (%d native), %d blocks: %s", mode, n, len(env.native), b.N, methods)
				if mode == chainwork.InternalBalance {
					want := float64((len(env.native) + 999) / 1000)
					if got := float64(env.rpc.count("eth_call")) / float64(b.N); got > want {
						b.Fatalf("%.2f eth_calls per block for %d native addresses (target: at most one per 1,000, %.0f)", got, len(env.native), want)
					}
				}
			})
		}
	}
	trace := perBlock[chainwork.InternalTrace]
	var sizes []int
	for n := range trace {
		sizes = append(sizes, n)
	}
	sort.Ints(sizes)
	for _, n := range sizes[min(1, len(sizes)):] {
		if math.Abs(trace[n]-trace[sizes[0]]) > 1e-9 {
			b.Fatalf("traced: RPC calls per block differ with the number of open orders: %.3f with %d, %.3f with %d (target: the same count)",
				trace[sizes[0]], sizes[0], trace[n], n)
		}
	}
}

// rpcProxy serves single JSON-RPC requests over HTTP from rc, an in-process client.
func rpcProxy(rc *rpc.Client) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage   `json:"id"`
			Method string            `json:"method"`
			Params []json.RawMessage `json:"params"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		args := make([]any, len(req.Params))
		for i, p := range req.Params {
			args[i] = p
		}
		resp := map[string]any{"jsonrpc": "2.0", "id": req.ID}
		var result json.RawMessage
		if err := rc.CallContext(r.Context(), &result, req.Method, args...); err != nil {
			code := -32000
			var re rpc.Error
			if errors.As(err, &re) {
				code = re.ErrorCode()
			}
			resp["error"] = map[string]any{"code": code, "message": err.Error()}
		} else {
			resp["result"] = result
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(resp)
	})
}

// count returns the calls of one method since the last reset.
func (t *watchBenchTransport) count(method string) int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.calls[method]
}
