// The exploration is one goroutine of domain code per area: the race detector has nothing to
// find in it and makes it about twenty times slower (some 220 s of CPU, on CI's two cores).
// make unit runs it in a go test of its own, without -race.

//go:build !race

package rampway

import (
	"fmt"
	"iter"
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// The order machine explored exhaustively (issue 29): from a new order of each area, every
// sequence of steps up to a depth, breadth first over distinct states (a visited set keyed on
// the order's state and records, the payments and the outside world), applied as the stores
// apply them: a provider's notification through ApplyFiatEvent first, then its cause (the
// payment written even when the order refuses it); a transfer's or a refund's record changed
// before its cause, and left as it was when the order refuses it (ECONFLICT: no step). The
// steps are the system's (the chain confirming or dropping a transfer, the executor, the
// expiry, the refund worker and the chain paying or reverting a refund, the fiat worker's
// captures, voids and refunds, the provider deciding a 3-D Secure challenge and its
// notifications delivered in any order) and the others' (the user paying, again, with another
// card, by several transfers short, exact or over, cancelling; a reorganisation bringing a
// transfer back; the page reading a payment's state, applied late; the provider sending an
// earlier notification again; a refund held for an address or an approval, and an operator
// giving it). On every state reached it checks, and fails with the shortest sequence that
// breaks one:
//
//  1. at most one execution per order: ExecutionStarted is taken once, never after SUCCESS or
//     FAILED;
//  2. a way forward: from every state the system alone reaches a state at rest: the order
//     final (SUCCESS, CANCELLED, REFUNDED), or EXPIRED, or (area A) FAILED with its refunds all
//     dust ("a refund that is dust leaves a FAILED order as it is", docs/order-states.md), or a
//     refund waiting for an operator; nothing in flight (transfer, execution, refund, fiat
//     action, notification, a 3-D Secure challenge), no authorisation left held, and the
//     provider keeping exactly what the executed order used: money taken ends executed, or
//     voided or refunded;
//  3. the payment record says what the provider last said: once every notification the
//     provider sent about a payment is delivered (duplicated, reordered, late), the record's
//     status, amount received and whether it has a failure reason are the provider's (a
//     payment the provider is deciding, "processing", is not compared);
//  4. money is conserved at each step, in the order's units (area A in the crypto asset, B and C
//     in fiat minor units): in (crypto confirmed, credits, authorisations heard) = out (the
//     executed price, refunds, voids and captures recorded) + held (an order waiting for
//     payment, or paid and waiting for its execution);
//  5. every event emitted is a documented one (order.go, lifecycle.go, refund.go), from the
//     order's state before the cause to the state after it;
//  6. a refund never pays more than its amount: what it sends and its fee are at most its
//     amount, and the chain pays it once (sent again only after its transaction failed);
//  7. an area A order's state agrees with its refund records: none while it waits for or
//     confirms a payment, or expired unpaid; one not settled while REFUND_PENDING; all settled
//     when it becomes REFUNDED.
//
// Every fact (a payment, a receipt, a notification, a refund's progress) applied in a state
// with no rule for it (a *RuleMissing: a gap in the rule table) breaks the exploration too.
//
// The states the search for a way forward reaches beyond the depth are checked for 1, 3, 4 and
// 5 (and 6, 7) too, once the explored ones hold them (their sequence is then not the shortest).
//
// Figures on this machine (2 cores, go test -race -run TestExploreOrderMachine -v ., another
// engineer's tests running, load about 2.5), as the run logs them:
//   - the domain as of issue 29's rank fix: A stops at its first broken invariant after 3 steps
//     (59 states), B and C push after 6 (4,074 states); B and C card, depth 7: 20,776 distinct
//     states, 60,610 transitions tried, 1,328,254 sequences of steps each; 17 s (20 s wall);
//   - with those two mended (a REFUND_PENDING order whose refunds are all dust; a late
//     "refunded" notification of a push payment): A depth 14, 10,993 states, every reachable
//     one, 31,423 transitions, 375,274,928 sequences; B and C card as above; B and C push depth
//     8, 44,564 states, 102,238 transitions, 1,162,414 sequences each; 49 s (53 s wall), 0.95 GB
//     resident. (Card depth 8, 59,776 states each, took 73 to 97 s under the same load.)
//
// -short explores to depth 6. The test is built without the race detector only (see the top
// of the file): `go test -run TestExploreOrderMachine .`, as make unit runs it.
func TestExploreOrderMachine(t *testing.T) {
	for _, plan := range explorePlans() {
		t.Run(plan.name, func(t *testing.T) {
			t.Parallel()
			depth := plan.depth
			if testing.Short() {
				depth = min(depth, 6)
			}
			start := time.Now()
			x := &explorer{plan: plan, depth: depth, live: map[string]bool{}, via: map[string]string{}}
			fail := x.run()
			reach := ""
			switch {
			case fail != "":
				reach = " (stopped at the first broken invariant)"
			case slices.IndexFunc(x.nodes, func(n *xNode) bool { return n.depth == depth }) < 0:
				reach = " (every reachable state: none is new at this depth)"
			}
			t.Logf("area %s: depth %d, %d distinct states%s, %d transitions tried, %s sequences of steps, liveness over %d states, %s",
				plan.name, depth, len(x.nodes), reach, x.tried, x.sequences(), len(x.live), time.Since(start).Round(time.Millisecond))
			if fail != "" {
				t.Fatal(fail)
			}
		})
	}
}

// A plan is one area (and payment method) to explore, and how far.
type explorePlan struct {
	name   string
	depth  int
	order  func() *Order
	method string // "" for area A
	// Area A: the payments a user may send (base units), the most transfers, the dust limit of a
	// refund.
	pays      []int64
	transfers int
	dust      int64
	// Areas B and C: the most payments (card attempts are payments of their own), attempts on one
	// payment (a PaymentIntent confirmed again after a decline), credits to a push payment.
	payments, tries, credits int
}

// explorePlans are the areas, and the depths that keep the whole run (-race, 2 cores) under two
// minutes.
func explorePlans() []explorePlan {
	mint := func() *Order {
		o := lifecycleOrder(StatusCreated, 0)
		o.CryptoAmount = big.NewInt(1000) // short 400 or 600, exact 1000, over 1005 (its excess dust), dust 5
		return o
	}
	fiat := func(area Area, method string) func() *Order {
		return func() *Order {
			if area == AreaDeposit {
				return depositOrder(StatusCreated, method, "")
			}
			return fiatOrder(StatusCreated, method, "")
		}
	}
	return []explorePlan{
		{name: "A-crypto", depth: 14, order: mint, pays: []int64{5, 400, 600, 1000, 1005}, transfers: 2, dust: 5},
		{name: "B-card", depth: 7, order: fiat(AreaNFTRamp, MethodCard), method: MethodCard, payments: 2, tries: 2},
		{name: "B-push", depth: 8, order: fiat(AreaNFTRamp, MethodSEPABankTransfer), method: MethodSEPABankTransfer, payments: 1, credits: 3},
		{name: "C-card", depth: 7, order: fiat(AreaDeposit, MethodCard), method: MethodCard, payments: 2, tries: 2},
		{name: "C-push", depth: 8, order: fiat(AreaDeposit, MethodSEPABankTransfer), method: MethodSEPABankTransfer, payments: 1, credits: 3},
	}
}

// documentedEvents are the event names a cause may emit.
var documentedEvents = []EventName{EventCreated, EventDepositProcessing, EventDepositSuccess, EventDepositFailure, EventDepositDropped,
	EventOnrampProcessing, EventOnrampSuccess, EventOnrampFailure, EventSmartContractProcessing, EventSmartContractSuccess,
	EventSmartContractFailure, EventSuccess, EventCancelled, EventFailed, EventRefundPending, EventRefunded, EventRefundProcessing,
	EventRefundFailure}

// Execution states of a world.
const (
	execNone = iota
	execSent
	execDone
)

// xWorld is an order with everything around it: its records (transfers, refunds, fiat actions,
// payments) as a store holds them, and the outside world (the provider's side of each payment,
// its notifications in flight, the execution on chain).
type xWorld struct {
	o         *Order
	transfers []*InboundTransfer
	refunds   []*Refund
	actions   []*FiatAction
	pays      []*xPay
	exec      int
	started   int  // ExecutionStarted taken
	closed    bool // the order was SUCCESS or FAILED
	txs       int  // transfers made (their numbers)
	// refundsPaid is what the chain paid of each refund (by its cause), in all (copy on write).
	refundsPaid map[string]int64

	// What the step that made this world did and broke (not part of the state).
	broke []string
}

// xPay is a fiat payment: our record of it, and the provider's side.
type xPay struct {
	rec *FiatPayment
	// The provider's payment.
	prov                         FiatPaymentStatus
	reason                       string
	received, captured, refunded int64
	tries, credits, seq, dups    int
	flight                       []xEvent // sent, not yet delivered
	past                         []xEvent // sent, not credits (a duplicate may be sent again)
	syncs                        []string // ids of the states read from the provider and applied
	heard                        bool     // an authorisation of it was heard (a FiatAuthorizedCause)
}

// xEvent is a notification the provider sent, with what the payment had received then.
type xEvent struct {
	*ProviderEvent
	received int64
}

// sig is what a notification says, not its id: two with the same sig do the same. (What a
// credit's payment had received then adds nothing to the credit itself.)
func (e xEvent) sig() string {
	v := e.Type + "/" + string(e.Status) + "/" + e.Credit
	if e.Type != ProviderPaymentCredited {
		v += "/" + strconv.FormatInt(e.received, 10)
	}
	if e.Amount != nil {
		v += "/" + e.Amount.String()
	}
	if strings.HasPrefix(e.ID, "sync:") {
		v += "/sync"
	}
	return v
}

func (w *xWorld) clone() *xWorld {
	// The order, the payment records and each transfer, refund and action are never changed in
	// place: a step replaces what it changes (copy on write).
	n := *w
	n.transfers, n.refunds, n.actions = slices.Clone(w.transfers), slices.Clone(w.refunds), slices.Clone(w.actions)
	n.pays = make([]*xPay, len(w.pays))
	for i, p := range w.pays {
		c := *p
		c.flight, c.past, c.syncs = slices.Clip(p.flight), slices.Clip(p.past), slices.Clip(p.syncs)
		n.pays[i] = &c
	}
	n.broke = nil
	return &n
}

func (w *xWorld) facts() Facts {
	return Facts{Transfers: w.transfers, Refunds: w.refunds, FiatActions: w.actions}
}

// apply applies a cause as a store does: what Apply decides is written (its fiat actions once
// per cause, even when the order does not move); a cause the order's state does not take
// (ECONFLICT) changes nothing and is reported false.
func (w *xWorld) apply(c Cause) bool {
	out, err := Apply(w.o, w.facts(), c, t0.Add(time.Minute))
	if err != nil {
		if ErrorCode(err) != ECONFLICT {
			w.broke = append(w.broke, fmt.Sprintf("Apply(%s) failed: %v", c.Kind(), err))
			return true
		}
		return false
	}
	w.write(c, out)
	return true
}

// write records what Apply decided of cause c. Invariants 1 and 5 are checked here.
func (w *xWorld) write(c Cause, out *Outcome) {
	for _, a := range out.FiatActions {
		if !slices.ContainsFunc(w.actions, func(old *FiatAction) bool { return old.Cause == a.Cause }) {
			w.actions = append(w.actions, a)
		}
	}
	if out.Order == nil {
		return
	}
	from, to := w.o.Status, out.Order.Status
	if c.Kind() == CauseExecutionStarted {
		w.started++
		if w.started > 1 || w.closed {
			w.broke = append(w.broke, fmt.Sprintf("invariant 1: ExecutionStarted taken again (the %d-th, the order was SUCCESS or FAILED: %v)",
				w.started, w.closed))
		}
	}
	for _, e := range out.Events {
		if !slices.Contains(documentedEvents, e.Name) {
			w.broke = append(w.broke, fmt.Sprintf("invariant 5: event %q is not a documented one", e.Name))
		}
		if e.From != from || e.To != to {
			w.broke = append(w.broke, fmt.Sprintf("invariant 5: event %s is %s -> %s, the order moved %s -> %s", e.Name, e.From, e.To, from, to))
		}
	}
	w.o = out.Order
	w.refunds = append(w.refunds, out.Refunds...)
	if to == StatusRefunded && from != StatusRefunded && w.o.Area == AreaMint && slices.ContainsFunc(w.refunds, func(r *Refund) bool { return !r.Settled() }) {
		w.broke = append(w.broke, fmt.Sprintf("invariant 7: the order became REFUNDED (%s) with a refund not settled", c.Kind()))
	}
	if to == StatusSuccess || to == StatusFailed {
		w.closed = true
	}
}

// xMove is a step: what it is (a format and its arguments, printed only when needed) and the
// world after it.
type xMove struct {
	format string
	args   []any
	w      *xWorld
}

func (m xMove) label() string { return fmt.Sprintf(m.format, m.args...) }

type explorer struct {
	plan  explorePlan
	depth int
	nodes []*xNode
	seen  map[string]int
	tried int
	live  map[string]bool
	// The states the search for a way forward reached beyond the explored ones, each with the
	// state it was reached from, and the first of them that breaks an invariant.
	via  map[string]string
	over string
}

type xNode struct {
	w      *xWorld
	parent int
	label  string
	depth  int
	out    []int32 // the states its moves lead to
}

// run explores breadth first and returns the first (shortest) broken invariant, "" for none;
// then the states beyond the depth that the search for a way forward reached.
func (x *explorer) run() string {
	root := &xWorld{o: x.plan.order()}
	if x.plan.method != "" {
		root.pays = []*xPay{x.newPay(root, 1)}
	}
	x.seen = map[string]int{x.key(root): 0}
	x.nodes = []*xNode{{w: root, parent: -1}}
	if msg := x.check(root, x.key(root)); msg != "" {
		return x.report(0, msg)
	}
	for i := 0; i < len(x.nodes); i++ {
		n := x.nodes[i]
		if n.depth >= x.depth {
			continue
		}
		for m := range x.moves(n.w, false) {
			x.tried++
			k := x.key(m.w)
			if j, ok := x.seen[k]; ok {
				n.out = append(n.out, int32(j))
				continue
			}
			j := len(x.nodes)
			x.seen[k] = j
			x.nodes = append(x.nodes, &xNode{w: m.w, parent: i, label: m.label(), depth: n.depth + 1})
			n.out = append(n.out, int32(j))
			if msg := x.check(m.w, k); msg != "" {
				return x.report(j, msg)
			}
		}
	}
	return x.beyond()
}

// sequences counts the sequences of causes of length up to the depth that the run covered:
// the paths from the new order through the explored moves.
func (x *explorer) sequences() string {
	cur := make([]*big.Int, len(x.nodes))
	cur[0] = big.NewInt(1)
	total := big.NewInt(1)
	for range x.depth {
		next := make([]*big.Int, len(x.nodes))
		for i, n := range x.nodes {
			if cur[i] == nil || cur[i].Sign() == 0 {
				continue
			}
			for _, j := range n.out {
				if next[j] == nil {
					next[j] = new(big.Int)
				}
				next[j].Add(next[j], cur[i])
				total.Add(total, cur[i])
			}
		}
		cur = next
	}
	return total.String()
}

// check returns what a state breaks: the step's own findings (1, 5), money (4), the payment
// records (3), a way forward (2).
func (x *explorer) check(w *xWorld, k string) string {
	if msg := x.local(w); msg != "" {
		return msg
	}
	if !x.forward(w, k, "") {
		return "invariant 2 (a way forward): from this state the system alone never reaches a state at rest" + deadEndMark + x.deadEnd(w)
	}
	return ""
}

// local returns what a state breaks by itself: the step's own findings (1, 5), money (4), the
// payment records (3).
func (x *explorer) local(w *xWorld) string {
	if len(w.broke) > 0 {
		return strings.Join(w.broke, "; ")
	}
	if msg := x.money(w); msg != "" {
		return "invariant 4 (money): " + msg
	}
	if msg := refundsAgree(w); msg != "" {
		return "invariant 7 (refunds agree with the order): " + msg
	}
	for _, p := range w.pays {
		if len(p.flight) > 0 || p.prov == FiatProcessing {
			continue
		}
		r := p.rec
		if r.Status != p.prov || r.Received.Int64() != p.received || (r.FailureReason != "") != (p.prov == FiatFailed) {
			return fmt.Sprintf("invariant 3 (the provider's last word): every notification of %s delivered, the provider says %s (received %d, "+
				"reason %q), the record says %s (received %s, reason %q)", r.ID, p.prov, p.received, p.reason, r.Status, r.Received, r.FailureReason)
		}
	}
	return ""
}

// beyond reports the first state beyond the depth, among those the search for a way forward
// reached (the system finishing what each explored state started), that breaks invariant 1, 3,
// 4 or 5, once the explored ones hold them all: its sequence is the explored state's, then the
// system's steps, found again.
func (x *explorer) beyond() string {
	if x.over == "" {
		return ""
	}
	var keys []string
	for k := x.over; ; k = x.via[k] {
		keys = append(keys, k)
		if _, ok := x.seen[k]; ok {
			break
		}
	}
	slices.Reverse(keys)
	j := x.seen[keys[0]]
	w := x.nodes[j].w
	var b strings.Builder
	b.WriteString("beyond the depth, the system alone then:")
	for _, k := range keys[1:] {
		for m := range x.moves(w, true) {
			if x.key(m.w) == k {
				w = m.w
				fmt.Fprintf(&b, "\n      then %s\n      -> %s", m.label(), x.describe(w))
				break
			}
		}
	}
	return x.report(j, x.local(w)+" (a state the system reaches beyond the depth)"+deadEndMark+b.String())
}

// deadEnd follows the system's moves from a state with no way forward to where they stop, and
// says why that is not at rest.
func (x *explorer) deadEnd(w *xWorld) string {
	var b strings.Builder
	b.WriteString("the system alone, from there:")
	for {
		var next *xMove
		for m := range x.moves(w, true) {
			next = &m
			break
		}
		if next == nil {
			break
		}
		w = next.w
		fmt.Fprintf(&b, "\n      then %s\n      -> %s", next.label(), x.describe(w))
	}
	fmt.Fprintf(&b, "\n      and nothing more happens: %s", strings.Join(x.unrest(w, true), "; "))
	return b.String()
}

// money checks invariant 4: in = out + held, in the order's units.
func (x *explorer) money(w *xWorld) string {
	o := w.o
	in, out, held := new(big.Int), new(big.Int), new(big.Int)
	if o.Area == AreaMint {
		for _, t := range w.transfers {
			if t.Status == TransferConfirmed {
				in.Add(in, t.Amount)
			}
		}
		if in.Cmp(o.CryptoReceived) != 0 {
			return fmt.Sprintf("crypto_amount_received %s, the confirmed transfers %s", o.CryptoReceived, in)
		}
		for _, r := range w.refunds {
			out.Add(out, r.Amount)
		}
		switch o.Status {
		case StatusSuccess:
			out.Add(out, o.CryptoAmount)
		case StatusCreated, StatusDepositProcessing, StatusUnderpaid:
			held.Set(o.CryptoReceived)
		case StatusDepositSuccess, StatusSmartContractProcessing:
			held.Set(o.CryptoAmount)
		}
	} else {
		for _, p := range w.pays {
			in.Add(in, p.rec.Received)
			if p.heard {
				in.Add(in, p.rec.Amount)
			}
		}
		for _, a := range w.actions {
			out.Add(out, a.Amount)
		}
		paid := o.FiatPaymentID != ""
		switch {
		case o.Status == StatusSuccess && paid && MethodFlow(o.FiatMethod) == FlowPush:
			out.Add(out, o.FiatAmount) // a capture is an action
		case paid && (o.Status == StatusOnrampSuccess || o.Status == StatusSmartContractProcessing ||
			o.Status == StatusDepositProcessing):
			held.Set(o.FiatAmount)
		}
	}
	if sum := new(big.Int).Add(out, held); in.Cmp(sum) != 0 {
		return fmt.Sprintf("in %s, out %s + held %s = %s (order %s)", in, out, held, sum, o.Status)
	}
	return ""
}

// unrest says why a state is not at rest (nothing: it is); only whether it is, unless explain.
func (x *explorer) unrest(w *xWorld, explain bool) []string {
	var why []string
	// not notes a reason; it reports whether to look for more.
	not := func(format string, args ...any) bool {
		if !explain {
			why = []string{""}
			return false
		}
		why = append(why, fmt.Sprintf(format, args...))
		return true
	}
	o := w.o
	operator := slices.ContainsFunc(w.refunds, func(r *Refund) bool {
		return r.Status == RefundAwaitingAddress || r.Status == RefundAwaitingApproval || r.Status == RefundFailed
	})
	allDust := len(w.refunds) > 0 && !slices.ContainsFunc(w.refunds, func(r *Refund) bool { return r.Status != RefundDust })
	switch {
	case o.Status.Terminal(), o.Status == StatusExpired, operator:
	case o.Area == AreaMint && o.Status == StatusFailed && allDust: // "a refund that is dust leaves a FAILED order as it is"
	default:
		if !not("the order is %s", o.Status) {
			return why
		}
	}
	for _, t := range w.transfers {
		if t.Status == TransferSeen && !not("tx%d is not confirmed", t.BlockNumber) {
			return why
		}
	}
	if w.exec == execSent && !not("the execution is in flight") {
		return why
	}
	for _, r := range w.refunds {
		if (r.Status == RefundPending || r.Status == RefundSent) && !not("refund %s is %s", refundName(r), r.Status) {
			return why
		}
	}
	for _, a := range w.actions {
		if a.Status != ActionDone && !not("fiat action %s is %s", a.Cause, a.Status) {
			return why
		}
	}
	kept := int64(0)
	for _, p := range w.pays {
		if len(p.flight) > 0 && !not("%d notification(s) of %s in flight", len(p.flight), p.rec.ID) {
			return why
		}
		switch {
		case p.prov == FiatProcessing && !not("%s is processing at the provider", p.rec.ID):
			return why
		case p.prov == FiatAuthorized && !not("%s is left authorised at the provider (neither captured nor voided)", p.rec.ID):
			return why
		}
		kept += p.received + p.captured - p.refunded
	}
	if o.Area != AreaMint {
		used := int64(0)
		if o.Status == StatusSuccess {
			used = o.FiatAmount.Int64()
		}
		if kept != used {
			not("the provider keeps %d of the user's money, the executed order used %d", kept, used)
		}
	}
	return why
}

// forward reports whether the system alone takes w to a state at rest (invariant 2); the
// answers are kept by state (k is w's key). from is the state w was reached from by the system
// ("" for an explored state).
func (x *explorer) forward(w *xWorld, k, from string) bool {
	if v, ok := x.live[k]; ok {
		return v
	}
	if _, ok := x.seen[k]; !ok && from != "" {
		x.via[k] = from
		if x.over == "" && x.local(w) != "" {
			x.over = k
		}
	}
	x.live[k] = false // on the way (the system's moves make progress: no cycle is taken as a way)
	ok := len(x.unrest(w, false)) == 0
	if !ok {
		for m := range x.moves(w, true) {
			if x.forward(m.w, x.key(m.w), k) {
				ok = true
				break
			}
		}
	}
	x.live[k] = ok
	return ok
}

// report prints the shortest sequence to state j and what it breaks.
func (x *explorer) report(j int, msg string) string {
	var path []*xNode
	for i := j; i >= 0; i = x.nodes[i].parent {
		path = append(path, x.nodes[i])
	}
	slices.Reverse(path)
	msg, tail, _ := strings.Cut(msg, deadEndMark)
	var b strings.Builder
	fmt.Fprintf(&b, "area %s: %s\nafter %d step(s) from a new order (%s):\n", x.plan.name, msg, len(path)-1, x.describe(path[0].w))
	for i, n := range path[1:] {
		fmt.Fprintf(&b, "  %2d. %s\n      -> %s\n", i+1, n.label, x.describe(n.w))
	}
	if tail != "" {
		b.WriteString("  " + tail + "\n")
	}
	return b.String()
}

// deadEndMark separates a broken invariant 2 from the moves that show it.
const deadEndMark = "\x00"

// refundName is a refund's cause, its transfer named by its number.
func refundName(r *Refund) string {
	if h, ok := strings.CutPrefix(r.Cause, "transfer:"); ok {
		h, _, _ = strings.Cut(h, ":")
		return fmt.Sprintf("transfer:tx%s", common.HexToHash(h).Big())
	}
	return r.Cause
}

// describe is a state in one line.
func (x *explorer) describe(w *xWorld) string {
	o := w.o
	parts := []string{"order " + string(o.Status)}
	if o.Area == AreaMint {
		parts = append(parts, "received "+o.CryptoReceived.String())
		for _, t := range w.transfers {
			parts = append(parts, fmt.Sprintf("tx%d %d %s", t.BlockNumber, t.Amount, t.Status))
		}
		for _, r := range w.refunds {
			parts = append(parts, fmt.Sprintf("refund %s %s %s", refundName(r), r.Amount, r.Status))
		}
	} else {
		if o.FiatPaymentID != "" {
			parts = append(parts, "paid by "+o.FiatPaymentID)
		}
		for _, p := range w.pays {
			s := fmt.Sprintf("%s record %s", p.rec.ID, p.rec.Status)
			if p.rec.Received.Sign() > 0 {
				s += " received " + p.rec.Received.String()
			}
			if p.rec.FailureReason != "" {
				s += fmt.Sprintf(" reason %q", p.rec.FailureReason)
			}
			s += fmt.Sprintf(" / provider %s", p.prov)
			if p.received+p.captured+p.refunded > 0 {
				s += fmt.Sprintf(" (received %d captured %d refunded %d)", p.received, p.captured, p.refunded)
			}
			if len(p.flight) > 0 {
				var f []string
				for _, e := range p.flight {
					f = append(f, eventName(e.ProviderEvent))
				}
				s += " in flight [" + strings.Join(f, ", ") + "]"
			}
			parts = append(parts, s)
		}
		for _, a := range w.actions {
			parts = append(parts, fmt.Sprintf("%s %s %s", a.Cause, a.Amount, a.Status))
		}
	}
	switch w.exec {
	case execSent:
		parts = append(parts, "execution sent")
	case execDone:
		parts = append(parts, "execution finished")
	}
	return strings.Join(parts, "; ")
}

// withReceived would give a notification what the payment had received in all when the
// provider sent it, which tells a late "refunded" from a current one; a ProviderEvent does not
// carry that (yet): once it does (e.Received), set it here.
func withReceived(e *ProviderEvent, received int64) { e.Received = big.NewInt(received) }

func eventName(e *ProviderEvent) string {
	s := fmt.Sprintf("%s %s(%s)", e.ID, e.Type, e.Status)
	if e.Amount != nil {
		s += fmt.Sprintf(" %s", e.Amount)
	}
	return s
}

// key is what tells states apart: the order's state, its records, the outside world. Ids made
// by Apply (random) are left out.
func (x *explorer) key(w *xWorld) string {
	b := make([]byte, 0, 256)
	str := func(v ...string) {
		for _, s := range v {
			b = append(b, s...)
		}
		b = append(b, '|')
	}
	num := func(v ...int64) {
		for _, n := range v {
			b = strconv.AppendInt(b, n, 10)
			b = append(b, ',')
		}
	}
	bigNum := func(v *big.Int) { b = v.Append(b, 10); b = append(b, ',') }
	o := w.o
	str(string(o.Status), o.FiatPaymentID)
	bigNum(o.CryptoReceived)
	num(int64(w.exec), int64(w.started))
	str(strconv.FormatBool(w.closed))
	for _, t := range w.transfers {
		num(int64(t.BlockNumber))
		bigNum(t.Amount)
		str(string(t.Status))
	}
	sorted := func(n int, f func(i int) string) {
		v := make([]string, n)
		for i := range v {
			v[i] = f(i)
		}
		slices.Sort(v)
		str(v...)
	}
	sorted(len(w.refunds), func(i int) string {
		r := w.refunds[i]
		return r.Cause + ":" + r.Amount.String() + ":" + string(r.Status) + ":" + strconv.FormatInt(w.refundsPaid[r.Cause], 10) + ";"
	})
	sorted(len(w.actions), func(i int) string {
		a := w.actions[i]
		return a.Cause + ":" + string(a.Kind) + ":" + a.Amount.String() + ":" + string(a.Status) + ";"
	})
	for _, p := range w.pays {
		str(p.rec.ID, string(p.rec.Status), strconv.FormatBool(p.rec.FailureReason != ""), strconv.FormatBool(p.heard), string(p.prov),
			strconv.FormatBool(p.reason != ""))
		bigNum(p.rec.Received)
		num(p.received, p.captured, p.refunded, int64(p.tries), int64(p.credits), int64(p.dups))
		sorted(len(p.flight), func(i int) string { return p.flight[i].sig() + ";" })
		str(p.syncs...)
	}
	return string(b)
}

// newPay is a new payment of the order, pending at the provider.
func (x *explorer) newPay(w *xWorld, n int) *xPay {
	id := fmt.Sprintf("fpy_%d", n)
	rec := fiatPayment(id, x.plan.method, FiatPending)
	rec.Amount = cloneBig(w.o.FiatAmount)
	return &xPay{rec: rec, prov: FiatPending}
}

// xSteps makes the steps from one world, one at a time, for as long as they are wanted.
type xSteps struct {
	w      *xWorld
	system bool // the system's steps only: the chain, the workers, the provider deciding and notifying
	yield  func(xMove) bool
	done   bool
}

// want reports whether a step of this kind is wanted at all.
func (s *xSteps) want(sys bool) bool { return !s.done && (sys || !s.system) }

// add makes the step f does to a copy of the world (none when f reports false).
func (s *xSteps) add(sys bool, f func(n *xWorld) bool, format string, args ...any) {
	if !s.want(sys) {
		return
	}
	n := s.w.clone()
	if f(n) && !s.yield(xMove{format: format, args: args, w: n}) {
		s.done = true
	}
}

// cause makes the step of a cause alone (no record changed before it): Apply first, the world
// copied only when the order takes it.
func (s *xSteps) cause(sys bool, c Cause, after func(n *xWorld), format string, args ...any) {
	if !s.want(sys) {
		return
	}
	out, err := Apply(s.w.o, s.w.facts(), c, t0.Add(time.Minute))
	if ErrorCode(err) == ECONFLICT {
		return
	}
	n := s.w.clone()
	if err != nil {
		n.broke = append(n.broke, fmt.Sprintf("Apply(%s) failed: %v", c.Kind(), err))
	} else {
		n.write(c, out)
	}
	if after != nil {
		after(n)
	}
	if !s.yield(xMove{format: format, args: args, w: n}) {
		s.done = true
	}
}

// moves are the steps from w (only the system's when system is set). A cause the order does
// not take is no step.
func (x *explorer) moves(w *xWorld, system bool) iter.Seq[xMove] {
	return func(yield func(xMove) bool) {
		s := &xSteps{w: w, system: system, yield: yield}
		// The executor, the expiry, the user's cancel: the order decides.
		s.cause(true, ExecutionStarted{TxHash: callTx}, func(n *xWorld) { n.exec = execSent }, "executor: the call is sent (execution_started)")
		if w.exec == execSent {
			done := func(n *xWorld) { n.exec = execDone }
			s.cause(true, ExecutionMined{TxHash: callTx}, done, "chain: the call is mined (execution_mined)")
			s.cause(true, ExecutionReverted{TxHash: callTx, Reason: "execution reverted: sold out"}, done, "chain: the call reverted (execution_reverted)")
		}
		s.cause(true, ExecutionRefused{Reason: "pre-flight reverted"}, nil, "executor: the call cannot be made (execution_refused)")
		s.cause(true, Expired{}, nil, "expiry (expired)")
		s.cause(false, Cancelled{}, nil, "user cancels (cancelled)")
		if w.o.Area == AreaMint {
			x.chainMoves(s)
			x.refundMoves(s)
			return
		}
		if w.o.Area == AreaDeposit {
			s.cause(false, FiatMethodChosen{Method: MethodCard, CryptoAmount: big.NewInt(1), NetworkFee: new(big.Int), ServiceFee: new(big.Int),
				ExpiresAt: t0.Add(time.Hour)}, nil, "user chooses a method (fiat_method_chosen)")
		}
		x.fiatMoves(s)
	}
}

// chainMoves are area A's payments: sent, seen, confirmed, dropped by a reorganisation and
// seen again.
func (x *explorer) chainMoves(s *xSteps) {
	w := s.w
	if w.txs < x.plan.transfers && s.want(false) {
		for _, v := range x.plan.pays {
			s.add(false, func(n *xWorld) bool {
				n.txs++
				t := transfer(uint64(n.txs), v, TransferSeen)
				n.transfers = append(n.transfers, t)
				c := *t
				return n.apply(PaymentSeen{Transfer: &c})
			}, "user pays %d: tx%d seen (payment_seen)", v, w.txs+1)
		}
	}
	set := func(n *xWorld, i int, st TransferStatus) *InboundTransfer {
		t := *n.transfers[i]
		t.Status = st
		n.transfers[i] = &t
		c := t
		return &c
	}
	for i, t := range w.transfers {
		switch t.Status {
		case TransferSeen:
			s.add(true, func(n *xWorld) bool { return n.apply(PaymentConfirmed{Transfer: set(n, i, TransferConfirmed)}) },
				"chain: tx%d confirmed (payment_confirmed)", t.BlockNumber)
			s.add(true, func(n *xWorld) bool { return n.apply(PaymentDropped{Transfer: set(n, i, TransferDropped)}) },
				"chain: tx%d dropped by a reorganisation (payment_dropped)", t.BlockNumber)
		case TransferDropped:
			s.add(false, func(n *xWorld) bool { return n.apply(PaymentSeen{Transfer: set(n, i, TransferSeen)}) },
				"chain: tx%d seen again in another block (payment_seen)", t.BlockNumber)
		}
	}
}

// refundMoves are area A's refund records' lives, each applied as the store applies it: the
// refund's cause through ApplyRefund, then the cause it brings to the order, both or neither (a
// cause the refund or the order refuses is no step). The refund worker sends a pending one (or
// settles it as dust, or holds it for an address or an approval), the chain pays it or reverts
// it, an operator (or the user, the merchant) gives it an address or approves it.
func (x *explorer) refundMoves(s *xSteps) {
	for i, r := range s.w.refunds {
		name := refundName(r) + " of " + r.Amount.String()
		step := func(sys bool, c RefundCause, format string) {
			if !s.want(sys) || !r.Takes(c.RefundKind()) {
				return
			}
			s.add(sys, func(n *xWorld) bool { return n.applyRefund(i, c) }, format, name)
		}
		fee := big.NewInt(1)
		if r.Amount.Int64() <= x.plan.dust {
			step(true, RefundIsDust{Fee: fee, Why: "dust"}, "refund worker: refund %s is dust (refund_is_dust)")
		} else {
			step(true, RefundSigned{TxHash: refundTx, To: r.To, Fee: fee, Sent: new(big.Int).Sub(r.Amount, fee)}, "refund worker: refund %s sent (refund_signed)")
			step(false, RefundHeld{Status: RefundAwaitingAddress, Why: "a contract"}, "refund worker: refund %s waits for an address (refund_held)")
			step(false, RefundHeld{Status: RefundAwaitingApproval, Why: "above the limit"}, "refund worker: refund %s waits for an approval (refund_held)")
		}
		step(true, RefundMined{TxHash: refundTx}, "chain: refund %s paid (refund_mined)")
		step(true, RefundReverted{TxHash: refundTx, Why: "reverted"}, "chain: refund %s reverted (refund_reverted)")
		step(false, RefundAddressGiven{To: payer, Source: RefundToUser}, "user: refund %s given an address (refund_address_given)")
		step(false, RefundApproved{By: "operator"}, "operator: refund %s approved (refund_approved)")
	}
}

// refundTx is the hash of every refund's transaction in the exploration.
var refundTx = common.HexToHash("0x7ef0")

// applyRefund applies refund cause c to refund i as a store does: ApplyRefund decides, then its
// cause to the order is applied; a refusal of either changes nothing and is reported false. The
// worker's dust threshold is the plan's: it holds no dust refund, nor sends one. Invariants 6
// and 7 are checked here.
func (w *xWorld) applyRefund(i int, c RefundCause) bool {
	r := w.refunds[i]
	n, oc, err := ApplyRefund(r, c, t0.Add(time.Minute))
	if ErrorCode(err) == ECONFLICT {
		return false
	}
	if err != nil {
		w.broke = append(w.broke, fmt.Sprintf("ApplyRefund(%s) failed: %v", c.RefundKind(), err))
		return true
	}
	if oc != nil {
		out, err := Apply(w.o, Facts{Transfers: w.transfers, Refunds: slices.Concat(w.refunds[:i], []*Refund{n}, w.refunds[i+1:]), FiatActions: w.actions},
			oc, t0.Add(time.Minute))
		if ErrorCode(err) == ECONFLICT {
			return false
		}
		if err != nil {
			w.broke = append(w.broke, fmt.Sprintf("Apply(%s) of refund %s failed: %v", oc.Kind(), refundName(r), err))
			return true
		}
		w.refunds[i] = n
		w.write(oc, out)
	} else {
		w.refunds[i] = n
	}
	switch c.(type) {
	case RefundSigned:
		if r.TxHash != (common.Hash{}) && w.refundsPaid[r.Cause] > 0 {
			w.broke = append(w.broke, fmt.Sprintf("invariant 6: refund %s sent again after it was paid", refundName(r)))
		}
	case RefundMined:
		w.refundsPaid = maps.Clone(w.refundsPaid)
		if w.refundsPaid == nil {
			w.refundsPaid = map[string]int64{}
		}
		w.refundsPaid[r.Cause] += n.Sent.Int64()
		if paid := w.refundsPaid[r.Cause]; paid > r.Amount.Int64() || paid != n.Sent.Int64() {
			w.broke = append(w.broke, fmt.Sprintf("invariant 6: refund %s of %s paid %d in all (sent %s): more than its amount, or twice",
				refundName(r), r.Amount, paid, n.Sent))
		}
	}
	if n.Fee != nil && n.Sent != nil && new(big.Int).Add(n.Fee, n.Sent).Cmp(n.Amount) > 0 {
		w.broke = append(w.broke, fmt.Sprintf("invariant 6: refund %s of %s sends %s with a fee of %s", refundName(r), n.Amount, n.Sent, n.Fee))
	}
	return true
}

// refundsAgree checks invariant 7 in a state: an area A order's state agrees with its refund
// records. An order waiting for or confirming a payment, or expired with nothing received, owes
// nothing; one REFUND_PENDING has a refund not yet settled. (That an order becomes REFUNDED
// only with every refund settled is checked on the step, in write: a payment after it is
// refunded, the order left REFUNDED.)
func refundsAgree(w *xWorld) string {
	o := w.o
	unsettled := slices.ContainsFunc(w.refunds, func(r *Refund) bool { return !r.Settled() })
	switch {
	case len(w.refunds) > 0 && slices.Contains([]OrderStatus{StatusCreated, StatusDepositProcessing, StatusUnderpaid, StatusExpired}, o.Status):
		return fmt.Sprintf("the order is %s with %d refund(s)", o.Status, len(w.refunds))
	case o.Status == StatusRefundPending && !unsettled:
		return "the order is REFUND_PENDING with every refund settled"
	}
	return ""
}

// fiatMoves are areas B and C's payments: the user acting at the provider, the provider
// deciding and notifying (its notifications delivered in any order, read again as a sync,
// sent twice), the fiat worker's captures, voids and refunds done by the provider.
func (x *explorer) fiatMoves(s *xSteps) {
	w := s.w
	push := MethodFlow(x.plan.method) == FlowPush
	amount := w.o.FiatAmount.Int64()
	// send has the provider move payment i to st and notify it.
	send := func(n *xWorld, i int, st FiatPaymentStatus, typ, reason string, extra func(e *ProviderEvent)) {
		q := n.pays[i]
		q.prov, q.reason = st, reason
		q.seq++
		e := &ProviderEvent{ID: fmt.Sprintf("%s#%d", q.rec.ID, q.seq), Type: typ, PaymentRef: q.rec.ProviderRef, Status: st, FailureReason: reason}
		withReceived(e, q.received)
		if extra != nil {
			extra(e)
		}
		q.flight = append(q.flight, xEvent{e, q.received})
		if typ != ProviderPaymentCredited {
			q.past = append(q.past, xEvent{e, q.received})
		}
	}
	for i, p := range w.pays {
		id := p.rec.ID
		if !push && s.want(false) && (p.prov == FiatPending || (p.prov == FiatFailed && p.tries < x.plan.tries)) {
			again := ""
			if p.prov == FiatFailed {
				again = " again"
			}
			try := func(st FiatPaymentStatus, typ, reason string) func(n *xWorld) bool {
				return func(n *xWorld) bool {
					n.pays[i].tries++
					send(n, i, st, typ, reason, nil)
					return true
				}
			}
			s.add(false, try(FiatProcessing, ProviderPaymentProcessing, ""), "user pays %s%s: 3-D Secure (provider: processing)", id, again)
			s.add(false, try(FiatAuthorized, ProviderPaymentAuthorized, ""), "user pays %s%s: authorised (provider: authorized)", id, again)
			s.add(false, try(FiatFailed, ProviderPaymentFailed, "card_declined"), "user pays %s%s: declined (provider: failed)", id, again)
		}
		if !push && p.prov == FiatProcessing {
			s.add(true, func(n *xWorld) bool { send(n, i, FiatAuthorized, ProviderPaymentAuthorized, "", nil); return true },
				"provider: %s authorised after 3-D Secure", id)
			s.add(true, func(n *xWorld) bool {
				send(n, i, FiatFailed, ProviderPaymentFailed, "authentication_failed", nil)
				return true
			},
				"provider: %s fails 3-D Secure", id)
		}
		if push && p.credits < x.plan.credits && s.want(false) {
			for _, v := range []int64{amount * 2 / 5, amount, amount + amount/5} {
				s.add(false, func(n *xWorld) bool {
					q := n.pays[i]
					q.credits++
					q.received += v
					credit := fmt.Sprintf("%s-c%d", id, q.credits)
					send(n, i, FiatSucceeded, ProviderPaymentCredited, "", func(e *ProviderEvent) { e.Credit, e.Amount = credit, big.NewInt(v) })
					return true
				}, "user's bank transfer of %d to %s arrives (provider: credited)", v, id)
			}
		}
		// Notifications delivered, each once by its id (the store drops a duplicate id).
		for k, e := range p.flight {
			if slices.ContainsFunc(p.flight[:k], func(o xEvent) bool { return o.sig() == e.sig() }) {
				continue // the same notification as an earlier one in flight: the same step
			}
			s.add(true, func(n *xWorld) bool {
				q := n.pays[i]
				ev := q.flight[k]
				q.flight = slices.Concat(q.flight[:k], q.flight[k+1:])
				if strings.HasPrefix(ev.ID, "sync:") {
					if slices.Contains(q.syncs, ev.ID) {
						return true // applied before: the store drops it
					}
					q.syncs = append(q.syncs, ev.ID)
					slices.Sort(q.syncs)
				}
				rec, c := ApplyFiatEvent(q.rec, ev.ProviderEvent, t0.Add(time.Minute))
				q.rec = rec
				if c == nil {
					return true
				}
				if _, ok := c.(FiatAuthorizedCause); ok {
					q.heard = true
				}
				n.apply(c) // refused: the payment is recorded, the order unchanged
				return true
			}, "deliver %s", eventName(e.ProviderEvent))
		}
		if !s.want(false) {
			continue
		}
		// The payment's state read from the provider (the page asks), applied maybe late.
		sync := xEvent{SyncEvent(&ProviderPayment{Ref: p.rec.ProviderRef, Status: p.prov, FailureReason: p.reason}), p.received}
		withReceived(sync.ProviderEvent, p.received)
		if p.prov != FiatPending && !slices.Contains(p.syncs, sync.ID) && !slices.ContainsFunc(p.flight, func(e xEvent) bool { return e.ID == sync.ID }) {
			s.add(false, func(n *xWorld) bool {
				n.pays[i].flight = append(n.pays[i].flight, sync)
				return true
			}, "the page reads %s from the provider: %s", id, p.prov)
		}
		// The provider sends an earlier notification again, under a new id.
		if p.dups < 1 {
			for k, e := range p.past {
				if slices.ContainsFunc(p.past[:k], func(o xEvent) bool { return o.sig() == e.sig() }) {
					continue
				}
				s.add(false, func(n *xWorld) bool {
					q := n.pays[i]
					q.dups++
					q.seq++
					c := *e.ProviderEvent
					c.ID = fmt.Sprintf("%s#%d", id, q.seq)
					q.flight = append(q.flight, xEvent{&c, e.received})
					return true
				}, "provider sends %s(%s) of %s again", e.Type, e.Status, id)
			}
		}
	}
	// Another payment (another card) while the order waits.
	if len(w.pays) < x.plan.payments && (w.o.Status == StatusCreated || w.o.Status == StatusOnrampProcessing) {
		s.add(false, func(n *xWorld) bool {
			n.pays = append(n.pays, x.newPay(n, len(n.pays)+1))
			return true
		}, "user starts another payment fpy_%d", len(w.pays)+1)
	}
	// The fiat worker's actions, done when the provider takes them.
	for i, a := range w.actions {
		if a.Status != ActionPending || !s.want(true) {
			continue
		}
		k := slices.IndexFunc(w.pays, func(p *xPay) bool { return p.rec.ID == a.PaymentID })
		if k < 0 {
			continue
		}
		p, v := w.pays[k], a.Amount.Int64()
		finish := func(n *xWorld, st FiatPaymentStatus, typ string, amt int64) {
			send(n, k, st, typ, "", func(e *ProviderEvent) {
				e.ActionKey = a.ID
				if amt > 0 {
					e.Amount = big.NewInt(amt)
				}
			})
			c := *n.actions[i]
			c.Status = ActionDone
			n.actions[i] = &c
		}
		switch a.Kind {
		case ActionCapture:
			if p.prov == FiatAuthorized && v <= p.rec.Amount.Int64() {
				s.add(true, func(n *xWorld) bool {
					n.pays[k].captured = v
					finish(n, FiatSucceeded, ProviderPaymentCaptured, 0)
					return true
				}, "fiat worker: %s of %s (%d) done (provider: captured)", a.Cause, a.PaymentID, v)
			}
		case ActionVoid:
			if p.prov == FiatPending || p.prov == FiatProcessing || p.prov == FiatAuthorized {
				s.add(true, func(n *xWorld) bool { finish(n, FiatVoided, ProviderPaymentVoided, 0); return true },
					"fiat worker: %s of %s done (provider: voided)", a.Cause, a.PaymentID)
			}
		case ActionRefund:
			paid := p.received + p.captured
			if v > 0 && v <= paid-p.refunded {
				s.add(true, func(n *xWorld) bool {
					q := n.pays[k]
					q.refunded += v
					st := q.prov
					if q.refunded == paid {
						st = FiatRefunded
					}
					finish(n, st, ProviderPaymentRefunded, v)
					return true
				}, "fiat worker: %s of %s (%d) done (provider: refunded)", a.Cause, a.PaymentID, v)
			}
		}
	}
}
