package checkout

import (
	"context"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/merchant"
)

// RefundStore is what the refund use cases read and change.
type RefundStore interface {
	rampway.RefundStore
	Order(ctx context.Context, id string) (*rampway.Order, error)
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
	if address == "" {
		return nil, rampway.FieldErrorf("address", "address is required")
	}
	to, err := rampway.ParseAddress("address", address)
	if err != nil {
		return nil, err
	}
	o, err := r.store.Order(ctx, rf.OrderID)
	if err != nil {
		return nil, err
	}
	net, ok := r.chains.Network(rf.Network)
	if !ok {
		return nil, rampway.Errorf(rampway.EUNAVAILABLE, "Network %s of refund %s is no longer configured", rf.Network, id)
	}
	asset := o.Asset
	switch {
	case to == (common.Address{}):
		return nil, rampway.FieldErrorf("address", "address must not be the zero address: what is sent there is lost")
	case to == r.hotWallet:
		return nil, rampway.FieldErrorf("address", "address %s is the service's hot wallet, which pays the refund", to.Hex())
	case to == o.DepositAddress:
		return nil, rampway.FieldErrorf("address", "address %s is the order's deposit address: give the address the refund should reach", to.Hex())
	case !asset.IsNative() && to == asset.Contract:
		return nil, rampway.FieldErrorf("address", "address %s is the %s token's own contract: tokens sent there are lost", to.Hex(), asset.Symbol)
	}
	if err := merchant.CheckReceives(ctx, r.chains, r.hotWallet, net, asset, to, "the refund"); err != nil {
		return nil, err
	}
	out, err := r.store.SetRefundAddress(ctx, id, to, source, r.at())
	if rampway.ErrorCode(err) == rampway.ECONFLICT {
		return nil, rampway.Errorf(rampway.ECONFLICT, "Refund %s no longer waits for an address", id)
	}
	return out, err
}

// Approve has an operator (by) approve refund id: one above its asset's automatic limit, or
// one whose transaction failed, to be sent again. ENOTFOUND; ECONFLICT in any other status.
func (r *Refunds) Approve(ctx context.Context, id, by string) (*rampway.Refund, error) {
	rf, err := r.Get(ctx, id)
	if err != nil {
		return nil, err
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

// OrderRefunds returns an order's refunds (the page asks for an address when one waits).
func (r *Refunds) OrderRefunds(ctx context.Context, orderID string) ([]*rampway.Refund, error) {
	return r.store.Refunds(ctx, orderID)
}
