package rampway

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// TimeFormat is how times appear in the API and in webhook events: ISO-8601 UTC, milliseconds.
const TimeFormat = "2006-01-02T15:04:05.000Z07:00"

// DeliveryStatus is a webhook delivery's state.
type DeliveryStatus string

// Delivery statuses.
const (
	DeliveryPending   DeliveryStatus = "pending"   // to be sent (again)
	DeliveryDelivered DeliveryStatus = "delivered" // a 2xx answered
	DeliveryFailed    DeliveryStatus = "failed"    // retried until the retry period ran out
)

// ErrMerchantDisabled is in the chain of the errors that refuse to send a disabled merchant's
// webhook deliveries (a resend: ECONFLICT; a dispatcher's read of the merchant's secrets).
var ErrMerchantDisabled = errors.New("merchant disabled")

// Delivery is a webhook event on its way to a merchant: the body is fixed when the event
// happens, so every attempt sends the same bytes with the same eventId.
//
// The deliveries of a disabled merchant are held: still written with every event, never
// attempted and never failed while it is disabled (the time held does not count toward the
// retry period); when the merchant is enabled again they are due at once, in event order, and
// their backoff starts over.
type Delivery struct {
	EventID string
	// EventSeq orders an order's events: they are delivered in this order.
	EventSeq   int64
	EventName  EventName
	OrderID    string
	MerchantID string
	// Livemode is its order's mode: it is signed with the merchant's secret of that mode.
	Livemode bool
	URL      string
	Body     []byte
	Status   DeliveryStatus
	Attempts int
	// NextAttemptAt is when it is due (pending ones).
	NextAttemptAt  time.Time
	LastStatusCode int
	LastError      string
	CreatedAt      time.Time
	UpdatedAt      time.Time
	DeliveredAt    *time.Time
	// HeldAt is when a pending delivery was held because its merchant is disabled (nil when it
	// is not held; a held delivery is not claimed).
	HeldAt *time.Time
	// RetryFrom is when the retry period started: CreatedAt, moved on by the time held.
	RetryFrom time.Time
	// BackoffFrom is how many of Attempts were made before the backoff started over (when
	// the merchant was enabled again): the next wait is the one after Attempts-BackoffFrom.
	BackoffFrom int
}

// Held reports whether the delivery waits for its merchant to be enabled again.
func (d *Delivery) Held() bool { return d.Status == DeliveryPending && d.HeldAt != nil }

// DeliveryAttempt is one POST of a delivery.
type DeliveryAttempt struct {
	EventID    string
	Attempt    int
	At         time.Time
	StatusCode int // 0 when no answer came
	Latency    time.Duration
	Error      string
}

// DeliveryStore keeps webhook deliveries: the outbox written with each order event.
type DeliveryStore interface {
	// ClaimDeliveries leases up to limit pending deliveries due at now until now+lease, the
	// oldest first, at most perMerchant of one merchant, never one whose order has an earlier
	// pending delivery (events of an order go out in order), never one leased by another
	// claim, none of the skipped merchants, none held and none of a disabled merchant.
	//
	// Disabling a merchant (MerchantStore.UpdateMerchant) holds its pending deliveries in the
	// same transaction, and those written while it is disabled are written held; enabling it
	// releases them, due at once, their retry period moved on by the time held and their
	// backoff started over (BackoffFrom).
	ClaimDeliveries(ctx context.Context, now time.Time, lease time.Duration, limit, perMerchant int, skipMerchants []string) ([]*Delivery, error)
	// ReleaseDelivery gives a claimed delivery back untouched.
	ReleaseDelivery(ctx context.Context, eventID string) error
	// RecordAttempt stores an attempt and the delivery's new state: delivered, failed, or
	// pending again at next.
	RecordAttempt(ctx context.Context, a *DeliveryAttempt, status DeliveryStatus, next time.Time) error
	// Deliveries returns an order's deliveries in event order.
	Deliveries(ctx context.Context, orderID string) ([]*Delivery, error)
	// DeliveryAttempts returns the attempts of an order's deliveries, in event order, each
	// delivery's oldest first (one read for an order's whole webhook log).
	DeliveryAttempts(ctx context.Context, orderID string) ([]*DeliveryAttempt, error)
	// ResendDelivery makes a delivery of the merchant pending and due at now again (same eventId
	// and body). ENOTFOUND for another merchant's; ECONFLICT (ErrMerchantDisabled in its chain)
	// while the merchant is disabled.
	ResendDelivery(ctx context.Context, merchantID, eventID string, now time.Time) (*Delivery, error)
	// DeferDeliveries makes a merchant's pending deliveries due before until, and not leased at
	// now, due at until (its endpoint keeps failing: claims then stop walking past them). It
	// returns how many it deferred.
	DeferDeliveries(ctx context.Context, merchantID string, now, until time.Time) (int64, error)
	// MerchantDeliveries returns up to limit of the merchant's deliveries of a mode whose event
	// comes after the event sequence number after, in event order (`rampway listen`'s stream).
	MerchantDeliveries(ctx context.Context, merchantID string, livemode bool, after int64, limit int) ([]*Delivery, error)
	// LastEventSeq is the sequence number of the latest order event of any merchant (0: none).
	LastEventSeq(ctx context.Context) (int64, error)
}

