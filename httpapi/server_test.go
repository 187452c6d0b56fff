package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/shopspring/decimal"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain"
	"github.com/rampway/rampway/chain/devchain"
	"github.com/rampway/rampway/chain/devchain/devchaintest"
	"github.com/rampway/rampway/chain/hd"
	"github.com/rampway/rampway/checkout"
	"github.com/rampway/rampway/checkoutpage"
	"github.com/rampway/rampway/config"
	"github.com/rampway/rampway/contract"
	"github.com/rampway/rampway/internal/devtest"
	"github.com/rampway/rampway/internal/sqlstore"
	"github.com/rampway/rampway/merchant"
	"github.com/rampway/rampway/mock"
	"github.com/rampway/rampway/pricing"
	"github.com/rampway/rampway/storetest"
)

const adminToken = "test-admin-token-0123456789abcdef0123"

// env is a server over a real SQLite store with one merchant and its key.
type env struct {
	t *testing.T
	// checkoutCfg and checkoutDeps built checkout: an env with payment providers builds it
	// again with them (withProviders).
	checkoutCfg  checkout.Config
	checkoutDeps checkout.Deps
	srv          *httptest.Server
	store        *sqlstore.Store
	svc          *merchant.Service
	merchant     *rampway.Merchant
	key          string
	keyID        string
	logs         *devtest.LockedBuffer
	ping         *fakePinger
	chain        *devchain.Chain
	hotWallet    common.Address
	functions    *contract.Registry
	checkout     *checkout.Service
	prices       pricing.Static // the checkout service's (a test may take a price out)
	// chains are the checkout service's networks: a test may mark chains.net live.
	chains  testChains
	deriver checkout.Deriver
}

// The well-known test mnemonic and the hot wallet's key (any funded key would do).
const (
	testMnemonic = "test test test test test test test test test test test junk"
	hotWalletKey = "59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"
)

// testChains is the networks with the native coin's bounds set, as a config would.
type testChains struct {
	nets *chain.Networks
	net  *rampway.Network
}

func (c testChains) Network(name string) (*rampway.Network, bool) {
	if name != c.net.Name {
		return nil, false
	}
	n := *c.net
	return &n, true
}

func (c testChains) EVM(name string) (checkout.EVM, bool) {
	cl, ok := c.nets.Client(name)
	return chain.QuoteClient{Node: cl}, ok
}

// Head is the network's latest block (the checkout page counts confirmations with it).
func (c testChains) Head(ctx context.Context, name string) (uint64, error) {
	cl, ok := c.nets.Client(name)
	if !ok {
		return 0, errors.New("no such network")
	}
	h, err := cl.HeaderByNumber(ctx, nil)
	if err != nil {
		return 0, err
	}
	return h.Number.Uint64(), nil
}

type fakePinger struct{ err error }

func (p *fakePinger) Ping(context.Context) error { return p.err }

// openMerchants opens a fresh SQLite store, closed when the test ends, and the merchant
// service on it (dev mode: loopback webhook URLs allowed).
func openMerchants(t *testing.T) (*sqlstore.Store, *merchant.Service) {
	t.Helper()
	store := storetest.OpenSQLite(t)
	return store, merchant.NewService(store, merchant.Options{HashSecret: "hash-secret-0123456789abcdef0123456", DevMode: true})
}

// newMerchantEnv is an env without a server yet: a fresh SQLite store, the merchant service on
// it, and the merchant "Acme" with an API key; log writes to e.logs.
func newMerchantEnv(t *testing.T) (*env, *slog.Logger) {
	t.Helper()
	store, svc := openMerchants(t)
	m, err := svc.Create(t.Context(), merchant.CreateParams{Name: "Acme"})
	if err != nil {
		t.Fatal(err)
	}
	k, raw, err := svc.IssueAPIKey(t.Context(), m.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, store: store, svc: svc, merchant: m, key: raw, keyID: k.ID, logs: &devtest.LockedBuffer{}, ping: &fakePinger{}}
	return e, slog.New(slog.NewJSONHandler(e.logs, nil))
}

// testConfig is the servers' configuration in these tests.
func testConfig() Config {
	return Config{BasePaths: BasePaths{Mint: "/mint", NFTRamp: "/nft-ramp", Deposit: "/deposit", Admin: "/admin"},
		MaxBodyBytes: 1 << 20, AdminToken: adminToken, Version: "test"}
}

