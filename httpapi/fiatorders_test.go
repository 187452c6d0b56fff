package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/checkout"
	"github.com/rampway/rampway/mock"
	"github.com/rampway/rampway/provider/sandbox"
)

// Area B's HTTP layer on mock use cases: B1's answer and what reaches the use case, the
// lookups' views of an order's fiat side, the lists' queries, the refusals of the HTTP layer
// and the use case's errors as envelopes, Idempotency-Key, and the payment providers' routes.
// What checkout decides is in package checkout (fiatorders_test.go).

const sandboxHook = "/providers/sandbox/webhook"

// sandboxTestSecret signs the sandbox's notifications in these tests.
var sandboxTestSecret = []byte("sandbox-test-secret-0123456789abcdef")

// rampBody is a valid B1 body of e's merchant: the native mint of one token in EUR by card,
// with every user field; edit changes it.
func (e *env) rampBody(edit func(b map[string]any)) map[string]any {
	b := map[string]any{"merchant_id": e.merchant.ID, "order_fiat_symbol": "EUR", "fiat_payment_method": "credit_debit_card",
		"merchant_user_id": "user-7", "merchant_txn_id": "txn-7", "merchant_redirect_url": "https://shop.example/back",
		"contractExecution": map[string]any{
			"smartContractFunctionId": "scf_00000000000000000000000001",
			"function_args":           map[string]any{"to": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", "quantity": "1"},
			"payment":                 map[string]any{"payableCryptoSymbol": "ETH", "payableCryptoContractAddress": "", "totalValue": "0.01"},
			"network_params":          map[string]any{"networkName": "devnet", "customGasLimit": "250000"},
		}}
	maps.Copy(b, identity())
	if edit != nil {
		edit(b)
	}
	return b
}

var fiatOrderKeys = []string{"fiat_payment_method", "gateway_url", "hash", "livemode", "order_fiat_amount", "order_fiat_symbol", "order_id"}

// wantFiatOrder checks B1's 201 answer for the use case's c: exactly the spec's fields and
// livemode (info when c has one), each c's order's.
func wantFiatOrder(t *testing.T, r resp, c *checkout.Created, amount string) FiatOrderView {
	t.Helper()
	o := decode[FiatOrderView](t, r, 201)
	keys := slices.Clone(fiatOrderKeys)
	if c.Info != "" {
		keys = append(keys, "info")
	}
	slices.Sort(keys)
	if got := rawKeys(t, r.body); !slices.Equal(got, keys) {
		t.Fatalf("B1 answer has %q, want %q: %s", got, keys, r.body)
	}
	want := FiatOrderView{OrderID: c.Order.ID, OrderFiatSymbol: c.Order.FiatSymbol, FiatPaymentMethod: c.Order.FiatMethod, OrderFiatAmount: amount,
		Hash: c.Hash, GatewayURL: c.GatewayURL, Info: c.Info, Livemode: c.Order.Livemode}
	if o != want {
		t.Fatalf("B1 answer %+v, want %+v", o, want)
	}
	return o
}

// TestCreateFiatOrder: B1 passes the body to the use case as read (every user field, an absent
// merchant_txn_id as ""), and answers 201 with exactly the spec's fields and livemode, each the
// created order's (order_fiat_amount in the currency's decimals), with info when the use case
// gives one.
func TestCreateFiatOrder(t *testing.T) {
	t.Parallel()
	var asked []checkout.FiatOrderParams
	var answer *checkout.Created
	e := newMockEnv(t, &mock.Checkout{CreateFiatOrderFn: func(_ context.Context, m *rampway.Merchant, p checkout.FiatOrderParams) (*checkout.Created, error) {
		if m.ID != p.Quote.MerchantID {
			return nil, errors.New("another merchant")
		}
		asked = append(asked, p)
		return answer, nil
	}})
	for _, tc := range []struct {
		name   string
		edit   func(b map[string]any)
		order  func(o *rampway.Order)
		info   string
		amount string
	}{
		{"EUR card, every user field", nil, nil, "", "35.99"},
		{"GBP bank transfer of the token-paid mint, no merchant_txn_id", func(b map[string]any) {
			b["order_fiat_symbol"], b["fiat_payment_method"] = "GBP", "gbp_bank_transfer"
			delete(b, "merchant_txn_id")
		}, func(o *rampway.Order) {
			o.FiatSymbol, o.FiatMethod, o.FiatAmount, o.MerchantTxnID = "GBP", "gbp_bank_transfer", big.NewInt(2400), ""
		}, "", "24.00"},
		{"a webhook URL without a webhook secret: info", func(b map[string]any) { b["merchant_webhook_url"] = "http://127.0.0.1:9/hooks" },
			func(o *rampway.Order) { o.MerchantWebhookURL = "http://127.0.0.1:9/hooks" }, checkout.NoWebhookSecretInfo(false), "35.99"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			asked = nil
			answer = created(e.mockOrder(rampway.AreaNFTRamp, tc.order), tc.info)
			body := e.rampBody(tc.edit)
			wantFiatOrder(t, e.merchantAPI(http.MethodPost, fiatOrderPath, body), answer, tc.amount)

			if len(asked) != 1 {
				t.Fatalf("the use case was asked %d times", len(asked))
			}
			p := asked[0]
			x := p.Quote.Execution
			empty := ""
			if q := p.Quote; q.MerchantID != e.merchant.ID || q.Livemode || q.FiatSymbol != body["order_fiat_symbol"] || q.Method != body["fiat_payment_method"] ||
				q.ServiceFeeBPS != nil || x.FunctionID != "scf_00000000000000000000000001" || x.NetworkName != "devnet" || x.CustomGasLimit != "250000" ||
				string(x.FunctionArgs) != `{"quantity":"1","to":"0x70997970C51812dc3A010C7d01b50e0d17dc79C8"}` ||
				!reflect.DeepEqual(x.Payment, &checkout.PaymentParams{Symbol: "ETH", ContractAddress: &empty, TotalValue: "0.01"}) || p.Reply != nil {
				t.Fatalf("quote params %+v (execution %+v)", q, x)
			}
			txn, _ := body["merchant_txn_id"].(string)
			webhook, _ := body["merchant_webhook_url"].(string)
			if o := p.Order; o.MerchantUserID != "user-7" || o.MerchantTxnID != txn || o.MerchantRedirectURL != "https://shop.example/back" ||
				o.MerchantWebhookURL != webhook || !maps.Equal(o.User, identityStrings()) {
				t.Fatalf("order params %+v", o)
			}
		})
	}
	// A user field the body leaves empty is not passed on.
	answer = created(e.mockOrder(rampway.AreaNFTRamp, nil), "")
	asked = nil
	decode[FiatOrderView](t, e.merchantAPI(http.MethodPost, fiatOrderPath, e.rampBody(func(b map[string]any) { b["user_city"] = "" })), 201)
	if _, ok := asked[0].Order.User["user_city"]; ok || len(asked[0].Order.User) != len(identity())-1 {
		t.Fatalf("user %v", asked[0].Order.User)
	}
}

