package httpapi

import (
	"context"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strconv"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/checkout"
	"github.com/rampway/rampway/provider"
)

// userBody is the user_* fields B1 and C1 take (embedded: encoding/json reads them as the
// body's own; decodeJSON names a wrong one by its JSON name alone).
type userBody struct {
	UserEmailID      *string `json:"user_email_id"`
	UserFirstName    *string `json:"user_first_name"`
	UserLastName     *string `json:"user_last_name"`
	UserMobileNumber *string `json:"user_mobileNumber"`
	UserDOB          *string `json:"user_dob"`
	UserAddressLine1 *string `json:"user_addressLine1"`
	UserAddressLine2 *string `json:"user_addressLine2"`
	UserCity         *string `json:"user_city"`
	UserState        *string `json:"user_state"`
	UserPostCode     *string `json:"user_postCode"`
	UserCountryCode  *string `json:"user_countryCode"`
}

// user returns the fields given, by API name.
func (b *userBody) user() map[string]string {
	user := map[string]string{}
	for name, v := range map[string]*string{"user_email_id": b.UserEmailID, "user_first_name": b.UserFirstName,
		"user_last_name": b.UserLastName, "user_mobileNumber": b.UserMobileNumber, "user_dob": b.UserDOB,
		"user_addressLine1": b.UserAddressLine1, "user_addressLine2": b.UserAddressLine2, "user_city": b.UserCity,
		"user_state": b.UserState, "user_postCode": b.UserPostCode, "user_countryCode": b.UserCountryCode} {
		if v != nil && *v != "" {
			user[name] = *v
		}
	}
	return user
}

// fiatOrderBody is B1's body.
type fiatOrderBody struct {
	OrderFiatSymbol     *string        `json:"order_fiat_symbol"`
	FiatPaymentMethod   *string        `json:"fiat_payment_method"`
	ContractExecution   *executionBody `json:"contractExecution"`
	MerchantID          *string        `json:"merchant_id"`
	MerchantUserID      *string        `json:"merchant_user_id"`
	MerchantTxnID       *string        `json:"merchant_txn_id"`
	MerchantRedirectURL *string        `json:"merchant_redirect_url"`
	MerchantWebhookURL  *string        `json:"merchant_webhook_url"`
	userBody
}

// FiatOrderView is B1's answer.
type FiatOrderView struct {
	OrderID           string `json:"order_id"`
	OrderFiatSymbol   string `json:"order_fiat_symbol"`
	FiatPaymentMethod string `json:"fiat_payment_method"`
	OrderFiatAmount   string `json:"order_fiat_amount"`
	Hash              string `json:"hash"`
	GatewayURL        string `json:"gateway_url"`
	Info              string `json:"info,omitempty"`
	// Livemode is the order's mode: the mode of the key that created it.
	Livemode bool `json:"livemode"`
}

func fiatOrderView(c *checkout.Created) FiatOrderView {
	o := c.Order
	return FiatOrderView{OrderID: o.ID, OrderFiatSymbol: o.FiatSymbol, FiatPaymentMethod: o.FiatMethod,
		OrderFiatAmount: rampway.FormatFixed(o.FiatAmount, o.FiatDecimals), Hash: c.Hash, GatewayURL: c.GatewayURL, Info: c.Info,
		Livemode: o.Livemode}
}

