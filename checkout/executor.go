package checkout

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain"
	"github.com/rampway/rampway/contract"
)

// ExecClient is what an executor asks of a network's node.
type ExecClient interface {
	BlockNumber(ctx context.Context) (uint64, error)
	HeaderByNumber(ctx context.Context, number *big.Int) (*types.Header, error)
	SuggestGasTipCap(ctx context.Context) (*big.Int, error)
	PendingNonceAt(ctx context.Context, account common.Address) (uint64, error)
	BalanceAt(ctx context.Context, account common.Address, block *big.Int) (*big.Int, error)
	CallContract(ctx context.Context, msg ethereum.CallMsg, block *big.Int) ([]byte, error)
	SendTransaction(ctx context.Context, tx *types.Transaction) error
	TransactionReceipt(ctx context.Context, hash common.Hash) (*types.Receipt, error)
	chain.SimulateClient
}

// ExecutorStore is what an executor keeps its work in.
type ExecutorStore interface {
	rampway.ExecutionStore
	OrdersByStatus(ctx context.Context, network string, status rampway.OrderStatus, limit int) ([]*rampway.Order, error)
	Transition(ctx context.Context, id string, to rampway.OrderStatus, at time.Time, change func(*rampway.Order)) (*rampway.Order, error)
}

// ExecutorConfig tunes an executor.
type ExecutorConfig struct {
	// RepriceAfter is how many blocks a transaction may wait unmined before it is replaced
	// with fees 12.5% higher (both caps); default 3.
	RepriceAfter uint64
	// Batch bounds the orders started in one step; default 200.
	Batch int
}

// Executor executes the paid orders of one network from the hot wallet: it pre-flights each
// call, signs it (after an approve for token-paid functions) with nonces from the store, stores
// the transactions before broadcasting them, re-prices those stuck, and follows receipts to the
// confirmation depth. An order is executed at most once, across crashes and instances.
type Executor struct {
	cfg       ExecutorConfig
	store     ExecutorStore
	functions *contract.Registry
	net       *rampway.Network
	client    ExecClient
	signer    chain.Signer
	log       *slog.Logger
	now       func() time.Time
	// sent holds the hashes this process broadcast; a pending transaction it did not (stored
	// by a process that crashed before or after broadcasting) is broadcast again.
	sent map[common.Hash]bool
	// followed is the head the pending transactions were last looked at.
	followed uint64
}

// NewExecutor returns an executor of net that signs with signer.
func NewExecutor(cfg ExecutorConfig, store ExecutorStore, functions *contract.Registry, net *rampway.Network, client ExecClient,
	signer chain.Signer, log *slog.Logger, now func() time.Time) *Executor {
	if cfg.RepriceAfter == 0 {
		cfg.RepriceAfter = 3
	}
	if cfg.Batch <= 0 {
		cfg.Batch = 200
	}
	if now == nil {
		now = time.Now
	}
	return &Executor{cfg: cfg, store: store, functions: functions, net: net, client: client, signer: signer,
		log: log.With("network", net.Name), now: now, sent: map[common.Hash]bool{}}
}

func (x *Executor) at() time.Time { return x.now().UTC().Truncate(time.Microsecond) }

// Run steps every poll until ctx ends.
func (x *Executor) Run(ctx context.Context, poll time.Duration) {
	runEvery(ctx, poll, x.log, "execute step", x.Step)
}

// Step follows the transactions in flight, then starts the orders paid in full.
func (x *Executor) Step(ctx context.Context) error {
	head, err := x.client.BlockNumber(ctx)
	if err != nil {
		return fmt.Errorf("head: %w", err)
	}
	if err := x.follow(ctx, head); err != nil {
		return err
	}
	return x.start(ctx, head)
}

// follow looks at every pending transaction once per block: a nonce mined deep enough is
// settled (an order's call finishes it), one not yet mined is broadcast again when this
// process has not sent it, and re-priced when it has waited RepriceAfter blocks.
func (x *Executor) follow(ctx context.Context, head uint64) error {
	txs, err := x.store.PendingTxs(ctx, x.net.Name)
	if err != nil {
		return err
	}
	newBlock := head != x.followed
	for len(txs) > 0 {
		n := 1
		for n < len(txs) && txs[n].Wallet == txs[0].Wallet && txs[n].Nonce == txs[0].Nonce {
			n++
		}
		group := txs[:n]
		txs = txs[n:]
		latest := group[len(group)-1]
		resent := !x.sent[latest.Hash]
		if resent {
			x.broadcast(ctx, latest) // stored by a process that may not have sent it
		}
		if !newBlock && !resent {
			continue
		}
		if err := x.followNonce(ctx, head, group, !resent); err != nil {
			return err
		}
	}
	x.followed = head
	return nil
}