// orderViewKeys are the members of an order's lookup: an area A order's, and with its fiat side.
var (
	orderViewKeys = []string{"created_at", "crypto_amount", "crypto_amount_received", "crypto_contract_address", "crypto_network",
		"crypto_symbol", "deposit_address", "deposit_tx_hashes", "deposits", "execution_tx_hash", "expires_at", "failure_reason",
		"function_args", "gas_limit", "gateway_url", "livemode", "merchant_id", "merchant_redirect_url", "merchant_txn_id",
		"merchant_user_id", "merchant_webhook_url", "network_fee", "order_id", "refunded_amount", "refunds", "service_fee", "smartContractFunctionId",
		"status", "total_value", "updated_at", "user"}
	fiatViewKeys = []string{"fiat_movements", "fiat_payment_method", "order_fiat_amount", "order_fiat_symbol"}
)

// wantOrderView checks an order's lookup: exactly its members (the fiat side's for an order of
// B or C, fiat_payment when it has one), and what is the same in every area's.
func wantOrderView(t *testing.T, r resp, o *rampway.Order, payment bool) OrderView {
	t.Helper()
	v := decode[OrderView](t, r, 200)
	keys := slices.Clone(orderViewKeys)
	if o.FiatSymbol != "" {
		keys = append(keys, fiatViewKeys...)
		if o.FiatMethod == "" { // area C's, the method left to the page
			keys = slices.DeleteFunc(keys, func(k string) bool { return k == "fiat_payment_method" })
		}
		if payment {
			keys = append(keys, "fiat_payment")
		}
	}
	slices.Sort(keys)
	if got := rawKeys(t, r.body); !slices.Equal(got, keys) {
		t.Fatalf("lookup has %q, want %q: %s", got, keys, r.body)
	}
	// The user's contact fields only: identity data is shown to nobody but the order's page.
	if v.OrderID != o.ID || v.Livemode || v.Status != "CREATED" || v.MerchantID != o.MerchantID || v.MerchantUserID != "user-7" ||
		v.MerchantTxnID != o.MerchantTxnID || v.MerchantRedirectURL != "https://shop.example/back" || v.MerchantWebhookURL != o.MerchantWebhookURL ||
		v.CryptoNetwork != "devnet" || v.CryptoAmountReceived != "0" || v.GatewayURL != mockGatewayURL(o.ID) ||
		v.ExecutionTxHash != nil || v.FailureReason != nil || v.Deposits == nil || len(v.Deposits) != 0 || v.DepositTxHashes == nil ||
		len(v.DepositTxHashes) != 0 || v.Refunds == nil || len(v.Refunds) != 0 ||
		!maps.Equal(v.User, map[string]string{"user_email_id": "ada@example.com", "user_first_name": "Ada", "user_last_name": "Lovelace"}) ||
		v.CreatedAt != "2030-06-14T12:00:00.000Z" || v.UpdatedAt != v.CreatedAt || v.ExpiresAt != "2030-06-14T12:30:00.000Z" {
		t.Fatalf("lookup %s of %+v", r.body, o)
	}
	for _, k := range []string{"execution_tx_hash", "failure_reason"} {
		if m := rawMember(t, r.body, k); m != "null" {
			t.Fatalf("%s %s, want null", k, m)
		}
	}
	return v
}

