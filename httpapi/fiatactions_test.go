package httpapi

import (
	"context"
	"math/big"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/checkout"
	"github.com/rampway/rampway/mock"
)

// The admin API lists the fiat actions a provider kept refusing, and an operator retries one or
// resolves it by hand (issue 29, 4): on a mock use case, the routes' queries and bodies, the
// views, and the use case's refusals as envelopes. What checkout decides (which actions, in
// which status, when a retry or a resolve is taken) is its TestOperatorFiatActions.
func TestAdminFiatActions(t *testing.T) {
	t.Parallel()
	at := mockT0.Add(time.Minute)
	action := &rampway.FiatAction{ID: "fac_00000000000000000000000001", OrderID: "ord_1", PaymentID: "fpy_1", Kind: rampway.ActionCapture,
		Amount: big.NewInt(3599), Currency: "EUR", Reason: "executed", Status: rampway.ActionNeedsOperator, Attempts: 3, LastError: "provider says no",
		RetryFrom: at, NextAttemptAt: at.Add(time.Hour), CreatedAt: at, UpdatedAt: at.Add(2 * time.Minute)}
	type list struct {
		status, after string
		limit         int
	}
	var lists []list
	var asked []string // the actions retried or resolved, with the note
	var answer error
	c := &mock.Checkout{
		FiatActionsByStatusFn: func(_ context.Context, status, after string, limit int) ([]checkout.OperatorFiatAction, error) {
			lists = append(lists, list{status, after, limit})
			if status != string(rampway.ActionNeedsOperator) {
				return nil, answer
			}
			second := *action
			second.ID = "fac_00000000000000000000000002"
			return []checkout.OperatorFiatAction{{Action: action, Decimals: 2}, {Action: &second, Decimals: 2}}, nil
		},
		RetryFiatActionFn: func(_ context.Context, id string) (checkout.OperatorFiatAction, error) {
			asked = append(asked, "retry "+id)
			retried := *action
			retried.Status, retried.RetryFrom = rampway.ActionPending, at.Add(time.Hour)
			return checkout.OperatorFiatAction{Action: &retried, Decimals: 2}, answer
		},
		ResolveFiatActionFn: func(_ context.Context, id, note string) (checkout.OperatorFiatAction, error) {
			asked = append(asked, "resolve "+id+": "+note)
			resolved := *action
			resolved.Status, resolved.ResolvedNote = rampway.ActionResolved, note
			return checkout.OperatorFiatAction{Action: &resolved, Decimals: 2}, answer
		},
	}
	e := newMockEnv(t, c)

	// The list: needs_operator unless asked, a page at a time (one more asked than shown).
	l := decode[ListView[FiatActionView]](t, e.admin(http.MethodGet, "/fiat-actions", nil), 200)
	want := FiatActionView{ActionID: action.ID, OrderID: "ord_1", PaymentID: "fpy_1", Kind: "capture", Amount: "35.99", Currency: "EUR", Reason: "executed",
		Status: "needs_operator", Attempts: 3, LastError: "provider says no", NextAttemptAt: "2030-06-14T13:01:00.000Z", RetryFrom: "2030-06-14T12:01:00.000Z",
		CreatedAt: "2030-06-14T12:01:00.000Z", UpdatedAt: "2030-06-14T12:03:00.000Z"}
	if len(l.Data) != 2 || l.Data[0] != want || l.HasMore {
		t.Fatalf("list: %+v, want %+v first", l, want)
	}
	if l := decode[ListView[FiatActionView]](t, e.admin(http.MethodGet, "/fiat-actions?limit=1&starting_after=fac_0", nil), 200); len(l.Data) != 1 || !l.HasMore {
		t.Fatalf("page: %+v", l)
	}
	answer = nil
	if l := decode[ListView[FiatActionView]](t, e.admin(http.MethodGet, "/fiat-actions?status=pending", nil), 200); l.Data == nil || len(l.Data) != 0 {
		t.Fatalf("pending: %+v", l)
	}
	answer = rampway.FieldErrorf("status", "status must be one of [pending done needs_operator resolved], not \"stuck\"")
	wantEnvelope(t, e.admin(http.MethodGet, "/fiat-actions?status=stuck", nil), 400, 400, "/admin/fiat-actions", "status must be one of")
	if want := []list{{"needs_operator", "", 101}, {"needs_operator", "fac_0", 2}, {"pending", "", 101}, {"stuck", "", 101}}; !slices.Equal(lists, want) {
		t.Fatalf("asked %+v, want %+v", lists, want)
	}
	// Refused before the use case: a limit out of range.
	for _, q := range []string{"?limit=0", "?limit=1001", "?limit=x"} {
		wantEnvelope(t, e.admin(http.MethodGet, "/fiat-actions"+q, nil), 400, 400, "/admin/fiat-actions", "limit must be")
	}

	// Retry: 200 with the action as it now is; the use case's conflict 409, unknown 404.
	retry := "/fiat-actions/" + action.ID + "/retry"
	answer = nil
	if r := decode[FiatActionView](t, e.admin(http.MethodPost, retry, nil), 200); r.Status != "pending" || r.RetryFrom != "2030-06-14T13:01:00.000Z" {
		t.Fatalf("retried: %+v", r)
	}
	answer = rampway.Errorf(rampway.ECONFLICT, "Fiat action %s is resolved: only one that needs an operator is retried", action.ID)
	wantEnvelope(t, e.admin(http.MethodPost, retry, nil), 409, 409, "/admin"+retry, "only one that needs an operator")
	answer = rampway.Errorf(rampway.ENOTFOUND, "Fiat action %q not found", "nope")
	wantEnvelope(t, e.admin(http.MethodPost, "/fiat-actions/nope/retry", nil), 404, 404, "/admin/fiat-actions/nope/retry", `Fiat action "nope" not found`)
	wantEnvelope(t, e.admin(http.MethodPost, retry, map[string]any{"x": 1}), 400, 400, "/admin"+retry, "Unknown field 'x'")

	// Resolve: the note passed on ("" when absent, for the use case to refuse); no other field.
	resolve := "/fiat-actions/" + action.ID + "/resolve"
	answer = rampway.FieldErrorf("note", "note is required: what was done at the provider")
	wantEnvelope(t, e.admin(http.MethodPost, resolve, map[string]any{}), 400, 400, "/admin"+resolve, "note is required")
	wantEnvelope(t, e.admin(http.MethodPost, resolve, map[string]any{"note": "x", "by": "me"}), 400, 400, "/admin"+resolve, "Unknown field 'by'")
	answer = nil
	if v := decode[FiatActionView](t, e.admin(http.MethodPost, resolve, map[string]any{"note": "captured in the dashboard"}), 200); v.Status != "resolved" ||
		v.ResolvedNote != "captured in the dashboard" {
		t.Fatalf("resolved: %+v", v)
	}
	answer = rampway.Errorf(rampway.ECONFLICT, "Fiat action %s is resolved", action.ID)
	wantEnvelope(t, e.admin(http.MethodPost, resolve, map[string]any{"note": "again"}), 409, 409, "/admin"+resolve, "is resolved")
	if want := []string{"retry " + action.ID, "retry " + action.ID, "retry nope", "resolve " + action.ID + ": ",
		"resolve " + action.ID + ": captured in the dashboard", "resolve " + action.ID + ": again"}; !slices.Equal(asked, want) {
		t.Fatalf("asked %q, want %q", asked, want)
	}

	// The merchant API never sees it.
	if r := e.merchantAPI(http.MethodGet, "/admin/fiat-actions", nil); r.status != 401 {
		t.Fatalf("a merchant key on the admin API: %d", r.status)
	}
}
