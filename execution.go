package rampway

import (
	"context"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// Execution statuses.
const (
	ExecutionSent      = "sent"      // signed, stored, broadcast (again after a restart)
	ExecutionSucceeded = "succeeded" // mined and confirmed with status 1
	ExecutionFailed    = "failed"    // reverted (never sent again)
)

// SignedTx is a signed transaction as it is stored before it is broadcast.
type SignedTx struct {
	Hash common.Hash
	Raw  []byte
}

// Execution is the on-chain call of a paid order, from the hot wallet. A token-paid call
// comes after an approve of exactly the value; both are signed and stored together.
type Execution struct {
	OrderID string
	Network string
	Wallet  common.Address
	// Nonce is the call's nonce (the approve, when there is one, has Nonce-1).
	Nonce     uint64
	Approve   *SignedTx
	Call      SignedTx
	Status    string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// ExecutionStore keeps executions. Nonces are assigned here, per (network, wallet), so that
// several instances never hand out the same one.
type ExecutionStore interface {
	// StartExecution reserves n nonces of (network, wallet) (never below chainNonce), has sign
	// build the transactions with the first of them, and in one transaction stores the signed
	// transactions and moves the order from DEPOSIT_SUCCESS to SMARTCONTRACT_PROCESSING with
	// the call's hash. An order is started at most once: ECONFLICT otherwise.
	StartExecution(ctx context.Context, orderID, network string, wallet common.Address, n int, chainNonce uint64,
		sign func(firstNonce uint64) (approve *SignedTx, call SignedTx, err error), at time.Time) (*Execution, error)
	// SentExecutions returns a network's executions waiting for their receipt.
	SentExecutions(ctx context.Context, network string) ([]*Execution, error)
	// FinishExecution records the outcome and moves the order to SUCCESS, or to FAILED with
	// reason, in one transaction. An execution already finished is left alone.
	FinishExecution(ctx context.Context, orderID string, ok bool, reason string, at time.Time) error
}
