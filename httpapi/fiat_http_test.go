package httpapi

import (
	"context"
	"encoding/json"
	"maps"
	"math/big"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/checkout"
	"github.com/rampway/rampway/merchant"
	"github.com/rampway/rampway/mock"
)

// Areas B and C's HTTP layer on mock use cases, without a chain: the keys and bodies refused
// before a use case is asked, what reaches it, its answers as the spec's views and its errors
// as envelopes. What the use cases decide (quotes, limits, identity checks, the orders they
// store and find) is tested in package checkout (fiatorders_test.go, deposit_orders_test.go).

const (
	fiatOrderPath     = "/nft-ramp" + routeOrder
	fiatOrdersPath    = "/nft-ramp" + routeOrders
	depositOrderPath  = "/deposit" + routeOnRampOrder
	depositOrdersPath = "/deposit" + routeOnRampOrders
)

// newMockEnv starts a server on a fresh SQLite store with merchants (the idempotency records
// too), whose checkout use cases are c.
func newMockEnv(t *testing.T, c *mock.Checkout) *env {
	t.Helper()
	return newMockEnvWith(t, c, nil)
}

// newMockEnvWith is newMockEnv with more of the server's dependencies (its payment providers,
// say), made on the env's store.
func newMockEnvWith(t *testing.T, c *mock.Checkout, more func(e *env) Deps) *env {
	t.Helper()
	e, log := newMerchantEnv(t)
	var d Deps
	if more != nil {
		d = more(e)
	}
	d.Merchants, d.Functions, d.Checkout, d.Idempotency, d.DB, d.Log, d.Metrics = e.svc, &mock.Functions{}, c, e.store, e.ping, log, prometheus.NewRegistry()
	e.srv = httptest.NewServer(New(testConfig(), d))
	t.Cleanup(e.srv.Close)
	return e
}

// otherMerchant creates another merchant with a test key.
func (e *env) otherMerchant() (*rampway.Merchant, string) {
	e.t.Helper()
	m, err := e.svc.Create(e.t.Context(), merchant.CreateParams{Name: "Other"})
	if err != nil {
		e.t.Fatal(err)
	}
	_, key, err := e.svc.IssueAPIKey(e.t.Context(), m.ID, false)
	if err != nil {
		e.t.Fatal(err)
	}
	return m, key
}

// mockT0 is when the mock use cases' orders are created.
var mockT0 = time.Date(2030, 6, 14, 12, 0, 0, 0, time.UTC)

// identity is every user_* field of B1 and C1, valid.
func identity() map[string]any {
	return map[string]any{"user_email_id": "ada@example.com", "user_first_name": "Ada", "user_last_name": "Lovelace",
		"user_mobileNumber": "+447700900123", "user_dob": "1990-12-10", "user_addressLine1": "12 Example Street",
		"user_addressLine2": "Flat 3", "user_city": "London", "user_state": "Greater London", "user_postCode": "SW1A 1AA",
		"user_countryCode": "GB"}
}

// identityStrings is identity as the use cases receive it.
func identityStrings() map[string]string {
	out := map[string]string{}
	for k, v := range identity() {
		out[k] = v.(string)
	}
	return out
}

// The token the mock orders of DUSD are of, and the deposit address area C's deliver to.
var (
	mockToken  = common.HexToAddress("0x5FbDB2315678afecb367f032d93F642f64180aa3")
	mockPayout = common.HexToAddress("0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65")
)

// mintBody is a valid A1 body of e's merchant for the mock use cases: rampBody's call, paid in
// ETH on devnet.
func (e *env) mintBody() map[string]any {
	return map[string]any{"merchant_id": e.merchant.ID, "crypto_symbol": "ETH", "crypto_network": "devnet", "merchant_user_id": "user-7",
		"merchant_txn_id": "txn-7", "merchant_redirect_url": "https://shop.example/back", "contractExecution": e.rampBody(nil)["contractExecution"]}
}