func (s *Server) handleCreateFiatOrder(w http.ResponseWriter, r *http.Request) error {
	var body fiatOrderBody
	if err := decodeJSON(r, &body, decodeOptions{}); err != nil {
		return err
	}
	if err := checkMerchantID(r, body.MerchantID); err != nil {
		return err
	}
	x, err := executionParams(body.ContractExecution)
	if err != nil {
		return err
	}
	m := merchantFrom(r.Context())
	p := checkout.FiatOrderParams{
		Quote: checkout.FiatQuoteParams{MerchantID: m.ID, Livemode: livemodeFrom(r.Context()), FiatSymbol: deref(body.OrderFiatSymbol), Method: deref(body.FiatPaymentMethod),
			Execution: x, ServiceFeeBPS: m.ServiceFeeBPS},
		Order: checkout.OrderParams{MerchantUserID: deref(body.MerchantUserID), MerchantTxnID: deref(body.MerchantTxnID),
			MerchantRedirectURL: deref(body.MerchantRedirectURL), MerchantWebhookURL: deref(body.MerchantWebhookURL), User: body.user()}}
	return s.createOrder(w, r, func(reply func(*checkout.Created) (*rampway.IdempotentReply, error)) (*checkout.Created, error) {
		p.Reply = reply
		return s.checkout.CreateFiatOrder(r.Context(), m, p)
	}, func(c *checkout.Created) any { return fiatOrderView(c) })
}

// createOrder runs an order creation (A1, B1) and answers 201 with view(order). With an
// Idempotency-Key, the answer is stored with the order in the same write (a retry under the
// same key replays this order even when this process dies before the answer is sent).
func (s *Server) createOrder(w http.ResponseWriter, r *http.Request,
	create func(reply func(*checkout.Created) (*rampway.IdempotentReply, error)) (*checkout.Created, error), view func(*checkout.Created) any) error {
	var reply []byte
	claim := claimFrom(r.Context())
	var replyFn func(*checkout.Created) (*rampway.IdempotentReply, error)
	if claim != nil {
		replyFn = func(c *checkout.Created) (*rampway.IdempotentReply, error) {
			var err error
			reply, err = encodeJSON(view(c))
			return &rampway.IdempotentReply{IdempotencyClaim: claim.IdempotencyClaim, Status: http.StatusCreated, Body: reply}, err
		}
	}
	c, err := create(replyFn)
	if err != nil {
		return err
	}
	if claim == nil {
		writeJSON(w, http.StatusCreated, view(c))
		return nil
	}
	claim.stored = true
	writeJSONBytes(w, http.StatusCreated, reply)
	return nil
}

// FiatPaymentView is an order's fiat payment as the lookups show it (DESIGN.md: method,
// status, amount, currency, reference), with the card's brand and last four digits.
type FiatPaymentView struct {
	Method    string `json:"method"`
	Status    string `json:"status"`
	Amount    string `json:"amount"`
	Currency  string `json:"currency"`
	Reference string `json:"reference"`
	// ProviderRef is the provider's id of the payment (a card provider's payment intent id), for
	// reconciliation with its dashboard; "" until the provider has one.
	ProviderRef string `json:"provider_ref"`
	CardBrand   string `json:"card_brand,omitempty"`
	CardLast4   string `json:"card_last4,omitempty"`
	CreatedAt   string `json:"created_at"`
}

// FiatMovementView is a capture, void or refund of an order's fiat payment.
type FiatMovementView struct {
	Kind      string `json:"kind"`
	Amount    string `json:"amount"`
	Currency  string `json:"currency"`
	Status    string `json:"status"`
	Reason    string `json:"reason"`
	CreatedAt string `json:"created_at"`
}

