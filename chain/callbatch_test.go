package chain

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"
)

// rpcProxy forwards JSON-RPC requests to a node and counts them; refuseBatches answers every
// batch with HTTP 400, as some providers and proxies do.
type rpcProxy struct {
	node          string
	via           http.Handler // when set, requests go through it (an rpcfault.Proxy) instead of to node
	refuseBatches bool
	batchLimit    int           // when set, a batch of more calls is refused as go-ethereum refuses it
	delay         time.Duration // before forwarding: a remote node's round trip
	// hold, when set, holds every request until it is closed: a node that has not answered
	// yet, for as long as the test needs.
	hold     <-chan struct{}
	requests atomic.Int64
	batches  atomic.Int64
	// inFlight and mostInFlight count requests being served, now and at most; callsInFlight
	// counts the calls in them.
	inFlight, mostInFlight, callsInFlight atomic.Int64
}

func (p *rpcProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	p.requests.Add(1)
	n := p.inFlight.Add(1)
	defer p.inFlight.Add(-1)
	for m := p.mostInFlight.Load(); n > m && !p.mostInFlight.CompareAndSwap(m, n); m = p.mostInFlight.Load() {
	}
	calls := int64(1)
	var batch []json.RawMessage
	if json.Unmarshal(body, &batch) == nil {
		calls = int64(len(batch))
	}
	p.callsInFlight.Add(calls)
	defer p.callsInFlight.Add(-calls)
	time.Sleep(p.delay)
	if p.hold != nil {
		<-p.hold
	}
	if bytes.HasPrefix(bytes.TrimSpace(body), []byte("[")) {
		p.batches.Add(1)
		if p.refuseBatches {
			http.Error(w, "batch requests are not supported", http.StatusBadRequest)
			return
		}
	}
	if p.batchLimit > 0 {
		var calls []struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(body, &calls) == nil && len(calls) > p.batchLimit {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `[{"jsonrpc":"2.0","id":%s,"error":{"code":-32600,"message":"batch too large"}}]`, calls[0].ID)
			return
		}
	}
	if p.via != nil {
		r.Body = io.NopCloser(bytes.NewReader(body))
		p.via.ServeHTTP(w, r)
		return
	}
	resp, err := http.Post(p.node, "application/json", bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}

// callOutcome is what a call answered, comparable.
func callOutcome(out []byte, err error) string {
	if err == nil {
		return fmt.Sprintf("ok %x", out)
	}
	var de rpc.DataError
	if errors.As(err, &de) {
		return fmt.Sprintf("error %q data %v", err, de.ErrorData())
	}
	return fmt.Sprintf("error %q", err)
}

// batchCalls are calls of every kind of answer: data, nothing, a revert with a reason, a
// failure without revert data (the sender cannot pay the value).
func (s *simChain) batchCalls() []ethereum.CallMsg {
	nft := s.c.NFT
	poor := common.HexToAddress("0x000000000000000000000000000000000000dEaD")
	return []ethereum.CallMsg{
		{From: s.addr, To: &nft, Data: s.nft.PackMaxSupply()},
		{From: s.addr, To: &nft, Data: s.nft.PackBalanceOf(s.addr)},
		{From: s.addr, To: &nft, Value: simWei(1), Gas: 300_000, Data: s.nft.PackMint(s.addr, big.NewInt(1))},
		{From: s.addr, To: &nft, Value: big.NewInt(1), Gas: 300_000, Data: s.nft.PackMint(s.addr, big.NewInt(1))},
		{From: poor, To: &nft, Value: simWei(1), Gas: 300_000, Data: s.nft.PackMint(poor, big.NewInt(1))},
	}
}

// callAll makes each call rounds times, all at once, through c; it returns the outcomes in
// call order.
func callAll(t *testing.T, c *BatchingClient, calls []ethereum.CallMsg, rounds int) [][]string {
	t.Helper()
	got := make([][]string, len(calls))
	for i := range got {
		got[i] = make([]string, rounds)
	}
	var wg sync.WaitGroup
	for r := range rounds {
		for i, msg := range calls {
			wg.Go(func() {
				out, err := c.CallContract(t.Context(), msg, nil)
				got[i][r] = callOutcome(out, err)
			})
		}
	}
	wg.Wait()
	return got
}

// throughProxy returns a client of s's chain through proxy (whose node it sets), and the calls
// of batchCalls with what ethclient answers each straight from the chain.
func throughProxy(t *testing.T, s *simChain, proxy *rpcProxy) (ec *ethclient.Client, calls []ethereum.CallMsg, want []string) {
	t.Helper()
	if proxy.node == "" {
		proxy.node = s.chain.RPCURL()
	}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	ec, err := ethclient.Dial(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ec.Close)
	calls = s.batchCalls()
	want = make([]string, len(calls))
	for i, msg := range calls {
		want[i] = callOutcome(s.ec.CallContract(t.Context(), msg, nil))
	}
	return ec, calls, want
}

