package rampway

import (
	"errors"
	"fmt"
	"math/big"
	"slices"
	"testing"
	"time"
)

// fiatOrder is an area B order of 25.00 EUR paid by method, in status s; paidBy is the fiat
// payment that paid it ("" for none).
func fiatOrder(s OrderStatus, method, paidBy string) *Order {
	o := lifecycleOrder(s, 0)
	o.Area, o.DepositAddress, o.DepositIndex = AreaNFTRamp, [20]byte{}, 0
	o.FiatSymbol, o.FiatMethod, o.FiatAmount, o.FiatDecimals, o.FiatPaymentID = "EUR", method, big.NewInt(2500), 2, paidBy
	return o
}

func fiatPayment(id string, method string, st FiatPaymentStatus) *FiatPayment {
	return &FiatPayment{ID: id, OrderID: "ord_06h0z2taeyjfxm6266fdz0nhzg", Provider: "sandbox", ProviderRef: "sbp_" + id, Method: method,
		Currency: "EUR", Amount: big.NewInt(2500), Received: new(big.Int), Decimals: 2, Status: st, CreatedAt: t0, UpdatedAt: t0}
}

// Each fiat cause in each state of an area B order: where the order goes, its events, and
// what is asked of the provider (capture, void, refund), once per cause.
func TestApplyFiat(t *testing.T) {
	card, bank := MethodCard, MethodSEPABankTransfer
	p1 := fiatPayment("fpy_1", card, FiatAuthorized)
	b1 := fiatPayment("fpy_b", bank, FiatSucceeded)
	credit := func(v int64) Cause {
		return FiatCredited{Payment: b1, Credit: fmt.Sprint("c", v), Amount: big.NewInt(v)}
	}
	for _, tc := range []struct {
		name    string
		order   *Order
		facts   Facts
		cause   Cause
		to      OrderStatus // "" for no change
		events  []EventName
		actions []string // kind amount cause
		wake    bool
	}{
		{name: "card submitted, 3-D Secure", order: fiatOrder(StatusCreated, card, ""), cause: FiatProcessingCause{p1},
			to: StatusOnrampProcessing, events: []EventName{EventOnrampProcessing}},
		{name: "processing again", order: fiatOrder(StatusOnrampProcessing, card, ""), cause: FiatProcessingCause{p1}},
		{name: "card authorised", order: fiatOrder(StatusCreated, card, ""), cause: FiatAuthorizedCause{p1},
			to: StatusOnrampSuccess, events: []EventName{EventOnrampProcessing, EventOnrampSuccess}, wake: true},
		{name: "authorised after 3-D Secure", order: fiatOrder(StatusOnrampProcessing, card, ""), cause: FiatAuthorizedCause{p1},
			to: StatusOnrampSuccess, events: []EventName{EventOnrampSuccess}, wake: true},
		{name: "authorised again", order: fiatOrder(StatusSmartContractProcessing, card, "fpy_1"), cause: FiatAuthorizedCause{p1}},
		{name: "a second card authorised", order: fiatOrder(StatusOnrampSuccess, card, "fpy_0"), cause: FiatAuthorizedCause{p1},
			actions: []string{"void 2500 void:fpy_1"}},
		{name: "authorised after expiry", order: fiatOrder(StatusExpired, card, ""), cause: FiatAuthorizedCause{p1},
			actions: []string{"void 2500 void:fpy_1"}},
		{name: "void asked once", order: fiatOrder(StatusExpired, card, ""), cause: FiatAuthorizedCause{p1},
			facts: Facts{FiatActions: []*FiatAction{{ID: "fac_x", Cause: "void:fpy_1"}}}},
		{name: "declined", order: fiatOrder(StatusCreated, card, ""), cause: FiatDeclined{p1, "declined"},
			to: StatusCreated, events: []EventName{EventOnrampFailure}},
		{name: "3-D Secure failed", order: fiatOrder(StatusOnrampProcessing, card, ""), cause: FiatDeclined{p1, "failed"},
			to: StatusCreated, events: []EventName{EventOnrampFailure}},
		{name: "declined after paid", order: fiatOrder(StatusOnrampSuccess, card, "fpy_0"), cause: FiatDeclined{p1, "x"}},
		{name: "executed: captured", order: fiatOrder(StatusSmartContractProcessing, card, "fpy_1"), cause: ExecutionMined{callTx},
			to: StatusSuccess, events: []EventName{EventSmartContractSuccess, EventSuccess}, actions: []string{"capture 2500 capture"}},
		{name: "executed, bank: nothing to capture", order: fiatOrder(StatusSmartContractProcessing, bank, "fpy_b"), cause: ExecutionMined{callTx},
			to: StatusSuccess, events: []EventName{EventSmartContractSuccess, EventSuccess}},
		{name: "reverted: voided", order: fiatOrder(StatusSmartContractProcessing, card, "fpy_1"), cause: ExecutionReverted{callTx, "sold out"},
			to: StatusFailed, events: []EventName{EventSmartContractFailure}, actions: []string{"void 2500 void"}},
		{name: "refused, bank: refunded", order: fiatOrder(StatusOnrampSuccess, bank, "fpy_b"), cause: ExecutionRefused{"inactive"},
			to: StatusFailed, events: []EventName{EventSmartContractFailure}, actions: []string{"refund 2500 refund:failed"}},
		{name: "execution starts", order: fiatOrder(StatusOnrampSuccess, card, "fpy_1"), cause: ExecutionStarted{callTx},
			to: StatusSmartContractProcessing, events: []EventName{EventSmartContractProcessing}},
		{name: "released: refunded", order: fiatOrder(StatusFailed, card, "fpy_1"), cause: FiatReleased{p1},
			to: StatusRefunded, events: []EventName{EventRefunded}},
		{name: "another payment released", order: fiatOrder(StatusFailed, card, "fpy_0"), cause: FiatReleased{p1}},
		{name: "transfer in full", order: fiatOrder(StatusCreated, bank, ""), cause: credit(2500),
			to: StatusOnrampSuccess, events: []EventName{EventOnrampProcessing, EventOnrampSuccess}, wake: true},
		{name: "transfer over", order: fiatOrder(StatusCreated, bank, ""), cause: credit(3000),
			to: StatusOnrampSuccess, events: []EventName{EventOnrampProcessing, EventOnrampSuccess}, wake: true,
			actions: []string{"refund 500 refund:credit:c3000"}},
		{name: "transfer short", order: fiatOrder(StatusCreated, bank, ""), cause: credit(2000),
			actions: []string{"refund 2000 refund:credit:c2000"}},
		{name: "transfer twice", order: fiatOrder(StatusSuccess, bank, "fpy_b"), cause: credit(2500),
			actions: []string{"refund 2500 refund:credit:c2500"}},
		{name: "transfer late", order: fiatOrder(StatusExpired, bank, ""), cause: credit(2500),
			actions: []string{"refund 2500 refund:credit:c2500"}},
		{name: "expired", order: fiatOrder(StatusCreated, card, ""), cause: Expired{}, to: StatusExpired, events: []EventName{EventOnrampFailure}},
		{name: "expired in 3-D Secure", order: fiatOrder(StatusOnrampProcessing, card, ""), cause: Expired{}, to: StatusExpired,
			events: []EventName{EventOnrampFailure}},
		{name: "cancelled", order: fiatOrder(StatusCreated, card, ""), cause: Cancelled{}, to: StatusCancelled, events: []EventName{EventCancelled}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := *tc.order
			out, err := Apply(tc.order, tc.facts, tc.cause, t0.Add(time.Minute))
			if err != nil {
				t.Fatal(err)
			}
			if tc.order.Status != before.Status {
				t.Fatal("Apply changed the order it was given")
			}
			if (out.Order == nil) != (tc.to == "") || (out.Order != nil && out.Order.Status != tc.to) {
				t.Fatalf("order = %+v, want status %q", out.Order, tc.to)
			}
			var events []EventName
			var actions []string
			for _, e := range out.Events {
				events = append(events, e.Name)
			}
			for _, a := range out.FiatActions {
				if a.ID == "" || a.Status != ActionPending {
					t.Errorf("action %+v has no id or is not pending", a)
				}
				actions = append(actions, fmt.Sprint(a.Kind, " ", a.Amount, " ", a.Cause))
			}
			if !slices.Equal(events, tc.events) || !slices.Equal(actions, tc.actions) || out.WakeExecute != tc.wake {
				t.Fatalf("events %v actions %v wake %v; want %v %v %v", events, actions, out.WakeExecute, tc.events, tc.actions, tc.wake)
			}
			if tc.to == StatusOnrampSuccess && out.Order.FiatPaymentID == "" {
				t.Fatal("paid without its payment recorded")
			}
		})
	}
}

