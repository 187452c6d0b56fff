package chainwork

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"

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
	NonceAt(ctx context.Context, account common.Address, block *big.Int) (uint64, error)
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
	// Order reads a refund's order (its mode is checked against the network's).
	Order(ctx context.Context, id string) (*rampway.Order, error)
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
	// lack is the payment the hot wallet could not make at the last step that got to one
	// (Shortfall): nil while it can pay for all. stepLack is the step's own (its goroutine's).
	lack     atomic.Pointer[Shortfall]
	stepLack *Shortfall
	// refusal is the store's refusal to assign the hot wallet's nonces (rampway.ErrNonceAhead)
	// that the last step to get to a nonce met: nil once one signs, or finds nothing to sign.
	refusal atomic.Pointer[error]
}

// NonceRefusal is the store's refusal to assign the hot wallet's nonces that the executor's
// last steps met (rampway.ErrNonceAhead: the wallet used outside rampway, or the database
// restored from an older backup): nothing is signed until an operator adopts the chain's
// nonce. Its text says what to check and the command to run. nil when no refusal stands.
func (x *Executor) NonceRefusal() error {
	if p := x.refusal.Load(); p != nil {
		return *p
	}
	return nil
}

// publishRefusal records the nonce refusal a step met, or clears the one recorded when the
// step met no error at all (it signed, or had nothing to sign). A step stopped before it got
// to a nonce (a node failing, the wallet short) leaves the record as it is.
func (x *Executor) publishRefusal(stepErrs ...error) {
	for _, err := range stepErrs {
		if errors.Is(err, rampway.ErrNonceAhead) {
			for e := err; e != nil; e = errors.Unwrap(e) {
				if errors.Unwrap(e) == rampway.ErrNonceAhead {
					err = e // the store's own words, without the step's prefixes
					break
				}
			}
			x.refusal.Store(&err)
			return
		}
	}
	if errors.Join(stepErrs...) == nil {
		x.refusal.Store(nil)
	}
}

// A Shortfall is a payment the hot wallet cannot make: an order's call or transfer, a refund,
// or the gas of token sweeps waits for funds (the executor, or the sweeper, tries again at
// every step). It is what an operator is shown (a /readyz warning, a metric): the wallet needs
// Need of Asset and holds Have.
type Shortfall struct {
	Network string
	Wallet  common.Address
	Asset   rampway.Asset
	// Have is what the wallet can spend (its balance less what its transactions in flight may
	// still cost); Need is what the payment costs (for the native coin: value and gas).
	Have, Need *big.Int
	// For is what waits, the step's first: "order ord_...", "refund rfd_...", "the gas of 2
	// token sweeps".
	For string
	// Since is when the executor found the wallet short, at the first of the steps since
	// that each found it short.
	Since time.Time
}

// Network is the name of the executor's network.
func (x *Executor) Network() string { return x.net.Name }

// Wallet is the executor's hot wallet.
func (x *Executor) Wallet() common.Address { return x.signer.Address() }

// Shortfall is the payment the hot wallet could not make at the executor's last step, or nil
// when it could pay for all it had to (or no step got to a payment).
func (x *Executor) Shortfall() *Shortfall { return x.lack.Load() }

// lacking records, for the step, that the hot wallet cannot pay for what (an order, a refund)
// its need of asset (it holds have), and returns errNoLiquidity. The step's first shortfall
// is kept.
func (x *Executor) lacking(what string, asset rampway.Asset, have, need *big.Int) error {
	if x.stepLack == nil {
		x.stepLack = &Shortfall{Network: x.net.Name, Wallet: x.signer.Address(), Asset: asset, Have: new(big.Int).Set(have),
			Need: new(big.Int).Set(need), For: what, Since: x.now()}
	}
	return errNoLiquidity
}

// publishLack makes the step's shortfall the executor's, or clears it when the step paid for
// all it got to: its orders and refunds were read, and met no shortfall and no other error.
func (x *Executor) publishLack(stepErrs ...error) {
	l := x.stepLack
	x.stepLack = nil
	publishShortfall(&x.lack, l, l == nil && errors.Join(stepErrs...) == nil)
}

// publishShortfall makes a step's shortfall l (nil for none) the worker's in p, keeping the
// time the wallet was first found short when it already was; with l nil, it clears the one
// recorded only when clear (the step got to everything it had to pay for).
func publishShortfall(p *atomic.Pointer[Shortfall], l *Shortfall, clear bool) {
	if l == nil {
		if clear {
			p.Store(nil)
		}
		return
	}
	if prev := p.Load(); prev != nil {
		l.Since = prev.Since
	}
	p.Store(l)
}

