package rampway

import (
	"context"
	"errors"
	"math/big"
	"net/http"
	"time"
)

// This file holds the fiat side of areas B and C: a payment a user makes through a payment
// provider, the provider's notifications about it, and the money movements (capture, void,
// refund) an order's causes ask of the provider.

// ID prefixes of the fiat records.
const (
	PrefixFiatPayment = "fpy"
	PrefixFiatAction  = "fac"
)

// FiatFlow is how a payment method moves money.
type FiatFlow string

// The flows.
const (
	// FlowAuthorise: cards and wallets. The provider authorises (holds) the amount; the order
	// is executed; then the authorisation is captured, or voided when the execution fails.
	FlowAuthorise FiatFlow = "authorise"
	// FlowPush: bank transfers, open banking and the redirect wallets. The user sends the money;
	// what cannot be used (short, late, twice, an order that fails) is refunded.
	FlowPush FiatFlow = "push"
)

// MethodFlow returns how a payment method id moves money.
func MethodFlow(method string) FiatFlow {
	switch method {
	case MethodCard, MethodApplePay, MethodGooglePay:
		return FlowAuthorise
	}
	return FlowPush
}

// Payment method ids the providers know (the spec's list).
const (
	MethodCard             = "credit_debit_card"
	MethodApplePay         = "apple_pay"
	MethodGooglePay        = "google_pay"
	MethodSEPABankTransfer = "sepa_bank_transfer"
	MethodGBPBankTransfer  = "gbp_bank_transfer"
	MethodOpenBanking      = "pm_open_banking"
	MethodCashApp          = "pm_cash_app"
	MethodJWire            = "pm_jwire"
	// MethodSEPADebit is a SEPA Direct Debit the user mandates on the page (a
	// provider's direct debit): pushed like a transfer, the money arriving days later.
	MethodSEPADebit = "sepa_debit"
)

// SettlesLate reports whether a method's money arrives days after the user acts (a bank
// transfer, a direct debit): its orders wait the bank transfer expiry, not the order expiry.
func SettlesLate(method string) bool {
	return IsBankTransfer(method) || method == MethodSEPADebit
}

// IsBankTransfer reports whether a method is a bank transfer the user makes from their bank
// (account details and a reference on the page; the money arrives when the bank sends it).
func IsBankTransfer(method string) bool {
	return method == MethodSEPABankTransfer || method == MethodGBPBankTransfer
}

// FiatPaymentStatus is where a fiat payment is at its provider.
type FiatPaymentStatus string

// Fiat payment states, in the order they happen. Voided and refunded end one; failed ends an
// attempt, and may be followed by another attempt on the same payment that is authorised or
// succeeds (a card payment confirmed again after a decline).
const (
	// FiatPending: started; the provider waits for the user (card form, bank transfer, approval).
	FiatPending FiatPaymentStatus = "pending"
	// FiatProcessing: the user acted; the provider is deciding (a 3-D Secure challenge, an
	// approval page).
	FiatProcessing FiatPaymentStatus = "processing"
	// FiatAuthorized: the amount is held on the user's card or wallet, to be captured.
	FiatAuthorized FiatPaymentStatus = "authorized"
	// FiatSucceeded: the money is ours: captured, or pushed and credited.
	FiatSucceeded FiatPaymentStatus = "succeeded"
	// FiatFailed: declined, authentication failed, or rejected by the user; nothing moved.
	FiatFailed FiatPaymentStatus = "failed"
	// FiatVoided: an authorisation released; nothing was charged.
	FiatVoided FiatPaymentStatus = "voided"
	// FiatRefunded: what was received went back, all of it.
	FiatRefunded FiatPaymentStatus = "refunded"
)