// EventContext is an order's public fields as webhook events carry them.
type EventContext struct {
	OrderID               string   `json:"order_id"`
	MerchantID            string   `json:"merchant_id"`
	MerchantTxnID         string   `json:"merchant_txn_id"`
	MerchantUserID        string   `json:"merchant_user_id"`
	Livemode              bool     `json:"livemode"`
	Status                string   `json:"status"`
	CryptoSymbol          string   `json:"crypto_symbol"`
	CryptoNetwork         string   `json:"crypto_network"`
	CryptoContractAddress *string  `json:"crypto_contract_address"`
	CryptoAmount          string   `json:"crypto_amount"`
	CryptoAmountReceived  string   `json:"crypto_amount_received"`
	DepositAddress        string   `json:"deposit_address"`
	DepositTxHashes       []string `json:"deposit_tx_hashes"`
	ExecutionTxHash       *string  `json:"execution_tx_hash"`
	FailureReason         *string  `json:"failure_reason"`
	// Refunds are the order's refund records, oldest first, as the order API shows them.
	Refunds []EventRefund `json:"refunds"`
	// RefundedAmount is what the order's merchant refunds paid back add up to, in its refund
	// currency (RefundCurrency).
	RefundedAmount string `json:"refunded_amount"`
	// Refund is the merchant refund an order.refund.pending, .succeeded or .failed event of one
	// is about.
	Refund *EventRefund `json:"refund,omitempty"`
	// The fiat side of areas B and C (absent for area A): the currency, amount and method
	// the user pays with.
	OrderFiatSymbol   string `json:"order_fiat_symbol,omitempty"`
	OrderFiatAmount   string `json:"order_fiat_amount,omitempty"`
	FiatPaymentMethod string `json:"fiat_payment_method,omitempty"`

	CreatedAt string `json:"created_at"`
	UpdatedAt string `json:"updated_at"`
}

// EventRefund is a refund record in an event's context, the order API and the merchant's
// refund routes: what is owed back to the payer of an order, in its currency (area A the
// order's asset, in whole units; areas B and C its fiat currency), why, and how it is paid
// back. Origin is "merchant" for a refund its merchant asked for, "automatic" for one rampway
// owes on its own. Fee and AmountSent are "" until it is sent (AmountSent = Amount - Fee; area
// A's fee is the network fee, also NetworkFee); TxHash is "" until then; ToAddress "" while
// the address is not known. Destination is where it goes (the address, or the fiat payment's
// card or method); ProviderReference the provider's id of a fiat refund once done.
type EventRefund struct {
	RefundID          string       `json:"refund_id"`
	Origin            string       `json:"origin"`
	Amount            string       `json:"amount"`
	Currency          string       `json:"currency"`
	Fee               string       `json:"fee"`
	NetworkFee        string       `json:"network_fee"`
	AmountSent        string       `json:"amount_sent"`
	Reason            string       `json:"reason"`
	Status            RefundStatus `json:"status"`
	StatusReason      string       `json:"status_reason"`
	Destination       string       `json:"destination"`
	ToAddress         string       `json:"to_address"`
	TxHash            string       `json:"tx_hash"`
	ProviderReference string       `json:"provider_reference"`
	CreatedAt         string       `json:"created_at"`
	UpdatedAt         string       `json:"updated_at"`
}

// Refund origins.
const (
	RefundOriginMerchant  = "merchant"
	RefundOriginAutomatic = "automatic"
)

// EventRefunds are refund records of order o as events and the order API show them.
func EventRefunds(refunds []*Refund, o *Order) []EventRefund {
	out := make([]EventRefund, len(refunds))
	for i, r := range refunds {
		out[i] = EventRefundOf(r, o)
	}
	return out
}

// EventRefundOf is refund r of order o as events and the order API show it.
func EventRefundOf(r *Refund, o *Order) EventRefund {
	symbol, _ := o.RefundCurrency()
	e := EventRefund{RefundID: r.ID, Origin: RefundOriginAutomatic, Amount: o.FormatRefundAmount(r.Amount), Currency: symbol, Reason: r.Reason,
		Status: r.Status, StatusReason: r.StatusReason, Destination: r.Destination, ProviderReference: r.ProviderRef,
		CreatedAt: r.CreatedAt.UTC().Format(TimeFormat), UpdatedAt: r.UpdatedAt.UTC().Format(TimeFormat)}
	if r.FromMerchant() {
		e.Origin = RefundOriginMerchant
	}
	if r.Fee != nil {
		e.Fee = o.FormatRefundAmount(r.Fee)
		if !r.Fiat() {
			e.NetworkFee = e.Fee
		}
	}
	if r.Sent != nil {
		e.AmountSent = o.FormatRefundAmount(r.Sent)
	}
	if r.To != ([20]byte{}) {
		e.ToAddress, e.Destination = r.To.Hex(), r.To.Hex()
	}
	if r.TxHash != ([32]byte{}) {
		e.TxHash = r.TxHash.Hex()
	}
	return e
}

