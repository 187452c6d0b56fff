package sim

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/checkout"
)

// maxOrders bounds a run's workload.
const maxOrders = 18

// kinds are the orders of the workload, one of each area's ways to pay.
var kinds = []string{"A-eth", "A-eth", "A-token", "B-card", "B-bank", "C-card", "C-bank"}

// faultState is the faults on in the current stretch of steps.
type faultState struct {
	rpc      rpcFaults
	recvFail int
	recvHang int
	provFail int
	// holdEvents: the provider holds its notifications back (they arrive late).
	holdEvents bool
}

// Run runs seed opt.Seed: its workload and faults for opt.Steps steps, checking the
// invariants after each, then lets the system quiesce with the faults off and checks them
// all. Violations are in the Result; an error is the simulation's own failure.
//
// A run is repeatable when crypto/rand is too (the ids rampway makes): the tests call
// testing/cryptotest.SetGlobalRandom with the seed first.
func Run(ctx context.Context, opt Options) (*Result, error) {
	w, err := New(ctx, opt)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	return w.res, w.run(ctx)
}

// hashes are 32-byte hex values: block hashes differ from run to run (go-ethereum stamps
// blocks with the wall clock), so the trace leaves them out.
var hashes = regexp.MustCompile(`0x[0-9a-fA-F]{64}`)

func (w *World) trace(format string, args ...any) {
	line := hashes.ReplaceAllString(fmt.Sprintf("%04d ", w.step)+fmt.Sprintf(format, args...), "0x…")
	w.res.Trace = append(w.res.Trace, line)
	if w.opt.Trace != nil {
		fmt.Fprintln(w.opt.Trace, line)
	}
}

func (w *World) view() *View {
	return &View{Store: w.p.store.Store, DB: w.p.store.DB(), Chain: w.rpc, Network: w.net, HotWallet: w.hot, Treasury: w.treasury,
		Provider: w.provider.moneyIn(), w: w}
}

// check runs the invariants (the final ones too when final) and records what they find.
func (w *World) check(ctx context.Context, final bool) {
	all := append(slices.Clone(Checks), w.opt.Invariants...)
	v := w.view()
	for _, inv := range all {
		if inv.Final && !final {
			continue
		}
		for _, bad := range inv.Check(ctx, v) {
			msg := fmt.Sprintf("step %d: %s: %s", w.step, inv.Name, bad)
			if !slices.Contains(w.res.Violations, msg) && !w.seen(inv.Name, bad) {
				w.res.Violations = append(w.res.Violations, msg)
				w.trace("VIOLATION %s: %s", inv.Name, bad)
			}
		}
	}
}

// seen reports whether the same violation was recorded at an earlier step (it is reported
// once, at the step it appeared).
func (w *World) seen(name, bad string) bool {
	for _, v := range w.res.Violations {
		if strings.HasSuffix(v, ": "+name+": "+bad) {
			return true
		}
	}
	return false
}

func (w *World) run(ctx context.Context) error {
	var fs faultState
	for w.step = 1; w.step <= w.opt.Steps; w.step++ {
		w.changeFaults(&fs)
		w.faults.setStep(w.step, fs.rpc)
		w.receiver.setStep(w.step, fs.recvFail, fs.recvHang)
		w.provider.step, w.provider.rate = w.step, fs.provFail
		if err := w.act(ctx, &fs); err != nil {
			return fmt.Errorf("step %d: %w", w.step, err)
		}
		for _, f := range append(append(w.faults.takeFired(), w.receiver.takeFired()...), w.provider.fired...) {
			w.res.Counts["fault "+f]++
		}
		w.provider.fired = nil
		if w.p.store.dead || w.p.store.armed {
			w.trace("crash at %s: restart", or(w.p.store.fired, "no write"))
			w.res.Counts["fault crash"]++
			if err := w.restart(ctx); err != nil {
				return err
			}
		}
		w.check(ctx, false)
	}
	if err := w.quiesce(ctx); err != nil {
		return err
	}
	w.check(ctx, true)
	w.count(ctx)
	return nil
}