// newHTTPEnv starts a server on a fresh SQLite store with merchants, and no chain: for the
// tests of HTTP itself (auth, bodies, routing, errors, operations, onboarding), whose requests
// never reach a use case that needs one. The checkout use cases and the function registry
// answer 503 (mock.Checkout and mock.Functions with nothing set); there is no checkout page.
func newHTTPEnv(t *testing.T) *env {
	t.Helper()
	e, log := newMerchantEnv(t)
	store, svc := e.store, e.svc
	h := New(testConfig(),
		Deps{Merchants: svc, Functions: &mock.Functions{}, Checkout: &mock.Checkout{}, Idempotency: store, DB: e.ping, Log: log, Metrics: prometheus.NewRegistry()})
	e.srv = httptest.NewServer(h)
	t.Cleanup(e.srv.Close)
	return e
}

var (
	_ Checkout  = (*mock.Checkout)(nil)
	_ Functions = (*mock.Functions)(nil)
)

var errNoChain = rampway.Errorf(rampway.EUNAVAILABLE, "no chain in this test")

// newEnv starts a server on a fresh SQLite store and dev chain; wrap, when given, wraps the
// store the checkout service writes orders to.
func newEnv(t *testing.T, wrap ...func(checkout.Store) checkout.Store) *env {
	t.Helper()
	e, log := newMerchantEnv(t)
	store, svc := e.store, e.svc
	hot, _ := crypto.HexToECDSA(hotWalletKey)
	e.hotWallet = crypto.PubkeyToAddress(hot.PublicKey)
	e.chain = devchaintest.Start(t, devchain.Funding{Address: e.hotWallet, Wei: new(big.Int).Mul(big.NewInt(100), big.NewInt(1e18)), TokenUnits: big.NewInt(1e12)})
	nets, err := chain.Dial(t.Context(), []rampway.Network{e.chain.Network("devnet")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nets.Close)
	e.functions = contract.NewRegistry(contract.RegistryConfig{}, store, nets, nil)
	signer, err := hd.FromMnemonic(testMnemonic, "")
	if err != nil {
		t.Fatal(err)
	}
	xpub, _ := signer.XPub()
	deriver, _ := hd.FromXPub(xpub)
	net := e.chain.Network("devnet")
	net.Native.Min, net.Native.Max = big.NewInt(1000), new(big.Int).Mul(big.NewInt(100), big.NewInt(1e18))
	e.prices = pricing.Static{"ETH": decimal.NewFromInt(3000), "DUSD": decimal.NewFromInt(1), "USD": decimal.NewFromInt(1),
		"EUR": decimal.RequireFromString("1.08"), "GBP": decimal.RequireFromString("1.27")}
	var orders checkout.Store = store
	for _, w := range wrap {
		orders = w(orders)
	}
	e.chains, e.deriver = testChains{nets, &net}, deriver
	e.checkoutCfg = checkout.Config{PublicURL: "https://pay.example", HashSecret: []byte("hash-secret-0123456789abcdef0123456"),
		HotWallet: e.hotWallet, DevMode: true, TestFiat: defaultFiat(), FiatSpreadBPS: 100}
	e.checkoutDeps = checkout.Deps{Store: orders, Functions: e.functions, Chains: e.chains, Prices: e.prices, Deriver: deriver}
	e.checkout = checkout.New(e.checkoutCfg, e.checkoutDeps)
	h := New(testConfig(),
		Deps{Merchants: svc, Functions: e.functions, Checkout: e.checkout, Idempotency: store, DB: e.ping, Log: log, Metrics: prometheus.NewRegistry(),
			Page: checkoutpage.New(checkoutpage.Config{}, checkoutpage.Deps{Store: store, Checkout: e.checkout, Fiat: e.checkout, Chains: e.chains, Log: log})})
	e.srv = httptest.NewServer(h)
	t.Cleanup(e.srv.Close)
	return e
}

type resp struct {
	status int
	header http.Header
	body   []byte
}

// do sends a request; body may be nil, a string (sent as is) or a value (sent as JSON).
func (e *env) do(method, path string, body any, header map[string]string) resp {
	e.t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	case io.Reader:
		r = b
	default:
		data, _ := json.Marshal(b)
		r = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(e.t.Context(), method, e.srv.URL+path, r)
	if err != nil {
		e.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return resp{status: res.StatusCode, header: res.Header, body: data}
}

func (e *env) merchantAPI(method, path string, body any) resp {
	return e.do(method, path, body, map[string]string{"X-API-KEY": e.key})
}

func (e *env) admin(method, path string, body any) resp {
	return e.do(method, "/admin"+path, body, map[string]string{"Authorization": "Bearer " + adminToken})
}

var timestampRE = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)

// wantEnvelope checks an error response: HTTP status, the exact envelope, and a message
// containing msg.
func wantEnvelope(t *testing.T, r resp, httpStatus, bodyStatus int, path, msg string) ErrorBody {
	t.Helper()
	if r.status != httpStatus {
		t.Fatalf("HTTP status %d, want %d; body %s", r.status, httpStatus, r.body)
	}
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("Content-Type %q", ct)
	}
	dec := json.NewDecoder(bytes.NewReader(r.body))
	dec.DisallowUnknownFields()
	var b ErrorBody
	if err := dec.Decode(&b); err != nil {
		t.Fatalf("body %s is not the envelope: %v", r.body, err)
	}
	var raw map[string]any
	_ = json.Unmarshal(r.body, &raw)
	if len(raw) != 5 || raw["status"] != false {
		t.Fatalf("envelope must have exactly statusCode, timestamp, message, path, status=false: %s", r.body)
	}
	if b.StatusCode != bodyStatus || b.Path != path || !timestampRE.MatchString(b.Timestamp) {
		t.Fatalf("envelope %+v, want statusCode %d path %s", b, bodyStatus, path)
	}
	if !strings.Contains(b.Message, msg) {
		t.Fatalf("message %q does not contain %q", b.Message, msg)
	}
	return b
}

