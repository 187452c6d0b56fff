package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/checkout"
	"github.com/rampway/rampway/mock"
	"github.com/rampway/rampway/provider/sandbox"
)

// liveProvider is a payment provider of live mode, in these tests only (nothing here reaches a
// real provider): it records what it is asked to start.
type liveProvider struct {
	mu      sync.Mutex
	started []rampway.StartFiatPayment
}

func (p *liveProvider) Name() string      { return "livepay" }
func (p *liveProvider) Livemode() bool    { return true }
func (p *liveProvider) Methods() []string { return []string{rampway.MethodCard} }
func (p *liveProvider) Start(_ context.Context, s rampway.StartFiatPayment) (*rampway.ProviderPayment, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.started = append(p.started, s)
	return &rampway.ProviderPayment{Ref: "lp_" + s.PaymentID, Status: rampway.FiatPending}, nil
}
func (p *liveProvider) Payment(_ context.Context, ref string) (*rampway.ProviderPayment, error) {
	return &rampway.ProviderPayment{Ref: ref, Status: rampway.FiatPending}, nil
}
func (p *liveProvider) Capture(context.Context, string, *big.Int, string) error { return nil }
func (p *liveProvider) Void(context.Context, string, string) error              { return nil }
func (p *liveProvider) Refund(context.Context, string, *big.Int, string) (string, error) {
	return "", nil
}
func (p *liveProvider) ParseWebhook(http.Header, []byte, time.Time) (*rampway.ProviderEvent, error) {
	return nil, errors.New("no webhooks in this test")
}

// modeEnv is a mintEnv whose network is test or live, whose test mode is paid through the
// sandbox and whose live mode through live (when given), whose merchant has a key of each mode
// and deposit addresses for ETH and DUSD on devnet (onboarded while the network is a test one).
type modeEnv struct {
	*mintEnv
	sandbox *sandbox.Provider
	live    *liveProvider // nil: no live provider
	liveKey string
}

// The mode tests' merchant's deposit addresses: accounts of nobody here (not the payer, the
// hot wallet or a contract), so a plain transfer to them needs no simulation of their code.
var (
	payoutETH  = common.HexToAddress("0x90F79bf6EB2c4f870365E785982E1f101E93b906")
	payoutDUSD = common.HexToAddress("0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65")
)

func newModeEnv(t *testing.T, liveNetwork, withLiveProvider bool) *modeEnv {
	t.Helper()
	m := newMintEnv(t)
	e := &modeEnv{mintEnv: m}
	// Listening before it is built, so that the sandbox knows where to send.
	srv := httptest.NewUnstartedServer(nil)
	e.sandbox = sandbox.New(sandbox.Config{BaseURL: "http://" + srv.Listener.Addr().String(), Secret: sandboxTestSecret}, sandbox.NewBooks(m.store, sandbox.Name), nil)
	m.chains.net.Livemode = liveNetwork
	cfg := checkout.Config{PublicURL: "https://pay.example", HashSecret: []byte("hash-secret-0123456789abcdef0123456"),
		HotWallet: m.hotWallet, DevMode: true, TestFiat: defaultFiat(), FiatSpreadBPS: 100}
	if withLiveProvider {
		e.live = &liveProvider{}
		cfg.LiveFiat = onlyMethods(defaultFiat(), e.live.Methods())
	}
	m.checkoutCfg = cfg
	if e.live != nil {
		m.withProviders(e.sandbox, e.live)
	} else {
		m.withProviders(e.sandbox)
	}
	srv.Config.Handler = New(testConfig(), Deps{Merchants: m.svc, Functions: m.functions, Checkout: m.checkout, Idempotency: m.store,
		DB: m.ping, Log: slog.New(slog.NewJSONHandler(m.logs, nil)), Metrics: prometheus.NewRegistry(), Providers: []rampway.FiatProvider{e.sandbox},
		DepositAddresses: newDepositAddresses(t, m.env), Events: m.store})
	srv.Start()
	t.Cleanup(srv.Close)
	m.srv = srv // newEnv's server, without the providers, is asked nothing more
	for symbol, a := range map[string]common.Address{"ETH": payoutETH, "DUSD": payoutDUSD} {
		r := m.admin(http.MethodPost, "/merchants/"+m.merchant.ID+"/deposit-addresses", map[string]any{"network": "devnet", "symbol": symbol, "address": a.Hex()})
		if v := decode[DepositAddressView](t, r, 201); v.Address != a.Hex() || v.Symbol != symbol || v.Network != "devnet" {
			t.Fatalf("onboard %s: %s", symbol, r.body)
		}
	}
	var err error
	if _, e.liveKey, err = m.svc.IssueAPIKey(t.Context(), m.merchant.ID, true); err != nil {
		t.Fatal(err)
	}
	return e
}

