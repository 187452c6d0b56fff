package rampway

import (
	"context"
	"encoding/json"
	"math/big"
	"slices"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// Area is one of the three merchant API areas an order belongs to.
type Area string

// Areas.
const (
	AreaMint    Area = "mint"     // A: NFT minting paid in crypto
	AreaNFTRamp Area = "nft_ramp" // B: NFT checkout paid in fiat
	AreaDeposit Area = "deposit"  // C: on-ramp to a merchant deposit
)

// OrderStatus is an order's state; the values are the API's.
type OrderStatus string

// Order states. See docs/order-states.md for the diagram.
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

// EventName is a webhook event's name ("order.success").
type EventName string

// Webhook event names.
const (
	EventDepositProcessing       EventName = "order.deposit.processing"
	EventDepositSuccess          EventName = "order.deposit.success"
	EventDepositFailure          EventName = "order.deposit.failure"
	EventOnrampProcessing        EventName = "order.onramp.processing"
	EventOnrampSuccess           EventName = "order.onramp.success"
	EventOnrampFailure           EventName = "order.onramp.failure"
	EventSmartContractProcessing EventName = "order.smartcontract.processing"
	EventSmartContractSuccess    EventName = "order.smartcontract.success"
	EventSmartContractFailure    EventName = "order.smartcontract.failure"
	EventSuccess                 EventName = "order.success"
	EventCancelled               EventName = "order.cancelled"
	EventFailed                  EventName = "order.failed"
	EventRefundPending           EventName = "order.refund.pending"
	EventRefunded                EventName = "order.refund.success"
)

// OrderStatuses are all the order states.
var OrderStatuses = []OrderStatus{StatusCreated, StatusDepositProcessing, StatusUnderpaid, StatusDepositSuccess,
	StatusOnrampProcessing, StatusOnrampSuccess, StatusSmartContractProcessing, StatusSuccess, StatusExpired,
	StatusCancelled, StatusFailed, StatusRefundPending, StatusRefunded}

// Valid reports whether s is one of the order states.
func (s OrderStatus) Valid() bool { return slices.Contains(OrderStatuses, s) }

// Terminal reports whether nothing more happens to an order in this status on its own (an
// order that succeeded may still be refunded by its merchant: IsMerchantRefundCause).
func (s OrderStatus) Terminal() bool {
	return s == StatusSuccess || s == StatusCancelled || s == StatusRefunded
}

// PrefixOrder starts order ids; PrefixEvent starts order event ids.
const (
	PrefixOrder = "ord"
	PrefixEvent = "evt"
)

// Order is a merchant's order: what the user pays, what rampway does on chain, and where it is.
type Order struct {
	ID         string
	MerchantID string
	Area       Area
	Status     OrderStatus
	// Livemode is the order's mode, the mode of the API key that created it: a test order
	// pays and executes only on test networks with test providers, a live one only on live.
	Livemode bool

	MerchantUserID      string
	MerchantTxnID       string
	MerchantRedirectURL string
	// MerchantWebhookURL overrides the merchant's default for this order's events.
	MerchantWebhookURL string
	// WebhooksOff is set at creation for an order created with a MerchantWebhookURL while its
	// merchant had no webhook secret of its mode: its creation answer said that no webhook
	// events will be sent for it (the spec's info), and none are, even once a secret is set.
	WebhooksOff bool
	// User holds the optional user fields of the request (user_email_id, ...), by API name.
	User map[string]string

	// Network and Asset: what the user pays in (area A) or the merchant receives (area C).
	Network string
	Asset   Asset
	// CryptoAmount is what the user must pay, in the asset's base units.
	CryptoAmount *big.Int
	// CryptoReceived is what confirmed inbound transfers have brought so far.
	CryptoReceived *big.Int

	// The smart-contract call (areas A and B).
	FunctionID   string
	FunctionArgs json.RawMessage
	// PaymentValue is totalValue in the payable asset's base units (zero for none).
	PaymentValue *big.Int
	GasLimit     uint64
	// NetworkFee and ServiceFee are the quote's parts, in the paying asset's base units.
	NetworkFee *big.Int
	ServiceFee *big.Int

	// DepositAddress receives the payment; DepositIndex is its HD derivation index (area A).
	DepositAddress common.Address
	DepositIndex   uint32
	// PayoutAddress is the merchant's deposit address the asset is sent to (area C).
	PayoutAddress common.Address
	// MethodQuotes are an area C order's quotes, one per payment method its amount fits, kept
	// from its creation until the user chooses a method (none once one is chosen).
	MethodQuotes []MethodQuote

	// The fiat side (areas B and C): the currency, the payment method and the amount the user
	// pays, in the currency's minor units (FiatDecimals digits), and the fiat payment that
	// paid the order, once one did.
	FiatSymbol    string
	FiatMethod    string
	FiatAmount    *big.Int
	FiatDecimals  uint8
	FiatPaymentID string
	// FiatPricing is how FiatAmount was priced (nil for area A, for an area C order whose
	// method is still to choose, and for orders stored before it was kept).
	FiatPricing *FiatPricing

	ExecutionTxHash string
	FailureReason   string
	ExpiresAt       time.Time
	CreatedAt       time.Time
	UpdatedAt       time.Time
}

// MethodQuote is what an area C order delivers when paid with a method: the crypto the
// merchant receives and the fees that came off it (base units of the asset), and the method's
// fee (minor units of the currency, rounded up).
type MethodQuote struct {
	Method       string   `json:"method"`
	Name         string   `json:"name"` // the method's display name, as configured`
	CryptoAmount *big.Int `json:"crypto_amount"`
	NetworkFee   *big.Int `json:"network_fee"`
	ServiceFee   *big.Int `json:"service_fee"`
	MethodFee    *big.Int `json:"method_fee"`
	// Pricing is the quote's fiat side, which the order takes with the method.
	Pricing *FiatPricing `json:"pricing,omitempty"`
}

// FiatPricing is how a fiat-paid order's amount was priced, as its quote stated it: the
// prices used (USD per unit, the paying or bought asset's and the currency's) and the fiat
// parts of the amount, exact decimal strings in the currency's major units (B3's
// crypto_price_usd, fiat_price_usd, fiat_subtotal, fiat_spread and fiat_method_fee), with the
// spread and the method's fee as configured then. Area B adds the spread and the fee to the
// subtotal (the crypto at the prices), area C takes them off the fiat amount: either way
// subtotal + spread + method fee is the amount (area B's rounded up to the minor unit).
type FiatPricing struct {
	CryptoPriceUSD string `json:"crypto_price_usd"`
	FiatPriceUSD   string `json:"fiat_price_usd"`
	Subtotal       string `json:"fiat_subtotal"`
	Spread         string `json:"fiat_spread"`
	MethodFee      string `json:"fiat_method_fee"`
	SpreadBPS      int64  `json:"spread_bps"`
	MethodFeeBPS   int64  `json:"method_fee_bps"`
	// MethodFeeFixed is the method's fixed fee, major units ("0.25").
	MethodFeeFixed string `json:"method_fee_fixed"`
}

// Clone returns a copy of p (nil for nil).
func (p *FiatPricing) Clone() *FiatPricing {
	if p == nil {
		return nil
	}
	c := *p
	return &c
}

// OrderEvent records a transition (or the creation) of an order, or an event that is no
// transition, whose From and To are both the order's status: the hosted page's events
// (RecordOrderEvent) and the order.deposit.success of a payment credited to an order that it
// does not move (DepositStore.ConfirmTransfer). Written in the same transaction as the
// change, it is the outbox webhooks are delivered from.
type OrderEvent struct {
	ID         string
	OrderID    string
	MerchantID string
	Name       EventName
	From, To   OrderStatus
	CreatedAt  time.Time
	// Seq is the event's place among all events, given by the store when it records the
	// event (its webhook delivery carries it as EventSeq); 0 until then.
	Seq int64
}

// EventCreated is the event of a new order.
const EventCreated EventName = "order.created"

// OrderFilter selects orders for a list, newest first.
type OrderFilter struct {
	MerchantID string
	// Area and Livemode are required: a list is of one area's orders (each area's API lists its
	// own) of one mode (a merchant's key sees its own mode only), read in order by an index of
	// them, whatever the merchant's other areas and mode hold.
	Area     Area
	Livemode bool
	// Status, when set, keeps orders in that status.
	Status OrderStatus
	// CreatedFrom and CreatedTo, when set, bound the creation time (from inclusive, to exclusive).
	CreatedFrom, CreatedTo time.Time
	// Before is a cursor: orders created before the order with this id.
	Before string
	Limit  int
}

// OrderStore keeps orders and their events.
type OrderStore interface {
	// NextDepositIndex reserves a fresh HD derivation index; an index is never handed out twice.
	NextDepositIndex(ctx context.Context) (uint32, error)
	// ReserveDepositIndexes reserves n fresh HD derivation indexes at once, in ascending order;
	// none is ever handed out again.
	ReserveDepositIndexes(ctx context.Context, n int) ([]uint32, error)
	// CreateOrder stores a new order with its order.created event. ECONFLICT if the id or the
	// deposit address exists.
	CreateOrder(ctx context.Context, o *Order) error
	// CreateOrderWithReply stores a new order as CreateOrder does and, in the same write, the
	// response to replay under the Idempotency-Key its request claimed (what FinishIdempotent
	// stores): once the order exists its key is answered, so that a retry after a crash, or
	// after an error whose write went through, replays this order instead of creating another.
	CreateOrderWithReply(ctx context.Context, o *Order, reply *IdempotentReply) error
	// Order returns an order. ENOTFOUND.
	Order(ctx context.Context, id string) (*Order, error)
	// Orders lists orders by filter, newest first.
	Orders(ctx context.Context, f OrderFilter) ([]*Order, error)
	// Apply applies a cause to an order in one transaction: the order locked, what the domain
	// decides (rampway.Apply) written with its events, their webhook deliveries and its refund
	// records. It returns the order after it. ECONFLICT when the order's state does not take
	// the cause (rampway.Apply); ENOTFOUND.
	Apply(ctx context.Context, id string, c Cause, at time.Time) (*Order, error)
	// ApplyEach applies a cause to each of several orders as Apply does, in one transaction:
	// each order's writes all or none, errs[i] the answer for ids[i] (ECONFLICT, ENOTFOUND);
	// err a failure of the whole, nothing of it written. For the work that moves many orders at
	// once (the expiry): one write and one commit for a batch instead of one each.
	ApplyEach(ctx context.Context, ids []string, c Cause, at time.Time) (errs []error, err error)
	// OrderEvents returns an order's events, oldest first.
	OrderEvents(ctx context.Context, orderID string) ([]*OrderEvent, error)
	// DueOrders returns up to limit orders in one of statuses whose expiry is before t,
	// oldest expiry first.
	DueOrders(ctx context.Context, statuses []OrderStatus, t time.Time, limit int) ([]*Order, error)
	// PaidOrders returns up to limit orders of a network paid in full and waiting for their
	// execution (DEPOSIT_SUCCESS), longest waiting first.
	PaidOrders(ctx context.Context, network string, limit int) ([]*Order, error)
	// RecordOrderEvent records an event that changes nothing of the order (user.widget.open,
	// user.widget.close) with its webhook delivery, From and To both the order's status; with
	// once, only if the order has none of that name yet. It reports whether it recorded one.
	// ENOTFOUND.
	RecordOrderEvent(ctx context.Context, orderID string, name EventName, once bool, at time.Time) (bool, error)
	// RecordVisitEvent records such an event once per visit of the hosted page (visit: the id
	// the page made for one stay of one browser tab, at most MaxVisitLength characters): a
	// second one of the same name and visit, and any past MaxVisitsPerOrder visits of the
	// order, records nothing. It reports whether it recorded one. ENOTFOUND.
	RecordVisitEvent(ctx context.Context, orderID string, name EventName, visit string, at time.Time) (bool, error)
}

// Events of the hosted checkout page (they change nothing of the order).
const (
	EventWidgetOpen  EventName = "user.widget.open"
	EventWidgetClose EventName = "user.widget.close"
)

// Bounds of the hosted page's visits (OrderStore.RecordVisitEvent): a visit id's length, and
// how many visits of one order record an event of a name (a link passed around, or a script
// posting made-up visits, cannot flood the merchant's webhook).
const (
	MaxVisitLength    = 64
	MaxVisitsPerOrder = 50
)
