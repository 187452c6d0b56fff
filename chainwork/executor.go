package chainwork

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain"
	"github.com/rampway/rampway/contract"
	"github.com/rampway/rampway/pricing"
)

// ExecClient is what an executor asks of a network's node.
type ExecClient interface {
	BlockNumber(ctx context.Context) (uint64, error)
	HeaderByNumber(ctx context.Context, number *big.Int) (*types.Header, error)
	SuggestGasTipCap(ctx context.Context) (*big.Int, error)
	PendingNonceAt(ctx context.Context, account common.Address) (uint64, error)
	BalanceAt(ctx context.Context, account common.Address, block *big.Int) (*big.Int, error)
	CallContract(ctx context.Context, msg ethereum.CallMsg, block *big.Int) ([]byte, error)
	EstimateGas(ctx context.Context, msg ethereum.CallMsg) (uint64, error)
	SendTransaction(ctx context.Context, tx *types.Transaction) error
	CodeAt(ctx context.Context, account common.Address, block *big.Int) ([]byte, error)
	TransactionReceipt(ctx context.Context, hash common.Hash) (*types.Receipt, error)
	chain.SimulateClient
}

// ExecutorStore is what an executor keeps its work in.
type ExecutorStore interface {
	rampway.ExecutionStore
	rampway.RefundStore
	PaidOrders(ctx context.Context, network string, limit int) ([]*rampway.Order, error)
	Apply(ctx context.Context, id string, c rampway.Cause, at time.Time) (*rampway.Order, error)
}

// ExecutorConfig tunes an executor.
type ExecutorConfig struct {
	// RepriceAfter is how many blocks a transaction may wait unmined before it is replaced
	// with fees 12.5% higher (both caps); default 3.
	RepriceAfter uint64
	// Batch bounds the orders started in one step; default 200.
	Batch int
	// FiatGiveUpAfter is how long a fiat-paid order (areas B and C) waits for the hot wallet's
	// funds before it fails and its payment is voided or refunded (a card's authorisation does
	// not last); default 1 hour. Area A's orders wait for funds however long it takes.
	FiatGiveUpAfter time.Duration
	// RefundPolicies are the refund policies by "network/symbol" (config.RefundPolicies): an
	// asset without one is refunded automatically, dust only below its network fee.
	RefundPolicies map[string]rampway.RefundPolicy
	// Prices convert a token refund's network fee into the token; nil refunds the native coin
	// only (a token refund waits).
	Prices pricing.Source
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
	signer    rampway.Signer
	log       *slog.Logger
	now       func() time.Time
	txs       *txFollower
	wake      chan struct{}
}

// NewExecutor returns an executor of net that signs with signer.
func NewExecutor(cfg ExecutorConfig, store ExecutorStore, functions *contract.Registry, net *rampway.Network, client ExecClient,
	signer rampway.Signer, log *slog.Logger, now func() time.Time) *Executor {
	if cfg.RepriceAfter == 0 {
		cfg.RepriceAfter = 3
	}
	if cfg.Batch <= 0 {
		cfg.Batch = 200
	}
	if cfg.FiatGiveUpAfter <= 0 {
		cfg.FiatGiveUpAfter = time.Hour
	}
	if now == nil {
		now = time.Now
	}
	x := &Executor{cfg: cfg, store: store, functions: functions, net: net, client: client, signer: signer,
		log: log.With("network", net.Name), now: now, wake: make(chan struct{}, 1)}
	x.txs = &txFollower{net: net, client: client, store: store, kinds: []string{rampway.TxApprove, rampway.TxCall, rampway.TxRefund},
		signer: func(w common.Address) rampway.Signer {
			if w == signer.Address() {
				return signer
			}
			return nil
		}, settle: x.settleTx, repriceAfter: cfg.RepriceAfter, log: x.log, now: x.at, sent: map[common.Hash]bool{}}
	return x
}

func (x *Executor) at() time.Time { return x.now().UTC().Truncate(time.Microsecond) }

