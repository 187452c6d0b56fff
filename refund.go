package rampway

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// Refunds of area A: money a payer sent that an order cannot keep (an overpayment's excess, a
// payment after expiry or to a closed order, the payment of an order that failed) goes back
// on chain, from the hot wallet, less the network fee of sending it.
//
// A refund record's life: pending (to be sent) -> sent (signed, stored, broadcast) -> done
// (mined, confirmed) or failed (mined and reverted: an operator's to retry). On the way it may
// wait: awaiting_address (the payer is a contract or unknown: the user, the merchant or an
// operator gives an address) or awaiting_approval (above the asset's automatic limit: an
// operator approves). A refund whose amount does not cover its network fee and the asset's
// dust threshold is dust: nothing is sent.

// RefundStatus is where a refund record is in its life; the values are the API's.
type RefundStatus string

// Refund statuses.
const (
	RefundPending          RefundStatus = "pending"
	RefundAwaitingAddress  RefundStatus = "awaiting_address"
	RefundAwaitingApproval RefundStatus = "awaiting_approval"
	RefundSent             RefundStatus = "sent"
	RefundDone             RefundStatus = "done"
	RefundFailed           RefundStatus = "failed"
	RefundDust             RefundStatus = "dust"
)

// Valid reports whether s is one of the refund statuses.
func (s RefundStatus) Valid() bool { return slices.Contains(RefundStatuses, s) }

// RefundStatuses are every refund status, in the order of a refund's life.
var RefundStatuses = []RefundStatus{RefundPending, RefundAwaitingAddress, RefundAwaitingApproval, RefundSent, RefundDone, RefundFailed, RefundDust}

// Where a refund's address came from.
const (
	RefundToPayer    = "payer"    // the payment's sender, an externally owned account
	RefundToUser     = "user"     // given on the hosted page
	RefundToMerchant = "merchant" // given through the merchant API
	RefundToAdmin    = "admin"    // given by an operator
)

// Refund is money owed back to the payer of an order.
type Refund struct {
	ID      string
	OrderID string
	// Cause identifies it within the order: "failed", or "transfer:<tx hash>:<log index>".
	Cause   string
	Network string
	// Token is the ERC-20 contract; the zero address for the native coin.
	Token common.Address
	// To is where it is sent: the payment's sender when known (RefundToPayer), or the address
	// given for it (ToSource says by whom).
	To       common.Address
	ToSource string
	// Amount is what is owed, in the asset's base units. Fee is the network fee taken out of
	// it when it was sent (converted into the token for a token refund) and Sent what was
	// sent: Amount - Fee. Both nil until it is sent (or found to be dust).
	Amount, Fee, Sent *big.Int
	// Reason says why it is owed; StatusReason why it waits, or why it was not paid.
	Reason       string
	Status       RefundStatus
	StatusReason string
	// TxHash is the transaction that pays it (the one mined, once it is).
	TxHash common.Hash
	// ApprovedBy and ApprovedAt record an operator's approval (of a refund above the automatic
	// limit, or of sending a failed one again).
	ApprovedBy string
	ApprovedAt time.Time
	CreatedAt  time.Time
	UpdatedAt  time.Time

	// Merchant is the merchant that asked for it (a merchant refund: Cause "merchant:<id>"),
	// "" for a refund rampway owes on its own (automatic). Livemode is its order's mode.
	Merchant string
	Livemode bool
	// Currency is the symbol of what it is paid in: the order's asset (area A), or its fiat
	// currency (areas B and C: Network is "", and the refund is paid back through the
	// payment's provider, amounts in the currency's minor units).
	Currency string
	// Destination says where a fiat refund goes ("card visa ****4242", the payment method);
	// ProviderRef is the provider's id of it once done.
	Destination string
	ProviderRef string
}

// FromMerchant reports whether the order's merchant asked for the refund.
func (r *Refund) FromMerchant() bool { return r.Merchant != "" }

// Fiat reports whether the refund is paid back through a payment provider (areas B and C),
// not on chain.
func (r *Refund) Fiat() bool { return r.Network == "" }

