package dashboard

import (
	"context"

	"github.com/rampway/rampway"
)

// Merchants are the merchant use cases the dashboard calls (merchant.Service). Each page's
// file adds what it needs to the interface of its use cases.
type Merchants interface {
	List(ctx context.Context, p rampway.Page) ([]*rampway.Merchant, error)
}

// Refunds are the refund use cases (checkout.Refunds).
type Refunds interface{}

// Functions is the contract function registry (contract.Registry).
type Functions interface{}

// DepositAddresses are merchants' deposit addresses (merchant.DepositAddresses).
type DepositAddresses interface{}

// Stats are the overview's figures.
type Stats interface{}
