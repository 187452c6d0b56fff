//go:build e2e

// Package e2e runs rampway as production runs it, end to end, with real parts only: go-ethereum's
// own node (geth --dev) in its own process, PostgreSQL, two or three `rampway serve` processes
// sharing them, the fault-injecting JSON-RPC proxy (chain/rpcfault) between rampway and the
// node, real payments from users' accounts and a webhook receiver that verifies every delivery.
// One instance is SIGKILLed at random moments and restarted, in a loop, while orders are made,
// paid and executed. `make e2e` runs it (500 orders a scenario); `.ci/run` runs its short form
// (`make e2e E2E_ORDERS=60`). Each scenario prints one summary line starting with "E2E".
//
// The build tag keeps it out of `go test ./...`: it is a run of minutes, not a unit test.
package e2e

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/big"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain/devchain"
	"github.com/rampway/rampway/chain/devchain/bindings"
	"github.com/rampway/rampway/chain/gethtest"
	"github.com/rampway/rampway/chain/hd"
	"github.com/rampway/rampway/chain/rpcfault"
	"github.com/rampway/rampway/client"
	"github.com/rampway/rampway/contract"
	"github.com/rampway/rampway/internal/pgtest"
)

var (
	ordersFlag = flag.Int("orders", 500, "orders per scenario")
	onlyFlag   = flag.String("scenarios", "", "comma-separated scenario names to run (default: all)")
	rateFlag   = flag.Int("rate", 10, "orders created per second")
	logsFlag   = flag.String("logs", "", "directory to keep each rampway process's output in (default: a temporary one)")
)

const (
	adminToken = "dev-admin-token-0123456789abcdef0123"
	hashSecret = "dev-hash-secret-0123456789abcdef0123"
	payers     = 8
	// terminalWithin is the bound: every order terminal within 10 minutes.
	terminalWithin = 10 * time.Minute
)

// scenario is one run: a fresh database, hot wallet and deposit seed, its instances, its faults.
type scenario struct {
	name      string
	instances int
	kills     bool            // SIGKILL an instance at random moments and restart it, in a loop
	faults    []rpcfault.Rule // on both proxies, from the first order on
	killURL   bool            // the first RPC URL's proxy stops answering when half the orders are paid
}

var scenarios = []scenario{
	{name: "kills", instances: 3, kills: true},
	{name: "faults", instances: 3, kills: true, faults: []rpcfault.Rule{
		{Fault: rpcfault.Drop, Method: "eth_sendRawTransaction", Every: 4},
		{Fault: rpcfault.TooMany, Every: 13, RetryAfter: time.Second},
		{Fault: rpcfault.ServerError, Every: 17, Status: 502},
		{Fault: rpcfault.StaleHead, Method: "eth_blockNumber", Every: 3, Blocks: 2},
		{Fault: rpcfault.Delay, Every: 5, Delay: 50 * time.Millisecond},
		{Fault: rpcfault.Reorder, Every: 2},
	}},
	{name: "failover", instances: 2, kills: true, killURL: true},
}

// TestEndToEnd runs every scenario against one geth node with the demo contracts deployed.
func TestEndToEnd(t *testing.T) {
	if os.Getenv(pgtest.EnvDSN) == "" {
		t.Fatalf("%s must name the PostgreSQL server (make e2e sets it)", pgtest.EnvDSN)
	}
	env := newChainEnv(t)
	bin := filepath.Join(t.TempDir(), "rampway")
	build := exec.Command("go", "build", "-o", bin, "../cmd/rampway")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	logs := *logsFlag
	if logs == "" {
		logs = t.TempDir()
	}
	var only []string
	if *onlyFlag != "" {
		only = strings.Split(*onlyFlag, ",")
	}
	for i, sc := range scenarios {
		if only != nil && !slices.Contains(only, sc.name) {
			continue
		}
		t.Run(sc.name, func(t *testing.T) {
			r := &run{t: t, sc: sc, env: env, bin: bin, n: *ordersFlag, index: i, logs: filepath.Join(logs, sc.name)}
			r.do()
		})
	}
}

// chainEnv is the node and the demo contracts every scenario shares.
type chainEnv struct {
	node    *gethtest.Node
	raw     *rpc.Client
	c       *ethclient.Client
	chainID *big.Int
	nft     common.Address
	mintABI json.RawMessage
}

func newChainEnv(t *testing.T) *chainEnv {
	node := gethtest.Start(t, time.Second)
	raw, err := rpc.Dial(node.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(raw.Close)
	e := &chainEnv{node: node, raw: raw, c: ethclient.NewClient(raw)}
	if e.chainID, err = e.c.ChainID(t.Context()); err != nil {
		t.Fatal(err)
	}
	deployer, _ := crypto.GenerateKey()
	e.fund(t, map[common.Address]*big.Int{crypto.PubkeyToAddress(deployer.PublicKey): ether(100)})
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cs, err := devchain.DeployTo(ctx, e.c, e.chainID, deployer, nil)
	if err != nil {
		t.Fatalf("deploy the demo contracts: %v", err)
	}
	e.nft = cs.NFT
	if e.mintABI, err = contract.FunctionFragment(devchain.NFTABI(), "mint"); err != nil {
		t.Fatal(err)
	}
	return e
}

func ether(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(1e18)) }

