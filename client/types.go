package client

import (
	"encoding/json"
	"time"
)

// The request and answer bodies of the merchant API. Their names are those of the schemas
// of rampway's OpenAPI document (GET /openapi.json), and a test holds their JSON fields to it.
//
// Amounts are decimal strings ("0.010263", "28.80"), exactly as the API carries them: parse
// them with an exact decimal type or [math/big], never a float. Crypto amounts are in whole
// units of their asset (ETH, not wei); fiat amounts in major units (EUR, not cents).
//
// In answers, JSON nulls are left as the zero value: "" for a null string (a native coin's
// contract address, an unexecuted order's execution_tx_hash), the zero time.Time for a null
// time.

// ContractExecution is what an area A or B order executes on chain once paid: a function the
// merchant registered, its arguments, what it is paid and its network. It is the
// contractExecution object of the merchant API; `rampway dev` writes a working one per demo
// function to dev.json (smart_contract_functions[].example), which decodes into this type.
type ContractExecution struct {
	// SmartContractFunctionID is the registered function's id (scf_…).
	SmartContractFunctionID string `json:"smartContractFunctionId"`
	// FunctionArgs are the function's arguments keyed by their ABI names. Each value must fit
	// its ABI type: integers as JSON integers or decimal strings (strings keep big ones
	// exact), addresses as 0x hex, arrays as slices, tuples as maps. Nil is sent as {}, for a
	// function without inputs.
	FunctionArgs map[string]any `json:"function_args"`
	// Payment is what the call receives; required when the function was registered as paid,
	// nil when it is not.
	Payment *ContractExecutionPayment `json:"payment,omitempty"`
	// NetworkParams names the network and may override the gas limit.
	NetworkParams NetworkParams `json:"network_params"`
}

// MarshalJSON encodes x, nil FunctionArgs as {}.
func (x ContractExecution) MarshalJSON() ([]byte, error) {
	type plain ContractExecution // without this method
	if x.FunctionArgs == nil {
		x.FunctionArgs = map[string]any{}
	}
	return json.Marshal(plain(x))
}

// ContractExecutionPayment is what a paid function receives.
type ContractExecutionPayment struct {
	// PayableCryptoSymbol is the asset paid to the function: its registered payable symbol,
	// and the order's crypto_symbol in area A.
	PayableCryptoSymbol string `json:"payableCryptoSymbol"`
	// PayableCryptoContractAddress is the token's contract; empty for the network's native
	// coin, or to let the symbol and the network name the asset.
	PayableCryptoContractAddress string `json:"payableCryptoContractAddress,omitempty"`
	// TotalValue is what the call receives, in whole units of the asset (not wei), a decimal
	// string with at most the asset's decimals: "0.01".
	TotalValue string `json:"totalValue"`
}

// NetworkParams names a contract execution's network.
type NetworkParams struct {
	// NetworkName is the network of the function, a network configured on the server.
	NetworkName string `json:"networkName"`
	// CustomGasLimit, when set, overrides the function's default gas limit: a whole number
	// from 21000 to 30000000, as a string.
	CustomGasLimit string `json:"customGasLimit,omitempty"`
}

// CryptoQuoteRequest asks what an area A order would cost (A2).
type CryptoQuoteRequest struct {
	// MerchantID is the merchant's id; the Client's (WithMerchantID) when empty.
	MerchantID string `json:"merchant_id"`
	// CryptoSymbol and CryptoNetwork are the asset the user pays in; for a paid function,
	// its payable symbol.
	CryptoSymbol  string `json:"crypto_symbol"`
	CryptoNetwork string `json:"crypto_network"`
	// CryptoContractAddress is the token's contract; empty for the native coin.
	CryptoContractAddress string `json:"crypto_contract_address,omitempty"`
	// ContractExecution is the call the order would execute.
	ContractExecution ContractExecution `json:"contractExecution"`
}

