package checkout_test

import (
	"context"
	"errors"
	"math/big"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/checkout"
)

// liveProvider is a payment provider of live mode, in these tests only (nothing here reaches a
// real provider): it records what it is asked to start.
type liveProvider struct {
	mu      sync.Mutex
	started []rampway.StartFiatPayment
}

func (p *liveProvider) Name() string      { return "livepay" }
func (p *liveProvider) Livemode() bool    { return true }
func (p *liveProvider) Methods() []string { return []string{rampway.MethodCard} }
func (p *liveProvider) Start(_ context.Context, s rampway.StartFiatPayment) (*rampway.ProviderPayment, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.started = append(p.started, s)
	return &rampway.ProviderPayment{Ref: "lp_" + s.PaymentID, Status: rampway.FiatPending}, nil
}
func (p *liveProvider) Payment(_ context.Context, ref string) (*rampway.ProviderPayment, error) {
	return &rampway.ProviderPayment{Ref: ref, Status: rampway.FiatPending}, nil
}
func (p *liveProvider) Capture(context.Context, string, *big.Int, string) error { return nil }
func (p *liveProvider) Void(context.Context, string, string) error              { return nil }
func (p *liveProvider) Refund(context.Context, string, *big.Int, string) (string, error) {
	return "", nil
}
func (p *liveProvider) ParseWebhook(http.Header, []byte, time.Time) (*rampway.ProviderEvent, error) {
	return nil, errors.New("no webhooks in this test")
}

// TestModeFiatPaymentProvider: a fiat payment starts with the provider of its order's mode,
// never the other: a live order goes to the live provider; a live order where live mode has no
// provider (a row forged live: the API creates none) is refused, nothing stored, nothing started
// anywhere, and the sandbox itself refuses it too.
func TestModeFiatPaymentProvider(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	live := &liveProvider{}
	w := newWorldWith(t, worldOptions{noChain: true, live: live})
	o := w.storeFiatOrder(rampway.AreaNFTRamp, "EUR", rampway.MethodCard, 3599, func(o *rampway.Order) { o.Livemode = true })
	p, err := w.svc.StartFiatPayment(ctx, o, "https://pay.example/back")
	if err != nil {
		t.Fatal(err)
	}
	if p.Provider != "livepay" || len(live.started) != 1 || !live.started[0].Livemode {
		t.Fatalf("payment %+v, live provider asked %+v", p, live.started)
	}
	// A test order in the same service goes to the sandbox.
	test := w.storeFiatOrder(rampway.AreaNFTRamp, "EUR", rampway.MethodCard, 3599)
	if p, err := w.svc.StartFiatPayment(ctx, test, "https://pay.example/back"); err != nil || p.Provider != "sandbox" || len(live.started) != 1 {
		t.Fatalf("test payment %+v, %v; live provider asked %d times", p, err, len(live.started))
	}

	w2 := newWorldWith(t, worldOptions{noChain: true})
	forged := w2.storeFiatOrder(rampway.AreaNFTRamp, "EUR", rampway.MethodCard, 3599, func(o *rampway.Order) { o.Livemode = true })
	if _, err := w2.svc.StartFiatPayment(ctx, forged, "https://pay.example/back"); !errors.Is(err, checkout.ErrNoFiatProvider) {
		t.Fatalf("a live order's payment without a live provider: %v", err)
	}
	if ps, _ := w2.store.FiatPayments(ctx, forged.ID); len(ps) != 0 {
		t.Fatalf("payments stored: %+v", ps)
	}
	_, err = w2.sandbox.Start(ctx, rampway.StartFiatPayment{PaymentID: "fpy_x", OrderID: forged.ID, Amount: big.NewInt(2000),
		Currency: "EUR", Decimals: 2, Method: rampway.MethodCard, Livemode: true})
	if !errors.Is(err, rampway.ErrModeMismatch) {
		t.Fatalf("the sandbox started a live payment: %v", err)
	}
}
