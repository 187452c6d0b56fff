package rampway

import (
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// Merchant refunds: a merchant gives back all or part of what an order that succeeded was
// paid (a customer returns a purchase, a mint cancelled off chain, a top-up sent to the wrong
// account). Each is a Refund record with Merchant set, asked for by the cause RefundRequested
// and written, like every cause, in the transaction that locks the order: what is left to
// refund is read and reserved there, so that two refunds asked at once never exceed it, on
// any number of instances. Area A's is paid on chain by the refund worker, as the refunds
// rampway owes on its own; areas B and C's through the payment's provider (a fiat action).

// MerchantRefundPolicy is a merchant's rule for refunds of one currency, in its smallest
// units: a refund above ApprovalAbove waits for an operator (nil: none waits); the refunds of
// one UTC day (of each mode) add up to at most DailyCap (nil: no cap).
type MerchantRefundPolicy struct {
	ApprovalAbove *big.Int
	DailyCap      *big.Int
}

// DefaultMerchantRefundReason is the reason of a merchant refund asked without one.
const DefaultMerchantRefundReason = "requested by the merchant"

// MaxRefundReason is the longest reason a merchant refund takes, in characters.
const MaxRefundReason = 500

// RefundRequested: the order's merchant (or an operator for it) asks that Amount (nil: all
// that is left) of what the order was paid go back, for Reason. A request: an order that did
// not succeed refuses it (ECONFLICT). The store fills Policy (the merchant's for the order's
// currency) and Today (what the merchant's refunds of that currency and mode created since
// the UTC day began add up to, not failed), read under the locks of the transaction.
type RefundRequested struct {
	Amount *big.Int
	Reason string
	// To is where an area A refund goes, given by Source (RefundToMerchant, RefundToAdmin);
	// the zero address for the order's payer (it then waits for an address when the payer
	// cannot take it).
	To     common.Address
	Source string
	// Destination says where an area B or C refund goes (the payment's card or method).
	Destination string
	Policy      MerchantRefundPolicy
	Today       *big.Int
}

// MerchantRefundApproved: an operator approved a merchant refund paid through a provider:
// the order asks its provider for it.
type MerchantRefundApproved struct{ Refund *Refund }

// MerchantRefundPaid: a merchant refund is paid (mined on chain, or done by the provider).
type MerchantRefundPaid struct{ Refund *Refund }

// MerchantRefundFailed: a merchant refund will not be paid (reverted, dust, refused by the
// provider): nothing moved, and what it reserved is free again.
type MerchantRefundFailed struct{ Refund *Refund }

// The kinds of merchant refund causes.
const (
	CauseRefundRequested         CauseKind = "refund_requested"
	CauseMerchantRefundApproved  CauseKind = "merchant_refund_approved"
	CauseMerchantRefundPaid      CauseKind = "merchant_refund_paid"
	CauseMerchantRefundFailed    CauseKind = "merchant_refund_failed"
	EventMerchantRefundSucceeded EventName = "order.refund.succeeded"
	EventMerchantRefundFailed    EventName = "order.refund.failed"
)

// Kind implements Cause.
func (RefundRequested) Kind() CauseKind { return CauseRefundRequested }

// Kind implements Cause.
func (MerchantRefundApproved) Kind() CauseKind { return CauseMerchantRefundApproved }

// Kind implements Cause.
func (MerchantRefundPaid) Kind() CauseKind { return CauseMerchantRefundPaid }

// Kind implements Cause.
func (MerchantRefundFailed) Kind() CauseKind { return CauseMerchantRefundFailed }

// merchantRefundRules are the steps of merchant refunds of an area: only an order that
// succeeded takes one; it stays SUCCESS until its merchant refunds paid add up to all it was
// paid (REFUNDED: nothing is left, so none is on its way any more). A fiat-paid order's
// approved refund is asked of its provider (areas B and C).
func merchantRefundRules(area Area) []Rule {
	out := []Rule{
		{StatusSuccess, CauseRefundRequested, StatusSuccess, []EventName{EventRefundPending}},
		{StatusSuccess, CauseMerchantRefundPaid, StatusSuccess, []EventName{EventMerchantRefundSucceeded}},
		{StatusSuccess, CauseMerchantRefundPaid, StatusRefunded, []EventName{EventMerchantRefundSucceeded}},
		{StatusSuccess, CauseMerchantRefundFailed, StatusSuccess, []EventName{EventMerchantRefundFailed}},
	}
	if area != AreaMint {
		out = append(out, Rule{StatusSuccess, CauseMerchantRefundApproved, StatusSuccess, nil})
	}
	return out
}

// IsMerchantRefundCause reports whether causes of kind k are a merchant refund's: the only
// ones an order that succeeded still takes.
func IsMerchantRefundCause(k CauseKind) bool {
	return k == CauseRefundRequested || k == CauseMerchantRefundApproved || k == CauseMerchantRefundPaid || k == CauseMerchantRefundFailed
}

// RefundCurrency is what order o's refunds are paid in: its asset (area A) or its fiat
// currency (areas B and C), with the decimals of its smallest unit.
func (o *Order) RefundCurrency() (symbol string, decimals uint8) {
	if o.Area != AreaMint {
		return o.FiatSymbol, o.FiatDecimals
	}
	return o.Asset.Symbol, o.Asset.Decimals
}

// FormatRefundAmount writes an amount of o's refund currency for people and the API: a fiat
// amount with all its decimals ("12.50"), a crypto one without trailing zeros.
func (o *Order) FormatRefundAmount(v *big.Int) string {
	_, d := o.RefundCurrency()
	if o.Area != AreaMint {
		return FormatFixed(v, d)
	}
	return FormatUnits(v, d)
}

// Paid is what order o was paid that its merchant may refund: area A its price (what came in
// beyond it was refunded on its own), areas B and C the fiat amount.
func (o *Order) Paid() *big.Int {
	if o.Area != AreaMint {
		return cloneBig(o.FiatAmount)
	}
	v := cloneBig(o.CryptoReceived)
	if o.CryptoAmount != nil && v.Cmp(o.CryptoAmount) > 0 {
		v.Set(o.CryptoAmount)
	}
	return v
}

// RefundTotals are what an order's merchant refunds add up to: Reserved (asked and not
// failed: what is no longer left), Refunded (paid), Left (Paid - Reserved).
type RefundTotals struct {
	Paid, Reserved, Refunded, Left *big.Int
}

// MerchantRefundTotals adds up order o's merchant refunds among refunds.
func MerchantRefundTotals(o *Order, refunds []*Refund) RefundTotals {
	t := RefundTotals{Paid: o.Paid(), Reserved: new(big.Int), Refunded: new(big.Int)}
	for _, r := range refunds {
		if r.Reserves() {
			t.Reserved.Add(t.Reserved, r.Amount)
		}
		if r.FromMerchant() && r.Status == RefundDone {
			t.Refunded.Add(t.Refunded, r.Amount)
		}
	}
	t.Left = new(big.Int).Sub(t.Paid, t.Reserved)
	if t.Left.Sign() < 0 {
		t.Left.SetInt64(0)
	}
	return t
}

// requestRefund decides a merchant's refund of order o (n its copy): the record it makes,
// with the fiat action that asks the provider for it (areas B and C, unless it waits for an
// approval). EINVALID naming amount for more than is left or over the daily cap; ECONFLICT for
// an order that did not succeed or has nothing left.
func requestRefund(o *Order, f Facts, c RefundRequested, out *Outcome, at time.Time) (*Refund, error) {
	symbol, _ := o.RefundCurrency()
	if o.Status != StatusSuccess {
		why := "only an order that succeeded is refunded by its merchant"
		if o.Status == StatusFailed || o.Status == StatusRefundPending || o.Status == StatusRefunded {
			why = "what a failed order was paid is refunded on its own; a refunded one has nothing left"
		}
		return nil, Errorf(ECONFLICT, "Order %s is %s: %s", o.ID, o.Status, why)
	}
	t := MerchantRefundTotals(o, f.Refunds)
	if t.Left.Sign() <= 0 {
		return nil, Errorf(ECONFLICT, "Order %s has nothing left to refund: %s %s of %s %s is refunded or on its way",
			o.ID, o.FormatRefundAmount(t.Reserved), symbol, o.FormatRefundAmount(t.Paid), symbol)
	}
	amount := cloneOptional(c.Amount)
	if amount == nil {
		amount = new(big.Int).Set(t.Left)
	}
	switch {
	case amount.Sign() <= 0:
		return nil, FieldErrorf("amount", "amount must be more than 0")
	case amount.Cmp(t.Left) > 0:
		return nil, FieldErrorf("amount", "amount %s %s is more than the %s %s left to refund of order %s (paid %s %s, refunded or on its way %s %s)",
			o.FormatRefundAmount(amount), symbol, o.FormatRefundAmount(t.Left), symbol, o.ID,
			o.FormatRefundAmount(t.Paid), symbol, o.FormatRefundAmount(t.Reserved), symbol)
	}
	if capv := c.Policy.DailyCap; capv != nil {
		today := cloneOptional(c.Today)
		if today == nil {
			today = new(big.Int)
		}
		if new(big.Int).Add(today, amount).Cmp(capv) > 0 {
			rest := new(big.Int).Sub(capv, today)
			if rest.Sign() < 0 {
				rest.SetInt64(0)
			}
			return nil, FieldErrorf("amount", "amount %s %s is over the merchant's daily refund cap of %s %s: %s %s is left today (UTC)",
				o.FormatRefundAmount(amount), symbol, o.FormatRefundAmount(capv), symbol, o.FormatRefundAmount(rest), symbol)
		}
	}
	reason := c.Reason
	if reason == "" {
		reason = DefaultMerchantRefundReason
	}
	id := NewID(PrefixRefund, at)
	r := &Refund{ID: id, OrderID: o.ID, Cause: MerchantRefundCause(id), Amount: amount, Reason: reason, Status: RefundPending,
		Merchant: o.MerchantID, Livemode: o.Livemode, Currency: symbol, CreatedAt: at, UpdatedAt: at}
	if o.Area == AreaMint {
		r.Network, r.Token, r.To, r.ToSource = o.Network, o.Asset.Contract, c.To, c.Source
		if r.To == (common.Address{}) {
			r.To, r.ToSource = firstPayer(f), RefundToPayer // none known: the refund worker holds it for an address
		}
	} else {
		r.Destination = c.Destination
	}
	if above := c.Policy.ApprovalAbove; above != nil && amount.Cmp(above) > 0 {
		r.Status = RefundAwaitingApproval
		r.StatusReason = fmt.Sprintf("above the merchant's approval threshold of %s %s: an operator approves it", o.FormatRefundAmount(above), symbol)
	} else if r.Fiat() {
		out.FiatActions = append(out.FiatActions, fiatRefundAction(o, r))
	}
	return r, nil
}

// fiatRefundAction asks order o's payment provider for merchant refund r.
func fiatRefundAction(o *Order, r *Refund) *FiatAction {
	return &FiatAction{OrderID: o.ID, PaymentID: o.FiatPaymentID, Kind: ActionRefund, Amount: cloneBig(r.Amount), Currency: o.FiatSymbol,
		Cause: "refund:" + r.Cause, Reason: r.Reason}
}

// MerchantRefundOfAction is the id of the merchant refund a fiat action pays, "" for an action
// asked by the order's own causes.
func MerchantRefundOfAction(a *FiatAction) string {
	const prefix = "refund:merchant:"
	if len(a.Cause) > len(prefix) && a.Cause[:len(prefix)] == prefix {
		return a.Cause[len(prefix):]
	}
	return ""
}

// firstPayer is the sender of an order's first confirmed payment (the zero address when none
// is known).
func firstPayer(f Facts) common.Address {
	for _, t := range sortedTransfers(f.Transfers) {
		if t.Status == TransferConfirmed {
			return t.From
		}
	}
	return common.Address{}
}
