package chainwork

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/rampway/rampway"
)

// Internal transfers: the native coin reaches a deposit address through a contract (a Safe or
// another contract wallet, an exchange's batch payout, Multicall3's aggregate3Value) in a
// call frame that a block's transaction list does not show. The watcher sees them in one of
// two ways, per network (WatcherConfig.Internal):
//
//   - InternalTrace: one debug_traceBlockByHash with go-ethereum's callTracer per block (the
//     block just read, by its hash, so that trace and block cannot differ), every call frame
//     that moved value matched against the open deposit addresses in memory: one call per
//     block whatever the number of orders.
//   - InternalBalance, for nodes without tracing: the balances of the open native deposit
//     addresses at each block, through Multicall3's aggregate3 of getEthBalance, at most
//     balanceBatch addresses per eth_call; what a balance gained beyond the transfers
//     recorded for its order is credited.
//
// Both credit through the store exactly as a top-level transfer: RecordTransfer when seen,
// ConfirmTransfer at the network's confirmations, DropTransfer when a reorganisation removes
// the block. A transfer seen both ways counts once: a transaction's own (top-level) transfer
// is the block scan's (LogIndex -1) and tracing skips it; a balance check runs after the
// block's transfers are recorded and counts them as arrived.
type InternalMode string

// Internal-transfer modes (config: networks[].internal_transfers).
const (
	InternalOff     InternalMode = "off"
	InternalTrace   InternalMode = "trace"
	InternalBalance InternalMode = "balance"
)

// balanceBatch bounds the addresses of one Multicall3 aggregate3 (one eth_call). A
// getEthBalance through aggregate3 costs ~4,000 gas (a cold account read and a call), so
// 1,000 of them stay near 4-5 million gas, far below the eth_call gas caps of nodes and
// providers (go-ethereum's 50 million), with requests of ~200 KB.
const balanceBatch = 1000

// balancesInFlight bounds the aggregate3 calls of one block out at once.
const balancesInFlight = 4

// balanceLogIndex is the LogIndex of a balance credit (a top-level transfer is -1, a traced
// internal transfer -(2 + its frame's index), the frame index being 1 or more).
const balanceLogIndex = -2

// RPCCaller is a raw JSON-RPC call: go-ethereum's *rpc.Client (an ethclient.Client's Client()).
type RPCCaller interface {
	CallContext(ctx context.Context, result any, method string, args ...any) error
}

// internalSource is a watcher's way of seeing internal transfers.
type internalSource struct {
	mode      InternalMode
	node      RPCCaller
	multicall common.Address
	// balances are the open native deposit addresses' balances at the last block checked
	// (balance mode): the next block's check starts from them when it is that block's child.
	balances map[common.Address]balanceAt
	// pending are the balances of the block being checked, kept once its credits are recorded.
	pending map[common.Address]balanceAt
}

// balanceAt is an address's balance at a block.
type balanceAt struct {
	block common.Hash
	wei   *big.Int
}

// InternalTransfers says how a watcher sees native payments made inside transactions (see
// InternalMode): by tracing each block through Node, or by checking the open deposit
// addresses' balances through the Multicall3 contract at Multicall3 (balance mode only).
// Mode InternalOff (or "") leaves the watcher to top-level transfers and token logs.
type InternalTransfers struct {
	Mode InternalMode
	// Node is the raw JSON-RPC client the traces or balances are asked of.
	Node RPCCaller
	// Multicall3 is the Multicall3 contract's address (balance mode).
	Multicall3 common.Address
}

// source returns the watcher's source of internal transfers (nil when off), or what of t
// cannot work on network.
func (t InternalTransfers) source(network string) (*internalSource, error) {
	switch t.Mode {
	case "", InternalOff:
		return nil, nil
	case InternalTrace:
	case InternalBalance:
		if t.Multicall3 == (common.Address{}) {
			return nil, fmt.Errorf("network %s: internal transfers by balance need the Multicall3 contract's address", network)
		}
	default:
		return nil, fmt.Errorf("network %s: unknown internal-transfer mode %q (off, trace or balance)", network, t.Mode)
	}
	if t.Node == nil {
		return nil, fmt.Errorf("network %s: internal transfers by %s need a JSON-RPC client", network, t.Mode)
	}
	return &internalSource{mode: t.Mode, node: t.Node, multicall: t.Multicall3}, nil
}

