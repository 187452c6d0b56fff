package storetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
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

// eventContext is what testCreditWithoutTransition reads of a delivery's body.
type eventContext struct {
	EventID   string `json:"eventId"`
	EventName string `json:"eventName"`
	Context   struct {
		Status               string   `json:"status"`
		CryptoAmountReceived string   `json:"crypto_amount_received"`
		DepositTxHashes      []string `json:"deposit_tx_hashes"`
		Refunds              []struct {
			Amount    string `json:"amount"`
			Reason    string `json:"reason"`
			Status    string `json:"status"`
			ToAddress string `json:"to_address"`
		} `json:"refunds"`
	} `json:"context"`
}

// A confirmed transfer credited to an order that it does not move (closed, paid in full
// already, or still short) is no transition, but it is an event all the same: one
// order.deposit.success whose From and To are the order's status, with its webhook delivery
// when the order has a webhook URL and its merchant a secret, written with the credit and the
// refund record. It follows the credit's dedup: confirming again, seeing the transfer again
// (a rescan) or dropping it once confirmed records nothing more. Seen and not yet confirmed,
// or seen and then dropped by a reorganisation, such a transfer changes nothing of the order.
func testCreditWithoutTransition(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	ctx := t.Context()
	hooked := hookedMerchant(t, s, "hooked")
	quiet := mustMerchant(t, s, "quiet") // a webhook URL, no secret: events, no deliveries
	payer := common.HexToAddress("0x00000000000000000000000000000000000000cc")
	const (
		paidInFull = "paid after the order was paid in full"
		closed     = "paid after the order was closed"
	)
	for i, tc := range []struct {
		name     string
		merchant *rampway.Merchant
		to       rampway.OrderStatus
		reason   string // of the refund of the whole payment
	}{
		{"success", hooked, rampway.StatusSuccess, paidInFull},
		{"paid, not yet executed", hooked, rampway.StatusDepositSuccess, paidInFull},
		{"cancelled", hooked, rampway.StatusCancelled, closed},
		{"failed", hooked, rampway.StatusFailed, closed},
		{"refund pending", hooked, rampway.StatusRefundPending, closed},
		{"cancelled, no secret", quiet, rampway.StatusCancelled, closed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := mustOrder(t, s, tc.merchant.ID, now())
			Drive(t, s, o.ID, tc.to)
			before, err := s.Order(ctx, o.ID)
			if err != nil {
				t.Fatal(err)
			}
			status := before.Status
			count := func() (events, deliveries, refunds int) {
				t.Helper()
				es, err1 := s.OrderEvents(ctx, o.ID)
				ds, err2 := s.Deliveries(ctx, o.ID)
				rs, err3 := s.Refunds(ctx, o.ID)
				if err := errors.Join(err1, err2, err3); err != nil {
					t.Fatal(err)
				}
				return len(es), len(ds), len(rs)
			}
			events0, deliveries0, refunds0 := count()
			unchanged := func(what string) {
				t.Helper()
				got, err := s.Order(ctx, o.ID)
				if err != nil {
					t.Fatal(err)
				}
				if got.Status != status || got.CryptoReceived.Cmp(before.CryptoReceived) != 0 {
					t.Fatalf("%s: order %s with %s received, want it left %s with %s", what, got.Status, got.CryptoReceived, status, before.CryptoReceived)
				}
				if e, d, r := count(); e != events0 || d != deliveries0 || r != refunds0 {
					t.Fatalf("%s: %d events, %d deliveries, %d refunds; want %d, %d, %d as before", what, e, d, r, events0, deliveries0, refunds0)
				}
			}

			tr := &rampway.InboundTransfer{Network: "devnet", TxHash: common.BigToHash(big.NewInt(int64(0xc0de00 + i))), LogIndex: 2, OrderID: o.ID,
				Token: o.Asset.Contract, From: payer, To: o.DepositAddress, Amount: big.NewInt(500), BlockNumber: 20, BlockHash: common.HexToHash("0xb20")}
			if isNew, err := s.RecordTransfer(ctx, tr, now()); err != nil || !isNew {
				t.Fatalf("RecordTransfer = %v, %v", isNew, err)
			}
			unchanged("seen")
			if err := s.DropTransfer(ctx, "devnet", tr.TxHash, tr.LogIndex, now()); err != nil {
				t.Fatal(err)
			}
			unchanged("seen, then dropped by a reorg")
			tr.BlockNumber, tr.BlockHash = 21, common.HexToHash("0xb21")
			if isNew, err := s.RecordTransfer(ctx, tr, now()); err != nil || !isNew {
				t.Fatalf("RecordTransfer in the new branch = %v, %v", isNew, err)
			}
			unchanged("seen again in the new branch")

			at := now().Add(time.Second)
			for range 2 {
				if err := s.ConfirmTransfer(ctx, "devnet", tr.TxHash, tr.LogIndex, at); err != nil {
					t.Fatal(err)
				}
			}
			// A rescan sees it again; a reorganisation deeper than the confirmations would drop it.
			if isNew, err := s.RecordTransfer(ctx, tr, now()); err != nil || isNew {
				t.Fatalf("RecordTransfer after the confirmation = %v, %v; want already known", isNew, err)
			}
			if err := s.DropTransfer(ctx, "devnet", tr.TxHash, tr.LogIndex, now()); err != nil {
				t.Fatal(err)
			}

			got, err := s.Order(ctx, o.ID)
			if err != nil {
				t.Fatal(err)
			}
			wantReceived := new(big.Int).Add(before.CryptoReceived, tr.Amount)
			if got.Status != status || got.CryptoReceived.Cmp(wantReceived) != 0 || !got.UpdatedAt.Equal(at) {
				t.Fatalf("after the credit: %s with %s received (updated %v), want %s with %s (updated %v)", got.Status, got.CryptoReceived, got.UpdatedAt, status, wantReceived, at)
			}
			refunds, err := s.Refunds(ctx, o.ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(refunds) != refunds0+1 {
				t.Fatalf("refunds %+v: want one more than the %d before", refunds, refunds0)
			}
			if r := refunds[len(refunds)-1]; r.Amount.Cmp(tr.Amount) != 0 || r.Reason != tc.reason || r.To != payer || r.Token != o.Asset.Contract ||
				r.Status != rampway.RefundPending {
				t.Fatalf("refund %+v, want all of the payment to its sender for %q", r, tc.reason)
			}
			events, err := s.OrderEvents(ctx, o.ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(events) != events0+1 {
				t.Fatalf("%d events, want one more than the %d before", len(events), events0)
			}
			ev := events[len(events)-1]
			if ev.Name != rampway.EventDepositSuccess || ev.From != status || ev.To != status || !ev.CreatedAt.Equal(at) || ev.MerchantID != tc.merchant.ID {
				t.Fatalf("event %+v, want %s from %s to %s at %v", ev, rampway.EventDepositSuccess, status, status, at)
			}
			ds, err := s.Deliveries(ctx, o.ID)
			if err != nil {
				t.Fatal(err)
			}
			if tc.merchant == quiet {
				if len(ds) != 0 {
					t.Fatalf("deliveries %v of a merchant without a secret", eventIDs(ds))
				}
				return
			}
			if len(ds) != deliveries0+1 {
				t.Fatalf("deliveries %v, want one more than the %d before", eventIDs(ds), deliveries0)
			}
			d := ds[len(ds)-1]
			if d.EventID != ev.ID || d.EventSeq != ev.Seq || d.EventName != rampway.EventDepositSuccess || d.Status != rampway.DeliveryPending ||
				d.URL != o.MerchantWebhookURL || !d.NextAttemptAt.Equal(at) {
				t.Fatalf("delivery %+v, want the event %s (seq %d), pending at %v", d, ev.ID, ev.Seq, at)
			}
			// The event before it (the order's last transition) showed the refunds recorded
			// by then: a failed order's is recorded with the failure.
			var prev eventContext
			if err := json.Unmarshal(ds[len(ds)-2].Body, &prev); err != nil {
				t.Fatalf("body %s: %v", ds[len(ds)-2].Body, err)
			}
			if len(prev.Context.Refunds) != refunds0 {
				t.Fatalf("the %s before the credit lists %d refunds, want %d: %s", prev.EventName, len(prev.Context.Refunds), refunds0, ds[len(ds)-2].Body)
			}
			var body eventContext
			if err := json.Unmarshal(d.Body, &body); err != nil {
				t.Fatalf("body %s: %v", d.Body, err)
			}
			c := body.Context
			if body.EventID != ev.ID || body.EventName != string(rampway.EventDepositSuccess) || c.Status != string(status) ||
				c.CryptoAmountReceived != rampway.FormatUnits(wantReceived, o.Asset.Decimals) || !slices.Contains(c.DepositTxHashes, tr.TxHash.Hex()) {
				t.Fatalf("body %s: want the credit's status %s, %s received and the transfer %s", d.Body, status, wantReceived, tr.TxHash.Hex())
			}
			if len(c.Refunds) != len(refunds) {
				t.Fatalf("body %s: %d refunds, want the order's %d", d.Body, len(c.Refunds), len(refunds))
			}
			if r := c.Refunds[len(c.Refunds)-1]; r.Amount != rampway.FormatUnits(tr.Amount, o.Asset.Decimals) || r.Reason != tc.reason ||
				r.Status != string(rampway.RefundPending) || r.ToAddress != payer.Hex() {
				t.Fatalf("body %s: the last refund is %+v, want %s to %s for %q", d.Body, r, tr.Amount, payer.Hex(), tc.reason)
			}
		})
	}

	// Two payments seen, both short: the first confirmed moves the order to UNDERPAID, the
	// second leaves it there, and has its own event all the same.
	t.Run("underpaid, still short", func(t *testing.T) {
		o := mustOrder(t, s, hooked.ID, now())
		var txs []common.Hash
		for i := range 2 {
			tr := &rampway.InboundTransfer{Network: "devnet", TxHash: common.BigToHash(big.NewInt(int64(0xdead00 + i))), LogIndex: 0, OrderID: o.ID,
				Token: o.Asset.Contract, From: payer, To: o.DepositAddress, Amount: big.NewInt(100), BlockNumber: 30, BlockHash: common.HexToHash("0xb30")}
			if _, err := s.RecordTransfer(ctx, tr, now()); err != nil {
				t.Fatal(err)
			}
			txs = append(txs, tr.TxHash)
		}
		for _, h := range txs {
			if err := s.ConfirmTransfer(ctx, "devnet", h, 0, now()); err != nil {
				t.Fatal(err)
			}
		}
		got, _ := s.Order(ctx, o.ID)
		if got.Status != rampway.StatusUnderpaid || got.CryptoReceived.Int64() != 200 {
			t.Fatalf("order %s with %s received, want UNDERPAID with 200", got.Status, got.CryptoReceived)
		}
		events, err := s.OrderEvents(ctx, o.ID)
		if err != nil {
			t.Fatal(err)
		}
		var steps []string
		for _, e := range events {
			steps = append(steps, fmt.Sprintf("%s %s>%s", e.Name, e.From, e.To))
		}
		want := []string{"order.created >CREATED", "order.deposit.processing CREATED>DEPOSIT_PROCESSING",
			"order.deposit.success DEPOSIT_PROCESSING>UNDERPAID", "order.deposit.success UNDERPAID>UNDERPAID"}
		if !slices.Equal(steps, want) {
			t.Fatalf("events %q, want %q", steps, want)
		}
		if ds, _ := s.Deliveries(ctx, o.ID); len(ds) != len(want) || ds[len(ds)-1].EventID != events[len(events)-1].ID {
			t.Fatalf("deliveries %v, want one per event", eventIDs(ds))
		}
		if rs, _ := s.Refunds(ctx, o.ID); len(rs) != 0 {
			t.Fatalf("refunds %+v of an order still short", rs)
		}
	})
}

// NativeArrivals sums the native transfers recorded and not dropped, by order: over a block
// range for every order, or for the orders named; tokens, dropped transfers, other blocks and
// other networks are not counted.
func testNativeArrivals(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	ctx := t.Context()
	m := mustMerchant(t, s, "acme")
	native := func() *rampway.Order {
		idx, err := s.NextDepositIndex(ctx)
		if err != nil {
			t.Fatal(err)
		}
		o := orderAt(m.ID, now(), idx)
		o.Asset = rampway.Asset{Symbol: "ETH", Network: "devnet", Decimals: 18}
		if err := s.CreateOrder(ctx, o); err != nil {
			t.Fatal(err)
		}
		return o
	}
	a, b := native(), native()
	token := mustOrder(t, s, m.ID, now())
	record := func(o *rampway.Order, network string, tx byte, block uint64, amount int64, tokenContract common.Address) *rampway.InboundTransfer {
		tr := &rampway.InboundTransfer{Network: network, TxHash: common.BytesToHash([]byte{tx}), LogIndex: -1, OrderID: o.ID, Token: tokenContract,
			To: o.DepositAddress, Amount: big.NewInt(amount), BlockNumber: block, BlockHash: common.BigToHash(big.NewInt(int64(block)))}
		if _, err := s.RecordTransfer(ctx, tr, now()); err != nil {
			t.Fatal(err)
		}
		return tr
	}
	record(a, "devnet", 1, 10, 100, common.Address{})
	confirmed := record(a, "devnet", 2, 12, 50, common.Address{})
	dropped := record(a, "devnet", 3, 11, 7, common.Address{})
	record(b, "devnet", 4, 12, 30, common.Address{})
	record(token, "devnet", 5, 12, 1000, token.Asset.Contract)
	record(b, "othernet", 6, 12, 9, common.Address{})
	if err := s.ConfirmTransfer(ctx, "devnet", confirmed.TxHash, confirmed.LogIndex, now()); err != nil {
		t.Fatal(err)
	}
	if err := s.DropTransfer(ctx, "devnet", dropped.TxHash, dropped.LogIndex, now()); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		from, to uint64
		ids      []string
		want     map[string]int64
	}{
		{10, 12, nil, map[string]int64{a.ID: 150, b.ID: 30}},
		{12, 12, nil, map[string]int64{a.ID: 50, b.ID: 30}},
		{11, 11, nil, map[string]int64{}},
		{0, 9, nil, map[string]int64{}},
		{0, 11, []string{a.ID}, map[string]int64{a.ID: 100}},
		{0, 12, []string{b.ID, token.ID, "ord_unknown"}, map[string]int64{b.ID: 30}},
		{0, 12, []string{}, map[string]int64{}},
	} {
		got, err := s.NativeArrivals(ctx, "devnet", c.from, c.to, c.ids)
		if err != nil {
			t.Fatal(err)
		}
		plain := map[string]int64{}
		for id, v := range got {
			plain[id] = v.Int64()
		}
		if fmt.Sprint(plain) != fmt.Sprint(c.want) {
			t.Fatalf("NativeArrivals(%d..%d, %v) = %v, want %v", c.from, c.to, c.ids, plain, c.want)
		}
	}
	// Many orders named: the store splits them into several queries.
	ids := []string{a.ID}
	for i := range 1200 {
		ids = append(ids, fmt.Sprintf("ord_none%d", i))
	}
	ids = append(ids, b.ID)
	if got, err := s.NativeArrivals(ctx, "devnet", 0, 100, ids); err != nil || len(got) != 2 || got[a.ID].Int64() != 150 || got[b.ID].Int64() != 30 {
		t.Fatalf("NativeArrivals of %d orders = %v, %v", len(ids), got, err)
	}
}