// fiatView fills the fiat fields of a B or C order's lookup: its fiat payment (the one that
// paid it, else the latest attempt; null before any) and its fiat movements.
func (s *Server) fiatView(ctx context.Context, o *rampway.Order, v *OrderView) error {
	if o.FiatSymbol == "" {
		return nil
	}
	ps, err := s.checkout.FiatPayments(ctx, o)
	if err != nil {
		return err
	}
	as, err := s.checkout.FiatActions(ctx, o)
	if err != nil {
		return err
	}
	v.OrderFiatSymbol, v.OrderFiatAmount, v.FiatPaymentMethod = o.FiatSymbol, rampway.FormatFixed(o.FiatAmount, o.FiatDecimals), o.FiatMethod
	var p *rampway.FiatPayment
	for _, x := range ps {
		if x.ID == o.FiatPaymentID || o.FiatPaymentID == "" {
			p = x
		}
	}
	if p != nil {
		v.FiatPayment = &FiatPaymentView{Method: p.Method, Status: string(p.Status), Amount: rampway.FormatFixed(p.Amount, p.Decimals),
			Currency: p.Currency, Reference: p.Reference, ProviderRef: p.ProviderRef, CardBrand: p.CardBrand, CardLast4: p.CardLast4, CreatedAt: p.CreatedAt.UTC().Format(TimeFormat)}
	}
	ms := make([]FiatMovementView, len(as))
	v.FiatMovements = &ms
	for i, a := range as {
		ms[i] = FiatMovementView{Kind: string(a.Kind), Amount: rampway.FormatFixed(a.Amount, o.FiatDecimals), Currency: a.Currency,
			Status: string(a.Status), Reason: a.Reason, CreatedAt: a.CreatedAt.UTC().Format(TimeFormat)}
	}
	return nil
}

// maxProviderWebhook bounds a provider notification's body.
const maxProviderWebhook = 64 << 10

// handleProviderWebhook receives a payment provider's notification: verified by the provider
// (400, nothing applied, for a bad signature), applied once by event id (a duplicate is 200).
func (s *Server) handleProviderWebhook(w http.ResponseWriter, r *http.Request) error {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxProviderWebhook))
	if err != nil {
		return rampway.Errorf(rampway.ETOOLARGE, "the notification is larger than %d bytes", maxProviderWebhook)
	}
	applied, err := s.checkout.ProviderWebhook(r.Context(), r.PathValue("provider"), r.Header, body)
	if errors.Is(err, checkout.ErrIgnored) {
		// Signed by the provider, about a payment this service never started (another
		// installation on the same provider account), or of a kind it does not act on:
		// acknowledged, or it is sent for ever.
		s.log.Warn("provider notification ignored", "provider", r.PathValue("provider"), "error", err)
		writeJSON(w, http.StatusOK, map[string]bool{"received": true, "duplicate": false, "ignored": true})
		return nil
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]bool{"received": true, "duplicate": !applied, "ignored": false})
	return nil
}

// adminOp serves a payment provider's operation (provider.AdminOp): a JSON body of its
// fields, each a required string (read as every body is: unknown fields and wrong types
// refused with the same messages), answered 201 with the operation's answer.
func adminOp(op provider.AdminOp) handlerFunc {
	typ := opBody(op)
	return func(w http.ResponseWriter, r *http.Request) error {
		body := reflect.New(typ)
		if err := decodeJSON(r, body.Interface(), decodeOptions{strict: true}); err != nil {
			return err
		}
		fields := map[string]string{}
		for i, name := range op.Fields {
			v, _ := body.Elem().Field(i).Interface().(*string)
			if v == nil || *v == "" {
				return rampway.FieldErrorf(name, "%s is required", name)
			}
			fields[name] = *v
		}
		out, err := op.Do(r.Context(), fields)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusCreated, out)
		return nil
	}
}

// opBody is the body of a provider's operation: a struct of its fields, each a *string.
func opBody(op provider.AdminOp) reflect.Type {
	var fields []reflect.StructField
	for _, f := range op.Fields {
		fields = append(fields, reflect.StructField{Name: "F" + strconv.Itoa(len(fields)), Type: reflect.TypeFor[*string](),
			Tag: reflect.StructTag(`json:"` + f + `"`)})
	}
	return reflect.StructOf(fields)
}

