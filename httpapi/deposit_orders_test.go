package httpapi

import (
	"context"
	"errors"
	"maps"
	"math/big"
	"net/http"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/checkout"
	"github.com/rampway/rampway/mock"
)

// Area C's HTTP layer on mock use cases: C1's answer and what reaches the use case, the
// lookups' views of an order delivering to the merchant's deposit address, the lists, the
// refusals of the HTTP layer and the use case's errors as envelopes, Idempotency-Key. What
// checkout decides (the quote, the limits, the deposit address) is in package checkout
// (deposit_orders_test.go).

// depositBody is a valid C1 body of e's merchant: 100.00 EUR by card into ETH on devnet;
// edit changes it.
func (e *env) depositBody(edit func(b map[string]any)) map[string]any {
	b := map[string]any{"merchant_id": e.merchant.ID, "order_fiat_symbol": "EUR", "order_fiat_amount": "100.00",
		"convert_to_crypto_symbol": "ETH", "convert_to_crypto_network": "devnet", "fiat_payment_method": "credit_debit_card",
		"merchant_user_id": "user-7", "merchant_txn_id": "txn-7", "merchant_redirect_url": "https://shop.example/back"}
	if edit != nil {
		edit(b)
	}
	return b
}

var depositOrderKeys = []string{"convert_to_crypto_contractAddress", "convert_to_crypto_network", "convert_to_crypto_symbol", "crypto_amount",
	"gateway_url", "hash", "livemode", "order_fiat_amount", "order_fiat_symbol", "order_id"}

// wantDepositOrder checks C1's 201 answer for the use case's c: exactly DESIGN.md's fields
// (fiat_payment_method when the order has one, info when c has one), each c's order's.
func wantDepositOrder(t *testing.T, r resp, c *checkout.Created, want DepositOrderView) {
	t.Helper()
	o := decode[DepositOrderView](t, r, 201)
	keys := slices.Clone(depositOrderKeys)
	if c.Order.FiatMethod != "" {
		keys = append(keys, "fiat_payment_method")
	}
	if c.Info != "" {
		keys = append(keys, "info")
	}
	slices.Sort(keys)
	if got := rawKeys(t, r.body); !slices.Equal(got, keys) {
		t.Fatalf("C1 answer has %q, want %q: %s", got, keys, r.body)
	}
	want.OrderID, want.Hash, want.GatewayURL, want.Info = c.Order.ID, c.Hash, c.GatewayURL, c.Info
	if o.ConvertToCryptoContractAddress == nil || want.ConvertToCryptoContractAddress == nil {
		if o.ConvertToCryptoContractAddress != want.ConvertToCryptoContractAddress {
			t.Fatalf("convert_to_crypto_contractAddress %v, want %v", o.ConvertToCryptoContractAddress, want.ConvertToCryptoContractAddress)
		}
	} else if *o.ConvertToCryptoContractAddress != *want.ConvertToCryptoContractAddress {
		t.Fatalf("convert_to_crypto_contractAddress %s, want %s", *o.ConvertToCryptoContractAddress, *want.ConvertToCryptoContractAddress)
	}
	o.ConvertToCryptoContractAddress, want.ConvertToCryptoContractAddress = nil, nil
	if o != want {
		t.Fatalf("C1 answer %+v, want %+v", o, want)
	}
	if m := rawMember(t, r.body, "convert_to_crypto_contractAddress"); c.Order.Asset.IsNative() && m != "null" {
		t.Fatalf("convert_to_crypto_contractAddress %s, want null", m)
	}
}

