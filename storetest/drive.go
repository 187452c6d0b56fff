package storetest

import (
	"math/big"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/internal/sqlstore"
	"github.com/rampway/rampway/sqlite"
)

// driveWallet executes the orders Drive takes through an execution.
var driveWallet = common.HexToAddress("0x00000000000000000000000000000000000000dd")

// Payer is who pays the orders Pay and Drive pay.
var Payer = common.HexToAddress("0x00000000000000000000000000000000000000cc")

// transferSeq makes the transfers Pay records unique.
var transferSeq atomic.Uint64

// Seen records a payment of amount to the stored order o's deposit address, seen in a block
// (not yet confirmed), as a watcher would, and returns it.
func Seen(tb testing.TB, s rampway.Store, o *rampway.Order, amount *big.Int) *rampway.InboundTransfer {
	tb.Helper()
	return SeenAt(tb, s, o, amount, now())
}

// SeenAt is Seen at time at.
func SeenAt(tb testing.TB, s rampway.Store, o *rampway.Order, amount *big.Int, at time.Time) *rampway.InboundTransfer {
	tb.Helper()
	n := transferSeq.Add(1)
	tr := &rampway.InboundTransfer{Network: o.Network, TxHash: common.BigToHash(new(big.Int).SetUint64(0xd71fe<<32 | n)), LogIndex: 0,
		OrderID: o.ID, Token: o.Asset.Contract, From: Payer, To: o.DepositAddress, Amount: new(big.Int).Set(amount), BlockNumber: 1,
		BlockHash: common.HexToHash("0xb1")}
	if _, err := s.RecordTransfer(tb.Context(), tr, at); err != nil {
		tb.Fatalf("record payment of %s: %v", o.ID, err)
	}
	return tr
}

// Pay records a payment of amount to the stored order o and confirms it.
func Pay(tb testing.TB, s rampway.Store, o *rampway.Order, amount *big.Int) {
	tb.Helper()
	tr := Seen(tb, s, o, amount)
	if err := s.ConfirmTransfer(tb.Context(), tr.Network, tr.TxHash, tr.LogIndex, now()); err != nil {
		tb.Fatalf("confirm payment of %s: %v", o.ID, err)
	}
}

// Drive moves the stored area A order id to status to along the causes of a journey, as the
// workers and the page would: payments seen and confirmed (in full, or 1 base unit for
// UNDERPAID), an execution started and mined or reverted, a refused one (FAILED from
// DEPOSIT_SUCCESS), the order's expiry (FAILED from UNDERPAID), the user's cancel, a payment
// after expiry (REFUND_PENDING). It returns the order as stored then.
func Drive(tb testing.TB, s rampway.Store, id string, to rampway.OrderStatus) *rampway.Order {
	tb.Helper()
	ctx := tb.Context()
	for range 10 {
		o, err := s.Order(ctx, id)
		if err != nil {
			tb.Fatal(err)
		}
		if o.Status == to {
			return o
		}
		due := new(big.Int).Sub(o.CryptoAmount, o.CryptoReceived)
		var c rampway.Cause
		switch {
		case o.Status == rampway.StatusCreated && to == rampway.StatusCancelled:
			c = rampway.Cancelled{}
		case o.Status == rampway.StatusCreated && (to == rampway.StatusExpired || to == rampway.StatusRefundPending):
			c = rampway.Expired{}
		case o.Status == rampway.StatusCreated && to == rampway.StatusUnderpaid:
			Seen(tb, s, o, big.NewInt(1))
		case o.Status == rampway.StatusCreated || o.Status == rampway.StatusUnderpaid && to != rampway.StatusFailed:
			Seen(tb, s, o, due)
		case o.Status == rampway.StatusUnderpaid:
			c = rampway.Expired{}
		case o.Status == rampway.StatusExpired:
			Pay(tb, s, o, big.NewInt(1))
		case o.Status == rampway.StatusDepositProcessing:
			ts, err := s.OrderTransfers(ctx, id)
			if err != nil {
				tb.Fatal(err)
			}
			for _, t := range ts {
				if t.Status == rampway.TransferSeen {
					if err := s.ConfirmTransfer(ctx, t.Network, t.TxHash, t.LogIndex, now()); err != nil {
						tb.Fatal(err)
					}
				}
			}
		case o.Status == rampway.StatusDepositSuccess && to == rampway.StatusFailed:
			c = rampway.ExecutionRefused{Reason: "cannot execute"}
		case o.Status == rampway.StatusDepositSuccess:
			tag := byte(transferSeq.Add(1))
			if _, err := s.StartExecution(ctx, id, o.Network, driveWallet, 0, fakeSign(driveWallet, 1, tag), now()); err != nil {
				tb.Fatalf("start execution of %s: %v", id, err)
			}
		case o.Status == rampway.StatusSmartContractProcessing:
			e, _, err := s.Execution(ctx, id)
			if err != nil {
				tb.Fatal(err)
			}
			if err := s.FinishExecution(ctx, id, rampway.MinedTx{Hash: e.TxHash, OK: to != rampway.StatusFailed}, "execution reverted", now()); err != nil {
				tb.Fatal(err)
			}
		default:
			tb.Fatalf("Drive: no way from %s to %s", o.Status, to)
		}
		if c != nil {
			if _, err := s.Apply(ctx, id, c, now()); err != nil {
				tb.Fatalf("Drive %s from %s to %s: %s: %v", id, o.Status, to, c.Kind(), err)
			}
		}
	}
	tb.Fatalf("Drive: %s did not reach %s", id, to)
	return nil
}

// OpenSQLite opens a store on a SQLite file in a temporary directory, closed when the test
// ends: for the tests of the packages above the store. (sqlite.Open starts every new database
// of the process but the first from a copy of the first as migrated: a few milliseconds.)
func OpenSQLite(tb testing.TB) *sqlstore.Store {
	tb.Helper()
	s, err := sqlite.Open(tb.Context(), filepath.Join(tb.TempDir(), "x.db"), nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// NewMerchant stores an active merchant without webhooks.
func NewMerchant(tb testing.TB, store rampway.MerchantStore) *rampway.Merchant {
	tb.Helper()
	now := time.Now().UTC().Truncate(time.Microsecond)
	m := &rampway.Merchant{ID: rampway.NewID(rampway.PrefixMerchant, now), Name: "m", Status: rampway.MerchantActive, CreatedAt: now, UpdatedAt: now}
	if err := store.CreateMerchant(tb.Context(), m); err != nil {
		tb.Fatal(err)
	}
	return m
}
