package rampway

import (
	"context"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// SweepStatus is a sweep's state.
type SweepStatus string

// Sweep statuses.
const (
	SweepFunding SweepStatus = "funding" // a token sweep waits for the gas sent to the deposit address (again when fees outran it)
	SweepFunded  SweepStatus = "funded"  // the gas arrived: the token transfer is next
	SweepSent    SweepStatus = "sent"    // the transfer to the treasury is signed, stored, broadcast
	SweepDone    SweepStatus = "done"    // mined at the confirmation depth
	SweepSkipped SweepStatus = "skipped" // too little to be worth its gas
	SweepFailed  SweepStatus = "failed"  // reverted: its transfers are swept again later
)

// PrefixSweep starts sweep ids.
const PrefixSweep = "swp"

// Sweep moves what a deposit address received of one asset to the treasury, in the background;
// execution never waits for it (it pays from the hot wallet).
type Sweep struct {
	ID      string
	Network string
	// Address is the deposit address; Index its HD derivation index.
	Address common.Address
	Index   uint32
	// Token is the ERC-20 contract; the zero address for the native coin.
	Token common.Address
	// Amount is what the transfer moves (for the native coin: the balance less the gas).
	Amount    *big.Int
	Status    SweepStatus
	CreatedAt time.Time
	UpdatedAt time.Time
}

// SweepStore keeps sweeps. A confirmed inbound transfer is claimed by exactly one sweep.
type SweepStore interface {
	// SweepCandidates returns up to limit (deposit address, asset) pairs of a network with
	// confirmed transfers that no sweep has claimed, as Sweeps to start (no ID yet): not while
	// another sweep of the address is in flight, nor while its order waits for the rest of its
	// payment (UNDERPAID).
	SweepCandidates(ctx context.Context, network string, limit int) ([]*Sweep, error)
	// StartSweep stores sw, claims the unclaimed confirmed transfers of its address and asset,
	// and stores its first transaction (from wallet: the hot wallet's gas for a token sweep,
	// else the deposit address's transfer), signed by sign with the wallet's next nonce, in one
	// transaction. sign runs before that transaction, outside any (and again, with the next
	// nonce, when another instance took the nonce meanwhile), as StartExecution's does. sign nil
	// stores a skipped sweep. ECONFLICT when nothing is left to claim.
	StartSweep(ctx context.Context, sw *Sweep, wallet common.Address, chainNonce uint64, kind TxKind,
		sign func(nonce uint64) (*ChainTx, error), at time.Time) error
	// FundedSweeps returns a network's sweeps whose gas arrived.
	FundedSweeps(ctx context.Context, network string) ([]*Sweep, error)
	// SendSweep stores a funded sweep's transfer, signed by sign with the deposit address's next
	// nonce (outside any database transaction, as StartSweep's), with its amount, and marks it
	// sent.
	SendSweep(ctx context.Context, id string, amount *big.Int, chainNonce uint64, sign func(nonce uint64) (*ChainTx, error), at time.Time) error
	// RefuelSweep stores more gas for a funded sweep whose address no longer holds enough for
	// its transfer (fees rose since its gas was sent): a transaction of wallet (the hot wallet),
	// signed by sign as StartSweep's, and the sweep back to funding. ECONFLICT when the sweep is
	// not funded.
	RefuelSweep(ctx context.Context, id string, wallet common.Address, chainNonce uint64, sign func(nonce uint64) (*ChainTx, error), at time.Time) error
	// FinishSweepTx settles a sweep's transaction mined deep enough (as SettleTx): the gas
	// (funding -> funded) or the transfer (sent -> done), or failed when it reverted.
	FinishSweepTx(ctx context.Context, network string, m MinedTx, at time.Time) error
	// Sweeps returns the sweeps of a deposit address, oldest first.
	Sweeps(ctx context.Context, network string, address common.Address) ([]*Sweep, error)
}