// CheckInternalTransfers asks the node whether it serves the configured mode: the trace
// method (tracing, answered "method not found" by nodes without it), or code at the
// Multicall3 address (balances). A node that cannot is an error naming what to configure.
func (w *Watcher) CheckInternalTransfers(ctx context.Context) error {
	src := w.internal
	if src == nil {
		return nil
	}
	switch src.mode {
	case InternalTrace:
		var out any
		err := src.node.CallContext(ctx, &out, "debug_traceBlockByHash", common.Hash{}, map[string]any{"tracer": "callTracer"})
		var rpcErr rpc.Error
		if errors.As(err, &rpcErr) && rpcErr.ErrorCode() == -32601 { // method not found
			return fmt.Errorf("network %s: internal_transfers is trace but the node does not serve debug_traceBlockByHash (%v): use balance (with multicall3) on such a node", w.net.Name, err)
		}
		return nil // an unknown block is the answer expected
	case InternalBalance:
		var code hexutil.Bytes
		if err := src.node.CallContext(ctx, &code, "eth_getCode", src.multicall, "latest"); err != nil {
			return fmt.Errorf("network %s: read the code of multicall3 %s: %w", w.net.Name, src.multicall.Hex(), err)
		}
		if len(code) == 0 {
			return fmt.Errorf("network %s: internal_transfers is balance but no contract is deployed at multicall3 %s", w.net.Name, src.multicall.Hex())
		}
	}
	return nil
}

// traceFrame is a call frame of go-ethereum's callTracer (what the watcher reads of it).
type traceFrame struct {
	Type  string          `json:"type"`
	From  common.Address  `json:"from"`
	To    *common.Address `json:"to"`
	Value *hexutil.Big    `json:"value"`
	Error string          `json:"error"`
	Calls []traceFrame    `json:"calls"`
}

// txTrace is one transaction's entry in a block trace.
type txTrace struct {
	TxHash common.Hash `json:"txHash"`
	Result *traceFrame `json:"result"`
	Error  string      `json:"error"`
}

// traced returns the internal native transfers of block b to open native deposit addresses.
//
// What counts: a frame that moved value to its `to`: CALL (value > 0), CREATE and CREATE2
// (the value endows the new contract) and SELFDESTRUCT (the dying contract's balance goes to
// the beneficiary, `to`). Not: DELEGATECALL and CALLCODE (the callee's code runs in the
// caller's account: no value leaves it; callTracer shows the caller's value on a
// DELEGATECALL all the same), STATICCALL (no value). A frame with an error was reverted, and
// with it everything inside it: its subtree moved nothing. A transaction's top frame is the
// transaction itself, which the block scan sees (LogIndex -1): it is skipped so that it
// counts once. Frames are numbered depth-first over the whole trace (the top frame 0), so
// that a frame's LogIndex, -(2 + its number), is the same at every rescan.
func (s *internalSource) traced(ctx context.Context, net string, b *types.Block, byAddr map[common.Address]rampway.WatchedDeposit) ([]*rampway.InboundTransfer, error) {
	var traces []txTrace
	if err := s.node.CallContext(ctx, &traces, "debug_traceBlockByHash", b.Hash(), map[string]any{"tracer": "callTracer"}); err != nil {
		return nil, fmt.Errorf("trace of block %d: %w", b.NumberU64(), err)
	}
	txs := b.Transactions()
	if len(traces) != len(txs) {
		return nil, fmt.Errorf("trace of block %d: %d transactions traced, the block has %d", b.NumberU64(), len(traces), len(txs))
	}
	var found []*rampway.InboundTransfer
	for i, tr := range traces {
		hash := txs[i].Hash()
		if tr.TxHash != (common.Hash{}) && tr.TxHash != hash {
			return nil, fmt.Errorf("trace of block %d: transaction %d is %s in the trace, %s in the block", b.NumberU64(), i, tr.TxHash.Hex(), hash.Hex())
		}
		if tr.Error != "" || tr.Result == nil {
			return nil, fmt.Errorf("trace of transaction %s in block %d failed: %s", hash.Hex(), b.NumberU64(), tr.Error)
		}
		index := 0
		var walk func(f *traceFrame, reverted bool)
		walk = func(f *traceFrame, reverted bool) {
			n := index
			index++
			reverted = reverted || f.Error != ""
			if !reverted && n > 0 && f.To != nil && f.Value != nil && f.Value.ToInt().Sign() > 0 {
				switch f.Type {
				case "CALL", "CREATE", "CREATE2", "SELFDESTRUCT":
					if o, ok := byAddr[*f.To]; ok && o.Token == (common.Address{}) {
						found = append(found, &rampway.InboundTransfer{Network: net, TxHash: hash, LogIndex: -int64(2 + n), OrderID: o.OrderID,
							From: f.From, To: *f.To, Amount: new(big.Int).Set(f.Value.ToInt()), BlockNumber: b.NumberU64(), BlockHash: b.Hash()})
					}
				}
			}
			for j := range f.Calls {
				walk(&f.Calls[j], reverted)
			}
		}
		walk(tr.Result, false)
	}
	return found, nil
}

