package rampway

import (
	"testing"
)

var allStatuses = OrderStatuses

// Every pair of states is tried in every area: exactly the listed steps are allowed.
func TestStateMachine(t *testing.T) {
	allowed := map[Area]map[[2]OrderStatus]string{
		AreaMint: {
			{StatusCreated, StatusDepositProcessing}:              EventDepositProcessing,
			{StatusCreated, StatusExpired}:                        EventDepositFailure,
			{StatusCreated, StatusCancelled}:                      EventCancelled,
			{StatusDepositProcessing, StatusCreated}:              EventDepositFailure,
			{StatusDepositProcessing, StatusUnderpaid}:            EventDepositSuccess,
			{StatusDepositProcessing, StatusDepositSuccess}:       EventDepositSuccess,
			{StatusUnderpaid, StatusDepositProcessing}:            EventDepositProcessing,
			{StatusUnderpaid, StatusDepositSuccess}:               EventDepositSuccess,
			{StatusUnderpaid, StatusFailed}:                       EventDepositFailure,
			{StatusDepositSuccess, StatusSmartContractProcessing}: EventSmartContractProcessing,
			{StatusDepositSuccess, StatusFailed}:                  EventSmartContractFailure,
			{StatusSmartContractProcessing, StatusSuccess}:        EventSmartContractSuccess,
			{StatusSmartContractProcessing, StatusFailed}:         EventSmartContractFailure,
			{StatusFailed, StatusRefundPending}:                   EventRefundPending,
			{StatusExpired, StatusRefundPending}:                  EventRefundPending,
			{StatusRefundPending, StatusRefunded}:                 EventRefunded,
		},
		AreaNFTRamp: {
			{StatusCreated, StatusOnrampProcessing}:              EventOnrampProcessing,
			{StatusCreated, StatusExpired}:                       EventOnrampFailure,
			{StatusCreated, StatusCancelled}:                     EventCancelled,
			{StatusOnrampProcessing, StatusCreated}:              EventOnrampFailure,
			{StatusOnrampProcessing, StatusOnrampSuccess}:        EventOnrampSuccess,
			{StatusOnrampSuccess, StatusSmartContractProcessing}: EventSmartContractProcessing,
			{StatusOnrampSuccess, StatusFailed}:                  EventSmartContractFailure,
			{StatusSmartContractProcessing, StatusSuccess}:       EventSmartContractSuccess,
			{StatusSmartContractProcessing, StatusFailed}:        EventSmartContractFailure,
			{StatusFailed, StatusRefundPending}:                  EventRefundPending,
			{StatusExpired, StatusRefundPending}:                 EventRefundPending,
			{StatusRefundPending, StatusRefunded}:                EventRefunded,
		},
		AreaDeposit: {
			{StatusCreated, StatusOnrampProcessing}:        EventOnrampProcessing,
			{StatusCreated, StatusExpired}:                 EventOnrampFailure,
			{StatusCreated, StatusCancelled}:               EventCancelled,
			{StatusOnrampProcessing, StatusCreated}:        EventOnrampFailure,
			{StatusOnrampProcessing, StatusOnrampSuccess}:  EventOnrampSuccess,
			{StatusOnrampSuccess, StatusDepositProcessing}: EventDepositProcessing,
			{StatusOnrampSuccess, StatusFailed}:            EventDepositFailure,
			{StatusDepositProcessing, StatusSuccess}:       EventDepositSuccess,
			{StatusDepositProcessing, StatusFailed}:        EventDepositFailure,
			{StatusFailed, StatusRefundPending}:            EventRefundPending,
			{StatusExpired, StatusRefundPending}:           EventRefundPending,
			{StatusRefundPending, StatusRefunded}:          EventRefunded,
		},
	}
	for area, want := range allowed {
		if got := len(Transitions(area)); got != len(want) {
			t.Errorf("%s has %d transitions, the test lists %d", area, got, len(want))
		}
		for _, from := range allStatuses {
			for _, to := range allStatuses {
				step, err := NextStep(area, from, to)
				event, ok := want[[2]OrderStatus{from, to}]
				switch {
				case ok && err != nil:
					t.Errorf("%s: %s -> %s refused: %v", area, from, to, err)
				case ok && step.Event != event:
					t.Errorf("%s: %s -> %s emits %s, want %s", area, from, to, step.Event, event)
				case ok && (step.Then == EventSuccess) != (to == StatusSuccess):
					t.Errorf("%s: %s -> %s then emits %q; reaching SUCCESS, and only that, also emits %s", area, from, to, step.Then, EventSuccess)
				case !ok && err == nil:
					t.Errorf("%s: %s -> %s allowed", area, from, to)
				case !ok && ErrorCode(err) != ECONFLICT:
					t.Errorf("%s: %s -> %s: error %v is not ECONFLICT", area, from, to, err)
				}
			}
		}
	}
	if _, err := NextStep("nope", StatusCreated, StatusExpired); err == nil {
		t.Error("unknown area accepted")
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
		for area := range allowed {
			for _, tr := range Transitions(area) {
				if tr.From == s && terminal {
					t.Errorf("%s: terminal %s has a way out to %s", area, s, tr.To)
				}
			}
		}
	}
}
