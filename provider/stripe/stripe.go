// Package stripe is the Stripe payment provider: a PaymentIntent per fiat payment, captured
// manually for cards, Apple Pay and Google Pay (authorise, execute, capture; cancel on
// failure), refunds, and Stripe's signed webhooks. The user pays on rampway's checkout page
// through Stripe's Payment Element, confirmed in the browser: card data never reaches rampway.
package stripe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"time"

	stripego "github.com/stripe/stripe-go/v85"
	"github.com/stripe/stripe-go/v85/webhook"

	"github.com/rampway/rampway"
)

// Name is the provider's config name and the {name} of its webhook route.
const Name = "stripe"

// Methods are the payment methods it takes: cards and the card wallets, which Stripe
// authorises and rampway captures once the order is executed; and SEPA Direct Debit, which
// Stripe collects (captured at once) and reports when the money has arrived, days later.
var Methods = []string{rampway.MethodCard, rampway.MethodApplePay, rampway.MethodGooglePay, rampway.MethodSEPADebit}

// Tolerance is how old a webhook's signature may be: Stripe's default (5 minutes).
const Tolerance = webhook.DefaultTolerance

// NextKind is the NextAction kind of a payment the page confirms with Stripe's Payment
// Element; its Meta holds client_secret and publishable_key.
const NextKind = "stripe_element"

// Config is the provider's keys (from the environment only) and, for tests, another API URL.
type Config struct {
	// Name is the instance's name (default Name): the {name} of its webhook route.
	Name           string
	SecretKey      string
	PublishableKey string
	WebhookSecret  string
	// APIURL replaces https://api.stripe.com (stripe-mock in tests); "" for Stripe.
	APIURL string
	// HTTPClient, when set, makes the API calls.
	HTTPClient *http.Client
}

// Provider is the Stripe provider.
type Provider struct {
	cfg    Config
	client *stripego.Client
}

// New returns the provider.
func New(cfg Config) (*Provider, error) {
	if cfg.SecretKey == "" || cfg.PublishableKey == "" || cfg.WebhookSecret == "" {
		return nil, errors.New("stripe: the secret key, the publishable key and the webhook secret are all required")
	}
	bc := &stripego.BackendConfig{MaxNetworkRetries: stripego.Int64(2), LeveledLogger: &stripego.LeveledLogger{Level: stripego.LevelNull}}
	if cfg.APIURL != "" {
		bc.URL = stripego.String(strings.TrimSuffix(cfg.APIURL, "/"))
	}
	if cfg.HTTPClient != nil {
		bc.HTTPClient = cfg.HTTPClient
	} else {
		bc.HTTPClient = &http.Client{Timeout: 30 * time.Second}
	}
	backends := &stripego.Backends{API: stripego.GetBackendWithConfig(stripego.APIBackend, bc)}
	return &Provider{cfg: cfg, client: stripego.NewClient(cfg.SecretKey, stripego.WithBackends(backends))}, nil
}

// Name implements rampway.FiatProvider.
func (p *Provider) Name() string {
	if p.cfg.Name == "" {
		return Name
	}
	return p.cfg.Name
}

// Methods implements rampway.FiatProvider.
func (p *Provider) Methods() []string { return Methods }

// Mode says whether the keys are test or live keys ("test", "live").
func (p *Provider) Mode() string {
	if strings.HasPrefix(p.cfg.SecretKey, "sk_live_") || strings.HasPrefix(p.cfg.SecretKey, "rk_live_") {
		return "live"
	}
	return "test"
}

// Livemode implements rampway.FiatProvider: live keys (sk_live_, rk_live_) take real money,
// test keys test data only.
func (p *Provider) Livemode() bool { return p.Mode() == rampway.ModeLive }

// Check asks Stripe for the account's balance: the key works (at start-up).
func (p *Provider) Check(ctx context.Context) error {
	if _, err := p.client.V1Balance.Retrieve(ctx, &stripego.BalanceRetrieveParams{}); err != nil {
		return fmt.Errorf("stripe: the secret key does not work: %w", err)
	}
	return nil
}

