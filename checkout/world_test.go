package checkout_test

import (
	"encoding/json"
	"math/big"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/shopspring/decimal"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain"
	"github.com/rampway/rampway/chain/devchain"
	"github.com/rampway/rampway/chain/devchain/devchaintest"
	"github.com/rampway/rampway/chain/hd"
	"github.com/rampway/rampway/checkout"
	"github.com/rampway/rampway/config"
	"github.com/rampway/rampway/contract"
	"github.com/rampway/rampway/internal/sqlstore"
	"github.com/rampway/rampway/merchant"
	"github.com/rampway/rampway/pricing"
	"github.com/rampway/rampway/provider/sandbox"
	"github.com/rampway/rampway/storetest"
)

// The use cases of areas B and C on a fresh embedded chain, as the server wires them: what
// checkout decides for a B1 or C1 request (its checks, its quote, the order it stores), called
// directly. The HTTP API's own part (bodies, keys, envelopes, views) is tested in httpapi on
// mock use cases.

// The well-known test mnemonic and the hot wallet's key (any funded key would do).
const (
	testMnemonic = "test test test test test test test test test test test junk"
	hotWalletKey = "59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"
	// sandboxSecret signs the sandbox's notifications in these tests.
	sandboxSecret = "sandbox-test-secret-0123456789abcdef"
	publicURL     = "https://pay.example"
	// minter is who the demo mints go to.
	minter = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
)

// The test merchant's deposit addresses: accounts of nobody here (not the payer, the hot
// wallet or a contract), so a plain transfer to them needs no simulation of their code.
var (
	payoutETH  = common.HexToAddress("0x90F79bf6EB2c4f870365E785982E1f101E93b906")
	payoutDUSD = common.HexToAddress("0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65")
)

// clock is the service's clock in these tests: noon of a fixed day (so that "today" and
// "tomorrow" are what the test says they are), a millisecond later each time it is read (so
// that orders made one after another are ordered by their creation).
type clock struct {
	t0 time.Time
	n  atomic.Int64
}

