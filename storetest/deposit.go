package storetest

import (
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
)

func testDeposits(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	ctx := t.Context()
	m := mustMerchant(t, s, "acme")
	o := mustOrder(t, s, m.ID, now()) // asks 123456789012345678901234567890 DUSD units

	if _, _, ok, err := s.WatchCursor(ctx, "devnet"); ok || err != nil {
		t.Fatalf("cursor before any: ok=%v err=%v", ok, err)
	}
	for _, n := range []uint64{5, 9} {
		if err := s.SetWatchCursor(ctx, "devnet", n, common.BigToHash(big.NewInt(int64(n))), now()); err != nil {
			t.Fatal(err)
		}
	}
	if n, h, ok, err := s.WatchCursor(ctx, "devnet"); !ok || err != nil || n != 9 || h != common.BigToHash(big.NewInt(9)) {
		t.Fatalf("cursor = %d %s %v %v", n, h.Hex(), ok, err)
	}

	want := rampway.WatchedDeposit{OrderID: o.ID, Address: o.DepositAddress, Token: o.Asset.Contract}
	watched, err := s.WatchedDeposits(ctx, "devnet", now().Add(-time.Hour))
	if err != nil || len(watched) != 1 || watched[0] != want {
		t.Fatalf("watched = %v, %v; want %v", watched, err, want)
	}
	if recent, err := s.DepositsCreatedSince(ctx, "devnet", o.CreatedAt); err != nil || len(recent) != 1 || recent[0] != want {
		t.Fatalf("created since its creation = %v, %v", recent, err)
	}
	if later, err := s.DepositsCreatedSince(ctx, "devnet", o.CreatedAt.Add(time.Microsecond)); err != nil || len(later) != 0 {
		t.Fatalf("created after it = %v, %v", later, err)
	}
	if other, _ := s.DepositsCreatedSince(ctx, "othernet", o.CreatedAt.Add(-time.Hour)); len(other) != 0 {
		t.Fatalf("another network's = %v", other)
	}
	tr := &rampway.InboundTransfer{Network: "devnet", TxHash: common.HexToHash("0xaa"), LogIndex: 3, OrderID: o.ID, Token: o.Asset.Contract,
		To: o.DepositAddress, Amount: big.NewInt(100), BlockNumber: 10, BlockHash: common.HexToHash("0xb10")}
	if isNew, err := s.RecordTransfer(ctx, tr, now()); err != nil || !isNew {
		t.Fatalf("RecordTransfer = %v, %v", isNew, err)
	}
	if isNew, err := s.RecordTransfer(ctx, tr, now()); err != nil || isNew {
		t.Fatalf("second RecordTransfer = %v, %v; want already known", isNew, err)
	}
	if got, _ := s.Order(ctx, o.ID); got.Status != rampway.StatusDepositProcessing {
		t.Fatalf("order %s after a payment was seen", got.Status)
	}
	// Dropped by a reorg: back to CREATED; seen again in a new block: pending again.
	if err := s.DropTransfer(ctx, "devnet", tr.TxHash, tr.LogIndex, now()); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Order(ctx, o.ID); got.Status != rampway.StatusCreated {
		t.Fatalf("order %s after its only payment was dropped", got.Status)
	}
	tr.BlockNumber, tr.BlockHash = 11, common.HexToHash("0xb11")
	if isNew, err := s.RecordTransfer(ctx, tr, now()); err != nil || !isNew {
		t.Fatalf("revive = %v, %v", isNew, err)
	}
	pending, err := s.PendingTransfers(ctx, "devnet")
	if err != nil || len(pending) != 1 || pending[0].BlockNumber != 11 || pending[0].Amount.Int64() != 100 || pending[0].Token != o.Asset.Contract {
		t.Fatalf("pending = %+v, %v", pending, err)
	}
	// Confirmed twice: credited once.
	for range 2 {
		if err := s.ConfirmTransfer(ctx, "devnet", tr.TxHash, tr.LogIndex, now()); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := s.Order(ctx, o.ID)
	if got.Status != rampway.StatusUnderpaid || got.CryptoReceived.Int64() != 100 {
		t.Fatalf("after confirmation: %s with %s", got.Status, got.CryptoReceived)
	}
	if pending, _ := s.PendingTransfers(ctx, "devnet"); len(pending) != 0 {
		t.Fatalf("%d still pending", len(pending))
	}
	if err := s.DropTransfer(ctx, "devnet", tr.TxHash, tr.LogIndex, now()); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Order(ctx, o.ID); got.CryptoReceived.Int64() != 100 {
		t.Fatal("a confirmed payment was undone")
	}
}