// TestFiatOrderLookup: an order is looked up in its area (the route's) and in the key's scope;
// its lookup shows its fiat side (order_fiat_*, fiat_movements [] before any, fiat_payment
// only once there is one) next to its crypto side; an area A order has no fiat members. A
// foreign merchant_id, or no key, is 401 before the lookup; an order not found is 404.
func TestFiatOrderLookup(t *testing.T) {
	t.Parallel()
	l := newLookups()
	c := &mock.Checkout{}
	l.set(c)
	e := newMockEnv(t, c)
	o := e.mockOrder(rampway.AreaNFTRamp, nil)
	token := e.mockOrder(rampway.AreaNFTRamp, func(o *rampway.Order) {
		o.ID, o.Asset = rampway.NewID(rampway.PrefixOrder, mockT0), rampway.Asset{Symbol: "DUSD", Network: "devnet", Contract: mockToken, Decimals: 6}
		o.CryptoAmount, o.PaymentValue, o.NetworkFee, o.ServiceFee = big.NewInt(30_500_000), big.NewInt(30_000_000), big.NewInt(400_000), big.NewInt(100_000)
		o.MerchantTxnID, o.MerchantWebhookURL = "", "http://127.0.0.1:9/hooks"
	})
	mint := e.mockOrder(rampway.AreaMint, nil)
	l.orders[o.ID], l.orders[token.ID], l.orders[mint.ID] = o, token, mint
	scope := scopeOf(rampway.MerchantScope(e.merchant.ID, false))

	p := fiatOrderPath + "/" + o.ID
	r := e.merchantAPI(http.MethodGet, p, nil)
	v := wantOrderView(t, r, o, false)
	if m := rawMember(t, r.body, "fiat_movements"); m != "[]" {
		t.Fatalf("fiat_movements before any: %s, want []", m)
	}
	if v.OrderFiatSymbol != "EUR" || v.OrderFiatAmount != "35.99" || v.FiatPaymentMethod != rampway.MethodCard || v.CryptoSymbol != "ETH" ||
		v.CryptoContractAddress != nil || v.CryptoAmount != "0.0106" || v.TotalValue != "0.01" || v.NetworkFee != "0.0005" || v.ServiceFee != "0.0001" ||
		v.GasLimit != 300_000 || v.SmartContractFunctionID != o.FunctionID || string(v.FunctionArgs) != string(o.FunctionArgs) || v.DepositAddress != "" {
		t.Fatalf("lookup %s", r.body)
	}
	if m := rawMember(t, r.body, "crypto_contract_address"); m != "null" {
		t.Fatalf("crypto_contract_address %s, want null", m)
	}
	// A token's contract; merchant_webhook_url; no merchant_txn_id.
	if v := wantOrderView(t, e.merchantAPI(http.MethodGet, fiatOrderPath+"/"+token.ID, nil), token, false); v.CryptoSymbol != "DUSD" ||
		v.CryptoContractAddress == nil || *v.CryptoContractAddress != mockToken.Hex() || v.CryptoAmount != "30.5" || v.TotalValue != "30" {
		t.Fatalf("token lookup %+v", v)
	}
	// With merchant_id, the key's own.
	wantOrderView(t, e.merchantAPI(http.MethodGet, p+"?merchant_id="+e.merchant.ID, nil), o, false)
	if asked, _ := l.take(); !slices.Equal(asked, []lookup{{scope, rampway.AreaNFTRamp, o.ID}, {scope, rampway.AreaNFTRamp, token.ID}, {scope, rampway.AreaNFTRamp, o.ID}}) {
		t.Fatalf("asked %+v", asked)
	}

	// Area A's lookup of an order without a fiat side: no fiat members; its deposit address.
	if v := wantOrderView(t, e.merchantAPI(http.MethodGet, mintOrderPath+"/"+mint.ID, nil), mint, false); v.DepositAddress != mint.DepositAddress.Hex() ||
		v.FiatPayment != nil || v.FiatMovements != nil {
		t.Fatalf("area A lookup %+v", v)
	}
	if asked, _ := l.take(); !slices.Equal(asked, []lookup{{scope, rampway.AreaMint, mint.ID}}) {
		t.Fatalf("asked %+v", asked)
	}
	// Another merchant's key asks in its own scope.
	other, otherKey := e.otherMerchant()
	e.do(http.MethodGet, p, nil, map[string]string{"X-API-KEY": otherKey})
	if asked, _ := l.take(); !slices.Equal(asked, []lookup{{scopeOf(rampway.MerchantScope(other.ID, false)), rampway.AreaNFTRamp, o.ID}}) {
		t.Fatalf("asked %+v", asked)
	}
	// Refused before the lookup: a foreign merchant_id, no key.
	wantEnvelope(t, e.merchantAPI(http.MethodGet, p+"?merchant_id=mch_00000000000000000000000000", nil), 401, 401, p, "Unauthorized")
	wantEnvelope(t, e.do(http.MethodGet, p, nil, nil), 401, 401, p, "Unauthorized")
	if asked, _ := l.take(); len(asked) != 0 {
		t.Fatalf("asked %+v", asked)
	}
	// Not found: 404 with the use case's message.
	np := fiatOrderPath + "/ord_nope"
	wantEnvelope(t, e.merchantAPI(http.MethodGet, np, nil), 404, 404, np, `Order "ord_nope" not found`)

	// Its payments: the one that paid it (else the latest attempt) and its movements.
	at := mockT0.Add(time.Minute)
	declined := &rampway.FiatPayment{ID: "fpy_1", OrderID: o.ID, Provider: "sandbox", Method: rampway.MethodCard, Currency: "EUR", Amount: big.NewInt(3599),
		Decimals: 2, Status: rampway.FiatFailed, ProviderRef: "sbp_1", CreatedAt: at}
	paid := &rampway.FiatPayment{ID: "fpy_2", OrderID: o.ID, Provider: "sandbox", Method: rampway.MethodCard, Currency: "EUR", Amount: big.NewInt(3599),
		Decimals: 2, Status: rampway.FiatSucceeded, ProviderRef: "sbp_2", CardBrand: "visa", CardLast4: "4242", CreatedAt: at.Add(time.Minute)}
	late := &rampway.FiatPayment{ID: "fpy_3", OrderID: o.ID, Provider: "sandbox", Method: rampway.MethodSEPABankTransfer, Currency: "EUR",
		Amount: big.NewInt(3599), Decimals: 2, Status: rampway.FiatPending, Reference: "RW-ABCDE", CreatedAt: at.Add(2 * time.Minute)}
	c.FiatPaymentsFn = func(context.Context, *rampway.Order) ([]*rampway.FiatPayment, error) {
		return []*rampway.FiatPayment{declined, paid, late}, nil
	}
	c.FiatActionsFn = func(context.Context, *rampway.Order) ([]*rampway.FiatAction, error) {
		return []*rampway.FiatAction{{ID: "fac_1", PaymentID: paid.ID, OrderID: o.ID, Kind: rampway.ActionCapture, Amount: big.NewInt(3599), Currency: "EUR",
			Status: rampway.ActionDone, Reason: "executed", CreatedAt: at.Add(3 * time.Minute)}}, nil
	}
	o.FiatPaymentID = "" // the latest attempt
	r = e.merchantAPI(http.MethodGet, p, nil)
	v = wantOrderView(t, r, o, true)
	if want := (FiatPaymentView{Method: rampway.MethodSEPABankTransfer, Status: "pending", Amount: "35.99", Currency: "EUR", Reference: "RW-ABCDE",
		CreatedAt: "2030-06-14T12:03:00.000Z"}); v.FiatPayment == nil || *v.FiatPayment != want {
		t.Fatalf("fiat_payment %+v, want %+v", v.FiatPayment, want)
	}
	if !strings.Contains(string(r.body), `"provider_ref":""`) || strings.Contains(string(r.body), "card_brand") {
		t.Fatalf("fiat_payment %s", r.body)
	}
	o.FiatPaymentID = paid.ID // the one that paid it
	v = wantOrderView(t, e.merchantAPI(http.MethodGet, p, nil), o, true)
	if want := (FiatPaymentView{Method: rampway.MethodCard, Status: "succeeded", Amount: "35.99", Currency: "EUR", ProviderRef: "sbp_2", CardBrand: "visa",
		CardLast4: "4242", CreatedAt: "2030-06-14T12:02:00.000Z"}); v.FiatPayment == nil || *v.FiatPayment != want {
		t.Fatalf("fiat_payment %+v, want %+v", v.FiatPayment, want)
	}
	if want := []FiatMovementView{{Kind: "capture", Amount: "35.99", Currency: "EUR", Status: "done", Reason: "executed", CreatedAt: "2030-06-14T12:04:00.000Z"}}; v.FiatMovements == nil ||
		!slices.Equal(*v.FiatMovements, want) {
		t.Fatalf("fiat_movements %+v, want %+v", v.FiatMovements, want)
	}
}