func newClock() *clock { return &clock{t0: time.Date(2030, 6, 14, 12, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time { return c.t0.Add(time.Duration(c.n.Add(1)) * time.Millisecond) }

// today is the clock's day.
func (c *clock) today() time.Time { return c.t0.Truncate(24 * time.Hour) }

// worldChains is the dev network with the native coin's bounds set, as a config would.
type worldChains struct {
	nets *chain.Networks
	net  *rampway.Network
}

func (c worldChains) Network(name string) (*rampway.Network, bool) {
	if name != c.net.Name {
		return nil, false
	}
	n := *c.net
	return &n, true
}

func (c worldChains) EVM(name string) (checkout.EVM, bool) {
	cl, ok := c.nets.Client(name)
	return chain.QuoteClient{Node: cl}, ok
}

// world is the checkout service of a dev configuration on its own embedded chain (unless
// noChain) and SQLite store: a merchant ("Acme", no webhook secret, no service fee of its own) with the demo NFT's
// native-paid, token-paid and free mints registered and, for area C, deposit addresses for
// ETH and DUSD on devnet; test mode paid through the sandbox provider.
type world struct {
	t         *testing.T
	store     *sqlstore.Store
	merchants *merchant.Service
	merchant  *rampway.Merchant
	chain     *devchain.Chain
	hotWallet common.Address
	functions *contract.Registry
	addresses *merchant.DepositAddresses
	svc       *checkout.Service
	prices    pricing.Static // the service's (a test may take a price out)
	clock     *clock
	sandbox   *sandbox.Provider
	// native, token and free are the ids of the mints.
	native, token, free string
}

// worldOptions change a world before its service is built.
type worldOptions struct {
	// sandboxWebhook is where the sandbox sends its notifications ("": nowhere reachable).
	sandboxWebhook string
	// noChain: no chain, no functions, no prices; the use cases that need none (fiat payments
	// and provider notifications, lookups) on orders the test stores itself.
	noChain bool
	// live, when set, is live mode's payment provider (after the sandbox, test mode's), taking
	// its methods of the configured currencies.
	live rampway.FiatProvider
}

func newWorld(t *testing.T) *world { return newWorldWith(t, worldOptions{}) }

func newWorldWith(t *testing.T, opt worldOptions) *world {
	t.Helper()
	ctx := t.Context()
	store := storetest.OpenSQLite(t)
	w := &world{t: t, store: store, clock: newClock(),
		merchants: merchant.NewService(store, merchant.Options{HashSecret: "hash-secret-0123456789abcdef0123456", DevMode: true})}
	m, err := w.merchants.Create(ctx, merchant.CreateParams{Name: "Acme"})
	if err != nil {
		t.Fatal(err)
	}
	w.merchant = m
	hot, _ := crypto.HexToECDSA(hotWalletKey)
	w.hotWallet = crypto.PubkeyToAddress(hot.PublicKey)
	w.sandbox = sandbox.New(sandbox.Config{BaseURL: publicURL, WebhookURL: opt.sandboxWebhook, Secret: []byte(sandboxSecret)},
		sandbox.NewBooks(store, sandbox.Name), w.clock.Now)
	cfg := checkout.Config{PublicURL: publicURL, HashSecret: []byte("hash-secret-0123456789abcdef0123456"),
		HotWallet: w.hotWallet, DevMode: true, TestFiat: testFiat(), FiatSpreadBPS: 100}
	deps := checkout.Deps{Store: store, Providers: []checkout.FiatRoute{{Provider: w.sandbox}}, Now: w.clock.Now}
	if opt.live != nil {
		deps.Providers = append(deps.Providers, checkout.FiatRoute{Provider: opt.live})
		cfg.LiveFiat = onlyMethods(testFiat(), opt.live.Methods())
	}
	if opt.noChain {
		w.svc = checkout.New(cfg, deps)
		return w
	}

	w.chain = devchaintest.Start(t, devchain.Funding{Address: w.hotWallet, Wei: new(big.Int).Mul(big.NewInt(100), big.NewInt(1e18)), TokenUnits: big.NewInt(1e12)})
	nets, err := chain.Dial(ctx, []rampway.Network{w.chain.Network("devnet")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nets.Close)
	w.functions = contract.NewRegistry(contract.RegistryConfig{}, store, nets, nil)
	w.addresses = merchant.NewDepositAddresses(merchant.DepositAddressesConfig{HotWallet: w.hotWallet}, store, nets, nil)
	signer, err := hd.FromMnemonic(testMnemonic, "")
	if err != nil {
		t.Fatal(err)
	}
	xpub, _ := signer.XPub()
	deriver, _ := hd.FromXPub(xpub)
	net := w.chain.Network("devnet")
	net.Native.Min, net.Native.Max = big.NewInt(1000), new(big.Int).Mul(big.NewInt(100), big.NewInt(1e18))
	w.prices = pricing.Static{"ETH": decimal.NewFromInt(3000), "DUSD": decimal.NewFromInt(1), "USD": decimal.NewFromInt(1),
		"EUR": decimal.RequireFromString("1.08"), "GBP": decimal.RequireFromString("1.27")}
	deps.Functions, deps.Chains, deps.Prices, deps.Deriver = w.functions, worldChains{nets, &net}, w.prices, deriver
	w.svc = checkout.New(cfg, deps)

	for _, r := range []struct {
		dst           *string
		name, payable string
	}{{&w.native, "mint", "ETH"}, {&w.token, "mintWithToken", "DUSD"}, {&w.free, "freeMint", ""}} {
		abi, err := contract.FunctionFragment(devchain.NFTABI(), r.name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := w.functions.Register(ctx, m.ID, contract.RegisterParams{Network: "devnet",
			ContractAddress: w.chain.Contracts().NFT.Hex(), ABI: abi, DefaultGasLimit: 300_000, PayableSymbol: r.payable})
		if err != nil {
			t.Fatal(err)
		}
		*r.dst = f.ID
	}
	return w
}

// testFiat is the default configuration's currencies in dev mode (test mode, the sandbox's).
func testFiat() []rampway.FiatCurrency {
	cfg := config.Default()
	cfg.Mode = config.ModeDev
	return cfg.FiatCurrencies(false)
}

// onlyMethods keeps the currencies' methods among ids.
func onlyMethods(cs []rampway.FiatCurrency, ids []string) []rampway.FiatCurrency {
	var out []rampway.FiatCurrency
	for _, c := range cs {
		c.Methods = slices.DeleteFunc(slices.Clone(c.Methods), func(m rampway.PaymentMethod) bool { return !slices.Contains(ids, m.ID) })
		if len(c.Methods) > 0 {
			out = append(out, c)
		}
	}
	return out
}

// onboard sets the merchant's deposit addresses for ETH and DUSD on devnet, as the admin API
// does (checked against the chain).
func (w *world) onboard() {
	w.t.Helper()
	w.onboardOne("ETH", payoutETH)
	w.onboardOne("DUSD", payoutDUSD)
}

func (w *world) onboardOne(symbol string, a common.Address) {
	w.t.Helper()
	if _, err := w.addresses.Set(w.t.Context(), w.merchant.ID, merchant.DepositAddressParams{Network: "devnet", Symbol: symbol, Address: a.Hex()}); err != nil {
		w.t.Fatalf("onboard %s: %v", symbol, err)
	}
}

// reload reads the merchant again (after a change of its webhook secret or fee).
func (w *world) reload() {
	w.t.Helper()
	m, err := w.merchants.Get(w.t.Context(), w.merchant.ID)
	if err != nil {
		w.t.Fatal(err)
	}
	w.merchant = m
}

// scope is what the merchant's test key sees.
func (w *world) scope() rampway.Scope { return rampway.MerchantScope(w.merchant.ID, false) }

// mintParams is a valid A1 request: the native mint of one token.
func (w *world) mintParams() checkout.MintOrderParams {
	empty := ""
	return checkout.MintOrderParams{
		Quote: checkout.QuoteParams{MerchantID: w.merchant.ID, CryptoSymbol: "ETH", CryptoNetwork: "devnet", Execution: checkout.ExecutionParams{FunctionID: w.native,
			FunctionArgs: args(minter, "1"), Payment: &checkout.PaymentParams{Symbol: "ETH", ContractAddress: &empty, TotalValue: "0.01"}, NetworkName: "devnet"}},
		Order: checkout.OrderParams{MerchantUserID: "user-7", MerchantTxnID: "txn-7", MerchantRedirectURL: "https://shop.example/back", User: map[string]string{}},
	}
}

// fiatParams is a valid B1 request (as httpapi reads the body, for the merchant's test key): the native mint of one token,
// 0.01 ETH, in EUR by card; edit changes it.
func (w *world) fiatParams(edit func(p *checkout.FiatOrderParams)) checkout.FiatOrderParams {
	mp := w.mintParams()
	p := checkout.FiatOrderParams{Quote: checkout.FiatQuoteParams{MerchantID: w.merchant.ID, FiatSymbol: "EUR", Method: "credit_debit_card", Execution: mp.Quote.Execution},
		Order: mp.Order}
	if edit != nil {
		edit(&p)
	}
	return p
}

// tokenMint makes a B1 request pay the token-paid mint of quantity tokens (10 DUSD each).
func (w *world) tokenMint(quantity, total string) func(x *checkout.ExecutionParams) {
	return func(x *checkout.ExecutionParams) {
		c := w.chain.Contracts().Token.Hex()
		x.FunctionID, x.FunctionArgs = w.token, args(minter, quantity)
		x.Payment = &checkout.PaymentParams{Symbol: "DUSD", ContractAddress: &c, TotalValue: total}
	}
}

// depositParams is a valid C1 request (as httpapi reads the body, for the merchant's test key): 100.00 EUR by card into ETH
// on devnet; edit changes it.
func (w *world) depositParams(edit func(p *checkout.DepositOrderParams)) checkout.DepositOrderParams {
	p := checkout.DepositOrderParams{
		Quote: checkout.DepositQuoteParams{MerchantID: w.merchant.ID, FiatSymbol: "EUR", FiatAmount: "100.00", Method: "credit_debit_card", CryptoSymbol: "ETH", CryptoNetwork: "devnet"},
		Order: checkout.OrderParams{MerchantUserID: "user-7", MerchantTxnID: "txn-7", MerchantRedirectURL: "https://shop.example/back", User: map[string]string{}},
	}
	if edit != nil {
		edit(&p)
	}
	return p
}

// inToken makes a C1 request convert into DUSD, naming its contract.
func (w *world) inToken(p *checkout.DepositOrderParams) {
	p.Quote.CryptoSymbol, p.Quote.ContractAddress = "DUSD", w.chain.Contracts().Token.Hex()
}

// args is the demo mints' function_args.
func args(to, quantity string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"to": to, "quantity": quantity})
	return b
}

// identity is every user_* field of B1 and C1, valid.
func identity() map[string]string {
	return map[string]string{"user_email_id": "ada@example.com", "user_first_name": "Ada", "user_last_name": "Lovelace",
		"user_mobileNumber": "+447700900123", "user_dob": "1990-12-10", "user_addressLine1": "12 Example Street",
		"user_addressLine2": "Flat 3", "user_city": "London", "user_state": "Greater London", "user_postCode": "SW1A 1AA",
		"user_countryCode": "GB"}
}

// orders are the merchant's orders of an area, newest first.
func (w *world) orders(area rampway.Area, status rampway.OrderStatus) []*rampway.Order {
	w.t.Helper()
	live := false
	os, err := w.svc.Orders(w.t.Context(), rampway.OrderFilter{MerchantID: w.merchant.ID, Livemode: live, Area: area, Status: status, Limit: 100})
	if err != nil {
		w.t.Fatal(err)
	}
	return os
}

// wantCreated checks what a B1 or C1 creation answers with: an order id, its gateway hash
// and the hosted page's address with both.
func (w *world) wantCreated(c *checkout.Created) {
	w.t.Helper()
	id := c.Order.ID
	if !rampway.ValidID(rampway.PrefixOrder, id) || len(c.Hash) != 64 || strings.Trim(c.Hash, "0123456789abcdef") != "" || !w.svc.CheckHash(id, c.Hash) ||
		c.GatewayURL != publicURL+"/checkout?order_id="+id+"&hash="+c.Hash {
		w.t.Fatalf("created %s, hash %q, gateway_url %q", id, c.Hash, c.GatewayURL)
	}
}

// wantNothingYet checks a new order as stored: CREATED, nothing received, executed, paid in
// fiat, moved or owed back; its expiry expiry after its creation, which the clock made.
func (w *world) wantNothingYet(o *rampway.Order, expiry time.Duration) {
	w.t.Helper()
	ctx := w.t.Context()
	if o.Status != rampway.StatusCreated || o.MerchantID != w.merchant.ID || o.Livemode || o.CryptoReceived.Sign() != 0 ||
		o.ExecutionTxHash != "" || o.FailureReason != "" || o.FiatPaymentID != "" {
		w.t.Fatalf("new order %+v", o)
	}
	if !o.CreatedAt.After(w.clock.t0) || o.CreatedAt.After(w.clock.Now()) || !o.UpdatedAt.Equal(o.CreatedAt) || o.ExpiresAt.Sub(o.CreatedAt) != expiry {
		w.t.Fatalf("created_at %s, expires_at %s: want %s later", o.CreatedAt, o.ExpiresAt, expiry)
	}
	ps, err := w.svc.FiatPayments(ctx, o)
	if err != nil || len(ps) != 0 {
		w.t.Fatalf("fiat payments %+v, %v", ps, err)
	}
	as, err := w.svc.FiatActions(ctx, o)
	if err != nil || len(as) != 0 {
		w.t.Fatalf("fiat actions %+v, %v", as, err)
	}
	ts, err := w.svc.Transfers(ctx, o)
	if err != nil || len(ts) != 0 {
		w.t.Fatalf("transfers %+v, %v", ts, err)
	}
	rs, err := w.svc.Refunds(ctx, o)
	if err != nil || len(rs) != 0 {
		w.t.Fatalf("refunds %+v, %v", rs, err)
	}
}

// wantError checks that err has the code and a message containing msg.
func wantError(t *testing.T, err error, code, msg string) {
	t.Helper()
	if err == nil || rampway.ErrorCode(err) != code || !strings.Contains(rampway.ErrorMessage(err), msg) {
		t.Fatalf("got %v (%s: %q), want %s containing %q", err, rampway.ErrorCode(err), rampway.ErrorMessage(err), code, msg)
	}
}

// replyStored checks that a creation given an Idempotency-Key's claim (claim) stored the answer
// its Reply made with the order, in the same write: the key is answered, with that answer.
func (w *world) replyStored(claim rampway.IdempotencyClaim, body string) {
	w.t.Helper()
	prev, err := w.store.BeginIdempotent(w.t.Context(), &rampway.IdempotencyRecord{MerchantID: claim.MerchantID, Key: claim.Key,
		RequestHash: []byte("h"), CreatedAt: w.clock.Now()}, w.clock.t0)
	if err != nil || prev == nil || !prev.Done || prev.Status != 201 || string(prev.Body) != body {
		w.t.Fatalf("the key's record %+v, %v; want the answer %s", prev, err, body)
	}
}

// claim is a fresh claim on an Idempotency-Key, as the HTTP API takes one.
func (w *world) claim(key string) rampway.IdempotencyClaim {
	w.t.Helper()
	now := w.clock.Now()
	prev, err := w.store.BeginIdempotent(w.t.Context(), &rampway.IdempotencyRecord{MerchantID: w.merchant.ID, Key: key, RequestHash: []byte("h"), CreatedAt: now}, w.clock.t0)
	if err != nil || prev != nil {
		w.t.Fatalf("claim %s: %+v, %v", key, prev, err)
	}
	return rampway.IdempotencyClaim{MerchantID: w.merchant.ID, Key: key, ClaimedAt: now}
}

// storeFiatOrder stores an order of area B or C in CREATED as its creation would have (for the
// tests that need no quote): amount in the currency's minor units (2 decimals), paid by method;
// edit changes it first.
func (w *world) storeFiatOrder(area rampway.Area, symbol, method string, amount int64, edit ...func(o *rampway.Order)) *rampway.Order {
	w.t.Helper()
	at := w.clock.Now()
	o := storetest.NewOrder(w.merchant.ID, 0)
	o.ID, o.Area, o.DepositAddress, o.DepositIndex = rampway.NewID(rampway.PrefixOrder, at), area, common.Address{}, 0
	o.CreatedAt, o.UpdatedAt, o.ExpiresAt = at, at, at.Add(checkout.DefaultBankTransferExpiry)
	if area == rampway.AreaDeposit {
		o.FunctionID, o.PayoutAddress = "", payoutDUSD
	}
	o.FiatSymbol, o.FiatMethod, o.FiatAmount, o.FiatDecimals = symbol, method, big.NewInt(amount), 2
	for _, f := range edit {
		f(o)
	}
	if err := w.store.CreateOrder(w.t.Context(), o); err != nil {
		w.t.Fatal(err)
	}
	return o
}
