// Request and response types of rampway's merchant API, as httpapi/openapi.json describes them
// (schema names in brackets). Amounts are exact decimal strings in whole units of their asset
// ("0.010263" ETH, "29.65" EUR): never JSON numbers, never floats. Times are ISO-8601 UTC
// strings with milliseconds.

/** An exact decimal amount in whole units of its asset, e.g. "0.010263" (DecimalAmount). */
export type DecimalAmount = string;

/** An order's state (OrderStatus). */
export type OrderStatus =
  | "CREATED"
  | "DEPOSIT_PROCESSING"
  | "UNDERPAID"
  | "DEPOSIT_SUCCESS"
  | "ONRAMP_PROCESSING"
  | "ONRAMP_SUCCESS"
  | "SMARTCONTRACT_PROCESSING"
  | "SUCCESS"
  | "EXPIRED"
  | "CANCELLED"
  | "FAILED"
  | "REFUND_PENDING"
  | "REFUNDED";

/**
 * A payment method id (the value of fiat_payment_method). The list is open-ended: these are the
 * ones the spec names.
 */
export type FiatPaymentMethod =
  | "credit_debit_card"
  | "apple_pay"
  | "google_pay"
  | "sepa_bank_transfer"
  | "gbp_bank_transfer"
  | "pm_open_banking"
  | "pm_cash_app"
  | "pm_jwire"
  | (string & {});

/** The smart-contract call an order pays for (ContractExecution). */
export interface ContractExecution {
  /** Id of a function the merchant registered (scf_…). */
  smartContractFunctionId: string;
  /** The function's arguments keyed by ABI input name; each value must fit its ABI type. */
  function_args: Record<string, unknown>;
  /** Required when the function is paid; left out (or null) when it is not. */
  payment?: ContractExecutionPayment | null;
  network_params: NetworkParams;
}

/** What the call is paid (ContractExecutionPayment). */
export interface ContractExecutionPayment {
  payableCryptoSymbol: string;
  /** The token's contract address; "" for the native coin; left out: the symbol names it. */
  payableCryptoContractAddress?: string | null;
  /** Whole units, not wei: "0.01". */
  totalValue: DecimalAmount;
}

/** The network of the call (NetworkParams). */
export interface NetworkParams {
  networkName: string;
  /** A whole number as a string, 21000 to 30000000. */
  customGasLimit?: string;
}

/** Fields every merchant body may carry; the client fills merchant_id in when it knows it. */
export interface MerchantScoped {
  /** The merchant's id (mch_…); defaults to the client's merchantId. */
  merchant_id?: string;
}

/** The order fields shared by A1, B1 and C1. */
export interface OrderFields extends MerchantScoped {
  /** The merchant's id of its user. */
  merchant_user_id: string;
  /** The merchant's own order id; carried by the order's webhook events. */
  merchant_txn_id?: string;
  /** Where the checkout page returns the user: an absolute http(s) URL. */
  merchant_redirect_url: string;
  /** Where this order's webhook events go, instead of the merchant's webhook_url. */
  merchant_webhook_url?: string;
  user_email_id?: string;
  user_first_name?: string;
  user_last_name?: string;
}

/** The user's identity fields of B1 and C1: they prefill the page's identity step. */
export interface UserIdentityFields {
  /** E.164: "+4915112345678". */
  user_mobileNumber?: string;
  /** yyyy-mm-dd. */
  user_dob?: string;
  user_addressLine1?: string;
  user_addressLine2?: string;
  user_city?: string;
  user_state?: string;
  user_postCode?: string;
  /** ISO 3166-1 alpha-2, in capitals. */
  user_countryCode?: string;
}

// ---- Area A: NFT minting paid in crypto ----

/** A2 request (CryptoQuoteRequest). */
export interface CryptoQuoteRequest extends MerchantScoped {
  crypto_symbol: string;
  crypto_network: string;
  /** Required for a token; null, "" or left out for the native coin. */
  crypto_contract_address?: string | null;
  contractExecution: ContractExecution;
}

