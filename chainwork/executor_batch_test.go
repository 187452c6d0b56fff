package chainwork_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
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
	"github.com/rampway/rampway/chain/devchain/devchaintest"
	"github.com/rampway/rampway/chain/rpcfault"
	"github.com/rampway/rampway/chainwork"
)

// methodLog records, for each JSON-RPC request that passes, the methods it calls (a batch
// several).
type methodLog struct {
	h  http.Handler
	mu sync.Mutex
	// requests holds each request's methods, one entry per call.
	requests [][]string
}

func (l *methodLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	type call struct {
		Method string `json:"method"`
	}
	var calls []call
	if b := bytes.TrimSpace(body); len(b) > 0 && b[0] == '[' {
		_ = json.Unmarshal(b, &calls)
	} else {
		var c call
		_ = json.Unmarshal(b, &c)
		calls = []call{c}
	}
	var methods []string
	for _, c := range calls {
		methods = append(methods, c.Method)
	}
	l.mu.Lock()
	l.requests = append(l.requests, methods)
	l.mu.Unlock()
	r.Body = io.NopCloser(bytes.NewReader(body))
	l.h.ServeHTTP(w, r)
}

// since returns the number of requests so far, to count from.
func (l *methodLog) since() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.requests)
}

// count is how many requests from the from-th on call method, and how many calls of it
// they hold.
func (l *methodLog) count(from int, method string) (requests, calls int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, ms := range l.requests[from:] {
		n := 0
		for _, m := range ms {
			if m == method {
				n++
			}
		}
		if n > 0 {
			requests++
			calls += n
		}
	}
	return requests, calls
}

// remoteClient dials e's chain through an rpcfault proxy with rules, as the app dials a
// network (chain.Dial: the failover transport, its retries), and returns the network's client
// and the log of the requests that reached the proxy.
func (e *execEnv) remoteClient(rules ...rpcfault.Rule) (*ethclient.Client, *methodLog, *rpcfault.Proxy) {
	e.t.Helper()
	fault := rpcfault.New(e.chain.RPCURL())
	fault.Set(rules...)
	log := &methodLog{h: fault}
	srv := httptest.NewServer(log)
	e.t.Cleanup(srv.Close)
	devnet := *e.net
	devnet.RPCURLs = []string{srv.URL}
	nets, err := chain.Dial(e.t.Context(), []rampway.Network{devnet})
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(nets.Close)
	c, _ := nets.Client("devnet")
	return c, log, fault
}

// Through a node 20 ms away that answers batches in reverse order and drops the answer to the
// first broadcast batch after taking it, 40 orders' transactions (native-paid, and token-paid
// with their approvals) are pre-flighted, broadcast and followed in JSON-RPC batches: each
// order executes once, the hot wallet's nonces without a gap, and the receipts of the 40
// pending transactions take two requests (at most 32 lookups to a batch).
func TestExecutorBatchesThroughFaultyNode(t *testing.T) {
	t.Parallel()
	e := newExecEnv(t)
	client, log, fault := e.remoteClient(
		rpcfault.Rule{Fault: rpcfault.Delay, Delay: 20 * time.Millisecond},
		rpcfault.Rule{Fault: rpcfault.Reorder},
		rpcfault.Rule{Fault: rpcfault.Drop, Method: "eth_sendRawTransaction", Times: 1},
	)
	var orders []*rampway.Order
	var recipients []common.Address
	txs := 0
	for i := range 32 {
		f := e.native
		if i%4 == 3 {
			f = e.token
			txs++ // its approve
		}
		r := newRecipient()
		orders, recipients = append(orders, e.paidOrder(f, r, 1)), append(recipients, r)
		txs++
	}
	x := e.executor(client)
	e.step(x)
	for _, o := range orders {
		e.wantStatus(o, rampway.StatusSmartContractProcessing)
	}
	if n, err := e.client.PendingNonceAt(t.Context(), e.hot.Address()); err != nil || n != uint64(txs) {
		t.Fatalf("the node's pending nonce of the hot wallet: %d, %v; want %d", n, err, txs)
	}
	sendRequests, sends := log.count(0, "eth_sendRawTransaction")
	t.Logf("%d orders: %d transactions broadcast in %d requests (%d calls, the dropped batch's again included); %d requests in all",
		len(orders), txs, sendRequests, sends, log.since())
	if f := fault.Fired(); f[rpcfault.Drop] != 1 || f[rpcfault.Reorder] == 0 {
		t.Fatalf("faults fired: %v; the test wants one dropped broadcast and reordered batches", f)
	}

	e.mine()
	from := log.since()
	e.step(x)
	for i, o := range orders {
		e.wantStatus(o, rampway.StatusSuccess)
		if e.balance(recipients[i]) != 1 {
			t.Fatalf("recipient of %s owns %d", o.ID, e.balance(recipients[i]))
		}
	}
	if requests, lookups := log.count(from, "eth_getTransactionReceipt"); requests != 2 || lookups != txs {
		t.Fatalf("the step after the block looked up %d receipts in %d requests; want %d in 2", lookups, requests, txs)
	}
	if n, err := e.client.NonceAt(t.Context(), e.hot.Address(), nil); err != nil || n != uint64(txs) {
		t.Fatalf("the hot wallet's nonce: %d, %v; want %d, one per transaction", n, err, txs)
	}
}

