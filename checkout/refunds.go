package checkout

import (
	"context"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/merchant"
)

// RefundStore is what the refund use cases read and change.
type RefundStore interface {
	rampway.RefundStore
	Order(ctx context.Context, id string) (*rampway.Order, error)
	FiatPayments(ctx context.Context, orderID string) ([]*rampway.FiatPayment, error)
}

// Refunds are the use cases of area A's refunds that people act on: the address of a refund
// the payer's own address cannot take (given by the user on the hosted page, the merchant or
// an operator), an operator's approval, and listings. The chain workers pay them.
type Refunds struct {
	store     RefundStore
	chains    merchant.DepositChains
	hotWallet common.Address
	now       func() time.Time
}

// NewRefunds returns the refund use cases; hotWallet pays refunds (an address that is a
// contract is tested with a transfer simulated from it). now is the clock (time.Now when nil).
func NewRefunds(store RefundStore, chains merchant.DepositChains, hotWallet common.Address, now func() time.Time) *Refunds {
	if now == nil {
		now = time.Now
	}
	return &Refunds{store: store, chains: chains, hotWallet: hotWallet, now: now}
}

func (r *Refunds) at() time.Time { return r.now().UTC().Truncate(time.Microsecond) }

// Get returns a refund. ENOTFOUND.
func (r *Refunds) Get(ctx context.Context, id string) (*rampway.Refund, error) {
	if !rampway.ValidID(rampway.PrefixRefund, id) {
		return nil, refundNotFound(id)
	}
	rf, err := r.store.Refund(ctx, id)
	if rampway.ErrorCode(err) == rampway.ENOTFOUND {
		return nil, refundNotFound(id)
	}
	return rf, err
}

func refundNotFound(id string) error {
	return rampway.Errorf(rampway.ENOTFOUND, "Refund %q not found", rampway.Echo(id))
}

// List returns refunds by status and network, oldest first. EINVALID for an unknown status.
func (r *Refunds) List(ctx context.Context, f rampway.RefundFilter) ([]*rampway.Refund, error) {
	if f.Status != "" && !f.Status.Valid() {
		return nil, rampway.FieldErrorf("status", "status %q is not a refund status (%v)", rampway.Echo(string(f.Status)), rampway.RefundStatuses)
	}
	return r.store.ListRefunds(ctx, f)
}

// SetAddress gives refund id of order orderID ("" for any order: an operator) the address it
// is paid to, from source (rampway.RefundToUser, ToMerchant, ToAdmin). The refund must be
// waiting for one (or have failed: sent again to the new address). The address is checked:
// 0x and 40 hex digits, not the zero address, the hot wallet, the order's deposit address or
// the token's own contract; a contract must take a plain transfer of the asset (simulated).
// EINVALID names the field "address"; ENOTFOUND; ECONFLICT when the refund takes no address.
func (r *Refunds) SetAddress(ctx context.Context, orderID, id, address, source string) (*rampway.Refund, error) {
	rf, err := r.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if orderID != "" && rf.OrderID != orderID {
		return nil, refundNotFound(id)
	}
	if rf.Status != rampway.RefundAwaitingAddress && rf.Status != rampway.RefundFailed {
		return nil, rampway.Errorf(rampway.ECONFLICT, "Refund %s is %s: it does not wait for an address", id, rf.Status)
	}
	if rf.Fiat() {
		return nil, rampway.Errorf(rampway.ECONFLICT, "Refund %s is paid back through the payment's provider: it takes no address", id)
	}
	if rf.FromMerchant() && rf.Status == rampway.RefundFailed {
		return nil, rampway.Errorf(rampway.ECONFLICT, "Refund %s failed: a merchant's refund is not sent again (the merchant asks for another)", id)
	}
	if address == "" {
		return nil, rampway.FieldErrorf("address", "address is required")
	}
	o, err := r.store.Order(ctx, rf.OrderID)
	if err != nil {
		return nil, err
	}
	to, err := r.checkAddress(ctx, o, address)
	if err != nil {
		return nil, err
	}
	out, err := r.store.SetRefundAddress(ctx, id, to, source, r.at())
	if rampway.ErrorCode(err) == rampway.ECONFLICT {
		return nil, rampway.Errorf(rampway.ECONFLICT, "Refund %s no longer waits for an address", id)
	}
	return out, err
}

