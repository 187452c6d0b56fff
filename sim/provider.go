package sim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"net/http"
	"slices"
	"time"

	"github.com/rampway/rampway"
)

// providerName is the simulated payment provider's name.
const providerName = "simpay"

// provider is a payment provider outside rampway, as the simulation plays it: its payments
// outlive rampway's crashes; its notifications wait in an outbox that the simulation delivers
// late, twice or out of order; its calls fail when the step says so.
type provider struct {
	seed uint64
	// step and rate are the current step and its per-mille failure rate of calls.
	step, rate int
	payments   map[string]*simPayment // by ref
	byIdem     map[string]string      // our payment id -> ref
	outbox     []*rampway.ProviderEvent
	events     int
	// calls counts the capture, void and refund calls done (by idempotency key).
	calls map[string]string
	fired []string
}

// simPayment is one payment at the provider.
type simPayment struct {
	Ref, OrderID, Method, Currency string
	Amount                         *big.Int
	Status                         rampway.FiatPaymentStatus
	Received, Captured, Refunded   *big.Int
}

func newProvider(seed uint64) *provider {
	return &provider{seed: seed, payments: map[string]*simPayment{}, byIdem: map[string]string{}, calls: map[string]string{}}
}

var _ rampway.FiatProvider = (*provider)(nil)

func (p *provider) Name() string   { return providerName }
func (p *provider) Livemode() bool { return false }
func (p *provider) Methods() []string {
	return []string{rampway.MethodCard, rampway.MethodSEPABankTransfer}
}

// failing decides whether a call fails this step.
func (p *provider) failing(what, key string) bool {
	if p.rate <= 0 || mix(p.seed, uint64(p.step), hashString(what+"/"+key), 7)%1000 >= uint64(p.rate) {
		return false
	}
	p.fired = append(p.fired, "provider."+what)
	return true
}

var errProvider = errors.New("sim: provider unavailable")

func (p *provider) Start(_ context.Context, s rampway.StartFiatPayment) (*rampway.ProviderPayment, error) {
	if ref, ok := p.byIdem[s.PaymentID]; ok {
		return p.view(p.payments[ref]), nil
	}
	if p.failing("start", s.PaymentID) {
		return nil, errProvider
	}
	ref := fmt.Sprintf("sp_%d", len(p.payments)+1)
	pay := &simPayment{Ref: ref, OrderID: s.OrderID, Method: s.Method, Currency: s.Currency, Amount: new(big.Int).Set(s.Amount),
		Status: rampway.FiatPending, Received: new(big.Int), Captured: new(big.Int), Refunded: new(big.Int)}
	p.payments[ref], p.byIdem[s.PaymentID] = pay, ref
	return p.view(pay), nil
}

func (p *provider) view(pay *simPayment) *rampway.ProviderPayment {
	pp := &rampway.ProviderPayment{Ref: pay.Ref, Status: pay.Status}
	if rampway.IsBankTransfer(pay.Method) {
		pp.Reference = "REF-" + pay.Ref
		pp.Received = new(big.Int).Set(pay.Received)
	}
	pp.Held = new(big.Int).Add(pay.Received, pay.Captured)
	pp.Held.Sub(pp.Held, pay.Refunded)
	return pp
}

func (p *provider) Payment(_ context.Context, ref string) (*rampway.ProviderPayment, error) {
	pay, ok := p.payments[ref]
	if !ok {
		return nil, fmt.Errorf("sim: no payment %s", ref)
	}
	if p.failing("payment", ref) {
		return nil, errProvider
	}
	return p.view(pay), nil
}

// emit queues a notification of pay's state.
func (p *provider) emit(pay *simPayment, typ string, f func(*rampway.ProviderEvent)) {
	p.events++
	ev := &rampway.ProviderEvent{ID: fmt.Sprintf("spe_%d", p.events), Type: typ, PaymentRef: pay.Ref, Status: pay.Status}
	if f != nil {
		f(ev)
	}
	p.outbox = append(p.outbox, ev)
}

// authorize is the user's card authorised (ok) or declined.
func (p *provider) authorize(ref string, ok bool) bool {
	pay := p.payments[ref]
	if pay == nil || pay.Status != rampway.FiatPending || rampway.IsBankTransfer(pay.Method) {
		return false
	}
	if ok {
		pay.Status = rampway.FiatAuthorized
		p.emit(pay, rampway.ProviderPaymentAuthorized, func(ev *rampway.ProviderEvent) { ev.CardBrand, ev.CardLast4 = "visa", "4242" })
	} else {
		pay.Status = rampway.FiatFailed
		p.emit(pay, rampway.ProviderPaymentFailed, func(ev *rampway.ProviderEvent) { ev.FailureReason = "card declined" })
		pay.Status = rampway.FiatPending // a declined card may be followed by another
	}
	return true
}