// rampBody is a valid B1 body on e's chain: B3's (the native mint of one token, in EUR by card)
// with the order's fields; edit changes it.
func (e *modeEnv) rampBody(edit func(b map[string]any)) map[string]any {
	b := e.fiatBody(nil)
	b["merchant_user_id"], b["merchant_txn_id"], b["merchant_redirect_url"] = "user-7", "txn-7", "https://shop.example/back"
	if edit != nil {
		edit(b)
	}
	return b
}

// quoteOf is B3's body for the same inputs as the B1 body b.
func quoteOf(b map[string]any) map[string]any {
	q := map[string]any{}
	for _, k := range []string{"merchant_id", "order_fiat_symbol", "fiat_payment_method", "contractExecution"} {
		if v, ok := b[k]; ok {
			q[k] = v
		}
	}
	return q
}

// onlyMethods keeps the currencies' methods among ids.
func onlyMethods(cs []rampway.FiatCurrency, ids []string) []rampway.FiatCurrency {
	var out []rampway.FiatCurrency
	for _, c := range cs {
		var ms []rampway.PaymentMethod
		for _, m := range c.Methods {
			for _, id := range ids {
				if m.ID == id {
					ms = append(ms, m)
				}
			}
		}
		if len(ms) > 0 {
			c.Methods = ms
			out = append(out, c)
		}
	}
	return out
}

func (e *modeEnv) as(live bool, method, path string, body any) resp {
	key := e.key
	if live {
		key = e.liveKey
	}
	return e.do(method, path, body, map[string]string{"X-API-KEY": key})
}