// Area B takes none of the crypto payment causes, and its table and Apply agree: every
// (state, cause) either follows a rule or is refused, and every rule is taken.
func TestApplyFiatTable(t *testing.T) {
	p := fiatPayment("fpy_1", MethodCard, FiatAuthorized)
	causes := []Cause{PaymentSeen{transfer(7, half, TransferSeen)}, PaymentConfirmed{transfer(7, half, TransferSeen)},
		PaymentDropped{transfer(7, half, TransferDropped)}, ExecutionStarted{callTx}, ExecutionMined{callTx},
		ExecutionReverted{callTx, "r"}, ExecutionRefused{"r"}, Expired{}, Cancelled{}, FiatProcessingCause{p}, FiatAuthorizedCause{p},
		FiatCredited{p, "c", big.NewInt(2500)}, FiatDeclined{p, "x"}, FiatReleased{p}, WalletShort{time.Hour}, WalletShort{-time.Nanosecond}}
	causes = append(causes, merchantRefundCauses()...)
	tableAgrees(t, AreaNFTRamp, causes, func(s OrderStatus, variant int) *Order {
		return fiatOrder(s, MethodCard, []string{"", "fpy_1"}[variant])
	}, 2)
	// A crypto payment of a fiat order has no rule: it cannot happen (no deposit address).
	if _, err := Apply(fiatOrder(StatusCreated, MethodCard, ""), Facts{}, PaymentSeen{transfer(7, half, TransferSeen)}, t0); !errors.As(err, new(*RuleMissing)) {
		t.Fatalf("a crypto payment of a fiat order: %v", err)
	}
}