// fund sends each address its amount from the node's developer account and waits until they
// are mined.
func (e *chainEnv) fund(t *testing.T, to map[common.Address]*big.Int) {
	t.Helper()
	// One funding at a time (the scenarios run at once), each transaction with its nonce given:
	// geth --dev's own nonce for eth_sendTransaction is the pool's, which can lag behind a
	// transaction just sent, and two got one nonce ("replacement transaction underpriced",
	// seen in CI). The lock is held until they are mined, so the next funding reads past them.
	fundMu.Lock()
	defer fundMu.Unlock()
	nonce, err := e.c.PendingNonceAt(t.Context(), e.node.Dev)
	if err != nil {
		t.Fatal(err)
	}
	var hashes []common.Hash
	for a, v := range to {
		var h common.Hash
		if err := e.raw.CallContext(t.Context(), &h, "eth_sendTransaction", map[string]any{"from": e.node.Dev, "to": a, "value": hexutil.EncodeBig(v),
			"nonce": hexutil.EncodeUint64(nonce)}); err != nil {
			t.Fatalf("fund %s: %v", a.Hex(), err)
		}
		nonce++
		hashes = append(hashes, h)
	}
	for _, h := range hashes {
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
			if r, err := e.c.TransactionReceipt(t.Context(), h); err == nil && r.Status == 1 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("funding %s not mined", h.Hex())
			}
		}
	}
}

// fundMu makes the scenarios' fundings one at a time (chainEnv.fund).
var fundMu sync.Mutex

// run is one scenario's state.
type run struct {
	t     *testing.T
	sc    scenario
	env   *chainEnv
	bin   string
	n     int
	index int
	logs  string

	cfgPath      string
	hotKey       *ecdsa.PrivateKey
	hot          common.Address
	db           *sql.DB
	proxies      []*rpcfault.Proxy
	proxySrv     []*httptest.Server
	proxyHit     []*atomic.Int64 // requests each proxy received
	hitAtURLKill [2]int64

	mu       sync.Mutex
	procs    []*proc
	kills    int
	restarts int

	apiKey, merchantID, functionID string
	merchant                       *client.Client
	hooks                          *receiver
	http                           *http.Client
	startBlock                     uint64
}

// proc is one `rampway serve` process (one slot; a restart replaces the process in it).
type proc struct {
	slot int
	cmd  *exec.Cmd
	base string
	done chan struct{}
	log  *os.File
}

var listening = regexp.MustCompile(`"msg":"listening","addr":"([^"]+)"`)

