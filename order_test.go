package rampway

import (
	"slices"
	"testing"
)

var allStatuses = OrderStatuses

// The state machine's shape: terminal states have no way out, every rule's events are known,
// reaching SUCCESS (and only that) also emits order.success.
func TestStateMachine(t *testing.T) {
	known := map[EventName]bool{EventDepositProcessing: true, EventDepositSuccess: true, EventDepositFailure: true, EventDepositDropped: true,
		EventSmartContractProcessing: true, EventSmartContractSuccess: true, EventSmartContractFailure: true, EventSuccess: true,
		EventCancelled: true, EventRefundPending: true, EventRefundProcessing: true, EventRefunded: true, EventRefundFailure: true,
		EventMerchantRefundSucceeded: true, EventMerchantRefundFailed: true}
	for _, r := range Rules(AreaMint) {
		if !r.From.Valid() || !r.To.Valid() || len(r.Events) == 0 {
			t.Errorf("rule %+v", r)
		}
		for _, e := range r.Events {
			if !known[e] {
				t.Errorf("rule %+v emits %s, not a sent event", r, e)
			}
		}
		if slices.Contains(r.Events, EventSuccess) != (r.To == StatusSuccess && r.From != StatusSuccess) {
			t.Errorf("rule %+v: reaching SUCCESS, and only that, emits %s", r, EventSuccess)
		}
		if r.From.Terminal() && r.To != r.From && !IsMerchantRefundCause(r.Cause) {
			t.Errorf("terminal %s has a way out to %s", r.From, r.To)
		}
	}
	if len(Rules("nope")) != 0 {
		t.Error("an unknown area has rules")
	}
	if OrderStatus("PAID").Valid() || OrderStatus("created").Valid() {
		t.Error("an unknown status is valid")
	}
	for _, s := range allStatuses {
		if !s.Valid() {
			t.Errorf("%s is not valid", s)
		}
		terminal := s == StatusSuccess || s == StatusCancelled || s == StatusRefunded
		if s.Terminal() != terminal {
			t.Errorf("%s.Terminal() = %v", s, s.Terminal())
		}
	}
}