// balanceCreditHash is the identity of a balance credit: what a deposit address gained
// without a transfer recorded for it, at a block (by hash, so that the same block checked
// again, a rescan, finds the credit recorded; another block at that height, after a
// reorganisation, is another credit).
func balanceCreditHash(addr common.Address, block common.Hash) common.Hash {
	return crypto.Keccak256Hash([]byte("rampway balance credit"), addr.Bytes(), block.Bytes())
}

// balanceCredits checks the balances of the open native deposit addresses at block b (whose
// transfers are recorded already) and returns a credit for each address that gained more
// than the transfers recorded for its order in the meantime:
//
//   - from its balance at b's parent, when the previous block checked was that (the normal
//     case: one store query of b's transfers for every address);
//   - otherwise (the watcher's first block, an order new since the last block, a block after
//     a reorganisation or a rescan) from nothing: its balance against all the native transfers
//     recorded for its order up to b. A deposit address is new and holds nothing before its
//     order.
//
// What an address gained beyond its transfers can only have come in unseen: a credit never
// exceeds what arrived. What leaves an address (the sweeper moves its deposits on) is not
// counted, so the credit is the smaller, never the larger: in the block that sweeps an
// address, or at the first check of an address swept earlier, its balance is below what was
// recorded and an internal payment in that one block is not seen (docs/chain.md).
func (s *internalSource) balanceCredits(ctx context.Context, store rampway.DepositStore, net string, b *types.Block,
	byAddr map[common.Address]rampway.WatchedDeposit) ([]*rampway.InboundTransfer, error) {
	type open struct {
		addr  common.Address
		order string
	}
	var addrs []open
	for a, o := range byAddr {
		if o.Token == (common.Address{}) {
			addrs = append(addrs, open{a, o.OrderID})
		}
	}
	if len(addrs) == 0 {
		s.balances = nil
		return nil, nil
	}
	list := make([]common.Address, len(addrs))
	for i, a := range addrs {
		list[i] = a.addr
	}
	bals, err := s.balancesAt(ctx, list, b.Hash())
	if err != nil {
		return nil, fmt.Errorf("balances at block %d: %w", b.NumberU64(), err)
	}
	// What the store recorded: b's transfers for the addresses checked at its parent, all
	// of an order's up to b for the others.
	n := b.NumberU64()
	recent, err := store.NativeArrivals(ctx, net, n, n, nil)
	if err != nil {
		return nil, err
	}
	var fresh []string
	for _, a := range addrs {
		if prev, ok := s.balances[a.addr]; !ok || prev.block != b.ParentHash() {
			fresh = append(fresh, a.order)
		}
	}
	var whole map[string]*big.Int
	if len(fresh) > 0 {
		if whole, err = store.NativeArrivals(ctx, net, 0, n, fresh); err != nil {
			return nil, err
		}
	}
	var credits []*rampway.InboundTransfer
	next := make(map[common.Address]balanceAt, len(addrs))
	for i, a := range addrs {
		gain := new(big.Int).Set(bals[i])
		arrived := whole[a.order]
		if prev, ok := s.balances[a.addr]; ok && prev.block == b.ParentHash() {
			gain.Sub(gain, prev.wei)
			arrived = recent[a.order]
		}
		if arrived != nil {
			gain.Sub(gain, arrived)
		}
		if gain.Sign() > 0 {
			credits = append(credits, &rampway.InboundTransfer{Network: net, TxHash: balanceCreditHash(a.addr, b.Hash()), LogIndex: balanceLogIndex,
				OrderID: a.order, To: a.addr, Amount: gain, BlockNumber: n, BlockHash: b.Hash()})
		}
		next[a.addr] = balanceAt{block: b.Hash(), wei: bals[i]}
	}
	s.pending = next
	return credits, nil
}

// keepBalances makes the balances of the last balanceCredits the start of the next block's
// check, once its credits are recorded.
func (s *internalSource) keepBalances() {
	if s.pending != nil {
		s.balances, s.pending = s.pending, nil
	}
}