// Start implements rampway.FiatProvider: a PaymentIntent of the amount in minor units,
// captured manually, the order and our payment in its metadata, created under an idempotency
// key derived from our payment id (a retry returns the same intent, never a second one).
func (p *Provider) Start(ctx context.Context, s rampway.StartFiatPayment) (*rampway.ProviderPayment, error) {
	if err := rampway.ModeMatches("Stripe with "+p.Mode()+" keys", s.Livemode, p.Livemode()); err != nil {
		return nil, fmt.Errorf("stripe: start: %w", err)
	}
	if !s.Amount.IsInt64() || s.Amount.Sign() <= 0 {
		return nil, fmt.Errorf("stripe: amount %s is not a positive amount of minor units", s.Amount)
	}
	params := &stripego.PaymentIntentCreateParams{
		Amount:      stripego.Int64(s.Amount.Int64()),
		Currency:    stripego.String(strings.ToLower(s.Currency)),
		Description: stripego.String("Order " + s.OrderID),
	}
	switch {
	case s.Method == rampway.MethodSEPADebit:
		// Collected by Stripe once the user's mandate is confirmed; no manual capture.
		params.PaymentMethodTypes = []*string{stripego.String("sepa_debit")}
	case rampway.MethodFlow(s.Method) == rampway.FlowAuthorise:
		params.CaptureMethod = stripego.String(string(stripego.PaymentIntentCaptureMethodManual))
		params.PaymentMethodTypes = []*string{stripego.String("card")} // Apple Pay and Google Pay are card wallets
	default:
		return nil, fmt.Errorf("stripe: method %s is not taken", s.Method)
	}
	params.AddMetadata("order_id", s.OrderID)
	params.AddMetadata("payment_id", s.PaymentID)
	params.SetIdempotencyKey("rampway-start-" + s.PaymentID)
	pi, err := p.client.V1PaymentIntents.Create(ctx, params)
	if err != nil {
		return nil, fmt.Errorf("stripe: create the payment intent: %w", err)
	}
	// An intent waiting for a payment method takes one now, whatever an earlier attempt on it
	// left in last_payment_error (a retry of the start returns the same intent).
	if pi.Status == stripego.PaymentIntentStatusRequiresPaymentMethod {
		pi.LastPaymentError = nil
	}
	return p.payment(pi), nil
}

// Payment implements rampway.FiatProvider.
func (p *Provider) Payment(ctx context.Context, ref string) (*rampway.ProviderPayment, error) {
	params := &stripego.PaymentIntentRetrieveParams{}
	params.AddExpand("latest_charge") // its refunds: the payment's state and what Stripe holds
	pi, err := p.client.V1PaymentIntents.Retrieve(ctx, ref, params)
	if err != nil {
		return nil, fmt.Errorf("stripe: read the payment intent %s: %w", ref, err)
	}
	return p.payment(pi), nil
}

// payment is an intent as rampway states a payment.
func (p *Provider) payment(pi *stripego.PaymentIntent) *rampway.ProviderPayment {
	pp := &rampway.ProviderPayment{Ref: pi.ID, Status: Status(pi), Held: Held(pi)}
	if pp.Status == rampway.FiatPending || pp.Status == rampway.FiatProcessing {
		pp.Next = &rampway.NextAction{Kind: NextKind, Meta: map[string]string{"client_secret": pi.ClientSecret, "publishable_key": p.cfg.PublishableKey}}
	}
	if pi.LastPaymentError != nil {
		pp.FailureReason = pi.LastPaymentError.Msg
	}
	if pm := pi.PaymentMethod; pm != nil && pm.Card != nil {
		pp.CardBrand, pp.CardLast4 = string(pm.Card.Brand), pm.Card.Last4
	}
	return pp
}

// Held is what Stripe holds of an intent for rampway: what it received less what its charge
// refunded, in minor units; nil when the intent received money and its latest charge was not
// expanded (its refunds are not known).
func Held(pi *stripego.PaymentIntent) *big.Int {
	if pi.AmountReceived == 0 {
		return new(big.Int)
	}
	if c := pi.LatestCharge; c != nil && c.Object == "charge" {
		return big.NewInt(pi.AmountReceived - c.AmountRefunded)
	}
	return nil
}