// checkAddress checks address as a refund of area A order o may go there: 0x and 40 hex
// digits, not the zero address, the hot wallet, the order's deposit address or the token's own
// contract; a contract must take a plain transfer of the asset (simulated). EINVALID names the
// field "address"; EUNAVAILABLE when the order's network cannot be asked.
func (r *Refunds) checkAddress(ctx context.Context, o *rampway.Order, address string) (common.Address, error) {
	to, err := rampway.ParseAddress("address", address)
	if err != nil {
		return common.Address{}, err
	}
	net, ok := r.chains.Network(o.Network)
	if !ok {
		return common.Address{}, rampway.Errorf(rampway.EUNAVAILABLE, "Network %s of order %s is no longer configured", o.Network, o.ID)
	}
	asset := o.Asset
	switch {
	case to == (common.Address{}):
		return common.Address{}, rampway.FieldErrorf("address", "address must not be the zero address: what is sent there is lost")
	case to == r.hotWallet:
		return common.Address{}, rampway.FieldErrorf("address", "address %s is the service's hot wallet, which pays the refund", to.Hex())
	case to == o.DepositAddress:
		return common.Address{}, rampway.FieldErrorf("address", "address %s is the order's deposit address: give the address the refund should reach", to.Hex())
	case !asset.IsNative() && to == asset.Contract:
		return common.Address{}, rampway.FieldErrorf("address", "address %s is the %s token's own contract: tokens sent there are lost", to.Hex(), asset.Symbol)
	}
	if err := merchant.CheckReceives(ctx, r.chains, r.hotWallet, net, asset, to, "the refund"); err != nil {
		return common.Address{}, err
	}
	return to, nil
}

// MerchantRefundRequest is a merchant's refund of one of its orders, as the API and the CLI
// take it.
type MerchantRefundRequest struct {
	// Amount is a decimal amount of the order's refund currency (area A its asset, areas B and
	// C its fiat currency); "" for all that is left.
	Amount string
	// Reason says why ("" for rampway.DefaultMerchantRefundReason).
	Reason string
	// Address is where an area A refund goes ("" for the address that paid); areas B and C
	// take none (the provider pays the payment back).
	Address string
	// Source is who asks: rampway.RefundToMerchant (the API) or rampway.RefundToAdmin (the CLI).
	Source string
}

// Create refunds all or part of what order o (one of the caller's, in the caller's mode: the
// caller checked) was paid. EINVALID naming amount, reason or address; ECONFLICT for an order
// that did not succeed or has nothing left; the refund as recorded otherwise: pending (on its
// way), awaiting_approval (above the merchant's threshold) or, in area A, waiting for an
// address later if the payer cannot take it.
func (r *Refunds) Create(ctx context.Context, o *rampway.Order, req MerchantRefundRequest) (*rampway.Refund, error) {
	symbol, decimals := o.RefundCurrency()
	c := rampway.RefundRequested{Source: req.Source}
	if req.Amount != "" {
		v, err := rampway.ParseUnits(req.Amount, decimals)
		if err != nil || v.Sign() <= 0 {
			return nil, rampway.FieldErrorf("amount", "amount must be a positive decimal amount of %s with at most %d decimals, such as %q, not %q",
				symbol, decimals, o.FormatRefundAmount(o.Paid()), rampway.Echo(req.Amount))
		}
		c.Amount = v
	}
	reason, err := rampway.CheckText("reason", req.Reason, rampway.MaxRefundReason)
	if err != nil {
		return nil, err
	}
	c.Reason = reason
	switch {
	case o.Area != rampway.AreaMint:
		if req.Address != "" {
			return nil, rampway.FieldErrorf("address", "address is for refunds of area A orders (paid in crypto): this order's payment is refunded through its payment provider")
		}
		ps, err := r.store.FiatPayments(ctx, o.ID)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			if p.ID == o.FiatPaymentID {
				c.Destination = p.Method
				if p.CardLast4 != "" { // "card visa ****4242", "apple_pay visa ****4242"
					kind := p.Method
					if kind == rampway.MethodCard {
						kind = "card"
					}
					c.Destination = strings.Join(strings.Fields(kind+" "+p.CardBrand+" ****"+p.CardLast4), " ")
				}
			}
		}
	case req.Address != "":
		if c.To, err = r.checkAddress(ctx, o, req.Address); err != nil {
			return nil, err
		}
	}
	return r.store.RequestRefund(ctx, o.ID, c, r.at())
}