// multicall3 is the part of Multicall3's ABI the balance checks use.
var multicall3 = func() abi.ABI {
	a, err := abi.JSON(strings.NewReader(`[
{"type":"function","name":"aggregate3","stateMutability":"payable",
 "inputs":[{"name":"calls","type":"tuple[]","components":[{"name":"target","type":"address"},{"name":"allowFailure","type":"bool"},{"name":"callData","type":"bytes"}]}],
 "outputs":[{"name":"returnData","type":"tuple[]","components":[{"name":"success","type":"bool"},{"name":"returnData","type":"bytes"}]}]},
{"type":"function","name":"getEthBalance","stateMutability":"view",
 "inputs":[{"name":"addr","type":"address"}],"outputs":[{"name":"balance","type":"uint256"}]}]`))
	if err != nil {
		panic(err)
	}
	return a
}()

// result3 is Multicall3's Result.
type result3 struct {
	Success    bool
	ReturnData []byte
}

// Selectors of Multicall3's aggregate3 and getEthBalance.
var (
	selAggregate3    = crypto.Keccak256([]byte("aggregate3((address,bool,bytes)[])"))[:4]
	selGetEthBalance = crypto.Keccak256([]byte("getEthBalance(address)"))[:4]
)

// packBalances is aggregate3 of getEthBalance(a) on mc for each address, encoded directly
// (the ABI package's reflection took 12 ms per 1,000): each Call3 tuple is its target, its
// allowFailure (false), the offset of its callData (3 words) and the callData, 36 bytes
// padded to 64: 192 bytes after the array's offsets. multicall3.Pack gives the same bytes
// (TestPackBalances).
func packBalances(mc common.Address, addrs []common.Address) []byte {
	const tuple = 192
	n := len(addrs)
	out := make([]byte, 4+32+32+n*32+n*tuple)
	copy(out, selAggregate3)
	word := func(at int, v uint64) { new(big.Int).SetUint64(v).FillBytes(out[at : at+32]) }
	word(4, 32)         // the array's offset
	word(36, uint64(n)) // its length
	head, body := 68, 68+n*32
	for i, a := range addrs {
		word(head+i*32, uint64(n*32+i*tuple)) // the tuple's offset, from the array's first offset
		t := body + i*tuple
		copy(out[t+12:t+32], mc.Bytes())
		word(t+64, 96)
		word(t+96, 36)
		copy(out[t+128:], selGetEthBalance)
		copy(out[t+128+4+12:], a.Bytes())
	}
	return out
}

// balancesAt returns the balances of addrs at the block with that hash: one aggregate3 of
// getEthBalance per balanceBatch addresses, up to balancesInFlight at once.
func (s *internalSource) balancesAt(ctx context.Context, addrs []common.Address, block common.Hash) ([]*big.Int, error) {
	out := make([]*big.Int, len(addrs))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
		slots    = make(chan struct{}, balancesInFlight)
	)
	for start := 0; start < len(addrs); start += balanceBatch {
		end := min(start+balanceBatch, len(addrs))
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			if err := s.balanceBatch(ctx, addrs[start:end], block, out[start:end]); err != nil {
				mu.Lock()
				if firstErr == nil {
					firstErr = err
					cancel()
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return out, firstErr
}

// balanceBatch reads the balances of addrs (at most balanceBatch) in one eth_call into out.
func (s *internalSource) balanceBatch(ctx context.Context, addrs []common.Address, block common.Hash, out []*big.Int) error {
	data := packBalances(s.multicall, addrs)
	var res hexutil.Bytes
	if err := s.node.CallContext(ctx, &res, "eth_call", map[string]any{"to": s.multicall, "data": hexutil.Bytes(data)},
		map[string]any{"blockHash": block}); err != nil {
		return fmt.Errorf("multicall3 %s aggregate3 of %d balances: %w", s.multicall.Hex(), len(addrs), err)
	}
	vals, err := multicall3.Unpack("aggregate3", res)
	if err != nil || len(vals) != 1 {
		return fmt.Errorf("multicall3 %s: aggregate3 answered %d bytes that are not its results (%v)", s.multicall.Hex(), len(res), err)
	}
	results := *abi.ConvertType(vals[0], new([]result3)).(*[]result3)
	if len(results) != len(addrs) {
		return fmt.Errorf("multicall3 %s: %d results for %d balances", s.multicall.Hex(), len(results), len(addrs))
	}
	for i, r := range results {
		if !r.Success || len(r.ReturnData) != 32 {
			return fmt.Errorf("multicall3 %s: getEthBalance(%s) failed", s.multicall.Hex(), addrs[i].Hex())
		}
		out[i] = new(big.Int).SetBytes(r.ReturnData)
	}
	return nil
}