// Status is an intent's state as a payment's: waiting for the user's card (pending, or failed
// when the last attempt was declined), deciding (processing, requires_action: 3-D Secure),
// authorised (requires_capture), ours (succeeded), released (canceled).
func Status(pi *stripego.PaymentIntent) rampway.FiatPaymentStatus {
	switch pi.Status {
	case stripego.PaymentIntentStatusRequiresPaymentMethod:
		if pi.LastPaymentError != nil {
			return rampway.FiatFailed
		}
		return rampway.FiatPending
	case stripego.PaymentIntentStatusRequiresConfirmation:
		return rampway.FiatPending
	case stripego.PaymentIntentStatusRequiresAction, stripego.PaymentIntentStatusProcessing:
		return rampway.FiatProcessing
	case stripego.PaymentIntentStatusRequiresCapture:
		return rampway.FiatAuthorized
	case stripego.PaymentIntentStatusSucceeded:
		if pi.AmountReceived > 0 && pi.LatestCharge != nil && pi.LatestCharge.Refunded {
			return rampway.FiatRefunded
		}
		return rampway.FiatSucceeded
	case stripego.PaymentIntentStatusCanceled:
		if pi.AmountReceived > 0 {
			return rampway.FiatSucceeded
		}
		return rampway.FiatVoided
	}
	return rampway.FiatPending
}

// Capture implements rampway.FiatProvider: the intent's authorised amount is captured, under
// key (a retry captures nothing more).
func (p *Provider) Capture(ctx context.Context, ref string, amount *big.Int, key string) error {
	params := &stripego.PaymentIntentCaptureParams{}
	if amount != nil {
		if !amount.IsInt64() {
			return fmt.Errorf("stripe: amount %s too large", amount)
		}
		params.AmountToCapture = stripego.Int64(amount.Int64())
	}
	params.SetIdempotencyKey("rampway-capture-" + key)
	if _, err := p.client.V1PaymentIntents.Capture(ctx, ref, params); err != nil {
		return fmt.Errorf("stripe: capture %s: %w", ref, err)
	}
	return nil
}

// Void implements rampway.FiatProvider: the intent is cancelled, releasing the authorisation.
func (p *Provider) Void(ctx context.Context, ref string, key string) error {
	params := &stripego.PaymentIntentCancelParams{}
	params.SetIdempotencyKey("rampway-void-" + key)
	if _, err := p.client.V1PaymentIntents.Cancel(ctx, ref, params); err != nil {
		return fmt.Errorf("stripe: cancel %s: %w", ref, err)
	}
	return nil
}

// Refund implements rampway.FiatProvider: a refund of amount (minor units) of the intent's
// charge, under key; it returns Stripe's refund id.
func (p *Provider) Refund(ctx context.Context, ref string, amount *big.Int, key string) (string, error) {
	params := &stripego.RefundCreateParams{PaymentIntent: stripego.String(ref)}
	if amount != nil {
		if !amount.IsInt64() {
			return "", fmt.Errorf("stripe: amount %s too large", amount)
		}
		params.Amount = stripego.Int64(amount.Int64())
	}
	params.AddMetadata("rampway_action", key)
	params.SetIdempotencyKey("rampway-refund-" + key)
	r, err := p.client.V1Refunds.Create(ctx, params)
	if err != nil {
		// What Stripe refuses for good (the payment refunded already, or disputed) is not asked
		// again; anything else (its API down, the charge not captured yet) is retried.
		var se *stripego.Error
		if errors.As(err, &se) && (se.Code == stripego.ErrorCodeChargeAlreadyRefunded || se.Code == stripego.ErrorCodeChargeDisputed) {
			return "", fmt.Errorf("stripe: refund %s: %w: %s", ref, rampway.ErrProviderRefused, se.Msg)
		}
		return "", fmt.Errorf("stripe: refund %s: %w", ref, err)
	}
	if r.Status == stripego.RefundStatusFailed || r.Status == stripego.RefundStatusCanceled {
		return "", fmt.Errorf("stripe: refund %s of %s is %s (%s): %w", r.ID, ref, r.Status, r.FailureReason, rampway.ErrProviderRefused)
	}
	return r.ID, nil
}

// Event types the provider reads; any other is acknowledged and ignored.
const (
	EventCapturable = "payment_intent.amount_capturable_updated"
	EventSucceeded  = "payment_intent.succeeded"
	EventFailed     = "payment_intent.payment_failed"
	EventCanceled   = "payment_intent.canceled"
	EventProcessing = "payment_intent.processing"
	EventRequires   = "payment_intent.requires_action"
	EventRefunded   = "charge.refunded"
)