func (r *run) do() {
	t := r.t
	started := time.Now()
	if err := os.MkdirAll(r.logs, 0o755); err != nil {
		t.Fatal(err)
	}
	r.http = &http.Client{Timeout: 15 * time.Second}
	r.hotKey, _ = crypto.GenerateKey()
	r.hot = crypto.PubkeyToAddress(r.hotKey.PublicKey)
	payerKeys := make([]*ecdsa.PrivateKey, payers)
	funding := map[common.Address]*big.Int{r.hot: ether(1000)}
	for i := range payerKeys {
		payerKeys[i], _ = crypto.GenerateKey()
		funding[crypto.PubkeyToAddress(payerKeys[i].PublicKey)] = ether(100)
	}
	r.env.fund(t, funding)
	var err error
	if r.startBlock, err = r.env.c.BlockNumber(t.Context()); err != nil {
		t.Fatal(err)
	}

	dsn := pgtest.FreshDSN(t)
	if r.db, err = sql.Open("pgx", dsn); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.db.Close() })
	// Two proxies in front of the one node: the network's two RPC URLs.
	for range 2 {
		p := rpcfault.New(r.env.node.URL)
		hits := &atomic.Int64{}
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			hits.Add(1)
			p.ServeHTTP(w, req)
		}))
		t.Cleanup(s.Close)
		r.proxies, r.proxySrv, r.proxyHit = append(r.proxies, p), append(r.proxySrv, s), append(r.proxyHit, hits)
	}
	r.writeConfig(dsn)
	for i := range r.sc.instances {
		r.start(i)
	}
	t.Cleanup(r.stopAll)
	r.onboard()

	// The faults start with the orders: onboarding is an operator's, retried by hand.
	for _, p := range r.proxies {
		p.Set(r.sc.faults...)
	}

	orders := make([]*order, r.n)
	for i := range orders {
		orders[i] = &order{i: i, recipient: recipient(r.index, i)}
	}
	stop := make(chan struct{})
	var bg sync.WaitGroup
	if r.sc.kills {
		bg.Go(func() { r.killLoop(stop) })
	}
	// Orders are created by 8 clients spread over the instances, each paid by one of the
	// payers as soon as it exists.
	toPay := make(chan *order, r.n)
	var created atomic.Int64
	var makers sync.WaitGroup
	// Orders come at a steady rate, so the kills land at every stage of their lives.
	next := make(chan *order)
	go func() {
		defer close(next)
		tick := time.NewTicker(time.Second / time.Duration(*rateFlag))
		defer tick.Stop()
		for _, o := range orders {
			<-tick.C
			next <- o
		}
	}()
	for range 8 {
		makers.Go(func() {
			for o := range next {
				if err := r.create(o); err != nil {
					t.Errorf("%s: create order %d: %v", r.sc.name, o.i, err)
					return
				}
				created.Add(1)
				toPay <- o
			}
		})
	}
	go func() { makers.Wait(); close(toPay) }()
	var paid atomic.Int64
	var urlKilled atomic.Bool
	var payersWG sync.WaitGroup
	for _, k := range payerKeys {
		payersWG.Go(func() {
			from := crypto.PubkeyToAddress(k.PublicKey)
			nonce, err := r.env.c.PendingNonceAt(context.Background(), from)
			if err != nil {
				t.Errorf("payer nonce: %v", err)
				return
			}
			signer := types.LatestSignerForChainID(r.env.chainID)
			for o := range toPay {
				tx, err := types.SignNewTx(k, signer, &types.DynamicFeeTx{ChainID: r.env.chainID, Nonce: nonce, To: &o.deposit,
					Value: o.amount, Gas: 21_000, GasTipCap: big.NewInt(1e9), GasFeeCap: big.NewInt(100e9)})
				if err != nil {
					t.Errorf("sign: %v", err)
					return
				}
				// The user's wallet talks to its own node, not through rampway's proxies.
				if err := r.env.c.SendTransaction(context.Background(), tx); err != nil {
					t.Errorf("pay order %s: %v", o.id, err)
					return
				}
				nonce++
				o.paidAt = time.Now()
				if paid.Add(1) == int64(r.n/2) && r.sc.killURL && urlKilled.CompareAndSwap(false, true) {
					// The first RPC URL's node goes away: connections refused from now on.
					r.hitAtURLKill = [2]int64{r.proxyHit[0].Load(), r.proxyHit[1].Load()}
					r.proxySrv[0].CloseClientConnections()
					r.proxySrv[0].Listener.Close()
					t.Logf("%s: the first RPC URL stopped answering after %d payments", r.sc.name, r.n/2)
				}
			}
		})
	}
	payersWG.Wait()
	if t.Failed() {
		close(stop)
		bg.Wait()
		t.FailNow()
	}
	allPaid := time.Now()

	// Every order terminal within the bound.
	var counts map[string]int
	deadline := started.Add(terminalWithin)
	for {
		counts = r.statusCounts()
		terminal := 0
		for s, n := range counts {
			if rampway.OrderStatus(s).Terminal() {
				terminal += n
			}
		}
		if terminal == r.n {
			break
		}
		if time.Now().After(deadline) {
			close(stop)
			bg.Wait()
			t.Fatalf("%s: not every order terminal within %v of the start: %v\n%s", r.sc.name, terminalWithin, counts, r.tails())
		}
		time.Sleep(500 * time.Millisecond)
	}
	allDone := time.Now()
	close(stop)
	bg.Wait()
	r.ensureRunning()
	if counts[string(rampway.StatusSuccess)] != r.n {
		t.Errorf("%s: orders by status %v, want all %d SUCCESS\n%s", r.sc.name, counts, r.n, r.tails())
	}
	if got := r.orderCount(); got != r.n {
		t.Errorf("%s: %d orders in the database, %d created (a retried create made another)", r.sc.name, got, r.n)
	}

	// Webhooks: order.success for each, delivered and verified.
	var lat []time.Duration
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(500 * time.Millisecond) {
		missing := 0
		lat = lat[:0]
		for _, o := range orders {
			at, ok := r.hooks.successAt(o.id)
			if !ok {
				missing++
				continue
			}
			lat = append(lat, at.Sub(o.paidAt))
		}
		if missing == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d orders without a delivered order.success\n%s", r.sc.name, missing, r.tails())
		}
	}
	if bad := r.hooks.refused(); len(bad) > 0 {
		t.Errorf("%s: deliveries that did not verify: %v", r.sc.name, bad)
	}

	// Exactly once, on the chain: one NFT per order's recipient, the hot wallet's nonces gapless,
	// rampway's records of them the chain's.
	cc := r.checkChain(orders)
	// The ledger: every account rampway holds agrees with the chain to the wei.
	lc := r.checkLedger()

	// Every order's lookup through the API agrees.
	for _, o := range orders {
		v, err := r.merchant.GetMintOrder(t.Context(), o.id)
		if err != nil {
			t.Fatal(err)
		}
		if string(v.Status) != string(rampway.StatusSuccess) || v.ExecutionTxHash == "" {
			t.Errorf("order %s: lookup %+v", o.id, v)
			break
		}
	}

	fired := map[rpcfault.Fault]int{}
	for _, p := range r.proxies {
		for f, n := range p.Fired() {
			fired[f] += n
		}
	}
	// The scenario's faults happened: a run without them proves nothing of what it says.
	if r.sc.kills && r.kills == 0 {
		t.Errorf("%s: no instance was killed", r.sc.name)
	}
	for _, f := range r.sc.faults {
		if fired[f.Fault] == 0 {
			t.Errorf("%s: the fault %s never fired", r.sc.name, f.Fault)
		}
	}
	if r.sc.killURL {
		if !urlKilled.Load() {
			t.Errorf("%s: the first RPC URL was never stopped", r.sc.name)
		} else if r.proxyHit[1].Load()-r.hitAtURLKill[1] == 0 {
			t.Errorf("%s: no request reached the second RPC URL after the first stopped", r.sc.name)
		}
	}

	deliveries, dups := r.hooks.totals()
	slices.Sort(lat)
	var creates []time.Duration
	for _, o := range orders {
		creates = append(creates, o.createdIn)
	}
	slices.Sort(creates)
	delivered := 0
	for _, o := range orders {
		if _, ok := r.hooks.successAt(o.id); ok {
			delivered++
		}
	}
	nonces := "gapless"
	if cc.gaps > 0 {
		nonces = fmt.Sprintf("%d GAPS", cc.gaps)
	}
	line := fmt.Sprintf("E2E %-8s %d orders at %d/s, %d instances, %d kills: %d/%d SUCCESS %v after the last payment (%v in all); create p50 %v p99 %v max %v; paid->order.success p50 %v p95 %v p99 %v max %v; %d executions (%d reverted), %d duplicate; hot wallet nonces 0..%d %s, chain_txs agrees on %d of %d (%d differ, %d pending), stored next nonce %d, chain's %d; %d/%d order.success delivered (%d deliveries, %d repeated); ledger: %d of %d accounts agree with the chain to the wei at block %d, %d drifts; faults fired %v%s",
		r.sc.name, r.n, *rateFlag, r.sc.instances, r.kills, counts[string(rampway.StatusSuccess)], r.n, allDone.Sub(allPaid).Round(time.Second), allDone.Sub(started).Round(time.Second),
		pct(creates, 50), pct(creates, 99), pct(creates, 100), pct(lat, 50), pct(lat, 95), pct(lat, 99), pct(lat, 100),
		cc.mints, cc.reverted, cc.duplicates, int(cc.chainNonce)-1, nonces, cc.mined-cc.storedDiffer, cc.mined, cc.storedDiffer, cc.pending,
		cc.storedNext, cc.chainNonce, delivered, r.n, deliveries, dups, lc.agree, lc.accounts, lc.block, lc.drifts, faultList(fired), r.urlNote())
	fmt.Println(line)
	t.Log(line)
}