/** A2 answer (CryptoQuote). */
export interface CryptoQuote {
  crypto_amount: DecimalAmount;
  allowed: boolean;
  message: string;
  total_value: DecimalAmount;
  network_fee: DecimalAmount;
  service_fee: DecimalAmount;
  gas_limit: number;
}

/** A1 request (MintOrderRequest). */
export interface MintOrderRequest extends OrderFields {
  crypto_symbol: string;
  crypto_network: string;
  crypto_contract_address?: string | null;
  contractExecution: ContractExecution;
}

/** A1 answer (MintOrder). */
export interface MintOrder {
  order_id: string;
  crypto_symbol: string;
  /** Null for a native coin. */
  crypto_contract_address: string | null;
  crypto_network: string;
  crypto_amount: DecimalAmount;
  hash: string;
  gateway_url: string;
  /** Only when merchant_webhook_url was given and the merchant has no webhook secret. */
  info?: string;
  /** The order's mode, the mode of the API key that created it: true live (rw_live_), false test (rw_test_). */
  livemode: boolean;
}

/** The body of the merchant's refund address route (MerchantRefundAddressRequest). */
export interface RefundAddressRequest extends MerchantScoped {
  /** 0x + 40 hex digits. */
  address: string;
}

// ---- Area B: NFT checkout paid in fiat ----

/** B3 request (FiatQuoteRequest). */
export interface FiatQuoteRequest extends MerchantScoped {
  order_fiat_symbol: string;
  fiat_payment_method: FiatPaymentMethod;
  contractExecution: ContractExecution;
}

/** B3 answer (FiatQuote); 200 also when allowed is false. */
export interface FiatQuote {
  /** "" below the method's minimum. */
  fiat_amount: string;
  fiat_symbol: string;
  payable_crypto_symbol: string;
  payable_crypto_contract_address: string | null;
  payable_crypto_network: string;
  payable_crypto_amount: DecimalAmount;
  allowed: boolean;
  message: string;
  fiat_payment_method: FiatPaymentMethod;
  total_value: DecimalAmount;
  network_fee: DecimalAmount;
  service_fee: DecimalAmount;
  gas_limit: number;
  crypto_price_usd: DecimalAmount;
  fiat_price_usd: DecimalAmount;
  fiat_subtotal: DecimalAmount;
  fiat_spread: DecimalAmount;
  fiat_method_fee: DecimalAmount;
  expires_at: string;
}

/** B1 request (FiatOrderRequest). */
export interface FiatOrderRequest extends OrderFields, UserIdentityFields {
  order_fiat_symbol: string;
  fiat_payment_method: FiatPaymentMethod;
  contractExecution: ContractExecution;
}

/** B1 answer (FiatOrder). */
export interface FiatOrder {
  order_id: string;
  order_fiat_symbol: string;
  fiat_payment_method: FiatPaymentMethod;
  /** Major units with the currency's minor-unit digits: "28.80". */
  order_fiat_amount: DecimalAmount;
  hash: string;
  gateway_url: string;
  info?: string;
  /** The order's mode, the mode of the API key that created it: true live (rw_live_), false test (rw_test_). */
  livemode: boolean;
}

/** B2 and C2 answer (FiatCurrencies). */
export interface FiatCurrencies {
  currencies: FiatCurrency[];
}

/** A fiat currency with its payment methods (FiatCurrency). */
export interface FiatCurrency {
  symbol: string;
  name: string;
  /** ISO alpha-2 codes. */
  supportedCountries: string[];
  paymentOptions: PaymentOption[];
}

/** A payment method of a currency (PaymentOption). */
export interface PaymentOption {
  /** The value used as fiat_payment_method. */
  id: FiatPaymentMethod;
  name: string;
  icon: string;
  /** Whole major units. */
  minAmount: number;
  maxAmount: number;
}

// ---- Area C: on-ramp to a merchant deposit ----

/** C1 request (DepositOrderRequest). */
export interface DepositOrderRequest extends OrderFields, UserIdentityFields {
  order_fiat_symbol: string;
  /** Major units: "100.00". */
  order_fiat_amount: DecimalAmount;
  convert_to_crypto_symbol: string;
  convert_to_crypto_network: string;
  /** The token's contract address; optional (symbol and network name the asset). */
  convert_to_crypto_contractAddress?: string;
  /** Given: the page skips its quotes screen. Left out: the user chooses on the page. */
  fiat_payment_method?: FiatPaymentMethod;
}

