package rampway

import (
	"context"
	"errors"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// ExecutionStatus is an execution's state.
type ExecutionStatus string

// Execution statuses.
const (
	ExecutionSent      ExecutionStatus = "sent"      // signed, stored, broadcast (again after a restart)
	ExecutionSucceeded ExecutionStatus = "succeeded" // mined and confirmed with status 1
	ExecutionFailed    ExecutionStatus = "failed"    // reverted (never sent again)
)

// TxKind is what a transaction rampway signs is for.
type TxKind string

// Kinds of the transactions rampway signs.
const (
	TxApprove TxKind = "approve" // ERC-20 approve before a token-paid call
	TxCall    TxKind = "call"    // the registered function
	TxSweep   TxKind = "sweep"   // a deposit moved to the treasury
	TxGas     TxKind = "gas"     // native coin for a deposit address's token sweep
	TxRefund  TxKind = "refund"  // a refund paid back to a payer
)

// TxStatus is a signed transaction's state.
type TxStatus string

// Chain transaction statuses.
const (
	TxPending  TxStatus = "pending"  // waiting for it (or a replacement of its nonce) to be mined deep enough
	TxMined    TxStatus = "mined"    // mined at the confirmation depth
	TxReplaced TxStatus = "replaced" // another transaction of the same nonce was mined
)

// ChainTx is a transaction rampway signed. It is stored before it is broadcast; a stuck one is
// replaced by another of the same nonce with higher fees, and every one of them is kept.
type ChainTx struct {
	Hash    common.Hash
	Network string
	Wallet  common.Address
	Nonce   uint64
	Kind    TxKind
	// Ref is what the transaction serves: an order's id (approve, call), a sweep's (gas, sweep) or
	// a refund's (refund).
	Ref string
	Raw []byte
	// SentBlock is the chain head when it was signed: a re-price is due some blocks later.
	SentBlock uint64
	Status    TxStatus
	CreatedAt time.Time
}

// Execution is the on-chain call of a paid order, from the hot wallet. A token-paid call
// comes after an approve of exactly the value, at the nonce before; both are in chain_txs.
type Execution struct {
	OrderID string
	Network string
	Wallet  common.Address
	// Nonce is the call's nonce.
	Nonce uint64
	// TxHash is the call's hash: the first signed one, then the one that was mined.
	TxHash    common.Hash
	Status    ExecutionStatus
	CreatedAt time.Time
	UpdatedAt time.Time
}

// ErrNonceAhead is the store's refusal to assign a wallet's nonces while its nonce on chain is
// past every one the store assigned: transactions were sent that the database has no record
// of (the wallet used outside rampway, or the database restored from an older backup, when an
// order it holds as paid may have been executed already). An operator checks and adopts the
// chain's nonce (rampway admin nonces adopt).
var ErrNonceAhead = errors.New("the hot wallet's nonce on chain is past every nonce this database assigned")

// WalletNonce is a wallet's next nonce on a network, as the store assigns them.
type WalletNonce struct {
	Network string
	Wallet  common.Address
	Next    uint64
}

// ExecutionStore keeps executions and the transactions rampway signs. Nonces are assigned
// here, per (network, wallet), so that several instances never hand out the same one.
type ExecutionStore interface {
	// StartExecution has sign build the transactions with consecutive nonces of (network,
	// wallet) from the first one it is given (the wallet's next: ErrNonceAhead, signing nothing,
	// when chainNonce is past it, the wallet used outside this database's knowledge; the
	// call last), outside any database transaction (a remote signer holds no lock), then in one
	// transaction claims those nonces, stores the transactions and applies the execution's
	// start to the order (DEPOSIT_SUCCESS to SMARTCONTRACT_PROCESSING with the call's hash). A
	// nonce taken meanwhile by another instance has sign sign again with the next ones; only
	// the stored signature is ever broadcast. An order is started at most once: ECONFLICT
	// otherwise, and then nothing is stored and no nonce used.
	StartExecution(ctx context.Context, orderID, network string, wallet common.Address, chainNonce uint64,
		sign func(firstNonce uint64) ([]*ChainTx, error), at time.Time) (*Execution, error)
	// Execution returns an order's execution and its transactions. ENOTFOUND.
	Execution(ctx context.Context, orderID string) (*Execution, []*ChainTx, error)
	// FinishExecution records the outcome of the call mined as m (m.OK false: it reverted, for
	// reason): the order moves to SUCCESS, or to FAILED with reason and a refund record, in one
	// transaction, and the call is settled (SettleTx). An execution already finished is left
	// alone.
	FinishExecution(ctx context.Context, orderID string, m MinedTx, reason string, at time.Time) error

	// PendingTxs returns a network's transactions waiting to be mined deep enough, by wallet,
	// nonce and age.
	PendingTxs(ctx context.Context, network string) ([]*ChainTx, error)
	// Nonces returns each wallet's next nonce, by network; AdoptNonce makes next the wallet's
	// next nonce (an operator's, after ErrNonceAhead) and returns the one before: EINVALID
	// below it, ENOTFOUND for a wallet never used.
	Nonces(ctx context.Context) ([]WalletNonce, error)
	AdoptNonce(ctx context.Context, network string, wallet common.Address, next uint64) (uint64, error)
	// AddTx stores a replacement of a pending transaction (same network, wallet and nonce).
	AddTx(ctx context.Context, tx *ChainTx) error
	// SettleTx marks the transaction mined as m mined and the others of its nonce replaced,
	// and records what it moved in the ledger (its fee, its value, its token transfers), in one
	// transaction; settled again, it records nothing more.
	SettleTx(ctx context.Context, network string, m MinedTx, at time.Time) error
}