// testOrderLists checks an area's list route: the filter it asks the use case for (the key's
// merchant and mode, the area, status, a cursor found in the area, one more than the page to
// tell has_more), the orders as the use case orders them, each with its view; and the queries it
// refuses itself.
func testOrderLists(t *testing.T, area rampway.Area, path string, wantItem func(t *testing.T, v OrderView, o *rampway.Order)) {
	t.Parallel()
	l := newLookups()
	c := &mock.Checkout{}
	l.set(c)
	e := newMockEnv(t, c)
	var os []*rampway.Order // newest first
	for i := range 3 {
		o := e.mockOrder(area, func(o *rampway.Order) { o.MerchantTxnID = "txn-" + string(rune('c'-i)) })
		l.orders[o.ID] = o
		os = append(os, o)
	}
	l.list = os
	live := false
	list := func(query string) ListView[OrderView] {
		t.Helper()
		return decode[ListView[OrderView]](t, e.merchantAPI(http.MethodGet, path+query, nil), 200)
	}
	ids := func(v ListView[OrderView]) []string {
		var out []string
		for _, x := range v.Data {
			out = append(out, x.OrderID)
			wantItem(t, x, l.orders[x.OrderID])
		}
		return out
	}
	want := rampway.OrderFilter{MerchantID: e.merchant.ID, Livemode: live, Area: area, Limit: 21}
	filter := func(query string, f rampway.OrderFilter, cursor bool) {
		t.Helper()
		asked, filters := l.take()
		if cursor != (len(asked) == 1) || len(filters) != 1 || !reflect.DeepEqual(filters[0], f) {
			t.Fatalf("%s: asked %+v, listed %+v; want %+v", query, asked, filters, f)
		}
		if cursor && asked[0] != (lookup{scopeOf(rampway.MerchantScope(e.merchant.ID, false)), area, f.Before}) {
			t.Fatalf("%s: the cursor looked up as %+v", query, asked[0])
		}
	}
	if v := list(""); !slices.Equal(ids(v), []string{os[0].ID, os[1].ID, os[2].ID}) || v.HasMore {
		t.Fatalf("list %+v", v)
	}
	filter("", want, false)
	created := want
	created.Status = rampway.StatusCreated
	list("?status=CREATED")
	filter("?status=CREATED", created, false)
	// A page at a time: one more asked than shown tells has_more.
	if v := list("?limit=2"); !slices.Equal(ids(v), []string{os[0].ID, os[1].ID}) || !v.HasMore {
		t.Fatalf("page 1 %+v", v)
	}
	page := want
	page.Limit = 3
	filter("?limit=2", page, false)
	l.list = os[2:]
	if v := list("?limit=2&starting_after=" + os[1].ID); !slices.Equal(ids(v), []string{os[2].ID}) || v.HasMore {
		t.Fatalf("page 2 %+v", v)
	}
	page.Before = os[1].ID
	filter("?limit=2&starting_after=", page, true)
	from := want
	from.CreatedFrom, from.CreatedTo = mockT0, mockT0.Add(time.Hour)
	list("?created_from=2030-06-14T12:00:00Z&created_to=2030-06-14T13:00:00Z")
	filter("created_from, created_to", from, false)
	l.list = nil
	if v := list("?status=ONRAMP_SUCCESS"); v.Data == nil || len(v.Data) != 0 || v.HasMore {
		t.Fatalf("empty list %+v", v)
	}
	l.take()

	// Another merchant's key lists its own.
	other, otherKey := e.otherMerchant()
	decode[ListView[OrderView]](t, e.do(http.MethodGet, path, nil, map[string]string{"X-API-KEY": otherKey}), 200)
	theirs := want
	theirs.MerchantID = other.ID
	filter("another merchant's", theirs, false)

	// Refused: a cursor not found in the area, an unknown status, a limit out of range, a time
	// that is not one; a foreign merchant_id, no key. The list is not asked.
	wantEnvelope(t, e.merchantAPI(http.MethodGet, path+"?starting_after=ord_nope", nil), 400, 400, path, "starting_after must be the order_id of one of your orders")
	if asked, _ := l.take(); len(asked) != 1 || asked[0].id != "ord_nope" || asked[0].area != area {
		t.Fatalf("the cursor looked up as %+v", asked)
	}
	for _, c := range []struct{ query, msg string }{
		{"?status=PAID", `status "PAID" is not an order status`},
		{"?limit=0", "limit must be an integer between 1 and 100"},
		{"?limit=101", "limit must be an integer between 1 and 100"},
		{"?created_to=tomorrow", "created_to must be an ISO-8601 time"},
	} {
		wantEnvelope(t, e.merchantAPI(http.MethodGet, path+c.query, nil), 400, 400, path, c.msg)
	}
	wantEnvelope(t, e.merchantAPI(http.MethodGet, path+"?merchant_id=mch_00000000000000000000000000", nil), 401, 401, path, "Unauthorized")
	wantEnvelope(t, e.do(http.MethodGet, path, nil, nil), 401, 401, path, "Unauthorized")
	if asked, filters := l.take(); len(asked) != 0 || len(filters) != 0 {
		t.Fatalf("asked %+v, listed %+v", asked, filters)
	}
}

