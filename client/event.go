package client

import (
	"encoding/json"
	"fmt"
	"time"
)

// Event is a webhook delivery's body: the envelope of one event.
//
// ID is stable across retries of the same event, so receivers use it to recognise duplicates.
// Timestamp is when the event happened (not when it was delivered). Context holds the event's
// data; for order events decode it with [Event.Order].
type Event struct {
	ID        string          `json:"eventId"`
	Timestamp time.Time       `json:"timestamp"`
	Name      string          `json:"eventName"`
	Context   json.RawMessage `json:"context"`
}

// Event names, the values of [Event.Name]. docs/webhooks.md says when each is sent. A receiver
// should answer 2xx to names it does not know: new kinds of event may be added.
//
// A merchant refund ([Client.CreateMintOrderRefund] and the like) sends order.refund.pending
// when it is made (also when it waits for an approval), then order.refund.succeeded once it is
// paid (status done) or order.refund.failed (failed or dust); their context's
// [OrderContext.Refund] is that refund. The automatic refunds of area
// A keep order.refund.processing, order.refund.success and order.refund.failure.
const (
	EventOrderCreated                 = "order.created"
	EventOrderDepositProcessing       = "order.deposit.processing"
	EventOrderDepositSuccess          = "order.deposit.success"
	EventOrderDepositFailure          = "order.deposit.failure"
	EventOrderOnrampProcessing        = "order.onramp.processing"
	EventOrderOnrampSuccess           = "order.onramp.success"
	EventOrderOnrampFailure           = "order.onramp.failure"
	EventOrderSmartContractProcessing = "order.smartcontract.processing"
	EventOrderSmartContractSuccess    = "order.smartcontract.success"
	EventOrderSmartContractFailure    = "order.smartcontract.failure"
	EventOrderSuccess                 = "order.success"
	EventOrderCancelled               = "order.cancelled"
	EventOrderFailed                  = "order.failed"
	EventOrderRefundPending           = "order.refund.pending"
	EventOrderRefundProcessing        = "order.refund.processing"
	EventOrderRefundSuccess           = "order.refund.success"
	EventOrderRefundFailure           = "order.refund.failure"
	EventOrderRefundSucceeded         = "order.refund.succeeded"
	EventOrderRefundFailed            = "order.refund.failed"
	EventUserWidgetOpen               = "user.widget.open"
	EventUserWidgetClose              = "user.widget.close"
)

// OrderStatus is where an order is in its life, the value of [OrderContext.Status].
type OrderStatus string

// Order statuses. SUCCESS, CANCELLED and REFUNDED are final; EXPIRED is final unless a payment
// arrives late (it is then refunded, never executed).
const (
	StatusCreated                 OrderStatus = "CREATED"
	StatusDepositProcessing       OrderStatus = "DEPOSIT_PROCESSING"
	StatusUnderpaid               OrderStatus = "UNDERPAID"
	StatusDepositSuccess          OrderStatus = "DEPOSIT_SUCCESS"
	StatusOnrampProcessing        OrderStatus = "ONRAMP_PROCESSING"
	StatusOnrampSuccess           OrderStatus = "ONRAMP_SUCCESS"
	StatusSmartContractProcessing OrderStatus = "SMARTCONTRACT_PROCESSING"
	StatusSuccess                 OrderStatus = "SUCCESS"
	StatusExpired                 OrderStatus = "EXPIRED"
	StatusCancelled               OrderStatus = "CANCELLED"
	StatusFailed                  OrderStatus = "FAILED"
	StatusRefundPending           OrderStatus = "REFUND_PENDING"
	StatusRefunded                OrderStatus = "REFUNDED"
)

