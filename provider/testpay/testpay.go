// Package testpay is a payment provider module for tests, and the proof that a provider is one
// package: it registers itself (provider.Register) and no other package names it. A build has it
// only when something imports it (its own tests do; provider/all does not).
//
// It takes cards: a payment is approved or declined on its own page, reached from its widget on
// the checkout page; an approval authorises the amount, which rampway captures once the order is
// executed (or voids). Its notifications are signed (HMAC-SHA256 of the body, hex, in the
// Testpay-Signature header) and posted to rampway's webhook route at once. Its books are in
// memory: a test's process only.
package testpay

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/provider"
)

// Name is the module's name.
const Name = "testpay"

// WidgetKind is the next action its payments wait on: its widget on the checkout page.
const WidgetKind = "testpay_form"

// SignatureHeader carries a notification's signature.
const SignatureHeader = "Testpay-Signature"

// ScriptOrigin is where its (imaginary) script comes from: named in the page's CSP.
const ScriptOrigin = "https://js.testpay.example"

func init() {
	provider.Register(provider.Module{
		Name:     Name,
		Methods:  []string{rampway.MethodCard},
		TestOnly: true,
		New: func(_ context.Context, s provider.Settings, _ provider.Deps) (provider.Instance, error) {
			return New(s.Name, strings.TrimRight(s.PublicURL, "/"), s.Secret), nil
		},
		Widget: &provider.Widget{
			Kind:     WidgetKind,
			Template: `{{define "widget"}}<p id="testpay-widget">{{t "payment"}}: <a id="testpay-link" href="{{index .Meta "url"}}">Pay {{.Amount}} at testpay</a></p>{{end}}`,
			Script:   []byte(`document.documentElement.dataset.testpay = "ready";` + "\n"),
			Scripts:  []string{ScriptOrigin + "/v1.js"},
			CSP:      provider.CSP{Script: []string{ScriptOrigin}},
		},
	})
}

type payment struct {
	ref, idem, returnURL string
	amount               *big.Int
	status               rampway.FiatPaymentStatus
}

// Provider is an instance.
type Provider struct {
	name, base string
	secret     []byte
	client     *http.Client

	mu       sync.Mutex
	payments map[string]*payment // by ref
	byIdem   map[string]string   // start's key -> ref
	calls    map[string]string   // action key -> result
	seq      int
}

var (
	_ provider.Instance = (*Provider)(nil)
	_ provider.Router   = (*Provider)(nil)
)

// New returns an instance named name, rampway's public URL at base.
func New(name, base string, secret []byte) *Provider {
	return &Provider{name: name, base: base, secret: secret, client: &http.Client{Timeout: 10 * time.Second},
		payments: map[string]*payment{}, byIdem: map[string]string{}, calls: map[string]string{}}
}

// Name implements rampway.FiatProvider.
func (p *Provider) Name() string { return p.name }

// Livemode implements rampway.FiatProvider: test data only.
func (p *Provider) Livemode() bool { return false }

// Methods implements rampway.FiatProvider.
func (p *Provider) Methods() []string { return []string{rampway.MethodCard} }

func (p *Provider) view(pay *payment) *rampway.ProviderPayment {
	pp := &rampway.ProviderPayment{Ref: pay.ref, Status: pay.status}
	if pay.status == rampway.FiatPending {
		pp.Next = &rampway.NextAction{Kind: WidgetKind, Meta: map[string]string{"url": p.base + "/providers/" + p.name + "/pay/" + pay.ref}}
	}
	if pay.status != rampway.FiatPending && pay.status != rampway.FiatFailed {
		pp.CardBrand, pp.CardLast4 = "visa", "4242"
	}
	return pp
}

// Start implements rampway.FiatProvider.
func (p *Provider) Start(_ context.Context, s rampway.StartFiatPayment) (*rampway.ProviderPayment, error) {
	if err := rampway.ModeMatches("payment provider "+p.name, s.Livemode, false); err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if ref, ok := p.byIdem[s.PaymentID]; ok {
		return p.view(p.payments[ref]), nil
	}
	p.seq++
	pay := &payment{ref: fmt.Sprintf("tp_%d", p.seq), idem: s.PaymentID, returnURL: s.ReturnURL, amount: new(big.Int).Set(s.Amount), status: rampway.FiatPending}
	p.payments[pay.ref], p.byIdem[s.PaymentID] = pay, pay.ref
	return p.view(pay), nil
}

// Payment implements rampway.FiatProvider.
func (p *Provider) Payment(_ context.Context, ref string) (*rampway.ProviderPayment, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pay, ok := p.payments[ref]
	if !ok {
		return nil, rampway.Errorf(rampway.ENOTFOUND, "testpay: no payment %s", ref)
	}
	return p.view(pay), nil
}

