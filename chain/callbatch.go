package chain

import (
	"context"
	"errors"
	"math/big"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"
)

// Batching limits of a CallBatcher.
const (
	// maxBatchCalls bounds the eth_calls of one JSON-RPC batch (providers refuse large
	// batches: 1,000 at go-ethereum's default, fewer at some providers).
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

// CallBatcher sends concurrent eth_calls to a node as JSON-RPC batches (group commit for
// calls): a call goes at once, alone, while fewer than eagerBatches batches are out;
// otherwise it waits, and the calls that waited go together as soon as a batch comes back,
// or as soon as batchFill of them wait while fewer than its limit of batches are out.
// Under load, many orders' simulations share one HTTP request and one pass through the node's
// request handling; an idle service waits for nothing.
type CallBatcher struct {
	rc          *rpc.Client
	maxInFlight int

	mu       sync.Mutex
	inFlight int
	waiting  []*batchedCall
	// unbatched is set when a batch failed as a whole and its calls then went through one
	// by one: the node (or a proxy before it) does not take batches.
	unbatched bool
}

type batchedCall struct {
	arg   any
	block string
	out   hexutil.Bytes
	err   error
	done  chan struct{}
}

// NewCallBatcher returns a CallBatcher sending through rc, with at most inFlight batches out
// at once.
func NewCallBatcher(rc *rpc.Client, inFlight int) *CallBatcher {
	return &CallBatcher{rc: rc, maxInFlight: max(inFlight, 1)}
}

// CallContract is ethclient's CallContract, batched: the same request (eth_call with msg at
// block, nil for the latest) and the same answers, revert data included.
func (b *CallBatcher) CallContract(ctx context.Context, msg ethereum.CallMsg, block *big.Int) ([]byte, error) {
	c := &batchedCall{arg: toCallArg(msg), block: blockArg(block), done: make(chan struct{})}
	b.mu.Lock()
	if b.unbatched {
		b.mu.Unlock()
		err := b.rc.CallContext(ctx, &c.out, "eth_call", c.arg, c.block)
		return c.out, err
	}
	switch {
	case b.inFlight < min(eagerBatches, b.maxInFlight):
		b.inFlight++
		b.mu.Unlock()
		go b.send([]*batchedCall{c})
	case len(b.waiting)+1 >= batchFill && b.inFlight < b.maxInFlight:
		b.waiting = append(b.waiting, c)
		b.inFlight++
		batch := b.takeWaiting()
		b.mu.Unlock()
		go b.send(batch)
	default:
		b.waiting = append(b.waiting, c)
		b.mu.Unlock()
	}
	select {
	case <-c.done:
		return c.out, c.err
	case <-ctx.Done():
		return nil, ctx.Err() // the call still goes with its batch; its answer is dropped
	}
}

// send sends batch, then the calls that waited meanwhile, until none wait.
func (b *CallBatcher) send(batch []*batchedCall) {
	for {
		b.sendOne(batch)
		b.mu.Lock()
		if len(b.waiting) == 0 {
			b.inFlight--
			b.mu.Unlock()
			return
		}
		batch = b.takeWaiting()
		b.mu.Unlock()
	}
}

// takeWaiting takes the first maxBatchCalls waiting calls (b.mu held).
func (b *CallBatcher) takeWaiting() []*batchedCall {
	n := min(len(b.waiting), maxBatchCalls)
	batch := b.waiting[:n:n]
	b.waiting = b.waiting[n:]
	if len(b.waiting) == 0 {
		b.waiting = nil // let the backing array go
	}
	return batch
}

func (b *CallBatcher) sendOne(batch []*batchedCall) {
	ctx, cancel := context.WithTimeout(context.Background(), batchTimeout)
	defer cancel()
	defer func() {
		for _, c := range batch {
			close(c.done)
		}
	}()
	if len(batch) == 1 { // no batch for one call
		c := batch[0]
		c.err = b.rc.CallContext(ctx, &c.out, "eth_call", c.arg, c.block)
		return
	}
	elems := make([]rpc.BatchElem, len(batch))
	for i, c := range batch {
		elems[i] = rpc.BatchElem{Method: "eth_call", Args: []any{c.arg, c.block}, Result: &c.out}
	}
	if err := b.rc.BatchCallContext(ctx, elems); err == nil {
		for i, c := range batch {
			c.err = elems[i].Error
		}
		return
	}
	// The batch failed as a whole: each call on its own. If they all get through, the node
	// does not take batches; calls go one by one from now on.
	var wg sync.WaitGroup
	for _, c := range batch {
		c.out = nil
		wg.Go(func() { c.err = b.rc.CallContext(ctx, &c.out, "eth_call", c.arg, c.block) })
	}
	wg.Wait()
	for _, c := range batch {
		if c.err != nil && !isRPCError(c.err) {
			return // the node is unreachable, not refusing batches
		}
	}
	b.mu.Lock()
	b.unbatched = true
	b.mu.Unlock()
}

// isRPCError reports whether err is the node's answer to a call (a JSON-RPC error: a revert,
// say), not a failure to get one.
func isRPCError(err error) bool {
	var e rpc.Error
	return errors.As(err, &e)
}

// BatchingClient is an ethclient.Client whose CallContract goes through a CallBatcher.
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