// mockOrder is an order of e's merchant as the checkout use cases return one, in CREATED with
// every user field: area B's pays 35.99 EUR by card for the native mint of one token (0.01 ETH,
// 0.0106 ETH with the fees); area C's converts 100.00 EUR by card into 87.51 DUSD for the
// merchant's deposit address; area A's pays 0.0106 ETH to its deposit address. edit changes it.
func (e *env) mockOrder(area rampway.Area, edit func(o *rampway.Order)) *rampway.Order {
	o := &rampway.Order{ID: rampway.NewID(rampway.PrefixOrder, mockT0), MerchantID: e.merchant.ID, Area: area, Status: rampway.StatusCreated,
		MerchantUserID: "user-7", MerchantTxnID: "txn-7", MerchantRedirectURL: "https://shop.example/back", User: identityStrings(),
		Network: "devnet", Asset: rampway.Asset{Symbol: "ETH", Network: "devnet", Decimals: 18}, CryptoAmount: big.NewInt(10_600_000_000_000_000),
		CryptoReceived: new(big.Int), FunctionID: "scf_00000000000000000000000001", FunctionArgs: json.RawMessage(`{"to":"0x70997970C51812dc3A010C7d01b50e0d17dc79C8","quantity":"1"}`),
		PaymentValue: big.NewInt(10_000_000_000_000_000), GasLimit: 300_000, NetworkFee: big.NewInt(500_000_000_000_000), ServiceFee: big.NewInt(100_000_000_000_000),
		ExpiresAt: mockT0.Add(30 * time.Minute), CreatedAt: mockT0, UpdatedAt: mockT0}
	switch area {
	case rampway.AreaMint:
		o.DepositAddress, o.DepositIndex = common.HexToAddress("0x00000000000000000000000000000000000D3905"), 7
	case rampway.AreaNFTRamp:
		o.FiatSymbol, o.FiatMethod, o.FiatAmount, o.FiatDecimals = "EUR", rampway.MethodCard, big.NewInt(3599), 2
	case rampway.AreaDeposit:
		o.Asset = rampway.Asset{Symbol: "DUSD", Network: "devnet", Contract: mockToken, Decimals: 6}
		o.CryptoAmount, o.PaymentValue, o.GasLimit = big.NewInt(87_510_000), new(big.Int), 100_000
		o.NetworkFee, o.ServiceFee, o.FunctionID, o.FunctionArgs = big.NewInt(12_345), new(big.Int), "", json.RawMessage("{}")
		o.PayoutAddress = mockPayout
		o.FiatSymbol, o.FiatMethod, o.FiatAmount, o.FiatDecimals = "EUR", rampway.MethodCard, big.NewInt(10_000), 2
	}
	if edit != nil {
		edit(o)
	}
	return o
}

// mockHash is the gateway hash of the mock use cases' orders.
const mockHash = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func mockGatewayURL(id string) string {
	return "https://pay.example/checkout?order_id=" + id + "&hash=" + mockHash
}

// created is what a creation use case answers for o.
func created(o *rampway.Order, info string) *checkout.Created {
	return &checkout.Created{Order: o, Hash: mockHash, GatewayURL: mockGatewayURL(o.ID), Info: info}
}

// storeReply does for a mock creation what checkout's does with an Idempotency-Key's answer:
// made from the order, it is stored with it (here, after it).
func (e *env) storeReply(ctx context.Context, reply func(*checkout.Created) (*rampway.IdempotentReply, error), c *checkout.Created) error {
	if reply == nil {
		return nil
	}
	r, err := reply(c)
	if err != nil {
		return err
	}
	return e.store.FinishIdempotent(ctx, r)
}