// move changes a payment's status under an action key, once, and notifies rampway of it.
func (p *Provider) move(ctx context.Context, ref, key string, from, to rampway.FiatPaymentStatus, typ, result string) (string, error) {
	p.mu.Lock()
	if r, ok := p.calls[key]; ok {
		p.mu.Unlock()
		return r, nil
	}
	pay, ok := p.payments[ref]
	if !ok || pay.status != from {
		p.mu.Unlock()
		return "", fmt.Errorf("testpay: payment %s is not %s", ref, from)
	}
	pay.status, p.calls[key] = to, result
	n := p.notification(typ, ref, to)
	p.mu.Unlock()
	return result, p.notify(ctx, n)
}

// Capture implements rampway.FiatProvider.
func (p *Provider) Capture(ctx context.Context, ref string, _ *big.Int, key string) error {
	_, err := p.move(ctx, ref, key, rampway.FiatAuthorized, rampway.FiatSucceeded, rampway.ProviderPaymentCaptured, "")
	return err
}

// Void implements rampway.FiatProvider.
func (p *Provider) Void(ctx context.Context, ref, key string) error {
	_, err := p.move(ctx, ref, key, rampway.FiatAuthorized, rampway.FiatVoided, rampway.ProviderPaymentVoided, "")
	return err
}

// Refund implements rampway.FiatProvider.
func (p *Provider) Refund(ctx context.Context, ref string, _ *big.Int, key string) (string, error) {
	return p.move(ctx, ref, key, rampway.FiatSucceeded, rampway.FiatRefunded, rampway.ProviderPaymentRefunded, "tpr_"+key)
}

// notification is the next notification about a payment (p.mu held).
func (p *Provider) notification(typ, ref string, status rampway.FiatPaymentStatus) notification {
	p.seq++
	return notification{ID: fmt.Sprintf("tpe_%d", p.seq), Type: typ, Ref: ref, Status: status}
}

// notify posts a notification, signed, to rampway's webhook route.
func (p *Provider) notify(ctx context.Context, n notification) error {
	body, _ := json.Marshal(n)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.base+"/providers/"+p.name+"/webhook", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(SignatureHeader, hex.EncodeToString(p.sign(body)))
	res, err := p.client.Do(req)
	if err != nil {
		return fmt.Errorf("testpay: notify: %w", err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("testpay: notify: rampway answered %s", res.Status)
	}
	return nil
}

type notification struct {
	ID     string                    `json:"id"`
	Type   string                    `json:"type"`
	Ref    string                    `json:"ref"`
	Status rampway.FiatPaymentStatus `json:"status"`
}

// ParseWebhook implements rampway.FiatProvider.
func (p *Provider) ParseWebhook(h http.Header, body []byte, _ time.Time) (*rampway.ProviderEvent, error) {
	got, err := hex.DecodeString(h.Get(SignatureHeader))
	if err != nil || !hmac.Equal(got, p.sign(body)) {
		return nil, errors.New("testpay webhook: bad signature")
	}
	var n notification
	if err := json.Unmarshal(body, &n); err != nil {
		return nil, fmt.Errorf("testpay webhook: %w", err)
	}
	ev := &rampway.ProviderEvent{ID: n.ID, Type: n.Type, PaymentRef: n.Ref, Status: n.Status}
	if n.Status == rampway.FiatAuthorized {
		ev.CardBrand, ev.CardLast4 = "visa", "4242"
	}
	if n.Status == rampway.FiatFailed {
		ev.FailureReason = "declined by testpay"
	}
	return ev, nil
}

func (p *Provider) sign(body []byte) []byte {
	m := hmac.New(sha256.New, p.secret)
	m.Write(body)
	return m.Sum(nil)
}

// Routes implements provider.Router: its payment page.
func (p *Provider) Routes() []string {
	return []string{"GET /providers/" + p.name + "/pay/{ref}", "POST /providers/" + p.name + "/pay/{ref}"}
}

var pageTmpl = template.Must(template.New("pay").Parse(`<!doctype html><title>testpay</title>
<form method="post"><button name="result" value="approve">Approve</button><button name="result" value="decline">Decline</button></form>`))

// Handler implements provider.Router: GET shows the payment, POST result=approve|decline settles
// it, notifies rampway, and sends the user back.
func (p *Provider) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ref := r.PathValue("ref")
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_ = pageTmpl.Execute(w, nil)
			return
		}
		to, typ := rampway.FiatAuthorized, rampway.ProviderPaymentAuthorized
		if r.FormValue("result") != "approve" {
			to, typ = rampway.FiatFailed, rampway.ProviderPaymentFailed
		}
		p.mu.Lock()
		pay, ok := p.payments[ref]
		ok = ok && pay.status == rampway.FiatPending
		if ok {
			pay.status = to
		}
		n := p.notification(typ, ref, to)
		p.mu.Unlock()
		if !ok {
			http.Error(w, "no payment waiting", http.StatusConflict)
			return
		}
		if err := p.notify(r.Context(), n); err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		http.Redirect(w, r, pay.returnURL, http.StatusSeeOther)
	})
}