// TestFiatOrderLists: area B's list route, each order listed with its fiat side.
func TestFiatOrderLists(t *testing.T) {
	testOrderLists(t, rampway.AreaNFTRamp, fiatOrdersPath, func(t *testing.T, v OrderView, o *rampway.Order) {
		t.Helper()
		if v.OrderID != o.ID || v.MerchantTxnID != o.MerchantTxnID || v.OrderFiatSymbol != "EUR" || v.FiatPaymentMethod != rampway.MethodCard ||
			v.OrderFiatAmount != "35.99" || v.FiatMovements == nil || v.FiatPayment != nil {
			t.Fatalf("listed without its fiat side: %+v", v)
		}
	})
}

// TestFiatOrderRequestHTTP: what B1 refuses before asking the use case (the body's JSON types
// named, merchant_id, the parts of contractExecution it reads), and the use case's refusals as
// the spec's envelopes: 400 naming the field or the limit, invalid function arguments HTTP 400
// with 403 in the body, a price or node that cannot answer 503.
func TestFiatOrderRequestHTTP(t *testing.T) {
	t.Parallel()
	var asked atomic.Int32
	var answer error
	e := newMockEnv(t, &mock.Checkout{CreateFiatOrderFn: func(context.Context, *rampway.Merchant, checkout.FiatOrderParams) (*checkout.Created, error) {
		asked.Add(1)
		return nil, answer
	}})
	other, _ := e.otherMerchant()
	set := func(k string, v any) func(b map[string]any) { return func(b map[string]any) { b[k] = v } }
	for _, tc := range []struct {
		name       string
		edit       func(b map[string]any)
		status     int
		bodyStatus int
		msg        string
	}{
		{"merchant_id missing", func(b map[string]any) { delete(b, "merchant_id") }, 400, 400, "merchant_id is required"},
		{"merchant_id empty", set("merchant_id", ""), 400, 400, "merchant_id is required"},
		{"no contractExecution", func(b map[string]any) { delete(b, "contractExecution") }, 400, 400, "contractExecution is required"},
		{"no function_args", func(b map[string]any) { delete(ex(b), "function_args") }, 400, 400, "contractExecution.function_args is required"},
		{"function_args null", func(b map[string]any) { ex(b)["function_args"] = nil }, 400, 400, "contractExecution.function_args is required"},
		{"no network_params", func(b map[string]any) { delete(ex(b), "network_params") }, 400, 400, "contractExecution.network_params is required"},

		// Wrong JSON types, named.
		{"currency a number", set("order_fiat_symbol", 978), 400, 400, "Field 'order_fiat_symbol' must be a string, not a number"},
		{"method an array", set("fiat_payment_method", []string{"credit_debit_card"}), 400, 400, "Field 'fiat_payment_method' must be a string, not an array"},
		{"dob a number", set("user_dob", 19901210), 400, 400, "Field 'user_dob' must be a string, not a number"},
		{"mobile a number", set("user_mobileNumber", 447700900123), 400, 400, "Field 'user_mobileNumber' must be a string, not a number"},
		{"country a boolean", set("user_countryCode", true), 400, 400, "Field 'user_countryCode' must be a string, not a boolean"},
		{"contractExecution a string", set("contractExecution", "x"), 400, 400, "Field 'contractExecution' must be an object, not a string"},
		{"totalValue a number", func(b map[string]any) { payment(b)["totalValue"] = 0.01 }, 400, 400, "Field 'contractExecution.payment.totalValue' must be a string"},
		{"merchant_id a number", set("merchant_id", 7), 400, 400, "Field 'merchant_id' must be a string, not a number"},

		// Another merchant's id, or no merchant's: exactly the spec's 401.
		{"another merchant's merchant_id", set("merchant_id", other.ID), 401, 401, "Unauthorized"},
		{"unknown merchant_id", set("merchant_id", "mch_00000000000000000000000000"), 401, 401, "Unauthorized"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := wantEnvelope(t, e.merchantAPI(http.MethodPost, fiatOrderPath, e.rampBody(tc.edit)), tc.status, tc.bodyStatus, fiatOrderPath, tc.msg)
			if tc.status == 401 && b.Message != "Unauthorized" {
				t.Fatalf("message %q, want exactly Unauthorized", b.Message)
			}
		})
	}
	if n := asked.Load(); n != 0 {
		t.Fatalf("the use case was asked %d times for refused requests", n)
	}
	// The use case's refusals (checkout's TestFiatOrderRefusals has them all).
	for _, tc := range []struct {
		name               string
		err                error
		status, bodyStatus int
		retryAfter         string
	}{
		{"a field", rampway.FieldErrorf("order_fiat_symbol", "order_fiat_symbol JPY is not a supported currency"), 400, 400, ""},
		{"a payable asset invalid for its network", rampway.FieldErrorf("contractExecution.payment.payableCryptoSymbol",
			"payableCryptoSymbol BTC is not valid for network devnet"), 400, 400, ""},
		{"too few function arguments", rampway.Errorf(rampway.EFUNCARGS, "Function arguments are not valid: 2 arguments required, 1 given"), 400, 403, ""},
		{"a function argument of the wrong type", rampway.Errorf(rampway.EFUNCARGS,
			"Function arguments are not valid: argument 'quantity' must be of type uint256"), 400, 403, ""},
		{"below the minimum", rampway.Errorf(rampway.EINVALID, "Minimum buy amount is 20 EUR"), 400, 400, ""},
		{"above the maximum", rampway.Errorf(rampway.EINVALID, "Please place an order below 10000 EUR"), 400, 400, ""},
		{"no price", rampway.Errorf(rampway.EUNAVAILABLE, "No current price converts ETH into EUR: try again later"), 503, 503, "5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			answer = tc.err
			r := e.merchantAPI(http.MethodPost, fiatOrderPath, e.rampBody(nil))
			if b := wantEnvelope(t, r, tc.status, tc.bodyStatus, fiatOrderPath, ""); b.Message != rampway.ErrorMessage(tc.err) ||
				r.header.Get("Retry-After") != tc.retryAfter {
				t.Fatalf("message %q, Retry-After %q", b.Message, r.header.Get("Retry-After"))
			}
		})
	}
}

