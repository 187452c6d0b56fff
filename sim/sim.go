// Package sim is a seeded, deterministic simulation of rampway's whole pipeline in one
// process: the SQLite store, the embedded chain (mining only when the simulation says), the
// chain workers, the fiat worker, the webhook dispatcher, the checkout use cases, a payment
// provider and a merchant's webhook receiver, all on one simulated clock and driven by one
// seeded random source. Each seed makes a workload (orders of the three areas, paid exactly,
// short, over, late; cards authorised or declined; bank transfers) and a schedule of faults
// (process crashes at a store write, before or after its commit; node errors, lost replies,
// timeouts, forgotten transactions, fee spikes; provider notifications duplicated, reordered
// and late, provider calls failing; the receiver failing or hanging; clock jumps), and the
// invariants (invariants.go) are checked after every step and once the run has quiesced.
//
// The workers are never run on their own goroutines: the simulation calls their Step methods
// in an order its random source picks, so that a seed replays exactly (go test ./sim -seed N).
// docs/RELIABILITY.md says what is modelled and what the runs found.
package sim

import (
	"context"
	"crypto/ecdsa"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/shopspring/decimal"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain"
	"github.com/rampway/rampway/chain/devchain"
	"github.com/rampway/rampway/chain/devchain/bindings"
	"github.com/rampway/rampway/chain/hd"
	"github.com/rampway/rampway/chainwork"
	"github.com/rampway/rampway/checkout"
	"github.com/rampway/rampway/config"
	"github.com/rampway/rampway/contract"
	"github.com/rampway/rampway/fiatwork"
	"github.com/rampway/rampway/internal/sqlstore"
	"github.com/rampway/rampway/merchant"
	"github.com/rampway/rampway/pricing"
	_ "github.com/rampway/rampway/provider/sandbox" // the dev configuration's currencies and methods (testFiat)
	"github.com/rampway/rampway/sqlite"
	"github.com/rampway/rampway/webhook"
)

// network is the simulated network's name.
const network = "devnet"

// startHeight is the block a run starts at, and baseFeeFloor the base fee of every block up
// to it (see New): the lowest an EIP-1559 chain's falls to.
const (
	startHeight  = 2
	baseFeeFloor = 7
)

// mnemonic is the deposit addresses' seed (any would do; the well-known test one).
const mnemonic = "test test test test test test test test test test test junk"

// Options say what to run.
type Options struct {
	Seed uint64
	// Steps is how many steps the workload and faults run before the quiescence; default 250.
	Steps int
	// Trace, when set, receives each step as it runs.
	Trace io.Writer
	// Bug injects a deliberate bug, to show an invariant catching it: BugDoubleExecution sends
	// a paid order's call a second time, with a fresh nonce, once it has succeeded;
	// BugFiatRefundBehindTheBack refunds a captured payment at the provider, silently.
	Bug string
	// Invariants are checked besides the built-in ones (Checks).
	Invariants []Invariant
	// Dir is where the database lives; "" makes (and removes) a temporary directory.
	Dir string
	// Logs, when set, receives rampway's own logs (warnings and errors).
	Logs io.Writer
}

// Options.Bug's bugs: a double execution; a refund at the provider that rampway never hears of.
const (
	BugDoubleExecution         = "double-execution"
	BugFiatRefundBehindTheBack = "fiat-refund-behind-the-back"
)

// Result is what a run did and found.
type Result struct {
	Seed  uint64
	Trace []string
	// Violations are the invariants broken, each with the step it was seen at.
	Violations []string
	// Counts are figures of the run: orders by area and end status, faults fired by kind.
	Counts map[string]int
}

// clock is the simulated clock: it moves only when the simulation moves it.
type clock struct{ t time.Time }

func (c *clock) Now() time.Time { return c.t }

