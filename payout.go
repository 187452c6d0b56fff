package rampway

import (
	"context"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// MerchantDepositAddress is where a merchant receives an asset on a network: area C's orders
// send the asset the user bought there.
type MerchantDepositAddress struct {
	MerchantID string
	Network    string
	// Symbol is the asset's (the network's native coin or one of its tokens).
	Symbol    string
	Address   common.Address
	CreatedAt time.Time
	UpdatedAt time.Time
}

// MerchantDepositAddressStore keeps merchants' deposit addresses, one per (network, asset).
type MerchantDepositAddressStore interface {
	// SetMerchantDepositAddress stores a's address for its merchant, network and asset,
	// replacing the one there was (its CreatedAt then stays). ENOTFOUND for an unknown merchant.
	SetMerchantDepositAddress(ctx context.Context, a *MerchantDepositAddress) error
	// MerchantDepositAddresses lists a merchant's deposit addresses by network, then symbol.
	MerchantDepositAddresses(ctx context.Context, merchantID string) ([]*MerchantDepositAddress, error)
	// MerchantDepositAddress returns one. ENOTFOUND.
	MerchantDepositAddress(ctx context.Context, merchantID, network, symbol string) (*MerchantDepositAddress, error)
	// DeleteMerchantDepositAddress removes one. ENOTFOUND.
	DeleteMerchantDepositAddress(ctx context.Context, merchantID, network, symbol string) error
}