// Reserves reports whether the refund counts against what is left to refund of its order: a
// merchant refund that has not failed and was not dust (those moved no money, and are not sent
// again: the merchant asks for another).
func (r *Refund) Reserves() bool {
	return r.FromMerchant() && r.Status != RefundFailed && r.Status != RefundDust
}

// MerchantRefundCause is the Cause of a merchant's refund of id: one record per request.
func MerchantRefundCause(id string) string { return "merchant:" + id }

// Settled reports whether nothing more happens to the refund without an operator: paid, or
// dust.
func (r *Refund) Settled() bool { return r.Status == RefundDone || r.Status == RefundDust }

// PrefixRefund starts refund ids.
const PrefixRefund = "rfd"

// RefundPolicy is how refunds of one asset are paid: automatically up to AutoMax (nil: any
// amount), above it after an operator's approval; not at all when what would be sent, after
// the network fee, is at most Dust. Amounts in the asset's base units.
type RefundPolicy struct {
	AutoMax *big.Int
	Dust    *big.Int
}

// NeedsApproval reports whether a refund of amount waits for an operator under p.
func (p RefundPolicy) NeedsApproval(amount *big.Int) bool {
	return p.AutoMax != nil && amount.Cmp(p.AutoMax) > 0
}

// IsDust reports whether sending is not worth it under p: what would be sent is at most the
// dust threshold (or nothing at all).
func (p RefundPolicy) IsDust(sent *big.Int) bool {
	if sent.Sign() <= 0 {
		return true
	}
	return p.Dust != nil && sent.Cmp(p.Dust) <= 0
}

// RefundFilter selects refunds in a listing: by status ("" any) and network ("" any).
type RefundFilter struct {
	Status  RefundStatus
	Network string
	Limit   int
}

// RefundStore keeps refund records and pays them out. Every change of a refund that the
// order's merchant hears about (sent, paid, not paid) is applied to its order as a cause, in
// the same transaction.
type RefundStore interface {
	// Refunds returns an order's refund records, oldest first.
	Refunds(ctx context.Context, orderID string) ([]*Refund, error)
	// Refund returns one record. ENOTFOUND.
	Refund(ctx context.Context, id string) (*Refund, error)
	// ListRefunds returns records by f, oldest first.
	ListRefunds(ctx context.Context, f RefundFilter) ([]*Refund, error)
	// HoldRefund moves a pending refund to status (awaiting_address or awaiting_approval)
	// with why. ECONFLICT when it is no longer pending.
	HoldRefund(ctx context.Context, id string, status RefundStatus, why string, at time.Time) (*Refund, error)
	// SetRefundAddress gives a refund waiting for an address (or one that failed) its
	// address, from source: it is pending again. ECONFLICT in any other status.
	SetRefundAddress(ctx context.Context, id string, to common.Address, source string, at time.Time) (*Refund, error)
	// ApproveRefund approves a refund waiting for approval, or one that failed to be sent
	// again: it is pending again, approved by by. ECONFLICT in any other status.
	ApproveRefund(ctx context.Context, id, by string, at time.Time) (*Refund, error)
	// RejectRefund has an operator (by) refuse a merchant's refund waiting for approval, for
	// why: it fails (its order takes a MerchantRefundFailed). ECONFLICT in any other status,
	// and for a refund rampway owes on its own.
	RejectRefund(ctx context.Context, id, by, why string, at time.Time) (*Refund, error)
	// DustRefund settles a pending refund as dust: fee is what sending it would have cost,
	// why says so. Its order takes a RefundNotPaid. ECONFLICT when it is no longer pending.
	DustRefund(ctx context.Context, id string, fee *big.Int, why string, at time.Time) error
	// StartRefund pays a pending refund: sign builds the transaction with nonce first of
	// (network, wallet) (signed outside any database transaction, as StartExecution's), then
	// in one transaction the nonce is claimed, the transaction stored, the refund marked sent
	// with its fee and amount sent, and its order takes a RefundSent. ECONFLICT when the
	// refund is no longer pending (another instance sent it); nothing is stored then.
	StartRefund(ctx context.Context, id string, wallet common.Address, chainNonce uint64, fee, sent *big.Int,
		sign func(first uint64) (*ChainTx, error), at time.Time) (*Refund, error)
	// RequestRefund applies a merchant's refund request to an order (RefundRequested), with
	// the merchant's refund policy for the order's currency and what its refunds of the day
	// add up to read under the same locks, and returns the refund record it made. The
	// domain's errors (ECONFLICT, EINVALID naming amount); ENOTFOUND for an unknown order.
	RequestRefund(ctx context.Context, orderID string, c RefundRequested, at time.Time) (*Refund, error)
	// FinishRefund records the outcome of a refund's transaction mined as m: done, or failed
	// (m.OK false) with why; its order takes a RefundPaid or a RefundNotPaid, and the
	// transaction is settled (as SettleTx). A refund not sent is left alone.
	FinishRefund(ctx context.Context, id string, m MinedTx, why string, at time.Time) error
}