// A provider's notifications move a payment forward only, in any order; each credit is a
// cause; a capture heard before its authorisation authorises.
func TestApplyFiatEvent(t *testing.T) {
	at := t0.Add(time.Minute)
	p := fiatPayment("fpy_1", MethodCard, FiatPending)
	n, c := ApplyFiatEvent(p, &ProviderEvent{Type: ProviderPaymentAuthorized, Status: FiatAuthorized, CardBrand: "visa", CardLast4: "4242"}, at)
	if _, ok := c.(FiatAuthorizedCause); !ok || n.Status != FiatAuthorized || n.CardLast4 != "4242" || p.Status != FiatPending {
		t.Fatalf("authorised: %+v %T", n, c)
	}
	if n2, c := ApplyFiatEvent(n, &ProviderEvent{Type: ProviderPaymentProcessing, Status: FiatProcessing}, at); c != nil || n2.Status != FiatAuthorized {
		t.Fatalf("a late processing moved it back: %+v %T", n2, c)
	}
	if _, c := ApplyFiatEvent(p, &ProviderEvent{Type: ProviderPaymentCaptured, Status: FiatSucceeded}, at); c == nil || c.Kind() != CauseFiatAuthorised {
		t.Fatalf("capture before authorisation: %T", c)
	}
	if n2, c := ApplyFiatEvent(n, &ProviderEvent{Type: ProviderPaymentVoided, Status: FiatVoided}, at); c == nil || c.Kind() != CauseFiatReleased || n2.Status != FiatVoided {
		t.Fatalf("voided: %+v %T", n2, c)
	}
	if _, c := ApplyFiatEvent(p, &ProviderEvent{Type: ProviderPaymentFailed, Status: FiatFailed, FailureReason: "declined"}, at); c == nil || c.Kind() != CauseFiatDeclined {
		t.Fatalf("declined: %T", c)
	}
	// A push payment's state read from the provider never credits it: its credits do.
	if _, c := ApplyFiatEvent(fiatPayment("fpy_o", MethodOpenBanking, FiatPending), SyncEvent(&ProviderPayment{Ref: "r", Status: FiatSucceeded}), at); c != nil {
		t.Fatalf("a synced push payment brought %T", c)
	}
	if ev := SyncEvent(&ProviderPayment{Ref: "sbp_1", Status: FiatFailed, FailureReason: "declined"}); ev.ID != "sync:sbp_1:failed" || ev.FailureReason != "declined" {
		t.Fatalf("sync event %+v", ev)
	}
	b := fiatPayment("fpy_b", MethodSEPABankTransfer, FiatPending)
	for i := range 2 {
		n, c := ApplyFiatEvent(b, &ProviderEvent{Type: ProviderPaymentCredited, Status: FiatSucceeded, Credit: fmt.Sprint(i), Amount: big.NewInt(1000)}, at)
		if cr, ok := c.(FiatCredited); !ok || cr.Amount.Int64() != 1000 || n.Status != FiatSucceeded {
			t.Fatalf("credit %d: %+v %T", i, n, c)
		}
		b = n
	}
	if b.Received.Int64() != 2000 {
		t.Fatalf("received %s, want 2000", b.Received)
	}
}