// Wake makes a running executor step now rather than at its next poll (the watcher calls it
// when it credits a payment).
func (x *Executor) Wake() {
	select {
	case x.wake <- struct{}{}:
	default:
	}
}

// Run steps every poll, or when woken, until ctx ends; after a step that started orders it
// steps again at once, as more may be waiting.
func (x *Executor) Run(ctx context.Context, poll time.Duration) {
	t := time.NewTicker(poll)
	defer t.Stop()
	for ctx.Err() == nil {
		started, err := x.step(ctx)
		if err != nil && ctx.Err() == nil {
			x.log.Error("execute step", "error", err)
		}
		if started > 0 && err == nil {
			continue
		}
		select {
		case <-ctx.Done():
		case <-t.C:
		case <-x.wake:
		}
	}
}

// Step starts the orders paid in full, then follows the transactions in flight.
func (x *Executor) Step(ctx context.Context) error {
	_, err := x.step(ctx)
	return err
}

func (x *Executor) step(ctx context.Context) (int, error) {
	head, err := x.client.BlockNumber(ctx)
	if err != nil {
		return 0, fmt.Errorf("head: %w", err)
	}
	// New orders first: following what is in flight can wait a moment, a paid user should not.
	started, err := x.start(ctx, head)
	if err != nil {
		return started, err
	}
	if _, err := x.payRefunds(ctx, head); err != nil {
		x.log.Error("refunds", "error", err) // the orders' transactions are followed all the same
	}
	return started, x.txs.follow(ctx, head)
}

// settle records a transaction mined deep enough.
func (x *Executor) settleTx(ctx context.Context, t *rampway.ChainTx, rec *types.Receipt) error {
	if t.Kind == rampway.TxRefund {
		return x.settleRefund(ctx, t, rec)
	}
	if t.Kind != rampway.TxCall {
		return x.store.SettleTx(ctx, x.net.Name, t.Hash, x.at())
	}
	ok := rec.Status == types.ReceiptStatusSuccessful
	reason := ""
	if !ok {
		reason = x.revertReason(ctx, t, rec)
	}
	if err := x.store.FinishExecution(ctx, t.Ref, ok, reason, t.Hash, x.at()); err != nil {
		return fmt.Errorf("finish execution of %s: %w", t.Ref, err)
	}
	if ok {
		x.log.Info("order executed", "order_id", t.Ref, "tx", t.Hash.Hex(), "block", rec.BlockNumber.Uint64(), "gas_used", rec.GasUsed)
	} else {
		x.log.Warn("order execution reverted", "order_id", t.Ref, "tx", t.Hash.Hex(), "reason", reason)
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
		if reason, reverted := chain.RevertOf(err); reverted {
			return "the smart-contract call reverted: " + reason
		}
	}
	return "the smart-contract call reverted"
}

// liquidity is what the hot wallet can still spend in this step.
type liquidity struct {
	native *big.Int
	tokens map[common.Address]*big.Int
}

// start executes the orders paid in full, oldest first.
// It returns how many it sent.
func (x *Executor) start(ctx context.Context, head uint64) (int, error) {
	orders, err := x.store.PaidOrders(ctx, x.net.Name, x.cfg.Batch)
	if err != nil || len(orders) == 0 {
		return 0, err
	}
	w, err := x.wallet(ctx)
	if err != nil {
		return 0, err
	}
	started := 0
	for _, o := range orders {
		sent, err := x.startOrder(ctx, head, o, w.tip, w.feeCap, w.chainNonce, w.liq)
		if err != nil {
			return started, err
		}
		if sent {
			started++
		}
	}
	return started, nil
}

// walletState is what a step reads once before it sends: the fees, the hot wallet's next
// nonce on chain and what it can spend.
type walletState struct {
	tip, feeCap *big.Int
	chainNonce  uint64
	liq         *liquidity
}

