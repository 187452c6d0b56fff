package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/checkout"
)

// executionBody is the contractExecution object on the wire.
type executionBody struct {
	SmartContractFunctionID *string         `json:"smartContractFunctionId"`
	FunctionArgs            json.RawMessage `json:"function_args"`
	Payment                 *struct {
		PayableCryptoSymbol          *string `json:"payableCryptoSymbol"`
		PayableCryptoContractAddress *string `json:"payableCryptoContractAddress"`
		TotalValue                   *string `json:"totalValue"`
	} `json:"payment"`
	NetworkParams *struct {
		NetworkName    *string `json:"networkName"`
		CustomGasLimit *string `json:"customGasLimit"` // a string, as the spec types it
	} `json:"network_params"`
}

// quoteBody is A2's body; A1 adds the order fields.
type quoteBody struct {
	MerchantID            *string        `json:"merchant_id"`
	CryptoSymbol          *string        `json:"crypto_symbol"`
	CryptoNetwork         *string        `json:"crypto_network"`
	CryptoContractAddress *string        `json:"crypto_contract_address"`
	ContractExecution     *executionBody `json:"contractExecution"`
}

// mintOrderBody is A1's body: A2's fields and the order's. (Not an embedded quoteBody:
// encoding/json would name fields "quoteBody.x" in type errors.)
type mintOrderBody struct {
	MerchantID            *string        `json:"merchant_id"`
	CryptoSymbol          *string        `json:"crypto_symbol"`
	CryptoNetwork         *string        `json:"crypto_network"`
	CryptoContractAddress *string        `json:"crypto_contract_address"`
	ContractExecution     *executionBody `json:"contractExecution"`
	MerchantUserID        *string        `json:"merchant_user_id"`
	MerchantTxnID         *string        `json:"merchant_txn_id"`
	MerchantRedirectURL   *string        `json:"merchant_redirect_url"`
	MerchantWebhookURL    *string        `json:"merchant_webhook_url"`
	UserEmailID           *string        `json:"user_email_id"`
	UserFirstName         *string        `json:"user_first_name"`
	UserLastName          *string        `json:"user_last_name"`
}

func (b *quoteBody) params() (checkout.QuoteParams, error) {
	x, err := executionParams(b.ContractExecution)
	if err != nil {
		return checkout.QuoteParams{}, err
	}
	return checkout.QuoteParams{CryptoSymbol: deref(b.CryptoSymbol), CryptoNetwork: deref(b.CryptoNetwork),
		CryptoContractAddress: deref(b.CryptoContractAddress), Execution: x}, nil
}

// executionParams reads the contractExecution object (A1, A2, B1, B3): its required parts
// present, the rest for the use case to check.
func executionParams(x *executionBody) (checkout.ExecutionParams, error) {
	if x == nil {
		return checkout.ExecutionParams{}, rampway.FieldErrorf("contractExecution", "contractExecution is required")
	}
	if args := bytes.TrimSpace(x.FunctionArgs); len(args) == 0 || string(args) == "null" {
		// Required, and a JSON object: {} for a function without inputs.
		return checkout.ExecutionParams{}, rampway.FieldErrorf("contractExecution.function_args", "contractExecution.function_args is required: a JSON object, {} for a function without inputs")
	}
	if x.NetworkParams == nil {
		return checkout.ExecutionParams{}, rampway.FieldErrorf("contractExecution.network_params", "contractExecution.network_params is required")
	}
	p := checkout.ExecutionParams{FunctionID: deref(x.SmartContractFunctionID), FunctionArgs: x.FunctionArgs,
		NetworkName: deref(x.NetworkParams.NetworkName), CustomGasLimit: deref(x.NetworkParams.CustomGasLimit)}
	if x.Payment != nil {
		p.Payment = &checkout.PaymentParams{Symbol: deref(x.Payment.PayableCryptoSymbol),
			ContractAddress: x.Payment.PayableCryptoContractAddress, TotalValue: deref(x.Payment.TotalValue)}
	}
	return p, nil
}

// CryptoQuoteView is A2's answer.
type CryptoQuoteView struct {
	CryptoAmount string `json:"crypto_amount"`
	Allowed      bool   `json:"allowed"`
	Message      string `json:"message"`
	// The quote's inputs (DESIGN: every quote states them), named as the order lookup names
	// them: crypto_amount = total_value + network_fee + service_fee, in the paying asset;
	// gas_limit is the one the network fee is for.
	TotalValue string `json:"total_value"`
	NetworkFee string `json:"network_fee"`
	ServiceFee string `json:"service_fee"`
	GasLimit   uint64 `json:"gas_limit"`
}

