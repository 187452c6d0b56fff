package sim

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"sync"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"
)

// rpcFaults are the node faults a step may have on: each call of the step fails with
// probability Rate (in per mille), as one of the kinds below.
type rpcFaults struct {
	// Rate is per mille of calls that fail; 0 is off.
	Rate int
	// Drop: a failing send reaches the node but its reply is lost (the caller sees an error).
	Drop bool
	// Stall: a failing send is accepted (nil error) but the node forgets it (never mined
	// unless sent again or re-priced).
	Stall bool
	// Timeout: a failing call answers context.DeadlineExceeded rather than an RPC error.
	Timeout bool
	// FeeSpike multiplies the suggested tip (a fee spike as the node sees it); 0 or 1 is off.
	FeeSpike int64
}

// errRPC is the simulated node's refusal.
var errRPC = errors.New("sim: injected RPC error")

// faultClient is the node as every worker and use case of the simulation sees it: the
// embedded chain's in-process client, with the step's faults. Whether a call fails depends
// only on the run's seed, the step, the call and how many times the same call was made in the
// step, never on the order goroutines make calls in (the executor broadcasts on its own
// goroutine), so that a run is repeatable.
type faultClient struct {
	c    *ethclient.Client
	seed uint64

	mu     sync.Mutex
	step   int
	faults rpcFaults
	seen   map[string]int
	// fired are the faults that fired this step, for the trace (sorted when read).
	fired []string
}

func newFaultClient(c *ethclient.Client, seed uint64) *faultClient {
	return &faultClient{c: c, seed: seed, seen: map[string]int{}}
}

// setStep starts step n with faults f.
func (f *faultClient) setStep(n int, faults rpcFaults) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.step, f.faults = n, faults
	clear(f.seen)
}

// takeFired returns the faults fired since the last call, sorted.
func (f *faultClient) takeFired() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := slices.Clone(f.fired)
	f.fired = f.fired[:0]
	slices.Sort(out)
	return out
}

// fault decides whether this call fails, and returns the step's faults.
func (f *faultClient) fault(method, key string) (bool, rpcFaults) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.faults.Rate <= 0 {
		return false, f.faults
	}
	k := method + "/" + key
	n := f.seen[k]
	f.seen[k]++
	if mix(f.seed, uint64(f.step), hashString(k), uint64(n))%1000 >= uint64(f.faults.Rate) {
		return false, f.faults
	}
	f.fired = append(f.fired, method)
	return true, f.faults
}

func (f *faultClient) fail(method string, ft rpcFaults) error {
	if ft.Timeout {
		return fmt.Errorf("sim: %s: %w", method, context.DeadlineExceeded)
	}
	return fmt.Errorf("%s: %w", method, errRPC)
}

func (f *faultClient) BlockNumber(ctx context.Context) (uint64, error) {
	if bad, ft := f.fault("eth_blockNumber", ""); bad {
		return 0, f.fail("eth_blockNumber", ft)
	}
	return f.c.BlockNumber(ctx)
}

func numKey(n *big.Int) string {
	if n == nil {
		return "latest"
	}
	return n.String()
}

func (f *faultClient) HeaderByNumber(ctx context.Context, number *big.Int) (*types.Header, error) {
	if bad, ft := f.fault("eth_getHeaderByNumber", numKey(number)); bad {
		return nil, f.fail("eth_getHeaderByNumber", ft)
	}
	return f.c.HeaderByNumber(ctx, number)
}

func (f *faultClient) BlockByNumber(ctx context.Context, number *big.Int) (*types.Block, error) {
	if bad, ft := f.fault("eth_getBlockByNumber", numKey(number)); bad {
		return nil, f.fail("eth_getBlockByNumber", ft)
	}
	return f.c.BlockByNumber(ctx, number)
}

func (f *faultClient) FilterLogs(ctx context.Context, q ethereum.FilterQuery) ([]types.Log, error) {
	if bad, ft := f.fault("eth_getLogs", numKey(q.FromBlock)+"-"+numKey(q.ToBlock)); bad {
		return nil, f.fail("eth_getLogs", ft)
	}
	return f.c.FilterLogs(ctx, q)
}