// World is one simulated deployment: what outlives a crash (the chain, the database file,
// the provider, the receiver, the clock) and the process built on it (proc).
type World struct {
	opt    Options
	rng    *rand.Rand
	jitter *rand.Rand
	clock  *clock
	log    *slog.Logger
	dir    string
	dbPath string

	chain    *devchain.Chain
	rpc      *ethclient.Client
	faults   *faultClient
	provider *provider
	receiver *receiver
	net      rampway.Network
	prices   pricing.Static

	hotKey, payerKey *ecdsa.PrivateKey
	hot, payer       common.Address
	payerNonce       uint64
	treasury         common.Address
	payout           common.Address
	keys             *hd.Signer
	deriver          *hd.Deriver

	merchantID string
	fnNative   string
	fnToken    string

	p *proc

	orders []*simOrder
	step   int
	res    *Result
	// crashes counts the process restarts.
	crashes int
	// scan is the invariants' reading of the chain so far.
	scan chainScan
	// reconciler compares the ledger with the chain (checkLedger).
	reconciler *chainwork.Reconciler
	reconciled *sqlstore.Store // the store reconciler reads
	// doubled is the order the injected bug executed twice ("" until it has).
	doubled string
	// refundedBehind is the payment the injected bug refunded at the provider ("" until it has).
	refundedBehind string
}

// simOrder is an order of the workload, as the simulation knows it.
type simOrder struct {
	Label     string // A1, B2, C3...: the trace's name for it
	Kind      string // "A-eth", "A-token", "B-card", "B-bank", "C-card", "C-bank"
	ID        string
	Recipient common.Address // the mint's recipient (areas A and B): one per order
	Deposit   common.Address
	Amount    *big.Int // what the user must pay (crypto for A, fiat minor units for B/C)
	Paid      *big.Int // what the simulation paid so far (A) or credited (bank)
	PayRef    string   // the provider's payment ref (B, C)
	Payments  int
	Refunded  bool // the merchant asked for a refund
	// PayTxs are the payments sent (area A), whatever became of them.
	PayTxs []common.Hash
}

// proc is one rampway process: everything built from the configuration, dropped at a crash.
type proc struct {
	store      *faultStore
	merchants  *merchant.Service
	functions  *contract.Registry
	deposits   *merchant.DepositAddresses
	checkout   *checkout.Service
	refunds    *checkout.Refunds
	watcher    *chainwork.Watcher
	executor   *chainwork.Executor
	sweeper    *chainwork.Sweeper
	fiat       *fiatwork.Worker
	dispatcher *webhook.Dispatcher
}

// key is a private key derived from the seed and a label.
func key(seed uint64, label string) *ecdsa.PrivateKey {
	for i := 0; ; i++ {
		h := sha256.Sum256(fmt.Appendf(nil, "rampway-sim/%d/%s/%d", seed, label, i))
		if k, err := crypto.ToECDSA(h[:]); err == nil {
			return k
		}
	}
}

// hashString and hashBytes and mix make the faults' decisions: a function of the seed and of
// what is decided about, never of the order goroutines ask in.
func hashString(s string) uint64 { return hashBytes([]byte(s)) }

func hashBytes(b []byte) uint64 {
	h := sha256.Sum256(b)
	return binary.BigEndian.Uint64(h[:8])
}

func mix(vs ...uint64) uint64 {
	b := make([]byte, 8*len(vs))
	for i, v := range vs {
		binary.BigEndian.PutUint64(b[8*i:], v)
	}
	return hashBytes(b)
}

// eth is n/1000 ETH in wei.
func milliETH(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(1e15)) }

