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
	// payment after expiry or to a closed order, what a failed order was paid.
	Refunds []Refund `json:"refunds"`

	// The fiat side of areas B and C ("" for area A): the currency the user pays in, the
	// amount (a decimal string in major units, "29.64") and the payment method.
	OrderFiatSymbol   string `json:"order_fiat_symbol"`
	OrderFiatAmount   string `json:"order_fiat_amount"`
	FiatPaymentMethod string `json:"fiat_payment_method"`

	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Refund is a refund record: Amount (a decimal string) of the order's asset owed back to the
// payer, why, and how it is paid back. Status is "pending" (to be sent), "awaiting_address"
// (the payer is a contract: the user is asked for an address), "awaiting_approval" (above the
// automatic limit: an operator approves it), "sent" (TxHash on its way), "done" (paid),
// "failed" (the transaction reverted: StatusReason says why) or "dust" (the amount does not
// cover the network fee of sending it: nothing is sent). NetworkFee and AmountSent are ""
// until it is sent; AmountSent = Amount - NetworkFee.
type Refund struct {
	RefundID     string    `json:"refund_id"`
	Amount       string    `json:"amount"`
	NetworkFee   string    `json:"network_fee"`
	AmountSent   string    `json:"amount_sent"`
	Reason       string    `json:"reason"`
	Status       string    `json:"status"`
	StatusReason string    `json:"status_reason"`
	ToAddress    string    `json:"to_address"`
	TxHash       string    `json:"tx_hash"`
	CreatedAt    time.Time `json:"created_at"`
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