func or(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// changeFaults turns fault windows on and off now and then.
func (w *World) changeFaults(fs *faultState) {
	r := w.rng
	if r.IntN(100) < 6 {
		if fs.rpc.Rate > 0 {
			fs.rpc = rpcFaults{}
			w.trace("faults: node healthy again")
		} else {
			fs.rpc = rpcFaults{Rate: 100 + r.IntN(300), Drop: r.IntN(2) == 0, Stall: r.IntN(3) == 0, Timeout: r.IntN(2) == 0}
			if r.IntN(3) == 0 {
				fs.rpc.FeeSpike = int64(5 + r.IntN(50))
			}
			w.trace("faults: node failing %d‰ (drop %v, stall %v, timeout %v, fee spike x%d)", fs.rpc.Rate, fs.rpc.Drop, fs.rpc.Stall, fs.rpc.Timeout, fs.rpc.FeeSpike)
		}
	}
	if r.IntN(100) < 5 {
		if fs.recvFail+fs.recvHang > 0 {
			fs.recvFail, fs.recvHang = 0, 0
			w.trace("faults: receiver healthy again")
		} else {
			fs.recvFail, fs.recvHang = 200+r.IntN(800), r.IntN(300)
			w.trace("faults: receiver failing %d‰, hanging %d‰", fs.recvFail, fs.recvHang)
		}
	}
	if r.IntN(100) < 4 {
		if fs.provFail > 0 {
			fs.provFail = 0
			w.trace("faults: provider healthy again")
		} else {
			fs.provFail = 200 + r.IntN(800)
			w.trace("faults: provider failing %d‰", fs.provFail)
		}
	}
	if r.IntN(100) < 5 {
		fs.holdEvents = !fs.holdEvents
		w.trace("faults: provider holds its notifications %v", fs.holdEvents)
	}
}

// action is one kind of step, with its weight.
type action struct {
	name   string
	weight int
}

var actions = []action{
	{"create", 9}, {"pay", 9}, {"fiat", 9}, {"notify", 9}, {"mine", 12},
	{"watcher", 8}, {"executor", 10}, {"sweeper", 3}, {"fiatwork", 5}, {"dispatcher", 8}, {"expiry", 2},
	{"tick", 8}, {"jump", 1}, {"crash", 3}, {"reorg", 2}, {"refund", 3},
}

func (w *World) pick() string {
	total := 0
	for _, a := range actions {
		total += a.weight
	}
	n := w.rng.IntN(total)
	for _, a := range actions {
		if n < a.weight {
			return a.name
		}
		n -= a.weight
	}
	panic("unreachable")
}

// workers are the steps a crash can fire in.
var workers = []string{"watcher", "executor", "sweeper", "fiatwork", "dispatcher", "notify"}

// act does one step.
func (w *World) act(ctx context.Context, fs *faultState) error {
	w.clock.t = w.clock.t.Add(time.Duration(100+w.rng.IntN(900)) * time.Millisecond)
	a := w.pick()
	if a == "crash" {
		after := w.rng.IntN(2) == 0
		w.p.store.arm(after)
		a = workers[w.rng.IntN(len(workers))]
		w.trace("crash armed (after commit %v) for the %s's next write", after, a)
	}
	switch a {
	case "create":
		if len(w.orders) >= maxOrders {
			return nil
		}
		what, err := w.newOrder(ctx, kinds[w.rng.IntN(len(kinds))])
		if err != nil {
			w.trace("create refused: %s", shortErr(err))
			return nil
		}
		w.trace("%s", what)
	case "pay":
		return w.payAction(ctx)
	case "fiat":
		return w.fiatAction(ctx)
	case "notify":
		if len(w.provider.outbox) == 0 {
			return nil
		}
		if fs.holdEvents {
			w.trace("provider holds %d notification(s)", len(w.provider.outbox))
			return nil
		}
		i := 0
		if w.rng.IntN(3) == 0 {
			i = w.rng.IntN(len(w.provider.outbox)) // out of order
		}
		what, err := w.deliverEvent(ctx, i, w.rng.IntN(8) == 0)
		if err != nil {
			return err
		}
		w.trace("%s", what)
	case "mine":
		what, err := w.mine()
		if err != nil {
			return err
		}
		w.trace("%s", what)
		if w.opt.Bug == BugDoubleExecution {
			return w.injectDoubleExecution(ctx)
		}
	case "watcher":
		w.traceErr("watcher step", w.p.watcher.Step(ctx))
	case "executor":
		w.traceErr("executor step", w.p.executor.Step(ctx))
	case "sweeper":
		w.traceErr("sweeper step", w.p.sweeper.Step(ctx))
	case "fiatwork":
		n, err := w.p.fiat.Step(ctx)
		w.traceErr(fmt.Sprintf("fiat worker step (%d done)", n), err)
		if w.opt.Bug == BugFiatRefundBehindTheBack {
			w.injectFiatRefund()
		}
	case "dispatcher":
		n, err := w.stepDispatcher(ctx)
		w.traceErr(fmt.Sprintf("dispatcher step (%d attempts)", n), err)
	case "expiry":
		n, err := w.p.checkout.ExpireDue(ctx)
		w.traceErr(fmt.Sprintf("expiry (%d ended)", n), err)
	case "reorg":
		return w.reorg(ctx)
	case "refund":
		return w.refund(ctx)
	case "tick":
		d := time.Duration(1+w.rng.IntN(60)) * time.Second
		w.clock.t = w.clock.t.Add(d)
		w.trace("clock +%s", d)
	case "jump":
		d := time.Duration(5+w.rng.IntN(55)) * time.Minute
		w.clock.t = w.clock.t.Add(d)
		w.trace("clock jumps +%s", d)
		w.res.Counts["fault clock jump"]++
	}
	return nil
}

func (w *World) traceErr(what string, err error) {
	if err != nil {
		w.trace("%s: %s", what, shortErr(err))
		return
	}
	w.trace("%s", what)
}

// payAction pays one of the area A orders: the first payment exact, short or over (late
// when its time is up); a short one's rest later.
func (w *World) payAction(ctx context.Context) error {
	var open []*simOrder
	for _, o := range w.orders {
		if o.Kind[0] == 'A' && o.Paid.Cmp(o.Amount) < 0 {
			open = append(open, o)
		}
	}
	if len(open) == 0 {
		return nil
	}
	o := open[w.rng.IntN(len(open))]
	how := "exact"
	switch {
	case o.Paid.Sign() > 0:
		how = "rest"
	default:
		switch n := w.rng.IntN(10); {
		case n < 2:
			how = "under"
		case n < 4:
			how = "over"
		}
	}
	what, err := w.pay(ctx, o, how)
	if err != nil {
		return err
	}
	if what != "" {
		w.trace("%s", what)
	}
	return nil
}

// fiatAction moves one of the fiat orders on at the provider: starts its payment (the user on
// the page), authorises or declines a card, or credits a bank transfer (exact, short, over,
// or twice).
func (w *World) fiatAction(ctx context.Context) error {
	var open []*simOrder
	for _, o := range w.orders {
		if o.Kind[0] != 'A' && o.Payments < 2 {
			open = append(open, o)
		}
	}
	if len(open) == 0 {
		return nil
	}
	o := open[w.rng.IntN(len(open))]
	if o.PayRef == "" {
		ord, err := w.p.store.Order(ctx, o.ID)
		if err != nil {
			return err
		}
		pay, err := w.p.checkout.StartFiatPayment(ctx, ord, "https://pay.sim/return")
		if err != nil {
			w.trace("start payment of %s: %s", o.Label, shortErr(err))
			return nil
		}
		if pay.ProviderRef == "" {
			w.trace("start payment of %s: no provider ref yet", o.Label)
			return nil
		}
		o.PayRef = pay.ProviderRef
		w.trace("start payment of %s", o.Label)
		return nil
	}
	if strings.HasSuffix(o.Kind, "card") {
		ok := w.rng.IntN(6) > 0
		if w.provider.authorize(o.PayRef, ok) {
			o.Payments++
			if ok {
				o.Payments = 2
			}
			w.trace("card of %s authorised %v", o.Label, ok)
		}
		return nil
	}
	amount := new(big.Int).Set(o.Amount)
	how := "exact"
	switch n := w.rng.IntN(10); {
	case o.Payments > 0:
		how = "again"
	case n < 2:
		how = "short"
		amount.Div(amount, big.NewInt(2))
	case n < 3:
		how = "over"
		amount.Add(amount, big.NewInt(500))
	}
	if w.provider.credit(o.PayRef, amount) {
		o.Payments++
		w.trace("bank transfer for %s %s %s", o.Label, how, amount)
	}
	return nil
}

// injectFiatRefund is Options.Bug BugFiatRefundBehindTheBack: the first payment the provider
// captured is refunded 1.00 at the provider, whose notification of it never comes (made in its
// dashboard, say): rampway's ledger does not hear of it.
func (w *World) injectFiatRefund() {
	if w.refundedBehind != "" {
		return
	}
	for _, ref := range slices.Sorted(maps.Keys(w.provider.payments)) {
		pay := w.provider.payments[ref]
		if pay.Captured.Cmp(big.NewInt(100)) >= 0 && pay.Refunded.Sign() == 0 {
			pay.Refunded.Add(pay.Refunded, big.NewInt(100))
			w.refundedBehind = ref
			w.trace("BUG: the provider refunded 1.00 of %s behind rampway's back", ref)
			return
		}
	}
}

// injectDoubleExecution is Options.Bug: once an order's call has succeeded, the same call is
// signed again with the hot wallet's next nonce on chain and sent, behind the store's back.
func (w *World) injectDoubleExecution(ctx context.Context) error {
	if w.doubled != "" {
		return nil
	}
	for _, o := range w.orders {
		x, txs, err := w.p.store.Execution(ctx, o.ID)
		if err != nil || x == nil || len(txs) == 0 {
			continue
		}
		ord, err := w.p.store.Order(ctx, o.ID)
		if err != nil || ord.Status != rampway.StatusSuccess || o.Kind == "A-token" || o.Kind[0] == 'C' { // a mint paid in ETH: the same call succeeds again
			continue
		}
		var old types.Transaction
		if err := old.UnmarshalBinary(txs[len(txs)-1].Raw); err != nil {
			return err
		}
		nonce, err := w.rpc.PendingNonceAt(ctx, w.hot)
		if err != nil {
			return err
		}
		head, err := w.rpc.HeaderByNumber(ctx, nil)
		if err != nil {
			return err
		}
		tx := &types.DynamicFeeTx{ChainID: w.chain.ChainID(), Nonce: nonce, GasTipCap: big.NewInt(1e9),
			GasFeeCap: new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(3)), big.NewInt(1e9)), Gas: old.Gas(), To: old.To(), Value: old.Value(), Data: old.Data()}
		signed, err := types.SignNewTx(w.hotKey, types.LatestSignerForChainID(w.chain.ChainID()), tx)
		if err != nil {
			return err
		}
		if err := w.rpc.SendTransaction(ctx, signed); err != nil {
			return err
		}
		w.doubled = o.Label
		w.trace("BUG: order %s's call sent a second time", o.Label)
		return nil
	}
	return nil
}