// Approve has an operator (by) approve refund id: one above its asset's automatic limit, or
// one whose transaction failed, to be sent again. ENOTFOUND; ECONFLICT in any other status.
func (r *Refunds) Approve(ctx context.Context, id, by string) (*rampway.Refund, error) {
	rf, err := r.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if rf.FromMerchant() && rf.Status == rampway.RefundFailed {
		return nil, rampway.Errorf(rampway.ECONFLICT, "Refund %s failed: a merchant's refund is not sent again (the merchant asks for another)", id)
	}
	if rf.Status != rampway.RefundAwaitingApproval && rf.Status != rampway.RefundFailed {
		return nil, rampway.Errorf(rampway.ECONFLICT, "Refund %s is %s: only a refund awaiting approval, or one that failed, is approved", id, rf.Status)
	}
	if by == "" {
		by = "admin"
	}
	out, err := r.store.ApproveRefund(ctx, id, by, r.at())
	if rampway.ErrorCode(err) == rampway.ECONFLICT {
		return nil, rampway.Errorf(rampway.ECONFLICT, "Refund %s changed meanwhile: %v", id, rampway.ErrorMessage(err))
	}
	return out, err
}

// Reject has an operator (by, "admin" when empty) refuse a merchant's refund that waits for
// approval, for why: it fails, nothing is sent, its merchant hears order.refund.failed and may
// ask for another. ENOTFOUND; ECONFLICT for any other refund (a refund rampway owes on its own
// is approved or given an address, never refused: its money would be stranded).
func (r *Refunds) Reject(ctx context.Context, id, by, why string) (*rampway.Refund, error) {
	rf, err := r.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if !rf.FromMerchant() {
		return nil, rampway.Errorf(rampway.ECONFLICT, "Refund %s is owed by the service on its own: approve it or give it an address; it is never refused", id)
	}
	if rf.Status != rampway.RefundAwaitingApproval {
		return nil, rampway.Errorf(rampway.ECONFLICT, "Refund %s is %s: only a refund awaiting approval is refused", id, rf.Status)
	}
	why, err = rampway.CheckText("reason", why, rampway.MaxRefundReason)
	if err != nil {
		return nil, err
	}
	if by == "" {
		by = "admin"
	}
	out, err := r.store.RejectRefund(ctx, id, by, why, r.at())
	if rampway.ErrorCode(err) == rampway.ECONFLICT {
		return nil, rampway.Errorf(rampway.ECONFLICT, "Refund %s changed meanwhile: %v", id, rampway.ErrorMessage(err))
	}
	return out, err
}

// OrderRefunds returns an order's refunds (the page asks for an address when one waits).
func (r *Refunds) OrderRefunds(ctx context.Context, orderID string) ([]*rampway.Refund, error) {
	return r.store.Refunds(ctx, orderID)
}

// RefundOrder returns the order of refund rf, whatever its merchant: an operator's views of
// refunds across merchants show its merchant, its mode and amounts in its currency.
func (r *Refunds) RefundOrder(ctx context.Context, rf *rampway.Refund) (*rampway.Order, error) {
	return r.store.Order(ctx, rf.OrderID)
}