// TestCreateDepositOrder: C1 passes the body to the use case as read (a method or a contract
// address absent or empty as "", every user field), and answers 201 with exactly DESIGN.md's
// area C fields, each the created order's: order_fiat_amount in the currency's two decimals,
// crypto_amount in the asset's units, the contract for a token (null for the native coin),
// fiat_payment_method only when the order has one, info when the use case gives one.
func TestCreateDepositOrder(t *testing.T) {
	t.Parallel()
	var asked []checkout.DepositOrderParams
	var answer *checkout.Created
	e := newMockEnv(t, &mock.Checkout{CreateDepositOrderFn: func(_ context.Context, m *rampway.Merchant, p checkout.DepositOrderParams) (*checkout.Created, error) {
		if m.ID != p.Quote.MerchantID {
			return nil, errors.New("another merchant")
		}
		asked = append(asked, p)
		return answer, nil
	}})
	token := mockToken.Hex()
	native := func(o *rampway.Order) {
		o.Asset, o.CryptoAmount = rampway.Asset{Symbol: "ETH", Network: "devnet", Decimals: 18}, big.NewInt(29_000_000_000_000_000)
	}
	for _, tc := range []struct {
		name   string
		edit   func(b map[string]any)
		order  func(o *rampway.Order)
		info   string
		params checkout.DepositQuoteParams // its MerchantID is e's
		want   DepositOrderView
	}{
		{"EUR card into ETH", nil, native, "",
			checkout.DepositQuoteParams{FiatSymbol: "EUR", FiatAmount: "100.00", Method: "credit_debit_card", CryptoSymbol: "ETH", CryptoNetwork: "devnet"},
			DepositOrderView{OrderFiatSymbol: "EUR", OrderFiatAmount: "100.00", ConvertToCryptoSymbol: "ETH", ConvertToCryptoNetwork: "devnet",
				CryptoAmount: "0.029", FiatPaymentMethod: "credit_debit_card"}},
		{"EUR without a method into ETH", func(b map[string]any) { delete(b, "fiat_payment_method") }, func(o *rampway.Order) { native(o); o.FiatMethod = "" }, "",
			checkout.DepositQuoteParams{FiatSymbol: "EUR", FiatAmount: "100.00", CryptoSymbol: "ETH", CryptoNetwork: "devnet"},
			DepositOrderView{OrderFiatSymbol: "EUR", OrderFiatAmount: "100.00", ConvertToCryptoSymbol: "ETH", ConvertToCryptoNetwork: "devnet", CryptoAmount: "0.029"}},
		{"EUR, method empty", func(b map[string]any) { b["fiat_payment_method"] = "" }, func(o *rampway.Order) { native(o); o.FiatMethod = "" }, "",
			checkout.DepositQuoteParams{FiatSymbol: "EUR", FiatAmount: "100.00", CryptoSymbol: "ETH", CryptoNetwork: "devnet"},
			DepositOrderView{OrderFiatSymbol: "EUR", OrderFiatAmount: "100.00", ConvertToCryptoSymbol: "ETH", ConvertToCryptoNetwork: "devnet", CryptoAmount: "0.029"}},
		{"GBP bank transfer into DUSD", func(b map[string]any) {
			b["convert_to_crypto_symbol"], b["convert_to_crypto_contractAddress"] = "DUSD", token
			b["order_fiat_symbol"], b["order_fiat_amount"], b["fiat_payment_method"] = "GBP", "250.50", "gbp_bank_transfer"
		}, func(o *rampway.Order) {
			o.FiatSymbol, o.FiatAmount, o.FiatMethod, o.CryptoAmount = "GBP", big.NewInt(25050), "gbp_bank_transfer", big.NewInt(305_100_000)
		}, "",
			checkout.DepositQuoteParams{FiatSymbol: "GBP", FiatAmount: "250.50", Method: "gbp_bank_transfer", CryptoSymbol: "DUSD", CryptoNetwork: "devnet", ContractAddress: token},
			DepositOrderView{OrderFiatSymbol: "GBP", OrderFiatAmount: "250.50", ConvertToCryptoSymbol: "DUSD", ConvertToCryptoNetwork: "devnet",
				ConvertToCryptoContractAddress: &token, CryptoAmount: "305.1", FiatPaymentMethod: "gbp_bank_transfer"}},
		{"USD Cash App into ETH, no merchant_txn_id, contract address empty", func(b map[string]any) {
			b["order_fiat_symbol"], b["order_fiat_amount"], b["fiat_payment_method"] = "USD", "20", "pm_cash_app"
			b["convert_to_crypto_contractAddress"] = ""
			delete(b, "merchant_txn_id")
		}, func(o *rampway.Order) {
			native(o)
			o.FiatSymbol, o.FiatAmount, o.FiatMethod, o.MerchantTxnID, o.CryptoAmount = "USD", big.NewInt(2000), "pm_cash_app", "", big.NewInt(6_260_000_000_000_000)
		}, "",
			checkout.DepositQuoteParams{FiatSymbol: "USD", FiatAmount: "20", Method: "pm_cash_app", CryptoSymbol: "ETH", CryptoNetwork: "devnet"},
			DepositOrderView{OrderFiatSymbol: "USD", OrderFiatAmount: "20.00", ConvertToCryptoSymbol: "ETH", ConvertToCryptoNetwork: "devnet",
				CryptoAmount: "0.00626", FiatPaymentMethod: "pm_cash_app"}},
		{"a webhook URL without a webhook secret: info", func(b map[string]any) { b["merchant_webhook_url"] = "http://127.0.0.1:9/hooks" },
			func(o *rampway.Order) { native(o); o.MerchantWebhookURL = "http://127.0.0.1:9/hooks" }, checkout.NoWebhookSecretInfo(false),
			checkout.DepositQuoteParams{FiatSymbol: "EUR", FiatAmount: "100.00", Method: "credit_debit_card", CryptoSymbol: "ETH", CryptoNetwork: "devnet"},
			DepositOrderView{OrderFiatSymbol: "EUR", OrderFiatAmount: "100.00", ConvertToCryptoSymbol: "ETH", ConvertToCryptoNetwork: "devnet",
				CryptoAmount: "0.029", FiatPaymentMethod: "credit_debit_card"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			asked = nil
			answer = created(e.mockOrder(rampway.AreaDeposit, tc.order), tc.info)
			body := e.depositBody(func(b map[string]any) {
				maps.Copy(b, identity())
				if tc.edit != nil {
					tc.edit(b)
				}
			})
			wantDepositOrder(t, e.merchantAPI(http.MethodPost, depositOrderPath, body), answer, tc.want)

			if len(asked) != 1 {
				t.Fatalf("the use case was asked %d times", len(asked))
			}
			p := asked[0]
			want := tc.params
			want.MerchantID = e.merchant.ID
			if p.Quote != want || p.Reply != nil {
				t.Fatalf("quote params %+v, want %+v", p.Quote, want)
			}
			txn, _ := body["merchant_txn_id"].(string)
			webhook, _ := body["merchant_webhook_url"].(string)
			if o := p.Order; o.MerchantUserID != "user-7" || o.MerchantTxnID != txn || o.MerchantRedirectURL != "https://shop.example/back" ||
				o.MerchantWebhookURL != webhook || !maps.Equal(o.User, identityStrings()) {
				t.Fatalf("order params %+v", o)
			}
		})
	}
}