const orderPath = "/nft-ramp/merchant/hosted/nftCheckout/order" // B1: past the key and body checks, this test's bodies lack contractExecution (400)

func TestMerchantAuth(t *testing.T) {
	t.Parallel()
	e := newHTTPEnv(t)
	_, raw2, _ := e.svc.IssueAPIKey(t.Context(), e.merchant.ID, false)
	other, _ := e.svc.Create(t.Context(), merchant.CreateParams{Name: "Other"})
	_, otherKey, _ := e.svc.IssueAPIKey(t.Context(), other.ID, false)
	body := map[string]string{"merchant_id": e.merchant.ID}
	for _, tc := range []struct {
		name   string
		header map[string]string
		body   any
	}{
		{"missing key", nil, body},
		{"empty key", map[string]string{"X-API-KEY": ""}, body},
		{"garbage key", map[string]string{"X-API-KEY": "nope"}, body},
		{"unknown well-formed key", map[string]string{"X-API-KEY": "rw_test_" + strings.Repeat("a", 32)}, body},
		{"key of another merchant", map[string]string{"X-API-KEY": otherKey}, body},
		{"foreign merchant_id", map[string]string{"X-API-KEY": e.key}, map[string]string{"merchant_id": other.ID}},
		{"admin token as key", map[string]string{"X-API-KEY": adminToken}, body},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do(http.MethodPost, orderPath, tc.body, tc.header)
			wantEnvelope(t, r, 401, 401, orderPath, "Unauthorized")
			var b ErrorBody
			_ = json.Unmarshal(r.body, &b)
			if b.Message != "Unauthorized" {
				t.Fatalf("message %q, want exactly Unauthorized", b.Message)
			}
		})
	}
	// The header name in any case, and several keys active at once.
	for _, h := range []map[string]string{{"x-api-key": e.key}, {"X-Api-Key": raw2}} {
		r := e.do(http.MethodPost, orderPath, body, h)
		wantEnvelope(t, r, 400, 400, orderPath, "contractExecution is required")
	}
	// Revoked: refused at once.
	if r := e.admin(http.MethodDelete, "/merchants/"+e.merchant.ID+"/api-keys/"+e.keyID, nil); r.status != 204 {
		t.Fatalf("revoke: %d %s", r.status, r.body)
	}
	wantEnvelope(t, e.merchantAPI(http.MethodPost, orderPath, body), 401, 401, orderPath, "Unauthorized")
	wantEnvelope(t, e.do(http.MethodPost, orderPath, body, map[string]string{"X-API-KEY": raw2}), 400, 400, orderPath, "contractExecution is required")
}