/** C1 answer (DepositOrder). */
export interface DepositOrder {
  order_id: string;
  order_fiat_symbol: string;
  order_fiat_amount: DecimalAmount;
  convert_to_crypto_symbol: string;
  convert_to_crypto_network: string;
  /** Null for the native coin. */
  convert_to_crypto_contractAddress: string | null;
  /** What the merchant's deposit address receives (an estimate until the method is chosen). */
  crypto_amount: DecimalAmount;
  /** Present when the request gave one. */
  fiat_payment_method?: FiatPaymentMethod;
  hash: string;
  gateway_url: string;
  info?: string;
  /** The order's mode, the mode of the API key that created it: true live (rw_live_), false test (rw_test_). */
  livemode: boolean;
}

// ---- Lookups and lists (all areas) ----

/** A stored order as the lookups and lists answer it (Order). */
export interface Order {
  order_id: string;
  /** The order's mode: true live, false test. A key looks up and lists only the orders of its own mode. */
  livemode: boolean;
  status: OrderStatus;
  merchant_id: string;
  merchant_user_id: string;
  /** "" when none was given. */
  merchant_txn_id: string;
  merchant_redirect_url: string;
  /** "" when none was given. */
  merchant_webhook_url: string;
  crypto_symbol: string;
  crypto_contract_address: string | null;
  crypto_network: string;
  crypto_amount: DecimalAmount;
  crypto_amount_received: DecimalAmount;
  /** Area A: the order's deposit address; area C: the merchant's; "" for area B. */
  deposit_address: string;
  /** "" for area C. */
  smartContractFunctionId: string;
  function_args: unknown;
  total_value: DecimalAmount;
  network_fee: DecimalAmount;
  service_fee: DecimalAmount;
  gas_limit: number;
  deposit_tx_hashes: string[];
  deposits: Deposit[];
  execution_tx_hash: string | null;
  failure_reason: string | null;
  refunds: Refund[];
  /** What the order's merchant refunds paid back (status done), in the order's paid currency. */
  refunded_amount: DecimalAmount;
  user: Record<string, string>;
  /** Areas B and C only. */
  order_fiat_symbol?: string;
  order_fiat_amount?: DecimalAmount;
  fiat_payment_method?: FiatPaymentMethod;
  /** Areas B and C, once the user started a payment. */
  fiat_payment?: FiatPayment;
  fiat_movements?: FiatMovement[];
  gateway_url: string;
  expires_at: string;
  created_at: string;
  updated_at: string;
}

/** A page of orders (OrderList), newest first. */
export interface OrderList {
  data: Order[];
  /** More follow: ask again with starting_after the last order_id. */
  has_more: boolean;
}

/** Filters and paging of the order lists. */
export interface ListOrdersParams {
  /** Only orders in this status. */
  status?: OrderStatus;
  /** Only orders created at or after this time. */
  created_from?: string | Date;
  /** Only orders created before this time. */
  created_to?: string | Date;
  /** Page size, 1 to 100 (the server's default is 20; the iterators ask for 100). */
  limit?: number;
  /** The order_id after which the page starts (older orders). */
  starting_after?: string;
}

/** A payment seen for an order (Deposit). */
export interface Deposit {
  tx_hash: string;
  /** Null for a native transfer. */
  log_index: number | null;
  from_address: string;
  amount: DecimalAmount;
  block_number: number;
  status: "seen" | "confirmed";
  seen_at: string;
}

/**
 * Money going back to an order's payer (Refund): an automatic refund (an overpayment's excess,
 * a late payment, a failed order's payment) or one the merchant asked for with createRefund. The order lookup lists them under `refunds`, webhook contexts carry
 * them, and createRefund and setRefundAddress answer one.
 */