// wallet reads the fees and the hot wallet's nonce and balance for a step that sends.
func (x *Executor) wallet(ctx context.Context) (*walletState, error) {
	tip, feeCap, err := fees(ctx, x.client)
	if err != nil {
		return nil, err
	}
	w := x.signer.Address()
	chainNonce, err := x.client.PendingNonceAt(ctx, w)
	if err != nil {
		return nil, fmt.Errorf("nonce: %w", err)
	}
	bal, err := x.client.BalanceAt(ctx, w, nil)
	if err != nil {
		return nil, fmt.Errorf("hot wallet balance: %w", err)
	}
	return &walletState{tip: tip, feeCap: feeCap, chainNonce: chainNonce, liq: &liquidity{native: bal, tokens: map[common.Address]*big.Int{}}}, nil
}

// errNoLiquidity stops a step: the hot wallet cannot pay for the next call.
var errNoLiquidity = errors.New("hot wallet balance too low")

// startOrder executes one order and reports whether it sent it. Only errors that should end the
// step are returned.
func (x *Executor) startOrder(ctx context.Context, head uint64, o *rampway.Order, tip, feeCap *big.Int, chainNonce uint64, liq *liquidity) (bool, error) {
	log := x.log.With("order_id", o.ID, "merchant_id", o.MerchantID)
	p, err := x.plan(ctx, o)
	if err != nil {
		return false, x.fail(ctx, o, err.Error())
	}
	if p == nil {
		return false, nil // its function cannot be read now: logged, tried again
	}
	// Our own liquidity pays: a shortfall is ours to fix, never the order's failure.
	cost := new(big.Int).Add(p.call.Value, new(big.Int).Mul(feeCap, new(big.Int).SetUint64(p.gas)))
	short := liq.native.Cmp(cost) < 0
	if !short && p.token != nil {
		have, err := x.tokenBalance(ctx, p.token.Contract, liq)
		if err != nil {
			return false, err
		}
		short = have.Cmp(p.tokenNeed) < 0
	}
	if short && o.FiatSymbol != "" && x.at().Sub(o.UpdatedAt) > x.cfg.FiatGiveUpAfter {
		// The user's fiat cannot wait for ever: the order fails, its payment is given back.
		return false, x.fail(ctx, o, "the service's wallet could not pay for it within "+strings.TrimSuffix(strings.TrimSuffix(x.cfg.FiatGiveUpAfter.String(), "0s"), "0m"))
	}
	if liq.native.Cmp(cost) < 0 {
		log.Error("hot wallet cannot pay for the call: waiting for funds", "wallet", x.signer.Address().Hex(),
			"balance_wei", liq.native.String(), "needed_wei", cost.String())
		return false, errNoLiquidity
	}
	if p.token != nil {
		have, err := x.tokenBalance(ctx, p.token.Contract, liq)
		if err != nil {
			return false, err
		}
		if have.Cmp(p.tokenNeed) < 0 {
			log.Error("hot wallet cannot pay for the call: waiting for funds", "wallet", x.signer.Address().Hex(), "token", p.token.Symbol,
				"balance", have.String(), "needed", p.tokenNeed.String())
			return false, errNoLiquidity
		}
	}

	reason, err := x.preflight(ctx, p)
	if err != nil {
		log.Warn("pre-flight failed; will retry", "error", err)
		return false, nil
	}
	if reason != "" {
		what := "the smart-contract call"
		if o.Area == rampway.AreaDeposit {
			what = "the transfer to the merchant's deposit address"
		}
		return false, x.fail(ctx, o, what+" would revert: "+reason)
	}
	approve, call, value, token := p.approve, p.call, p.call.Value, p.token

	var signed []*rampway.ChainTx
	exec, err := x.store.StartExecution(ctx, o.ID, x.net.Name, x.signer.Address(), chainNonce, func(first uint64) ([]*rampway.ChainTx, error) {
		var calls []*types.DynamicFeeTx
		for _, a := range approve {
			calls = append(calls, &types.DynamicFeeTx{To: &a.To, Gas: a.Gas, Value: a.Value, Data: a.Data})
		}
		calls = append(calls, &types.DynamicFeeTx{To: &call.To, Gas: call.Gas, Value: value, Data: call.Data})
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
		signed = out
		return out, nil
	}, x.at())
	if rampway.ErrorCode(err) == rampway.ECONFLICT {
		return false, nil // another instance started it, or the order moved on
	}
	if err != nil {
		return false, fmt.Errorf("start execution of %s: %w", o.ID, err)
	}
	liq.native.Sub(liq.native, cost)
	if token != nil {
		liq.tokens[token.Contract].Sub(liq.tokens[token.Contract], p.tokenNeed)
	}
	// Stored first, broadcast second: a crash in between is mended by the next step.
	for _, t := range signed {
		x.txs.broadcast(ctx, t)
	}
	log.Info("order execution sent", "tx", exec.TxHash.Hex(), "nonce", exec.Nonce)
	return true, nil
}