// TestDepositOrderLookup: an area C order is looked up in area C; its lookup shows the
// merchant's deposit address (where the asset goes), the crypto amount, the transfer's gas and
// fees, no function, and the fiat side; the user's contact fields only.
func TestDepositOrderLookup(t *testing.T) {
	t.Parallel()
	l := newLookups()
	c := &mock.Checkout{}
	l.set(c)
	e := newMockEnv(t, c)
	o := e.mockOrder(rampway.AreaDeposit, func(o *rampway.Order) { o.FiatMethod = "" })
	l.orders[o.ID] = o
	p := depositOrderPath + "/" + o.ID
	r := e.merchantAPI(http.MethodGet, p, nil)
	v := wantOrderView(t, r, o, false)
	if m := rawMember(t, r.body, "fiat_movements"); m != "[]" {
		t.Fatalf("fiat_movements before any: %s, want []", m)
	}
	if v.DepositAddress != mockPayout.Hex() || v.CryptoSymbol != "DUSD" || v.CryptoContractAddress == nil || *v.CryptoContractAddress != mockToken.Hex() ||
		v.CryptoAmount != "87.51" || v.GasLimit != 100_000 || v.NetworkFee != "0.012345" || v.ServiceFee != "0" || v.TotalValue != "0" ||
		v.SmartContractFunctionID != "" || string(v.FunctionArgs) != "{}" || v.OrderFiatSymbol != "EUR" || v.OrderFiatAmount != "100.00" || v.FiatPaymentMethod != "" {
		t.Fatalf("lookup %s", r.body)
	}
	if asked, _ := l.take(); len(asked) != 1 || asked[0] != (lookup{scopeOf(rampway.MerchantScope(e.merchant.ID, false)), rampway.AreaDeposit, o.ID}) {
		t.Fatalf("asked %+v", asked)
	}
	wantEnvelope(t, e.merchantAPI(http.MethodGet, p+"?merchant_id=mch_00000000000000000000000000", nil), 401, 401, p, "Unauthorized")
	wantEnvelope(t, e.do(http.MethodGet, p, nil, nil), 401, 401, p, "Unauthorized")
	np := depositOrderPath + "/ord_nope"
	wantEnvelope(t, e.merchantAPI(http.MethodGet, np, nil), 404, 404, np, `Order "ord_nope" not found`)
}

// TestDepositOrderLists: area C's list route, each order listed with its fiat side and deposit
// address.
func TestDepositOrderLists(t *testing.T) {
	testOrderLists(t, rampway.AreaDeposit, depositOrdersPath, func(t *testing.T, v OrderView, o *rampway.Order) {
		t.Helper()
		if v.OrderID != o.ID || v.OrderFiatSymbol != "EUR" || v.OrderFiatAmount != "100.00" || v.DepositAddress != mockPayout.Hex() || v.FiatMovements == nil {
			t.Fatalf("listed without its fiat side or deposit address: %+v", v)
		}
	})
}