// Provider events in the order a real provider can send them (issue 29, 1 and 2): a card
// declined and then authorised on the same payment (a Stripe PaymentIntent confirmed again)
// is authorised, and its order paid; a decline heard after the authorisation is an older
// attempt's and changes nothing, so that the record says what the provider last said; a push
// payment reported failed and then succeeded succeeded.
func TestApplyFiatEventLifecycleOrder(t *testing.T) {
	at := t0.Add(time.Minute)
	declined, c := ApplyFiatEvent(fiatPayment("fpy_1", MethodCard, FiatPending), &ProviderEvent{Type: ProviderPaymentFailed, Status: FiatFailed,
		FailureReason: "card_declined"}, at)
	if _, ok := c.(FiatDeclined); !ok || declined.Status != FiatFailed {
		t.Fatalf("declined: %+v %T", declined, c)
	}
	authorised, c := ApplyFiatEvent(declined, &ProviderEvent{Type: ProviderPaymentAuthorized, Status: FiatAuthorized}, at)
	if _, ok := c.(FiatAuthorizedCause); !ok || authorised.Status != FiatAuthorized {
		t.Fatalf("authorised after a decline: %+v %T", authorised, c)
	}
	// The order takes it: CREATED (the decline left it there) to ONRAMP_SUCCESS.
	o := fiatOrder(StatusCreated, MethodCard, "")
	if out, err := Apply(o, Facts{}, c, at); err != nil || out.Order.Status != StatusOnrampSuccess {
		t.Fatalf("the order after a decline then an authorisation: %+v %v", out, err)
	}
	for _, p := range []*FiatPayment{authorised, fiatPayment("fpy_2", MethodCard, FiatSucceeded)} {
		late, c := ApplyFiatEvent(p, &ProviderEvent{Type: ProviderPaymentFailed, Status: FiatFailed, FailureReason: "card_declined"}, at)
		if c != nil || late.Status != p.Status || late.FailureReason != "" {
			t.Fatalf("a late decline after %s: %+v %T", p.Status, late, c)
		}
	}
	// A retry's processing after a decline does not bring the decline back later.
	processing, _ := ApplyFiatEvent(declined, &ProviderEvent{Type: ProviderPaymentProcessing, Status: FiatProcessing}, at)
	if n, _ := ApplyFiatEvent(processing, &ProviderEvent{Type: ProviderPaymentAuthorized, Status: FiatAuthorized}, at); n.Status != FiatAuthorized {
		t.Fatalf("authorised after a retry: %+v", n)
	}
	// A capture heard of after a decline, its authorisation never: authorised, then captured.
	if _, c := ApplyFiatEvent(declined, &ProviderEvent{Type: ProviderPaymentCaptured, Status: FiatSucceeded}, at); c == nil || c.Kind() != CauseFiatAuthorised {
		t.Fatalf("a capture after a decline: %T", c)
	}
}

// The webhook bodies of an area B journey, as merchants receive them
// (testdata/lifecycle/b-*.json; go test -run TestApplyFiatGoldenBodies -update rewrites them).
func TestApplyFiatGoldenBodies(t *testing.T) {
	at := t0.Add(time.Minute)
	p := fiatPayment("fpy_06h0z2taeyjfxm6266fdz0nhzg", MethodCard, FiatAuthorized)
	steps := []struct {
		name  string
		order *Order
		cause Cause
	}{
		{"b-1-authorised", fiatOrder(StatusCreated, MethodCard, ""), FiatAuthorizedCause{p}},
		{"b-2-executed", fiatOrder(StatusSmartContractProcessing, MethodCard, p.ID), ExecutionMined{callTx}},
		{"b-3-declined", fiatOrder(StatusOnrampProcessing, MethodCard, ""), FiatDeclined{p, "Your card was declined"}},
		{"b-4-reverted-released", fiatOrder(StatusFailed, MethodCard, p.ID), FiatReleased{p}},
	}
	for _, s := range steps {
		out, err := Apply(s.order, Facts{}, s.cause, at)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		golden(t, s.name, out.Events)
	}
}

// depositOrder is an area C order of 100.00 EUR delivering 0.0301 ETH to the merchant, paid by
// method ("" for none chosen yet), in status s.
func depositOrder(s OrderStatus, method, paidBy string) *Order {
	o := fiatOrder(s, method, paidBy)
	o.Area, o.FiatAmount = AreaDeposit, big.NewInt(10_000)
	o.FunctionID, o.PaymentValue, o.CryptoAmount = "", new(big.Int), big.NewInt(30_100_000_000_000_000)
	o.PayoutAddress = payer
	return o
}