// lookups is a mock's order lookups: each records what the HTTP API asked, and answers from
// its orders (as checkout would for what it asked: the tests assert the asking) or, for an id
// it does not hold, not found as checkout words it.
type lookups struct {
	mu     sync.Mutex
	orders map[string]*rampway.Order
	asked  []lookup
	// filters are the lists asked, list what they answer.
	filters []rampway.OrderFilter
	list    []*rampway.Order
}

type lookup struct {
	scope string // scopeOf's
	area  rampway.Area
	id    string
}

// scopeOf writes a scope as lookups record it: its merchant and mode ("any" for both modes).
func scopeOf(s rampway.Scope) string {
	if s.Livemode == nil {
		return s.MerchantID + "/any"
	}
	return s.MerchantID + "/" + rampway.ModeName(*s.Livemode)
}

func newLookups(orders ...*rampway.Order) *lookups {
	l := &lookups{orders: map[string]*rampway.Order{}}
	for _, o := range orders {
		l.orders[o.ID] = o
	}
	return l
}

// set makes c's lookups, lists, and the parts of an order's view (none of its payments,
// movements, refunds or transfers) answer from l.
func (l *lookups) set(c *mock.Checkout) {
	c.OrderFn = func(_ context.Context, scope rampway.Scope, area rampway.Area, id string) (*rampway.Order, error) {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.asked = append(l.asked, lookup{scopeOf(scope), area, id})
		if o, ok := l.orders[id]; ok {
			return o, nil
		}
		return nil, rampway.Errorf(rampway.ENOTFOUND, "Order %q not found", id)
	}
	c.OrdersFn = func(_ context.Context, f rampway.OrderFilter) ([]*rampway.Order, error) {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.filters = append(l.filters, f)
		return l.list, nil
	}
	c.GatewayURLFn = mockGatewayURL
	c.FiatPaymentsFn = func(context.Context, *rampway.Order) ([]*rampway.FiatPayment, error) { return nil, nil }
	c.FiatActionsFn = func(context.Context, *rampway.Order) ([]*rampway.FiatAction, error) { return nil, nil }
	c.RefundsFn = func(context.Context, *rampway.Order) ([]*rampway.Refund, error) { return nil, nil }
	c.TransfersFn = func(context.Context, *rampway.Order) ([]*rampway.InboundTransfer, error) { return nil, nil }
}

// take returns the lookups and lists asked since the last take.
func (l *lookups) take() ([]lookup, []rampway.OrderFilter) {
	l.mu.Lock()
	defer l.mu.Unlock()
	a, f := l.asked, l.filters
	l.asked, l.filters = nil, nil
	return a, f
}

// rawKeys are the members of a JSON object answer, sorted.
func rawKeys(t *testing.T, body []byte) []string {
	t.Helper()
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	return slices.Sorted(maps.Keys(raw))
}

// rawMember is a member of a JSON object answer as sent ("" when absent).
func rawMember(t *testing.T, body []byte, name string) string {
	t.Helper()
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	return string(raw[name])
}