// TestDepositOrderRequestHTTP: what C1 refuses before asking the use case (the body's JSON types
// named, merchant_id), and the use case's refusals as envelopes: 400 naming the field (no
// deposit address for the asset: onboard one first), 503 when the service cannot deliver or
// price it (not the merchant's fault: try again).
func TestDepositOrderRequestHTTP(t *testing.T) {
	t.Parallel()
	var asked atomic.Int32
	var answer error
	e := newMockEnv(t, &mock.Checkout{CreateDepositOrderFn: func(context.Context, *rampway.Merchant, checkout.DepositOrderParams) (*checkout.Created, error) {
		asked.Add(1)
		return nil, answer
	}})
	other, _ := e.otherMerchant()
	set := func(k string, v any) func(b map[string]any) { return func(b map[string]any) { b[k] = v } }
	for _, tc := range []struct {
		name   string
		edit   func(b map[string]any)
		status int
		msg    string
	}{
		{"amount a number", set("order_fiat_amount", 100), 400, "Field 'order_fiat_amount' must be a string, not a number"},
		{"symbol a number", set("convert_to_crypto_symbol", 1), 400, "Field 'convert_to_crypto_symbol' must be a string, not a number"},
		{"mobile a number", set("user_mobileNumber", 447700900123), 400, "Field 'user_mobileNumber' must be a string, not a number"},
		{"merchant_id missing", func(b map[string]any) { delete(b, "merchant_id") }, 400, "merchant_id is required"},
		{"another merchant's merchant_id", set("merchant_id", other.ID), 401, "Unauthorized"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := wantEnvelope(t, e.merchantAPI(http.MethodPost, depositOrderPath, e.depositBody(tc.edit)), tc.status, tc.status, depositOrderPath, tc.msg)
			if tc.status == 401 && b.Message != "Unauthorized" {
				t.Fatalf("message %q, want exactly Unauthorized", b.Message)
			}
		})
	}
	if n := asked.Load(); n != 0 {
		t.Fatalf("the use case was asked %d times for refused requests", n)
	}
	for _, tc := range []struct {
		name       string
		err        error
		status     int
		retryAfter string
	}{
		{"below the minimum", rampway.FieldErrorf("order_fiat_amount", "Minimum buy amount is 20 EUR"), 400, ""},
		{"no deposit address", rampway.FieldErrorf("convert_to_crypto_symbol", "The merchant has no deposit address for ETH on devnet: onboard one first"), 400, ""},
		{"no price", rampway.Errorf(rampway.EUNAVAILABLE, "No current price converts EUR into ETH: try again later"), 503, "5"},
		{"the hot wallet short", rampway.Errorf(rampway.EUNAVAILABLE,
			"The service cannot deliver 0.029 ETH on devnet at the moment: try a smaller amount or again later"), 503, "5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			answer = tc.err
			r := e.merchantAPI(http.MethodPost, depositOrderPath, e.depositBody(nil))
			if b := wantEnvelope(t, r, tc.status, tc.status, depositOrderPath, ""); b.Message != rampway.ErrorMessage(tc.err) || r.header.Get("Retry-After") != tc.retryAfter {
				t.Fatalf("message %q, Retry-After %q", b.Message, r.header.Get("Retry-After"))
			}
		})
	}
}

// TestDepositOrderIdempotency: C1's Idempotency-Key.
func TestDepositOrderIdempotency(t *testing.T) {
	testIdempotentCreation(t, depositOrderPath, fiatOrderPath, func(e *env) map[string]any {
		return e.depositBody(func(b map[string]any) { maps.Copy(b, identity()) })
	}, func(b map[string]any) { b["order_fiat_amount"] = "1" },
		map[string]func(b map[string]any){
			"another amount":  func(b map[string]any) { b["order_fiat_amount"] = "100.01" },
			"another asset":   func(b map[string]any) { b["convert_to_crypto_symbol"] = "DUSD" },
			"no method":       func(b map[string]any) { delete(b, "fiat_payment_method") },
			"another webhook": func(b map[string]any) { b["merchant_webhook_url"] = "http://127.0.0.1:9/hooks" },
		},
		func(c *mock.Checkout, create func(context.Context, bool, func(*checkout.Created) (*rampway.IdempotentReply, error)) (*checkout.Created, error)) {
			c.CreateDepositOrderFn = func(ctx context.Context, _ *rampway.Merchant, p checkout.DepositOrderParams) (*checkout.Created, error) {
				return create(ctx, p.Quote.FiatAmount == "1", p.Reply)
			}
		})
}