// Area C: the fiat side as B's, then the transfer to the merchant as the deposit's steps; the
// method chosen on the page's quote screen; the table and Apply agree.
func TestApplyDeposit(t *testing.T) {
	p := fiatPayment("fpy_1", MethodCard, FiatAuthorized)
	p.Amount = big.NewInt(10_000)
	at := t0.Add(time.Minute)
	for _, tc := range []struct {
		name   string
		order  *Order
		cause  Cause
		to     OrderStatus
		events []EventName
		action string
	}{
		{"card authorised", depositOrder(StatusCreated, MethodCard, ""), FiatAuthorizedCause{p}, StatusOnrampSuccess, []EventName{EventOnrampProcessing, EventOnrampSuccess}, ""},
		{"transfer sent", depositOrder(StatusOnrampSuccess, MethodCard, "fpy_1"), ExecutionStarted{callTx}, StatusDepositProcessing, []EventName{EventDepositProcessing}, ""},
		{"transfer mined", depositOrder(StatusDepositProcessing, MethodCard, "fpy_1"), ExecutionMined{callTx}, StatusSuccess,
			[]EventName{EventDepositSuccess, EventSuccess}, "capture"},
		{"transfer reverted", depositOrder(StatusDepositProcessing, MethodSEPABankTransfer, "fpy_1"), ExecutionReverted{callTx, "x"}, StatusFailed,
			[]EventName{EventDepositFailure}, "refund"},
		{"transfer refused", depositOrder(StatusOnrampSuccess, MethodCard, "fpy_1"), ExecutionRefused{"no funds"}, StatusFailed, []EventName{EventDepositFailure}, "void"},
		{"released", depositOrder(StatusFailed, MethodCard, "fpy_1"), FiatReleased{p}, StatusRefunded, []EventName{EventRefunded}, ""},
	} {
		out, err := Apply(tc.order, Facts{}, tc.cause, at)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var events []EventName
		for _, e := range out.Events {
			events = append(events, e.Name)
		}
		action := ""
		if len(out.FiatActions) == 1 {
			action = string(out.FiatActions[0].Kind)
		}
		if out.Order == nil || out.Order.Status != tc.to || !slices.Equal(events, tc.events) || action != tc.action {
			t.Fatalf("%s: %+v events %v action %q", tc.name, out.Order, events, action)
		}
	}
	// The quote screen's choice: the order takes the method's quote, once.
	o := depositOrder(StatusCreated, "", "")
	out, err := Apply(o, Facts{}, FiatMethodChosen{Method: MethodSEPABankTransfer, CryptoAmount: big.NewInt(7), NetworkFee: big.NewInt(2),
		ServiceFee: big.NewInt(1), ExpiresAt: at.Add(72 * time.Hour)}, at)
	if err != nil || out.Order.FiatMethod != MethodSEPABankTransfer || out.Order.CryptoAmount.Int64() != 7 || len(out.Events) != 0 ||
		!out.Order.ExpiresAt.Equal(at.Add(72*time.Hour)) || o.FiatMethod != "" {
		t.Fatalf("chosen: %+v %v", out, err)
	}
	if _, err := Apply(out.Order, Facts{}, FiatMethodChosen{Method: MethodCard}, at); ErrorCode(err) != ECONFLICT {
		t.Fatalf("chosen twice: %v", err)
	}
	if _, err := Apply(fiatOrder(StatusCreated, "", ""), Facts{}, FiatMethodChosen{Method: MethodCard}, at); ErrorCode(err) != ECONFLICT {
		t.Fatalf("an area B order took a method choice: %v", err)
	}
	causes := []Cause{PaymentSeen{transfer(7, half, TransferSeen)}, PaymentConfirmed{transfer(7, half, TransferSeen)},
		ExecutionStarted{callTx}, ExecutionMined{callTx}, ExecutionReverted{callTx, "r"}, ExecutionRefused{"r"}, Expired{}, Cancelled{},
		FiatProcessingCause{p}, FiatAuthorizedCause{p}, FiatCredited{p, "c", big.NewInt(10_000)}, FiatDeclined{p, "x"}, FiatReleased{p},
		FiatMethodChosen{Method: MethodCard, CryptoAmount: big.NewInt(1), NetworkFee: new(big.Int), ServiceFee: new(big.Int)},
		WalletShort{time.Hour}, WalletShort{-time.Nanosecond}} // waiting still; waited past its patience
	causes = append(causes, merchantRefundCauses()...)
	tableAgrees(t, AreaDeposit, causes, func(s OrderStatus, variant int) *Order {
		return depositOrder(s, []string{"", MethodCard}[variant], []string{"", "fpy_1"}[variant])
	}, 2)
}
