// Package sandbox is a payment provider that behaves like a real one with test data: cards
// (the test cards succeed, decline or ask for a 3-D Secure challenge), Apple Pay and Google Pay
// sheets, bank transfers told to arrive through the admin API, and redirect methods approved on
// its own page. It keeps its own books (its payments, the idempotency keys of the calls made to
// it) and sends its notifications, signed, to rampway's webhook route over HTTP, retrying until
// they are answered: the path a real provider's notifications take.
package sandbox

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/rampway/rampway"
)

// Name is the module's name (and an instance's, unless the configuration names it).
const Name = "sandbox"

// SignatureHeader carries a notification's signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of
// "<t>.<body>">.
const SignatureHeader = "Sandbox-Signature"

// Tolerance is how old a notification's signature may be.
const Tolerance = 5 * time.Minute

// The test cards (dev.json's fiat.test_cards names the first three).
const (
	CardSuccess = "4242424242424242"
	CardDecline = "4000000000000002"
	CardThreeDS = "4000000000003220"
	// CardRefundFails pays, but every refund of its payment is refused (as the card's issuer
	// may refuse one): the refund fails, and nothing moves.
	CardRefundFails = "4000000000005126"
)

// Methods are the payment methods the sandbox takes: every one the spec names.
var Methods = []string{rampway.MethodCard, rampway.MethodApplePay, rampway.MethodGooglePay, rampway.MethodSEPABankTransfer,
	rampway.MethodGBPBankTransfer, rampway.MethodOpenBanking, rampway.MethodCashApp, rampway.MethodJWire}