func (s *Server) handleCryptoQuote(w http.ResponseWriter, r *http.Request) error {
	var body quoteBody
	if err := decodeJSON(r, &body, decodeOptions{}); err != nil {
		return err
	}
	if err := checkMerchantID(r, body.MerchantID); err != nil {
		return err
	}
	p, err := body.params()
	if err != nil {
		return err
	}
	m := merchantFrom(r.Context())
	p.MerchantID, p.ServiceFeeBPS, p.Livemode = m.ID, m.ServiceFeeBPS, livemodeFrom(r.Context())
	q, err := s.checkout.Quote(r.Context(), p)
	if err != nil {
		return err
	}
	d := q.Asset.Decimals
	writeJSON(w, http.StatusOK, CryptoQuoteView{CryptoAmount: rampway.FormatUnits(q.Amount, d), Allowed: q.Allowed, Message: q.Message,
		TotalValue: rampway.FormatUnits(q.Value, d), NetworkFee: rampway.FormatUnits(q.NetworkFee, d), ServiceFee: rampway.FormatUnits(q.ServiceFee, d),
		GasLimit: q.GasLimit})
	return nil
}

// MintOrderView is A1's answer.
type MintOrderView struct {
	OrderID               string  `json:"order_id"`
	CryptoSymbol          string  `json:"crypto_symbol"`
	CryptoContractAddress *string `json:"crypto_contract_address"`
	CryptoNetwork         string  `json:"crypto_network"`
	CryptoAmount          string  `json:"crypto_amount"`
	Hash                  string  `json:"hash"`
	GatewayURL            string  `json:"gateway_url"`
	Info                  string  `json:"info,omitempty"`
	// Livemode is the order's mode: the mode of the key that created it.
	Livemode bool `json:"livemode"`
}

func contractOf(a rampway.Asset) *string {
	if a.IsNative() {
		return nil
	}
	s := a.Contract.Hex()
	return &s
}

func (s *Server) handleCreateMintOrder(w http.ResponseWriter, r *http.Request) error {
	var body mintOrderBody
	if err := decodeJSON(r, &body, decodeOptions{}); err != nil {
		return err
	}
	if err := checkMerchantID(r, body.MerchantID); err != nil {
		return err
	}
	quote := quoteBody{MerchantID: body.MerchantID, CryptoSymbol: body.CryptoSymbol, CryptoNetwork: body.CryptoNetwork,
		CryptoContractAddress: body.CryptoContractAddress, ContractExecution: body.ContractExecution}
	qp, err := quote.params()
	if err != nil {
		return err
	}
	qp.ServiceFeeBPS, qp.Livemode = merchantFrom(r.Context()).ServiceFeeBPS, livemodeFrom(r.Context())
	user := map[string]string{}
	for name, v := range map[string]*string{"user_email_id": body.UserEmailID, "user_first_name": body.UserFirstName, "user_last_name": body.UserLastName} {
		if v != nil && *v != "" {
			user[name] = *v
		}
	}
	p := checkout.MintOrderParams{Quote: qp, Order: checkout.OrderParams{
		MerchantUserID: deref(body.MerchantUserID), MerchantTxnID: deref(body.MerchantTxnID),
		MerchantRedirectURL: deref(body.MerchantRedirectURL), MerchantWebhookURL: deref(body.MerchantWebhookURL), User: user}}
	return s.createOrder(w, r, func(reply func(*checkout.Created) (*rampway.IdempotentReply, error)) (*checkout.Created, error) {
		p.Reply = reply
		return s.checkout.CreateMintOrder(r.Context(), merchantFrom(r.Context()), p)
	}, func(c *checkout.Created) any { return mintOrderView(c) })
}

func mintOrderView(c *checkout.Created) MintOrderView {
	o := c.Order
	return MintOrderView{OrderID: o.ID, CryptoSymbol: o.Asset.Symbol, CryptoContractAddress: contractOf(o.Asset),
		CryptoNetwork: o.Network, CryptoAmount: rampway.FormatUnits(o.CryptoAmount, o.Asset.Decimals), Hash: c.Hash, GatewayURL: c.GatewayURL, Info: c.Info,
		Livemode: o.Livemode}
}

