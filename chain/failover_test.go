package chain_test

import (
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain"
	"github.com/rampway/rampway/chain/devchain"
	"github.com/rampway/rampway/chain/devchain/devchaintest"
	"github.com/rampway/rampway/chain/rpcfault"
	"github.com/rampway/rampway/internal/devtest"
)

// failoverEnv is one node (the dev chain) behind two fault proxies, A and B, as two of a
// network's rpc_urls, and a client through the failover transport.
type failoverEnv struct {
	chain  *devchain.Chain
	a, b   *rpcfault.Proxy
	f      *chain.Failover
	client *ethclient.Client
}

func newFailoverEnv(t *testing.T, cfg chain.FailoverConfig, fund ...devchain.Funding) *failoverEnv {
	t.Helper()
	c := devchaintest.Start(t, fund...)
	e := &failoverEnv{chain: c, a: rpcfault.New(c.RPCURL()), b: rpcfault.New(c.RPCURL())}
	sa, sb := httptest.NewServer(e.a), httptest.NewServer(e.b)
	t.Cleanup(sa.Close)
	t.Cleanup(sb.Close)
	f, err := chain.NewFailover([]string{sa.URL, sb.URL}, nil, cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.f = f
	rc, err := rpc.DialOptions(t.Context(), sa.URL, rpc.WithHTTPClient(&http.Client{Transport: f}))
	if err != nil {
		t.Fatal(err)
	}
	e.client = ethclient.NewClient(rc)
	t.Cleanup(e.client.Close)
	return e
}

// A node that answers 5xx, or does not answer, is left for the next at once.
func TestFailoverLeavesAFailingNode(t *testing.T) {
	t.Parallel()
	e := newFailoverEnv(t, chain.FailoverConfig{})
	e.a.Set(rpcfault.Rule{Fault: rpcfault.ServerError})
	for range 3 {
		if _, err := e.client.BlockNumber(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	if e.a.Fired()[rpcfault.ServerError] != 1 || e.b.Calls("eth_blockNumber") != 3 {
		t.Fatalf("A refused %d, B served %d: the failing node was asked again", e.a.Fired()[rpcfault.ServerError], e.b.Calls("eth_blockNumber"))
	}
	if h := e.f.Healthy(); !strings.Contains(h[0], "503") || h[1] != "" {
		t.Fatalf("health %q", h)
	}
}

// A node that takes the request and hangs is left after CallTimeout, and the request is
// answered by the next one: a worker's call never waits on it for longer. The hanging node
// would answer only after an hour; CallTimeout is long enough for the good node to answer on a
// loaded machine.
func TestFailoverLeavesAHangingNode(t *testing.T) {
	t.Parallel()
	var logged devtest.LockedBuffer
	e := newFailoverEnv(t, chain.FailoverConfig{CallTimeout: 5 * time.Second, Log: slog.New(slog.NewTextHandler(&logged, nil))})
	e.a.Set(rpcfault.Rule{Fault: rpcfault.Delay, Delay: time.Hour})
	start := time.Now()
	if _, err := e.client.BlockNumber(t.Context()); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d >= time.Hour {
		t.Fatalf("answered after %v: the hanging node held the call until it answered", d)
	}
	if h := e.f.Healthy(); h[0] != "no answer within 5s" || h[1] != "" {
		t.Fatalf("health %q", h)
	}
	// Left: the next calls go to B at once.
	if _, err := e.client.BlockNumber(t.Context()); err != nil || e.b.Calls("eth_blockNumber") != 2 {
		t.Fatalf("second call: %v, B served %d", err, e.b.Calls("eth_blockNumber"))
	}
	// The operator's log says so, once, naming the node by host only.
	if n := strings.Count(logged.String(), "RPC node left for the next"); n != 1 || !strings.Contains(logged.String(), "no answer within 5s") {
		t.Fatalf("log (%d lines about it):\n%s", n, logged.String())
	}
}

// One node, rate-limited once: the request waits its Retry-After and goes through.
func TestFailoverHonoursRetryAfter(t *testing.T) {
	t.Parallel()
	e := newFailoverEnv(t, chain.FailoverConfig{})
	e.a.Set(rpcfault.Rule{Fault: rpcfault.TooMany, RetryAfter: time.Second, Times: 1})
	e.b.Set(rpcfault.Rule{Fault: rpcfault.TooMany, RetryAfter: time.Second, Times: 1})
	start := time.Now()
	if _, err := e.client.ChainID(t.Context()); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < time.Second {
		t.Fatalf("answered after %v: Retry-After not honoured", d)
	}
}

// A node whose head lags is left once Check sees it, and used again once it catches up.
func TestFailoverLeavesALaggingNode(t *testing.T) {
	t.Parallel()
	e := newFailoverEnv(t, chain.FailoverConfig{MaxLag: 2})
	for range 6 {
		if _, err := e.chain.Mine(); err != nil {
			t.Fatal(err)
		}
	}
	e.a.Set(rpcfault.Rule{Fault: rpcfault.StaleHead, Blocks: 5})
	if err := e.f.Check(t.Context()); err != nil {
		t.Fatal(err)
	}
	if h := e.f.Healthy(); !strings.Contains(h[0], "5 blocks behind") || h[1] != "" {
		t.Fatalf("health %q", h)
	}
	head, err := e.client.BlockNumber(t.Context())
	want, _ := e.chain.Client().BlockNumber(t.Context())
	if err != nil || head != want {
		t.Fatalf("head %d (%v), the node's %d: the lagging node answered", head, err, want)
	}
	e.a.Set()
	if err := e.f.Check(t.Context()); err != nil || e.f.Healthy()[0] != "" {
		t.Fatalf("caught up: %v %q", err, e.f.Healthy())
	}
}

// A broadcast whose reply was dropped after the node took it is sent again on the next node,
// which says it knows it already: the transaction is in the node once.
func TestFailoverRebroadcastIsKnown(t *testing.T) {
	t.Parallel()
	key, _ := crypto.GenerateKey()
	from := crypto.PubkeyToAddress(key.PublicKey)
	e := newFailoverEnv(t, chain.FailoverConfig{}, devchain.Funding{Address: from, Wei: big.NewInt(1e18)})
	e.a.Set(rpcfault.Rule{Fault: rpcfault.Drop, Method: "eth_sendRawTransaction", Times: 1})
	tx := devchaintest.SignTx(t, e.chain.Client(), e.chain.ChainID(), key, 0, from, big.NewInt(1), nil, 21_000)
	err := e.client.SendTransaction(t.Context(), tx)
	if err == nil || !strings.Contains(strings.ToLower(err.Error()), "already known") {
		t.Fatalf("the second broadcast: %v, want the node's already known", err)
	}
	if _, pending, err := e.chain.Client().TransactionByHash(t.Context(), tx.Hash()); err != nil || !pending {
		t.Fatalf("the node does not have it: %v %v", pending, err)
	}
}

// Every node down: an error after the tries, naming the last answer.
func TestFailoverAllDown(t *testing.T) {
	t.Parallel()
	e := newFailoverEnv(t, chain.FailoverConfig{Attempts: 3, Backoff: 10 * time.Millisecond})
	e.a.Set(rpcfault.Rule{Fault: rpcfault.ServerError})
	e.b.Set(rpcfault.Rule{Fault: rpcfault.ServerError, Status: 502})
	_, err := e.client.BlockNumber(t.Context())
	if err == nil || !strings.Contains(err.Error(), "no node answered after 3 tries") {
		t.Fatalf("all down: %v", err)
	}
}

// /readyz's view of a network: usable while one node is, failing (naming why) when none is.
func TestNetworksPing(t *testing.T) {
	t.Parallel()
	c := devchaintest.Start(t)
	a, b := rpcfault.New(c.RPCURL()), rpcfault.New(c.RPCURL())
	sa, sb := httptest.NewServer(a), httptest.NewServer(b)
	t.Cleanup(sa.Close)
	t.Cleanup(sb.Close)
	net := c.Network("devnet")
	net.RPCURLs = []string{sa.URL, sb.URL}
	nets, err := chain.Dial(t.Context(), []rampway.Network{net})
	if err != nil {
		t.Fatal(err)
	}
	defer nets.Close()
	if err := nets.Ping("devnet"); err != nil {
		t.Fatal(err)
	}
	a.Set(rpcfault.Rule{Fault: rpcfault.ServerError})
	b.Set(rpcfault.Rule{Fault: rpcfault.ServerError, Status: 502})
	cl, _ := nets.Client("devnet")
	if _, err := cl.BlockNumber(t.Context()); err == nil {
		t.Fatal("answered with every node down")
	}
	if err := nets.Ping("devnet"); err == nil || !strings.Contains(err.Error(), "no node is usable") || !strings.Contains(err.Error(), "502") {
		t.Fatalf("ping with every node down: %v", err)
	}
}