// testIdempotentCreation checks an order route's Idempotency-Key: the same key and body replays
// the first answer byte for byte without asking the use case again; another body under the key
// is 422 (so is the key on another area's route); a request the use case refuses is not
// remembered, and corrected, it goes through under the same key. create is the route's use
// case on the mock; refuse makes a body it refuses; others are other bodies.
func testIdempotentCreation(t *testing.T, path, otherPath string, body func(e *env) map[string]any, refuse func(b map[string]any),
	others map[string]func(b map[string]any), set func(c *mock.Checkout, create func(ctx context.Context, refused bool,
		reply func(*checkout.Created) (*rampway.IdempotentReply, error)) (*checkout.Created, error))) {
	t.Parallel()
	var e *env
	var asked atomic.Int32
	c := &mock.Checkout{}
	set(c, func(ctx context.Context, refused bool, reply func(*checkout.Created) (*rampway.IdempotentReply, error)) (*checkout.Created, error) {
		asked.Add(1)
		if refused {
			return nil, rampway.FieldErrorf("x", "refused by the use case")
		}
		area := map[string]rampway.Area{fiatOrderPath: rampway.AreaNFTRamp, depositOrderPath: rampway.AreaDeposit}[path]
		cr := created(e.mockOrder(area, func(o *rampway.Order) { o.ID = rampway.NewID(rampway.PrefixOrder, time.Now()) }), "")
		return cr, e.storeReply(ctx, reply, cr)
	})
	e = newMockEnv(t, c)
	send := func(key string, b map[string]any) resp {
		data, _ := json.Marshal(b)
		return e.do(http.MethodPost, path, string(data), map[string]string{"X-API-KEY": e.key, "Idempotency-Key": key, "Content-Type": "application/json"})
	}
	first := send("key-1", body(e))
	id := decode[struct {
		OrderID string `json:"order_id"`
	}](t, first, 201).OrderID
	again := send("key-1", body(e))
	if again.status != 201 || !bytes.Equal(again.body, first.body) || again.header.Get("Idempotent-Replayed") != "true" || asked.Load() != 1 {
		t.Fatalf("replay %d %s (Idempotent-Replayed %q, asked %d), first %s", again.status, again.body, again.header.Get("Idempotent-Replayed"), asked.Load(), first.body)
	}
	for name, edit := range others {
		t.Run(name, func(t *testing.T) {
			b := body(e)
			edit(b)
			wantEnvelope(t, send("key-1", b), 422, 422, path, `Idempotency-Key "key-1" was already used with a different request`)
		})
	}
	// The same key on another area's path is another request too.
	data, _ := json.Marshal(body(e))
	wantEnvelope(t, e.do(http.MethodPost, otherPath, string(data), map[string]string{"X-API-KEY": e.key, "Idempotency-Key": "key-1"}), 422, 422, otherPath,
		"was already used with a different request")
	if asked.Load() != 1 {
		t.Fatalf("the use case was asked %d times", asked.Load())
	}
	// A refused request is not remembered: corrected, it goes through under the same key.
	bad := body(e)
	refuse(bad)
	wantEnvelope(t, send("key-2", bad), 400, 400, path, "refused by the use case")
	second := send("key-2", body(e))
	if id2 := decode[struct {
		OrderID string `json:"order_id"`
	}](t, second, 201).OrderID; id2 == id || second.header.Get("Idempotent-Replayed") != "" || asked.Load() != 3 {
		t.Fatalf("key-2: %s (asked %d), key-1's order %s", second.body, asked.Load(), id)
	}
}

// TestFiatOrderIdempotency: B1's Idempotency-Key.
func TestFiatOrderIdempotency(t *testing.T) {
	testIdempotentCreation(t, fiatOrderPath, mintOrderPath, func(e *env) map[string]any { return e.rampBody(nil) },
		func(b map[string]any) { b["user_countryCode"] = "gb" },
		map[string]func(b map[string]any){
			"another txn id":   func(b map[string]any) { b["merchant_txn_id"] = "txn-8" },
			"another currency": func(b map[string]any) { b["order_fiat_symbol"] = "GBP" },
			"another user":     func(b map[string]any) { b["user_dob"] = "1990-12-11" },
		},
		func(c *mock.Checkout, create func(context.Context, bool, func(*checkout.Created) (*rampway.IdempotentReply, error)) (*checkout.Created, error)) {
			c.CreateFiatOrderFn = func(ctx context.Context, _ *rampway.Merchant, p checkout.FiatOrderParams) (*checkout.Created, error) {
				return create(ctx, p.Order.User["user_countryCode"] == "gb", p.Reply)
			}
		})
}