// A RefundCause is what happens to a refund record: held for an address or an approval, given
// an address, approved, found to be dust, sent, mined or reverted. ApplyRefund decides what it
// does; the stores only commit that.
type RefundCause interface {
	// RefundKind names the cause in the refund steps and errors ("refund_approved").
	RefundKind() RefundCauseKind
}

// RefundCauseKind names a kind of RefundCause.
type RefundCauseKind string

// The kinds of refund causes.
const (
	CauseRefundHeld         RefundCauseKind = "refund_held"
	CauseRefundAddressGiven RefundCauseKind = "refund_address_given"
	CauseRefundApproved     RefundCauseKind = "refund_approved"
	CauseRefundIsDust       RefundCauseKind = "refund_is_dust"
	CauseRefundSigned       RefundCauseKind = "refund_signed"
	CauseRefundMined        RefundCauseKind = "refund_mined"
	CauseRefundReverted     RefundCauseKind = "refund_reverted"
	CauseRefundRejected     RefundCauseKind = "refund_rejected"
	CauseRefundProviderDone RefundCauseKind = "refund_provider_done"
	CauseRefundProviderFail RefundCauseKind = "refund_provider_failed"
)

// RefundHeld: a pending refund cannot be sent as it is: it waits in Status (awaiting_address
// or awaiting_approval), Why says for what.
type RefundHeld struct {
	Status RefundStatus
	Why    string
}

// RefundAddressGiven: the address a refund waiting for one (or one that failed) is paid to,
// given by Source (RefundToUser, RefundToMerchant, RefundToAdmin).
type RefundAddressGiven struct {
	To     common.Address
	Source string
}

// RefundApproved: an operator (By) approved a refund above the automatic limit, or sending
// one that failed again.
type RefundApproved struct{ By string }

// RefundIsDust: a pending refund does not cover the network fee of sending it (Fee) and the
// dust threshold: nothing is sent, Why says so.
type RefundIsDust struct {
	Fee *big.Int
	Why string
}

// RefundSigned: a pending refund's transaction (TxHash, paying To: Sent, after the network
// fee Fee) is signed and stored, on its way.
type RefundSigned struct {
	TxHash    common.Hash
	To        common.Address
	Fee, Sent *big.Int
}

// RefundMined: a sent refund's transaction (TxHash, the one mined) is successful and deep
// enough.
type RefundMined struct{ TxHash common.Hash }

// RefundReverted: a sent refund's transaction was mined and reverted, Why says how.
type RefundReverted struct {
	TxHash common.Hash
	Why    string
}

// RefundRejected: an operator (By) refused a merchant's refund that waits for approval, Why
// says why: it fails, nothing is sent, and what it reserved is free again. (A refund rampway
// owes on its own is not refused: that money would be stranded.)
type RefundRejected struct{ By, Why string }

// RefundKind implements RefundCause.
func (RefundRejected) RefundKind() RefundCauseKind { return CauseRefundRejected }

// RefundProviderDone: the provider paid a fiat refund back (Ref is its id of the refund).
type RefundProviderDone struct{ Ref string }

// RefundProviderFailed: the provider refused a fiat refund for good, Why says how; nothing
// moved.
type RefundProviderFailed struct{ Why string }