// followNonce handles the transactions of one nonce, latest last: settles the one mined deep
// enough, or re-prices the latest when it has waited too long (and was not just sent again).
func (x *Executor) followNonce(ctx context.Context, head uint64, group []*rampway.ChainTx, mayReprice bool) error {
	for _, t := range group {
		rec, err := x.client.TransactionReceipt(ctx, t.Hash)
		if errors.Is(err, ethereum.NotFound) {
			continue
		}
		if err != nil {
			return fmt.Errorf("receipt of %s: %w", t.Hash.Hex(), err)
		}
		if head+1 < rec.BlockNumber.Uint64()+uint64(max(x.net.Confirmations, 1)) {
			return nil // mined, not deep enough yet
		}
		return x.settle(ctx, t, rec)
	}
	latest := group[len(group)-1]
	if !mayReprice || head < latest.SentBlock+x.cfg.RepriceAfter {
		return nil
	}
	return x.reprice(ctx, head, latest)
}

// settle records a transaction mined deep enough.
func (x *Executor) settle(ctx context.Context, t *rampway.ChainTx, rec *types.Receipt) error {
	if t.Kind != rampway.TxCall {
		return x.store.SettleTx(ctx, x.net.Name, t.Hash, x.at())
	}
	ok := rec.Status == types.ReceiptStatusSuccessful
	reason := ""
	if !ok {
		reason = x.revertReason(ctx, t, rec)
	}
	if err := x.store.FinishExecution(ctx, t.OrderID, ok, reason, t.Hash, x.at()); err != nil {
		return fmt.Errorf("finish execution of %s: %w", t.OrderID, err)
	}
	if ok {
		x.log.Info("order executed", "order_id", t.OrderID, "tx", t.Hash.Hex(), "block", rec.BlockNumber.Uint64(), "gas_used", rec.GasUsed)
	} else {
		x.log.Warn("order execution reverted", "order_id", t.OrderID, "tx", t.Hash.Hex(), "reason", reason)
	}
	return nil
}

// revertReason says why a mined call failed: out of gas, or the reason a replay of it on the
// state before its block gives.
func (x *Executor) revertReason(ctx context.Context, t *rampway.ChainTx, rec *types.Receipt) string {
	var tx types.Transaction
	if err := tx.UnmarshalBinary(t.Raw); err != nil {
		return "the smart-contract call reverted"
	}
	if rec.GasUsed >= tx.Gas() {
		return fmt.Sprintf("the smart-contract call ran out of gas (gas limit %d)", tx.Gas())
	}
	// The state just before the transaction is not at hand without a tracer: try the state
	// before its block, then after it (what an earlier transaction of the block changed, such
	// as the last token of a collection going to someone else).
	msg := ethereum.CallMsg{From: t.Wallet, To: tx.To(), Gas: tx.Gas(), Value: tx.Value(), Data: tx.Data()}
	for _, at := range []*big.Int{new(big.Int).Sub(rec.BlockNumber, big.NewInt(1)), rec.BlockNumber} {
		_, err := x.client.CallContract(ctx, msg, at)
		if reason, reverted := revertOf(err); reverted {
			return "the smart-contract call reverted: " + reason
		}
	}
	return "the smart-contract call reverted"
}

// broadcast sends a stored transaction. A node that knows it already, or has mined its nonce,
// is fine: receipts tell the rest.
func (x *Executor) broadcast(ctx context.Context, t *rampway.ChainTx) {
	var tx types.Transaction
	if err := tx.UnmarshalBinary(t.Raw); err != nil {
		x.log.Error("stored transaction does not decode", "tx", t.Hash.Hex(), "error", err)
		return
	}
	err := x.client.SendTransaction(ctx, &tx)
	if err != nil && !alreadySent(err) {
		x.log.Warn("broadcast failed; will retry", "order_id", t.OrderID, "tx", t.Hash.Hex(), "nonce", t.Nonce, "error", err)
		return
	}
	x.sent[t.Hash] = true
}