func (f *faultClient) SuggestGasTipCap(ctx context.Context) (*big.Int, error) {
	bad, ft := f.fault("eth_maxPriorityFeePerGas", "")
	if bad {
		return nil, f.fail("eth_maxPriorityFeePerGas", ft)
	}
	tip, err := f.c.SuggestGasTipCap(ctx)
	if err == nil && ft.FeeSpike > 1 {
		tip = new(big.Int).Mul(tip, big.NewInt(ft.FeeSpike))
	}
	return tip, err
}

func (f *faultClient) PendingNonceAt(ctx context.Context, account common.Address) (uint64, error) {
	if bad, ft := f.fault("eth_getTransactionCount", account.Hex()); bad {
		return 0, f.fail("eth_getTransactionCount", ft)
	}
	return f.c.PendingNonceAt(ctx, account)
}

func (f *faultClient) NonceAt(ctx context.Context, account common.Address, block *big.Int) (uint64, error) {
	return f.c.NonceAt(ctx, account, block)
}

func (f *faultClient) BalanceAt(ctx context.Context, account common.Address, block *big.Int) (*big.Int, error) {
	if bad, ft := f.fault("eth_getBalance", account.Hex()); bad {
		return nil, f.fail("eth_getBalance", ft)
	}
	return f.c.BalanceAt(ctx, account, block)
}

func callKey(msg ethereum.CallMsg) string {
	to := ""
	if msg.To != nil {
		to = msg.To.Hex()
	}
	return fmt.Sprintf("%s>%s:%x", msg.From.Hex(), to, hashBytes(msg.Data))
}

func (f *faultClient) CallContract(ctx context.Context, msg ethereum.CallMsg, block *big.Int) ([]byte, error) {
	if bad, ft := f.fault("eth_call", callKey(msg)); bad {
		return nil, f.fail("eth_call", ft)
	}
	return f.c.CallContract(ctx, msg, block)
}

func (f *faultClient) EstimateGas(ctx context.Context, msg ethereum.CallMsg) (uint64, error) {
	if bad, ft := f.fault("eth_estimateGas", callKey(msg)); bad {
		return 0, f.fail("eth_estimateGas", ft)
	}
	return f.c.EstimateGas(ctx, msg)
}

func (f *faultClient) SendTransaction(ctx context.Context, tx *types.Transaction) error {
	bad, ft := f.fault("eth_sendRawTransaction", tx.Hash().Hex())
	switch {
	case !bad:
		return f.c.SendTransaction(ctx, tx)
	case ft.Stall:
		return nil // accepted, and forgotten
	case ft.Drop:
		_ = f.c.SendTransaction(ctx, tx)
		return f.fail("eth_sendRawTransaction", ft)
	default:
		return f.fail("eth_sendRawTransaction", ft)
	}
}

func (f *faultClient) CodeAt(ctx context.Context, account common.Address, block *big.Int) ([]byte, error) {
	if bad, ft := f.fault("eth_getCode", account.Hex()); bad {
		return nil, f.fail("eth_getCode", ft)
	}
	return f.c.CodeAt(ctx, account, block)
}

func (f *faultClient) TransactionReceipt(ctx context.Context, hash common.Hash) (*types.Receipt, error) {
	if bad, ft := f.fault("eth_getTransactionReceipt", hash.Hex()); bad {
		return nil, f.fail("eth_getTransactionReceipt", ft)
	}
	return f.c.TransactionReceipt(ctx, hash)
}

func (f *faultClient) SimulateV1(ctx context.Context, opts ethclient.SimulateOptions, block *rpc.BlockNumberOrHash) ([]ethclient.SimulateBlockResult, error) {
	if bad, ft := f.fault("eth_simulateV1", fmt.Sprint(len(opts.BlockStateCalls))); bad {
		return nil, f.fail("eth_simulateV1", ft)
	}
	return f.c.SimulateV1(ctx, opts, block)
}