// CryptoQuote is A2's answer: what the user would pay, and whether an order may be made.
type CryptoQuote struct {
	// CryptoAmount is what the user would pay: TotalValue + NetworkFee + ServiceFee.
	CryptoAmount string `json:"crypto_amount"`
	// Allowed is false when the amount is outside the asset's bounds or the call would
	// revert; Message then says why, and no order can be made for it.
	Allowed bool   `json:"allowed"`
	Message string `json:"message"`
	// The quote's parts, in the paying asset, and the gas limit the network fee is for.
	TotalValue string `json:"total_value"`
	NetworkFee string `json:"network_fee"`
	ServiceFee string `json:"service_fee"`
	GasLimit   uint64 `json:"gas_limit"`
}

// MintOrderRequest creates an area A order, paid in crypto (A1).
type MintOrderRequest struct {
	// MerchantID is the merchant's id; the Client's (WithMerchantID) when empty.
	MerchantID string `json:"merchant_id"`
	// CryptoSymbol, CryptoNetwork and CryptoContractAddress (empty for a native coin) are the
	// asset the user pays in; for a paid function, its payable asset.
	CryptoSymbol          string `json:"crypto_symbol"`
	CryptoNetwork         string `json:"crypto_network"`
	CryptoContractAddress string `json:"crypto_contract_address,omitempty"`
	// ContractExecution is the call executed once the order is paid.
	ContractExecution ContractExecution `json:"contractExecution"`
	// MerchantUserID is your id of the user; MerchantTxnID your id of the order, carried by
	// its webhook events.
	MerchantUserID string `json:"merchant_user_id"`
	MerchantTxnID  string `json:"merchant_txn_id,omitempty"`
	// MerchantRedirectURL is where the checkout page sends the user back.
	MerchantRedirectURL string `json:"merchant_redirect_url"`
	// MerchantWebhookURL, when set, receives this order's webhook events instead of the
	// merchant's webhook URL.
	MerchantWebhookURL string `json:"merchant_webhook_url,omitempty"`
	// The user's contact details, optional.
	UserEmailID   string `json:"user_email_id,omitempty"`
	UserFirstName string `json:"user_first_name,omitempty"`
	UserLastName  string `json:"user_last_name,omitempty"`
}

// MintOrder is A1's answer: the order made and its checkout page.
type MintOrder struct {
	OrderID string `json:"order_id"`
	// CryptoSymbol, CryptoNetwork and CryptoContractAddress ("" for a native coin) are the
	// asset to pay in; CryptoAmount what the user must pay.
	CryptoSymbol          string `json:"crypto_symbol"`
	CryptoContractAddress string `json:"crypto_contract_address"`
	CryptoNetwork         string `json:"crypto_network"`
	CryptoAmount          string `json:"crypto_amount"`
	// Hash gives access to GatewayURL, the hosted checkout page to send the user to (it
	// already carries the hash).
	Hash       string `json:"hash"`
	GatewayURL string `json:"gateway_url"`
	// Info is set only when a webhook URL was given while the merchant has no webhook secret:
	// no events will be sent for the order.
	Info string `json:"info,omitempty"`
	// Livemode is the order's mode, the mode of the API key that created it: true for a live
	// order (rw_live_ key), false for a test order (rw_test_ key).
	Livemode bool `json:"livemode"`
}

// UserDetails are the user's details an area B or C order may carry: they prefill the
// checkout page's identity step, which is skipped when every field the payment method needs
// is given. All are optional.
type UserDetails struct {
	UserEmailID   string `json:"user_email_id,omitempty"`
	UserFirstName string `json:"user_first_name,omitempty"`
	UserLastName  string `json:"user_last_name,omitempty"`
	// UserMobileNumber is E.164: "+4915112345678".
	UserMobileNumber string `json:"user_mobileNumber,omitempty"`
	// UserDOB is the date of birth, yyyy-mm-dd.
	UserDOB          string `json:"user_dob,omitempty"`
	UserAddressLine1 string `json:"user_addressLine1,omitempty"`
	UserAddressLine2 string `json:"user_addressLine2,omitempty"`
	UserCity         string `json:"user_city,omitempty"`
	UserState        string `json:"user_state,omitempty"`
	UserPostCode     string `json:"user_postCode,omitempty"`
	// UserCountryCode is the ISO 3166-1 alpha-2 code of the country of residence: "DE".
	UserCountryCode string `json:"user_countryCode,omitempty"`
}

