package chain

import (
	"context"
	"errors"
	"math/big"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/rampway/rampway/internal/groupcommit"
)

// Batching limits of a CallBatcher.
const (
	// maxBatchCalls bounds the calls of one JSON-RPC batch (providers refuse large batches:
	// 1,000 at go-ethereum's default, fewer at some providers; a node that refuses ours gets
	// the calls one by one).
	maxBatchCalls = 32
	// BatchesInFlightLoopback and BatchesInFlightRemote bound the batches waiting for a node
	// at once (a call made while that many are out waits for the next one): a node on
	// loopback shares rampway's CPUs (more at once only divides them; measured with
	// rampway-bench orders on 2 vCPUs: 1 in flight 42-44 %, 2 55-58 %, 4 53 % of the
	// baseline), a remote one is mostly round-trip time.
	BatchesInFlightLoopback = 2
	BatchesInFlightRemote   = 8
	// eagerBatches go out as soon as a call comes; past them a batch goes out when batchFill
	// calls wait for one (or when one comes back). Against a fast node the calls share few
	// requests (each costs rampway tens of microseconds: rampway-bench orders --stub-node,
	// 0.85 requests per call with 8 eager batches, 0.38 with 2); against a slow one the
	// waiting calls open more batches, up to the limit, instead of waiting a round trip.
	eagerBatches = 2
	batchFill    = 8
	// batchTimeout bounds one batch: it carries several callers' calls, none of whose
	// contexts is its own.
	batchTimeout = 30 * time.Second
)

// CallBatcher sends concurrent calls (eth_call, eth_simulateV1) to a node as JSON-RPC batches
// (group commit for calls, internal/groupcommit): a call goes at once, alone, while fewer than eagerBatches batches
// are out; otherwise it waits, and the calls that waited go together as soon as a batch comes
// back, or as soon as batchFill of them wait while fewer than its limit of batches are out.
// Under load, many orders' simulations share one HTTP request and one pass through the node's
// request handling; an idle service waits for nothing. Batch sends a known set of calls (a
// step's broadcasts, its receipt lookups) in as few batches as the limits allow.
type CallBatcher struct {
	rc          *rpc.Client
	maxInFlight int
	calls       groupcommit.Queue[*batchedCall] // runs sendOne

	mu sync.Mutex
	// unbatchedUntil is set when a batch failed as a whole and its calls then went through
	// one by one: the node (or a proxy before it) does not take batches, or one batch met a
	// passing failure. Calls go one by one until then, and batches are tried again after it.
	unbatchedUntil time.Time
}

// unbatchedFor is how long calls go one by one after a batch failed as a whole.
const unbatchedFor = 10 * time.Minute

// batchedCall is one JSON-RPC call waiting for its batch; result is decoded as
// rpc.Client.CallContext decodes it.
type batchedCall struct {
	method string
	args   []any
	result any
	err    error
	done   chan struct{}
}

// NewCallBatcher returns a CallBatcher sending through rc, with at most inFlight batches out
// at once.
func NewCallBatcher(rc *rpc.Client, inFlight int) *CallBatcher {
	b := &CallBatcher{rc: rc, maxInFlight: max(inFlight, 1)}
	b.calls = groupcommit.Queue[*batchedCall]{Eager: eagerBatches, Fill: batchFill, MaxInFlight: b.maxInFlight,
		MaxBatch: maxBatchCalls, Run: b.sendOne}
	return b
}

// CallContract is ethclient's CallContract, batched: the same request (eth_call with msg at
// block, nil for the latest) and the same answers, revert data included.
func (b *CallBatcher) CallContract(ctx context.Context, msg ethereum.CallMsg, block *big.Int) ([]byte, error) {
	var out hexutil.Bytes
	if err := b.Call(ctx, &out, "eth_call", toCallArg(msg), blockArg(block)); err != nil {
		return nil, err
	}
	return out, nil
}