// Payment is a payment in the sandbox's books. Amounts are in the currency's minor units.
type Payment struct {
	ID        string
	IdemKey   string // the start's idempotency key (rampway's payment id)
	OrderID   string
	Method    string
	Currency  string
	Decimals  uint8
	Amount    *big.Int
	Received  *big.Int // pushed in (bank transfers, approvals)
	Captured  *big.Int
	Refunded  *big.Int
	Status    rampway.FiatPaymentStatus
	Reference string
	CardBrand string
	CardLast4 string
	// FailureReason says why a failed payment failed.
	FailureReason string
	ReturnURL     string
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// Event is a notification on its way to rampway.
type Event struct {
	ID   string
	Body []byte
}

// Call is the remembered result of an idempotent call (capture, void, refund).
type Call struct {
	Key       string
	PaymentID string
	Kind      string
	Result    string // a refund's id; "" otherwise
}

// Store keeps the sandbox's books.
type Store interface {
	// SandboxCreate stores p unless a payment with its IdemKey exists; it returns the stored one.
	SandboxCreate(ctx context.Context, p *Payment) (*Payment, error)
	// SandboxPayment returns a payment by id or, with byReference, by its bank reference.
	// ENOTFOUND.
	SandboxPayment(ctx context.Context, key string, byReference bool) (*Payment, error)
	// SandboxUpdate writes p if its status is still from (ECONFLICT otherwise), with the events
	// it sends and the call it answers (nil for none), in one transaction.
	SandboxUpdate(ctx context.Context, p *Payment, from rampway.FiatPaymentStatus, events []Event, call *Call) error
	// SandboxCall returns a remembered call (nil, nil when the key is new).
	SandboxCall(ctx context.Context, key string) (*Call, error)
	// SandboxDueEvents returns up to limit undelivered events due at now, oldest first.
	SandboxDueEvents(ctx context.Context, now time.Time, limit int) ([]Event, error)
	// SandboxEventSent records an attempt: delivered, or due again at next.
	SandboxEventSent(ctx context.Context, id string, delivered bool, next, at time.Time) error
}

// Config configures the sandbox.
type Config struct {
	// Name is the instance's name (default Name): its pages are under BaseURL/providers/{name}/.
	Name string
	// BaseURL is rampway's public URL.
	BaseURL string
	// WebhookURL receives its notifications (default BaseURL/providers/{name}/webhook).
	WebhookURL string
	// Secret signs them.
	Secret []byte
}

// Provider is the sandbox provider (rampway.FiatProvider).
type Provider struct {
	cfg    Config
	store  Store
	now    func() time.Time
	client *http.Client
	wake   chan struct{}
}

var _ rampway.FiatProvider = (*Provider)(nil)

// New returns the sandbox. now is the clock (time.Now when nil).
func New(cfg Config, store Store, now func() time.Time) *Provider {
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	if cfg.Name == "" {
		cfg.Name = Name
	}
	if cfg.WebhookURL == "" {
		cfg.WebhookURL = cfg.BaseURL + "/providers/" + cfg.Name + "/webhook"
	}
	if now == nil {
		now = time.Now
	}
	return &Provider{cfg: cfg, store: store, now: now, client: &http.Client{Timeout: 10 * time.Second}, wake: make(chan struct{}, 1)}
}

// pages is the URL the instance's pages are under.
func (p *Provider) pages() string { return p.cfg.BaseURL + "/providers/" + p.cfg.Name }

func (p *Provider) at() time.Time { return p.now().UTC().Truncate(time.Microsecond) }

// Name implements rampway.FiatProvider.
func (p *Provider) Name() string { return p.cfg.Name }

// Methods implements rampway.FiatProvider.
func (p *Provider) Methods() []string { return Methods }

// Livemode implements rampway.FiatProvider: the sandbox takes test data only, never real money.
func (p *Provider) Livemode() bool { return false }

// FormFirst implements rampway.FormFirst: the sandbox's card form is shown before its payment
// starts (its post starts it).
func (p *Provider) FormFirst(method string) bool { return method == rampway.MethodCard }

var refEncoding = base32.NewEncoding("ABCDEFGHJKLMNPQRSTUVWXYZ23456789").WithPadding(base32.NoPadding)

func randomRef(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return refEncoding.EncodeToString(b)
}

// Start implements rampway.FiatProvider.
func (p *Provider) Start(ctx context.Context, s rampway.StartFiatPayment) (*rampway.ProviderPayment, error) {
	if err := rampway.ModeMatches("the sandbox payment provider", s.Livemode, false); err != nil {
		return nil, fmt.Errorf("sandbox: start: %w", err)
	}
	if !contains(Methods, s.Method) {
		return nil, fmt.Errorf("sandbox: method %q is not supported", s.Method)
	}
	if s.Amount == nil || s.Amount.Sign() <= 0 {
		return nil, errors.New("sandbox: amount must be positive")
	}
	now := p.at()
	pay := &Payment{ID: rampway.NewID("sbp", now), IdemKey: s.PaymentID, OrderID: s.OrderID, Method: s.Method, Currency: s.Currency,
		Decimals: s.Decimals, Amount: new(big.Int).Set(s.Amount), Received: new(big.Int), Captured: new(big.Int), Refunded: new(big.Int),
		Status: rampway.FiatPending, ReturnURL: s.ReturnURL, CreatedAt: now, UpdatedAt: now}
	if rampway.IsBankTransfer(s.Method) {
		pay.Reference = "RW-" + randomRef(5)
	}
	pay, err := p.store.SandboxCreate(ctx, pay)
	if err != nil {
		return nil, fmt.Errorf("sandbox: start: %w", err)
	}
	return &rampway.ProviderPayment{Ref: pay.ID, Status: pay.Status, Reference: pay.Reference, Next: p.next(pay)}, nil
}

// next is what a payment asks of the user.
func (p *Provider) next(pay *Payment) *rampway.NextAction {
	return NextAction(p.pages(), pay.ID, pay.Method, pay.Reference)
}

// NextAction is what a sandbox payment (id, method, bank reference) asks of the user, its
// pages under pages: what the sandbox answers when it starts one (also what a filled
// database's payments hold, rampway-bench fill).
func NextAction(pages, id, method, reference string) *rampway.NextAction {
	base := pages + "/pay/" + id
	switch method {
	case rampway.MethodCard:
		return &rampway.NextAction{Kind: "card_form", URL: base + "/card"}
	case rampway.MethodApplePay, rampway.MethodGooglePay:
		return &rampway.NextAction{Kind: "wallet", URL: base + "/wallet"}
	case rampway.MethodSEPABankTransfer:
		return &rampway.NextAction{Kind: "bank_transfer", Bank: &rampway.BankAccount{Beneficiary: "rampway sandbox (test data only)",
			IBAN: "DE89370400440532013000", BIC: "COBADEFFXXX", Reference: reference}}
	case rampway.MethodGBPBankTransfer:
		return &rampway.NextAction{Kind: "bank_transfer", Bank: &rampway.BankAccount{Beneficiary: "rampway sandbox (test data only)",
			SortCode: "04-00-04", Account: "12345678", Reference: reference}}
	}
	return &rampway.NextAction{Kind: "redirect", URL: base + "/approve"}
}

// Payment implements rampway.FiatProvider.
func (p *Provider) Payment(ctx context.Context, ref string) (*rampway.ProviderPayment, error) {
	pay, err := p.payment(ctx, ref)
	if err != nil {
		return nil, err
	}
	pp := &rampway.ProviderPayment{Ref: pay.ID, Status: pay.Status, Reference: pay.Reference, CardBrand: pay.CardBrand, CardLast4: pay.CardLast4,
		FailureReason: pay.FailureReason, Received: new(big.Int).Set(pay.Received)}
	pp.Held = new(big.Int).Add(pay.Received, pay.Captured)
	pp.Held.Sub(pp.Held, pay.Refunded)
	switch pay.Status {
	case rampway.FiatPending:
		pp.Next = p.next(pay)
	case rampway.FiatProcessing:
		pp.Next = &rampway.NextAction{Kind: "redirect", URL: p.challengeURL(pay)}
	}
	return pp, nil
}

// challengeURL is a card payment's 3-D Secure page.
func (p *Provider) challengeURL(pay *Payment) string {
	return p.pages() + "/pay/" + pay.ID + "/3ds"
}

// eventBody is a notification as the sandbox sends it.
type eventBody struct {
	ID      string    `json:"id"`
	Type    string    `json:"type"`
	Created int64     `json:"created"`
	Data    eventData `json:"data"`
}

type eventData struct {
	Payment   paymentJSON `json:"payment"`
	Credit    string      `json:"credit,omitempty"`
	Amount    string      `json:"amount,omitempty"`
	ActionKey string      `json:"action_key,omitempty"`
	Reason    string      `json:"failure_reason,omitempty"`
	NextURL   string      `json:"next_url,omitempty"`
}

type paymentJSON struct {
	ID        string `json:"id"`
	Status    string `json:"status"`
	Method    string `json:"method"`
	Currency  string `json:"currency"`
	Amount    string `json:"amount"`
	Received  string `json:"received"`
	Captured  string `json:"captured"`
	Refunded  string `json:"refunded"`
	CardBrand string `json:"card_brand,omitempty"`
	CardLast4 string `json:"card_last4,omitempty"`
	OrderID   string `json:"order_id"`
}

// event makes a notification of a payment as it is now.
func (p *Provider) event(pay *Payment, typ string, d eventData) Event {
	now := p.at()
	d.Payment = paymentJSON{ID: pay.ID, Status: string(pay.Status), Method: pay.Method, Currency: pay.Currency, Amount: pay.Amount.String(),
		Received: pay.Received.String(), Captured: pay.Captured.String(), Refunded: pay.Refunded.String(), CardBrand: pay.CardBrand,
		CardLast4: pay.CardLast4, OrderID: pay.OrderID}
	id := rampway.NewID("sbe", now)
	body, _ := json.Marshal(eventBody{ID: id, Type: typ, Created: now.Unix(), Data: d}) // plain strings: never fails
	return Event{ID: id, Body: body}
}

// move changes a payment from its status to another, with the notification of it.
func (p *Provider) move(ctx context.Context, pay *Payment, typ string, change func(*Payment), d eventData, call *Call) error {
	from := pay.Status
	change(pay)
	if d.Reason != "" {
		pay.FailureReason = d.Reason
	}
	pay.UpdatedAt = p.at()
	if err := p.store.SandboxUpdate(ctx, pay, from, []Event{p.event(pay, typ, d)}, call); err != nil {
		return err
	}
	select { // the notification goes out now, not at the next tick
	case p.wake <- struct{}{}:
	default:
	}
	return nil
}

// remembered answers a call made before under key.
func (p *Provider) remembered(ctx context.Context, key, kind string) (*Call, error) {
	c, err := p.store.SandboxCall(ctx, key)
	if err != nil || c == nil {
		return nil, err
	}
	if c.Kind != kind {
		return nil, fmt.Errorf("sandbox: idempotency key %s was used for a %s", key, c.Kind)
	}
	return c, nil
}

func (p *Provider) payment(ctx context.Context, ref string) (*Payment, error) {
	pay, err := p.store.SandboxPayment(ctx, ref, false)
	if err != nil {
		return nil, fmt.Errorf("sandbox: payment %s: %w", ref, err)
	}
	return pay, nil
}

// Capture implements rampway.FiatProvider.
func (p *Provider) Capture(ctx context.Context, ref string, amount *big.Int, key string) error {
	if c, err := p.remembered(ctx, key, "capture"); err != nil || c != nil {
		return err
	}
	pay, err := p.payment(ctx, ref)
	if err != nil {
		return err
	}
	if pay.Status != rampway.FiatAuthorized {
		return fmt.Errorf("sandbox: payment %s is %s: only an authorised payment is captured", ref, pay.Status)
	}
	if amount.Sign() <= 0 || amount.Cmp(pay.Amount) > 0 {
		return fmt.Errorf("sandbox: capture of %s is not between 1 and the authorised %s", amount, pay.Amount)
	}
	return p.move(ctx, pay, rampway.ProviderPaymentCaptured, func(x *Payment) {
		x.Status, x.Captured = rampway.FiatSucceeded, new(big.Int).Set(amount)
	}, eventData{ActionKey: key}, &Call{Key: key, PaymentID: pay.ID, Kind: "capture"})
}

// Void implements rampway.FiatProvider.
func (p *Provider) Void(ctx context.Context, ref string, key string) error {
	if c, err := p.remembered(ctx, key, "void"); err != nil || c != nil {
		return err
	}
	pay, err := p.payment(ctx, ref)
	if err != nil {
		return err
	}
	switch pay.Status {
	case rampway.FiatPending, rampway.FiatProcessing, rampway.FiatAuthorized:
	default:
		return fmt.Errorf("sandbox: payment %s is %s: it cannot be voided", ref, pay.Status)
	}
	return p.move(ctx, pay, rampway.ProviderPaymentVoided, func(x *Payment) { x.Status = rampway.FiatVoided },
		eventData{ActionKey: key}, &Call{Key: key, PaymentID: pay.ID, Kind: "void"})
}

// Refund implements rampway.FiatProvider.
func (p *Provider) Refund(ctx context.Context, ref string, amount *big.Int, key string) (string, error) {
	if c, err := p.remembered(ctx, key, "refund"); err != nil || c != nil {
		if c != nil {
			return c.Result, nil
		}
		return "", err
	}
	pay, err := p.payment(ctx, ref)
	if err != nil {
		return "", err
	}
	if pay.Method == rampway.MethodCard && pay.CardLast4 == CardRefundFails[len(CardRefundFails)-4:] {
		return "", fmt.Errorf("sandbox: %w: the card's issuer refused the refund of payment %s (test card %s)", rampway.ErrProviderRefused, ref, CardRefundFails)
	}
	paid := new(big.Int).Add(pay.Received, pay.Captured)
	left := new(big.Int).Sub(paid, pay.Refunded)
	if amount.Sign() <= 0 || amount.Cmp(left) > 0 {
		return "", fmt.Errorf("sandbox: refund of %s is not between 1 and the %s left on payment %s", amount, left, ref)
	}
	id := rampway.NewID("sbr", p.at())
	err = p.move(ctx, pay, rampway.ProviderPaymentRefunded, func(x *Payment) {
		x.Refunded = new(big.Int).Add(x.Refunded, amount)
		if x.Refunded.Cmp(paid) == 0 {
			x.Status = rampway.FiatRefunded
		}
	}, eventData{ActionKey: key, Amount: amount.String()}, &Call{Key: key, PaymentID: pay.ID, Kind: "refund", Result: id})
	return id, err
}

// BankTransfer tells the sandbox that a bank transfer arrived for the payment with this
// reference: amount in major units (a decimal string), in currency. Any amount, any number
// of times. ENOTFOUND for an unknown reference, EINVALID for a bad amount or currency.
func (p *Provider) BankTransfer(ctx context.Context, reference, amount, currency string) (string, error) {
	pay, err := p.store.SandboxPayment(ctx, strings.TrimSpace(reference), true)
	if rampway.ErrorCode(err) == rampway.ENOTFOUND {
		return "", rampway.Errorf(rampway.ENOTFOUND, "no bank transfer payment has the reference %q", rampway.Echo(reference))
	} else if err != nil {
		return "", err
	}
	if currency != pay.Currency {
		return "", rampway.FieldErrorf("currency", "currency must be %s, the payment's", pay.Currency)
	}
	v, err := rampway.ParseUnits(amount, pay.Decimals)
	if err != nil || v.Sign() <= 0 {
		return "", rampway.FieldErrorf("amount", "amount must be a positive decimal with at most %d decimals, such as 25.50", pay.Decimals)
	}
	return p.credit(ctx, pay, v)
}

// credit records money pushed to a payment.
func (p *Provider) credit(ctx context.Context, pay *Payment, v *big.Int) (string, error) {
	credit := rampway.NewID("sbc", p.at())
	for {
		err := p.move(ctx, pay, rampway.ProviderPaymentCredited, func(x *Payment) {
			x.Received = new(big.Int).Add(x.Received, v)
			x.Status = rampway.FiatSucceeded
		}, eventData{Credit: credit, Amount: v.String()}, nil)
		if rampway.ErrorCode(err) != rampway.ECONFLICT {
			return credit, err
		}
		// Another change came first: credit the payment as it is now.
		if pay, err = p.store.SandboxPayment(ctx, pay.ID, false); err != nil {
			return "", err
		}
	}
}

// ParseWebhook implements rampway.FiatProvider.
func (p *Provider) ParseWebhook(h http.Header, body []byte, now time.Time) (*rampway.ProviderEvent, error) {
	if err := Verify(p.cfg.Secret, h.Get(SignatureHeader), body, now); err != nil {
		return nil, err
	}
	var e eventBody
	if err := json.Unmarshal(body, &e); err != nil {
		return nil, fmt.Errorf("malformed notification: %w", err)
	}
	if e.ID == "" || e.Type == "" || e.Data.Payment.ID == "" {
		return nil, errors.New("malformed notification: id, type and data.payment.id are required")
	}
	ev := &rampway.ProviderEvent{ID: e.ID, Type: e.Type, PaymentRef: e.Data.Payment.ID, Status: rampway.FiatPaymentStatus(e.Data.Payment.Status),
		Credit: e.Data.Credit, CardBrand: e.Data.Payment.CardBrand, CardLast4: e.Data.Payment.CardLast4, FailureReason: e.Data.Reason,
		ActionKey: e.Data.ActionKey, NextURL: e.Data.NextURL}
	if !ev.Status.Valid() {
		return nil, fmt.Errorf("malformed notification: status %q", e.Data.Payment.Status)
	}
	if v, ok := new(big.Int).SetString(e.Data.Payment.Received, 10); ok {
		ev.Received = v // what the payment had received when this was sent
	}
	if e.Data.Amount != "" {
		v, ok := new(big.Int).SetString(e.Data.Amount, 10)
		if !ok || v.Sign() < 0 {
			return nil, fmt.Errorf("malformed notification: amount %q", e.Data.Amount)
		}
		ev.Amount = v
	}
	if e.Type == rampway.ProviderPaymentCredited && (ev.Credit == "" || ev.Amount == nil) {
		return nil, errors.New("malformed notification: a credit needs data.credit and data.amount")
	}
	return ev, nil
}

// Sign returns the signature header value of body at t.
func Sign(secret, body []byte, t time.Time) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(ts + "."))
	m.Write(body)
	return "t=" + ts + ",v1=" + hex.EncodeToString(m.Sum(nil))
}