// TestFiatOrderHTTP: B1 and C1 refuse a missing or foreign key and a body that is not one JSON
// object without asking the use case; a body that is one reaches it decoded, and the field
// error it answers is the 400 envelope naming it.
func TestFiatOrderHTTP(t *testing.T) {
	t.Parallel()
	var reached atomic.Int32
	refused := rampway.FieldErrorf("user_dob", "user_dob must be in the past")
	var fiat checkout.FiatOrderParams
	var deposit checkout.DepositOrderParams
	c := &mock.Checkout{
		CreateFiatOrderFn: func(_ context.Context, _ *rampway.Merchant, p checkout.FiatOrderParams) (*checkout.Created, error) {
			reached.Add(1)
			fiat = p
			return nil, refused
		},
		CreateDepositOrderFn: func(_ context.Context, _ *rampway.Merchant, p checkout.DepositOrderParams) (*checkout.Created, error) {
			reached.Add(1)
			deposit = p
			return nil, refused
		},
	}
	e := newMockEnv(t, c)
	_, otherKey := e.otherMerchant()
	bodies := map[string]map[string]any{
		fiatOrderPath: {"merchant_id": e.merchant.ID, "order_fiat_symbol": "EUR", "fiat_payment_method": "credit_debit_card",
			"merchant_user_id": "user-7", "merchant_txn_id": "txn-7", "merchant_redirect_url": "https://shop.example/back",
			"user_dob": "1990-12-10", "contractExecution": map[string]any{"smartContractFunctionId": "scf_x", "function_args": map[string]any{},
				"network_params": map[string]any{"networkName": "devnet"}}},
		depositOrderPath: {"merchant_id": e.merchant.ID, "order_fiat_symbol": "EUR", "order_fiat_amount": "50.00",
			"fiat_payment_method": "credit_debit_card", "convert_to_crypto_symbol": "ETH", "convert_to_crypto_network": "devnet",
			"merchant_user_id": "user-7", "merchant_redirect_url": "https://shop.example/back", "user_dob": "1990-12-10"},
	}
	for path, body := range bodies {
		t.Run(path, func(t *testing.T) {
			reached.Store(0)
			// Keys: none, unknown, another merchant's (with this merchant's id).
			for name, h := range map[string]map[string]string{"no key": nil, "unknown key": {"X-API-KEY": "rw_test_" + strings.Repeat("a", 32)},
				"another merchant's key": {"X-API-KEY": otherKey}} {
				t.Run(name, func(t *testing.T) {
					wantEnvelope(t, e.do(http.MethodPost, path, body, h), 401, 401, path, "Unauthorized")
				})
			}
			// The body itself.
			for _, tc := range []struct{ name, body, msg string }{
				{"malformed", "{\n  \"merchant_id\": \"x\",\n}", "Malformed JSON at line 3, column 1"},
				{"truncated", `{"order_fiat_symbol": "EUR"`, "Malformed JSON at line 1, column 28: unexpected end of input"},
				{"an array", `[{"order_fiat_symbol": "EUR"}]`, "Request body must be a JSON object, not an array"},
				{"null", `null`, "Request body must be a JSON object, not null"},
				{"empty", ``, "Request body is required"},
				{"two objects", `{} {}`, "exactly one JSON object"},
				{"an empty object", `{}`, "merchant_id is required"},
			} {
				t.Run(tc.name, func(t *testing.T) {
					wantEnvelope(t, e.merchantAPI(http.MethodPost, path, tc.body), 400, 400, path, tc.msg)
				})
			}
			if n := reached.Load(); n != 0 {
				t.Fatalf("the use case was asked %d times for refused requests", n)
			}
			// A body that is one object reaches the use case; its field error is the answer.
			b := wantEnvelope(t, e.merchantAPI(http.MethodPost, path, body), 400, 400, path, "user_dob must be in the past")
			if reached.Load() != 1 || b.Message != "user_dob must be in the past" {
				t.Fatalf("asked %d times, message %q", reached.Load(), b.Message)
			}
		})
	}
	if q, o := fiat.Quote, fiat.Order; q.MerchantID != e.merchant.ID || q.Livemode || q.FiatSymbol != "EUR" || q.Method != "credit_debit_card" ||
		o.MerchantUserID != "user-7" || o.MerchantTxnID != "txn-7" || o.MerchantRedirectURL != "https://shop.example/back" || o.User["user_dob"] != "1990-12-10" {
		t.Fatalf("B1 reached the use case with %+v", fiat)
	}
	if q, o := deposit.Quote, deposit.Order; q.MerchantID != e.merchant.ID || q.FiatSymbol != "EUR" || q.FiatAmount != "50.00" ||
		q.Method != "credit_debit_card" || q.CryptoSymbol != "ETH" || q.CryptoNetwork != "devnet" || o.MerchantUserID != "user-7" ||
		o.User["user_dob"] != "1990-12-10" {
		t.Fatalf("C1 reached the use case with %+v", deposit)
	}
}