// credit is a bank transfer of amount arriving for ref.
func (p *provider) credit(ref string, amount *big.Int) bool {
	pay := p.payments[ref]
	if pay == nil || !rampway.IsBankTransfer(pay.Method) || pay.Status == rampway.FiatRefunded || pay.Status == rampway.FiatVoided {
		return false
	}
	pay.Received.Add(pay.Received, amount)
	pay.Status = rampway.FiatSucceeded
	p.events++
	credit := fmt.Sprintf("cr_%d", p.events)
	p.emit(pay, rampway.ProviderPaymentCredited, func(ev *rampway.ProviderEvent) {
		ev.Credit, ev.Amount, ev.Received = credit, new(big.Int).Set(amount), new(big.Int).Set(pay.Received)
	})
	return true
}

func (p *provider) Capture(_ context.Context, ref string, amount *big.Int, key string) error {
	if _, ok := p.calls[key]; ok {
		return nil
	}
	if p.failing("capture", key) {
		return errProvider
	}
	pay := p.payments[ref]
	if pay == nil || pay.Status != rampway.FiatAuthorized {
		return fmt.Errorf("sim: capture of %s: payment not authorised", ref)
	}
	if amount.Sign() <= 0 || amount.Cmp(pay.Amount) > 0 {
		return fmt.Errorf("sim: capture of %s: amount %s out of range", ref, amount)
	}
	pay.Status, pay.Captured = rampway.FiatSucceeded, new(big.Int).Set(amount)
	p.calls[key] = "capture"
	p.emit(pay, rampway.ProviderPaymentCaptured, func(ev *rampway.ProviderEvent) { ev.ActionKey = key })
	return nil
}

func (p *provider) Void(_ context.Context, ref string, key string) error {
	if _, ok := p.calls[key]; ok {
		return nil
	}
	if p.failing("void", key) {
		return errProvider
	}
	pay := p.payments[ref]
	if pay == nil {
		return fmt.Errorf("sim: no payment %s", ref)
	}
	switch pay.Status {
	case rampway.FiatPending, rampway.FiatProcessing, rampway.FiatAuthorized:
	default:
		return fmt.Errorf("sim: payment %s is %s: it cannot be voided", ref, pay.Status)
	}
	pay.Status = rampway.FiatVoided
	p.calls[key] = "void"
	p.emit(pay, rampway.ProviderPaymentVoided, func(ev *rampway.ProviderEvent) { ev.ActionKey = key })
	return nil
}

func (p *provider) Refund(_ context.Context, ref string, amount *big.Int, key string) (string, error) {
	if r, ok := p.calls[key]; ok {
		return r, nil
	}
	if p.failing("refund", key) {
		return "", errProvider
	}
	pay := p.payments[ref]
	if pay == nil {
		return "", fmt.Errorf("sim: no payment %s", ref)
	}
	paid := new(big.Int).Add(pay.Received, pay.Captured)
	left := new(big.Int).Sub(paid, pay.Refunded)
	if amount.Sign() <= 0 || amount.Cmp(left) > 0 {
		return "", fmt.Errorf("sim: refund of %s is not between 1 and the %s left on %s", amount, left, ref)
	}
	pay.Refunded.Add(pay.Refunded, amount)
	if pay.Refunded.Cmp(paid) == 0 {
		pay.Status = rampway.FiatRefunded
	}
	id := "rf_" + key
	p.calls[key] = id
	p.emit(pay, rampway.ProviderPaymentRefunded, func(ev *rampway.ProviderEvent) { ev.ActionKey, ev.Amount = key, new(big.Int).Set(amount) })
	return id, nil
}

// ParseWebhook reads a notification the simulation delivers (no signature: the provider's
// own verification is tested with each real provider).
func (p *provider) ParseWebhook(_ http.Header, body []byte, _ time.Time) (*rampway.ProviderEvent, error) {
	var ev rampway.ProviderEvent
	if err := json.Unmarshal(body, &ev); err != nil {
		return nil, err
	}
	return &ev, nil
}

// moneyIn is what the provider took from users in all, and refunded, by currency: what a
// fiat check compares with rampway's records.
func (p *provider) moneyIn() map[string][2]*big.Int {
	out := map[string][2]*big.Int{}
	for _, ref := range slices.Sorted(maps.Keys(p.payments)) {
		pay := p.payments[ref]
		v, ok := out[pay.Currency]
		if !ok {
			v = [2]*big.Int{new(big.Int), new(big.Int)}
		}
		v[0].Add(v[0], new(big.Int).Add(pay.Received, pay.Captured))
		v[1].Add(v[1], pay.Refunded)
		out[pay.Currency] = v
	}
	return out
}