// depositOrderBody is C1's body.
type depositOrderBody struct {
	OrderFiatSymbol                *string `json:"order_fiat_symbol"`
	OrderFiatAmount                *string `json:"order_fiat_amount"`
	ConvertToCryptoSymbol          *string `json:"convert_to_crypto_symbol"`
	ConvertToCryptoNetwork         *string `json:"convert_to_crypto_network"`
	ConvertToCryptoContractAddress *string `json:"convert_to_crypto_contractAddress"`
	MerchantID                     *string `json:"merchant_id"`
	MerchantUserID                 *string `json:"merchant_user_id"`
	MerchantTxnID                  *string `json:"merchant_txn_id"`
	MerchantRedirectURL            *string `json:"merchant_redirect_url"`
	MerchantWebhookURL             *string `json:"merchant_webhook_url"`
	FiatPaymentMethod              *string `json:"fiat_payment_method"`
	userBody
}

// DepositOrderView is C1's answer (DESIGN.md's area C response).
type DepositOrderView struct {
	OrderID                        string  `json:"order_id"`
	OrderFiatSymbol                string  `json:"order_fiat_symbol"`
	OrderFiatAmount                string  `json:"order_fiat_amount"`
	ConvertToCryptoSymbol          string  `json:"convert_to_crypto_symbol"`
	ConvertToCryptoNetwork         string  `json:"convert_to_crypto_network"`
	ConvertToCryptoContractAddress *string `json:"convert_to_crypto_contractAddress"`
	// CryptoAmount is what the merchant receives (estimated with the first method the amount
	// fits when no fiat_payment_method is given: the user's choice on the page settles it).
	CryptoAmount      string `json:"crypto_amount"`
	FiatPaymentMethod string `json:"fiat_payment_method,omitempty"`
	Hash              string `json:"hash"`
	GatewayURL        string `json:"gateway_url"`
	Info              string `json:"info,omitempty"`
	// Livemode is the order's mode: the mode of the key that created it.
	Livemode bool `json:"livemode"`
}

func depositOrderView(c *checkout.Created) DepositOrderView {
	o := c.Order
	return DepositOrderView{OrderID: o.ID, OrderFiatSymbol: o.FiatSymbol, OrderFiatAmount: rampway.FormatFixed(o.FiatAmount, o.FiatDecimals),
		ConvertToCryptoSymbol: o.Asset.Symbol, ConvertToCryptoNetwork: o.Network, ConvertToCryptoContractAddress: contractOf(o.Asset),
		CryptoAmount: rampway.FormatUnits(o.CryptoAmount, o.Asset.Decimals), FiatPaymentMethod: o.FiatMethod, Hash: c.Hash,
		GatewayURL: c.GatewayURL, Info: c.Info, Livemode: o.Livemode}
}

func (s *Server) handleCreateDepositOrder(w http.ResponseWriter, r *http.Request) error {
	var body depositOrderBody
	if err := decodeJSON(r, &body, decodeOptions{}); err != nil {
		return err
	}
	if err := checkMerchantID(r, body.MerchantID); err != nil {
		return err
	}
	m := merchantFrom(r.Context())
	user := body.user()
	p := checkout.DepositOrderParams{
		Quote: checkout.DepositQuoteParams{MerchantID: m.ID, Livemode: livemodeFrom(r.Context()), FiatSymbol: deref(body.OrderFiatSymbol), FiatAmount: deref(body.OrderFiatAmount),
			Method: deref(body.FiatPaymentMethod), CryptoSymbol: deref(body.ConvertToCryptoSymbol), CryptoNetwork: deref(body.ConvertToCryptoNetwork),
			ContractAddress: deref(body.ConvertToCryptoContractAddress), ServiceFeeBPS: m.ServiceFeeBPS},
		Order: checkout.OrderParams{MerchantUserID: deref(body.MerchantUserID), MerchantTxnID: deref(body.MerchantTxnID),
			MerchantRedirectURL: deref(body.MerchantRedirectURL), MerchantWebhookURL: deref(body.MerchantWebhookURL), User: user}}
	return s.createOrder(w, r, func(reply func(*checkout.Created) (*rampway.IdempotentReply, error)) (*checkout.Created, error) {
		p.Reply = reply
		return s.checkout.CreateDepositOrder(r.Context(), m, p)
	}, func(c *checkout.Created) any { return depositOrderView(c) })
}