// RefundKind implements RefundCause.
func (RefundProviderDone) RefundKind() RefundCauseKind { return CauseRefundProviderDone }

// RefundKind implements RefundCause.
func (RefundProviderFailed) RefundKind() RefundCauseKind { return CauseRefundProviderFail }

// RefundKind implements RefundCause.
func (RefundHeld) RefundKind() RefundCauseKind { return CauseRefundHeld }

// RefundKind implements RefundCause.
func (RefundAddressGiven) RefundKind() RefundCauseKind { return CauseRefundAddressGiven }

// RefundKind implements RefundCause.
func (RefundApproved) RefundKind() RefundCauseKind { return CauseRefundApproved }

// RefundKind implements RefundCause.
func (RefundIsDust) RefundKind() RefundCauseKind { return CauseRefundIsDust }

// RefundKind implements RefundCause.
func (RefundSigned) RefundKind() RefundCauseKind { return CauseRefundSigned }

// RefundKind implements RefundCause.
func (RefundMined) RefundKind() RefundCauseKind { return CauseRefundMined }

// RefundKind implements RefundCause.
func (RefundReverted) RefundKind() RefundCauseKind { return CauseRefundReverted }

// RefundStep is one step a refund record may take: in status From, a cause of kind Cause
// moves it to To.
type RefundStep struct {
	From  RefundStatus
	Cause RefundCauseKind
	To    RefundStatus
}

// refundSteps are every step of a refund record. Nothing else happens to one. Sent is reached
// once from pending, and left only by its transaction's receipt: a refund is sent at most once
// at a time, and again only after it failed and an operator gave it an address or approved it.
var refundSteps = []RefundStep{
	{RefundPending, CauseRefundHeld, RefundAwaitingAddress},
	{RefundPending, CauseRefundHeld, RefundAwaitingApproval},
	{RefundAwaitingAddress, CauseRefundAddressGiven, RefundPending},
	{RefundFailed, CauseRefundAddressGiven, RefundPending}, // sent again, to the new address
	{RefundAwaitingApproval, CauseRefundApproved, RefundPending},
	{RefundAwaitingApproval, CauseRefundRejected, RefundFailed}, // a merchant's: not sent
	{RefundFailed, CauseRefundApproved, RefundPending},          // sent again
	{RefundPending, CauseRefundIsDust, RefundDust},
	{RefundPending, CauseRefundSigned, RefundSent},
	{RefundSent, CauseRefundMined, RefundDone},
	{RefundSent, CauseRefundReverted, RefundFailed},
	// A fiat refund is pending while its provider is asked (a fiat action), and ends with its
	// answer.
	{RefundPending, CauseRefundProviderDone, RefundDone},
	{RefundPending, CauseRefundProviderFail, RefundFailed},
}

// RefundSteps returns every step of a refund record (for docs and tests).
func RefundSteps() []RefundStep { return slices.Clone(refundSteps) }

// Takes reports whether the refund in its status takes a cause of kind k at all (a store asks
// it before work that only such a cause can conclude, like signing its transaction).
func (r *Refund) Takes(k RefundCauseKind) bool {
	return r.refuses(k) == nil && slices.ContainsFunc(refundSteps, func(s RefundStep) bool { return s.From == r.Status && s.Cause == k })
}

// refuses is why the refund does not take causes of kind k whatever its status (ECONFLICT), nil
// when its status decides: a fiat refund takes only its provider's answer and an approval, an
// on-chain one never its provider's; a merchant's refund that failed is not sent again.
func (r *Refund) refuses(k RefundCauseKind) error {
	fiatOnly := k == CauseRefundProviderDone || k == CauseRefundProviderFail
	switch {
	case k == CauseRefundRejected && !r.FromMerchant():
		return Errorf(ECONFLICT, "refund %s is owed by the service on its own: it is approved or given an address, never refused", r.ID)
	case r.Fiat() && !fiatOnly && k != CauseRefundApproved && k != CauseRefundRejected:
		return Errorf(ECONFLICT, "refund %s is paid back through the payment's provider: it does not take %s", r.ID, k)
	case !r.Fiat() && fiatOnly:
		return Errorf(ECONFLICT, "refund %s is paid on chain: it does not take %s", r.ID, k)
	case r.FromMerchant() && r.Status == RefundFailed:
		return Errorf(ECONFLICT, "refund %s failed: a merchant's refund is not sent again (the merchant asks for another)", r.ID)
	}
	return nil
}