// quiesce lets the system finish with every fault off: the provider's notifications
// delivered, blocks mined, every worker stepped, the clock moved on (past the orders' expiry),
// until nothing changes for a while.
func (w *World) quiesce(ctx context.Context) error {
	w.faults.setStep(w.step, rpcFaults{})
	w.receiver.setStep(w.step, 0, 0)
	w.provider.rate = 0
	w.trace("quiesce: faults off")
	same, last, jumped := 0, "", false
	for round := 0; round < 400; round++ {
		w.step++
		w.faults.setStep(w.step, rpcFaults{})
		if round%20 == 19 {
			w.clock.t = w.clock.t.Add(10 * time.Minute)
		} else {
			w.clock.t = w.clock.t.Add(30 * time.Second)
		}
		for len(w.provider.outbox) > 0 {
			if _, err := w.deliverEvent(ctx, 0, false); err != nil {
				return err
			}
		}
		if _, err := w.mine(); err != nil {
			return err
		}
		errs := []error{w.p.watcher.Step(ctx), w.p.executor.Step(ctx), w.p.sweeper.Step(ctx)}
		_, err := w.p.fiat.Step(ctx)
		errs = append(errs, err)
		_, err = w.stepDispatcher(ctx)
		errs = append(errs, err)
		_, err = w.p.checkout.ExpireDue(ctx)
		errs = append(errs, err)
		state, serr := w.state(ctx)
		if serr != nil {
			return serr
		}
		if e := errors.Join(errs...); e != nil {
			state += " error: " + shortErr(e)
		}
		if state == last {
			same++
		} else {
			same, last = 0, state
		}
		if same >= 25 {
			if !jumped {
				// Past every order's expiry (bank transfers wait days), then settle again.
				jumped, same = true, 0
				w.clock.t = w.clock.t.Add(checkout.DefaultBankTransferExpiry + time.Hour)
				w.trace("quiesce: clock jumps past every expiry")
				continue
			}
			w.trace("quiesced after %d rounds: %s", round+1, state)
			return nil
		}
	}
	w.trace("did not quiesce in 400 rounds: %s", last)
	return nil
}

