package rampway

import (
	"context"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// TransferStatus is an inbound transfer's state.
type TransferStatus string

// Inbound transfer statuses.
const (
	TransferSeen      TransferStatus = "seen"      // in a block, not yet deep enough
	TransferConfirmed TransferStatus = "confirmed" // credited to its order
	TransferDropped   TransferStatus = "dropped"   // its block left the canonical chain
)

// InboundTransfer is a payment seen arriving at an order's deposit address: a native value
// transfer (LogIndex -1), an ERC-20 Transfer log (its log index), or native coin that arrived
// inside a transaction: a traced call frame (LogIndex -(2 + the frame's depth-first position),
// -3 or below) or a balance check's credit (LogIndex -2, TxHash a synthetic identity of the
// address and block, From the zero address).
type InboundTransfer struct {
	Network  string
	TxHash   common.Hash
	LogIndex int64
	OrderID  string
	// Token is the ERC-20 contract; the zero address for the native coin.
	Token common.Address
	// From is the payer: the transaction's sender (native), the contract that sent an
	// internal transfer, the Transfer's from (token); zero when unknown (a balance credit).
	From        common.Address
	To          common.Address
	Amount      *big.Int
	BlockNumber uint64
	BlockHash   common.Hash
	Status      TransferStatus
	CreatedAt   time.Time
}

// DepositStore keeps what the deposit watchers saw.
type DepositStore interface {
	// WatchCursor returns the last block a network's watcher processed; ok is false before
	// the first.
	WatchCursor(ctx context.Context, network string) (number uint64, hash common.Hash, ok bool, err error)
	// SetWatchCursor records the last processed block.
	SetWatchCursor(ctx context.Context, network string, number uint64, hash common.Hash, at time.Time) error
	// RecordTransfer stores a transfer seen in a block (or revives a dropped one seen again,
	// in its new block) and, in the same transaction, moves its order from CREATED or
	// UNDERPAID to DEPOSIT_PROCESSING. An order in any other status (paid, closed) is left as
	// it is: nothing is recorded for it before the transfer is confirmed. It reports false
	// when the transfer was already known.
	RecordTransfer(ctx context.Context, t *InboundTransfer, at time.Time) (bool, error)
	// PendingTransfers returns a network's transfers still waiting for confirmations.
	PendingTransfers(ctx context.Context, network string) ([]*InboundTransfer, error)
	// ConfirmTransfer marks a seen transfer confirmed and credits its order, in one
	// transaction, as Apply decides for a PaymentConfirmed: it records what the order does not
	// need for refund (Excess), adds the amount to CryptoReceived, and then either moves the
	// order (a transition, with its event) or, when the order's status stays (a closed order,
	// one paid in full already, one still short), records an order.deposit.success that is no
	// transition: its From and To are the order's status, and it has its webhook delivery as
	// a transition's event does. Every confirmed transfer thus has one event. A transfer that
	// is not "seen" is left alone, so a transfer is never credited, refunded or announced
	// twice; a confirmed one is never undone (DropTransfer leaves it).
	ConfirmTransfer(ctx context.Context, network string, tx common.Hash, logIndex int64, at time.Time) error
	// DropTransfer marks a seen transfer dropped (its block was reorganised away) and moves an
	// order left with no payment in flight back (DEPOSIT_PROCESSING -> CREATED or UNDERPAID);
	// an order in another status is left as it is. A transfer that is not "seen" (confirmed,
	// or dropped already) is left alone.
	DropTransfer(ctx context.Context, network string, tx common.Hash, logIndex int64, at time.Time) error
	// DepositsCreatedSince returns the deposit addresses of a network's orders created at or
	// after since (the watcher adds them to the set it holds between full reloads).
	DepositsCreatedSince(ctx context.Context, network string, since time.Time) ([]WatchedDeposit, error)
	// NativeArrivals sums, by order, the network's native transfers recorded and not dropped
	// (seen or confirmed) in blocks from..to (inclusive): of the orders named, or of every
	// order when orderIDs is nil. Orders without such transfers are absent. The deposit
	// watcher's balance checks compare a deposit address's balance with it.
	NativeArrivals(ctx context.Context, network string, from, to uint64, orderIDs []string) (map[string]*big.Int, error)
	// OrderTransfers returns the transfers seen for an order, oldest first.
	OrderTransfers(ctx context.Context, orderID string) ([]*InboundTransfer, error)
	// WatchedDeposits returns the deposit addresses of a network a payment may still arrive
	// for: those of orders waiting for payment (CREATED, DEPOSIT_PROCESSING, UNDERPAID), and of
	// any other whose expiry is after expiredSince, so that a payment after expiry or a second
	// payment of a paid order is recorded (and refunded).
	WatchedDeposits(ctx context.Context, network string, expiredSince time.Time) ([]WatchedDeposit, error)
}

// WatchedDeposit is what a watcher matches a block's payments with: an order's deposit
// address and the asset it takes (the zero address for the native coin).
type WatchedDeposit struct {
	OrderID string
	Address common.Address
	Token   common.Address
}

// Excess returns the part of a confirmed transfer of amount that order o does not need (o as
// it is before the credit), and why it is refunded: beyond the price while o waits for
// payment, or all of it once o no longer takes payments (expired, paid in full, closed).
func Excess(o *Order, amount *big.Int) (*big.Int, string) {
	switch o.Status {
	case StatusCreated, StatusDepositProcessing, StatusUnderpaid:
		owed := new(big.Int).Sub(o.CryptoAmount, o.CryptoReceived)
		if owed.Sign() < 0 {
			owed.SetInt64(0)
		}
		excess := new(big.Int).Sub(amount, owed)
		if excess.Sign() <= 0 {
			return new(big.Int), ""
		}
		return excess, "overpaid: the amount beyond the price is refunded"
	case StatusExpired:
		return new(big.Int).Set(amount), "paid after the order expired"
	case StatusDepositSuccess, StatusSmartContractProcessing, StatusSuccess:
		return new(big.Int).Set(amount), "paid after the order was paid in full"
	default:
		return new(big.Int).Set(amount), "paid after the order was closed"
	}
}
