package checkout_test

import (
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/checkout"
	"github.com/rampway/rampway/storetest"
)

func TestExpireDue(t *testing.T) {
	t.Parallel()
	store := storetest.OpenSQLite(t)
	t0 := time.Now().UTC().Truncate(time.Microsecond)
	m := storetest.NewMerchant(t, store)
	mk := func(expires time.Time) *rampway.Order {
		i, _ := store.NextDepositIndex(t.Context())
		o := &rampway.Order{ID: rampway.NewID(rampway.PrefixOrder, t0), MerchantID: m.ID, Area: rampway.AreaMint, Status: rampway.StatusCreated,
			MerchantUserID: "u", MerchantRedirectURL: "https://x.example", Network: "devnet", Asset: rampway.Asset{Symbol: "ETH", Decimals: 18},
			CryptoAmount: big.NewInt(1e16), CryptoReceived: new(big.Int), PaymentValue: new(big.Int), NetworkFee: new(big.Int), ServiceFee: new(big.Int),
			DepositAddress: common.BigToAddress(big.NewInt(int64(i))), DepositIndex: i, ExpiresAt: expires, CreatedAt: t0, UpdatedAt: t0}
		if err := store.CreateOrder(t.Context(), o); err != nil {
			t.Fatal(err)
		}
		return o
	}
	unpaid := mk(t0.Add(time.Minute))
	short := mk(t0.Add(time.Minute))
	paying := mk(t0.Add(time.Minute))
	later := mk(t0.Add(time.Hour))
	storetest.Pay(t, store, short, big.NewInt(4e15))      // UNDERPAID
	storetest.Seen(t, store, paying, paying.CryptoAmount) // DEPOSIT_PROCESSING

	clock := t0.Add(2 * time.Minute)
	svc := checkout.New(checkout.Config{}, checkout.Deps{Store: store, Now: func() time.Time { return clock }})
	// Two instances at once: each order moves once.
	var wg sync.WaitGroup
	counts := make([]int, 2)
	for i := range counts {
		wg.Go(func() {
			n, err := svc.ExpireDue(t.Context())
			if err != nil {
				t.Error(err)
			}
			counts[i] = n
		})
	}
	wg.Wait()
	if counts[0]+counts[1] != 2 {
		t.Fatalf("moved %v orders, want 2 in all", counts)
	}
	for _, c := range []struct {
		o    *rampway.Order
		want rampway.OrderStatus
	}{{unpaid, rampway.StatusExpired}, {short, rampway.StatusFailed}, {paying, rampway.StatusDepositProcessing}, {later, rampway.StatusCreated}} {
		got, _ := store.Order(t.Context(), c.o.ID)
		if got.Status != c.want {
			t.Errorf("order %s is %s, want %s", c.o.ID, got.Status, c.want)
		}
	}
	got, _ := store.Order(t.Context(), short.ID)
	if !strings.Contains(got.FailureReason, "underpaid: 0.004 of 0.01 ETH received") {
		t.Errorf("failure reason %q", got.FailureReason)
	}
	events, _ := store.OrderEvents(t.Context(), unpaid.ID)
	if last := events[len(events)-1]; last.Name != rampway.EventDepositFailure || last.To != rampway.StatusExpired {
		t.Errorf("last event %+v, want order.deposit.failure to EXPIRED", last)
	}
	if n, err := svc.ExpireDue(t.Context()); err != nil || n != 0 {
		t.Fatalf("second pass moved %d, %v", n, err)
	}
}
