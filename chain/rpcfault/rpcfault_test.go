package rpcfault_test

import (
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/rampway/rampway/chain/devchain"
	"github.com/rampway/rampway/chain/devchain/devchaintest"
	"github.com/rampway/rampway/chain/rpcfault"
)

// env is the dev chain (a real go-ethereum node, mined by hand) behind the proxy.
type env struct {
	t      *testing.T
	chain  *devchain.Chain
	direct *ethclient.Client
	proxy  *rpcfault.Proxy
	url    string
	via    *ethclient.Client
}

func newEnv(t *testing.T, fund ...devchain.Funding) *env {
	t.Helper()
	c := devchaintest.Start(t, fund...)
	direct, err := ethclient.Dial(c.RPCURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(direct.Close)
	p := rpcfault.New(c.RPCURL())
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	via, err := ethclient.Dial(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(via.Close)
	return &env{t: t, chain: c, direct: direct, proxy: p, url: srv.URL, via: via}
}

// post sends a raw JSON-RPC body through the proxy.
func (e *env) post(body string) (*http.Response, string) {
	e.t.Helper()
	res, err := http.Post(e.url, "application/json", strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

func TestPlainProxy(t *testing.T) {
	e := newEnv(t)
	a, err1 := e.direct.BlockNumber(t.Context())
	b, err2 := e.via.BlockNumber(t.Context())
	if err1 != nil || err2 != nil || a != b {
		t.Fatalf("head %d (%v) direct, %d (%v) through the proxy", a, err1, b, err2)
	}
	if e.proxy.Calls("eth_blockNumber") != 1 || len(e.proxy.Fired()) != 0 {
		t.Fatalf("calls %d, fired %v", e.proxy.Calls("eth_blockNumber"), e.proxy.Fired())
	}
}

// A dropped reply: the node took the transaction, the client heard nothing.
func TestDropAfterTheNodeActed(t *testing.T) {
	key, _ := crypto.GenerateKey()
	from := crypto.PubkeyToAddress(key.PublicKey)
	e := newEnv(t, devchain.Funding{Address: from, Wei: big.NewInt(1e18)})
	e.proxy.Set(rpcfault.Rule{Fault: rpcfault.Drop, Method: "eth_sendRawTransaction"})
	tx := devchaintest.SignTx(t, e.direct, e.chain.ChainID(), key, 0, from, big.NewInt(1), nil, 21_000)
	if err := e.via.SendTransaction(t.Context(), tx); err == nil {
		t.Fatal("the client heard an answer")
	}
	if _, pending, err := e.direct.TransactionByHash(t.Context(), tx.Hash()); err != nil || !pending {
		t.Fatalf("the node does not have the transaction: pending %v, %v", pending, err)
	}
	if e.proxy.Fired()[rpcfault.Drop] != 1 || e.proxy.Calls("eth_sendRawTransaction") != 1 {
		t.Fatalf("fired %v", e.proxy.Fired())
	}
}

func TestDelayTooManyAndServerErrors(t *testing.T) {
	e := newEnv(t)
	e.proxy.Set(rpcfault.Rule{Fault: rpcfault.Delay, Method: "eth_chainId", Delay: 300 * time.Millisecond})
	start := time.Now()
	if _, err := e.via.ChainID(t.Context()); err != nil || time.Since(start) < 300*time.Millisecond {
		t.Fatalf("delayed call: %v after %v", err, time.Since(start))
	}
	e.proxy.Set(rpcfault.Rule{Fault: rpcfault.TooMany, RetryAfter: 2 * time.Second})
	res, _ := e.post(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`)
	if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") != "2" {
		t.Fatalf("429: %d Retry-After %q", res.StatusCode, res.Header.Get("Retry-After"))
	}
	e.proxy.Set(rpcfault.Rule{Fault: rpcfault.ServerError}, rpcfault.Rule{Fault: rpcfault.ServerError, Method: "eth_gasPrice", Status: 500})
	if res, _ := e.post(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`); res.StatusCode != 503 {
		t.Fatalf("5xx: %d", res.StatusCode)
	}
	// Every second matching request, twice at most.
	e.proxy.Set(rpcfault.Rule{Fault: rpcfault.ServerError, Method: "eth_chainId", Every: 2, Times: 2})
	var failed []int
	for i := 1; i <= 7; i++ {
		if _, err := e.via.ChainID(t.Context()); err != nil {
			failed = append(failed, i)
		}
	}
	if len(failed) != 2 || failed[0] != 2 || failed[1] != 4 {
		t.Fatalf("failed calls %v, want 2 and 4", failed)
	}
	if e.proxy.Calls("eth_chainId") != 6 { // 1 delayed + 5 of the 7 (2 refused)
		t.Fatalf("%d chainId calls reached the node", e.proxy.Calls("eth_chainId"))
	}
}

// A stale head: the node's head and its latest block, 2 blocks behind.
func TestStaleHead(t *testing.T) {
	e := newEnv(t)
	for range 3 {
		if _, err := e.chain.Mine(); err != nil {
			t.Fatal(err)
		}
	}
	e.proxy.Set(rpcfault.Rule{Fault: rpcfault.StaleHead, Blocks: 2})
	head, _ := e.direct.BlockNumber(t.Context())
	got, err := e.via.BlockNumber(t.Context())
	if err != nil || got != head-2 {
		t.Fatalf("head through the proxy %d (%v), the node's %d", got, err, head)
	}
	h, err := e.via.HeaderByNumber(t.Context(), nil)
	want, _ := e.direct.HeaderByNumber(t.Context(), new(big.Int).SetUint64(head-2))
	if err != nil || h.Number.Uint64() != head-2 || h.Hash() != want.Hash() {
		t.Fatalf("latest header through the proxy %v (%v), want block %d %s", h.Number, err, head-2, want.Hash().Hex())
	}
}

// A batch answered in reverse order: clients match the answers by id.
func TestReorderedBatch(t *testing.T) {
	e := newEnv(t)
	e.proxy.Set(rpcfault.Rule{Fault: rpcfault.Reorder})
	_, body := e.post(`[{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]},{"jsonrpc":"2.0","id":2,"method":"eth_blockNumber","params":[]}]`)
	var answers []struct {
		ID int `json:"id"`
	}
	if err := json.Unmarshal([]byte(body), &answers); err != nil || len(answers) != 2 || answers[0].ID != 2 || answers[1].ID != 1 {
		t.Fatalf("batch answers %s", body)
	}
	c, err := rpc.Dial(e.url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var chainID, head string
	batch := []rpc.BatchElem{{Method: "eth_chainId", Result: &chainID}, {Method: "eth_blockNumber", Result: &head}}
	if err := c.BatchCallContext(t.Context(), batch); err != nil || batch[0].Error != nil || batch[1].Error != nil || chainID != "0x539" {
		t.Fatalf("batch: %v %v %v chainId %s", err, batch[0].Error, batch[1].Error, chainID)
	}
}