// batchFaults is a batching client whose broadcasts and receipt lookups can fail one
// transaction at a time, as a node's answer to one entry of a batch can; it records the
// nonces of each broadcast batch.
type batchFaults struct {
	*chain.BatchingClient
	mu sync.Mutex
	// refuse, when it returns an error, fails a transaction's broadcast without sending it.
	refuse func(*types.Transaction) error
	// lookup, when it returns an error, fails a receipt lookup.
	lookup  func(common.Hash) error
	batches [][]uint64
}

var _ chainwork.BatchClient = (*batchFaults)(nil)

func (c *batchFaults) SendTransactions(ctx context.Context, txs []*types.Transaction) []error {
	c.mu.Lock()
	var nonces []uint64
	for _, tx := range txs {
		nonces = append(nonces, tx.Nonce())
	}
	c.batches = append(c.batches, nonces)
	c.mu.Unlock()
	errs := make([]error, len(txs))
	var send []*types.Transaction
	var at []int
	for i, tx := range txs {
		if c.refuse != nil {
			if errs[i] = c.refuse(tx); errs[i] != nil {
				continue
			}
		}
		send, at = append(send, tx), append(at, i)
	}
	for j, err := range c.BatchingClient.SendTransactions(ctx, send) {
		errs[at[j]] = err
	}
	return errs
}

func (c *batchFaults) TransactionReceipts(ctx context.Context, hashes []common.Hash) ([]*types.Receipt, []error) {
	recs, errs := c.BatchingClient.TransactionReceipts(ctx, hashes)
	for i, h := range hashes {
		if c.lookup != nil {
			if err := c.lookup(h); err != nil {
				recs[i], errs[i] = nil, err
			}
		}
	}
	return recs, errs
}

// One broadcast the node refuses in a batch fails alone: the others reach it (the one after
// it waits there for the missing nonce), and the step's follow-up sends the refused one again;
// every order executes once. The orders' broadcasts go in nonce order.
func TestExecutorBroadcastEntryRefused(t *testing.T) {
	t.Parallel()
	e := newExecEnv(t)
	refusals := 0
	c := &batchFaults{BatchingClient: chain.NewBatchingClient(e.client, chain.BatchesInFlightRemote)}
	c.refuse = func(tx *types.Transaction) error {
		if tx.Nonce() == 1 && refusals == 0 {
			refusals++
			return &rpcError{code: -32000, msg: "injected: try again later"}
		}
		return nil
	}
	orders := []*rampway.Order{e.paidOrder(e.native, newRecipient(), 1), e.paidOrder(e.native, newRecipient(), 1), e.paidOrder(e.native, newRecipient(), 1)}
	x := e.executor(c)
	e.step(x)
	var sent []uint64
	for _, b := range c.batches {
		sent = append(sent, b...)
	}
	if !slices.Equal(sent, []uint64{0, 1, 2, 1}) || refusals != 1 {
		t.Fatalf("broadcast batches %v (%d refused); want nonces 0, 1, 2 in order, then 1 again", c.batches, refusals)
	}
	if n, err := e.client.PendingNonceAt(t.Context(), e.hot.Address()); err != nil || n != 3 {
		t.Fatalf("the pending nonce: %d, %v; want 3", n, err)
	}
	e.mine()
	e.step(x)
	for _, o := range orders {
		e.wantStatus(o, rampway.StatusSuccess)
	}
	if n, err := e.client.NonceAt(t.Context(), e.hot.Address(), nil); err != nil || n != 3 {
		t.Fatalf("the hot wallet's nonce: %d, %v; want 3", n, err)
	}
}

// A receipt lookup that fails in a batch holds up its own order only; the next step looks
// again, though no block came in between.
func TestExecutorReceiptEntryFails(t *testing.T) {
	t.Parallel()
	e := newExecEnv(t)
	a, b := e.paidOrder(e.native, newRecipient(), 1), e.paidOrder(e.native, newRecipient(), 1)
	c := &batchFaults{BatchingClient: chain.NewBatchingClient(e.client, chain.BatchesInFlightRemote)}
	x := e.executor(c)
	e.step(x)
	broken := common.HexToHash(e.order(a).ExecutionTxHash)
	c.lookup = func(h common.Hash) error {
		if h == broken {
			return &rpcError{code: -32000, msg: "injected: receipt unavailable"}
		}
		return nil
	}
	e.mine()
	if err := x.Step(t.Context()); err == nil || !strings.Contains(err.Error(), "injected") {
		t.Fatalf("step: %v; want the failed lookup reported", err)
	}
	e.wantStatus(a, rampway.StatusSmartContractProcessing)
	e.wantStatus(b, rampway.StatusSuccess)
	c.lookup = nil
	e.step(x) // no new block
	e.wantStatus(a, rampway.StatusSuccess)
}