// FiatOrderRequest creates an area B order, paid in fiat (B1).
type FiatOrderRequest struct {
	// MerchantID is the merchant's id; the Client's (WithMerchantID) when empty.
	MerchantID string `json:"merchant_id"`
	// OrderFiatSymbol is the currency the user pays in; FiatPaymentMethod the method, an id
	// of the currency's paymentOptions (ListFiatCurrencies).
	OrderFiatSymbol   string `json:"order_fiat_symbol"`
	FiatPaymentMethod string `json:"fiat_payment_method"`
	// ContractExecution is the call executed once the order is paid.
	ContractExecution   ContractExecution `json:"contractExecution"`
	MerchantUserID      string            `json:"merchant_user_id"`
	MerchantTxnID       string            `json:"merchant_txn_id,omitempty"`
	MerchantRedirectURL string            `json:"merchant_redirect_url"`
	MerchantWebhookURL  string            `json:"merchant_webhook_url,omitempty"`
	UserDetails
}

// FiatOrder is B1's answer.
type FiatOrder struct {
	OrderID           string `json:"order_id"`
	OrderFiatSymbol   string `json:"order_fiat_symbol"`
	FiatPaymentMethod string `json:"fiat_payment_method"`
	// OrderFiatAmount is what the user pays, with the currency's minor-unit digits: "28.80".
	OrderFiatAmount string `json:"order_fiat_amount"`
	Hash            string `json:"hash"`
	GatewayURL      string `json:"gateway_url"`
	Info            string `json:"info,omitempty"`
	// Livemode is the order's mode, the mode of the API key that created it: true for a live
	// order (rw_live_ key), false for a test order (rw_test_ key).
	Livemode bool `json:"livemode"`
}

// FiatQuoteRequest asks what an area B order would cost (B3).
type FiatQuoteRequest struct {
	// MerchantID is the merchant's id; the Client's (WithMerchantID) when empty.
	MerchantID        string            `json:"merchant_id"`
	OrderFiatSymbol   string            `json:"order_fiat_symbol"`
	FiatPaymentMethod string            `json:"fiat_payment_method"`
	ContractExecution ContractExecution `json:"contractExecution"`
}

// FiatQuote is B3's answer. A quote outside the method's bounds is not an error: Allowed is
// false and Message says why (FiatAmount is "" below the minimum).
type FiatQuote struct {
	FiatAmount                   string    `json:"fiat_amount"`
	FiatSymbol                   string    `json:"fiat_symbol"`
	PayableCryptoSymbol          string    `json:"payable_crypto_symbol"`
	PayableCryptoContractAddress string    `json:"payable_crypto_contract_address"`
	PayableCryptoNetwork         string    `json:"payable_crypto_network"`
	PayableCryptoAmount          string    `json:"payable_crypto_amount"`
	Allowed                      bool      `json:"allowed"`
	Message                      string    `json:"message"`
	FiatPaymentMethod            string    `json:"fiat_payment_method"`
	TotalValue                   string    `json:"total_value"`
	NetworkFee                   string    `json:"network_fee"`
	ServiceFee                   string    `json:"service_fee"`
	GasLimit                     uint64    `json:"gas_limit"`
	CryptoPriceUSD               string    `json:"crypto_price_usd"`
	FiatPriceUSD                 string    `json:"fiat_price_usd"`
	FiatSubtotal                 string    `json:"fiat_subtotal"`
	FiatSpread                   string    `json:"fiat_spread"`
	FiatMethodFee                string    `json:"fiat_method_fee"`
	ExpiresAt                    time.Time `json:"expires_at"`
}

// FiatCurrencies is B2's and C2's answer: the currencies users may pay in.
type FiatCurrencies struct {
	Currencies []FiatCurrency `json:"currencies"`
}

// FiatCurrency is a fiat currency and its payment methods.
type FiatCurrency struct {
	Symbol             string          `json:"symbol"`
	Name               string          `json:"name"`
	SupportedCountries []string        `json:"supportedCountries"`
	PaymentOptions     []PaymentOption `json:"paymentOptions"`
}