// state is a summary of what is left to do, for the quiescence: it stops changing once
// nothing moves.
func (w *World) state(ctx context.Context) (string, error) {
	db := w.p.store.DB()
	var b strings.Builder
	for _, q := range []string{
		`SELECT COUNT(*) FROM chain_txs WHERE status = 'pending'`,
		`SELECT COUNT(*) FROM webhook_deliveries WHERE status = 'pending'`,
		`SELECT COUNT(*) FROM fiat_actions WHERE status = 'pending'`,
		`SELECT COUNT(*) FROM refunds WHERE status IN ('pending', 'sent')`,
		`SELECT COUNT(*) FROM sweeps WHERE status NOT IN ('done', 'failed')`,
		`SELECT group_concat(status, ',') FROM (SELECT status FROM orders ORDER BY created_at, id)`,
	} {
		var s any
		if err := db.QueryRowContext(ctx, q).Scan(&s); err != nil {
			return "", fmt.Errorf("%s: %w", q, err)
		}
		fmt.Fprintf(&b, "%v;", s)
	}
	return b.String(), nil
}

// count records the run's figures: orders by area and end status, crashes.
func (w *World) count(ctx context.Context) {
	for _, o := range w.orders {
		ord, err := w.p.store.Order(ctx, o.ID)
		if err != nil {
			continue
		}
		w.res.Counts["orders "+o.Kind+" "+string(ord.Status)]++
		w.res.Counts["orders"]++
	}
	w.res.Counts["restarts"] = w.crashes
	w.res.Counts["steps"] = w.step
	var blocks uint64
	blocks, _ = w.rpc.BlockNumber(ctx)
	w.res.Counts["blocks"] = int(blocks)
}