// OrderView is a stored order as the lookup endpoints return it.
type OrderView struct {
	OrderID                 string          `json:"order_id"`
	Livemode                bool            `json:"livemode"`
	Status                  string          `json:"status"`
	MerchantID              string          `json:"merchant_id"`
	MerchantUserID          string          `json:"merchant_user_id"`
	MerchantTxnID           string          `json:"merchant_txn_id"`
	MerchantRedirectURL     string          `json:"merchant_redirect_url"`
	MerchantWebhookURL      string          `json:"merchant_webhook_url"`
	CryptoSymbol            string          `json:"crypto_symbol"`
	CryptoContractAddress   *string         `json:"crypto_contract_address"`
	CryptoNetwork           string          `json:"crypto_network"`
	CryptoAmount            string          `json:"crypto_amount"`
	CryptoAmountReceived    string          `json:"crypto_amount_received"`
	DepositAddress          string          `json:"deposit_address"`
	SmartContractFunctionID string          `json:"smartContractFunctionId"`
	FunctionArgs            json.RawMessage `json:"function_args"`
	TotalValue              string          `json:"total_value"`
	NetworkFee              string          `json:"network_fee"`
	ServiceFee              string          `json:"service_fee"`
	GasLimit                uint64          `json:"gas_limit"`
	DepositTxHashes         []string        `json:"deposit_tx_hashes"`
	Deposits                []DepositView   `json:"deposits"`
	ExecutionTxHash         *string         `json:"execution_tx_hash"`
	FailureReason           *string         `json:"failure_reason"`
	Refunds                 []RefundView    `json:"refunds"`
	// RefundedAmount is what the merchant's refunds paid back add up to, in the order's
	// refund currency (area A its asset, areas B and C its fiat currency).
	RefundedAmount string            `json:"refunded_amount"`
	User           map[string]string `json:"user"`
	// Areas B and C: the fiat side (absent for area A).
	OrderFiatSymbol   string              `json:"order_fiat_symbol,omitempty"`
	OrderFiatAmount   string              `json:"order_fiat_amount,omitempty"`
	FiatPaymentMethod string              `json:"fiat_payment_method,omitempty"`
	FiatPayment       *FiatPaymentView    `json:"fiat_payment,omitempty"`
	FiatMovements     *[]FiatMovementView `json:"fiat_movements,omitempty"` // [] for a B or C order without any
	GatewayURL        string              `json:"gateway_url"`
	ExpiresAt         string              `json:"expires_at"`
	CreatedAt         string              `json:"created_at"`
	UpdatedAt         string              `json:"updated_at"`
}

// RefundView is money owed back to the payer of an order.
type RefundView = rampway.EventRefund

// DepositView is a payment seen for an order (a chain reorganisation's dropped ones are not
// shown): its transaction and log index (null for a native transfer, which has no log),
// payer, amount in whole units of the order's asset, block, and whether it is credited yet
// (status "seen" until its block is confirmations deep, then "confirmed").
type DepositView struct {
	TxHash      string `json:"tx_hash"`
	LogIndex    *int64 `json:"log_index"`
	FromAddress string `json:"from_address"`
	Amount      string `json:"amount"`
	BlockNumber uint64 `json:"block_number"`
	Status      string `json:"status"`
	SeenAt      string `json:"seen_at"`
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func (s *Server) orderView(ctx context.Context, o *rampway.Order) (OrderView, error) {
	refunds, err := s.checkout.Refunds(ctx, o)
	if err != nil {
		return OrderView{}, err
	}
	transfers, err := s.checkout.Transfers(ctx, o)
	if err != nil {
		return OrderView{}, err
	}
	d := o.Asset.Decimals
	v := OrderView{OrderID: o.ID, Livemode: o.Livemode, Status: string(o.Status), MerchantID: o.MerchantID, MerchantUserID: o.MerchantUserID,
		MerchantTxnID: o.MerchantTxnID, MerchantRedirectURL: o.MerchantRedirectURL, MerchantWebhookURL: o.MerchantWebhookURL,
		CryptoSymbol: o.Asset.Symbol, CryptoContractAddress: contractOf(o.Asset), CryptoNetwork: o.Network,
		CryptoAmount: rampway.FormatUnits(o.CryptoAmount, d), CryptoAmountReceived: rampway.FormatUnits(o.CryptoReceived, d),
		SmartContractFunctionID: o.FunctionID, FunctionArgs: o.FunctionArgs, TotalValue: rampway.FormatUnits(o.PaymentValue, d),
		NetworkFee: rampway.FormatUnits(o.NetworkFee, d), ServiceFee: rampway.FormatUnits(o.ServiceFee, d), GasLimit: o.GasLimit,
		ExecutionTxHash: optional(o.ExecutionTxHash), FailureReason: optional(o.FailureReason), User: o.User,
		GatewayURL: s.checkout.GatewayURL(o.ID), ExpiresAt: o.ExpiresAt.UTC().Format(TimeFormat),
		CreatedAt: o.CreatedAt.UTC().Format(TimeFormat), UpdatedAt: o.UpdatedAt.UTC().Format(TimeFormat)}
	if o.DepositAddress != ([20]byte{}) {
		v.DepositAddress = o.DepositAddress.Hex()
	}
	if o.PayoutAddress != ([20]byte{}) {
		v.DepositAddress = o.PayoutAddress.Hex() // area C: the merchant's, where the asset goes
	}
	// The user's contact fields only: identity data (KYC: mobile, date of birth, address,
	// country) is shown to nobody but the order's page.
	v.User = map[string]string{}
	for _, k := range []string{"user_email_id", "user_first_name", "user_last_name"} {
		if x := o.User[k]; x != "" {
			v.User[k] = x
		}
	}
	if err := s.fiatView(ctx, o, &v); err != nil {
		return OrderView{}, err
	}
	v.Refunds = rampway.EventRefunds(refunds, o)
	v.RefundedAmount = o.FormatRefundAmount(rampway.MerchantRefundTotals(o, refunds).Refunded)
	v.DepositTxHashes, v.Deposits = []string{}, make([]DepositView, len(transfers))
	for i, t := range transfers {
		v.Deposits[i] = DepositView{TxHash: t.TxHash.Hex(), FromAddress: t.From.Hex(),
			Amount: rampway.FormatUnits(t.Amount, d), BlockNumber: t.BlockNumber, Status: string(t.Status), SeenAt: t.CreatedAt.UTC().Format(TimeFormat)}
		if t.LogIndex >= 0 { // a native transfer is stored with -1: it has no log
			v.Deposits[i].LogIndex = &t.LogIndex
		}
		if !slices.Contains(v.DepositTxHashes, v.Deposits[i].TxHash) {
			v.DepositTxHashes = append(v.DepositTxHashes, v.Deposits[i].TxHash)
		}
	}
	return v, nil
}

func (s *Server) handleGetOrder(area rampway.Area) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if err := checkQueryMerchantID(r); err != nil {
			return err
		}
		o, err := s.checkout.Order(r.Context(), scopeFrom(r.Context()), area, r.PathValue("order_id"))
		if err != nil {
			return err
		}
		v, err := s.orderView(r.Context(), o)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, v)
		return nil
	}
}