// PaymentOption is a payment method of a currency. ID is the value of fiat_payment_method;
// MinAmount and MaxAmount bound the amount paid with it, in major units.
type PaymentOption struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Icon      string `json:"icon"`
	MinAmount int64  `json:"minAmount"`
	MaxAmount int64  `json:"maxAmount"`
}

// Payment method ids of rampway's default configuration (the list is open-ended: a server
// lists its own with ListFiatCurrencies).
const (
	MethodCard             = "credit_debit_card"
	MethodApplePay         = "apple_pay"
	MethodGooglePay        = "google_pay"
	MethodSEPABankTransfer = "sepa_bank_transfer"
	MethodGBPBankTransfer  = "gbp_bank_transfer"
	MethodOpenBanking      = "pm_open_banking"
	MethodCashApp          = "pm_cash_app"
	MethodJWire            = "pm_jwire"
)

// DepositOrderRequest creates an area C order (C1): the user pays OrderFiatAmount in fiat and
// the merchant's deposit address receives it converted into the asset.
type DepositOrderRequest struct {
	// MerchantID is the merchant's id; the Client's (WithMerchantID) when empty.
	MerchantID      string `json:"merchant_id"`
	OrderFiatSymbol string `json:"order_fiat_symbol"`
	// OrderFiatAmount is the amount the user pays, in major units: "100.00".
	OrderFiatAmount string `json:"order_fiat_amount"`
	// The asset the merchant receives; the contract address is optional (the symbol and
	// network name the asset) and empty for a native coin.
	ConvertToCryptoSymbol          string `json:"convert_to_crypto_symbol"`
	ConvertToCryptoNetwork         string `json:"convert_to_crypto_network"`
	ConvertToCryptoContractAddress string `json:"convert_to_crypto_contractAddress,omitempty"`
	MerchantUserID                 string `json:"merchant_user_id"`
	MerchantTxnID                  string `json:"merchant_txn_id,omitempty"`
	MerchantRedirectURL            string `json:"merchant_redirect_url"`
	// MerchantWebhookURL, when set, overrides the merchant's webhook URL for this order.
	MerchantWebhookURL string `json:"merchant_webhook_url,omitempty"`
	// FiatPaymentMethod, when set, skips the page's quotes screen; empty lets the user choose.
	FiatPaymentMethod string `json:"fiat_payment_method,omitempty"`
	UserDetails
}

// DepositOrder is C1's answer.
type DepositOrder struct {
	OrderID                        string `json:"order_id"`
	OrderFiatSymbol                string `json:"order_fiat_symbol"`
	OrderFiatAmount                string `json:"order_fiat_amount"`
	ConvertToCryptoSymbol          string `json:"convert_to_crypto_symbol"`
	ConvertToCryptoNetwork         string `json:"convert_to_crypto_network"`
	ConvertToCryptoContractAddress string `json:"convert_to_crypto_contractAddress"`
	// CryptoAmount is what the merchant's deposit address receives (an estimate until the user
	// chooses a method, when none was given).
	CryptoAmount      string `json:"crypto_amount"`
	FiatPaymentMethod string `json:"fiat_payment_method,omitempty"`
	Hash              string `json:"hash"`
	GatewayURL        string `json:"gateway_url"`
	Info              string `json:"info,omitempty"`
	// Livemode is the order's mode, the mode of the API key that created it: true for a live
	// order (rw_live_ key), false for a test order (rw_test_ key).
	Livemode bool `json:"livemode"`
}