// Calls made at once go in fewer requests than calls, and each answers what ethclient's own
// eth_call answers: data, revert reason and revert data included.
func TestCallBatcherAnswersAsEthclient(t *testing.T) {
	t.Parallel()
	s := mustSimChain(t)
	proxy := &rpcProxy{}
	ec, calls, want := throughProxy(t, s, proxy)
	for i, kind := range []string{"ok 0", "ok 0", "ok ", "wrong payment", "insufficient funds"} {
		if !strings.Contains(want[i], kind) {
			t.Fatalf("call %d answers %s; the test wants %q", i, want[i], kind)
		}
	}

	const rounds = 10
	got := callAll(t, NewBatchingClient(ec, 1), calls, rounds)
	for i := range calls {
		for r := range rounds {
			if got[i][r] != want[i] {
				t.Fatalf("call %d, round %d: %s; ethclient answers %s", i, r, got[i][r], want[i])
			}
		}
	}
	if n, b := proxy.requests.Load(), proxy.batches.Load(); n >= int64(len(calls)*rounds) || b == 0 {
		t.Fatalf("%d calls at once went in %d requests (%d batches); want batches", len(calls)*rounds, n, b)
	}
}

// Against a slow node, calls that pile up open more batches (up to the limit) rather than all
// waiting for the two first ones, and they still share few requests; each answers as
// ethclient does. The node answers nothing until every call is either at the node or waiting
// in the batcher: the calls pile up however slowly the machine starts them.
func TestCallBatcherSlowNode(t *testing.T) {
	t.Parallel()
	s := mustSimChain(t)
	hold := make(chan struct{})
	proxy := &rpcProxy{hold: hold}
	ec, calls, want := throughProxy(t, s, proxy)
	c := NewBatchingClient(ec, BatchesInFlightRemote)
	const rounds = 12 // 60 calls at once
	go func() {
		defer close(hold)
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Millisecond) {
			waiting, _ := c.calls.calls.Waiting()
			if int(proxy.callsInFlight.Load())+waiting == len(calls)*rounds {
				return
			}
			if time.Now().After(deadline) {
				t.Errorf("%d calls at the node and %d waiting a minute on, want %d in all", proxy.callsInFlight.Load(), waiting, len(calls)*rounds)
				return
			}
		}
	}()
	got := callAll(t, c, calls, rounds)
	for i := range calls {
		for r := range got[i] {
			if got[i][r] != want[i] {
				t.Fatalf("call %d, round %d: %s; ethclient answers %s", i, r, got[i][r], want[i])
			}
		}
	}
	n, most := proxy.requests.Load(), proxy.mostInFlight.Load()
	t.Logf("%d calls in %d requests, at most %d at once", len(calls)*rounds, n, most)
	if most <= eagerBatches || most > BatchesInFlightRemote {
		t.Errorf("at most %d requests at once; want more than %d (the eager ones), at most %d", most, eagerBatches, BatchesInFlightRemote)
	}
	if n > int64(len(calls)*rounds/batchFill)+eagerBatches {
		t.Errorf("%d requests for %d calls; want at most one per %d calls and the eager ones", n, len(calls)*rounds, batchFill)
	}
}

// A node (or a proxy before it) that refuses batches still answers every call: the refused
// batch's calls go one by one, and so do all calls after that.
func TestCallBatcherWithoutBatches(t *testing.T) {
	t.Parallel()
	s := mustSimChain(t)
	proxy := &rpcProxy{refuseBatches: true}
	ec, calls, want := throughProxy(t, s, proxy)
	c := NewBatchingClient(ec, 1)
	for pass := range 2 {
		got := callAll(t, c, calls, 10)
		for i := range calls {
			for r := range got[i] {
				if got[i][r] != want[i] {
					t.Fatalf("pass %d, call %d: %s; ethclient answers %s", pass, i, got[i][r], want[i])
				}
			}
		}
		if pass == 0 {
			if proxy.batches.Load() == 0 {
				t.Fatal("no batch was tried")
			}
			proxy.batches.Store(0)
		}
	}
	if b := proxy.batches.Load(); b != 0 {
		t.Fatalf("%d batches sent after one was refused", b)
	}
}

// A node that cannot be reached fails every call of the batch with the transport's error,
// and batching goes on once it is back.
func TestCallBatcherUnreachable(t *testing.T) {
	t.Parallel()
	s := mustSimChain(t)
	proxy := &rpcProxy{node: "http://127.0.0.1:1"} // nothing listens there
	ec, calls, _ := throughProxy(t, s, proxy)
	c := NewBatchingClient(ec, 1)
	for i, outcomes := range callAll(t, c, calls, 4) {
		for _, o := range outcomes {
			if o[:5] != "error" {
				t.Fatalf("call %d through a dead node: %s", i, o)
			}
		}
	}
	proxy.node = s.chain.RPCURL() // no request is in flight: nothing reads it meanwhile
	proxy.batches.Store(0)
	callAll(t, c, calls, 10)
	if proxy.batches.Load() == 0 {
		t.Fatal("no batch once the node was back")
	}
}