func (s *Server) handleListOrders(area rampway.Area) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if err := checkQueryMerchantID(r); err != nil {
			return err
		}
		q := r.URL.Query()
		live := livemodeFrom(r.Context())
		f := rampway.OrderFilter{MerchantID: merchantFrom(r.Context()).ID, Livemode: live, Area: area, Status: rampway.OrderStatus(q.Get("status")),
			Before: q.Get("starting_after"), Limit: 20}
		if f.Status != "" && !f.Status.Valid() {
			return rampway.FieldErrorf("status", "status %q is not an order status; one of %s", rampway.Echo(string(f.Status)), statusList)
		}
		if v := q.Get("limit"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 100 {
				return rampway.FieldErrorf("limit", "limit must be an integer between 1 and 100")
			}
			f.Limit = n
		}
		for _, t := range []struct {
			name string
			dst  *time.Time
		}{{"created_from", &f.CreatedFrom}, {"created_to", &f.CreatedTo}} {
			if v := q.Get(t.name); v != "" {
				at, err := time.Parse(time.RFC3339Nano, v)
				if err != nil {
					return rampway.FieldErrorf(t.name, "%s must be an ISO-8601 time such as 2026-11-21T14:00:00Z", t.name)
				}
				*t.dst = at
			}
		}
		if f.Before != "" {
			// The cursor must be one of the merchant's orders in this list. Another merchant's
			// is answered as an unknown one (the list does not tell which ids exist), and an
			// unknown one is refused rather than read as an empty page.
			if _, err := s.checkout.Order(r.Context(), scopeFrom(r.Context()), area, f.Before); rampway.ErrorCode(err) == rampway.ENOTFOUND {
				return rampway.FieldErrorf("starting_after", "starting_after must be the order_id of one of your orders")
			} else if err != nil {
				return err
			}
		}
		limit := f.Limit
		f.Limit++
		orders, err := s.checkout.Orders(r.Context(), f)
		if err != nil {
			return err
		}
		out := ListView[OrderView]{Data: []OrderView{}, HasMore: len(orders) > limit}
		for i, o := range orders {
			if i == limit {
				break
			}
			v, err := s.orderView(r.Context(), o)
			if err != nil {
				return err
			}
			out.Data = append(out.Data, v)
		}
		writeJSON(w, http.StatusOK, out)
		return nil
	}
}

// statusList names every order status, for error messages.
var statusList = func() string {
	var names []string
	for _, s := range rampway.OrderStatuses {
		names = append(names, string(s))
	}
	return strings.Join(names, ", ")
}()

// checkQueryMerchantID applies the merchant_id rule to GET requests that carry one.
func checkQueryMerchantID(r *http.Request) error {
	if q := r.URL.Query(); q.Has("merchant_id") {
		id := q.Get("merchant_id")
		return checkMerchantID(r, &id)
	}
	return nil
}