// OrderContext is the context of an order event: the order's public fields as they were when
// the event happened. Fields that are null in the JSON are left empty.
//
// Amounts are decimal strings, exactly as sent: parse them with an exact decimal type (or
// [math/big]), never with a float.
type OrderContext struct {
	OrderID        string `json:"order_id"`
	MerchantID     string `json:"merchant_id"`
	MerchantTxnID  string `json:"merchant_txn_id"`
	MerchantUserID string `json:"merchant_user_id"`
	// Livemode is the order's mode: true for a live order, false for a test order. The event
	// is signed with the merchant's webhook secret of that mode.
	Livemode bool `json:"livemode"`
	// Status is the order's status after the event.
	Status OrderStatus `json:"status"`

	// CryptoSymbol and CryptoNetwork name the asset paid (area A) or delivered to the
	// merchant (area C); CryptoContractAddress is its token contract, empty for the
	// network's native coin.
	CryptoSymbol          string `json:"crypto_symbol"`
	CryptoNetwork         string `json:"crypto_network"`
	CryptoContractAddress string `json:"crypto_contract_address"`
	// CryptoAmount is the amount due; CryptoAmountReceived what confirmed transfers have
	// brought so far. Decimal strings.
	CryptoAmount         string `json:"crypto_amount"`
	CryptoAmountReceived string `json:"crypto_amount_received"`

	// DepositAddress receives the user's crypto payment (area A), or is your own deposit
	// address the asset is sent to (area C; "" for area B); DepositTxHashes are the inbound
	// transfers seen so far (0x-prefixed hex; area A).
	DepositAddress  string   `json:"deposit_address"`
	DepositTxHashes []string `json:"deposit_tx_hashes"`
	// ExecutionTxHash is the smart-contract call or the transfer to the merchant, once sent.
	ExecutionTxHash string `json:"execution_tx_hash"`
	// FailureReason says why the order failed, for FAILED orders.
	FailureReason string `json:"failure_reason"`
	// Refunds is what is owed back to the payer, oldest first: an overpayment's excess, a
	// payment after expiry or to a closed order, what a failed order was paid (automatic
	// refunds), and the merchant's refunds.
	Refunds []Refund `json:"refunds"`
	// Refund is the refund a refund event is about (order.refund.pending, .succeeded,
	// .failed of a merchant refund), as it also is in Refunds; nil for other events.
	Refund *Refund `json:"refund,omitempty"`
	// RefundedAmount is what the order's merchant refunds that are done have paid back, a
	// decimal string in its paid currency (area A its crypto asset, B and C its fiat
	// currency).
	RefundedAmount string `json:"refunded_amount"`

	// The fiat side of areas B and C ("" for area A): the currency the user pays in, the
	// amount (a decimal string in major units, "29.64") and the payment method.
	OrderFiatSymbol   string `json:"order_fiat_symbol"`
	OrderFiatAmount   string `json:"order_fiat_amount"`
	FiatPaymentMethod string `json:"fiat_payment_method"`

	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Refund is a refund record: Amount (a decimal string) of the order's paid currency, Currency
// (area A its crypto asset, areas B and C its fiat currency), owed back to the payer, why, and
// how it is paid back. Origin is "automatic" (area A: an overpayment's excess, a payment after
// expiry, what a failed order was paid) or "merchant" (made with [Client.CreateMintOrderRefund]
// and the like).
//
// Status is "pending" (to be sent), "awaiting_address" (area A: the payer is a contract or
// unknown: the user, the merchant or an operator gives an address), "awaiting_approval" (above
// the automatic limit: an operator approves it), "sent" (area A: TxHash on its way), "done"
// (paid), "failed" (not paid: StatusReason says why) or "dust" (area A: the amount does not
// cover the network fee of sending it: nothing is sent).
//
// Area A: Fee and NetworkFee are the network fee taken out of Amount, "" until it is sent;
// AmountSent = Amount - Fee; Destination and ToAddress are the address it goes to ("" while
// none is known). Areas B and C: Fee is "0.00" and AmountSent is Amount once done, NetworkFee
// and ToAddress are "", Destination names the payment it goes back to ("card visa ****4242",
// "sepa_bank_transfer"), and ProviderReference is the provider's refund id once done.
type Refund struct {
	RefundID          string    `json:"refund_id"`
	Origin            string    `json:"origin"`
	Amount            string    `json:"amount"`
	Currency          string    `json:"currency"`
	Fee               string    `json:"fee"`
	NetworkFee        string    `json:"network_fee"`
	AmountSent        string    `json:"amount_sent"`
	Reason            string    `json:"reason"`
	Status            string    `json:"status"`
	StatusReason      string    `json:"status_reason"`
	Destination       string    `json:"destination"`
	ToAddress         string    `json:"to_address"`
	TxHash            string    `json:"tx_hash"`
	ProviderReference string    `json:"provider_reference"`
	CreatedAt         time.Time `json:"created_at"`
	UpdatedAt         time.Time `json:"updated_at"`
}

// DecodeContext decodes the event's context into v, which must be a pointer. It returns an
// error wrapping [ErrBadBody] when the event has no context or the context does not fit v.
func (e *Event) DecodeContext(v any) error {
	if len(e.Context) == 0 || string(e.Context) == "null" {
		return fmt.Errorf("%w: event %s has no context", ErrBadBody, e.ID)
	}
	if err := json.Unmarshal(e.Context, v); err != nil {
		return fmt.Errorf("%w: decode context of event %s: %v", ErrBadBody, e.ID, err)
	}
	return nil
}

// Order decodes the context of an order event (a name starting "order.").
func (e *Event) Order() (*OrderContext, error) {
	var o OrderContext
	if err := e.DecodeContext(&o); err != nil {
		return nil, err
	}
	return &o, nil
}