// rpcError is a node's JSON-RPC error answer.
type rpcError struct {
	code int
	msg  string
}

func (e *rpcError) Error() string  { return e.msg }
func (e *rpcError) ErrorCode() int { return e.code }

var _ rpc.Error = (*rpcError)(nil)

// countingClient counts the executor's eth_call and eth_simulateV1 calls.
type countingClient struct {
	*ethclient.Client
	calls atomic.Int64
}

func (c *countingClient) CallContract(ctx context.Context, msg ethereum.CallMsg, block *big.Int) ([]byte, error) {
	c.calls.Add(1)
	return c.Client.CallContract(ctx, msg, block)
}

func (c *countingClient) SimulateV1(ctx context.Context, opts ethclient.SimulateOptions, block *rpc.BlockNumberOrHash) ([]ethclient.SimulateBlockResult, error) {
	c.calls.Add(1)
	return c.Client.SimulateV1(ctx, opts, block)
}

// A hot wallet that cannot pay for the oldest order pre-flights nothing: the orders wait
// without asking the node a call each, poll after poll.
func TestExecutorNoPreflightWithoutLiquidity(t *testing.T) {
	t.Parallel()
	e := newExecEnv(t)
	poorKey, _ := crypto.GenerateKey()
	for range 5 {
		e.paidOrder(e.native, newRecipient(), 1)
	}
	c := &countingClient{Client: e.client}
	x := chainwork.NewExecutor(chainwork.ExecutorConfig{}, e.store, e.reg, e.net, c, chain.NewKeySigner(poorKey), slog.New(slog.DiscardHandler), nil)
	for range 3 {
		if err := x.Step(t.Context()); err == nil || !strings.Contains(err.Error(), "balance too low") {
			t.Fatalf("step: %v, want the hot wallet's balance reported", err)
		}
	}
	if n := c.calls.Load(); n != 0 {
		t.Fatalf("%d pre-flight calls while the wallet could pay for none", n)
	}
}

// The wallet can pay for one order: the oldest's pre-flight says it would revert, so it fails
// and spends nothing, and the next order, which the step had not pre-flighted (it expected the
// oldest to spend the funds), is pre-flighted then and executed in the same step.
func TestExecutorLiquidityLeftByRevertingOrder(t *testing.T) {
	t.Parallel()
	e := newExecEnv(t)
	ctx := t.Context()
	key, _ := crypto.GenerateKey()
	hot := chain.NewKeySigner(key)
	head, err := e.client.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	tip, err := e.client.SuggestGasTipCap(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// One and a half orders: the price and the gas at the executor's fee cap.
	feeCap := new(big.Int).Add(tip, new(big.Int).Mul(head.BaseFee, big.NewInt(2)))
	one := new(big.Int).Add(big.NewInt(devchain.NFTPriceWei), new(big.Int).Mul(feeCap, big.NewInt(int64(e.native.DefaultGasLimit))))
	funds := new(big.Int).Div(new(big.Int).Mul(one, big.NewInt(3)), big.NewInt(2))
	tx := devchaintest.SignTx(t, e.client, e.chain.ChainID(), e.owner, e.ownerNonce, hot.Address(), funds, nil, 21_000)
	e.ownerNonce++
	if err := e.client.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	e.mine()

	reverts := e.paidOrder(e.native, common.Address{}, 1) // DemoNFT: mint to the zero address
	r := newRecipient()
	next := e.paidOrder(e.native, r, 1)
	x := chainwork.NewExecutor(chainwork.ExecutorConfig{}, e.store, e.reg, e.net, e.client, hot, slog.New(slog.DiscardHandler), nil)
	if err := x.Step(ctx); err != nil {
		t.Fatal(err)
	}
	if got := e.order(reverts); !failed(got) || !strings.Contains(got.FailureReason, "zero address") {
		t.Fatalf("the oldest order is %s (%s); want it failed: mint to the zero address", got.Status, got.FailureReason)
	}
	e.wantStatus(next, rampway.StatusSmartContractProcessing)
	e.mine()
	if err := x.Step(ctx); err != nil {
		t.Fatal(err)
	}
	e.wantStatus(next, rampway.StatusSuccess)
	if e.balance(r) != 1 {
		t.Fatalf("recipient owns %d", e.balance(r))
	}
}