export interface Refund {
  /** rfd_…. */
  refund_id: string;
  /** Who started it: the merchant (createRefund) or rampway itself. */
  origin: "merchant" | "automatic";
  /** In the order's paid currency: area A the crypto asset, areas B and C the fiat currency. */
  amount: DecimalAmount;
  /** amount's currency: "ETH", "EUR". */
  currency: string;
  /** "" until known. Area A: the network fee taken out of amount; areas B and C: "0.00" once done. */
  fee: string;
  /** Area A: as fee; "" for areas B and C. */
  network_fee: string;
  /** "" until it is sent. Area A: amount - fee; areas B and C: amount, once done. */
  amount_sent: string;
  reason: string;
  status: RefundStatus;
  /** Why it waits, or why it was not paid; "" otherwise. */
  status_reason: string;
  /** Where it goes: an address (area A), or the payment it goes back to (B and C), e.g. "card visa ****4242", "sepa_bank_transfer". */
  destination: string;
  /** Area A: where it is sent; "" while none is known, and for areas B and C. */
  to_address: string;
  /** Area A: its transaction, once sent; "" otherwise. */
  tx_hash: string;
  /** Areas B and C: the payment provider's refund id, once done; "" otherwise. */
  provider_reference: string;
  created_at: string;
  updated_at: string;
}

/** A refund's state (Refund.status). */
export type RefundStatus = "pending" | "awaiting_address" | "awaiting_approval" | "sent" | "done" | "failed" | "dust";

/** The body of createRefund (RefundRequest); every field is optional. Unknown fields are 400. */
export interface RefundRequest extends MerchantScoped {
  /**
   * How much, in the order's paid currency (area A the crypto asset, B and C the fiat
   * currency): "12.50". Left out: all that is left to refund.
   */
  amount?: DecimalAmount;
  /** Why, at most 500 characters; "requested by the merchant" when left out. */
  reason?: string;
  /** Area A only: where the refund is sent (0x + 40 hex digits). Areas B and C refuse it (400). */
  address?: string;
}

/** An order's refunds (RefundList), as listRefunds answers them. */
export interface RefundList {
  /** Every refund of the order, automatic and merchant ones, oldest first. */
  data: Refund[];
  /** The order's paid currency, the currency of the amounts below. */
  currency: string;
  /** What the order was paid. */
  amount_paid: DecimalAmount;
  /** What is refunded so far. */
  amount_refunded: DecimalAmount;
  /** What is left to refund: the most a createRefund may ask for now. */
  amount_refundable: DecimalAmount;
}

/** An order's fiat payment (FiatPayment). */
export interface FiatPayment {
  method: FiatPaymentMethod;
  status: "pending" | "processing" | "authorized" | "succeeded" | "failed" | "voided" | "refunded";
  amount: DecimalAmount;
  currency: string;
  /** Bank transfers: the text the user writes on the transfer. */
  reference: string;
  provider_ref: string;
  card_brand?: string;
  card_last4?: string;
  created_at: string;
}

/** A capture, void or refund of an order's fiat payment (FiatMovement). */
export interface FiatMovement {
  kind: "capture" | "void" | "refund";
  amount: DecimalAmount;
  currency: string;
  status: "pending" | "done";
  reason: string;
  created_at: string;
}

// ---- Webhook delivery log ----

/** A webhook delivery as the log shows it (Delivery). */
export interface Delivery {
  event_id: string;
  event_name: string;
  order_id: string;
  url: string;
  status: "pending" | "delivered" | "failed";
  held: boolean;
  held_since: string | null;
  attempt_count: number;
  next_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
  attempts: DeliveryAttempt[];
}

/** One POST of a delivery (DeliveryAttempt). */
export interface DeliveryAttempt {
  attempt: number;
  at: string;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
}

/** An order's webhook log (DeliveryLog): every event of the order, in event order. */
export interface DeliveryLog {
  data: Delivery[];
  /** Always false: the whole log is answered. */
  has_more: boolean;
}

/** The error envelope of every error answer (Error). */
export interface ErrorEnvelope {
  /** The HTTP status, except 403 for invalid function arguments (HTTP 400). */
  statusCode: number;
  timestamp: string;
  message: string;
  path: string;
  status: false;
}