// NewExecutor returns an executor of net that signs with signer. A plain *ethclient.Client is
// used through a chain.BatchingClient of its own (up to BatchesInFlightRemote batches out:
// where the node is, the executor does not know), so that a step's pre-flights, broadcasts
// and receipt lookups go in JSON-RPC batches; any other client is used as it is, in batches
// when it is a BatchClient.
func NewExecutor(cfg ExecutorConfig, store ExecutorStore, functions *contract.Registry, net *rampway.Network, client ExecClient,
	signer rampway.Signer, log *slog.Logger, now func() time.Time) *Executor {
	if ec, ok := client.(*ethclient.Client); ok {
		client = chain.NewBatchingClient(ec, chain.BatchesInFlightRemote)
	}
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
	x.txs = &txFollower{net: net, client: client, store: store, kinds: []rampway.TxKind{rampway.TxApprove, rampway.TxCall, rampway.TxRefund},
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
	// An order that cannot start (the hot wallet short of funds, a node failing) stops no
	// other work: the refunds are paid and what was sent is followed all the same (settled,
	// re-priced), or an empty wallet would freeze the calls already on their way.
	x.stepLack = nil
	started, startErr := x.start(ctx, head)
	_, refundErr := x.payRefunds(ctx, head)
	if refundErr != nil {
		x.log.Error("refunds", "error", refundErr)
	}
	if errors.Is(startErr, errNoLiquidity) {
		x.publishLack(refundErr) // the shortfall is recorded
	} else {
		x.publishLack(startErr, refundErr)
	}
	x.publishRefusal(startErr, refundErr)
	return started, errors.Join(startErr, x.txs.follow(ctx, head))
}

// settle records a transaction mined deep enough.
func (x *Executor) settleTx(ctx context.Context, t *rampway.ChainTx, rec *types.Receipt) error {
	if t.Kind == rampway.TxRefund {
		return x.settleRefund(ctx, t, rec)
	}
	m, err := mined(x.net, t, rec)
	if err != nil {
		return err
	}
	if t.Kind != rampway.TxCall {
		return x.store.SettleTx(ctx, x.net.Name, m, x.at())
	}
	ok := m.OK
	reason := ""
	if !ok {
		reason = x.revertReason(ctx, t, rec)
	}
	if err := x.store.FinishExecution(ctx, t.Ref, m, reason, x.at()); err != nil {
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

// start executes the orders paid in full, oldest first.
// It returns how many it sent.
//
// The orders' calls are pre-flighted all at once (through a batching client they share
// JSON-RPC batches); then, in order, each is signed with the store's next nonce and stored,
// and what is stored is broadcast while the next orders are signed and stored (as one batch
// after another, in nonce order). A step waits for its broadcasts before it ends.
func (x *Executor) start(ctx context.Context, head uint64) (int, error) {
	orders, err := x.store.PaidOrders(ctx, x.net.Name, x.cfg.Batch)
	if err != nil || len(orders) == 0 {
		return 0, err
	}
	w, err := x.wallet(ctx)
	if err != nil {
		return 0, err
	}
	preps := x.prepare(ctx, orders, w)
	sends := x.txs.queue(ctx)
	defer sends.wait()
	started := 0
	for i, o := range orders {
		sent, err := x.startOrder(ctx, head, o, &preps[i], w, sends)
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

// wallet reads the fees, the hot wallet's next nonce and what it can spend (spendable) for a
// step that sends, all at once.
func (x *Executor) wallet(ctx context.Context) (*walletState, error) {
	w := x.signer.Address()
	var (
		tip, feeCap        *big.Int
		chainNonce         uint64
		liq                *liquidity
		feeErr, nErr, lErr error
		wg                 sync.WaitGroup
	)
	wg.Go(func() { tip, feeCap, feeErr = fees(ctx, x.client) })
	wg.Go(func() { chainNonce, nErr = x.client.PendingNonceAt(ctx, w) })
	wg.Go(func() { liq, lErr = spendable(ctx, x.client, x.store, x.net.Name, w) })
	wg.Wait()
	switch {
	case feeErr != nil:
		return nil, feeErr
	case nErr != nil:
		return nil, fmt.Errorf("nonce: %w", nErr)
	case lErr != nil:
		return nil, fmt.Errorf("hot wallet: %w", lErr)
	}
	return &walletState{tip: tip, feeCap: feeCap, chainNonce: chainNonce, liq: liq}, nil
}

// errNoLiquidity stops a step: the hot wallet cannot pay for the next call.
var errNoLiquidity = errors.New("hot wallet balance too low")

// prepared is an order's plan and pre-flight, each when made: before the step starts the
// orders one by one (for those it expects to start), or then.
type prepared struct {
	planned bool
	plan    *execPlan
	planErr error // the order's failure (its arguments no longer encode)
	// flown says the pre-flight was made: reason is why the call would revert ("" when it
	// would not), preErr why the pre-flight could not be made.
	flown  bool
	reason string
	preErr error
}

// prepare plans the orders the hot wallet can pay for if each is started, oldest first, up to
// the first it cannot pay (where the step stops: the orders past it wait), and pre-flights
// their calls all at once. An order past that one is planned and pre-flighted when the step
// reaches it after all (one before it failed, and spent nothing). So a wallet waiting for
// funds does not cost the store and the node a read and a call per order every poll.
func (x *Executor) prepare(ctx context.Context, orders []*rampway.Order, w *walletState) []prepared {
	preps := make([]prepared, len(orders))
	// What is left as the orders are started, if each is.
	native := new(big.Int).Set(w.liq.native)
	left := map[common.Address]*big.Int{}
	for i, o := range orders {
		prep := &preps[i]
		prep.plan, prep.planErr = x.plan(ctx, o)
		prep.planned = true
		p := prep.plan
		if p == nil {
			continue // fails, or waits for its function, without a pre-flight
		}
		cost := p.cost(w.feeCap)
		short := native.Cmp(cost) < 0
		if !short && p.token != nil {
			have, ok := left[p.token.Contract]
			if !ok {
				b, err := x.tokenBalance(ctx, p.token.Contract, w.liq)
				if err != nil {
					break // the step meets it again, and ends, at this order
				}
				have = new(big.Int).Set(b)
				left[p.token.Contract] = have
			}
			short = have.Cmp(p.tokenNeed) < 0
		}
		if short {
			if x.short().GivesUp(o, x.at()) {
				continue // fails without a pre-flight
			}
			break
		}
		prep.flown = true
		native.Sub(native, cost)
		if p.token != nil {
			left[p.token.Contract].Sub(left[p.token.Contract], p.tokenNeed)
		}
	}
	var wg sync.WaitGroup
	for i := range preps {
		if prep := &preps[i]; prep.flown {
			wg.Go(func() { prep.reason, prep.preErr = x.preflight(ctx, prep.plan) })
		}
	}
	wg.Wait()
	return preps
}

// short is the cause of an order the hot wallet cannot pay for: the domain decides whether it
// waits on (area A, or a fiat-paid order within FiatGiveUpAfter) or fails.
func (x *Executor) short() rampway.WalletShort {
	return rampway.WalletShort{Patience: x.cfg.FiatGiveUpAfter}
}

// cost is what the plan's calls can cost the hot wallet in the native coin: the value sent and
// the gas at feeCap.
func (p *execPlan) cost(feeCap *big.Int) *big.Int {
	return new(big.Int).Add(p.call.Value, new(big.Int).Mul(feeCap, new(big.Int).SetUint64(p.gas)))
}

// startOrder executes one prepared order: it signs and stores its transactions, and queues
// them on sends for their broadcast. It reports whether it started the order. Only errors that
// should end the step are returned.
func (x *Executor) startOrder(ctx context.Context, head uint64, o *rampway.Order, prep *prepared, w *walletState, sends *sendQueue) (bool, error) {
	log := x.log.With("order_id", o.ID, "merchant_id", o.MerchantID)
	tip, feeCap, chainNonce, liq := w.tip, w.feeCap, w.chainNonce, w.liq
	if !prep.planned {
		prep.plan, prep.planErr = x.plan(ctx, o)
		prep.planned = true
	}
	p, err := prep.plan, prep.planErr
	if err != nil {
		return false, x.fail(ctx, o, err.Error())
	}
	if p == nil {
		return false, nil // its function cannot be read now: logged, tried again
	}
	// Our own liquidity pays: a shortfall is ours to fix, never the order's failure.
	cost := p.cost(feeCap)
	short := liq.native.Cmp(cost) < 0
	if !short && p.token != nil {
		have, err := x.tokenBalance(ctx, p.token.Contract, liq)
		if err != nil {
			return false, err
		}
		short = have.Cmp(p.tokenNeed) < 0
	}
	if short && x.short().GivesUp(o, x.at()) {
		// The user's fiat cannot wait for ever: the order fails, its payment is given back.
		return false, x.refuse(ctx, o, x.short())
	}
	if liq.native.Cmp(cost) < 0 {
		log.Error("hot wallet cannot pay for the call: waiting for funds", "wallet", x.signer.Address().Hex(),
			"balance_wei", liq.native.String(), "needed_wei", cost.String())
		return false, x.lacking("order "+o.ID, x.net.Native, liq.native, cost)
	}
	if p.token != nil {
		have, err := x.tokenBalance(ctx, p.token.Contract, liq)
		if err != nil {
			return false, err
		}
		if have.Cmp(p.tokenNeed) < 0 {
			log.Error("hot wallet cannot pay for the call: waiting for funds", "wallet", x.signer.Address().Hex(), "token", p.token.Symbol,
				"balance", have.String(), "needed", p.tokenNeed.String())
			return false, x.lacking("order "+o.ID, *p.token, have, p.tokenNeed)
		}
	}

	if !prep.flown { // an order before it was not started after all: its liquidity is left
		prep.reason, prep.preErr = x.preflight(ctx, p)
		prep.flown = true
	}
	reason, err := prep.reason, prep.preErr
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
	sends.add(signed...)
	log.Info("order execution sent", "tx", exec.TxHash.Hex(), "nonce", exec.Nonce)
	return true, nil
}

// fail ends a paid order that cannot be executed: FAILED, with its refund record.
func (x *Executor) fail(ctx context.Context, o *rampway.Order, reason string) error {
	return x.refuse(ctx, o, rampway.ExecutionRefused{Reason: reason})
}

// refuse applies a request that ends a paid order (ExecutionRefused, WalletShort): FAILED, its
// payment given back. An order that moved on meanwhile (another instance executed it) is left
// as it is: a race, not an error.
func (x *Executor) refuse(ctx context.Context, o *rampway.Order, c rampway.Cause) error {
	n, err := x.store.Apply(ctx, o.ID, c, x.at())
	if rampway.ErrorCode(err) == rampway.ECONFLICT {
		return nil
	}
	if err != nil {
		return fmt.Errorf("fail order %s (%s): %w", o.ID, c.Kind(), err)
	}
	if n.Status == rampway.StatusFailed {
		x.log.Warn("order cannot be executed", "order_id", o.ID, "reason", n.FailureReason)
	}
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

// payoutGas is the gas limit of an area C transfer to the merchant: estimateGas's, at least
// the quoted one (21,000 for the native coin to an account, 100,000 to a contract wallet and
// for a token). On a network that charges its L1 data in gas (Arbitrum) the quoted limit
// would be refused by the node at every step, and the order would fail once the user's
// payment could wait no longer; what the transfer costs beyond the quoted network fee is the
// service's.
func (x *Executor) payoutGas(ctx context.Context, c rampway.Call) uint64 {
	_, limit := estimateGas(ctx, x.client, ethereum.CallMsg{From: x.signer.Address(), To: &c.To, Value: c.Value, Data: c.Data}, c.Gas)
	return limit
}

// plan is what executing o sends. An error is the order's failure (arguments that no longer
// encode); nil and no error, a function that cannot be read now (tried again later).
func (x *Executor) plan(ctx context.Context, o *rampway.Order) (*execPlan, error) {
	// The last guard before money moves: an order executes only on a network of its mode. One
	// that reaches here with the other mode (a forged or corrupted row; a network's mode
	// changed under open orders) fails, with the reason the operator reads.
	if err := rampway.ModeMatches("network "+x.net.Name, o.Livemode, x.net.Livemode); err != nil {
		x.log.Error("order refused: its mode is not the network's", "order_id", o.ID, "order_livemode", o.Livemode,
			"network", x.net.Name, "network_livemode", x.net.Livemode)
		return nil, errors.New(rampway.ErrorMessage(err))
	}
	if o.Area == rampway.AreaDeposit {
		c := rampway.PayoutCall(o.Asset, o.PayoutAddress, o.CryptoAmount, o.GasLimit)
		c.Gas = x.payoutGas(ctx, c)
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

// tokenBalance is what the hot wallet can spend of token: its balance at the step's block,
// read once per step, less what its unmined transactions may still move.
func (x *Executor) tokenBalance(ctx context.Context, token common.Address, liq *liquidity) (*big.Int, error) {
	if b, ok := liq.tokens[token]; ok {
		return b, nil
	}
	b, err := erc20Balance(ctx, x.client, token, x.signer.Address(), liq.at)
	if err != nil {
		return nil, err
	}
	if c := liq.committed[token]; c != nil {
		b = floorSub(b, c)
	}
	liq.tokens[token] = b
	return b, nil
}