// TestWebhookLogRoutes: each area's webhook log and resend ask the use case in the route's area
// and the key's scope, and answer its deliveries as the log's views (202 for a resend); what it
// does not find is 404.
func TestWebhookLogRoutes(t *testing.T) {
	t.Parallel()
	type call struct {
		scope        string // scopeOf's
		area         rampway.Area
		order, event string
	}
	var calls []call
	d := &rampway.Delivery{EventID: "evt_1", EventName: rampway.EventCreated, OrderID: "ord_1", URL: "http://127.0.0.1:9/hooks",
		Status: rampway.DeliveryPending, NextAttemptAt: mockT0, CreatedAt: mockT0}
	c := &mock.Checkout{
		DeliveriesFn: func(_ context.Context, scope rampway.Scope, area rampway.Area, id string) ([]checkout.DeliveryLog, error) {
			calls = append(calls, call{scopeOf(scope), area, id, ""})
			if id != "ord_1" {
				return nil, rampway.Errorf(rampway.ENOTFOUND, "Order %q not found", id)
			}
			return []checkout.DeliveryLog{{Delivery: d}}, nil
		},
		ResendFn: func(_ context.Context, scope rampway.Scope, area rampway.Area, id, event string) (*rampway.Delivery, error) {
			calls = append(calls, call{scopeOf(scope), area, id, event})
			if id != "ord_1" {
				return nil, rampway.Errorf(rampway.ENOTFOUND, "Order %q not found", id)
			}
			return d, nil
		},
	}
	e := newMockEnv(t, c)
	scope := scopeOf(rampway.MerchantScope(e.merchant.ID, false))
	for _, a := range []struct {
		area rampway.Area
		path string
	}{{rampway.AreaMint, mintOrderPath}, {rampway.AreaNFTRamp, fiatOrderPath}, {rampway.AreaDeposit, depositOrderPath}} {
		calls = nil
		logPath := a.path + "/ord_1/webhooks"
		l := decode[ListView[DeliveryView]](t, e.merchantAPI(http.MethodGet, logPath, nil), 200)
		if len(l.Data) != 1 || l.Data[0].EventID != "evt_1" || l.Data[0].EventName != "order.created" || l.Data[0].OrderID != "ord_1" ||
			l.Data[0].URL != d.URL || l.Data[0].Status != "pending" {
			t.Fatalf("%s: log %+v", logPath, l)
		}
		resend := logPath + "/evt_1/resend"
		if v := decode[DeliveryView](t, e.merchantAPI(http.MethodPost, resend, nil), 202); v.EventID != "evt_1" || v.Status != "pending" || v.URL != d.URL {
			t.Fatalf("%s: %+v", resend, v)
		}
		unknown := a.path + "/ord_2/webhooks"
		wantEnvelope(t, e.merchantAPI(http.MethodGet, unknown, nil), 404, 404, unknown, `Order "ord_2" not found`)
		wantEnvelope(t, e.merchantAPI(http.MethodPost, unknown+"/evt_1/resend", nil), 404, 404, unknown+"/evt_1/resend", `Order "ord_2" not found`)
		// A resend answers its entry as the log then shows it.
		if want := []call{{scope, a.area, "ord_1", ""}, {scope, a.area, "ord_1", "evt_1"}, {scope, a.area, "ord_1", ""}, {scope, a.area, "ord_2", ""},
			{scope, a.area, "ord_2", "evt_1"}}; !slices.Equal(calls, want) {
			t.Fatalf("%s: asked %+v, want %+v", a.path, calls, want)
		}
	}
}

// TestProviderWebhookRoute: /providers/{name}/webhook passes the provider's name, headers and
// body to the use case as received and answers what it says: 200 with whether the notification
// was new (a duplicate is acknowledged too), 200 ignored for one it ignores (refusing it would
// have it sent for ever), its refusals as envelopes (an unknown provider 404, a bad signature
// 400); POST only, at most maxProviderWebhook bytes, refused before the use case.
func TestProviderWebhookRoute(t *testing.T) {
	t.Parallel()
	type call struct {
		name string
		sig  string
		body string
	}
	var calls []call
	var applied bool
	var answer error
	e := newMockEnv(t, &mock.Checkout{ProviderWebhookFn: func(_ context.Context, name string, h http.Header, body []byte) (bool, error) {
		calls = append(calls, call{name, h.Get(sandbox.SignatureHeader), string(body)})
		return applied, answer
	}})
	body := `{"id":"sbe_x","type":"payment.updated","data":{"payment":{"id":"sbp_1","status":"processing"}}}`
	notify := func(path string) resp {
		return e.do(http.MethodPost, path, body, map[string]string{sandbox.SignatureHeader: "t=1,v1=00"})
	}
	for _, tc := range []struct {
		name    string
		applied bool
		err     error
		want    string
	}{
		{"new", true, nil, `{"duplicate":false,"ignored":false,"received":true}`},
		{"a duplicate", false, nil, `{"duplicate":true,"ignored":false,"received":true}`},
		{"about an unknown payment", false, fmt.Errorf("%w: sandbox sbp_1", checkout.ErrUnknownPayment), `{"duplicate":false,"ignored":true,"received":true}`},
		{"of a kind not acted on", false, fmt.Errorf("%w: sandbox: refund.created", checkout.ErrIgnored), `{"duplicate":false,"ignored":true,"received":true}`},
	} {
		calls, applied, answer = nil, tc.applied, tc.err
		r := notify(sandboxHook)
		if r.status != 200 || strings.TrimSpace(string(r.body)) != tc.want || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
			t.Fatalf("%s: %d %s, want 200 %s", tc.name, r.status, r.body, tc.want)
		}
		if want := []call{{"sandbox", "t=1,v1=00", body}}; !slices.Equal(calls, want) {
			t.Fatalf("%s: asked %+v", tc.name, calls)
		}
	}
	for _, tc := range []struct {
		name, path string
		err        error
		status     int
	}{
		{"an unknown provider", "/providers/nope/webhook", rampway.Errorf(rampway.ENOTFOUND, `no payment provider "nope" is configured`), 404},
		{"a bad signature", sandboxHook, rampway.Errorf(rampway.EINVALID, "sandbox webhook: no valid signature"), 400},
		{"malformed", sandboxHook, rampway.Errorf(rampway.EINVALID, "sandbox webhook: malformed notification"), 400},
	} {
		calls, answer = nil, tc.err
		if b := wantEnvelope(t, notify(tc.path), tc.status, tc.status, tc.path, ""); b.Message != rampway.ErrorMessage(tc.err) {
			t.Fatalf("%s: message %q", tc.name, b.Message)
		}
		if name := strings.Split(tc.path, "/")[2]; len(calls) != 1 || calls[0].name != name {
			t.Fatalf("%s: asked %+v", tc.name, calls)
		}
	}
	calls = nil
	wantEnvelope(t, e.do(http.MethodGet, sandboxHook, nil, nil), 405, 405, sandboxHook, "Method GET is not allowed")
	big := strings.Repeat("x", maxProviderWebhook+1)
	wantEnvelope(t, e.do(http.MethodPost, sandboxHook, big, map[string]string{sandbox.SignatureHeader: "t=1,v1=00"}), 413, 413, sandboxHook, "larger than")
	if len(calls) != 0 {
		t.Fatalf("asked %+v", calls)
	}
}