// TestSpecRoutesMounted: each route of the spec (and its lookups) is mounted under its area's
// base path, refuses a request without a key, and answers a body or query that lacks its fields
// its own way: every area is built, none answers 501. (On mock use cases, answering as checkout
// would: an unknown order is not found, C1 checks the order's own fields first.)
func TestSpecRoutesMounted(t *testing.T) {
	t.Parallel()
	notFound := func(id string) error { return rampway.Errorf(rampway.ENOTFOUND, "Order %q not found", id) }
	e := newMockEnv(t, &mock.Checkout{
		OrderFn: func(_ context.Context, _ rampway.Scope, _ rampway.Area, id string) (*rampway.Order, error) {
			return nil, notFound(id)
		},
		OrdersFn: func(context.Context, rampway.OrderFilter) ([]*rampway.Order, error) { return nil, nil },
		DeliveriesFn: func(_ context.Context, _ rampway.Scope, _ rampway.Area, id string) ([]checkout.DeliveryLog, error) {
			return nil, notFound(id)
		},
		ResendFn: func(_ context.Context, _ rampway.Scope, _ rampway.Area, id, _ string) (*rampway.Delivery, error) {
			return nil, notFound(id)
		},
		CreateDepositOrderFn: func(_ context.Context, _ *rampway.Merchant, p checkout.DepositOrderParams) (*checkout.Created, error) {
			if p.Order.MerchantUserID == "" {
				return nil, rampway.FieldErrorf("merchant_user_id", "merchant_user_id is required")
			}
			return nil, errors.New("not in this test")
		},
	})
	for _, rt := range []struct {
		method, path string
		status       int
		msg          string
	}{
		{"POST", "/mint/merchant/hosted/nftCheckout/order", 400, "contractExecution is required"},
		{"POST", "/mint/merchant/hosted/nftCheckout/cryptoQuote", 400, "contractExecution is required"},
		{"GET", "/mint/merchant/hosted/nftCheckout/order/ord_1", 404, `Order "ord_1" not found`},
		{"GET", "/mint/merchant/hosted/nftCheckout/orders", 200, ""},
		{"POST", "/nft-ramp/merchant/hosted/nftCheckout/order", 400, "contractExecution is required"},
		{"GET", "/nft-ramp/merchant/hosted/nftCheckout/fiatCurrencies", 200, ""},
		{"POST", "/nft-ramp/merchant/hosted/nftCheckout/fiatQuote", 400, "contractExecution is required"},
		{"GET", "/nft-ramp/merchant/hosted/nftCheckout/order/ord_1", 404, `Order "ord_1" not found`},
		{"GET", "/nft-ramp/merchant/hosted/nftCheckout/orders", 200, ""},
		{"POST", "/deposit/merchant/sdk/on-ramp/order", 400, "merchant_user_id is required"},
		{"GET", "/deposit/merchant/sdk/onramp-to-deposit/fiatCurrencies", 200, ""},
		{"GET", "/deposit/merchant/sdk/on-ramp/order/ord_1", 404, `Order "ord_1" not found`},
		{"GET", "/deposit/merchant/sdk/on-ramp/orders", 200, ""},
		{"GET", "/deposit/merchant/sdk/on-ramp/order/ord_1/webhooks", 404, `Order "ord_1" not found`},
		{"POST", "/deposit/merchant/sdk/on-ramp/order/ord_1/webhooks/evt_1/resend", 404, `Order "ord_1" not found`},
	} {
		t.Run(rt.method+" "+rt.path, func(t *testing.T) {
			var body any
			if rt.method == "POST" {
				body = map[string]string{"merchant_id": e.merchant.ID}
			}
			wantEnvelope(t, e.do(rt.method, rt.path, body, nil), 401, 401, rt.path, "Unauthorized")
			r := e.merchantAPI(rt.method, rt.path, body)
			if rt.status == 200 {
				if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
					t.Fatalf("%d %s", r.status, r.body)
				}
			} else {
				wantEnvelope(t, r, rt.status, rt.status, rt.path, rt.msg)
			}
			if rt.method == "GET" {
				wantEnvelope(t, e.merchantAPI(rt.method, rt.path+"?merchant_id=mch_someone", nil), 401, 401, rt.path, "Unauthorized")
			}
		})
	}
}