// EventEnvelope is the body of a webhook POST.
type EventEnvelope struct {
	EventID   string       `json:"eventId"`
	Timestamp string       `json:"timestamp"`
	EventName EventName    `json:"eventName"`
	Context   EventContext `json:"context"`
}

// EventBody is the webhook body of event e of order o (as it is after the event), with the
// hashes of the payments seen for it and its refund records.
func EventBody(e *OrderEvent, o *Order, depositTxs []string, refunds []*Refund) ([]byte, error) {
	return EventBodyAbout(e, o, depositTxs, refunds, nil)
}

// EventBodyAbout is EventBody of an event about one of the order's refunds, subject (nil
// for none), which its context carries as "refund".
func EventBodyAbout(e *OrderEvent, o *Order, depositTxs []string, refunds []*Refund, subject *Refund) ([]byte, error) {
	d := o.Asset.Decimals
	c := EventContext{OrderID: o.ID, MerchantID: o.MerchantID, MerchantTxnID: o.MerchantTxnID, MerchantUserID: o.MerchantUserID,
		Livemode: o.Livemode, Status: string(o.Status), CryptoSymbol: o.Asset.Symbol, CryptoNetwork: o.Network, CryptoAmount: FormatUnits(o.CryptoAmount, d),
		CryptoAmountReceived: FormatUnits(o.CryptoReceived, d), DepositTxHashes: depositTxs, Refunds: EventRefunds(refunds, o),
		RefundedAmount: o.FormatRefundAmount(MerchantRefundTotals(o, refunds).Refunded),
		CreatedAt:      o.CreatedAt.UTC().Format(TimeFormat), UpdatedAt: o.UpdatedAt.UTC().Format(TimeFormat)}
	if !o.Asset.IsNative() {
		a := o.Asset.Contract.Hex()
		c.CryptoContractAddress = &a
	}
	if o.DepositAddress != ([20]byte{}) {
		c.DepositAddress = o.DepositAddress.Hex()
	}
	if o.PayoutAddress != ([20]byte{}) {
		c.DepositAddress = o.PayoutAddress.Hex() // area C: the merchant's, where the asset goes
	}
	if o.FiatSymbol != "" {
		c.OrderFiatSymbol, c.OrderFiatAmount, c.FiatPaymentMethod = o.FiatSymbol, FormatFixed(o.FiatAmount, o.FiatDecimals), o.FiatMethod
	}
	if c.DepositTxHashes == nil {
		c.DepositTxHashes = []string{}
	}
	if subject != nil {
		r := EventRefundOf(subject, o)
		c.Refund = &r
	}
	if o.ExecutionTxHash != "" {
		h := o.ExecutionTxHash
		c.ExecutionTxHash = &h
	}
	if o.FailureReason != "" {
		r := o.FailureReason
		c.FailureReason = &r
	}
	return json.Marshal(EventEnvelope{EventID: e.ID, Timestamp: e.CreatedAt.UTC().Format(TimeFormat), EventName: e.Name, Context: c})
}

// EventWebhookTest is the event a merchant asks for to check its endpoint (the dashboard's
// "Send test event"): about no order, sent once on request, never retried and not kept in
// the event log.
const EventWebhookTest EventName = "webhook.test"

// TestEventContext is the context of a webhook.test event: whose endpoint it tests, in which
// mode. It has no order fields: the event is about no order.
type TestEventContext struct {
	MerchantID string `json:"merchant_id"`
	Livemode   bool   `json:"livemode"`
}

// TestEventEnvelope is the body of a webhook.test POST.
type TestEventEnvelope struct {
	EventID   string           `json:"eventId"`
	Timestamp string           `json:"timestamp"`
	EventName EventName        `json:"eventName"`
	Context   TestEventContext `json:"context"`
}

// TestEventBody is the webhook body of a webhook.test event id of merchant merchantID's
// endpoint, in the mode livemode, made at at.
func TestEventBody(id, merchantID string, livemode bool, at time.Time) ([]byte, error) {
	return json.Marshal(TestEventEnvelope{EventID: id, Timestamp: at.UTC().Format(TimeFormat), EventName: EventWebhookTest,
		Context: TestEventContext{MerchantID: merchantID, Livemode: livemode}})
}