// Call is rpc.Client's CallContext, batched: the call shares a JSON-RPC batch with those
// made at the same time, and answers as CallContext would (result decoded the same way, the
// node's error as the same rpc.Error). An abandoned call (ctx ended) still goes with its
// batch, which may write result after Call returned: give each call a result of its own.
func (b *CallBatcher) Call(ctx context.Context, result any, method string, args ...any) error {
	c := &batchedCall{method: method, args: args, result: result, done: make(chan struct{})}
	b.mu.Lock()
	unbatched := time.Now().Before(b.unbatchedUntil)
	b.mu.Unlock()
	if unbatched {
		return b.rc.CallContext(ctx, result, method, args...)
	}
	b.calls.Add(c)
	select {
	case <-c.done:
		return c.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// sendOne sends a batch of the calls that Call queued, and answers each of them.
func (b *CallBatcher) sendOne(batch []*batchedCall) {
	ctx, cancel := context.WithTimeout(context.Background(), batchTimeout)
	defer cancel()
	defer func() {
		for _, c := range batch {
			close(c.done)
		}
	}()
	elems := make([]rpc.BatchElem, len(batch))
	for i, c := range batch {
		elems[i] = rpc.BatchElem{Method: c.method, Args: c.args, Result: c.result}
	}
	b.batch(ctx, elems, false)
	for i, c := range batch {
		c.err = elems[i].Error
	}
}

// Batch makes the calls of elems (at most maxBatchCalls to a JSON-RPC batch), setting each
// one's Result and Error as rpc.Client's BatchCallContext does: each call answers for itself,
// a failed call fails no other. When the batch cannot be sent (the node is unreachable, ctx
// ends) every call's Error is that error. inOrder sends the batches one after another, so
// that the node sees the calls in elems' order (broadcasts of one account's nonces: a node
// may refuse or drop a nonce past a gap); otherwise up to the batcher's in-flight limit of
// them go at once.
func (b *CallBatcher) Batch(ctx context.Context, elems []rpc.BatchElem, inOrder bool) {
	var chunks [][]rpc.BatchElem
	for len(elems) > 0 {
		n := min(len(elems), maxBatchCalls)
		chunks = append(chunks, elems[:n:n])
		elems = elems[n:]
	}
	if inOrder || len(chunks) == 1 {
		for _, c := range chunks {
			b.batch(ctx, c, inOrder)
		}
		return
	}
	slots := make(chan struct{}, b.maxInFlight)
	var wg sync.WaitGroup
	for _, c := range chunks {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			b.batch(ctx, c, false)
		})
	}
	wg.Wait()
}

// batch sends elems (at most maxBatchCalls) as one JSON-RPC batch, or one call alone. A batch
// that fails as a whole (no answer, or the node's refusal of the batch) is sent again call by
// call (in order, or the rest all at once once
// the first has answered): when the first call alone fails too, the node is unreachable and
// the others fail with it, untried; when they all get the node's answers, the node does not
// take batches (or a batch met a passing failure), and calls go one by one for unbatchedFor.
func (b *CallBatcher) batch(ctx context.Context, elems []rpc.BatchElem, inOrder bool) {
	b.mu.Lock()
	unbatched := time.Now().Before(b.unbatchedUntil)
	b.mu.Unlock()
	if len(elems) == 1 || unbatched { // no batch for one call
		b.each(ctx, elems, inOrder)
		return
	}
	if err := b.rc.BatchCallContext(ctx, elems); err == nil && !refusedWhole(elems) {
		return
	}
	b.each(ctx, elems[:1], true)
	if err := elems[0].Error; err != nil && !isRPCError(err) {
		for i := range elems[1:] {
			elems[1+i].Error = err
		}
		return // the node is unreachable (or ctx ended), not refusing batches
	}
	b.each(ctx, elems[1:], inOrder)
	for _, e := range elems[1:] {
		if e.Error != nil && !isRPCError(e.Error) {
			return
		}
	}
	b.mu.Lock()
	b.unbatchedUntil = time.Now().Add(unbatchedFor)
	b.mu.Unlock()
}

// refusedWhole reports whether a batch's answer left out all its calls but at most one: the
// node refused the batch as a whole (go-ethereum answers a batch over its limit with one
// error, "batch too large", under the first call's id).
func refusedWhole(elems []rpc.BatchElem) bool {
	missing := 0
	for _, e := range elems {
		if errors.Is(e.Error, rpc.ErrMissingBatchResponse) {
			missing++
		}
	}
	return missing > 0 && missing >= len(elems)-1
}

// each makes the calls of elems one by one: in order, or all at once.
func (b *CallBatcher) each(ctx context.Context, elems []rpc.BatchElem, inOrder bool) {
	if inOrder || len(elems) == 1 {
		for i := range elems {
			e := &elems[i]
			e.Error = b.rc.CallContext(ctx, e.Result, e.Method, e.Args...)
		}
		return
	}
	var wg sync.WaitGroup
	for i := range elems {
		e := &elems[i]
		wg.Go(func() { e.Error = b.rc.CallContext(ctx, e.Result, e.Method, e.Args...) })
	}
	wg.Wait()
}

// isRPCError reports whether err is the node's answer to a call (a JSON-RPC error: a revert,
// say), not a failure to get one.
func isRPCError(err error) bool {
	var e rpc.Error
	return errors.As(err, &e)
}

// BatchingClient is an ethclient.Client whose eth_calls and eth_simulateV1 calls go through a
// CallBatcher, and which broadcasts transactions and reads receipts many at once.
type BatchingClient struct {
	*ethclient.Client
	calls *CallBatcher
}