func TestBodyErrors(t *testing.T) {
	t.Parallel()
	e := newHTTPEnv(t)
	big := `{"merchant_id":"` + strings.Repeat("a", 1<<20) + `"}`
	for _, tc := range []struct {
		name        string
		body        any
		contentType string
		status      int
		msg         string
	}{
		{"malformed", "{\n  \"merchant_id\": \"x\",\n}", "application/json", 400, "Malformed JSON at line 3, column 1"},
		{"truncated", `{"merchant_id": "x"`, "application/json", 400, "Malformed JSON at line 1, column 20: unexpected end of input"},
		{"wrong type", `{"merchant_id": 5}`, "application/json", 400, "Field 'merchant_id' must be a string, not a number"},
		{"array body", `[1,2]`, "application/json", 400, "Request body must be a JSON object, not an array"},
		{"null body", `null`, "application/json", 400, "Request body must be a JSON object, not null"},
		{"null body with spaces", " null\n", "application/json", 400, "Request body must be a JSON object, not null"},
		{"string body", `"x"`, "application/json", 400, "Request body must be a JSON object, not a string"},
		{"trailing data", `{"merchant_id":"x"} {}`, "application/json", 400, "exactly one JSON object"},
		{"empty body", ``, "application/json", 400, "Request body is required"},
		{"missing merchant_id", `{}`, "application/json", 400, "merchant_id is required"},
		{"text/plain", `{"merchant_id":"x"}`, "text/plain", 415, "Content-Type must be application/json"},
		{"form body", `merchant_id=x`, "application/x-www-form-urlencoded", 415, "Content-Type must be application/json"},
		{"JSON labelled as a form (curl -d)", `{"merchant_id":"x"}`, "application/x-www-form-urlencoded", 415, `Content-Type must be application/json, not "application/x-www-form-urlencoded"`},
		{"JSON labelled as multipart", `{"merchant_id":"x"}`, "multipart/form-data; boundary=x", 415, "Content-Type must be application/json"},
		{"too large with length", big, "application/json", 413, "larger than 1048576 bytes"},
		{"too large chunked", io.MultiReader(strings.NewReader(big)), "application/json", 413, "larger than 1048576 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do(http.MethodPost, orderPath, tc.body, map[string]string{"X-API-KEY": e.key, "Content-Type": tc.contentType})
			wantEnvelope(t, r, tc.status, tc.status, orderPath, tc.msg)
		})
	}
	// JSON by its media type (a +json suffix too), or no Content-Type at all: taken as JSON.
	for _, ct := range []string{"application/json", "application/json; charset=utf-8", "application/merchant+json", ""} {
		r := e.do(http.MethodPost, orderPath, `{"merchant_id":"`+e.merchant.ID+`"}`, map[string]string{"X-API-KEY": e.key, "Content-Type": ct})
		wantEnvelope(t, r, 400, 400, orderPath, "contractExecution is required")
	}
}

func TestRoutingErrors(t *testing.T) {
	t.Parallel()
	e := newHTTPEnv(t)
	wantEnvelope(t, e.do(http.MethodGet, "/nope", nil, nil), 404, 404, "/nope", "Cannot GET /nope")
	wantEnvelope(t, e.merchantAPI(http.MethodGet, "/mint/merchant/hosted/nftCheckout/nope", nil), 404, 404, "/mint/merchant/hosted/nftCheckout/nope", "Cannot GET")
	r := e.do(http.MethodGet, orderPath, nil, nil)
	wantEnvelope(t, r, 405, 405, orderPath, "Method GET is not allowed")
	if r.header.Get("Allow") != "POST" {
		t.Fatalf("Allow = %q", r.header.Get("Allow"))
	}
	r = e.do(http.MethodDelete, "/healthz", nil, nil)
	wantEnvelope(t, r, 405, 405, "/healthz", "allowed: GET, HEAD")
	r = e.do(http.MethodPut, "/admin/merchants/"+e.merchant.ID, nil, nil)
	wantEnvelope(t, r, 405, 405, "/admin/merchants/"+e.merchant.ID, "")
	if a := r.header.Get("Allow"); a != "GET, HEAD, PATCH" {
		t.Fatalf("Allow = %q", a)
	}
}

