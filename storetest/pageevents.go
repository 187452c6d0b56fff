package storetest

import (
	"fmt"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/rampway/rampway"
)

// testPageEvents: what the hosted page keeps of an order and records of its visits. A fiat
// order's pricing round-trips, and follows a method chosen later; user.widget.open is recorded
// once per order, user.widget.close once per visit (the same visit again, even at once,
// records nothing), up to rampway.MaxVisitsPerOrder visits.
func testPageEvents(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	m := mustMerchant(t, s, "acme")
	idx, err := s.NextDepositIndex(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	o := orderAt(m.ID, now(), idx)
	o.Area, o.FiatSymbol, o.FiatMethod, o.FiatAmount, o.FiatDecimals = rampway.AreaNFTRamp, "EUR", rampway.MethodCard, bigInt(2988), 2
	o.FiatPricing = &rampway.FiatPricing{CryptoPriceUSD: "3000", FiatPriceUSD: "1.08", Subtotal: "28.5083333333333333", Spread: "0.285083333333333333",
		MethodFee: "1.085009083333333332357", SpreadBPS: 100, MethodFeeBPS: 290, MethodFeeFixed: "0.25"}
	if err := s.CreateOrder(t.Context(), o); err != nil {
		t.Fatal(err)
	}
	got, err := s.Order(t.Context(), o.ID)
	if err != nil {
		t.Fatal(err)
	}
	sameOrder(t, got, o)

	// An area C order without a method takes the pricing of the one chosen.
	idx, err = s.NextDepositIndex(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	c := orderAt(m.ID, now(), idx)
	card := &rampway.FiatPricing{CryptoPriceUSD: "3000", FiatPriceUSD: "1.08", Subtotal: "95.97", Spread: "0.96", MethodFee: "3.07", SpreadBPS: 100,
		MethodFeeBPS: 290, MethodFeeFixed: "0.25"}
	c.Area, c.FiatSymbol, c.FiatAmount, c.FiatDecimals = rampway.AreaDeposit, "EUR", bigInt(10000), 2
	c.MethodQuotes = []rampway.MethodQuote{{Method: rampway.MethodCard, CryptoAmount: bigInt(5), NetworkFee: bigInt(1), ServiceFee: bigInt(0),
		MethodFee: bigInt(307), Pricing: card}}
	if err := s.CreateOrder(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Order(t.Context(), c.ID); err != nil || got.FiatPricing != nil || len(got.MethodQuotes) != 1 || *got.MethodQuotes[0].Pricing != *card {
		t.Fatalf("an order without a method: %+v %v", got, err)
	}
	chosen, err := s.Apply(t.Context(), c.ID, rampway.FiatMethodChosen{Method: rampway.MethodCard, CryptoAmount: bigInt(5), NetworkFee: bigInt(1),
		ServiceFee: bigInt(0), Pricing: card, ExpiresAt: c.ExpiresAt}, now())
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Order(t.Context(), c.ID); err != nil || chosen.FiatPricing == nil || got.FiatPricing == nil || *got.FiatPricing != *card || got.MethodQuotes != nil {
		t.Fatalf("after the choice: %+v %v", got, err)
	}

	names := func() []rampway.EventName {
		t.Helper()
		evs, err := s.OrderEvents(t.Context(), o.ID)
		if err != nil {
			t.Fatal(err)
		}
		var out []rampway.EventName
		for _, e := range evs {
			out = append(out, e.Name)
		}
		return out
	}
	at := now()
	for i, want := range []bool{true, false} {
		if ok, err := s.RecordOrderEvent(t.Context(), o.ID, rampway.EventWidgetOpen, true, at); err != nil || ok != want {
			t.Fatalf("open %d: %v %v, want %v", i, ok, err, want)
		}
	}
	for i, v := range []struct {
		visit string
		want  bool
	}{{"visit-a", true}, {"visit-a", false}, {"visit-b", true}, {"visit-a", false}, {"visit-b", false}} {
		if ok, err := s.RecordVisitEvent(t.Context(), o.ID, rampway.EventWidgetClose, v.visit, at); err != nil || ok != v.want {
			t.Fatalf("close %d (%s): %v %v, want %v", i, v.visit, ok, err, v.want)
		}
	}
	// One visit's beacons at once (a page going away sends one, a reload the next): one event.
	var wg sync.WaitGroup
	recorded := make(chan bool, 8)
	for range 8 {
		wg.Go(func() {
			ok, err := s.RecordVisitEvent(t.Context(), o.ID, rampway.EventWidgetClose, "visit-c", at)
			if err != nil {
				t.Error(err)
			}
			recorded <- ok
		})
	}
	wg.Wait()
	close(recorded)
	n := 0
	for ok := range recorded {
		if ok {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("8 beacons of one visit at once recorded %d events", n)
	}
	want := []rampway.EventName{rampway.EventCreated, rampway.EventWidgetOpen, rampway.EventWidgetClose, rampway.EventWidgetClose, rampway.EventWidgetClose}
	if got := names(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	// Past the bound of visits, nothing more.
	for i := 3; i < rampway.MaxVisitsPerOrder+5; i++ {
		ok, err := s.RecordVisitEvent(t.Context(), o.ID, rampway.EventWidgetClose, fmt.Sprintf("v%d", i), at.Add(time.Duration(i)*time.Microsecond))
		if err != nil || ok != (i < rampway.MaxVisitsPerOrder) {
			t.Fatalf("visit %d: %v %v", i, ok, err)
		}
	}
	if got := len(names()); got != 2+rampway.MaxVisitsPerOrder {
		t.Fatalf("%d events after %d visits, want %d", got, rampway.MaxVisitsPerOrder+5, 2+rampway.MaxVisitsPerOrder)
	}
	for _, bad := range []string{"", string(make([]byte, rampway.MaxVisitLength+1))} {
		_, err := s.RecordVisitEvent(t.Context(), o.ID, rampway.EventWidgetClose, bad, at)
		wantCode(t, err, rampway.EINVALID)
	}
	_, err = s.RecordVisitEvent(t.Context(), "ord_nope", rampway.EventWidgetClose, "v", at)
	wantCode(t, err, rampway.ENOTFOUND)
}

func bigInt(v int64) *big.Int { return big.NewInt(v) }