// rank orders the states by a payment's lifecycle at its provider: a notification never moves
// a payment back (provider notifications arrive in any order). A failed attempt ranks below an
// authorisation and a success: the payment may be confirmed again after a decline and then be
// authorised (its decline does not hide that), and a decline heard after the authorisation is
// an older attempt's, which leaves the payment as the provider last left it.
func (s FiatPaymentStatus) rank() int {
	switch s {
	case FiatPending:
		return 0
	case FiatProcessing:
		return 1
	case FiatFailed:
		return 2
	case FiatAuthorized:
		return 3
	case FiatSucceeded:
		return 4
	case FiatVoided, FiatRefunded:
		return 5
	}
	return -1
}

// Valid reports whether s is a fiat payment state.
func (s FiatPaymentStatus) Valid() bool { return s.rank() >= 0 }

// FiatPayment is one attempt of a user to pay an order in fiat through a provider. A declined
// card is one payment; the card tried next is another.
type FiatPayment struct {
	ID       string
	OrderID  string
	Provider string
	// ProviderRef is the provider's id of the payment ("" until the provider has one).
	ProviderRef string
	Method      string
	Currency    string
	// Amount is what the order asks, in the currency's minor units; Received is what a push
	// payment brought in (it may be more or less, or arrive more than once).
	Amount   *big.Int
	Received *big.Int
	Decimals uint8
	Status   FiatPaymentStatus
	// Reference is the text the user writes on a bank transfer.
	Reference string
	// CardBrand and CardLast4: all that is ever kept of a card.
	CardBrand string
	CardLast4 string
	// Next is what the user does next at the provider (nil once nothing is asked).
	Next          *NextAction
	FailureReason string
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// NextAction is what a payment asks of the user, as the provider said when it was started.
type NextAction struct {
	// Kind: "card_form" (post card details to URL), "wallet" (a wallet sheet at URL),
	// "redirect" (approve at URL), "bank_transfer" (send money to Bank).
	Kind string            `json:"kind"`
	URL  string            `json:"url,omitempty"`
	Bank *BankAccount      `json:"bank,omitempty"`
	Meta map[string]string `json:"meta,omitempty"`
}

// BankAccount is where the user sends a bank transfer.
type BankAccount struct {
	Beneficiary string `json:"beneficiary"`
	IBAN        string `json:"iban,omitempty"`
	BIC         string `json:"bic,omitempty"`
	SortCode    string `json:"sort_code,omitempty"`
	Account     string `json:"account_number,omitempty"`
	Reference   string `json:"reference"`
}

// FiatActionKind names a money movement asked of a provider.
type FiatActionKind string

// The movements.
const (
	ActionCapture FiatActionKind = "capture"
	ActionVoid    FiatActionKind = "void"
	ActionRefund  FiatActionKind = "refund"
)

// FiatActionStatus is a fiat action's state.
type FiatActionStatus string

// Fiat action states.
const (
	ActionPending FiatActionStatus = "pending" // to be asked of the provider (again)
	ActionDone    FiatActionStatus = "done"    // the provider did it
	// ActionNeedsOperator: the provider kept refusing it (or could not be reached) for longer
	// than the give-up time: an operator retries it or resolves it by hand.
	ActionNeedsOperator FiatActionStatus = "needs_operator"
	// ActionResolved: an operator did it by hand at the provider (or found nothing to do).
	ActionResolved FiatActionStatus = "resolved"
	// ActionFailed: the provider refused a merchant refund's action for good, or kept
	// refusing it past the give-up time: the refund failed (its merchant asks for another);
	// it is never tried again.
	ActionFailed FiatActionStatus = "failed"
)

// FiatAction is a capture, void or refund that an order's cause asked for: recorded in the
// transaction of the cause, then done by the fiat worker, with the action's id as the
// provider's idempotency key (so a retry after a crash never moves money twice).
type FiatAction struct {
	ID        string
	OrderID   string
	PaymentID string
	Kind      FiatActionKind
	// Amount in the payment's minor units (capture and refund; a void releases it all).
	Amount   *big.Int
	Currency string
	// Cause makes the action once per cause ("capture", "void", "refund:failed",
	// "refund:credit:<id>").
	Cause  string
	Reason string
	Status FiatActionStatus
	// RetryFrom is when its give-up clock started: its creation, or an operator's retry.
	RetryFrom time.Time
	// ResolvedNote is what the operator who resolved it by hand said they did.
	ResolvedNote string
	// ProviderRef is the provider's id of the movement (a refund's), once done.
	ProviderRef   string
	Attempts      int
	LastError     string
	NextAttemptAt time.Time
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// StartFiatPayment is what a provider is asked to start a payment with.
type StartFiatPayment struct {
	// PaymentID is ours; the provider uses it as the idempotency key of the start (a retry
	// returns the same payment).
	PaymentID string
	OrderID   string
	Amount    *big.Int // minor units
	Currency  string
	Decimals  uint8
	Method    string
	// ReturnURL is where the provider sends the user back (the checkout page).
	ReturnURL string
	// Livemode is the order's mode: a provider refuses to start a payment of the other mode
	// than its own (ModeMatches).
	Livemode bool
}

// ProviderPayment is a payment as its provider states it.
type ProviderPayment struct {
	Ref       string
	Status    FiatPaymentStatus
	Reference string
	Next      *NextAction
	// CardBrand, CardLast4 and FailureReason, when the provider has them (Payment's answer).
	CardBrand, CardLast4 string
	FailureReason        string
	// Received is what a push payment has received in all; nil when the provider does not say.
	Received *big.Int
	// Held is what the provider holds of the payment for rampway now: captured or received,
	// less refunded, in minor units (the ledger's reconciliation compares it with the
	// payment's transfers); nil when the provider does not say.
	Held *big.Int
}

// ProviderPaymentSynced is the type of the event a payment's state read from its provider is
// applied as (FiatProvider.Payment): its id is "sync:<ref>:<status>", so that a state is
// applied once, whether it comes this way or as the provider's own notification.
const ProviderPaymentSynced = "payment.synced"

// SyncEvent is the event of a payment's state read from its provider.
func SyncEvent(pp *ProviderPayment) *ProviderEvent {
	ev := &ProviderEvent{ID: "sync:" + pp.Ref + ":" + string(pp.Status), Type: ProviderPaymentSynced, PaymentRef: pp.Ref, Status: pp.Status,
		CardBrand: pp.CardBrand, CardLast4: pp.CardLast4, FailureReason: pp.FailureReason, Received: pp.Received}
	if pp.Status == FiatProcessing && pp.Next != nil {
		ev.NextURL = pp.Next.URL
	}
	return ev
}

// ProviderEvent is a provider's notification, verified and parsed.
type ProviderEvent struct {
	// ID is the provider's event id: an event is applied once.
	ID   string
	Type string
	// PaymentRef is the payment it is about (the provider's id).
	PaymentRef string
	// Status is the payment's state as of this event.
	Status FiatPaymentStatus
	// Credit and Amount: a push payment's money arrived (one credit per arrival, with its own
	// id), Amount in minor units.
	Credit string
	Amount *big.Int
	// CardBrand and CardLast4 of the card or wallet that paid.
	CardBrand, CardLast4 string
	FailureReason        string
	// ActionKey is the idempotency key of the capture, void or refund it confirms (our
	// FiatAction's id), if any.
	ActionKey string
	// NextURL is where the user completes a payment that waits on them (a 3-D Secure
	// challenge), for a processing one.
	NextURL string
	// Received is what the payment had received in all (pushed money) when the provider sent
	// the event; nil when the provider does not say.
	Received *big.Int
}

// Provider event types.
const (
	ProviderPaymentProcessing = "payment.processing"
	ProviderPaymentAuthorized = "payment.authorized"
	ProviderPaymentFailed     = "payment.failed"
	ProviderPaymentCredited   = "payment.credited"
	ProviderPaymentCaptured   = "payment.captured"
	ProviderPaymentVoided     = "payment.voided"
	ProviderPaymentRefunded   = "payment.refunded"
)

// ErrEventNotRead is a provider's answer (wrapped) to a verified notification of a kind it
// does not act on: acknowledged and ignored, never an error to the provider (which would
// send it again for days).
var ErrEventNotRead = errors.New("a notification of a kind the provider does not act on")

// ErrProviderRefused is wrapped by a provider's error for a call it refuses for good (a refund
// the card's issuer refuses, an amount the payment cannot take back): asking again would not
// change its answer. The fiat worker gives up on such an action at once.
var ErrProviderRefused = errors.New("refused by the provider")

// FiatProvider is a payment provider: it starts payments and moves their money, and its
// notifications reach rampway through its signed webhook route.
type FiatProvider interface {
	// Name is the provider's config name and the {name} of /providers/{name}/webhook.
	Name() string
	// Livemode is the mode the provider serves: false for test data only (a test-only provider, a
	// provider's test keys), true for real money. It serves orders of its mode and no others.
	Livemode() bool
	// Methods are the payment method ids it takes.
	Methods() []string
	// Start starts a payment, idempotently under p.PaymentID.
	Start(ctx context.Context, p StartFiatPayment) (*ProviderPayment, error)
	// Payment reads a payment's state (a user back from the provider's page may be faster
	// than its notification).
	Payment(ctx context.Context, ref string) (*ProviderPayment, error)
	// Capture takes an authorised amount; Void releases it; Refund sends amount back. Each is
	// idempotent under key: asked again, it does nothing more and succeeds. Refund returns
	// the provider's refund id.
	Capture(ctx context.Context, ref string, amount *big.Int, key string) error
	Void(ctx context.Context, ref string, key string) error
	Refund(ctx context.Context, ref string, amount *big.Int, key string) (string, error)
	// ParseWebhook verifies a notification's signature and parses it. An error is a bad
	// signature or a malformed body: nothing is applied.
	ParseWebhook(h http.Header, body []byte, now time.Time) (*ProviderEvent, error)
}

// FormFirst is implemented by a provider whose form for a method is a page of rampway's own (an
// in-process provider's card form): the checkout page shows the form before the payment exists, and its post
// starts the payment and is handed on to the provider's form (a 307, which the browser posts
// again), so that a GET of the page starts nothing while the form is there at once.
type FormFirst interface {
	FormFirst(method string) bool
}

// FiatPaymentStore keeps fiat payments, provider events and fiat actions.
type FiatPaymentStore interface {
	// CreateFiatPayment stores a new payment of an order (before the provider is asked).
	CreateFiatPayment(ctx context.Context, p *FiatPayment) error
	// SetFiatPaymentStarted stores what the provider answered to a start.
	SetFiatPaymentStarted(ctx context.Context, id string, pp *ProviderPayment, at time.Time) error
	// FiatPayments returns an order's payments, oldest first.
	FiatPayments(ctx context.Context, orderID string) ([]*FiatPayment, error)
	// ApplyProviderEvent applies a provider's event once: in one transaction the event id is
	// recorded (a duplicate returns false and changes nothing), its payment and the payment's
	// order are locked, ApplyFiatEvent decides, and the payment, the order and what the cause
	// brings (events, webhook deliveries, fiat actions) are written. ENOTFOUND for an unknown
	// payment.
	ApplyProviderEvent(ctx context.Context, provider string, ev *ProviderEvent, at time.Time) (bool, error)
	// FiatActions returns an order's fiat actions, oldest first.
	FiatActions(ctx context.Context, orderID string) ([]*FiatAction, error)
	// ClaimFiatActions leases up to limit pending actions due at now until now+lease.
	ClaimFiatActions(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]*FiatAction, error)
	// FinishFiatAction records an attempt at an action: status ActionDone (with the provider's
	// ref), ActionPending (failed this time, due again at next, with its error),
	// ActionNeedsOperator (failed, and given up on: its error kept for the operator) or, for
	// a merchant refund's action only, ActionFailed (refused for good). A merchant refund's
	// action done or failed ends its refund in the same transaction (done with the provider's
	// ref, or failed with the error), which its order hears of.
	FinishFiatAction(ctx context.Context, id string, status FiatActionStatus, providerRef, lastErr string, next, at time.Time) error
	// FiatActionsByStatus lists actions in a status, oldest change first, after the action id
	// after (a cursor; "" from the start), at most limit.
	FiatActionsByStatus(ctx context.Context, status FiatActionStatus, after string, limit int) ([]*FiatAction, error)
	// RetryFiatAction makes an action that needs an operator pending again, due at at, its
	// give-up clock started over. ENOTFOUND; ECONFLICT when it does not need an operator.
	RetryFiatAction(ctx context.Context, id string, at time.Time) (*FiatAction, error)
	// ResolveFiatAction records that an operator did an action that needed one by hand (note
	// says what). ENOTFOUND; ECONFLICT when it does not need an operator.
	ResolveFiatAction(ctx context.Context, id, note string, at time.Time) (*FiatAction, error)
}

// ApplyFiatEvent decides what a provider's event does to a payment, as a pure function: the
// payment as it is after the event (never moved back by a late, older notification) and the
// cause it brings to the payment's order (nil for none). A payment's money arriving is a cause
// each time (FiatCredited, one per credit); the rest are causes when they move the payment on.
func ApplyFiatEvent(p *FiatPayment, ev *ProviderEvent, at time.Time) (*FiatPayment, Cause) {
	n := *p
	n.Amount, n.Received = cloneBig(p.Amount), cloneBig(p.Received)
	if ev.CardBrand != "" {
		n.CardBrand, n.CardLast4 = ev.CardBrand, ev.CardLast4
	}
	if ev.Type == ProviderPaymentCredited {
		if ev.Amount != nil && ev.Amount.Sign() > 0 {
			n.Received.Add(n.Received, ev.Amount)
		}
		if n.Status.rank() < FiatSucceeded.rank() || n.Status == FiatRefunded {
			n.Status = FiatSucceeded // new money, after an earlier transfer went back
		}
		n.UpdatedAt = at
		return &n, FiatCredited{Payment: &n, Credit: ev.Credit, Amount: cloneBig(ev.Amount)}
	}
	// A payment refunded in all when it had received less than the record has is older news
	// than a credit heard since: that money went back, the newer money did not.
	if ev.Status == FiatRefunded && ev.Received != nil && ev.Received.Cmp(n.Received) < 0 {
		return &n, nil
	}
	if !ev.Status.Valid() || ev.Status.rank() <= p.Status.rank() {
		return &n, nil // old news, or a duplicate state
	}
	n.Status, n.UpdatedAt = ev.Status, at
	// The reason is the latest failure's: a payment authorised or paid after a decline has none.
	n.FailureReason = ev.FailureReason
	switch {
	case IsBankTransfer(p.Method) && ev.Status != FiatFailed:
		// The account and the reference stay good: more money may come to them.
	case ev.Status != FiatProcessing && ev.Status != FiatPending:
		n.Next = nil
	}
	if ev.Status == FiatProcessing && ev.NextURL != "" {
		n.Next = &NextAction{Kind: "redirect", URL: ev.NextURL}
	}
	switch ev.Status {
	case FiatProcessing:
		return &n, FiatProcessingCause{Payment: &n}
	case FiatAuthorized:
		return &n, FiatAuthorizedCause{Payment: &n}
	case FiatSucceeded:
		if MethodFlow(p.Method) == FlowPush {
			return &n, nil // pushed money is credited by its own notifications, each once
		}
		if p.Status.rank() < FiatAuthorized.rank() {
			// A capture whose authorisation was not heard of (order-free notifications): it
			// was authorised first.
			return &n, FiatAuthorizedCause{Payment: &n}
		}
		return &n, nil
	case FiatFailed:
		return &n, FiatDeclined{Payment: &n, Reason: n.FailureReason}
	case FiatVoided, FiatRefunded:
		return &n, FiatReleased{Payment: &n}
	}
	return &n, nil
}

func cloneBig(v *big.Int) *big.Int {
	if v == nil {
		return new(big.Int)
	}
	return new(big.Int).Set(v)
}
