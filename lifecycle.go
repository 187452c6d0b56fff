package rampway

import (
	"cmp"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// This file holds every rule that moves an order: what each cause does to an order in each
// state (Apply), and the table of the steps it may take (Rules), from which
// docs/order-states.md is checked. The stores only commit what Apply decides.

// A Cause is what happened to an order: a payment seen, confirmed or dropped by a
// reorganisation, an execution sent, mined, reverted or refused before it was sent, the
// order's time running out, the user cancelling. Apply decides what it does.
type Cause interface {
	// Kind names the cause in the rule table, errors and docs ("payment_confirmed").
	Kind() CauseKind
}

// CauseKind names a kind of Cause.
type CauseKind string

// The kinds of causes.
const (
	CausePaymentSeen       CauseKind = "payment_seen"
	CausePaymentConfirmed  CauseKind = "payment_confirmed"
	CausePaymentDropped    CauseKind = "payment_dropped"
	CauseExecutionStarted  CauseKind = "execution_started"
	CauseExecutionMined    CauseKind = "execution_mined"
	CauseExecutionReverted CauseKind = "execution_reverted"
	CauseExecutionRefused  CauseKind = "execution_refused"
	CauseExpired           CauseKind = "expired"
	CauseCancelled         CauseKind = "cancelled"
	CauseFiatProcessing    CauseKind = "fiat_processing"
	CauseFiatAuthorised    CauseKind = "fiat_authorised"
	CauseFiatCredited      CauseKind = "fiat_credited"
	CauseFiatDeclined      CauseKind = "fiat_declined"
	CauseFiatReleased      CauseKind = "fiat_released"
	CauseFiatMethodChosen  CauseKind = "fiat_method_chosen"
	CauseWalletShort       CauseKind = "wallet_short"
)

// Requests and facts. A request is a cause a worker or a user asks for, having read the order:
// its expiry, a cancel, an execution's start or refusal, a payment method's choice, the
// executor's giving up on a fiat-paid order it cannot pay for. A state without a rule for a
// request refuses it (an ECONFLICT error): the order moved on since it was read (a payment came
// first), a race lost, quietly. Every other cause is a fact: a payment seen, confirmed or
// dropped, an execution mined or reverted, a provider's notification, a refund's progress. It
// happened, and every state an order can be in when it happens has a rule for it (one that may
// change nothing): a state without one is a gap in the rule table, a *RuleMissing error, which
// the stores report (Hooks.RuleMissing: logged and counted) rather than drop.
var requests = []CauseKind{CauseExpired, CauseCancelled, CauseExecutionStarted, CauseExecutionRefused, CauseFiatMethodChosen, CauseWalletShort,
	CauseRefundRequested}

// IsRequest reports whether causes of kind k are requests (a state refuses them without a
// rule: ECONFLICT), not facts (a state without a rule is a gap: *RuleMissing).
func IsRequest(k CauseKind) bool { return slices.Contains(requests, k) }

// RuleMissing is Apply's error for a fact that an order's state has no rule for: a gap in the
// rule table, a bug to fix, never a race. The order is not changed. Its code is EINTERNAL.
type RuleMissing struct {
	OrderID string
	Area    Area
	Status  OrderStatus
	Cause   CauseKind
	// To is the state the cause would have moved the order to (Status when it would stay).
	To OrderStatus
}

func (e *RuleMissing) Error() string {
	if e.To == e.Status {
		return fmt.Sprintf("no rule: order %s in %s that is %s does not take %s", e.OrderID, e.Area, e.Status, e.Cause)
	}
	return fmt.Sprintf("no rule: order %s in %s cannot move from %s to %s (%s)", e.OrderID, e.Area, e.Status, e.To, e.Cause)
}

// PaymentSeen: a payment to the order's deposit address is in a block (not yet confirmed), or
// one a reorganisation dropped is seen again.
type PaymentSeen struct{ Transfer *InboundTransfer }

// PaymentConfirmed: a seen payment's block is deep enough in the canonical chain; it is
// credited, once.
type PaymentConfirmed struct{ Transfer *InboundTransfer }

// PaymentDropped: a seen payment's block left the canonical chain.
type PaymentDropped struct{ Transfer *InboundTransfer }

// ExecutionStarted: the order's call (after its approvals) is signed, stored and on its way.
type ExecutionStarted struct{ TxHash common.Hash }

// ExecutionMined: the call's receipt is successful and deep enough. TxHash is the one mined
// (a re-priced transaction has another hash than the first).
type ExecutionMined struct{ TxHash common.Hash }

// ExecutionReverted: the call was mined and reverted (or ran out of gas).
type ExecutionReverted struct {
	TxHash common.Hash
	Reason string
}

// ExecutionRefused: the call cannot be made (its pre-flight reverts, a function no longer
// active): nothing was sent.
type ExecutionRefused struct{ Reason string }

// Expired: the order's time is up.
type Expired struct{}

// Cancelled: the user cancelled on the hosted page.
type Cancelled struct{}

// FiatProcessingCause: the user acted on a fiat payment and its provider is deciding (a 3-D
// Secure challenge, an approval page).
type FiatProcessingCause struct{ Payment *FiatPayment }

// FiatAuthorizedCause: a card or wallet payment's amount is held, to be captured once the order is
// executed.
type FiatAuthorizedCause struct{ Payment *FiatPayment }

// FiatCredited: money a user pushed (a bank transfer, open banking) arrived, Amount in the
// payment's minor units; each arrival is its own Credit.
type FiatCredited struct {
	Payment *FiatPayment
	Credit  string
	Amount  *big.Int
}

// FiatDeclined: a fiat payment failed (declined, authentication failed, rejected): the user
// may try again until the order expires.
type FiatDeclined struct {
	Payment *FiatPayment
	Reason  string
}

// FiatReleased: a fiat payment's money is back with the user (its authorisation voided, or
// all of it refunded).
type FiatReleased struct{ Payment *FiatPayment }

// FiatMethodChosen: the user chose how to pay an area C order created without a method, on
// the page's quote screen; the order takes that method's quote (what it delivers, its fees)
// and, for a bank transfer, its longer expiry.
type FiatMethodChosen struct {
	Method                 string
	CryptoAmount           *big.Int
	NetworkFee, ServiceFee *big.Int
	// Pricing is the fiat side of the method's quote (nil when the order kept none).
	Pricing   *FiatPricing
	ExpiresAt time.Time
}

// Kind implements Cause.
func (FiatMethodChosen) Kind() CauseKind { return CauseFiatMethodChosen }

// Kind implements Cause.
func (FiatProcessingCause) Kind() CauseKind { return CauseFiatProcessing }

// Kind implements Cause.
func (FiatAuthorizedCause) Kind() CauseKind { return CauseFiatAuthorised }

// Kind implements Cause.
func (FiatCredited) Kind() CauseKind { return CauseFiatCredited }

// Kind implements Cause.
func (FiatDeclined) Kind() CauseKind { return CauseFiatDeclined }

// Kind implements Cause.
func (FiatReleased) Kind() CauseKind { return CauseFiatReleased }

// Kind implements Cause.
func (PaymentSeen) Kind() CauseKind { return CausePaymentSeen }

// Kind implements Cause.
func (PaymentConfirmed) Kind() CauseKind { return CausePaymentConfirmed }

// Kind implements Cause.
func (PaymentDropped) Kind() CauseKind { return CausePaymentDropped }

// Kind implements Cause.
func (ExecutionStarted) Kind() CauseKind { return CauseExecutionStarted }

// Kind implements Cause.
func (ExecutionMined) Kind() CauseKind { return CauseExecutionMined }

// Kind implements Cause.
func (ExecutionReverted) Kind() CauseKind { return CauseExecutionReverted }

// Kind implements Cause.
func (ExecutionRefused) Kind() CauseKind { return CauseExecutionRefused }

// Kind implements Cause.
func (Expired) Kind() CauseKind { return CauseExpired }

// Kind implements Cause.
func (Cancelled) Kind() CauseKind { return CauseCancelled }

// WalletShort: the hot wallet cannot pay for a paid order's execution now. An order paid in
// fiat (areas B and C) waits for funds up to Patience since it was paid, then fails and its
// payment is given back (a card's authorisation does not last); an order paid in crypto waits
// however long it takes (its state takes no WalletShort: refused).
type WalletShort struct{ Patience time.Duration }

// Kind implements Cause.
func (WalletShort) Kind() CauseKind { return CauseWalletShort }

// GivesUp reports whether order o fails on this cause at time at: its state takes it, and it
// has waited longer than Patience (the executor asks it before anything is sent).
func (c WalletShort) GivesUp(o *Order, at time.Time) bool {
	return Takes(o, CauseWalletShort) && at.Sub(o.UpdatedAt) > c.Patience
}

// Rule is one step an order may take: a cause in state From moves it to To (To == From for a
// cause that changes the order but not its state) and emits Events, in order.
type Rule struct {
	From   OrderStatus
	Cause  CauseKind
	To     OrderStatus
	Events []EventName
}

// EventDepositDropped is the event of a payment a reorganisation removed from the chain
// before it was confirmed: the order goes back to waiting for it (CREATED, or UNDERPAID when
// an earlier payment was credited).
const EventDepositDropped EventName = "order.deposit.dropped"

// stays are the states in which a confirmed payment is credited (and, all of it, recorded for
// refund) without moving the order: it takes no payment any more.
var stays = []OrderStatus{StatusDepositSuccess, StatusSmartContractProcessing, StatusSuccess, StatusFailed,
	StatusCancelled, StatusRefundPending, StatusRefunded}

// rules are every step of each area. Nothing else happens to an order. Areas B and C add
// theirs with the fiat causes.
var rules = map[Area][]Rule{
	AreaMint: append([]Rule{
		{StatusCreated, CausePaymentSeen, StatusDepositProcessing, []EventName{EventDepositProcessing}},
		{StatusUnderpaid, CausePaymentSeen, StatusDepositProcessing, []EventName{EventDepositProcessing}}, // a top-up
		{StatusDepositProcessing, CausePaymentConfirmed, StatusDepositSuccess, []EventName{EventDepositSuccess}},
		{StatusCreated, CausePaymentConfirmed, StatusDepositSuccess, []EventName{EventDepositSuccess}},
		{StatusCreated, CausePaymentConfirmed, StatusUnderpaid, []EventName{EventDepositSuccess}},
		{StatusDepositProcessing, CausePaymentConfirmed, StatusUnderpaid, []EventName{EventDepositSuccess}}, // credited, but short
		{StatusUnderpaid, CausePaymentConfirmed, StatusDepositSuccess, []EventName{EventDepositSuccess}},
		{StatusUnderpaid, CausePaymentConfirmed, StatusUnderpaid, []EventName{EventDepositSuccess}},
		// A payment after expiry is credited and refunded, never executed.
		{StatusExpired, CausePaymentConfirmed, StatusRefundPending, []EventName{EventDepositSuccess, EventRefundPending}},
		{StatusDepositProcessing, CausePaymentDropped, StatusCreated, []EventName{EventDepositDropped}},
		{StatusDepositProcessing, CausePaymentDropped, StatusUnderpaid, []EventName{EventDepositDropped}},
		{StatusCreated, CauseExpired, StatusExpired, []EventName{EventDepositFailure}},
		{StatusUnderpaid, CauseExpired, StatusFailed, []EventName{EventDepositFailure}}, // what came in is refunded
		{StatusCreated, CauseCancelled, StatusCancelled, []EventName{EventCancelled}},
		{StatusDepositSuccess, CauseExecutionStarted, StatusSmartContractProcessing, []EventName{EventSmartContractProcessing}},
		{StatusDepositSuccess, CauseExecutionRefused, StatusFailed, []EventName{EventSmartContractFailure}},
		{StatusSmartContractProcessing, CauseExecutionMined, StatusSuccess, []EventName{EventSmartContractSuccess, EventSuccess}},
		{StatusSmartContractProcessing, CauseExecutionReverted, StatusFailed, []EventName{EventSmartContractFailure}},
	}, append(append(staysCredited(), refundRules()...), merchantRefundRules(AreaMint)...)...),
	// B: fiat in, call out. A payment's money that the order cannot take (late, twice, short,
	// an authorisation of a closed order) changes nothing of it: it is voided or refunded.
	AreaNFTRamp: append(append(fiatRules(), []Rule{
		{StatusOnrampSuccess, CauseExecutionStarted, StatusSmartContractProcessing, []EventName{EventSmartContractProcessing}},
		{StatusOnrampSuccess, CauseExecutionRefused, StatusFailed, []EventName{EventSmartContractFailure}},
		{StatusOnrampSuccess, CauseWalletShort, StatusFailed, []EventName{EventSmartContractFailure}},
		{StatusSmartContractProcessing, CauseExecutionMined, StatusSuccess, []EventName{EventSmartContractSuccess, EventSuccess}},
		{StatusSmartContractProcessing, CauseExecutionReverted, StatusFailed, []EventName{EventSmartContractFailure}},
		{StatusFailed, CauseFiatReleased, StatusRefunded, []EventName{EventRefunded}}, // the voided or refunded payment
	}...), merchantRefundRules(AreaNFTRamp)...),
	// C: fiat in, crypto to the merchant's deposit address. The fiat side is B's; the transfer
	// to the merchant is an execution whose steps are the deposit's.
	AreaDeposit: append(append(fiatRules(), []Rule{
		{StatusCreated, CauseFiatMethodChosen, StatusCreated, nil},
		{StatusOnrampSuccess, CauseExecutionStarted, StatusDepositProcessing, []EventName{EventDepositProcessing}},
		{StatusOnrampSuccess, CauseExecutionRefused, StatusFailed, []EventName{EventDepositFailure}},
		{StatusOnrampSuccess, CauseWalletShort, StatusFailed, []EventName{EventDepositFailure}},
		{StatusDepositProcessing, CauseExecutionMined, StatusSuccess, []EventName{EventDepositSuccess, EventSuccess}},
		{StatusDepositProcessing, CauseExecutionReverted, StatusFailed, []EventName{EventDepositFailure}},
		{StatusFailed, CauseFiatReleased, StatusRefunded, []EventName{EventRefunded}},
	}...), merchantRefundRules(AreaDeposit)...),
}

// fiatRules are the steps of a fiat payment, areas B and C alike, up to ONRAMP_SUCCESS, and
// the order's expiry and cancel before it.
func fiatRules() []Rule {
	return []Rule{
		{StatusCreated, CauseFiatProcessing, StatusOnrampProcessing, []EventName{EventOnrampProcessing}},
		{StatusCreated, CauseFiatAuthorised, StatusOnrampSuccess, []EventName{EventOnrampProcessing, EventOnrampSuccess}},
		{StatusOnrampProcessing, CauseFiatAuthorised, StatusOnrampSuccess, []EventName{EventOnrampSuccess}},
		{StatusCreated, CauseFiatCredited, StatusOnrampSuccess, []EventName{EventOnrampProcessing, EventOnrampSuccess}},
		{StatusOnrampProcessing, CauseFiatCredited, StatusOnrampSuccess, []EventName{EventOnrampSuccess}},
		{StatusOnrampProcessing, CauseFiatDeclined, StatusCreated, []EventName{EventOnrampFailure}}, // the user may try again
		{StatusCreated, CauseFiatDeclined, StatusCreated, []EventName{EventOnrampFailure}},
		{StatusCreated, CauseExpired, StatusExpired, []EventName{EventOnrampFailure}},
		{StatusOnrampProcessing, CauseExpired, StatusExpired, []EventName{EventOnrampFailure}}, // a late authorisation is voided
		{StatusCreated, CauseCancelled, StatusCancelled, []EventName{EventCancelled}},
	}
}

// staysCredited are the rules of a payment confirmed in a state that takes none any more.
func staysCredited() []Rule {
	out := make([]Rule, 0, len(stays))
	for _, s := range stays {
		out = append(out, Rule{s, CausePaymentConfirmed, s, []EventName{EventDepositSuccess}})
	}
	return out
}

// Rules returns the steps of an area (for docs and tests).
func Rules(area Area) []Rule { return slices.Clone(rules[area]) }

// rule returns the area's rule for cause from from to to.
func rule(area Area, from OrderStatus, cause CauseKind, to OrderStatus) (Rule, bool) {
	i := slices.IndexFunc(rules[area], func(r Rule) bool { return r.From == from && r.Cause == cause && r.To == to })
	if i < 0 {
		return Rule{}, false
	}
	return rules[area][i], true
}

// Takes reports whether an order in o's state takes a cause of kind k at all (a store asks it
// before work that only such a cause can conclude, like signing an execution).
func Takes(o *Order, k CauseKind) bool {
	return slices.ContainsFunc(rules[o.Area], func(r Rule) bool { return r.From == o.Status && r.Cause == k })
}

// StatusesTaking are the states of an area in which a cause of kind k moves an order on (not
// those where it only changes it in place), in the rule table's order: the states a worker
// looks for orders in (the expiry: CREATED and UNDERPAID; the executor: DEPOSIT_SUCCESS).
func StatusesTaking(area Area, k CauseKind) []OrderStatus {
	var out []OrderStatus
	for _, r := range rules[area] {
		if r.Cause == k && r.To != r.From && !slices.Contains(out, r.From) {
			out = append(out, r.From)
		}
	}
	return out
}

// StatusesTakingAny are StatusesTaking of every area, in the areas' order (A, B, C).
func StatusesTakingAny(k CauseKind) []OrderStatus {
	var out []OrderStatus
	for _, a := range []Area{AreaMint, AreaNFTRamp, AreaDeposit} {
		for _, s := range StatusesTaking(a, k) {
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// AwaitsPayment reports whether an order in state s asks for a payment: a payment seen moves
// it on (CREATED, UNDERPAID). The checkout page asks for one then.
func AwaitsPayment(area Area, s OrderStatus) bool {
	return slices.Contains(StatusesTaking(area, CausePaymentSeen), s)
}

// WatchesDeposits are the states of an area A order whose deposit address the watcher watches
// whatever the order's expiry: those a payment moves on (CREATED, UNDERPAID: payment_seen) and
// those a payment in flight may move back (DEPOSIT_PROCESSING: payment_dropped). (The watcher
// also watches the orders that expired a short while ago, for late payments to refund.)
func WatchesDeposits() []OrderStatus {
	out := StatusesTaking(AreaMint, CausePaymentSeen)
	for _, s := range StatusesTaking(AreaMint, CausePaymentDropped) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// TakesFiatPayment reports whether order o takes a fiat payment now: an area B or C order
// waiting for its payment (CREATED, or ONRAMP_PROCESSING after an attempt), in which an
// authorisation moves it on. One paid, closed, or of area A takes none.
func TakesFiatPayment(o *Order) bool {
	return slices.Contains(StatusesTaking(o.Area, CauseFiatAuthorised), o.Status)
}

// decided are the states from which no rule of any area leads to SUCCESS, and SUCCESS.
var decided = func() map[OrderStatus]bool {
	reach := map[OrderStatus]bool{StatusSuccess: true} // the states SUCCESS is reached from
	for grew := true; grew; {
		grew = false
		for _, rs := range rules {
			for _, r := range rs {
				if reach[r.To] && !reach[r.From] {
					reach[r.From], grew = true, true
				}
			}
		}
	}
	out := map[OrderStatus]bool{StatusSuccess: true}
	for _, s := range OrderStatuses {
		if !reach[s] {
			out[s] = true
		}
	}
	return out
}()

// Decided reports whether an order's outcome is decided in state s: it succeeded, or no step
// of the rule table leads it to SUCCESS any more (FAILED, REFUND_PENDING, REFUNDED, EXPIRED,
// CANCELLED). The user has nothing more to do for it (a late payment to an expired order is
// refunded, not used): the checkout page sends them back to the merchant. Unlike Terminal, it
// holds while refunds are still on their way.
func (s OrderStatus) Decided() bool { return decided[s] }

// Facts is what Apply reads of an order besides the order itself, as stored with the cause's
// own record already made (a payment seen is among Transfers, a dropped one has its status
// "dropped"): its payments, oldest first (block, transaction, log index), and its refund
// records, oldest first.
type Facts struct {
	Transfers []*InboundTransfer
	Refunds   []*Refund
	// FiatActions are the order's captures, voids and refunds asked of its provider so far.
	FiatActions []*FiatAction
}

// Outcome is what a cause does to an order: the order to write (nil when it is not changed),
// the events to record (each with its webhook body, rendered from the order as written),
// the refund records to add, and whether the executor has work now (an order to execute, a refund to pay on chain).
type Outcome struct {
	Order       *Order
	Events      []*RenderedEvent
	Refunds     []*Refund
	WakeExecute bool
	// FiatActions are the captures, voids and refunds to ask of the order's payment provider.
	FiatActions []*FiatAction
}

// Hooks are what a store tells of the causes it applies, so that the workers hear of new work
// at once (the executor of a paid order) and a gap in the rule table is seen (logged and
// counted). internal/app connects them, in one place. Each must be quick and must not block:
// a store calls them in the goroutine of the method that applied the cause.
type Hooks struct {
	// Applied is called with the order as a cause left it and the cause's outcome, once the
	// transaction that wrote them has committed (never for one rolled back); not for a cause
	// that changed nothing.
	Applied func(o *Order, out *Outcome)
	// RuleMissing is called when Apply found no rule for a fact (the store's method then
	// returns the error, or goes on without the cause where it says so).
	RuleMissing func(err *RuleMissing)
}

// Listener is a store that tells Hooks of the causes it applies.
type Listener interface {
	// Listen has h told of the causes applied from now on, until stop is called.
	Listen(h Hooks) (stop func())
}

// RenderedEvent is an event with the body its webhook deliveries carry.
type RenderedEvent struct {
	*OrderEvent
	Body []byte
}

// Apply decides what cause does to order o, given its facts, at time at. It changes nothing it
// is given: the order in the Outcome is a copy. A request that does not apply to the order's
// state (an expiry of an order paid meanwhile, a cancel of a paid one) is an ECONFLICT error;
// a fact the order's state has no rule for is a *RuleMissing error (a gap in the table); a
// cause that applies but changes nothing (a payment seen for an order being executed) is an
// empty Outcome.
func Apply(o *Order, f Facts, c Cause, at time.Time) (*Outcome, error) {
	n := o.clone()
	n.UpdatedAt = at
	out := &Outcome{}
	to := o.Status
	var subject *Refund // the merchant refund the cause is about, in its events' context
	switch c := c.(type) {
	case PaymentSeen:
		if o.Status != StatusCreated && o.Status != StatusUnderpaid {
			return out, nil // paying more, or too late: credited and refunded once confirmed
		}
		to = StatusDepositProcessing
	case PaymentConfirmed:
		t := c.Transfer
		if excess, reason := Excess(n, t.Amount); excess.Sign() > 0 {
			out.Refunds = append(out.Refunds, &Refund{OrderID: o.ID, Cause: fmt.Sprintf("transfer:%s:%d", t.TxHash.Hex(), t.LogIndex),
				Network: o.Network, Token: t.Token, To: t.From, Amount: excess, Reason: reason})
		}
		n.CryptoReceived = new(big.Int).Add(n.CryptoReceived, t.Amount)
		switch o.Status {
		// CREATED: a payment confirmed without having been seen first (a watcher that found
		// it already deep enough) is a payment all the same.
		case StatusCreated, StatusDepositProcessing, StatusUnderpaid:
			if n.CryptoReceived.Cmp(n.CryptoAmount) >= 0 {
				to = StatusDepositSuccess
				out.WakeExecute = true
			} else {
				to = StatusUnderpaid
			}
		case StatusExpired:
			to = StatusRefundPending
			n.FailureReason = "paid after the order expired"
		}
	case PaymentDropped:
		if o.Status != StatusDepositProcessing || slices.ContainsFunc(f.Transfers, func(t *InboundTransfer) bool { return t.Status == TransferSeen }) {
			return out, nil // another payment is still in flight, or the order had moved on
		}
		to = StatusCreated
		if n.CryptoReceived.Sign() > 0 {
			to = StatusUnderpaid
		}
	case ExecutionStarted:
		to = StatusSmartContractProcessing
		if o.Area == AreaDeposit {
			to = StatusDepositProcessing // the transfer to the merchant is on its way
		}
		n.ExecutionTxHash = c.TxHash.Hex()
	case FiatMethodChosen:
		if o.Status != StatusCreated || o.FiatMethod != "" {
			return nil, Errorf(ECONFLICT, "order %s has its payment method (%s) already", o.ID, o.FiatMethod)
		}
		n.FiatMethod, n.CryptoAmount, n.NetworkFee, n.ServiceFee, n.ExpiresAt = c.Method, cloneBig(c.CryptoAmount),
			cloneBig(c.NetworkFee), cloneBig(c.ServiceFee), c.ExpiresAt
		n.FiatPricing = c.Pricing.Clone()
		n.MethodQuotes = nil
	case ExecutionMined:
		to = StatusSuccess
		n.ExecutionTxHash = c.TxHash.Hex()
	case ExecutionReverted:
		to = StatusFailed
		n.ExecutionTxHash, n.FailureReason = c.TxHash.Hex(), c.Reason
	case ExecutionRefused:
		to = StatusFailed
		n.FailureReason = c.Reason
	case Expired:
		switch o.Status {
		case StatusCreated, StatusOnrampProcessing:
			to = StatusExpired
		case StatusUnderpaid:
			to = StatusFailed
			n.FailureReason = fmt.Sprintf("underpaid: %s of %s %s received before the order expired",
				FormatUnits(n.CryptoReceived, o.Asset.Decimals), FormatUnits(o.CryptoAmount, o.Asset.Decimals), o.Asset.Symbol)
		}
	case Cancelled:
		to = StatusCancelled
	case WalletShort:
		if Takes(o, CauseWalletShort) {
			if !c.GivesUp(o, at) {
				return out, nil // waits on for the wallet's funds
			}
			to = StatusFailed
			n.FailureReason = "the service's wallet could not pay for it within " + shortDuration(c.Patience)
		}
	case RefundSentCause, RefundPaid, RefundNotPaid:
		to = applyRefund(o, f, c)
	case RefundRequested:
		rf, err := requestRefund(o, f, c, out, at)
		if err != nil {
			return nil, err
		}
		out.Refunds, subject = append(out.Refunds, rf), rf
		out.WakeExecute = !rf.Fiat() && rf.Status == RefundPending // the executor pays refunds on chain
	case MerchantRefundApproved:
		out.FiatActions, subject = append(out.FiatActions, fiatRefundAction(o, c.Refund)), c.Refund
	case MerchantRefundPaid:
		subject = c.Refund
		if t := MerchantRefundTotals(o, withRefund(f.Refunds, c.Refund)); t.Refunded.Cmp(t.Paid) >= 0 {
			to = StatusRefunded // all it was paid is back with the payer
		}
	case MerchantRefundFailed:
		subject = c.Refund
	case FiatProcessingCause, FiatAuthorizedCause, FiatCredited, FiatDeclined, FiatReleased:
		var stay bool
		to, stay = applyFiat(o, n, f, c, out, at)
		if stay {
			return out, nil
		}
	default:
		return nil, fmt.Errorf("apply: unknown cause %T", c)
	}
	r, ok := rule(o.Area, o.Status, c.Kind(), to)
	switch {
	case ok:
	case !IsRequest(c.Kind()):
		return nil, &RuleMissing{OrderID: o.ID, Area: o.Area, Status: o.Status, Cause: c.Kind(), To: to}
	case to == o.Status:
		return nil, Errorf(ECONFLICT, "an order in %s that is %s does not take %s", o.Area, o.Status, c.Kind())
	default:
		return nil, Errorf(ECONFLICT, "an order in %s cannot move from %s to %s (%s)", o.Area, o.Status, to, c.Kind())
	}
	n.Status = to
	if to == StatusFailed && o.Status != StatusFailed {
		if rf := failedRefund(n, f); rf != nil {
			out.Refunds = append(out.Refunds, rf)
		}
		if a := fiatRelease(n); a != nil {
			out.FiatActions = append(out.FiatActions, a)
		}
	}
	if to == StatusSuccess && o.FiatPaymentID != "" && MethodFlow(o.FiatMethod) == FlowAuthorise {
		out.FiatActions = append(out.FiatActions, &FiatAction{OrderID: o.ID, PaymentID: o.FiatPaymentID, Kind: ActionCapture,
			Amount: cloneBig(o.FiatAmount), Currency: o.FiatSymbol, Cause: "capture", Reason: "the order is executed"})
	}
	newActions(out, f, at)
	// A refund is recorded once per cause: one the order already has is not made again.
	out.Refunds = slices.DeleteFunc(out.Refunds, func(r *Refund) bool {
		return slices.ContainsFunc(f.Refunds, func(old *Refund) bool { return old.Cause == r.Cause })
	})
	for _, rf := range out.Refunds {
		if rf.ID == "" {
			rf.ID, rf.Status, rf.CreatedAt, rf.UpdatedAt = NewID(PrefixRefund, at), RefundPending, at, at
		}
	}
	out.Order = n
	refunds := append(slices.Clone(f.Refunds), out.Refunds...)
	if subject != nil {
		refunds = withRefund(refunds, subject)
	}
	txs := depositTxs(f.Transfers)
	for _, name := range r.Events {
		e := &OrderEvent{ID: NewID(PrefixEvent, at), OrderID: n.ID, MerchantID: n.MerchantID, Name: name, From: o.Status, To: to, CreatedAt: at}
		body, err := EventBodyAbout(e, n, txs, refunds, subject)
		if err != nil {
			return nil, fmt.Errorf("apply: event body: %w", err)
		}
		out.Events = append(out.Events, &RenderedEvent{OrderEvent: e, Body: body})
	}
	return out, nil
}

// failedRefund is the refund of what a failed order was paid, up to its price (an excess was
// recorded with the payment that brought it), owed to its first payer; nil when nothing came in.
func failedRefund(o *Order, f Facts) *Refund {
	if o.CryptoReceived == nil || o.CryptoReceived.Sign() <= 0 || o.CryptoAmount == nil {
		return nil
	}
	amount := o.Paid()
	payer := firstPayer(f)
	reason := o.FailureReason
	if reason == "" {
		reason = "order failed"
	}
	return &Refund{OrderID: o.ID, Cause: "failed", Network: o.Network, Token: o.Asset.Contract, To: payer, Amount: amount, Reason: reason}
}

// withRefund is refunds with r in place of its older record (a copy; r last when new).
func withRefund(refunds []*Refund, r *Refund) []*Refund {
	out := slices.Clone(refunds)
	if i := slices.IndexFunc(out, func(old *Refund) bool { return old.ID == r.ID }); i >= 0 {
		out[i] = r
		return out
	}
	return append(out, r)
}

// depositTxs are the hashes of an order's payments still on chain, oldest first.
func depositTxs(ts []*InboundTransfer) []string {
	out := []string{}
	for _, t := range sortedTransfers(ts) {
		if t.Status != TransferDropped {
			out = append(out, t.TxHash.Hex())
		}
	}
	return out
}

// sortedTransfers orders transfers by block, transaction and log index (a copy).
func sortedTransfers(ts []*InboundTransfer) []*InboundTransfer {
	out := slices.Clone(ts)
	slices.SortStableFunc(out, func(a, b *InboundTransfer) int {
		return cmp.Or(cmp.Compare(a.BlockNumber, b.BlockNumber), cmp.Compare(a.TxHash.Hex(), b.TxHash.Hex()), cmp.Compare(a.LogIndex, b.LogIndex))
	})
	return out
}

// shortDuration writes d as time.Duration does, without its zero minutes and seconds ("1h",
// "1h30m", "1m30s").
func shortDuration(d time.Duration) string {
	return strings.TrimSuffix(strings.TrimSuffix(d.String(), "0s"), "0m")
}

// clone is a copy of o whose amounts and maps can be changed without changing o's.
func (o *Order) clone() *Order {
	n := *o
	for _, p := range []**big.Int{&n.CryptoAmount, &n.CryptoReceived, &n.PaymentValue, &n.NetworkFee, &n.ServiceFee, &n.FiatAmount} {
		if *p != nil {
			*p = new(big.Int).Set(*p)
		}
	}
	if n.CryptoReceived == nil {
		n.CryptoReceived = new(big.Int)
	}
	n.User = maps.Clone(o.User)
	n.MethodQuotes = slices.Clone(o.MethodQuotes)
	n.FiatPricing = o.FiatPricing.Clone()
	return &n
}

// applyFiat decides a fiat payment's cause for order o (n its copy to change): the state it
// moves to, or stay when the order does not move (the outcome then holds what the cause asks
// of the provider, if anything: a void or a refund of money the order cannot take).
func applyFiat(o, n *Order, f Facts, c Cause, out *Outcome, at time.Time) (to OrderStatus, stay bool) {
	awaiting := o.Status == StatusCreated || o.Status == StatusOnrampProcessing
	switch c := c.(type) {
	case FiatProcessingCause:
		if o.Status != StatusCreated {
			return o.Status, true
		}
		return StatusOnrampProcessing, false
	case FiatAuthorizedCause:
		p := c.Payment
		switch {
		case p.ID == o.FiatPaymentID:
			return o.Status, true // heard again
		case awaiting && p.Currency == o.FiatSymbol && p.Amount.Cmp(o.FiatAmount) >= 0:
			n.FiatPaymentID = p.ID
			out.WakeExecute = true
			return StatusOnrampSuccess, false
		}
		why := fmt.Sprintf("the order is %s", o.Status)
		if awaiting {
			why = "the authorised amount is not the order's"
		}
		out.FiatActions = append(out.FiatActions, &FiatAction{OrderID: o.ID, PaymentID: p.ID, Kind: ActionVoid,
			Currency: p.Currency, Amount: cloneBig(p.Amount), Cause: "void:" + p.ID, Reason: why})
		newActions(out, f, at)
		return o.Status, true
	case FiatCredited:
		p, amount := c.Payment, cloneBig(c.Amount)
		refund := func(v *big.Int, why string) {
			if v.Sign() > 0 {
				out.FiatActions = append(out.FiatActions, &FiatAction{OrderID: o.ID, PaymentID: p.ID, Kind: ActionRefund,
					Currency: p.Currency, Amount: v, Cause: "refund:credit:" + c.Credit, Reason: why})
			}
		}
		switch {
		case !awaiting || o.FiatPaymentID != "":
			why := fmt.Sprintf("arrived when the order was %s", o.Status)
			if o.FiatPaymentID != "" {
				why = "the order was already paid"
			}
			refund(amount, why)
		case p.Currency != o.FiatSymbol:
			refund(amount, fmt.Sprintf("paid in %s, the order asks %s", p.Currency, o.FiatSymbol))
		case amount.Cmp(o.FiatAmount) < 0:
			refund(amount, fmt.Sprintf("short: %s of %s %s", FormatFixed(amount, o.FiatDecimals), FormatFixed(o.FiatAmount, o.FiatDecimals), o.FiatSymbol))
		default:
			refund(new(big.Int).Sub(amount, o.FiatAmount), "paid more than the order asks")
			newActions(out, f, at)
			n.FiatPaymentID = p.ID
			out.WakeExecute = true
			return StatusOnrampSuccess, false
		}
		newActions(out, f, at)
		return o.Status, true
	case FiatDeclined:
		if !awaiting {
			return o.Status, true
		}
		return StatusCreated, false
	case FiatReleased:
		if o.Status != StatusFailed || c.Payment.ID != o.FiatPaymentID {
			return o.Status, true
		}
		return StatusRefunded, false
	}
	return o.Status, true
}

// fiatRelease is what gives a failed fiat-paid order's money back: its authorisation voided,
// or what it received refunded; nil for an order not paid in fiat.
func fiatRelease(o *Order) *FiatAction {
	if o.FiatPaymentID == "" {
		return nil
	}
	a := &FiatAction{OrderID: o.ID, PaymentID: o.FiatPaymentID, Currency: o.FiatSymbol, Amount: cloneBig(o.FiatAmount), Reason: o.FailureReason}
	if a.Reason == "" {
		a.Reason = "order failed"
	}
	if MethodFlow(o.FiatMethod) == FlowAuthorise {
		a.Kind, a.Cause = ActionVoid, "void"
	} else {
		a.Kind, a.Cause = ActionRefund, "refund:failed"
	}
	return a
}

// newActions drops the outcome's fiat actions the order already has (one per cause) and gives
// the others their ids.
func newActions(out *Outcome, f Facts, at time.Time) {
	out.FiatActions = slices.DeleteFunc(out.FiatActions, func(a *FiatAction) bool {
		return a.ID == "" && slices.ContainsFunc(f.FiatActions, func(old *FiatAction) bool { return old.Cause == a.Cause })
	})
	for _, a := range out.FiatActions {
		if a.ID == "" {
			a.ID, a.Status, a.CreatedAt, a.UpdatedAt, a.NextAttemptAt = NewID(PrefixFiatAction, at), ActionPending, at, at, at
		}
	}
}