// ParseWebhook implements rampway.FiatProvider: the Stripe-Signature header verified with the
// library (its tolerance, 5 minutes into the past: the library reads the clock) and its
// timestamp no more than the tolerance ahead of now (the library takes any future one), then
// the event read into a payment's state. A verified event of another type is
// rampway.ErrEventNotRead (acknowledged, nothing applied).
func (p *Provider) ParseWebhook(h http.Header, body []byte, now time.Time) (*rampway.ProviderEvent, error) {
	sig := h.Get("Stripe-Signature")
	for part := range strings.SplitSeq(sig, ",") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(part), "t="); ok {
			if ts, err := strconv.ParseInt(v, 10, 64); err == nil && time.Unix(ts, 0).After(now.Add(Tolerance)) {
				return nil, fmt.Errorf("stripe: the signature's timestamp %s is in the future (more than %s ahead)", time.Unix(ts, 0).UTC().Format(time.RFC3339), Tolerance)
			}
		}
	}
	ev, err := webhook.ConstructEventWithOptions(body, sig, p.cfg.WebhookSecret,
		webhook.ConstructEventOptions{Tolerance: Tolerance, IgnoreAPIVersionMismatch: true})
	if err != nil {
		return nil, fmt.Errorf("stripe: %w", err)
	}
	out := &rampway.ProviderEvent{ID: ev.ID, Type: string(ev.Type)}
	switch string(ev.Type) {
	case EventCapturable, EventSucceeded, EventFailed, EventCanceled, EventProcessing, EventRequires:
		var pi stripego.PaymentIntent
		if err := unmarshal(ev, &pi); err != nil {
			return nil, err
		}
		out.PaymentRef, out.Status = pi.ID, Status(&pi)
		if pi.LastPaymentError != nil {
			out.FailureReason = pi.LastPaymentError.Msg
		}
		if pm := pi.PaymentMethod; pm != nil && pm.Card != nil {
			out.CardBrand, out.CardLast4 = string(pm.Card.Brand), pm.Card.Last4
		}
		out.Type = map[string]string{EventCapturable: rampway.ProviderPaymentAuthorized, EventSucceeded: rampway.ProviderPaymentCaptured,
			EventFailed: rampway.ProviderPaymentFailed, EventCanceled: rampway.ProviderPaymentVoided, EventProcessing: rampway.ProviderPaymentProcessing,
			EventRequires: rampway.ProviderPaymentProcessing}[string(ev.Type)]
		if string(ev.Type) == EventSucceeded && pi.CaptureMethod != stripego.PaymentIntentCaptureMethodManual {
			// Collected by Stripe itself (SEPA Direct Debit): the money arrived, once.
			if pi.AmountReceived <= 0 {
				return nil, fmt.Errorf("stripe: event %s: a succeeded intent %s received nothing", ev.ID, pi.ID)
			}
			out.Type, out.Credit, out.Amount = rampway.ProviderPaymentCredited, pi.ID, big.NewInt(pi.AmountReceived)
		}
		if string(ev.Type) == EventFailed && out.Status == rampway.FiatPending {
			out.Status = rampway.FiatFailed
		}
	case EventRefunded:
		var ch stripego.Charge
		if err := unmarshal(ev, &ch); err != nil {
			return nil, err
		}
		if ch.PaymentIntent == nil || ch.PaymentIntent.ID == "" {
			return nil, errors.New("stripe: charge.refunded without its payment intent")
		}
		out.PaymentRef, out.Type, out.Status = ch.PaymentIntent.ID, rampway.ProviderPaymentRefunded, rampway.FiatSucceeded
		if ch.Refunded {
			out.Status = rampway.FiatRefunded
		}
	default:
		return nil, fmt.Errorf("stripe event %s of type %s: %w", ev.ID, ev.Type, rampway.ErrEventNotRead)
	}
	if out.PaymentRef == "" {
		return nil, fmt.Errorf("stripe: event %s names no payment intent", ev.ID)
	}
	return out, nil
}

func unmarshal(ev stripego.Event, v any) error {
	if ev.Data == nil || len(ev.Data.Raw) == 0 {
		return fmt.Errorf("stripe: event %s has no object", ev.ID)
	}
	if err := json.Unmarshal(ev.Data.Raw, v); err != nil {
		return fmt.Errorf("stripe: event %s: %w", ev.ID, err)
	}
	return nil
}