// The key decides the mode: a test key orders on test networks with the test provider, a live
// key on live networks with the live provider, and neither sees the other's orders. Every
// area, in every combination of key mode, network mode and live provider.
func TestModeMatrix(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name                  string
		liveNetwork, provider bool
	}{
		{"test network, sandbox only", false, false},
		{"live network, sandbox and a live provider", true, true},
		{"live network, sandbox only", true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newModeEnv(t, c.liveNetwork, c.provider)
			created := map[bool][]string{} // the orders each mode's key created
			for _, live := range []bool{false, true} {
				mode := rampway.ModeName(live)
				networkOK := live == c.liveNetwork
				fiatOK := networkOK && (!live || c.provider)

				// B2 and C2: the currencies of the key's mode, none without its provider.
				for _, path := range []string{"/nft-ramp" + routeFiatCurrencies, "/deposit" + routeDepositFiat} {
					v := decode[FiatCurrenciesView](t, e.as(live, http.MethodGet, path, nil), 200)
					if has := len(v.Currencies) > 0; has != (!live || c.provider) {
						t.Fatalf("%s key, %s: %d currencies", mode, path, len(v.Currencies))
					}
					for _, cur := range v.Currencies {
						for _, m := range cur.PaymentOptions {
							if live && m.ID != rampway.MethodCard {
								t.Fatalf("live key offered %s %s, which only the sandbox takes", cur.Symbol, m.ID)
							}
						}
					}
				}
				// A2 and A1.
				q := e.as(live, http.MethodPost, quotePath, e.body(nil))
				a := e.as(live, http.MethodPost, mintOrderPath, e.body(nil))
				if networkOK {
					if q.status != 200 || a.status != 201 {
						t.Fatalf("%s key on its own network: A2 %d %s, A1 %d %s", mode, q.status, q.body, a.status, a.body)
					}
					o := decode[MintOrderView](t, a, 201)
					if o.Livemode != live {
						t.Fatalf("%s key's order has livemode %v", mode, o.Livemode)
					}
					created[live] = append(created[live], "/mint"+routeOrder+"/"+o.OrderID)
				} else {
					want := "crypto_network devnet is a " + rampway.ModeName(c.liveNetwork) + " network: a " + mode + "-mode key"
					wantEnvelope(t, q, 400, 400, quotePath, want)
					wantEnvelope(t, a, 400, 400, mintOrderPath, want)
				}
				// B3 and B1 paid by card.
				card := func(b map[string]any) { b["order_fiat_symbol"], b["fiat_payment_method"] = "EUR", rampway.MethodCard }
				fq := e.as(live, http.MethodPost, fiatQuotePath, quoteOf(e.rampBody(card)))
				b := e.as(live, http.MethodPost, fiatOrderPath, e.rampBody(card))
				switch {
				case fiatOK:
					if fq.status != 200 || b.status != 201 {
						t.Fatalf("%s key: B3 %d %s, B1 %d %s", mode, fq.status, fq.body, b.status, b.body)
					}
					o := decode[FiatOrderView](t, b, 201)
					if o.Livemode != live {
						t.Fatalf("%s key's B order has livemode %v", mode, o.Livemode)
					}
					created[live] = append(created[live], "/nft-ramp"+routeOrder+"/"+o.OrderID)
				case live && !c.provider:
					want := "order_fiat_symbol EUR is not a supported currency: no payment provider takes live-mode payments"
					wantEnvelope(t, fq, 400, 400, fiatQuotePath, want)
					wantEnvelope(t, b, 400, 400, fiatOrderPath, want)
				default:
					want := "contractExecution.network_params.networkName devnet is a " + rampway.ModeName(c.liveNetwork) + " network"
					wantEnvelope(t, fq, 400, 400, fiatQuotePath, want)
					wantEnvelope(t, b, 400, 400, fiatOrderPath, want)
				}
				// C1 by card.
				dep := e.as(live, http.MethodPost, depositOrderPath, e.depositBody(nil))
				switch {
				case fiatOK:
					o := decode[DepositOrderView](t, dep, 201)
					if o.Livemode != live {
						t.Fatalf("%s key's C order has livemode %v", mode, o.Livemode)
					}
					created[live] = append(created[live], "/deposit"+routeOnRampOrder+"/"+o.OrderID)
				case live && !c.provider:
					wantEnvelope(t, dep, 400, 400, depositOrderPath, "no payment provider takes live-mode payments")
				default:
					wantEnvelope(t, dep, 400, 400, depositOrderPath, "convert_to_crypto_network devnet is a "+rampway.ModeName(c.liveNetwork)+" network")
				}
			}
			// Lookups and lists: each key sees its own mode's orders, the other's are unknown.
			for _, live := range []bool{false, true} {
				for _, path := range created[live] {
					if v := decode[OrderView](t, e.as(live, http.MethodGet, path, nil), 200); v.Livemode != live {
						t.Fatalf("%s: livemode %v", path, v.Livemode)
					}
					wantEnvelope(t, e.as(!live, http.MethodGet, path, nil), 404, 404, path, "not found")
					wantEnvelope(t, e.as(!live, http.MethodGet, path+"/webhooks", nil), 404, 404, path+"/webhooks", "not found")
					list := path[:strings.LastIndex(path, "/")] + "s"
					if strings.HasPrefix(path, "/deposit") {
						list = depositOrdersPath
					}
					mine := decode[ListView[OrderView]](t, e.as(live, http.MethodGet, list, nil), 200)
					if len(mine.Data) != 1 || path[strings.LastIndex(path, "/")+1:] != mine.Data[0].OrderID || mine.Data[0].Livemode != live {
						t.Fatalf("%s key's list %s: %+v", rampway.ModeName(live), list, mine.Data)
					}
					// A cursor of the other mode is one of no order of the key's.
					r := e.as(!live, http.MethodGet, list+"?starting_after="+mine.Data[0].OrderID, nil)
					wantEnvelope(t, r, 400, 400, list, "starting_after must be the order_id of one of your orders")
				}
				for _, path := range []string{"/mint" + routeOrders, fiatOrdersPath, depositOrdersPath} {
					if len(created[live]) == 0 {
						if l := decode[ListView[OrderView]](t, e.as(live, http.MethodGet, path, nil), 200); len(l.Data) != 0 {
							t.Fatalf("%s key's list %s holds %d orders of the other mode", rampway.ModeName(live), path, len(l.Data))
						}
					}
				}
			}
		})
	}
}

