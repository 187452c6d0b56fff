package fiatwork_test

import (
	"context"
	"errors"
	"log/slog"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/fiatwork"
)

// provider records the actions asked of it (a mock: the worker's routing is under test).
type provider struct {
	name  string
	live  bool
	calls []string
}

func (p *provider) Name() string      { return p.name }
func (p *provider) Livemode() bool    { return p.live }
func (p *provider) Methods() []string { return []string{rampway.MethodCard} }
func (p *provider) Start(context.Context, rampway.StartFiatPayment) (*rampway.ProviderPayment, error) {
	return nil, errors.New("not in this test")
}
func (p *provider) Payment(context.Context, string) (*rampway.ProviderPayment, error) {
	return nil, errors.New("not in this test")
}
func (p *provider) Capture(_ context.Context, ref string, _ *big.Int, key string) error {
	p.calls = append(p.calls, "capture "+ref+" "+key)
	return nil
}
func (p *provider) Void(_ context.Context, ref, key string) error {
	p.calls = append(p.calls, "void "+ref+" "+key)
	return nil
}
func (p *provider) Refund(_ context.Context, ref string, _ *big.Int, key string) (string, error) {
	p.calls = append(p.calls, "refund "+ref+" "+key)
	return "re_" + key, nil
}
func (p *provider) ParseWebhook(http.Header, []byte, time.Time) (*rampway.ProviderEvent, error) {
	return nil, errors.New("not in this test")
}

// store holds the actions, payments and orders of the test.
type store struct {
	actions  []*rampway.FiatAction
	payments map[string][]*rampway.FiatPayment
	orders   map[string]*rampway.Order
	finished map[string]string // action id: "done <ref>" or "failed <error>"
}

func (s *store) ClaimFiatActions(context.Context, time.Time, time.Duration, int) ([]*rampway.FiatAction, error) {
	var out []*rampway.FiatAction
	for _, a := range s.actions {
		if _, ok := s.finished[a.ID]; !ok {
			out = append(out, a)
		}
	}
	return out, nil
}
func (s *store) FinishFiatAction(_ context.Context, id string, status rampway.FiatActionStatus, ref, lastErr string, _, _ time.Time) error {
	switch status {
	case rampway.ActionDone:
		s.finished[id] = "done " + ref
	case rampway.ActionNeedsOperator:
		s.finished[id] = "needs_operator " + lastErr
	default:
		s.finished[id] = "failed " + lastErr
	}
	return nil
}
func (s *store) FiatPayments(_ context.Context, orderID string) ([]*rampway.FiatPayment, error) {
	return s.payments[orderID], nil
}
func (s *store) Order(_ context.Context, id string) (*rampway.Order, error) {
	o, ok := s.orders[id]
	if !ok {
		return nil, rampway.Errorf(rampway.ENOTFOUND, "no order %s", id)
	}
	return o, nil
}

// Each action goes to its payment's own provider (whichever new payments start with), and only
// when that provider serves the order's mode: a row whose mode is not its provider's moves no
// money and says why; a provider no longer configured is an error, not another provider.
func TestActionsGoToThePaymentsProviderOfTheOrdersMode(t *testing.T) {
	sandbox := &provider{name: "sandbox"}
	live := &provider{name: "stripe", live: true}
	s := &store{payments: map[string][]*rampway.FiatPayment{}, orders: map[string]*rampway.Order{}, finished: map[string]string{}}
	add := func(id string, orderLive bool, prov, kind string) {
		oid, pid := "ord_"+id, "fpy_"+id
		s.orders[oid] = &rampway.Order{ID: oid, Livemode: orderLive}
		s.payments[oid] = []*rampway.FiatPayment{{ID: pid, OrderID: oid, Provider: prov, ProviderRef: "ref_" + id}}
		s.actions = append(s.actions, &rampway.FiatAction{ID: "fac_" + id, OrderID: oid, PaymentID: pid, Kind: rampway.FiatActionKind(kind), Amount: big.NewInt(100)})
	}
	add("test", false, "sandbox", string(rampway.ActionCapture))
	add("live", true, "stripe", string(rampway.ActionRefund))
	add("forgedlive", true, "sandbox", string(rampway.ActionCapture)) // a live order paid through the sandbox: never
	add("forgedtest", false, "stripe", string(rampway.ActionVoid))    // a test order's void at the live provider: never
	add("gone", false, "adyen", string(rampway.ActionVoid))

	w := fiatwork.New(s, map[string]rampway.FiatProvider{"sandbox": sandbox, "stripe": live}, fiatwork.Config{}, slog.New(slog.DiscardHandler), nil)
	done, err := w.Step(t.Context())
	if err != nil || done != 2 {
		t.Fatalf("step: %d done, %v", done, err)
	}
	if len(sandbox.calls) != 1 || sandbox.calls[0] != "capture ref_test fac_test" {
		t.Fatalf("sandbox asked %v", sandbox.calls)
	}
	if len(live.calls) != 1 || live.calls[0] != "refund ref_live fac_live" {
		t.Fatalf("live provider asked %v", live.calls)
	}
	for id, want := range map[string]string{
		"fac_test": "done ", "fac_live": "done re_fac_live",
		"fac_forgedlive": "a live-mode order cannot move money on payment provider sandbox, which is test mode",
		"fac_forgedtest": "a test-mode order cannot move money on payment provider stripe, which is live mode",
		"fac_gone":       "its provider adyen is not configured",
	} {
		if got := s.finished[id]; !strings.Contains(got, want) {
			t.Fatalf("%s: %q, want %q", id, got, want)
		}
	}
}

// refusing is a provider that refuses every action.
type refusing struct{ provider }

func (p *refusing) Capture(context.Context, string, *big.Int, string) error {
	return errors.New("provider says no")
}

// An action the provider keeps refusing is tried again with backoff until GiveUpAfter has
// passed since it was made (or since an operator's retry); then it needs an operator, with
// the provider's last answer kept (issue 29, 4).
func TestActionGivenUpOnNeedsAnOperator(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	s := &store{payments: map[string][]*rampway.FiatPayment{}, orders: map[string]*rampway.Order{}, finished: map[string]string{}}
	for id, since := range map[string]time.Time{"young": now.Add(-23 * time.Hour), "old": now.Add(-24 * time.Hour), "retried": now.Add(-time.Minute)} {
		oid := "ord_" + id
		s.orders[oid] = &rampway.Order{ID: oid}
		s.payments[oid] = []*rampway.FiatPayment{{ID: "fpy_" + id, OrderID: oid, Provider: "sandbox", ProviderRef: "ref_" + id}}
		s.actions = append(s.actions, &rampway.FiatAction{ID: "fac_" + id, OrderID: oid, PaymentID: "fpy_" + id, Kind: rampway.ActionCapture,
			Amount: big.NewInt(100), CreatedAt: now.Add(-48 * time.Hour), RetryFrom: since})
	}
	p := &refusing{provider{name: "sandbox"}}
	w := fiatwork.New(s, map[string]rampway.FiatProvider{"sandbox": p}, fiatwork.Config{GiveUpAfter: 24 * time.Hour}, slog.New(slog.DiscardHandler),
		func() time.Time { return now })
	if _, err := w.Step(t.Context()); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{"fac_young": "failed provider says no", "fac_old": "needs_operator provider says no",
		"fac_retried": "failed provider says no"} {
		if got := s.finished[id]; got != want {
			t.Fatalf("%s: %q, want %q", id, got, want)
		}
	}
}