// reorg replaces the head block: what waits in the pool is mined first (go-ethereum forks
// only with an empty pool), then the chain goes back to that block's parent and one or two
// other blocks are mined on it, with the transactions of the dropped block that the pool
// takes back. One block deep, below the network's two confirmations: a credited payment is
// never reorganised away (deeper reorganisations are outside what rampway promises).
func (w *World) reorg(ctx context.Context) error {
	if _, err := w.mine(); err != nil {
		return err
	}
	head, err := w.rpc.HeaderByNumber(ctx, nil)
	if err != nil {
		return err
	}
	if err := w.chain.Fork(head.ParentHash); err != nil {
		w.trace("reorg refused: %s", shortErr(err))
		return nil
	}
	n := 1 + w.rng.IntN(2)
	for range n {
		if _, err := w.chain.Mine(); err != nil {
			return err
		}
	}
	w.scan = chainScan{} // the invariants read the chain again
	w.res.Counts["fault reorg"]++
	w.trace("reorg: block %d replaced, %d new block(s) on its parent", head.Number.Uint64(), n)
	return nil
}

// refund has the merchant refund one of its orders that succeeded: all of it, or a part.
func (w *World) refund(ctx context.Context) error {
	var done []*simOrder
	for _, o := range w.orders {
		if ord, err := w.p.store.Order(ctx, o.ID); err == nil && ord.Status == rampway.StatusSuccess && !o.Refunded {
			done = append(done, o)
		}
	}
	if len(done) == 0 {
		return nil
	}
	o := done[w.rng.IntN(len(done))]
	ord, err := w.p.store.Order(ctx, o.ID)
	if err != nil {
		return err
	}
	req := checkout.MerchantRefundRequest{Source: rampway.RefundToMerchant, Reason: "the customer asked"}
	if w.rng.IntN(2) == 0 {
		_, dec := ord.RefundCurrency()
		half := new(big.Int).Div(ord.Paid(), big.NewInt(2))
		if half.Sign() > 0 {
			req.Amount = rampway.FormatUnits(half, dec)
		}
	}
	rf, err := w.p.refunds.Create(ctx, ord, req)
	if err != nil {
		w.trace("merchant refund of %s: %s", o.Label, shortErr(err))
		return nil
	}
	o.Refunded = true
	w.trace("merchant refund of %s (%s): %s", o.Label, or(req.Amount, "all"), rf.Status)
	return nil
}
