package rampway

import (
	"context"
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

// Refund statuses.
const (
	RefundPending          = "pending"
	RefundAwaitingAddress  = "awaiting_address"
	RefundAwaitingApproval = "awaiting_approval"
	RefundSent             = "sent"
	RefundDone             = "done"
	RefundFailed           = "failed"
	RefundDust             = "dust"
)

// RefundStatuses are every refund status, in the order of a refund's life.
var RefundStatuses = []string{RefundPending, RefundAwaitingAddress, RefundAwaitingApproval, RefundSent, RefundDone, RefundFailed, RefundDust}

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
	Status       string
	StatusReason string
	// TxHash is the transaction that pays it (the one mined, once it is).
	TxHash common.Hash
	// ApprovedBy and ApprovedAt record an operator's approval (of a refund above the automatic
	// limit, or of sending a failed one again).
	ApprovedBy string
	ApprovedAt time.Time
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

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
	Status  string
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
	HoldRefund(ctx context.Context, id, status, why string, at time.Time) (*Refund, error)
	// SetRefundAddress gives a refund waiting for an address (or one that failed) its
	// address, from source: it is pending again. ECONFLICT in any other status.
	SetRefundAddress(ctx context.Context, id string, to common.Address, source string, at time.Time) (*Refund, error)
	// ApproveRefund approves a refund waiting for approval, or one that failed to be sent
	// again: it is pending again, approved by by. ECONFLICT in any other status.
	ApproveRefund(ctx context.Context, id, by string, at time.Time) (*Refund, error)
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
	// FinishRefund records the outcome of a refund's transaction mined as hash: done, or
	// failed with why; its order takes a RefundPaid or a RefundNotPaid. A refund not sent is
	// left alone.
	FinishRefund(ctx context.Context, id string, ok bool, why string, hash common.Hash, at time.Time) error
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
	EventRefundProcessing = "order.refund.processing"
	EventRefundFailure    = "order.refund.failure"
)

// refundStates are the states of an area A order that may have refunds to pay: a refund
// changes nothing of such an order but its events, except where refundRules move it.
var refundStates = stays

// refundRules are the steps of refunds: a failed order whose refund is sent is
// REFUND_PENDING, and REFUNDED once every refund of it is settled (paid, or dust, at least
// one paid); in every other state a refund only sends its event.
func refundRules() []Rule {
	out := []Rule{
		{StatusFailed, CauseRefundSent, StatusRefundPending, []string{EventRefundProcessing}},
		{StatusRefundPending, CauseRefundPaid, StatusRefunded, []string{EventRefunded}},
		{StatusRefundPending, CauseRefundNotPaid, StatusRefunded, []string{EventRefundFailure}}, // dust, the others paid
	}
	for _, s := range refundStates {
		if s != StatusFailed {
			out = append(out, Rule{s, CauseRefundSent, s, []string{EventRefundProcessing}})
		}
		out = append(out, Rule{s, CauseRefundPaid, s, []string{EventRefunded}}, Rule{s, CauseRefundNotPaid, s, []string{EventRefundFailure}})
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
	refunds := append(slices.DeleteFunc(slices.Clone(f.Refunds), func(old *Refund) bool { return old.ID == r.ID }), r)
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