// TestCheckoutRoutingErrors: the hosted checkout page's paths answer a wrong method or an
// unknown path in the envelope, as every other route does; only an unknown order or a wrong
// hash on the page's own routes gets its HTML 404 page (docs/checkout-page.md).
func TestCheckoutRoutingErrors(t *testing.T) {
	t.Parallel()
	e := newMintEnv(t)
	o := decode[MintOrderView](t, e.merchantAPI(http.MethodPost, mintOrderPath, e.body(nil)), 201)
	q := "?order_id=" + o.OrderID + "&hash=" + o.Hash
	for _, tc := range []struct {
		method, path string
		status       int
		allow, msg   string
	}{
		{"POST", "/checkout" + q, 405, "GET, HEAD", "Method POST is not allowed on /checkout; allowed: GET, HEAD"},
		{"PUT", "/checkout" + q, 405, "GET, HEAD", "Method PUT is not allowed on /checkout; allowed: GET, HEAD"},
		{"GET", "/checkout/cancel" + q, 405, "POST", "Method GET is not allowed on /checkout/cancel; allowed: POST"},
		{"PUT", "/checkout/status" + q, 405, "GET, HEAD", "Method PUT is not allowed on /checkout/status; allowed: GET, HEAD"},
		{"DELETE", "/checkout/events" + q, 405, "GET, HEAD", "Method DELETE is not allowed on /checkout/events; allowed: GET, HEAD"},
		{"GET", "/checkout/close", 405, "POST", "Method GET is not allowed on /checkout/close; allowed: POST"},
		{"POST", "/checkout/assets/checkout.css", 405, "GET, HEAD", "Method POST is not allowed on /checkout/assets/checkout.css; allowed: GET, HEAD"},
		{"GET", "/checkout/nope", 404, "", "Cannot GET /checkout/nope"},
		{"GET", "/checkout/", 404, "", "Cannot GET /checkout/"},
		{"GET", "/checkout/assets/nope.js", 404, "", "Cannot GET /checkout/assets/nope.js"},
		{"GET", "/checkout/assets/", 404, "", "Cannot GET /checkout/assets/"}, // no directory listing
		{"GET", "/checkout/status/extra" + q, 404, "", "Cannot GET /checkout/status/extra"},
		{"POST", "/checkout/nope", 404, "", "Cannot POST /checkout/nope"},
	} {
		path, _, _ := strings.Cut(tc.path, "?")
		t.Run(tc.method+" "+path, func(t *testing.T) {
			r := e.do(tc.method, tc.path, nil, nil)
			b := wantEnvelope(t, r, tc.status, tc.status, path, tc.msg)
			if b.Message != tc.msg || r.header.Get("Allow") != tc.allow {
				t.Fatalf("message %q, Allow %q; want %q, %q", b.Message, r.header.Get("Allow"), tc.msg, tc.allow)
			}
		})
	}
	// The page's own answers stay: the page, its assets, its status; an unknown order or a
	// wrong hash gets the HTML 404 page.
	for _, tc := range []struct {
		method, path string
		status       int
		contentType  string
	}{
		{"GET", "/checkout" + q, 200, "text/html"},
		{"HEAD", "/checkout" + q, 200, "text/html"},
		{"GET", "/checkout/status" + q, 200, "application/json"},
		{"GET", "/checkout/assets/checkout.css", 200, "text/css"},
		{"GET", "/checkout/assets/checkout.js", 200, "text/javascript"},
		{"GET", "/checkout?order_id=" + o.OrderID + "&hash=nope", 404, "text/html"},
		{"GET", "/checkout?order_id=ord_nope&hash=" + o.Hash, 404, "text/html"},
		{"GET", "/checkout", 404, "text/html"},
		{"GET", "/checkout/status?order_id=" + o.OrderID + "&hash=nope", 404, "text/html"},
		{"POST", "/checkout/close" + q, 204, ""},
	} {
		t.Run("page "+tc.method+" "+strings.ReplaceAll(tc.path, o.Hash, "<hash>"), func(t *testing.T) {
			r := e.do(tc.method, tc.path, nil, nil)
			if r.status != tc.status || !strings.HasPrefix(r.header.Get("Content-Type"), tc.contentType) {
				t.Fatalf("%d %s, want %d %s: %.200s", r.status, r.header.Get("Content-Type"), tc.status, tc.contentType, r.body)
			}
		})
	}
	// The page's requests are counted under their routes, not as unmatched.
	metrics := string(e.do(http.MethodGet, "/metrics", nil, nil).body)
	for _, want := range []string{`route="GET /checkout"`, `route="GET /checkout/status"`, `route="POST /checkout/close"`} {
		if !strings.Contains(metrics, want) {
			t.Fatalf("metrics lack %s", want)
		}
	}
}