// NewBatchingClient returns c with its eth_calls batched, at most inFlight batches at once.
func NewBatchingClient(c *ethclient.Client, inFlight int) *BatchingClient {
	return &BatchingClient{Client: c, calls: NewCallBatcher(c.Client(), inFlight)}
}

// CallContract implements ethereum.ContractCaller through the batcher (blob and
// set-code calls, which rampway does not make, go as ethclient sends them).
func (c *BatchingClient) CallContract(ctx context.Context, msg ethereum.CallMsg, block *big.Int) ([]byte, error) {
	if msg.BlobGasFeeCap != nil || msg.BlobHashes != nil || msg.AuthorizationList != nil {
		return c.Client.CallContract(ctx, msg, block)
	}
	return c.calls.CallContract(ctx, msg, block)
}

// SimulateV1 is ethclient's SimulateV1 through the batcher: the same request and answers.
func (c *BatchingClient) SimulateV1(ctx context.Context, opts ethclient.SimulateOptions, block *rpc.BlockNumberOrHash) ([]ethclient.SimulateBlockResult, error) {
	var result []ethclient.SimulateBlockResult
	err := c.calls.Call(ctx, &result, "eth_simulateV1", opts, block)
	return result, err
}

// SendTransactions broadcasts txs (eth_sendRawTransaction) in JSON-RPC batches sent one
// after another, so that the node sees them in the order given (give one account's nonces in
// order). errs[i] is txs[i]'s: nil when the node took it, else its refusal ("already known",
// "nonce too low", ...) or the failure to reach it; one refusal fails no other transaction.
func (c *BatchingClient) SendTransactions(ctx context.Context, txs []*types.Transaction) []error {
	errs := make([]error, len(txs))
	hashes := make([]common.Hash, len(txs))
	var elems []rpc.BatchElem
	var index []int
	for i, tx := range txs {
		raw, err := tx.MarshalBinary()
		if err != nil {
			errs[i] = err
			continue
		}
		elems = append(elems, rpc.BatchElem{Method: "eth_sendRawTransaction", Args: []any{hexutil.Encode(raw)}, Result: &hashes[i]})
		index = append(index, i)
	}
	if len(elems) == 0 {
		return errs
	}
	c.calls.Batch(ctx, elems, true)
	for j, e := range elems {
		errs[index[j]] = e.Error
	}
	return errs
}

// TransactionReceipts reads the receipts of hashes (eth_getTransactionReceipt) in JSON-RPC
// batches: recs[i] and errs[i] are what ethclient's TransactionReceipt answers for hashes[i]
// (ethereum.NotFound for a transaction not mined, or unknown); one failure fails no other
// lookup.
func (c *BatchingClient) TransactionReceipts(ctx context.Context, hashes []common.Hash) ([]*types.Receipt, []error) {
	recs := make([]*types.Receipt, len(hashes))
	errs := make([]error, len(hashes))
	if len(hashes) == 0 {
		return recs, errs
	}
	elems := make([]rpc.BatchElem, len(hashes))
	for i, h := range hashes {
		elems[i] = rpc.BatchElem{Method: "eth_getTransactionReceipt", Args: []any{h}, Result: &recs[i]}
	}
	c.calls.Batch(ctx, elems, false)
	for i, e := range elems {
		switch {
		case e.Error != nil:
			recs[i], errs[i] = nil, e.Error
		case recs[i] == nil:
			errs[i] = ethereum.NotFound
		}
	}
	return recs, errs
}

// toCallArg is ethclient's encoding of a call (unexported there), for the fields rampway
// sets.
func toCallArg(msg ethereum.CallMsg) any {
	arg := map[string]any{"from": msg.From, "to": msg.To}
	if len(msg.Data) > 0 {
		arg["input"] = hexutil.Bytes(msg.Data)
	}
	if msg.Value != nil {
		arg["value"] = (*hexutil.Big)(msg.Value)
	}
	if msg.Gas != 0 {
		arg["gas"] = hexutil.Uint64(msg.Gas)
	}
	if msg.GasPrice != nil {
		arg["gasPrice"] = (*hexutil.Big)(msg.GasPrice)
	}
	if msg.GasFeeCap != nil {
		arg["maxFeePerGas"] = (*hexutil.Big)(msg.GasFeeCap)
	}
	if msg.GasTipCap != nil {
		arg["maxPriorityFeePerGas"] = (*hexutil.Big)(msg.GasTipCap)
	}
	if msg.AccessList != nil {
		arg["accessList"] = msg.AccessList
	}
	return arg
}

// blockArg is ethclient's block parameter: "latest" for nil.
func blockArg(number *big.Int) string {
	if number == nil {
		return "latest"
	}
	if number.Sign() >= 0 {
		return hexutil.EncodeBig(number)
	}
	return rpc.BlockNumber(number.Int64()).String()
}
