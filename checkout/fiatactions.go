package checkout

import (
	"context"
	"slices"
	"time"

	"github.com/rampway/rampway"
)

// Fiat actions an operator looks after: the captures, voids and refunds a provider kept
// refusing (rampway.ActionNeedsOperator), which the fiat worker no longer tries.

// FiatActionStatuses are the states a list of fiat actions may ask for.
var FiatActionStatuses = []rampway.FiatActionStatus{rampway.ActionPending, rampway.ActionDone, rampway.ActionNeedsOperator, rampway.ActionResolved,
	rampway.ActionFailed}

// OperatorFiatAction is a fiat action with the decimals of its currency (its order's), for views.
type OperatorFiatAction struct {
	Action   *rampway.FiatAction
	Decimals uint8
}

// FiatActionsByStatus lists fiat actions in a status, oldest change first, after the action id
// after, at most limit. EINVALID for an unknown status, a malformed cursor or limit.
func (s *Records) FiatActionsByStatus(ctx context.Context, status, after string, limit int) ([]OperatorFiatAction, error) {
	if !slices.Contains(FiatActionStatuses, rampway.FiatActionStatus(status)) {
		return nil, rampway.FieldErrorf("status", "status must be one of %v, not %q", FiatActionStatuses, rampway.Echo(status))
	}
	if after != "" && !rampway.ValidID(rampway.PrefixFiatAction, after) {
		return nil, rampway.FieldErrorf("starting_after", "starting_after must be a fiat action id")
	}
	if limit < 1 || limit > 1001 {
		return nil, rampway.FieldErrorf("limit", "limit must be between 1 and 1000")
	}
	as, err := s.store.FiatActionsByStatus(ctx, rampway.FiatActionStatus(status), after, limit)
	if err != nil {
		return nil, err
	}
	return s.withDecimals(ctx, as...)
}

// RetryFiatAction makes an action that needs an operator pending again, due now, its give-up
// clock started over. ENOTFOUND; ECONFLICT when it does not need an operator.
func (s *Records) RetryFiatAction(ctx context.Context, id string) (OperatorFiatAction, error) {
	if !rampway.ValidID(rampway.PrefixFiatAction, id) {
		return OperatorFiatAction{}, rampway.Errorf(rampway.ENOTFOUND, "Fiat action %q not found", rampway.Echo(id))
	}
	return s.operatorAction(ctx)(s.store.RetryFiatAction(ctx, id, s.now().UTC().Truncate(time.Microsecond)))
}

// ResolveFiatAction records that an operator did an action that needed one by hand at the
// provider (or found nothing to do); note says what, 1 to 500 characters. ENOTFOUND; EINVALID;
// ECONFLICT when it does not need an operator.
func (s *Records) ResolveFiatAction(ctx context.Context, id, note string) (OperatorFiatAction, error) {
	if !rampway.ValidID(rampway.PrefixFiatAction, id) {
		return OperatorFiatAction{}, rampway.Errorf(rampway.ENOTFOUND, "Fiat action %q not found", rampway.Echo(id))
	}
	note, err := rampway.CheckText("note", note, 500)
	if err != nil {
		return OperatorFiatAction{}, err
	}
	if note == "" {
		return OperatorFiatAction{}, rampway.FieldErrorf("note", "note is required: what was done at the provider")
	}
	return s.operatorAction(ctx)(s.store.ResolveFiatAction(ctx, id, note, s.now().UTC().Truncate(time.Microsecond)))
}

// operatorAction returns what a store's change of one action answers: the action with its
// decimals, or the change's error.
func (s *Records) operatorAction(ctx context.Context) func(*rampway.FiatAction, error) (OperatorFiatAction, error) {
	return func(a *rampway.FiatAction, err error) (OperatorFiatAction, error) {
		if err != nil {
			return OperatorFiatAction{}, err
		}
		out, err := s.withDecimals(ctx, a)
		if err != nil {
			return OperatorFiatAction{}, err
		}
		return out[0], nil
	}
}

// withDecimals reads the decimals of each action's currency from its order.
func (s *Records) withDecimals(ctx context.Context, as ...*rampway.FiatAction) ([]OperatorFiatAction, error) {
	out := make([]OperatorFiatAction, len(as))
	decimals := map[string]uint8{}
	for i, a := range as {
		d, ok := decimals[a.OrderID]
		if !ok {
			o, err := s.store.Order(ctx, a.OrderID)
			if err != nil {
				return nil, err
			}
			d, decimals[a.OrderID] = o.FiatDecimals, o.FiatDecimals
		}
		out[i] = OperatorFiatAction{Action: a, Decimals: d}
	}
	return out, nil
}