// urlNote says how the requests to the node were spread over its two URLs.
func (r *run) urlNote() string {
	a, b := r.proxyHit[0].Load(), r.proxyHit[1].Load()
	if !r.sc.killURL {
		return fmt.Sprintf("; node requests by URL %d/%d", a, b)
	}
	k := r.hitAtURLKill
	return fmt.Sprintf("; first RPC URL down half-way: node requests by URL before %d/%d, after %d/%d", k[0], k[1], a-k[0], b-k[1])
}

func faultList(m map[rpcfault.Fault]int) string {
	if len(m) == 0 {
		return "none"
	}
	var parts []string
	for f, n := range m {
		parts = append(parts, fmt.Sprintf("%s=%d", f, n))
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

func pct(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	i := (len(ds)*p + 99) / 100
	if i > 0 {
		i--
	}
	return ds[min(i, len(ds)-1)].Round(10 * time.Millisecond)
}

// recipient is order i's NFT recipient in scenario s: its own address, so that a second
// execution shows as a second NFT.
func recipient(s, i int) common.Address {
	return common.BigToAddress(new(big.Int).Add(new(big.Int).Lsh(big.NewInt(int64(0xE2E0+s)), 64), big.NewInt(int64(i+1))))
}

func (r *run) writeConfig(dsn string) {
	mnemonic, _ := hd.NewMnemonic()
	seed, _ := hd.FromMnemonic(mnemonic, "")
	xpub, _ := seed.XPub()
	cfg := fmt.Sprintf(`# scenario %s
mode: dev
http: {addr: "127.0.0.1:0", public_url: "http://127.0.0.1:9"}
database: {driver: postgres, dsn: %q}
admin: {token: %s}
secrets: {hash_secret: %s}
log: {level: info, format: json}
networks:
  - name: gethdev
    chain_id: %d
    rpc_urls: [%q, %q]
    confirmations: 2
    native: {symbol: ETH, min_amount: "0.000001", max_amount: "100"}
checkout:
  deposit_xpub: %s
  hot_wallet_address: %q
  prices: {ETH: "3000", EUR: "1.08"}
webhooks: {timeout: 5s}
`, r.sc.name, dsn, adminToken, hashSecret, r.env.chainID, r.proxySrv[0].URL, r.proxySrv[1].URL, xpub, r.hot.Hex())
	r.cfgPath = filepath.Join(r.t.TempDir(), "rampway.yaml")
	if err := os.WriteFile(r.cfgPath, []byte(cfg), 0o600); err != nil {
		r.t.Fatal(err)
	}
}

// start runs a `rampway serve` in slot i and waits until it listens.
func (r *run) start(i int) {
	t := r.t
	f, err := os.OpenFile(filepath.Join(r.logs, fmt.Sprintf("instance-%d.log", i)), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	mark, _ := f.Seek(0, io.SeekEnd)
	p := &proc{slot: i, cmd: exec.Command(r.bin, "serve", "--config", r.cfgPath), done: make(chan struct{}), log: f}
	p.cmd.Env = append(os.Environ(), "RAMPWAY_HOT_WALLET_KEY="+hex.EncodeToString(crypto.FromECDSA(r.hotKey)))
	p.cmd.Stdout, p.cmd.Stderr = f, f
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = p.cmd.Wait(); close(p.done) }()
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		out, _ := os.ReadFile(f.Name())
		if m := listening.FindSubmatch(out[min(int(mark), len(out)):]); m != nil {
			p.base = "http://" + string(m[1])
			break
		}
		select {
		case <-p.done:
			t.Fatalf("instance %d exited at start:\n%s", i, tail(out, 3000))
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("instance %d not listening after 60 s:\n%s", i, tail(out, 3000))
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for len(r.procs) <= i {
		r.procs = append(r.procs, nil)
	}
	r.procs[i] = p
}

func (r *run) stopAll() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, p := range r.procs {
		if p != nil {
			_ = p.cmd.Process.Kill()
			<-p.done
			p.log.Close()
		}
	}
}

// killLoop SIGKILLs a random instance every 1-4 s and restarts it 0.3-1.5 s later.
func (r *run) killLoop(stop chan struct{}) {
	for {
		select {
		case <-stop:
			return
		case <-time.After(time.Second + rand.N(3*time.Second)):
		}
		i := rand.N(r.sc.instances)
		r.mu.Lock()
		p := r.procs[i]
		r.procs[i] = nil
		r.mu.Unlock()
		_ = p.cmd.Process.Kill()
		<-p.done
		p.log.Close()
		r.mu.Lock()
		r.kills++
		r.mu.Unlock()
		time.Sleep(300*time.Millisecond + rand.N(1200*time.Millisecond))
		r.start(i)
		r.mu.Lock()
		r.restarts++
		r.mu.Unlock()
	}
}

func (r *run) ensureRunning() {
	for i := range r.sc.instances {
		r.mu.Lock()
		up := r.procs[i] != nil
		r.mu.Unlock()
		if !up {
			r.start(i)
		}
	}
}

// base is the URL of a running instance, the n-th one round-robin.
func (r *run) base(n int) string {
	for {
		r.mu.Lock()
		var up []string
		for _, p := range r.procs {
			if p != nil {
				up = append(up, p.base)
			}
		}
		r.mu.Unlock()
		if len(up) > 0 {
			return up[n%len(up)]
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// spread sends each request to a running instance, round-robin: the merchant's server
// behind a load balancer. The Go SDK on top of it retries (network errors, 409 with
// Retry-After, 429, 5xx) under one Idempotency-Key per call, so a create whose instance was
// killed is retried on another and makes one order.
type spread struct {
	r *run
	n atomic.Int64
}

func (s *spread) RoundTrip(req *http.Request) (*http.Response, error) {
	u, err := url.Parse(s.r.base(int(s.n.Add(1))))
	if err != nil {
		return nil, err
	}
	req = req.Clone(req.Context())
	req.URL.Scheme, req.URL.Host, req.Host = u.Scheme, u.Host, u.Host
	return http.DefaultTransport.RoundTrip(req)
}

// merchantClient is the merchant's Go SDK client over spread, retrying for up to about 3
// minutes (a key whose first request died with its instance is in use until its claim goes
// stale, 15 s later; instances come and go every few seconds).
func (r *run) merchantClient() *client.Client {
	return client.New(r.apiKey, client.WithServerURL("http://rampway.e2e"), client.WithMerchantID(r.merchantID),
		client.WithHTTPClient(&http.Client{Timeout: 15 * time.Second, Transport: &spread{r: r}}),
		client.WithRetryPolicy(client.RetryPolicy{MaxAttempts: 90, BaseDelay: 250 * time.Millisecond, MaxDelay: 2 * time.Second,
			MaxRetryAfter: 5 * time.Second}))
}

// admin makes one admin API request (onboarding, before the kills and faults) and returns
// the answer's body.
func (r *run) admin(method, path string, body any) map[string]any {
	t := r.t
	var raw []byte
	if body != nil {
		raw, _ = json.Marshal(body)
	}
	req, _ := http.NewRequest(method, r.base(0)+path, bytes.NewReader(raw))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+adminToken)
	res, err := r.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil || res.StatusCode >= 300 {
		t.Fatalf("%s %s: %d %s", method, path, res.StatusCode, data)
	}
	return v
}

func (r *run) onboard() {
	r.hooks = &receiver{success: map[string]time.Time{}, seen: map[string]int{}}
	hookSrv := httptest.NewServer(r.hooks)
	r.t.Cleanup(hookSrv.Close)
	m := r.admin("POST", "/admin/merchants", map[string]any{"name": "E2E Shop " + r.sc.name, "webhook_url": hookSrv.URL})
	r.merchantID = m["merchant_id"].(string)
	r.hooks.setSecret(r.admin("POST", "/admin/merchants/"+r.merchantID+"/webhook-secret", nil)["webhook_secret"].(string))
	r.apiKey = r.admin("POST", "/admin/merchants/"+r.merchantID+"/api-keys", map[string]any{})["api_key"].(string)
	f := r.admin("POST", "/admin/merchants/"+r.merchantID+"/contract-functions", map[string]any{"network": "gethdev",
		"contract_address": r.env.nft.Hex(), "abi": r.env.mintABI, "default_gas_limit": 600000, "payable_symbol": "ETH"})
	r.functionID = f["smartContractFunctionId"].(string)
	r.merchant = r.merchantClient()
}

// order is one order of the run.
type order struct {
	i         int
	recipient common.Address
	id        string
	deposit   common.Address
	amount    *big.Int
	createdIn time.Duration // the create call, retries included
	paidAt    time.Time
}

func (r *run) create(o *order) error {
	start := time.Now()
	defer func() { o.createdIn = time.Since(start) }()
	ctx := context.Background()
	v, err := r.merchant.CreateMintOrder(ctx, &client.MintOrderRequest{CryptoSymbol: "ETH", CryptoNetwork: "gethdev",
		MerchantUserID: fmt.Sprintf("user-%d", o.i), MerchantRedirectURL: "https://shop.example/done",
		ContractExecution: client.ContractExecution{SmartContractFunctionID: r.functionID,
			FunctionArgs:  map[string]any{"to": o.recipient.Hex(), "quantity": "1"},
			Payment:       &client.ContractExecutionPayment{PayableCryptoSymbol: "ETH", TotalValue: rampway.FormatUnits(big.NewInt(devchain.NFTPriceWei), 18)},
			NetworkParams: client.NetworkParams{NetworkName: "gethdev"}}},
		client.WithIdempotencyKey(fmt.Sprintf("e2e-%s-%d", r.sc.name, o.i)))
	if err != nil {
		return err
	}
	o.id = v.OrderID
	if o.amount, err = rampway.ParseUnits(v.CryptoAmount, 18); err != nil || o.amount.Sign() <= 0 {
		return fmt.Errorf("order %s: crypto_amount %q", o.id, v.CryptoAmount)
	}
	// The deposit address is in the lookup.
	l, err := r.merchant.GetMintOrder(ctx, o.id)
	if err != nil {
		return err
	}
	o.deposit = common.HexToAddress(l.DepositAddress)
	return nil
}

func (r *run) statusCounts() map[string]int {
	rows, err := r.db.QueryContext(r.t.Context(), "SELECT status, count(*) FROM orders GROUP BY status")
	if err != nil {
		r.t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var s string
		var n int
		if err := rows.Scan(&s, &n); err != nil {
			r.t.Fatal(err)
		}
		out[s] = n
	}
	return out
}

func (r *run) orderCount() int {
	var n int
	if err := r.db.QueryRowContext(r.t.Context(), "SELECT count(*) FROM orders").Scan(&n); err != nil {
		r.t.Fatal(err)
	}
	return n
}

// chainCheck is what checkChain counted on the node and in rampway's database.
type chainCheck struct {
	mints, reverted int // the hot wallet's calls of the NFT contract, and how many reverted
	duplicates      int // NFTs minted beyond one per order
	mined           int // the hot wallet's transactions mined since the start
	gaps            int // nonces below the highest mined one with no transaction
	storedMined     int // transactions rampway's chain_txs says were mined
	storedDiffer    int // nonces where chain_txs' mined transaction is not the chain's
	storedNext      int64
	chainNonce      uint64
	pending         int // chain_txs rows still pending
}

// checkChain checks on the node what rampway did: each order's recipient holds exactly one
// NFT, the hot wallet's transactions since the start have the nonces 0..k-1, each once, none
// left pending, and rampway's own records agree with the chain: chain_txs' mined transaction
// of each nonce is the one the chain has, and the stored next nonce is the chain's.
func (r *run) checkChain(orders []*order) chainCheck {
	t := r.t
	ctx := t.Context()
	nft := bindings.NewDemoNFT()
	var c chainCheck
	for _, o := range orders {
		out, err := r.env.c.CallContract(ctx, ethereum.CallMsg{To: &r.env.nft, Data: nft.PackBalanceOf(o.recipient)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		n := new(big.Int).SetBytes(out)
		if n.Cmp(big.NewInt(1)) != 0 {
			t.Errorf("%s: order %s's recipient %s holds %s NFTs, want 1", r.sc.name, o.id, o.recipient.Hex(), n)
		}
		if n.Cmp(big.NewInt(1)) > 0 {
			c.duplicates += int(n.Int64()) - 1
		}
	}
	head, err := r.env.c.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	signer := types.LatestSignerForChainID(r.env.chainID)
	onChain := map[uint64]common.Hash{} // the hot wallet's mined transaction of each nonce
	var highest uint64
	for b := r.startBlock; b <= head; b++ {
		blk, err := r.env.c.BlockByNumber(ctx, new(big.Int).SetUint64(b))
		if err != nil {
			t.Fatal(err)
		}
		for _, tx := range blk.Transactions() {
			from, err := types.Sender(signer, tx)
			if err != nil || from != r.hot {
				continue
			}
			if prev, ok := onChain[tx.Nonce()]; ok {
				t.Errorf("%s: nonce %d mined twice: %s and %s", r.sc.name, tx.Nonce(), prev.Hex(), tx.Hash().Hex())
			}
			onChain[tx.Nonce()] = tx.Hash()
			highest = max(highest, tx.Nonce())
			if tx.To() != nil && *tx.To() == r.env.nft {
				c.mints++
				if rec, err := r.env.c.TransactionReceipt(ctx, tx.Hash()); err != nil || rec.Status != 1 {
					c.reverted++
				}
			}
		}
	}
	c.mined = len(onChain)
	if c.mined > 0 {
		c.gaps = int(highest) + 1 - c.mined
	}
	if c.gaps != 0 {
		t.Errorf("%s: the hot wallet's mined nonces 0..%d have %d gaps", r.sc.name, highest, c.gaps)
	}
	if c.chainNonce, err = r.env.c.NonceAt(ctx, r.hot, nil); err != nil {
		t.Fatal(err)
	}
	pending, err := r.env.c.PendingNonceAt(ctx, r.hot)
	if err != nil {
		t.Fatal(err)
	}
	if c.chainNonce != uint64(c.mined) || pending != c.chainNonce {
		t.Errorf("%s: hot wallet nonce %d (pending %d), %d transactions mined", r.sc.name, c.chainNonce, pending, c.mined)
	}
	if c.mints != len(orders) || c.reverted != 0 {
		t.Errorf("%s: %d mints from the hot wallet (%d reverted) for %d orders", r.sc.name, c.mints, c.reverted, len(orders))
	}

	// rampway's own records of the hot wallet, against the chain's, once it has settled every
	// transaction (mined, confirmations deep: blocks keep coming).
	wallet := strings.ToLower(r.hot.Hex())
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(500 * time.Millisecond) {
		var n int
		if err := r.db.QueryRowContext(ctx, "SELECT count(*) FROM chain_txs WHERE lower(wallet) = $1 AND status = 'pending'", wallet).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 || time.Now().After(deadline) {
			break
		}
	}
	if err := r.db.QueryRowContext(ctx, "SELECT next FROM wallet_nonces WHERE lower(wallet) = $1", wallet).Scan(&c.storedNext); err != nil {
		t.Fatalf("%s: the hot wallet's stored next nonce: %v", r.sc.name, err)
	}
	if c.storedNext != int64(c.chainNonce) {
		t.Errorf("%s: rampway's next nonce of the hot wallet is %d, the chain's %d", r.sc.name, c.storedNext, c.chainNonce)
	}
	rows, err := r.db.QueryContext(ctx, "SELECT nonce, hash, status FROM chain_txs WHERE lower(wallet) = $1", wallet)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	stored := map[uint64]common.Hash{}
	for rows.Next() {
		var nonce uint64
		var hash, status string
		if err := rows.Scan(&nonce, &hash, &status); err != nil {
			t.Fatal(err)
		}
		switch status {
		case "pending":
			c.pending++
		case "mined":
			if prev, ok := stored[nonce]; ok {
				t.Errorf("%s: chain_txs has two mined transactions of nonce %d: %s and %s", r.sc.name, nonce, prev.Hex(), hash)
			}
			stored[nonce] = common.HexToHash(hash)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	c.storedMined = len(stored)
	for n, h := range onChain {
		if stored[n] != h {
			c.storedDiffer++
			if c.storedDiffer <= 5 {
				t.Errorf("%s: nonce %d: the chain mined %s, chain_txs says %s", r.sc.name, n, h.Hex(), stored[n].Hex())
			}
		}
	}
	for n := range stored {
		if _, ok := onChain[n]; !ok {
			c.storedDiffer++
			if c.storedDiffer <= 5 {
				t.Errorf("%s: chain_txs says nonce %d was mined (%s); the chain has no transaction of it", r.sc.name, n, stored[n].Hex())
			}
		}
	}
	if c.pending != 0 {
		t.Errorf("%s: %d of rampway's transactions still pending after every order is terminal", r.sc.name, c.pending)
	}
	return c
}

// tails is the end of each instance's log, for a failure.
func (r *run) tails() string {
	var b strings.Builder
	for i := range r.sc.instances {
		out, _ := os.ReadFile(filepath.Join(r.logs, fmt.Sprintf("instance-%d.log", i)))
		fmt.Fprintf(&b, "--- instance %d (%s):\n%s\n", i, filepath.Join(r.logs, fmt.Sprintf("instance-%d.log", i)), tail(out, 4000))
	}
	return b.String()
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// receiver is the merchant's webhook endpoint: it verifies each delivery and records the
// events, answering 200.
type receiver struct {
	mu      sync.Mutex
	secret  string
	success map[string]time.Time // order id -> first order.success
	seen    map[string]int       // event id -> deliveries
	bad     []string
	total   int
}

func (h *receiver) setSecret(s string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.secret = s
}

func (h *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	h.mu.Lock()
	defer h.mu.Unlock()
	ev, err := client.VerifyWebhook(h.secret, body, req.Header.Get(client.SignatureHeader), time.Now())
	if err != nil {
		h.bad = append(h.bad, err.Error())
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	oc, err := ev.Order()
	if err != nil {
		h.bad = append(h.bad, err.Error())
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	h.total++
	h.seen[ev.ID]++
	if ev.Name == client.EventOrderSuccess {
		if _, ok := h.success[oc.OrderID]; !ok {
			h.success[oc.OrderID] = time.Now()
		}
	}
}

func (h *receiver) successAt(id string) (time.Time, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	at, ok := h.success[id]
	return at, ok
}

func (h *receiver) refused() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.bad)
}

// totals: deliveries received, and how many of them repeated an event already received.
func (h *receiver) totals() (int, int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	dups := 0
	for _, n := range h.seen {
		dups += n - 1
	}
	return h.total, dups
}

// ledgerCheck is what checkLedger found.
type ledgerCheck struct {
	block           uint64 // the block compared at: the reconciler's, after every transaction settled
	accounts, agree int    // held accounts on the network, and those whose balance is the chain's
	drifts          int    // the reconciler's drifts standing
}

// checkLedger waits for the reconciler to compare at a block after every transaction settled
// (checkChain waited for that), then recomputes on its own, from the ledger's transfers, the
// balance at that block of every account rampway holds (the hot wallet, each deposit
// address) and compares it with the chain's: each must agree to the wei, and the reconciler
// must have found no drift.
func (r *run) checkLedger() ledgerCheck {
	t := r.t
	ctx := t.Context()
	var c ledgerCheck
	head, err := r.env.c.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(500 * time.Millisecond) {
		var b int64
		err := r.db.QueryRowContext(ctx, "SELECT block_number FROM ledger_reconciled WHERE network = 'gethdev'").Scan(&b)
		if err == nil && uint64(b) >= head {
			c.block = uint64(b)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the ledger was not reconciled up to block %d in 2 minutes (at %d, %v)", r.sc.name, head, b, err)
		}
	}
	if err := r.db.QueryRowContext(ctx, "SELECT count(*) FROM ledger_drifts").Scan(&c.drifts); err != nil {
		t.Fatal(err)
	}
	if c.drifts > 0 {
		t.Errorf("%s: %d ledger drifts standing", r.sc.name, c.drifts)
	}
	rows, err := r.db.QueryContext(ctx, "SELECT account, address FROM ledger_accounts WHERE network = 'gethdev' AND kind IN ('hot', 'deposit')")
	if err != nil {
		t.Fatal(err)
	}
	held := map[string]common.Address{}
	for rows.Next() {
		var account, address string
		if err := rows.Scan(&account, &address); err != nil {
			t.Fatal(err)
		}
		held[account] = common.HexToAddress(address)
	}
	rows.Close()
	if _, ok := held[rampway.HotAccount("gethdev", r.hot)]; !ok {
		t.Errorf("%s: the ledger does not hold the hot wallet", r.sc.name)
	}
	sums := map[string]*big.Int{}
	rows, err = r.db.QueryContext(ctx, "SELECT debit, credit, amount FROM ledger_transfers WHERE network = 'gethdev' AND asset = 'gethdev/native' AND block_number <= $1", int64(c.block))
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var debit, credit, amount string
		if err := rows.Scan(&debit, &credit, &amount); err != nil {
			t.Fatal(err)
		}
		v, ok := new(big.Int).SetString(amount, 10)
		if !ok || v.Sign() <= 0 {
			t.Fatalf("%s: ledger transfer amount %q", r.sc.name, amount)
		}
		for _, side := range []struct {
			account string
			sign    int64
		}{{debit, -1}, {credit, 1}} {
			if sums[side.account] == nil {
				sums[side.account] = new(big.Int)
			}
			sums[side.account].Add(sums[side.account], new(big.Int).Mul(v, big.NewInt(side.sign)))
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	total := new(big.Int)
	for _, v := range sums {
		total.Add(total, v)
	}
	if total.Sign() != 0 {
		t.Errorf("%s: the ledger's native transfers sum to %s, not 0", r.sc.name, total)
	}
	at := new(big.Int).SetUint64(c.block)
	for account, address := range held {
		c.accounts++
		chain, err := r.env.c.BalanceAt(ctx, address, at)
		if err != nil {
			t.Fatal(err)
		}
		ledger := sums[account]
		if ledger == nil {
			ledger = new(big.Int)
		}
		if ledger.Cmp(chain) == 0 {
			c.agree++
		} else if c.accounts-c.agree <= 5 {
			t.Errorf("%s: %s: the ledger says %s wei at block %d, the chain %s", r.sc.name, account, ledger, c.block, chain)
		}
	}
	if c.agree != c.accounts || c.accounts < 2 {
		t.Errorf("%s: %d of %d held accounts agree with the chain", r.sc.name, c.agree, c.accounts)
	}
	return c
}