// TestProviderAdminRoute: a payment provider's admin operation (the sandbox's bank transfers)
// is served under the admin API with the admin token: its fields each a required string, the
// body read strictly, the operation's refusals as envelopes, its answer 201 as it gives it.
// Without the provider configured, there is no such route.
func TestProviderAdminRoute(t *testing.T) {
	t.Parallel()
	var sb *sandbox.Provider
	e := newMockEnvWith(t, &mock.Checkout{}, func(e *env) Deps {
		sb = sandbox.New(sandbox.Config{BaseURL: "https://pay.example", Secret: sandboxTestSecret}, sandbox.NewBooks(e.store, sandbox.Name), nil)
		return Deps{Providers: []rampway.FiatProvider{sb}}
	})
	ctx := t.Context()
	// A bank transfer payment waiting at the sandbox.
	started, err := sb.Start(ctx, rampway.StartFiatPayment{PaymentID: "fpy_1", OrderID: "ord_1", Amount: big.NewInt(3599), Currency: "EUR", Decimals: 2,
		Method: rampway.MethodSEPABankTransfer, ReturnURL: "https://pay.example/back"})
	if err != nil || !strings.HasPrefix(started.Reference, "RW-") {
		t.Fatalf("start %+v, %v", started, err)
	}
	books := sandbox.NewBooks(e.store, sandbox.Name)
	due := func() int {
		t.Helper()
		evs, err := books.SandboxDueEvents(ctx, time.Now().Add(time.Hour), 10)
		if err != nil {
			t.Fatal(err)
		}
		return len(evs)
	}
	bt := "/admin/sandbox/bank-transfers"
	ref := started.Reference
	for _, tc := range []struct {
		name   string
		body   any
		status int
		msg    string
	}{
		{"no reference", map[string]any{"amount": "1", "currency": "EUR"}, 400, "reference is required"},
		{"no amount", map[string]any{"reference": ref, "currency": "EUR"}, 400, "amount is required"},
		{"no currency", map[string]any{"reference": ref, "amount": "1"}, 400, "currency is required"},
		{"empty amount", map[string]any{"reference": ref, "amount": "", "currency": "EUR"}, 400, "amount is required"},
		{"unknown reference", map[string]any{"reference": "RW-NOPE", "amount": "1", "currency": "EUR"}, 404, `no bank transfer payment has the reference "RW-NOPE"`},
		{"another currency", map[string]any{"reference": ref, "amount": "1", "currency": "GBP"}, 400, "currency must be EUR, the payment's"},
		{"negative amount", map[string]any{"reference": ref, "amount": "-1", "currency": "EUR"}, 400, "amount must be a positive decimal with at most 2 decimals"},
		{"too precise", map[string]any{"reference": ref, "amount": "1.001", "currency": "EUR"}, 400, "amount must be a positive decimal with at most 2 decimals"},
		{"amount a number", map[string]any{"reference": ref, "amount": 1, "currency": "EUR"}, 400, "Field 'amount' must be a string, not a number"},
		{"unknown field", map[string]any{"reference": ref, "amount": "1", "currency": "EUR", "iban": "x"}, 400, "Unknown field 'iban'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantEnvelope(t, e.admin(http.MethodPost, "/sandbox/bank-transfers", tc.body), tc.status, tc.status, bt, tc.msg)
		})
	}
	wantEnvelope(t, e.do(http.MethodPost, bt, map[string]any{"reference": ref, "amount": "35.99", "currency": "EUR"},
		map[string]string{"X-API-KEY": e.key}), 401, 401, bt, "Unauthorized")
	if n := due(); n != 0 {
		t.Fatalf("refused transfers sent %d notifications", n)
	}

	// The transfer arrives: 201, the sandbox's answer; its notification is due.
	r := e.admin(http.MethodPost, "/sandbox/bank-transfers", map[string]any{"reference": ref, "amount": "35.99", "currency": "EUR"})
	credit := decode[sandbox.BankTransferView](t, r, 201)
	if !strings.HasPrefix(credit.Credit, "sbc_") || credit.Reference != ref || credit.Amount != "35.99" || credit.Currency != "EUR" {
		t.Fatalf("bank transfer %s", r.body)
	}
	if got := rawKeys(t, r.body); !slices.Equal(got, []string{"amount", "credit_id", "currency", "reference"}) {
		t.Fatalf("bank transfer answer %s", r.body)
	}
	if n := due(); n != 1 {
		t.Fatalf("%d notifications due, want the credit", n)
	}

	// Without the provider configured (newHTTPEnv's server), its route is unknown.
	plain := newHTTPEnv(t)
	wantEnvelope(t, plain.admin(http.MethodPost, "/sandbox/bank-transfers", map[string]any{"reference": "RW-X", "amount": "1", "currency": "EUR"}),
		404, 404, bt, "Cannot POST /admin/sandbox/bank-transfers")
}
