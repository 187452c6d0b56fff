package httpapi

import (
	"net/http"
	"strconv"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/checkout"
)

// FiatActionView is a capture, void or refund asked of a payment provider, as the admin API
// shows it: amount in major units of its currency; last_error the provider's last refusal;
// retry_from when its give-up clock started (its creation or an operator's retry);
// resolved_note what the operator who resolved it by hand did.
type FiatActionView struct {
	ActionID      string `json:"action_id"`
	OrderID       string `json:"order_id"`
	PaymentID     string `json:"payment_id"`
	Kind          string `json:"kind"`
	Amount        string `json:"amount"`
	Currency      string `json:"currency"`
	Reason        string `json:"reason"`
	Status        string `json:"status"`
	Attempts      int    `json:"attempts"`
	LastError     string `json:"last_error"`
	ProviderRef   string `json:"provider_ref"`
	ResolvedNote  string `json:"resolved_note"`
	NextAttemptAt string `json:"next_attempt_at"`
	RetryFrom     string `json:"retry_from"`
	CreatedAt     string `json:"created_at"`
	UpdatedAt     string `json:"updated_at"`
}

// NewFiatActionView returns an action's admin view.
func NewFiatActionView(a checkout.OperatorFiatAction) FiatActionView {
	x := a.Action
	return FiatActionView{ActionID: x.ID, OrderID: x.OrderID, PaymentID: x.PaymentID, Kind: string(x.Kind),
		Amount: rampway.FormatFixed(x.Amount, a.Decimals), Currency: x.Currency, Reason: x.Reason, Status: string(x.Status), Attempts: x.Attempts,
		LastError: x.LastError, ProviderRef: x.ProviderRef, ResolvedNote: x.ResolvedNote, NextAttemptAt: x.NextAttemptAt.UTC().Format(TimeFormat),
		RetryFrom: x.RetryFrom.UTC().Format(TimeFormat), CreatedAt: x.CreatedAt.UTC().Format(TimeFormat), UpdatedAt: x.UpdatedAt.UTC().Format(TimeFormat)}
}

// handleListFiatActions lists fiat actions by status, oldest change first:
// ?status=needs_operator (the default)&limit=&starting_after=.
func (s *Server) handleListFiatActions(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	status := q.Get("status")
	if status == "" {
		status = string(rampway.ActionNeedsOperator)
	}
	limit := 100
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			return rampway.FieldErrorf("limit", "limit must be an integer between 1 and 1000")
		}
		limit = n
	}
	as, err := s.checkout.FiatActionsByStatus(r.Context(), status, q.Get("starting_after"), limit+1)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, NewListView(as, limit, NewFiatActionView))
	return nil
}

// handleRetryFiatAction makes an action that needs an operator pending again: 200 with it;
// 409 in any other status.
func (s *Server) handleRetryFiatAction(w http.ResponseWriter, r *http.Request) error {
	var none struct{}
	if err := decodeJSON(r, &none, decodeOptions{strict: true, optional: true}); err != nil {
		return err
	}
	a, err := s.checkout.RetryFiatAction(r.Context(), r.PathValue("action_id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, NewFiatActionView(a))
	return nil
}

// handleResolveFiatAction records an action that needs an operator as done by hand:
// {"note": "what was done at the provider"}; 200 with it; 409 in any other status.
func (s *Server) handleResolveFiatAction(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Note *string `json:"note"`
	}
	if err := decodeJSON(r, &body, decodeOptions{strict: true}); err != nil {
		return err
	}
	a, err := s.checkout.ResolveFiatAction(r.Context(), r.PathValue("action_id"), deref(body.Note))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, NewFiatActionView(a))
	return nil
}