// New builds the world of opt.Seed: a new chain with the demo contracts, a new database with
// the merchant, its functions and its deposit address. Call Close when done.
func New(ctx context.Context, opt Options) (_ *World, err error) {
	if opt.Steps <= 0 {
		opt.Steps = 250
	}
	w := &World{opt: opt, rng: rand.New(rand.NewPCG(opt.Seed, 0x5eed)), jitter: rand.New(rand.NewPCG(opt.Seed, 0x717e)),
		clock: &clock{t: time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)}, log: slog.New(slog.DiscardHandler),
		res: &Result{Seed: opt.Seed, Counts: map[string]int{}}}
	if opt.Logs != nil {
		w.log = slog.New(slog.NewTextHandler(opt.Logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	defer func() {
		if err != nil {
			w.Close()
		}
	}()
	if w.dir = opt.Dir; w.dir == "" {
		if w.dir, err = os.MkdirTemp("", "rampway-sim-*"); err != nil {
			return nil, err
		}
	}
	w.dbPath = filepath.Join(w.dir, "rampway.db")
	w.hotKey, w.payerKey = key(opt.Seed, "hot"), key(opt.Seed, "payer")
	w.hot, w.payer = crypto.PubkeyToAddress(w.hotKey.PublicKey), crypto.PubkeyToAddress(w.payerKey.PublicKey)
	w.treasury = crypto.PubkeyToAddress(key(opt.Seed, "treasury").PublicKey)
	w.payout = crypto.PubkeyToAddress(key(opt.Seed, "payout").PublicKey)
	hundred := new(big.Int).Mul(big.NewInt(100), big.NewInt(1e18))
	w.chain, err = devchain.Start(ctx, devchain.Config{Deployer: key(opt.Seed, "deployer"), BlockTime: -1, BaseFee: big.NewInt(baseFeeFloor),
		Fund: []devchain.Funding{{Address: w.hot, Wei: hundred, TokenUnits: big.NewInt(1e12)}, {Address: w.payer, Wei: hundred, TokenUnits: big.NewInt(1e12)}}})
	if err != nil {
		return nil, err
	}
	w.rpc = ethclient.NewClient(w.chain.RPC())
	// A run starts at the same height and base fee every time, so that a seed repeats across
	// processes and machines: the chain's base fee starts at its floor, where the deployment's
	// blocks leave it, and the deployment (one block, or two as go-ethereum's miner happens to
	// fill them) is followed by empty blocks up to startHeight.
	for {
		head, err := w.rpc.HeaderByNumber(ctx, nil)
		if err != nil {
			return nil, err
		}
		if head.Number.Uint64() >= startHeight {
			if head.Number.Uint64() != startHeight || head.BaseFee.Cmp(big.NewInt(baseFeeFloor)) != 0 {
				return nil, fmt.Errorf("sim: the chain starts at block %d with base fee %s, not at %d with %d", head.Number, head.BaseFee, startHeight, baseFeeFloor)
			}
			break
		}
		if _, err := w.chain.Mine(); err != nil {
			return nil, err
		}
	}
	w.faults = newFaultClient(w.rpc, opt.Seed)
	w.provider = newProvider(opt.Seed)
	w.receiver = newReceiver(opt.Seed, w.clock.Now)
	w.net = w.chain.Network(network)
	w.net.RPCURLs = []string{"sim://devnet"}
	w.net.Confirmations = 2
	w.net.Native.Min, w.net.Native.Max = big.NewInt(1000), hundred
	w.net.Tokens[0].Min, w.net.Tokens[0].Max = big.NewInt(10_000), big.NewInt(1e11)
	w.prices = pricing.Static{"ETH": decimal.NewFromInt(3000), "DUSD": decimal.NewFromInt(1), "USD": decimal.NewFromInt(1),
		"EUR": decimal.RequireFromString("1.08"), "GBP": decimal.RequireFromString("1.27")}
	if w.keys, err = hd.FromMnemonic(mnemonic, ""); err != nil {
		return nil, err
	}
	xpub, _ := w.keys.XPub()
	if w.deriver, err = hd.FromXPub(xpub); err != nil {
		return nil, err
	}
	if w.payerNonce, err = w.rpc.PendingNonceAt(ctx, w.payer); err != nil {
		return nil, err
	}
	if err := w.start(ctx); err != nil {
		return nil, err
	}
	return w, w.setup(ctx)
}

// Close releases the world.
func (w *World) Close() {
	if w.p != nil {
		w.p.store.Close()
		w.p = nil
	}
	w.chain.Close()
	if w.opt.Dir == "" && w.dir != "" {
		os.RemoveAll(w.dir)
	}
}

// simChains are the network as the use cases see it, through the faulty node.
type simChains struct{ w *World }

func (c simChains) Network(name string) (*rampway.Network, bool) {
	if name != network {
		return nil, false
	}
	n := c.w.net
	return &n, true
}

func (c simChains) List() []*rampway.Network { n := c.w.net; return []*rampway.Network{&n} }

func (c simChains) HasCode(ctx context.Context, name string, addr common.Address) (bool, error) {
	code, err := c.w.faults.CodeAt(ctx, addr, nil)
	return len(code) > 0, err
}

func (c simChains) Simulate(ctx context.Context, name string, from common.Address, calls []rampway.Call) (string, error) {
	return chain.QuoteClient{Node: c.w.faults}.Simulate(ctx, from, calls)
}

func (c simChains) EVM(name string) (checkout.EVM, bool) {
	if name != network {
		return nil, false
	}
	return chain.QuoteClient{Node: c.w.faults}, true
}

// testFiat are the dev configuration's test-mode currencies, with the provider's methods.
func testFiat(methods []string) []rampway.FiatCurrency {
	cfg := config.Default()
	cfg.Mode = config.ModeDev
	var out []rampway.FiatCurrency
	for _, c := range cfg.FiatCurrencies(false) {
		c.Methods = slices.DeleteFunc(slices.Clone(c.Methods), func(m rampway.PaymentMethod) bool { return !slices.Contains(methods, m.ID) })
		if len(c.Methods) > 0 {
			out = append(out, c)
		}
	}
	return out
}

// start builds a process on the database and the chain: what `rampway serve` builds in
// internal/app, with the simulation's clock, node, provider and receiver.
func (w *World) start(ctx context.Context) error {
	st, err := sqlite.Open(ctx, w.dbPath, nil)
	if err != nil {
		return err
	}
	p := &proc{store: &faultStore{Store: st}}
	chains := simChains{w}
	now := w.clock.Now
	p.merchants = merchant.NewService(p.store, merchant.Options{HashSecret: "sim-hash-secret-0123456789abcdef0123", DevMode: true})
	p.functions = contract.NewRegistry(contract.RegistryConfig{DevMode: true}, p.store, chains, now)
	p.deposits = merchant.NewDepositAddresses(merchant.DepositAddressesConfig{HotWallet: w.hot}, p.store, chains, now)
	p.checkout = checkout.New(checkout.Config{PublicURL: "https://pay.sim", HashSecret: []byte("sim-hash-secret-0123456789abcdef0123"),
		HotWallet: w.hot, DevMode: true, TestFiat: testFiat(w.provider.Methods()), FiatSpreadBPS: 100},
		checkout.Deps{Store: p.store, Functions: p.functions, Chains: chains, Prices: w.prices, Deriver: w.deriver, Payouts: p.deposits.Payout,
			Providers: []checkout.FiatRoute{{Provider: w.provider}}, Now: now})
	p.refunds = checkout.NewRefunds(p.store, chains, w.hot, now)
	signer := chain.NewKeySigner(w.hotKey)
	net := w.net
	p.executor = chainwork.NewExecutor(chainwork.ExecutorConfig{Prices: w.prices}, p.store, p.functions, &net, w.faults, signer, w.log, now)
	// Native payments made inside transactions (a contract paying) are seen by tracing blocks,
	// as `rampway dev` does on its chain (networks[].internal_transfers: trace).
	wcfg := chainwork.WatcherConfig{CannotLag: true, Internal: chainwork.InternalTransfers{Mode: chainwork.InternalTrace, Node: w.chain.RPC()}}
	if p.watcher, err = chainwork.NewWatcher(wcfg, p.store, &net, w.faults, w.log, now); err == nil {
		err = p.watcher.CheckInternalTransfers(ctx)
	}
	if err == nil {
		// As internal/app's Start: the watcher's first block is recorded before any order is
		// taken (at a restart it is there already: no node call).
		err = p.watcher.Begin(ctx)
	}
	if err != nil {
		st.Close()
		return err
	}
	p.sweeper = chainwork.NewSweeper(chainwork.SweeperConfig{Treasury: w.treasury}, p.store, &net, w.faults, signer, w.keys, w.log, now)
	p.fiat = fiatwork.New(p.store, map[string]rampway.FiatProvider{providerName: w.provider}, fiatwork.Config{}, w.log, now)
	p.dispatcher = webhook.New(webhook.Config{Workers: 1, SlowAfter: time.Hour, AllowPrivate: true, Transport: w.receiver,
		Schedule: webhook.Schedule{First: 10 * time.Second, Max: 10 * time.Minute, Jitter: 0.2, GiveUpAfter: 30 * 24 * time.Hour},
		Rand:     w.jitter.Float64}, p.store, p.merchants, w.log, now)
	w.p = p
	return nil
}

// restart is a crash: every service and worker is dropped and built again from the same
// database and chain.
func (w *World) restart(ctx context.Context) error {
	w.p.store.Close()
	w.p = nil
	w.crashes++
	return w.start(ctx)
}

// setup makes the merchant, its functions and its deposit address, as the admin API would.
func (w *World) setup(ctx context.Context) error {
	p := w.p
	m, err := p.merchants.Create(ctx, merchant.CreateParams{Name: "Sim Shop", WebhookURL: "http://merchant.sim/webhooks"})
	if err != nil {
		return fmt.Errorf("merchant: %w", err)
	}
	w.merchantID = m.ID
	if w.receiver.secret, err = p.merchants.SetWebhookSecret(ctx, m.ID, false, "", 0); err != nil {
		return err
	}
	for _, f := range []struct {
		dst           *string
		name, payable string
	}{{&w.fnNative, "mint", "ETH"}, {&w.fnToken, "mintWithToken", "DUSD"}} {
		abi, err := contract.FunctionFragment(devchain.NFTABI(), f.name)
		if err != nil {
			return err
		}
		fn, err := p.functions.Register(ctx, m.ID, contract.RegisterParams{Network: network, ContractAddress: w.chain.Contracts().NFT.Hex(),
			ABI: abi, DefaultGasLimit: 300_000, PayableSymbol: f.payable})
		if err != nil {
			return fmt.Errorf("register %s: %w", f.name, err)
		}
		*f.dst = fn.ID
	}
	if _, err := p.deposits.Set(ctx, m.ID, merchant.DepositAddressParams{Network: network, Symbol: "ETH", Address: w.payout.Hex()}); err != nil {
		return fmt.Errorf("deposit address: %w", err)
	}
	return nil
}

// merchant reads the merchant (as an API request does).
func (w *World) merchant(ctx context.Context) (*rampway.Merchant, error) {
	return w.p.merchants.Get(ctx, w.merchantID)
}

// user is the KYC fields of a fiat order's user.
var user = map[string]string{"user_first_name": "Ada", "user_last_name": "Lovelace", "user_email_id": "ada@example.com",
	"user_dob": "1990-12-10", "user_countryCode": "DE"}

// newOrder creates an order of kind through the use cases.
func (w *World) newOrder(ctx context.Context, kind string) (string, error) {
	m, err := w.merchant(ctx)
	if err != nil {
		return "", err
	}
	o := &simOrder{Kind: kind, Paid: new(big.Int), Recipient: crypto.PubkeyToAddress(key(w.opt.Seed, fmt.Sprintf("recipient%d", len(w.orders))).PublicKey)}
	area := kind[:1]
	n := 1
	for _, x := range w.orders {
		if x.Kind[:1] == area {
			n++
		}
	}
	o.Label = fmt.Sprintf("%s%d", area, n)
	args, _ := json.Marshal(map[string]any{"to": o.Recipient.Hex(), "quantity": "1"})
	ord := checkout.OrderParams{MerchantUserID: "u-" + o.Label, MerchantTxnID: o.Label, MerchantRedirectURL: "https://shop.sim/done", User: user}
	var c *checkout.Created
	switch kind {
	case "A-eth":
		c, err = w.p.checkout.CreateMintOrder(ctx, m, checkout.MintOrderParams{Quote: checkout.QuoteParams{CryptoSymbol: "ETH", CryptoNetwork: network,
			Execution: checkout.ExecutionParams{FunctionID: w.fnNative, FunctionArgs: args, NetworkName: network,
				Payment: &checkout.PaymentParams{Symbol: "ETH", TotalValue: "0.01"}}}, Order: ord})
	case "A-token":
		c, err = w.p.checkout.CreateMintOrder(ctx, m, checkout.MintOrderParams{Quote: checkout.QuoteParams{CryptoSymbol: "DUSD", CryptoNetwork: network, CryptoContractAddress: w.chain.Contracts().Token.Hex(),
			Execution: checkout.ExecutionParams{FunctionID: w.fnToken, FunctionArgs: args, NetworkName: network,
				Payment: &checkout.PaymentParams{Symbol: "DUSD", TotalValue: "10"}}}, Order: ord})
	case "B-card", "B-bank":
		method := rampway.MethodCard
		if kind == "B-bank" {
			method = rampway.MethodSEPABankTransfer
		}
		c, err = w.p.checkout.CreateFiatOrder(ctx, m, checkout.FiatOrderParams{Quote: checkout.FiatQuoteParams{FiatSymbol: "EUR", Method: method,
			Execution: checkout.ExecutionParams{FunctionID: w.fnNative, FunctionArgs: args, NetworkName: network,
				Payment: &checkout.PaymentParams{Symbol: "ETH", TotalValue: "0.01"}}}, Order: ord})
	case "C-card", "C-bank":
		method := rampway.MethodCard
		if kind == "C-bank" {
			method = rampway.MethodSEPABankTransfer
		}
		c, err = w.p.checkout.CreateDepositOrder(ctx, m, checkout.DepositOrderParams{Quote: checkout.DepositQuoteParams{FiatSymbol: "EUR",
			FiatAmount: fmt.Sprint(20 + w.rng.IntN(80)), Method: method, CryptoSymbol: "ETH", CryptoNetwork: network}, Order: ord})
	}
	if err != nil {
		return "", fmt.Errorf("create %s: %w", kind, err)
	}
	o.ID, o.Deposit = c.Order.ID, c.Order.DepositAddress
	if area == "A" {
		o.Amount = new(big.Int).Set(c.Order.CryptoAmount)
	} else {
		o.Amount = new(big.Int).Set(c.Order.FiatAmount)
	}
	w.orders = append(w.orders, o)
	return fmt.Sprintf("create %s (%s)", o.Label, kind), nil
}

// pay sends an area A order's payment from the payer: how is "exact", "under" (half),
// "rest" (what is left), "over" (half again) or "late" (in full, after its expiry).
func (w *World) pay(ctx context.Context, o *simOrder, how string) (string, error) {
	amount := new(big.Int).Set(o.Amount)
	switch how {
	case "under":
		amount.Div(amount, big.NewInt(2))
	case "rest":
		amount.Sub(amount, o.Paid)
	case "over":
		amount.Add(amount, new(big.Int).Div(amount, big.NewInt(2)))
	}
	if amount.Sign() <= 0 {
		return "", nil
	}
	head, err := w.rpc.HeaderByNumber(ctx, nil)
	if err != nil {
		return "", err
	}
	tip := big.NewInt(1e9)
	feeCap := new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(3)), tip)
	tx := &types.DynamicFeeTx{ChainID: w.chain.ChainID(), Nonce: w.payerNonce, GasTipCap: tip, GasFeeCap: feeCap}
	if o.Kind == "A-eth" && w.rng.IntN(4) == 0 {
		// From a contract: Multicall3 forwards the value, an internal transfer.
		mc := w.chain.Contracts().Multicall
		tx.To, tx.Gas, tx.Value = &mc, 120_000, amount
		tx.Data = bindings.NewMulticall3().PackAggregate3Value([]bindings.Multicall3Call3Value{{Target: o.Deposit, Value: amount}})
		how += " from a contract"
	} else if o.Kind == "A-token" {
		token := w.chain.Contracts().Token
		tx.To, tx.Gas = &token, 100_000
		tx.Data = append(crypto.Keccak256([]byte("transfer(address,uint256)"))[:4], append(common.LeftPadBytes(o.Deposit.Bytes(), 32), common.LeftPadBytes(amount.Bytes(), 32)...)...)
	} else {
		tx.To, tx.Gas, tx.Value = &o.Deposit, 21_000, amount
	}
	signed, err := types.SignNewTx(w.payerKey, types.LatestSignerForChainID(w.chain.ChainID()), tx)
	if err != nil {
		return "", err
	}
	if err := w.rpc.SendTransaction(ctx, signed); err != nil {
		return "", fmt.Errorf("payer: %w", err)
	}
	w.payerNonce++
	o.PayTxs = append(o.PayTxs, signed.Hash())
	o.Paid.Add(o.Paid, amount)
	o.Payments++
	return fmt.Sprintf("pay %s %s %s", o.Label, how, amount), nil
}