// Verify checks a signature header made by Sign, at most Tolerance old (or early).
func Verify(secret []byte, header string, body []byte, now time.Time) error {
	var ts string
	var sigs []string
	for part := range strings.SplitSeq(header, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			sigs = append(sigs, v)
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || len(sigs) == 0 {
		return errors.New("missing or malformed " + SignatureHeader + " header")
	}
	if d := now.Sub(time.Unix(sec, 0)); d > Tolerance || d < -Tolerance {
		return errors.New("the signature's timestamp is outside the tolerance")
	}
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(ts + "."))
	m.Write(body)
	want := hex.EncodeToString(m.Sum(nil))
	for _, s := range sigs {
		if hmac.Equal([]byte(s), []byte(want)) {
			return nil
		}
	}
	return errors.New("no valid signature")
}

// Deliver sends the due notifications once: each POSTed, signed, to the webhook URL; a 2xx
// answer delivers it, anything else makes it due again 5 seconds later.
// It returns how many were delivered.
func (p *Provider) Deliver(ctx context.Context) (int, error) {
	evs, err := p.store.SandboxDueEvents(ctx, p.at(), 100)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range evs {
		ok := p.post(ctx, e)
		now := p.at()
		if err := p.store.SandboxEventSent(ctx, e.ID, ok, now.Add(5*time.Second), now); err != nil {
			return n, err
		}
		if ok {
			n++
		}
	}
	return n, nil
}

func (p *Provider) post(ctx context.Context, e Event) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.cfg.WebhookURL, strings.NewReader(string(e.Body)))
	if err != nil {
		return false
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(SignatureHeader, Sign(p.cfg.Secret, e.Body, p.now()))
	resp, err := p.client.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode/100 == 2
}

// Run delivers notifications every interval, and at once when one is made, until ctx ends.
func (p *Provider) Run(ctx context.Context, interval time.Duration, onErr func(error)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if _, err := p.Deliver(ctx); err != nil && ctx.Err() == nil && onErr != nil {
			onErr(err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-p.wake:
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