// alreadySent reports whether a node's refusal means it has the transaction or its nonce is
// used (by it or by one of its replacements).
func alreadySent(err error) bool {
	msg := strings.ToLower(err.Error())
	for _, s := range []string{"already known", "known transaction", "nonce too low", "already imported", "replacement transaction underpriced"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// reprice replaces a stuck transaction with the same one at fees 12.5% higher (both caps; at
// least the current estimate), stores it, then broadcasts it. Both stay tracked: whichever
// is mined settles the nonce.
func (x *Executor) reprice(ctx context.Context, head uint64, t *rampway.ChainTx) error {
	var old types.Transaction
	if err := old.UnmarshalBinary(t.Raw); err != nil {
		return fmt.Errorf("stored transaction %s: %w", t.Hash.Hex(), err)
	}
	tip, feeCap, err := x.fees(ctx)
	if err != nil {
		return err
	}
	tip = maxBig(tip, bump(old.GasTipCap()))
	feeCap = maxBig(feeCap, bump(old.GasFeeCap()))
	if feeCap.Cmp(tip) < 0 {
		feeCap = new(big.Int).Set(tip)
	}
	signed, err := x.signer.SignTx(ctx, types.NewTx(&types.DynamicFeeTx{ChainID: x.net.ChainID, Nonce: old.Nonce(), GasTipCap: tip, GasFeeCap: feeCap,
		Gas: old.Gas(), To: old.To(), Value: old.Value(), Data: old.Data()}), x.net.ChainID)
	if err != nil {
		return fmt.Errorf("sign replacement: %w", err)
	}
	raw, err := signed.MarshalBinary()
	if err != nil {
		return err
	}
	r := &rampway.ChainTx{Hash: signed.Hash(), Network: t.Network, Wallet: t.Wallet, Nonce: t.Nonce, Kind: t.Kind, OrderID: t.OrderID,
		Raw: raw, SentBlock: head, CreatedAt: x.at()}
	if err := x.store.AddTx(ctx, r); err != nil {
		return fmt.Errorf("store replacement of %s: %w", t.Hash.Hex(), err)
	}
	x.log.Warn("transaction stuck: re-priced", "order_id", t.OrderID, "nonce", t.Nonce, "old_tx", t.Hash.Hex(), "new_tx", r.Hash.Hex(),
		"tip", tip.String(), "fee_cap", feeCap.String())
	x.broadcast(ctx, r)
	return nil
}

// bump is v + 12.5%, rounded up (nodes want at least 10% more to replace a transaction).
func bump(v *big.Int) *big.Int {
	b := new(big.Int).Mul(v, big.NewInt(1125))
	b.Add(b, big.NewInt(999))
	return b.Div(b, big.NewInt(1000))
}

func maxBig(a, b *big.Int) *big.Int {
	if a.Cmp(b) >= 0 {
		return a
	}
	return b
}

// fees is the EIP-1559 estimate: the node's suggested tip, and a fee cap of twice the base
// fee plus the tip (room for six full blocks of base-fee rises).
func (x *Executor) fees(ctx context.Context) (tip, feeCap *big.Int, err error) {
	h, err := x.client.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("head: %w", err)
	}
	if tip, err = x.client.SuggestGasTipCap(ctx); err != nil {
		return nil, nil, fmt.Errorf("tip: %w", err)
	}
	feeCap = new(big.Int).Set(tip)
	if h.BaseFee != nil {
		feeCap.Add(feeCap, new(big.Int).Mul(h.BaseFee, big.NewInt(2)))
	}
	return tip, feeCap, nil
}

// liquidity is what the hot wallet can still spend in this step.
type liquidity struct {
	native *big.Int
	tokens map[common.Address]*big.Int
}

// start executes the orders paid in full, oldest first.
func (x *Executor) start(ctx context.Context, head uint64) error {
	orders, err := x.store.OrdersByStatus(ctx, x.net.Name, rampway.StatusDepositSuccess, x.cfg.Batch)
	if err != nil || len(orders) == 0 {
		return err
	}
	tip, feeCap, err := x.fees(ctx)
	if err != nil {
		return err
	}
	wallet := x.signer.Address()
	chainNonce, err := x.client.PendingNonceAt(ctx, wallet)
	if err != nil {
		return fmt.Errorf("nonce: %w", err)
	}
	bal, err := x.client.BalanceAt(ctx, wallet, nil)
	if err != nil {
		return fmt.Errorf("hot wallet balance: %w", err)
	}
	liq := &liquidity{native: bal, tokens: map[common.Address]*big.Int{}}
	for _, o := range orders {
		if err := x.startOrder(ctx, head, o, tip, feeCap, chainNonce, liq); err != nil {
			return err
		}
	}
	return nil
}

// errNoLiquidity stops a step: the hot wallet cannot pay for the next call.
var errNoLiquidity = errors.New("hot wallet balance too low")

// startOrder executes one order. Only errors that should end the step are returned.
func (x *Executor) startOrder(ctx context.Context, head uint64, o *rampway.Order, tip, feeCap *big.Int, chainNonce uint64, liq *liquidity) error {
	log := x.log.With("order_id", o.ID, "merchant_id", o.MerchantID)
	f, fn, err := x.functions.ForOrder(ctx, o)
	if err != nil {
		log.Error("order's function unavailable", "function_id", o.FunctionID, "error", err)
		return nil
	}
	data, err := fn.Encode(o.FunctionArgs)
	if err != nil {
		return x.fail(ctx, o, "the function arguments no longer encode: "+rampway.ErrorMessage(err))
	}
	var token *rampway.Asset
	if pa, ok := x.net.Asset(f.PayableSymbol); ok && !pa.IsNative() {
		token = &pa
	}
	value := new(big.Int)
	gas := o.GasLimit
	if token == nil {
		value.Set(o.PaymentValue)
	} else {
		gas += approveGas
	}
	// Our own liquidity pays: a shortfall is ours to fix, never the order's failure.
	cost := new(big.Int).Add(value, new(big.Int).Mul(feeCap, new(big.Int).SetUint64(gas)))
	if liq.native.Cmp(cost) < 0 {
		log.Error("hot wallet cannot pay for the call: waiting for funds", "wallet", x.signer.Address().Hex(),
			"balance_wei", liq.native.String(), "needed_wei", cost.String())
		return errNoLiquidity
	}
	if token != nil {
		have, err := x.tokenBalance(ctx, token.Contract, liq)
		if err != nil {
			return err
		}
		if have.Cmp(o.PaymentValue) < 0 {
			log.Error("hot wallet cannot pay for the call: waiting for funds", "wallet", x.signer.Address().Hex(), "token", token.Symbol,
				"balance", have.String(), "needed", o.PaymentValue.String())
			return errNoLiquidity
		}
	}

	reason, err := x.preflight(ctx, f, o, token, data)
	if err != nil {
		log.Warn("pre-flight failed; will retry", "error", err)
		return nil
	}
	if reason != "" {
		return x.fail(ctx, o, "the smart-contract call would revert: "+reason)
	}

	exec, err := x.store.StartExecution(ctx, o.ID, x.net.Name, x.signer.Address(), chainNonce, func(first uint64) ([]*rampway.ChainTx, error) {
		var calls []*types.DynamicFeeTx
		if token != nil {
			spender := f.Contract
			calls = append(calls, &types.DynamicFeeTx{To: &token.Contract, Gas: approveGas, Value: new(big.Int), Data: erc20Call(selApprove, spender, o.PaymentValue)})
		}
		calls = append(calls, &types.DynamicFeeTx{To: &f.Contract, Gas: o.GasLimit, Value: value, Data: data})
		out := make([]*rampway.ChainTx, len(calls))
		for i, c := range calls {
			c.ChainID, c.Nonce, c.GasTipCap, c.GasFeeCap = x.net.ChainID, first+uint64(i), tip, feeCap
			signed, err := x.signer.SignTx(ctx, types.NewTx(c), x.net.ChainID)
			if err != nil {
				return nil, fmt.Errorf("sign: %w", err)
			}
			raw, err := signed.MarshalBinary()
			if err != nil {
				return nil, err
			}
			kind := rampway.TxCall
			if i < len(calls)-1 {
				kind = rampway.TxApprove
			}
			out[i] = &rampway.ChainTx{Hash: signed.Hash(), Network: x.net.Name, Wallet: x.signer.Address(), Nonce: c.Nonce, Kind: kind,
				Raw: raw, SentBlock: head}
		}
		return out, nil
	}, x.at())
	if rampway.ErrorCode(err) == rampway.ECONFLICT {
		return nil // another instance started it, or the order moved on
	}
	if err != nil {
		return fmt.Errorf("start execution of %s: %w", o.ID, err)
	}
	liq.native.Sub(liq.native, cost)
	if token != nil {
		liq.tokens[token.Contract].Sub(liq.tokens[token.Contract], o.PaymentValue)
	}
	// Stored first, broadcast second: a crash in between is mended by the next step.
	_, txs, err := x.store.Execution(ctx, o.ID)
	if err != nil {
		return err
	}
	for _, t := range txs {
		x.broadcast(ctx, t)
	}
	log.Info("order execution sent", "tx", exec.TxHash.Hex(), "nonce", exec.Nonce)
	return nil
}

// fail ends a paid order that cannot be executed: FAILED, with its refund record.
func (x *Executor) fail(ctx context.Context, o *rampway.Order, reason string) error {
	_, err := x.store.Transition(ctx, o.ID, rampway.StatusFailed, x.at(), func(o *rampway.Order) { o.FailureReason = reason })
	if rampway.ErrorCode(err) == rampway.ECONFLICT {
		return nil
	}
	if err != nil {
		return fmt.Errorf("fail order %s: %w", o.ID, err)
	}
	x.log.Warn("order cannot be executed", "order_id", o.ID, "reason", reason)
	return nil
}

// preflight says why the call would revert now, or "".
func (x *Executor) preflight(ctx context.Context, f *rampway.ContractFunction, o *rampway.Order, token *rampway.Asset, data []byte) (string, error) {
	from := x.signer.Address()
	if token == nil {
		_, err := x.client.CallContract(ctx, ethereum.CallMsg{From: from, To: &f.Contract, Gas: o.GasLimit, Value: o.PaymentValue, Data: data}, nil)
		if err == nil {
			return "", nil
		}
		if reason, reverted := revertOf(err); reverted {
			return reason, nil
		}
		return "", err
	}
	reason, _, err := chain.Simulate(ctx, x.client, from, []chain.Call{
		{To: token.Contract, Value: new(big.Int), Data: erc20Call(selApprove, f.Contract, o.PaymentValue), Gas: approveGas},
		{To: f.Contract, Value: new(big.Int), Data: data, Gas: o.GasLimit},
	})
	if errors.Is(err, chain.ErrSimulateUnsupported) {
		return "", nil // the receipt will tell
	}
	return reason, err
}

// tokenBalance is the hot wallet's balance of token, read once per step.
func (x *Executor) tokenBalance(ctx context.Context, token common.Address, liq *liquidity) (*big.Int, error) {
	if b, ok := liq.tokens[token]; ok {
		return b, nil
	}
	out, err := x.client.CallContract(ctx, ethereum.CallMsg{To: &token, Data: append(selBalanceOf[:], common.LeftPadBytes(x.signer.Address().Bytes(), 32)...)}, nil)
	if err != nil {
		return nil, fmt.Errorf("token balance: %w", err)
	}
	if len(out) != 32 {
		return nil, fmt.Errorf("token %s: balanceOf answered %d bytes", token.Hex(), len(out))
	}
	liq.tokens[token] = new(big.Int).SetBytes(out)
	return liq.tokens[token], nil
}

// ERC-20 selectors.
var (
	selApprove   = [4]byte{0x09, 0x5e, 0xa7, 0xb3} // approve(address,uint256)
	selTransfer  = [4]byte{0xa9, 0x05, 0x9c, 0xbb} // transfer(address,uint256)
	selBalanceOf = [4]byte{0x70, 0xa0, 0x82, 0x31} // balanceOf(address)
)

// erc20Call is the calldata of an ERC-20 (address, uint256) function.
func erc20Call(sel [4]byte, addr common.Address, amount *big.Int) []byte {
	out := make([]byte, 0, 68)
	out = append(out, sel[:]...)
	out = append(out, common.LeftPadBytes(addr.Bytes(), 32)...)
	return append(out, common.LeftPadBytes(amount.Bytes(), 32)...)
}