// An Idempotency-Key is the key's mode's: the same key and body sent with a live key after a
// test key's order is a new request of live mode (here refused by the use case: the network is
// a test one), never a replay of the test order; and the other way round.
func TestModeIdempotencyKeysApart(t *testing.T) {
	t.Parallel()
	var e *env
	var asked []bool // the modes asked
	e = newMockEnv(t, &mock.Checkout{CreateMintOrderFn: func(ctx context.Context, _ *rampway.Merchant, p checkout.MintOrderParams) (*checkout.Created, error) {
		asked = append(asked, p.Quote.Livemode)
		if p.Quote.Livemode {
			return nil, rampway.FieldErrorf("crypto_network", "crypto_network devnet is a test network: a live-mode key (rw_live_…) orders on live networks only")
		}
		c := created(e.mockOrder(rampway.AreaMint, func(o *rampway.Order) { o.ID = rampway.NewID(rampway.PrefixOrder, time.Now()) }), "")
		return c, e.storeReply(ctx, p.Reply, c)
	}})
	_, liveKey, err := e.svc.IssueAPIKey(t.Context(), e.merchant.ID, true)
	if err != nil {
		t.Fatal(err)
	}
	body := e.mintBody()
	send := func(live bool) resp {
		key := map[bool]string{false: e.key, true: liveKey}[live]
		return e.do(http.MethodPost, mintOrderPath, body, map[string]string{"X-API-KEY": key, "Idempotency-Key": "same-key"})
	}
	first := decode[MintOrderView](t, send(false), 201)
	if r := send(true); r.status != 400 || r.header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("live key with a test request's Idempotency-Key: %d %s", r.status, r.body)
	}
	again := send(false)
	if again.header.Get("Idempotent-Replayed") != "true" || decode[MintOrderView](t, again, 201).OrderID != first.OrderID {
		t.Fatalf("test key's retry: %d %s", again.status, again.body)
	}
	if !slices.Equal(asked, []bool{false, true}) {
		t.Fatalf("the use case was asked in modes %v, want test then live", asked)
	}
}

// `rampway listen`'s stream is the key's mode's: a test key's stream carries test orders'
// events only, a live key's live ones only, and its first event says which.
func TestModeListenStreams(t *testing.T) {
	t.Parallel()
	e := newModeEnv(t, false, false)
	for _, live := range []bool{false, true} {
		if _, err := e.svc.SetWebhookSecret(t.Context(), e.merchant.ID, live, "", 0); err != nil {
			t.Fatal(err)
		}
	}
	hooked := func(b map[string]any) { b["merchant_webhook_url"] = "http://127.0.0.1:9/hooks" }
	test := decode[MintOrderView](t, e.as(false, http.MethodPost, mintOrderPath, e.body(hooked)), 201)
	live := decode[MintOrderView](t, e.as(false, http.MethodPost, mintOrderPath, e.body(hooked)), 201)
	// Made live as a live key would have on a live network (the env has one network).
	makeLive := func(id string) {
		t.Helper()
		for _, q := range []string{"UPDATE orders SET livemode = true WHERE id = $1", "UPDATE webhook_deliveries SET livemode = true WHERE order_id = $1"} {
			if _, err := e.store.DB().ExecContext(t.Context(), q, id); err != nil {
				t.Fatal(err)
			}
		}
	}
	makeLive(live.OrderID)
	for _, c := range []struct {
		live bool
		want string
	}{{false, test.OrderID}, {true, live.OrderID}} {
		key := map[bool]string{false: e.key, true: e.liveKey}[c.live]
		res, ch := openStream(t, e.srv.URL, key, "0")
		if res.StatusCode != http.StatusOK {
			t.Fatalf("stream: %d", res.StatusCode)
		}
		if ready := next(t, ch); ready.name != "ready" || !strings.Contains(ready.data, `"livemode":`+map[bool]string{false: "false", true: "true"}[c.live]) {
			t.Fatalf("first event %+v", ready)
		}
		ev := next(t, ch)
		if ev.name != "delivery" || !strings.Contains(ev.data, `"order_id":"`+c.want+`"`) {
			t.Fatalf("livemode %v: %+v, want the event of %s", c.live, ev, c.want)
		}
		// Nothing of the other mode: the stream sends in event order, so the other mode's order,
		// made before this one of the stream's mode, would come before it.
		later := decode[MintOrderView](t, e.as(false, http.MethodPost, mintOrderPath, e.body(hooked)), 201)
		if c.live {
			makeLive(later.OrderID)
		}
		if ev := next(t, ch); ev.name != "delivery" || !strings.Contains(ev.data, `"order_id":"`+later.OrderID+`"`) {
			t.Fatalf("livemode %v: %+v, want the event of %s next", c.live, ev, later.OrderID)
		}
	}
}
