package storetest

import (
	"math/big"
	"reflect"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
)

// statsOrder stores an area A order of merchantID of a mode, created at at.
func statsOrder(t *testing.T, s rampway.Store, merchantID string, livemode bool, at time.Time) *rampway.Order {
	t.Helper()
	idx, err := s.NextDepositIndex(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	o := orderAt(merchantID, at, idx)
	o.Livemode = livemode
	if err := s.CreateOrder(t.Context(), o); err != nil {
		t.Fatalf("CreateOrder: %v", err)
	}
	return o
}

// statsFiatOrder stores an area B order of merchantID of 25.00 EUR created at at, its card
// payment started at the provider as ref.
func statsFiatOrder(t *testing.T, s rampway.Store, merchantID string, at time.Time, ref string) *rampway.Order {
	t.Helper()
	o := orderAt(merchantID, at, 0)
	o.Area, o.DepositAddress, o.DepositIndex = rampway.AreaNFTRamp, [20]byte{}, 0
	o.FiatSymbol, o.FiatMethod, o.FiatAmount, o.FiatDecimals = "EUR", rampway.MethodCard, big.NewInt(2500), 2
	if err := s.CreateOrder(t.Context(), o); err != nil {
		t.Fatal(err)
	}
	p := &rampway.FiatPayment{ID: rampway.NewID(rampway.PrefixFiatPayment, at), OrderID: o.ID, Provider: "sandbox", Method: rampway.MethodCard,
		Currency: "EUR", Amount: big.NewInt(2500), Received: new(big.Int), Decimals: 2, Status: rampway.FiatPending, CreatedAt: at, UpdatedAt: at}
	if err := s.CreateFiatPayment(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	if err := s.SetFiatPaymentStarted(t.Context(), p.ID, &rampway.ProviderPayment{Ref: ref, Reference: "RW-" + ref}, at); err != nil {
		t.Fatal(err)
	}
	return o
}

// succeedAt moves the stored order o, as the workers would: paid at paid (area A its payment
// confirmed, area B its card authorised as ref), then its call started and mined took later:
// SUCCESS.
func succeedAt(t *testing.T, s rampway.Store, o *rampway.Order, ref string, paid time.Time, took time.Duration) {
	t.Helper()
	ctx := t.Context()
	if o.Area == rampway.AreaMint {
		tr := SeenAt(t, s, o, o.CryptoAmount, paid)
		if err := s.ConfirmTransfer(ctx, tr.Network, tr.TxHash, tr.LogIndex, paid); err != nil {
			t.Fatal(err)
		}
	} else if _, err := s.ApplyProviderEvent(ctx, "sandbox", &rampway.ProviderEvent{ID: "ev_auth_" + ref, Type: rampway.ProviderPaymentAuthorized,
		PaymentRef: ref, Status: rampway.FiatAuthorized, CardBrand: "visa", CardLast4: "4242"}, paid); err != nil {
		t.Fatal(err)
	}
	tx := common.HexToHash("0xca11")
	if _, err := s.Apply(ctx, o.ID, rampway.ExecutionStarted{TxHash: tx}, paid); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Apply(ctx, o.ID, rampway.ExecutionMined{TxHash: tx}, paid.Add(took)); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Order(ctx, o.ID); err != nil || got.Status != rampway.StatusSuccess {
		t.Fatalf("order %+v, %v", got, err)
	}
}

// The overview's figures: a merchant's orders of one mode created in the period, per UTC day
// and area (created, succeeded, ended without), the exact sums of what the succeeded ones were
// paid per currency (amounts beyond 64 bits), paid-to-success durations from the orders'
// events, open refunds and failing webhook deliveries; nothing of another merchant, the other
// mode or outside the period.
func testOrderStats(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	ctx := t.Context()
	m, other := hookedMerchant(t, s, "stats"), mustMerchant(t, s, "other")
	from := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, -2)
	to := from.AddDate(0, 0, 3)
	day0, day1 := from.Add(time.Hour), from.Add(25*time.Hour)

	a1 := statsOrder(t, s, m.ID, false, day0)
	a3 := statsOrder(t, s, m.ID, false, day0.Add(2*time.Second))
	// Webhooks: a1's first delivery fails and is retried, a3's is given up on.
	got, err := s.ClaimDeliveries(ctx, day0.Add(time.Minute), time.Minute, 10, 10, nil)
	if err != nil || len(got) != 2 {
		t.Fatalf("claim: %d, %v", len(got), err)
	}
	for _, d := range got {
		status := rampway.DeliveryPending
		if d.OrderID == a3.ID {
			status = rampway.DeliveryFailed
		}
		if err := s.RecordAttempt(ctx, &rampway.DeliveryAttempt{EventID: d.EventID, Attempt: 1, At: day0.Add(time.Minute), StatusCode: 500},
			status, to.AddDate(1, 0, 0)); err != nil {
			t.Fatal(err)
		}
	}
	succeedAt(t, s, a1, "", day0.Add(time.Minute), 10*time.Second)
	a2 := statsOrder(t, s, m.ID, false, day0.Add(time.Second))
	succeedAt(t, s, a2, "", day0.Add(2*time.Minute), 30*time.Second)
	if _, err := s.Apply(ctx, a3.ID, rampway.Cancelled{}, day0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	a4 := statsOrder(t, s, m.ID, false, day1)
	succeedAt(t, s, a4, "", day1.Add(time.Minute), 20*time.Second)
	statsOrder(t, s, m.ID, false, day1.Add(time.Second)) // open
	b1 := statsFiatOrder(t, s, m.ID, day1.Add(2*time.Second), "sbp_stats_b1")
	succeedAt(t, s, b1, "sbp_stats_b1", day1.Add(time.Minute), 40*time.Second)
	// Not counted: the other mode, another merchant, before the period.
	live := statsOrder(t, s, m.ID, true, day0.Add(3*time.Second))
	succeedAt(t, s, live, "", day0.Add(time.Minute), time.Second)
	succeedAt(t, s, statsOrder(t, s, other.ID, false, day0), "", day0.Add(time.Minute), time.Hour)
	succeedAt(t, s, statsOrder(t, s, m.ID, false, from.Add(-time.Hour)), "", from, time.Hour)
	// An open refund of a1.
	if _, err := s.RequestRefund(ctx, a1.ID, rampway.RefundRequested{Amount: big.NewInt(1), Reason: "returned", Source: rampway.RefundToMerchant}, day1); err != nil {
		t.Fatal(err)
	}

	st, err := s.OrderStats(ctx, m.ID, false, from, to)
	if err != nil {
		t.Fatal(err)
	}
	wantDays := []rampway.OrderDayStats{
		{Day: from, Area: rampway.AreaMint, Created: 3, Succeeded: 2, Unsuccessful: 1},
		{Day: from.AddDate(0, 0, 1), Area: rampway.AreaMint, Created: 2, Succeeded: 1},
		{Day: from.AddDate(0, 0, 1), Area: rampway.AreaNFTRamp, Created: 1, Succeeded: 1},
	}
	if !reflect.DeepEqual(st.Days, wantDays) {
		t.Errorf("days = %+v, want %+v", st.Days, wantDays)
	}
	price := a1.CryptoAmount // 30 digits: beyond 64 bits
	wantVolume := []rampway.VolumeDayStats{
		{Day: from, Area: rampway.AreaMint, Currency: "DUSD", Decimals: 6, Amount: new(big.Int).Mul(price, big.NewInt(2)), Orders: 2},
		{Day: from.AddDate(0, 0, 1), Area: rampway.AreaMint, Currency: "DUSD", Decimals: 6, Amount: price, Orders: 1},
		{Day: from.AddDate(0, 0, 1), Area: rampway.AreaNFTRamp, Currency: "EUR", Decimals: 2, Amount: big.NewInt(2500), Orders: 1},
	}
	if len(st.Volume) != len(wantVolume) {
		t.Fatalf("volume = %+v, want %+v", st.Volume, wantVolume)
	}
	for i, v := range st.Volume {
		w := wantVolume[i]
		if !v.Day.Equal(w.Day) || v.Area != w.Area || v.Currency != w.Currency || v.Decimals != w.Decimals || v.Amount.Cmp(w.Amount) != 0 || v.Orders != w.Orders {
			t.Errorf("volume[%d] = %+v (%s), want %+v (%s)", i, v, v.Amount, w, w.Amount)
		}
	}
	wantTimes := []time.Duration{10 * time.Second, 20 * time.Second, 30 * time.Second, 40 * time.Second}
	if !reflect.DeepEqual(st.PaidToSuccess, wantTimes) {
		t.Errorf("paid to success = %v, want %v", st.PaidToSuccess, wantTimes)
	}
	if p50, p95 := rampway.Percentile(st.PaidToSuccess, 50), rampway.Percentile(st.PaidToSuccess, 95); p50 != 20*time.Second || p95 != 40*time.Second {
		t.Errorf("p50, p95 = %v, %v", p50, p95)
	}
	if st.OpenRefunds != 1 || st.FailingDeliveries != 1 || st.GivenUpDeliveries != 1 {
		t.Errorf("open refunds %d, failing deliveries %d, given up %d; want 1, 1, 1", st.OpenRefunds, st.FailingDeliveries, st.GivenUpDeliveries)
	}
	if !st.From.Equal(from) || !st.To.Equal(to) {
		t.Errorf("period %v to %v", st.From, st.To)
	}

	// Live mode: its own order only.
	st, err = s.OrderStats(ctx, m.ID, true, from, to)
	if err != nil {
		t.Fatal(err)
	}
	if want := []rampway.OrderDayStats{{Day: from, Area: rampway.AreaMint, Created: 1, Succeeded: 1}}; !reflect.DeepEqual(st.Days, want) ||
		len(st.Volume) != 1 || len(st.PaidToSuccess) != 1 || st.OpenRefunds != 0 || st.FailingDeliveries != 0 || st.GivenUpDeliveries != 0 {
		t.Errorf("live stats = %+v", st)
	}
	// A period that is not whole days, or too long.
	for _, p := range [][2]time.Time{{from.Add(time.Hour), to}, {to, from}, {from.AddDate(-2, 0, 0), to}} {
		if _, err := s.OrderStats(ctx, m.ID, false, p[0], p[1]); rampway.ErrorCode(err) != rampway.EINVALID {
			t.Errorf("period %v to %v: %v, want EINVALID", p[0], p[1], err)
		}
	}
}