// Order is a stored order as the lookups and lists of the three areas show it.
type Order struct {
	OrderID string `json:"order_id"`
	// Livemode is the order's mode, the mode of the API key that created it: true for a live
	// order, false for a test order. A key looks up and lists only the orders of its mode.
	Livemode            bool        `json:"livemode"`
	Status              OrderStatus `json:"status"`
	MerchantID          string      `json:"merchant_id"`
	MerchantUserID      string      `json:"merchant_user_id"`
	MerchantTxnID       string      `json:"merchant_txn_id"`
	MerchantRedirectURL string      `json:"merchant_redirect_url"`
	MerchantWebhookURL  string      `json:"merchant_webhook_url"`
	// The asset paid (area A), paid to the function (B) or delivered to the merchant (C).
	CryptoSymbol          string `json:"crypto_symbol"`
	CryptoContractAddress string `json:"crypto_contract_address"`
	CryptoNetwork         string `json:"crypto_network"`
	// CryptoAmount is the amount due (A), or delivered (C); CryptoAmountReceived what
	// confirmed payments have brought (A).
	CryptoAmount         string `json:"crypto_amount"`
	CryptoAmountReceived string `json:"crypto_amount_received"`
	// DepositAddress is the order's own address the user pays (A), or the merchant's deposit
	// address the asset is sent to (C).
	DepositAddress          string          `json:"deposit_address"`
	SmartContractFunctionID string          `json:"smartContractFunctionId"`
	FunctionArgs            json.RawMessage `json:"function_args"`
	TotalValue              string          `json:"total_value"`
	NetworkFee              string          `json:"network_fee"`
	ServiceFee              string          `json:"service_fee"`
	GasLimit                uint64          `json:"gas_limit"`
	DepositTxHashes         []string        `json:"deposit_tx_hashes"`
	Deposits                []Deposit       `json:"deposits"`
	// ExecutionTxHash is the call or transfer made for the order, once sent.
	ExecutionTxHash string `json:"execution_tx_hash"`
	// FailureReason says why a FAILED order failed.
	FailureReason string `json:"failure_reason"`
	// Refunds are the order's refunds, automatic and merchant ones, oldest first.
	Refunds []Refund `json:"refunds"`
	// RefundedAmount is what the order's merchant refunds that are done have paid back, a
	// decimal string in its paid currency (area A its crypto asset, B and C its fiat
	// currency). The order is REFUNDED once it is all the order was paid.
	RefundedAmount string            `json:"refunded_amount"`
	User           map[string]string `json:"user"`
	// The fiat side of areas B and C (empty for A).
	OrderFiatSymbol   string         `json:"order_fiat_symbol"`
	OrderFiatAmount   string         `json:"order_fiat_amount"`
	FiatPaymentMethod string         `json:"fiat_payment_method"`
	FiatPayment       *FiatPayment   `json:"fiat_payment"`
	FiatMovements     []FiatMovement `json:"fiat_movements"`
	GatewayURL        string         `json:"gateway_url"`
	ExpiresAt         time.Time      `json:"expires_at"`
	CreatedAt         time.Time      `json:"created_at"`
	UpdatedAt         time.Time      `json:"updated_at"`
}

// Deposit is a payment seen for an area A order. LogIndex is nil for a native transfer;
// Status is "seen" until its block is deep enough, then "confirmed".
type Deposit struct {
	TxHash      string    `json:"tx_hash"`
	LogIndex    *int64    `json:"log_index"`
	FromAddress string    `json:"from_address"`
	Amount      string    `json:"amount"`
	BlockNumber uint64    `json:"block_number"`
	Status      string    `json:"status"`
	SeenAt      time.Time `json:"seen_at"`
}

// FiatPayment is an area B or C order's payment at its provider. Status is pending,
// processing, authorized, succeeded, failed, voided or refunded. Reference is what the user
// writes on a bank transfer.
type FiatPayment struct {
	Method      string    `json:"method"`
	Status      string    `json:"status"`
	Amount      string    `json:"amount"`
	Currency    string    `json:"currency"`
	Reference   string    `json:"reference"`
	ProviderRef string    `json:"provider_ref"`
	CardBrand   string    `json:"card_brand,omitempty"`
	CardLast4   string    `json:"card_last4,omitempty"`
	CreatedAt   time.Time `json:"created_at"`
}

// FiatMovement is a capture, void or refund of an order's fiat payment.
type FiatMovement struct {
	Kind      string    `json:"kind"`
	Amount    string    `json:"amount"`
	Currency  string    `json:"currency"`
	Status    string    `json:"status"`
	Reason    string    `json:"reason"`
	CreatedAt time.Time `json:"created_at"`
}

// OrderList is a page of orders, newest first. HasMore says whether older ones follow.
type OrderList struct {
	Data    []Order `json:"data"`
	HasMore bool    `json:"has_more"`
}