// ApplyRefund decides what cause c does to refund r at time at, as a pure function: the refund
// as it is after it (a copy: r is not changed) and the cause it brings to the refund's order
// (RefundSentCause, RefundPaid or RefundNotPaid; nil for none: a refund waiting, or pending
// again, changes nothing its merchant hears of). A cause the refund's status does not take is
// an ECONFLICT error (another instance, or an operator, changed it first); nothing changes.
func ApplyRefund(r *Refund, c RefundCause, at time.Time) (*Refund, Cause, error) {
	n := *r
	n.Amount, n.Fee, n.Sent = cloneOptional(r.Amount), cloneOptional(r.Fee), cloneOptional(r.Sent)
	n.UpdatedAt = at
	to := r.Status
	var order Cause
	if err := r.refuses(c.RefundKind()); err != nil {
		return nil, nil, err
	}
	switch c := c.(type) {
	case RefundHeld:
		if c.Status != RefundAwaitingAddress && c.Status != RefundAwaitingApproval {
			return nil, nil, fmt.Errorf("hold refund: %q is not a status a refund waits in", c.Status)
		}
		to, n.StatusReason = c.Status, c.Why
	case RefundAddressGiven:
		to, n.StatusReason, n.To, n.ToSource = RefundPending, "", c.To, c.Source
	case RefundApproved:
		to, n.StatusReason, n.ApprovedBy, n.ApprovedAt = RefundPending, "", c.By, at
	case RefundIsDust:
		to, n.StatusReason, n.Fee, n.Sent = RefundDust, c.Why, cloneBig(c.Fee), new(big.Int)
		order = RefundNotPaid{Refund: &n}
	case RefundSigned:
		if c.To != r.To {
			return nil, nil, Errorf(ECONFLICT, "refund %s is paid to %s now, not %s", r.ID, r.To.Hex(), c.To.Hex())
		}
		if c.Fee == nil || c.Sent == nil || c.Fee.Sign() < 0 || c.Sent.Sign() <= 0 || new(big.Int).Add(c.Fee, c.Sent).Cmp(r.Amount) > 0 {
			return nil, nil, fmt.Errorf("refund %s of %s: cannot send %v with a fee of %v", r.ID, r.Amount, c.Sent, c.Fee)
		}
		to, n.StatusReason, n.Fee, n.Sent, n.TxHash = RefundSent, "", cloneBig(c.Fee), cloneBig(c.Sent), c.TxHash
		order = RefundSentCause{Refund: &n}
	case RefundMined:
		to, n.TxHash = RefundDone, c.TxHash
		order = RefundPaid{Refund: &n}
	case RefundReverted:
		to, n.StatusReason, n.TxHash = RefundFailed, c.Why, c.TxHash
		order = RefundNotPaid{Refund: &n}
	case RefundRejected:
		to, n.StatusReason = RefundFailed, "refused by "+c.By
		if c.Why != "" {
			n.StatusReason += ": " + c.Why
		}
	case RefundProviderDone:
		to, n.StatusReason, n.ProviderRef, n.Fee, n.Sent = RefundDone, "", c.Ref, new(big.Int), cloneBig(r.Amount)
	case RefundProviderFailed:
		to, n.StatusReason = RefundFailed, c.Why
	default:
		return nil, nil, fmt.Errorf("apply refund: unknown cause %T", c)
	}
	if !slices.Contains(refundSteps, RefundStep{r.Status, c.RefundKind(), to}) {
		return nil, nil, Errorf(ECONFLICT, "refund %s is %s: it does not take %s", r.ID, r.Status, c.RefundKind())
	}
	n.Status = to
	if n.FromMerchant() {
		order = merchantRefundCause(&n, c)
	}
	return &n, order, nil
}