// errSkip is an action that had nothing to act on.
var errSkip = errors.New("nothing to do")

// deliverEvent delivers the provider's notification i (after dup: once more later).
func (w *World) deliverEvent(ctx context.Context, i int, dup bool) (string, error) {
	ev := w.provider.outbox[i]
	if !dup {
		w.provider.outbox = slices.Delete(w.provider.outbox, i, i+1)
	}
	body, _ := json.Marshal(ev)
	_, err := w.p.checkout.ProviderWebhook(ctx, providerName, nil, body)
	what := fmt.Sprintf("provider notifies %s %s %s", ev.ID, ev.Type, w.labelOfRef(ev.PaymentRef))
	if dup {
		what += " (kept for a duplicate)"
	}
	if err != nil && !errors.Is(err, checkout.ErrIgnored) {
		// The provider sends it again later, as providers do when not answered 2xx.
		if !dup {
			w.provider.outbox = append(w.provider.outbox, ev)
		}
		return what + ": " + shortErr(err), nil
	}
	return what, nil
}

func (w *World) labelOfRef(ref string) string {
	for _, o := range w.orders {
		if o.PayRef == ref {
			return o.Label
		}
	}
	return ref
}

// shortErr is an error for the trace: without the order ids and hashes that differ from run
// to run in nothing but their random part, it would do as it is; kept short.
func shortErr(err error) string {
	s := err.Error()
	if errors.Is(err, errCrash) {
		return "crash"
	}
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 120 {
		s = s[:120] + "..."
	}
	return s
}

// mine commits a block with what waits in the pool.
func (w *World) mine() (string, error) {
	if _, err := w.chain.Mine(); err != nil {
		return "", err
	}
	n, err := w.rpc.BlockNumber(context.Background())
	return fmt.Sprintf("mine block %d", n), err
}

// stepDispatcher steps the dispatcher until it starts nothing more (at most a few times).
func (w *World) stepDispatcher(ctx context.Context) (int, error) {
	total := 0
	for range 8 {
		n, err := w.p.dispatcher.Step(ctx)
		w.p.dispatcher.Wait()
		total += n
		if err != nil || n == 0 {
			return total, err
		}
	}
	return total, nil
}