// ListOrdersParams filters a list of orders. The zero value lists all, 20 a page.
type ListOrdersParams struct {
	// Status, when set, lists only the orders in it.
	Status OrderStatus `url:"status"`
	// CreatedFrom and CreatedTo, when set, bound when the orders were created: at or after
	// CreatedFrom, before CreatedTo.
	CreatedFrom time.Time `url:"created_from"`
	CreatedTo   time.Time `url:"created_to"`
	// Limit is the page size, 1 to 100; the server's default (20) when 0.
	Limit int `url:"limit"`
	// StartingAfter is the order_id after which the page starts (the last of the previous
	// page). The list iterators set it themselves.
	StartingAfter string `url:"starting_after"`
}

// Delivery is a webhook event's delivery to the merchant, as the order's webhook log shows
// it. Status is pending, delivered or failed; Held is true while the merchant is disabled.
type Delivery struct {
	EventID        string            `json:"event_id"`
	EventName      string            `json:"event_name"`
	OrderID        string            `json:"order_id"`
	URL            string            `json:"url"`
	Status         string            `json:"status"`
	Held           bool              `json:"held"`
	HeldSince      time.Time         `json:"held_since"`
	AttemptCount   int               `json:"attempt_count"`
	NextAttemptAt  time.Time         `json:"next_attempt_at"`
	LastStatusCode int               `json:"last_status_code"`
	LastError      string            `json:"last_error"`
	CreatedAt      time.Time         `json:"created_at"`
	DeliveredAt    time.Time         `json:"delivered_at"`
	Attempts       []DeliveryAttempt `json:"attempts"`
}

// DeliveryAttempt is one POST of a delivery: its answer's status (0 for none) or error.
type DeliveryAttempt struct {
	Attempt    int       `json:"attempt"`
	At         time.Time `json:"at"`
	StatusCode int       `json:"status_code"`
	LatencyMS  int64     `json:"latency_ms"`
	Error      string    `json:"error"`
}

// DeliveryLog is an order's webhook log: every event's delivery.
type DeliveryLog struct {
	Data    []Delivery `json:"data"`
	HasMore bool       `json:"has_more"`
}

// MerchantRefundAddressRequest gives a refund waiting for an address the address to send it to.
type MerchantRefundAddressRequest struct {
	// MerchantID is optional; the Client's (WithMerchantID) when empty.
	MerchantID string `json:"merchant_id,omitempty"`
	// Address is where the refund is sent: 0x and 40 hex digits.
	Address string `json:"address"`
}

// RefundRequest asks for a merchant refund of a paid order (POST .../order/{order_id}/refunds).
// Every field is optional: the zero RefundRequest refunds all that is left of the order's
// payment, with the default reason. Unknown fields are 400.
type RefundRequest struct {
	// MerchantID is optional; the Client's (WithMerchantID) when empty.
	MerchantID string `json:"merchant_id,omitempty"`
	// Amount is what to refund, a decimal string in the order's paid currency (area A its
	// crypto asset, "0.004"; areas B and C its fiat currency, "12.50"); empty for all that is
	// left. More than is left, or over the merchant's daily cap, is 400 naming amount.
	Amount string `json:"amount,omitempty"`
	// Reason is why, at most 500 characters; the server's "requested by the merchant" when
	// empty.
	Reason string `json:"reason,omitempty"`
	// Address is where an area A refund is sent (0x and 40 hex digits). Areas B and C refund
	// through the payment's provider: an address there is 400 naming address.
	Address string `json:"address,omitempty"`
}

// RefundList is an order's refunds, automatic and merchant ones, oldest first, and its
// balance: Currency is the order's paid currency (area A its crypto asset, B and C its fiat
// currency), in which AmountPaid (what the order was paid), AmountRefunded (what is refunded
// of it) and AmountRefundable (what a merchant refund may still take: an Amount above it is
// 400) are decimal strings.
type RefundList struct {
	Data             []Refund `json:"data"`
	Currency         string   `json:"currency"`
	AmountPaid       string   `json:"amount_paid"`
	AmountRefunded   string   `json:"amount_refunded"`
	AmountRefundable string   `json:"amount_refundable"`
}

// resendRequest is the body of a resend: merchant_id, optional.
type resendRequest struct {
	MerchantID string `json:"merchant_id,omitempty"`
}