// merchantRefundCause is what a merchant refund's cause c (n as c left it) brings to its
// order: its approval, when it is paid through a provider (the order asks the provider);
// that it is paid; that it failed (reverted, dust, refused by the provider); nothing else (its
// transaction on its way is the refund's own news, in the lookup).
func merchantRefundCause(n *Refund, c RefundCause) Cause {
	switch {
	case n.Status == RefundDone:
		return MerchantRefundPaid{Refund: n}
	case n.Status == RefundFailed || n.Status == RefundDust:
		return MerchantRefundFailed{Refund: n}
	case c.RefundKind() == CauseRefundApproved && n.Fiat():
		return MerchantRefundApproved{Refund: n}
	}
	return nil
}

// cloneOptional copies an amount that may be nil (not known yet).
func cloneOptional(v *big.Int) *big.Int {
	if v == nil {
		return nil
	}
	return new(big.Int).Set(v)
}

// RefundSentCause: a refund's transaction is signed, stored and on its way.
type RefundSentCause struct{ Refund *Refund }

// RefundPaid: a refund's transaction is mined, successful and deep enough.
type RefundPaid struct{ Refund *Refund }

// RefundNotPaid: a refund will not be paid as it is: its transaction reverted (an operator
// may send it again), or it is dust.
type RefundNotPaid struct{ Refund *Refund }

// The kinds of refund causes.
const (
	CauseRefundSent    CauseKind = "refund_sent"
	CauseRefundPaid    CauseKind = "refund_paid"
	CauseRefundNotPaid CauseKind = "refund_not_paid"
)

// Kind implements Cause.
func (RefundSentCause) Kind() CauseKind { return CauseRefundSent }

// Kind implements Cause.
func (RefundPaid) Kind() CauseKind { return CauseRefundPaid }

// Kind implements Cause.
func (RefundNotPaid) Kind() CauseKind { return CauseRefundNotPaid }

// Events of refunds.
const (
	EventRefundProcessing EventName = "order.refund.processing"
	EventRefundFailure    EventName = "order.refund.failure"
)

// refundStates are the states of an area A order that may have refunds to pay: a refund
// changes nothing of such an order but its events, except where refundRules move it.
var refundStates = stays

// refundRules are the steps of refunds: a failed order whose refund is sent is
// REFUND_PENDING, and REFUNDED once every refund of it is settled (paid, or dust, at least
// one paid); in every other state a refund only sends its event.
func refundRules() []Rule {
	out := []Rule{
		{StatusFailed, CauseRefundSent, StatusRefundPending, []EventName{EventRefundProcessing}},
		{StatusRefundPending, CauseRefundPaid, StatusRefunded, []EventName{EventRefunded}},
		{StatusRefundPending, CauseRefundNotPaid, StatusRefunded, []EventName{EventRefundFailure}}, // dust, the others paid
	}
	for _, s := range refundStates {
		if s != StatusFailed {
			out = append(out, Rule{s, CauseRefundSent, s, []EventName{EventRefundProcessing}})
		}
		out = append(out, Rule{s, CauseRefundPaid, s, []EventName{EventRefunded}}, Rule{s, CauseRefundNotPaid, s, []EventName{EventRefundFailure}})
	}
	return out
}

// applyRefund decides where a refund's cause takes order o: the cause's refund as it left it,
// with the order's others (f.Refunds).
func applyRefund(o *Order, f Facts, c Cause) OrderStatus {
	var r *Refund
	switch c := c.(type) {
	case RefundSentCause:
		r = c.Refund
	case RefundPaid:
		r = c.Refund
	case RefundNotPaid:
		r = c.Refund
	}
	refunds := withRefund(f.Refunds, r)
	switch c.(type) {
	case RefundSentCause:
		if o.Status == StatusFailed {
			return StatusRefundPending
		}
	case RefundPaid, RefundNotPaid:
		if o.Status != StatusRefundPending {
			return o.Status
		}
		if !slices.ContainsFunc(refunds, func(r *Refund) bool { return !r.Settled() }) {
			return StatusRefunded // every refund paid or dust: nothing more will be sent
		}
	}
	return o.Status
}