func TestInternalErrorHasLoggedID(t *testing.T) {
	t.Parallel()
	e := newHTTPEnv(t)
	e.store.Close() // every query now fails inside the server
	r := e.merchantAPI(http.MethodPost, orderPath, map[string]string{"merchant_id": e.merchant.ID})
	b := wantEnvelope(t, r, 500, 500, orderPath, "Internal server error (error id: err_")
	id := regexp.MustCompile(`err_[0-9a-f]{16}`).FindString(b.Message)
	if id == "" || r.header.Get("X-Error-Id") != id {
		t.Fatalf("error id %q, header %q", id, r.header.Get("X-Error-Id"))
	}
	if strings.Contains(b.Message, "sql") || strings.Contains(b.Message, "closed") {
		t.Fatalf("internals leaked: %q", b.Message)
	}
	if logs := e.logs.String(); !strings.Contains(logs, id) || !strings.Contains(logs, "closed") {
		t.Fatalf("log does not carry the error id and cause:\n%s", logs)
	}
}

func TestPanicIsAnEnvelope(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	s := &Server{log: slog.New(slog.NewTextHandler(&logs, nil))}
	h := s.recoverPanics(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") }))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/x", nil))
	r := resp{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
	wantEnvelope(t, r, 500, 500, "/x", "error id: err_")
	if !strings.Contains(logs.String(), "boom") {
		t.Fatalf("panic not logged: %s", logs.String())
	}
}

func TestOperations(t *testing.T) {
	t.Parallel()
	e := newHTTPEnv(t)
	if r := e.do(http.MethodGet, "/healthz", nil, nil); r.status != 200 || !strings.Contains(string(r.body), `"status":"ok"`) {
		t.Fatalf("healthz %d %s", r.status, r.body)
	}
	if r := e.do(http.MethodGet, "/readyz", nil, nil); r.status != 200 {
		t.Fatalf("readyz %d %s", r.status, r.body)
	}
	e.ping.err = errors.New("db down")
	wantEnvelope(t, e.do(http.MethodGet, "/readyz", nil, nil), 503, 503, "/readyz", "Database is not reachable")
	r := e.do(http.MethodGet, "/metrics", nil, nil)
	for _, want := range []string{
		`rampway_http_requests_total{code="503",method="GET",route="GET /readyz"} 1`,
		`rampway_http_request_duration_seconds_bucket{method="GET",route="GET /healthz"`,
	} {
		if !strings.Contains(string(r.body), want) {
			t.Fatalf("metrics lack %s:\n%s", want, r.body)
		}
	}
	r = e.do(http.MethodGet, "/healthz", nil, map[string]string{"X-Request-Id": "abc-123"})
	if r.header.Get("X-Request-Id") != "abc-123" {
		t.Fatalf("request id not echoed: %q", r.header.Get("X-Request-Id"))
	}
	r = e.do(http.MethodGet, "/healthz", nil, map[string]string{"X-Request-Id": "bad id\u00e9"})
	if id := r.header.Get("X-Request-Id"); !strings.HasPrefix(id, "req_") {
		t.Fatalf("unsafe request id kept: %q", id)
	}
	if !strings.Contains(e.logs.String(), `"request_id":"abc-123"`) {
		t.Fatal("access log lacks the request id")
	}
}

// defaultFiat is the default configuration's currencies in dev mode (test mode, the sandbox's).
func defaultFiat() []rampway.FiatCurrency {
	cfg := config.Default()
	cfg.Mode = config.ModeDev
	return cfg.FiatCurrencies(false)
}

// withProviders builds e's checkout again, with these payment providers (in this order).
func (e *env) withProviders(ps ...rampway.FiatProvider) {
	deps := e.checkoutDeps
	for _, p := range ps {
		deps.Providers = append(deps.Providers, checkout.FiatRoute{Provider: p})
	}
	e.checkout = checkout.New(e.checkoutCfg, deps)
}