// fail ends a paid order that cannot be executed: FAILED, with its refund record.
func (x *Executor) fail(ctx context.Context, o *rampway.Order, reason string) error {
	_, err := x.store.Apply(ctx, o.ID, rampway.ExecutionRefused{Reason: reason}, x.at())
	if rampway.ErrorCode(err) == rampway.ECONFLICT {
		return nil
	}
	if err != nil {
		return fmt.Errorf("fail order %s: %w", o.ID, err)
	}
	x.log.Warn("order cannot be executed", "order_id", o.ID, "reason", reason)
	return nil
}

// execPlan is what executing an order sends: the approvals a token-paid function needs, then
// the call (a function's, or area C's transfer to the merchant), with the gas of them all and
// the token the hot wallet spends (nil for none) and how much of it.
type execPlan struct {
	approve   []rampway.Call
	call      rampway.Call
	gas       uint64
	token     *rampway.Asset
	tokenNeed *big.Int
}

// plan is what executing o sends. An error is the order's failure (arguments that no longer
// encode); nil and no error, a function that cannot be read now (tried again later).
func (x *Executor) plan(ctx context.Context, o *rampway.Order) (*execPlan, error) {
	if o.Area == rampway.AreaDeposit {
		c := rampway.PayoutCall(o.Asset, o.PayoutAddress, o.CryptoAmount, o.GasLimit)
		p := &execPlan{call: c, gas: c.Gas}
		if !o.Asset.IsNative() {
			p.token, p.tokenNeed = &o.Asset, o.CryptoAmount
		}
		return p, nil
	}
	f, fn, err := x.functions.ForOrder(ctx, o)
	if err != nil {
		x.log.Error("order's function unavailable", "order_id", o.ID, "function_id", o.FunctionID, "error", err)
		return nil, nil
	}
	data, err := fn.Encode(o.FunctionArgs)
	if err != nil {
		return nil, errors.New("the function arguments no longer encode: " + rampway.ErrorMessage(err))
	}
	p := &execPlan{call: rampway.Call{To: f.Contract, Value: new(big.Int).Set(o.PaymentValue), Data: data, Gas: o.GasLimit}, gas: o.GasLimit}
	if pa, ok := x.net.Asset(f.PayableSymbol); ok && !pa.IsNative() {
		p.token, p.tokenNeed = &pa, o.PaymentValue
		p.call.Value = new(big.Int)
		p.approve = rampway.Approvals(pa, f.Contract, o.PaymentValue)
		p.gas += rampway.ApproveGas * uint64(len(p.approve))
	}
	return p, nil
}

// preflight says why the plan's call would revert now (after its approvals), or "".
func (x *Executor) preflight(ctx context.Context, p *execPlan) (string, error) {
	from := x.signer.Address()
	if len(p.approve) == 0 {
		_, err := x.client.CallContract(ctx, ethereum.CallMsg{From: from, To: &p.call.To, Gas: p.call.Gas, Value: p.call.Value, Data: p.call.Data}, nil)
		if err == nil {
			return "", nil
		}
		if reason, reverted := chain.RevertOf(err); reverted {
			return reason, nil
		}
		return "", err
	}
	reason, _, err := chain.Simulate(ctx, x.client, from, append(slices.Clone(p.approve), p.call))
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
	b, err := erc20Balance(ctx, x.client, token, x.signer.Address())
	if err != nil {
		return nil, err
	}
	liq.tokens[token] = b
	return liq.tokens[token], nil
}
