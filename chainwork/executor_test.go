package chainwork_test

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain"
	"github.com/rampway/rampway/chain/devchain"
	"github.com/rampway/rampway/chain/devchain/bindings"
	"github.com/rampway/rampway/chain/devchain/devchaintest"
	"github.com/rampway/rampway/chainwork"
	"github.com/rampway/rampway/contract"
	"github.com/rampway/rampway/internal/sqlstore"
	"github.com/rampway/rampway/storetest"
)

type execEnv struct {
	t          *testing.T
	chain      *devchain.Chain
	owner      *ecdsa.PrivateKey
	ownerNonce uint64
	payer      *ecdsa.PrivateKey // a user with ETH and DUSD
	payerNonce uint64
	client     *ethclient.Client
	store      *sqlstore.Store
	reg        *contract.Registry
	net        *rampway.Network
	hot        *chain.KeySigner
	hotKey     *ecdsa.PrivateKey
	mid        string
	native     *rampway.ContractFunction // DemoNFT.mint, paid in ETH
	token      *rampway.ContractFunction // DemoNFT.mintWithToken, paid in DUSD
	nft        *bindings.DemoNFT
}

func newExecEnv(t *testing.T) *execEnv {
	hotKey, _ := crypto.GenerateKey()
	hot := chain.NewKeySigner(hotKey)
	payer, _ := crypto.GenerateKey()
	ether100 := new(big.Int).Mul(big.NewInt(100), big.NewInt(1e18))
	c, owner := devchaintest.StartOwned(t, devchain.Funding{Address: hot.Address(), Wei: ether100, TokenUnits: big.NewInt(1e12)},
		devchain.Funding{Address: crypto.PubkeyToAddress(payer.PublicKey), Wei: ether100, TokenUnits: big.NewInt(1e12)})
	cl, err := ethclient.Dial(c.RPCURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	store := storetest.OpenSQLite(t)
	devnet := c.Network("devnet")
	devnet.Confirmations = 1
	nets, err := chain.Dial(t.Context(), []rampway.Network{devnet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nets.Close)
	net, _ := nets.Network("devnet")
	m := storetest.NewMerchant(t, store)
	e := &execEnv{t: t, chain: c, owner: owner, payer: payer, client: cl, store: store, reg: contract.NewRegistry(contract.RegistryConfig{}, store, nets, nil), net: net, hot: hot, hotKey: hotKey,
		mid: m.ID, nft: bindings.NewDemoNFT()}
	if e.ownerNonce, err = cl.NonceAt(t.Context(), crypto.PubkeyToAddress(owner.PublicKey), nil); err != nil {
		t.Fatal(err)
	}
	e.native = e.register("mint", "ETH")
	e.token = e.register("mintWithToken", "DUSD")
	return e
}

func (e *execEnv) register(name, payable string) *rampway.ContractFunction {
	e.t.Helper()
	frag, err := contract.FunctionFragment(devchain.NFTABI(), name)
	if err != nil {
		e.t.Fatal(err)
	}
	f, err := e.reg.Register(e.t.Context(), e.mid, contract.RegisterParams{Network: "devnet", ContractAddress: e.chain.Contracts().NFT.Hex(),
		ABI: frag, DefaultGasLimit: 200_000, PayableSymbol: payable})
	if err != nil {
		e.t.Fatal(err)
	}
	return f
}

// paidOrder stores an order of f minting quantity to `to`, moved to DEPOSIT_SUCCESS as the
// watcher would once its payment is confirmed.
func (e *execEnv) paidOrder(f *rampway.ContractFunction, to common.Address, quantity int64) *rampway.Order {
	e.t.Helper()
	o := e.unpaidOrder(f, to, quantity)
	return storetest.Drive(e.t, e.store, o.ID, rampway.StatusDepositSuccess)
}

// unpaidOrder stores a new order (CREATED) of f minting quantity to `to`: the price plus 1000
// base units of fees, to its own deposit address.
func (e *execEnv) unpaidOrder(f *rampway.ContractFunction, to common.Address, quantity int64) *rampway.Order {
	e.t.Helper()
	ctx := e.t.Context()
	asset, _ := e.net.Asset(f.PayableSymbol)
	value := new(big.Int).Mul(big.NewInt(devchain.NFTPriceWei), big.NewInt(quantity))
	if !asset.IsNative() {
		value = new(big.Int).Mul(big.NewInt(devchain.NFTTokenPrice), big.NewInt(quantity))
	}
	args, _ := json.Marshal(map[string]any{"to": to.Hex(), "quantity": quantity})
	key, _ := crypto.GenerateKey()
	now := time.Now().UTC().Truncate(time.Microsecond)
	i, _ := e.store.NextDepositIndex(ctx)
	amount := new(big.Int).Add(value, big.NewInt(1000)) // the fees
	o := &rampway.Order{ID: rampway.NewID(rampway.PrefixOrder, now), MerchantID: e.mid, Area: rampway.AreaMint, Status: rampway.StatusCreated,
		MerchantUserID: "u", MerchantRedirectURL: "https://x.example", Network: "devnet", Asset: asset,
		CryptoAmount: amount, CryptoReceived: new(big.Int), FunctionID: f.ID, FunctionArgs: args, PaymentValue: value, GasLimit: f.DefaultGasLimit,
		NetworkFee: big.NewInt(1000), ServiceFee: new(big.Int), DepositAddress: crypto.PubkeyToAddress(key.PublicKey), DepositIndex: i,
		ExpiresAt: now.Add(time.Hour), CreatedAt: now, UpdatedAt: now}
	if err := e.store.CreateOrder(ctx, o); err != nil {
		e.t.Fatal(err)
	}
	return o
}

func (e *execEnv) executor(client chainwork.ExecClient) *chainwork.Executor {
	if client == nil {
		client = e.client
	}
	return chainwork.NewExecutor(chainwork.ExecutorConfig{RepriceAfter: 2}, e.store, e.reg, e.net, client, e.hot, slog.New(slog.DiscardHandler), nil)
}

func (e *execEnv) step(x *chainwork.Executor) {
	e.t.Helper()
	if err := x.Step(e.t.Context()); err != nil {
		e.t.Fatal(err)
	}
}

func (e *execEnv) mine() {
	e.t.Helper()
	if _, err := e.chain.Mine(); err != nil {
		e.t.Fatal(err)
	}
}

func (e *execEnv) order(o *rampway.Order) *rampway.Order {
	e.t.Helper()
	got, err := e.store.Order(e.t.Context(), o.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	return got
}

func (e *execEnv) txs(o *rampway.Order) []*rampway.ChainTx {
	e.t.Helper()
	_, txs, err := e.store.Execution(e.t.Context(), o.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	return txs
}

func (e *execEnv) balance(who common.Address) int64 {
	e.t.Helper()
	b, err := bind.Call(e.nft.Instance(e.client, e.chain.Contracts().NFT), nil, e.nft.PackBalanceOf(who), e.nft.UnpackBalanceOf)
	if err != nil {
		e.t.Fatal(err)
	}
	return b.Int64()
}

// capSupply lets only n more tokens be minted.
func (e *execEnv) capSupply(n int64) {
	e.t.Helper()
	inst := e.nft.Instance(e.client, e.chain.Contracts().NFT)
	minted, err := bind.Call(inst, nil, e.nft.PackTotalMinted(), e.nft.UnpackTotalMinted)
	if err != nil {
		e.t.Fatal(err)
	}
	nft := e.chain.Contracts().NFT
	e.ownerSend(&nft, e.nft.PackSetMaxSupply(new(big.Int).Add(minted, big.NewInt(n))), 100_000)
	e.mine()
}

// raceForLast pays two orders of f, one token each to r1 and r2, and steps x until both are
// settled: with one token left, both pass the pre-flight and are sent, and one call reverts on
// chain. It returns the order that SUCCEEDED first when there is one.
func (e *execEnv) raceForLast(x *chainwork.Executor, f *rampway.ContractFunction, r1, r2 common.Address) (won, lost *rampway.Order) {
	e.t.Helper()
	a, b := e.paidOrder(f, r1, 1), e.paidOrder(f, r2, 1)
	e.step(x)
	e.wantStatus(a, rampway.StatusSmartContractProcessing)
	e.wantStatus(b, rampway.StatusSmartContractProcessing)
	for range 4 {
		e.mine()
		e.step(x)
	}
	won, lost = e.order(a), e.order(b)
	if won.Status != rampway.StatusSuccess {
		won, lost = lost, won
	}
	return won, lost
}

func (e *execEnv) wantStatus(o *rampway.Order, want rampway.OrderStatus) *rampway.Order {
	e.t.Helper()
	got := e.order(o)
	if got.Status != want {
		e.t.Fatalf("order %s is %s (%s), want %s", o.ID, got.Status, got.FailureReason, want)
	}
	return got
}

func (e *execEnv) wantRefund(o *rampway.Order, amount *big.Int, reason string) {
	e.t.Helper()
	rs, err := e.store.Refunds(e.t.Context(), o.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	// The executor pays it back in its next steps (the same step, even): pending, or on its way.
	if len(rs) != 1 || rs[0].Amount.Cmp(amount) != 0 || !strings.Contains(rs[0].Reason, reason) ||
		!slices.Contains([]rampway.RefundStatus{rampway.RefundPending, rampway.RefundSent, rampway.RefundDone}, rs[0].Status) {
		e.t.Fatalf("refunds of %s: %+v, want one of %s for %q, pending or paid", o.ID, rs, amount, reason)
	}
}

// failed reports whether o failed: FAILED, or on to REFUND_PENDING and REFUNDED as its refund
// is paid back.
func failed(o *rampway.Order) bool {
	return o.Status == rampway.StatusFailed || o.Status == rampway.StatusRefundPending || o.Status == rampway.StatusRefunded
}

func newRecipient() common.Address {
	k, _ := crypto.GenerateKey()
	return crypto.PubkeyToAddress(k.PublicKey)
}

func TestExecutorNativeAndTokenPaid(t *testing.T) {
	t.Parallel()
	e := newExecEnv(t)
	r1, r2 := newRecipient(), newRecipient()
	a := e.paidOrder(e.native, r1, 2)
	b := e.paidOrder(e.token, r2, 1)
	x := e.executor(nil)
	e.step(x)
	for _, o := range []*rampway.Order{a, b} {
		if got := e.wantStatus(o, rampway.StatusSmartContractProcessing); got.ExecutionTxHash == "" {
			t.Fatalf("order %s has no tx hash while processing", o.ID)
		}
	}
	if kinds := []int{len(e.txs(a)), len(e.txs(b))}; kinds[0] != 1 || kinds[1] != 2 || e.txs(b)[0].Kind != rampway.TxApprove {
		t.Fatalf("transactions: native %d, token %d (%+v), want 1 and approve + call", kinds[0], kinds[1], e.txs(b))
	}
	e.mine()
	e.step(x)
	for _, o := range []*rampway.Order{a, b} {
		got := e.wantStatus(o, rampway.StatusSuccess)
		rec, err := e.client.TransactionReceipt(t.Context(), common.HexToHash(got.ExecutionTxHash))
		if err != nil || rec.Status != types.ReceiptStatusSuccessful {
			t.Fatalf("execution of %s: %v %+v", o.ID, err, rec)
		}
		for _, tx := range e.txs(o) {
			if tx.Status != rampway.TxMined {
				t.Fatalf("tx %s of %s is %s after success", tx.Hash.Hex(), o.ID, tx.Status)
			}
		}
	}
	if e.balance(r1) != 2 || e.balance(r2) != 1 {
		t.Fatalf("recipients own %d and %d, want 2 and 1", e.balance(r1), e.balance(r2))
	}
	// Nothing more happens however often it steps.
	for range 3 {
		e.mine()
		e.step(x)
	}
	if e.balance(r1) != 2 || e.balance(r2) != 1 {
		t.Fatalf("executed again: recipients own %d and %d", e.balance(r1), e.balance(r2))
	}
}

// Two orders race for the last token: both pass the pre-flight, both are sent, one reverts on
// chain. That one ends FAILED with a refund record, after exactly one attempt.
func TestExecutorRevertOnChainFailsOnce(t *testing.T) {
	t.Parallel()
	e := newExecEnv(t)
	e.capSupply(1)
	r := newRecipient()
	won, lost := e.raceForLast(e.executor(nil), e.native, r, r)
	if won.Status != rampway.StatusSuccess || !failed(lost) || !strings.Contains(lost.FailureReason, "sold out") {
		t.Fatalf("orders: %s (%s) and %s (%s), want one SUCCESS and one FAILED for sold out", won.Status, won.FailureReason, lost.Status, lost.FailureReason)
	}
	e.wantRefund(lost, lost.CryptoReceived, "sold out")
	if txs := e.txs(lost); len(txs) != 1 || txs[0].Status != rampway.TxMined {
		t.Fatalf("the failed order's transactions: %+v, want its one call, mined", txs)
	}
	rec, err := e.client.TransactionReceipt(t.Context(), common.HexToHash(lost.ExecutionTxHash))
	if err != nil || rec.Status != types.ReceiptStatusFailed {
		t.Fatalf("the failed order's call: %v %+v", err, rec)
	}
	if e.balance(r) != 1 {
		t.Fatalf("recipient owns %d", e.balance(r))
	}
}

// A call that the pre-flight shows would revert is never sent.
func TestExecutorPreflightRevert(t *testing.T) {
	t.Parallel()
	e := newExecEnv(t)
	e.capSupply(0)
	a := e.paidOrder(e.native, newRecipient(), 1)
	b := e.paidOrder(e.token, newRecipient(), 1)
	x := e.executor(nil)
	e.step(x)
	for _, o := range []*rampway.Order{a, b} {
		got := e.order(o)
		if !failed(got) {
			t.Fatalf("order %s is %s, want it failed", o.ID, got.Status)
		}
		if !strings.Contains(got.FailureReason, "would revert") || !strings.Contains(got.FailureReason, "sold out") {
			t.Fatalf("failure reason %q", got.FailureReason)
		}
		if _, _, err := e.store.Execution(t.Context(), o.ID); rampway.ErrorCode(err) != rampway.ENOTFOUND {
			t.Fatalf("execution of %s: %v, want none", o.ID, err)
		}
		e.wantRefund(o, got.CryptoReceived, "sold out")
	}
}

// lossyClient is a node that says it took a transaction and then loses it (or a process that
// crashed after storing a transaction and before sending it).
type lossyClient struct {
	*ethclient.Client
	mu   sync.Mutex
	lose func(*types.Transaction) bool
	lost []common.Hash
}

func (c *lossyClient) SendTransaction(ctx context.Context, tx *types.Transaction) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lose(tx) {
		c.lost = append(c.lost, tx.Hash())
		return nil
	}
	return c.Client.SendTransaction(ctx, tx)
}

// A process that stored an execution and died before sending it: the next one sends it, once.
func TestExecutorSendsWhatACrashedProcessStored(t *testing.T) {
	t.Parallel()
	e := newExecEnv(t)
	r := newRecipient()
	o := e.paidOrder(e.token, r, 1)
	crashed := e.executor(&lossyClient{Client: e.client, lose: func(*types.Transaction) bool { return true }})
	e.step(crashed)
	e.wantStatus(o, rampway.StatusSmartContractProcessing)
	e.mine()
	if rec, err := e.client.TransactionReceipt(t.Context(), common.HexToHash(e.order(o).ExecutionTxHash)); err == nil {
		t.Fatalf("the call was mined before any broadcast: %+v", rec)
	}
	restarted := e.executor(nil)
	e.step(restarted) // broadcasts the stored approve and call
	e.mine()
	e.step(restarted)
	e.wantStatus(o, rampway.StatusSuccess)
	if txs := e.txs(o); len(txs) != 2 || e.balance(r) != 1 {
		t.Fatalf("transactions %d, recipient owns %d: want 2 (approve + call) and 1", len(txs), e.balance(r))
	}
}

// A transaction the node lost, priced below the market once it has waited RepriceAfter blocks
// (the tip rose threefold), is re-priced: the replacement, with both fee caps at least 10%
// higher, is mined; both hashes stay recorded.
func TestExecutorRepricesStuckTransaction(t *testing.T) {
	t.Parallel()
	e := newExecEnv(t)
	r := newRecipient()
	o := e.paidOrder(e.native, r, 1)
	node := &spikyNode{Client: e.client, forget: e.chain.Contracts().NFT}
	x := e.executor(node)
	e.step(x)
	stuck := e.order(o).ExecutionTxHash
	node.x = 3
	for i := 0; e.order(o).Status != rampway.StatusSuccess; i++ {
		if i == 8 {
			t.Fatalf("order %s after 8 blocks, want SUCCESS", e.order(o).Status)
		}
		e.mine()
		e.step(x)
	}
	got := e.wantStatus(o, rampway.StatusSuccess)
	if got.ExecutionTxHash == stuck {
		t.Fatal("the order shows the lost transaction, not its replacement")
	}
	txs := e.txs(o)
	if len(txs) != 2 || txs[0].Hash.Hex() != stuck || txs[0].Status != rampway.TxReplaced || txs[1].Status != rampway.TxMined || txs[0].Nonce != txs[1].Nonce {
		t.Fatalf("transactions: %+v", txs)
	}
	var a, b types.Transaction
	if err := a.UnmarshalBinary(txs[0].Raw); err != nil {
		t.Fatal(err)
	}
	if err := b.UnmarshalBinary(txs[1].Raw); err != nil {
		t.Fatal(err)
	}
	for _, p := range [][2]*big.Int{{a.GasTipCap(), b.GasTipCap()}, {a.GasFeeCap(), b.GasFeeCap()}} {
		if min := new(big.Int).Div(new(big.Int).Mul(p[0], big.NewInt(110)), big.NewInt(100)); p[1].Cmp(min) < 0 {
			t.Fatalf("replacement fee %s is not 10%% above %s", p[1], p[0])
		}
	}
	if e.balance(r) != 1 {
		t.Fatalf("recipient owns %d", e.balance(r))
	}
}

// A transaction priced at today's fees is not re-priced however long it waits. Here a token
// call waits behind its approval, which the node keeps losing: both are sent again, neither
// re-priced (their fees grew 12.5% every RepriceAfter blocks for as long as the gap lasted,
// to be paid in full once mined), and both are mined once the node takes the approval.
func TestExecutorDoesNotRepriceAtTheMarket(t *testing.T) {
	t.Parallel()
	e := newExecEnv(t)
	o := e.paidOrder(e.token, newRecipient(), 1)
	dusd := e.chain.Contracts().Token
	var losing atomic.Bool
	losing.Store(true)
	node := &lossyClient{Client: e.client, lose: func(tx *types.Transaction) bool { return losing.Load() && *tx.To() == dusd }}
	x := e.executor(node)
	for range 10 {
		e.step(x)
		e.mine()
	}
	e.wantStatus(o, rampway.StatusSmartContractProcessing)
	if txs := e.txs(o); len(txs) != 2 {
		t.Fatalf("%d transactions for the approval and the call, want 2 (none re-priced)", len(txs))
	}
	if lost := len(node.lost); lost < 3 {
		t.Fatalf("the approval was sent %d times, want it sent again while it waited", lost)
	}
	losing.Store(false)
	for i := 0; e.order(o).Status != rampway.StatusSuccess; i++ {
		if i == 6 {
			t.Fatalf("order %s after 6 steps, want SUCCESS", e.order(o).Status)
		}
		e.step(x)
		e.mine()
	}
	if txs := e.txs(o); len(txs) != 2 {
		t.Fatalf("%d transactions, want 2", len(txs))
	}
}

// A hot wallet without the funds for a call leaves the order paid and waiting: our liquidity,
// not the user's failure.
func TestExecutorWaitsForLiquidity(t *testing.T) {
	t.Parallel()
	e := newExecEnv(t)
	poorKey, _ := crypto.GenerateKey()
	o := e.paidOrder(e.native, newRecipient(), 1)
	x := chainwork.NewExecutor(chainwork.ExecutorConfig{}, e.store, e.reg, e.net, e.client, chain.NewKeySigner(poorKey), slog.New(slog.DiscardHandler), nil)
	if err := x.Step(t.Context()); err == nil || !strings.Contains(err.Error(), "balance too low") {
		t.Fatalf("step: %v, want the hot wallet's balance reported", err)
	}
	e.wantStatus(o, rampway.StatusDepositSuccess)
	if rs, _ := e.store.Refunds(t.Context(), o.ID); len(rs) != 0 {
		t.Fatalf("refunds %+v", rs)
	}
	// The shortfall is the executor's to report (a /readyz warning, a metric): the order, the
	// wallet, what it needs and holds; a step still short keeps the time it was first found.
	poor := crypto.PubkeyToAddress(poorKey.PublicKey)
	sf := x.Shortfall()
	if sf == nil || sf.For != "order "+o.ID || sf.Wallet != poor || sf.Network != e.net.Name || sf.Asset.Symbol != e.net.Native.Symbol ||
		sf.Have.Sign() != 0 || sf.Need.Cmp(big.NewInt(1)) <= 0 || sf.Since.IsZero() {
		t.Fatalf("shortfall %+v", sf)
	}
	_ = x.Step(t.Context())
	if again := x.Shortfall(); again == nil || !again.Since.Equal(sf.Since) || again.Need.Cmp(sf.Need) != 0 {
		t.Fatalf("shortfall at the next step %+v, want the first's time %v", again, sf.Since)
	}
	// Funded, the wallet pays for the order and the shortfall is gone.
	ether := big.NewInt(1e18)
	tx := devchaintest.SignTx(t, e.client, e.chain.ChainID(), e.owner, e.ownerNonce, poor, ether, nil, 21_000)
	e.ownerNonce++
	if err := e.client.SendTransaction(t.Context(), tx); err != nil {
		t.Fatal(err)
	}
	e.mine()
	if err := x.Step(t.Context()); err != nil {
		t.Fatal(err)
	}
	if sf := x.Shortfall(); sf != nil {
		t.Fatalf("shortfall %+v after the wallet was funded", sf)
	}
	if got := e.order(o); got.Status == rampway.StatusDepositSuccess {
		t.Fatalf("order %s still waits (%s) with the wallet funded", o.ID, got.Status)
	}
}

// A hot wallet used outside rampway (its nonce on chain past every one the database assigned)
// signs nothing, and the executor reports the store's refusal, with the command to run, until
// an operator adopts the chain's nonce: then the waiting order is executed and the refusal is
// gone.
func TestExecutorReportsNonceRefusal(t *testing.T) {
	t.Parallel()
	e := newExecEnv(t)
	ctx := t.Context()
	x := e.executor(nil)
	a := e.paidOrder(e.native, newRecipient(), 1)
	e.step(x)
	e.mine()
	e.step(x)
	e.wantStatus(a, rampway.StatusSuccess)
	if err := x.NonceRefusal(); err != nil {
		t.Fatalf("refusal %v with the database's nonces", err)
	}

	// The wallet sends a transaction rampway has no record of.
	hot := e.hot.Address()
	nonce, err := e.client.PendingNonceAt(ctx, hot)
	if err != nil {
		t.Fatal(err)
	}
	tx := devchaintest.SignTx(t, e.client, e.chain.ChainID(), e.hotKey, nonce, newRecipient(), big.NewInt(1), nil, 21_000)
	if err := e.client.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	e.mine()
	b := e.paidOrder(e.native, newRecipient(), 1)
	if err := x.Step(ctx); !errors.Is(err, rampway.ErrNonceAhead) {
		t.Fatalf("step: %v, want the store's refusal", err)
	}
	refusal := x.NonceRefusal()
	if !errors.Is(refusal, rampway.ErrNonceAhead) || strings.HasPrefix(refusal.Error(), "start execution") ||
		!strings.Contains(refusal.Error(), fmt.Sprintf("rampway admin nonces adopt --network devnet --wallet %s --next %d", hot.Hex(), nonce+1)) {
		t.Fatalf("refusal %v", refusal)
	}
	e.wantStatus(b, rampway.StatusDepositSuccess)

	if _, err := e.store.AdoptNonce(ctx, "devnet", hot, nonce+1); err != nil {
		t.Fatal(err)
	}
	e.step(x)
	if err := x.NonceRefusal(); err != nil {
		t.Fatalf("refusal %v after the operator adopted the chain's nonce", err)
	}
	e.mine()
	e.step(x)
	e.wantStatus(b, rampway.StatusSuccess)
}

// ownerSend sends a transaction from the dev chain's owner (to nil: a contract creation) and
// returns the address a creation makes.
func (e *execEnv) ownerSend(to *common.Address, data []byte, gas uint64) common.Address {
	e.t.Helper()
	created := crypto.CreateAddress(crypto.PubkeyToAddress(e.owner.PublicKey), e.ownerNonce)
	var tx *types.Transaction
	if to == nil {
		tx = devchaintest.SignCreation(e.t, e.client, e.chain.ChainID(), e.owner, e.ownerNonce, data, gas)
	} else {
		tx = devchaintest.SignTx(e.t, e.client, e.chain.ChainID(), e.owner, e.ownerNonce, *to, nil, data, gas)
	}
	e.ownerNonce++
	if err := e.client.SendTransaction(e.t.Context(), tx); err != nil {
		e.t.Fatal(err)
	}
	return created
}

// A token whose approve refuses to change a non-zero allowance (USDT's on Ethereum): a
// token-paid order whose call reverted leaves its allowance behind, and the next order paying
// the same contract still executes, approving 0 first (rampway.Asset.ApproveReset).
func TestExecutorApproveReset(t *testing.T) {
	t.Parallel()
	e := newExecEnv(t)
	ctx := t.Context()
	rt := bindings.NewResetToken()
	rusd := e.ownerSend(nil, common.FromHex(bindings.ResetTokenMetaData.Bin), 3_000_000)
	nft := e.ownerSend(nil, append(common.FromHex(bindings.DemoNFTMetaData.Bin), e.nft.PackConstructor("Reset NFT", "RNFT",
		big.NewInt(devchain.NFTPriceWei), rusd, big.NewInt(devchain.NFTTokenPrice), big.NewInt(1))...), 5_000_000)
	e.ownerSend(&rusd, rt.PackMint(e.hot.Address(), big.NewInt(1e12)), 150_000)
	e.mine()

	// The network with the token, as config's approve_reset: true gives it.
	devnet := *e.net
	devnet.Tokens = append(append([]rampway.Asset(nil), e.net.Tokens...),
		rampway.Asset{Symbol: "RUSD", Network: "devnet", Contract: rusd, Decimals: 6, ApproveReset: true})
	nets, err := chain.Dial(ctx, []rampway.Network{devnet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nets.Close)
	e.net, _ = nets.Network("devnet")
	e.reg = contract.NewRegistry(contract.RegistryConfig{}, e.store, nets, nil)
	frag, err := contract.FunctionFragment(devchain.NFTABI(), "mintWithToken")
	if err != nil {
		t.Fatal(err)
	}
	f, err := e.reg.Register(ctx, e.mid, contract.RegisterParams{Network: "devnet", ContractAddress: nft.Hex(), ABI: frag,
		DefaultGasLimit: 200_000, PayableSymbol: "RUSD"})
	if err != nil {
		t.Fatal(err)
	}
	allowance := func() *big.Int {
		t.Helper()
		a, err := bind.Call(rt.Instance(e.client, rusd), nil, rt.PackAllowance(e.hot.Address(), nft), rt.UnpackAllowance)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}

	// Two orders for the last token: both pass the pre-flight, the second's call reverts on
	// chain after its approve.
	x := e.executor(nil)
	won, lost := e.raceForLast(x, f, newRecipient(), newRecipient())
	if won.Status != rampway.StatusSuccess || lost.Status != rampway.StatusFailed {
		t.Fatalf("orders %s (%s) and %s (%s), want one SUCCESS and one FAILED", won.Status, won.FailureReason, lost.Status, lost.FailureReason)
	}
	left := allowance()
	if left.Sign() == 0 {
		t.Fatal("the reverted call left no allowance: the case under test did not happen")
	}
	// As the token is built, a plain approve now reverts.
	_, err = e.client.CallContract(ctx, ethereum.CallMsg{From: e.hot.Address(), To: &rusd, Data: rt.PackApprove(nft, left)}, nil)
	if err == nil || !strings.Contains(err.Error(), "reset the allowance to 0 first") {
		t.Fatalf("approve over a non-zero allowance: %v, want the token's refusal", err)
	}

	// One more token for sale: the next order executes, approving 0, then its amount.
	e.ownerSend(&nft, e.nft.PackSetMaxSupply(big.NewInt(2)), 100_000)
	e.mine()
	c := e.paidOrder(f, newRecipient(), 1)
	e.step(x)
	for range 3 {
		e.mine()
		e.step(x)
	}
	e.wantStatus(c, rampway.StatusSuccess)
	txs := e.txs(c)
	if len(txs) != 3 || txs[0].Kind != rampway.TxApprove || txs[1].Kind != rampway.TxApprove || txs[2].Kind != rampway.TxCall {
		t.Fatalf("transactions of the order after the revert: %+v, want approve 0, approve, call", txs)
	}
	if got := allowance(); got.Sign() != 0 {
		t.Fatalf("allowance after the call: %s, want 0", got)
	}
}

// An order the hot wallet cannot pay for does not stop the executor following what it sent:
// a call already on its way is settled while the new order waits for funds (a step that
// stopped at the first order it could not start left it SMARTCONTRACT_PROCESSING, mined,
// until the wallet was funded).
func TestExecutorFollowsWhileWaitingForLiquidity(t *testing.T) {
	t.Parallel()
	e := newExecEnv(t)
	a := e.paidOrder(e.native, newRecipient(), 1)
	x := e.executor(nil)
	e.step(x)
	e.wantStatus(a, rampway.StatusSmartContractProcessing)
	large := e.paidOrder(e.token, newRecipient(), 1e12/devchain.NFTTokenPrice+1) // more DUSD than the wallet holds
	for range 3 {
		e.mine()
		if err := x.Step(t.Context()); err == nil || !strings.Contains(err.Error(), "balance too low") {
			t.Fatalf("step: %v, want the hot wallet's balance reported", err)
		}
	}
	e.wantStatus(a, rampway.StatusSuccess)
	e.wantStatus(large, rampway.StatusDepositSuccess)
}

// pickyClient refuses, as a node whose pool wants a higher tip does, every transaction tipping
// less than minTip.
type pickyClient struct {
	*ethclient.Client
	minTip  *big.Int
	refused atomic.Int64
}

func (c *pickyClient) SendTransaction(ctx context.Context, tx *types.Transaction) error {
	if tx.GasTipCap().Cmp(c.minTip) < 0 {
		c.refused.Add(1)
		return fmt.Errorf("transaction underpriced: gas tip cap %s, minimum needed %s", tx.GasTipCap(), c.minTip)
	}
	return c.Client.SendTransaction(ctx, tx)
}

// A call the node refuses as underpriced is re-priced when it is due, as one stuck in the pool
// would be, until the node takes it (it was sent again as it was at every step, never re-priced:
// the order, and every later nonce of the wallet, waited for ever).
func TestExecutorRepricesWhatTheNodeRefusedAsUnderpriced(t *testing.T) {
	t.Parallel()
	e := newExecEnv(t)
	tip, err := e.client.SuggestGasTipCap(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	c := &pickyClient{Client: e.client, minTip: new(big.Int).Div(new(big.Int).Mul(tip, big.NewInt(12)), big.NewInt(10))} // two re-pricings away
	o := e.paidOrder(e.native, newRecipient(), 1)
	x := e.executor(c)
	for i := 0; e.order(o).Status != rampway.StatusSuccess; i++ {
		if i == 12 {
			t.Fatalf("order %s after 12 steps (%d refusals), want SUCCESS", e.order(o).Status, c.refused.Load())
		}
		if err := x.Step(t.Context()); err != nil {
			t.Logf("step: %v", err)
		}
		e.mine()
	}
	if c.refused.Load() == 0 {
		t.Fatal("the node refused nothing")
	}
}

// mintAndAHalf is a new hot wallet holding 1 ETH and DUSD for one token-paid mint and a half.
func (e *execEnv) mintAndAHalf() (*chain.KeySigner, rampway.Asset) {
	e.t.Helper()
	key, _ := crypto.GenerateKey()
	hot := chain.NewKeySigner(key)
	dusd, _ := e.net.Asset("DUSD")
	e.send(e.net.Native, hot.Address(), big.NewInt(1e18))
	e.send(dusd, hot.Address(), big.NewInt(devchain.NFTTokenPrice*3/2))
	e.mineSent()
	return hot, dusd
}

// What the hot wallet's transactions signed and not yet mined will spend is counted against
// what it holds: a step starts no order that the calls on their way leave the wallet unable to
// pay for. Counted from the node's balance alone (which knows nothing of a transaction in the
// pool), the second order was sent too, its call reverted on chain for want of tokens and the
// order failed.
func TestExecutorCountsWhatIsOnItsWay(t *testing.T) {
	t.Parallel()
	e := newExecEnv(t)
	hot, dusd := e.mintAndAHalf()
	x := chainwork.NewExecutor(chainwork.ExecutorConfig{}, e.store, e.reg, e.net, e.client, hot, slog.New(slog.DiscardHandler), nil)
	a := e.paidOrder(e.token, newRecipient(), 1)
	e.step(x)
	e.wantStatus(a, rampway.StatusSmartContractProcessing)
	b := e.paidOrder(e.token, newRecipient(), 1)
	for i := range 4 { // a's approve and call not yet mined, then mined and settled
		if err := x.Step(t.Context()); err == nil || !strings.Contains(err.Error(), "balance too low") {
			t.Fatalf("step %d: %v, want the hot wallet's balance reported", i, err)
		}
		e.wantStatus(b, rampway.StatusDepositSuccess)
		e.mine()
	}
	e.wantStatus(a, rampway.StatusSuccess)
	e.send(dusd, hot.Address(), big.NewInt(devchain.NFTTokenPrice)) // funded: b goes
	e.mineSent()
	for i := 0; e.order(b).Status != rampway.StatusSuccess; i++ {
		if i == 6 {
			t.Fatalf("order b is %s after 6 steps, want SUCCESS", e.order(b).Status)
		}
		e.step(x)
		e.mine()
	}
}

// An approval mined and settled while its call is not mined yet still holds the tokens it
// approved: the call takes them once it is mined. Counted from the transactions not yet
// settled alone, the second order was sent on those tokens, and failed once the first call
// took them.
func TestExecutorCountsAnApprovalSettledBeforeItsCall(t *testing.T) {
	t.Parallel()
	e := newExecEnv(t)
	hot, _ := e.mintAndAHalf()
	nft := e.chain.Contracts().NFT
	var losing atomic.Bool
	losing.Store(true)
	node := &lossyClient{Client: e.client, lose: func(tx *types.Transaction) bool { return losing.Load() && *tx.To() == nft }}
	x := chainwork.NewExecutor(chainwork.ExecutorConfig{}, e.store, e.reg, e.net, node, hot, slog.New(slog.DiscardHandler), nil)
	a := e.paidOrder(e.token, newRecipient(), 1)
	e.step(x) // the approval is sent, the call lost
	for i := 0; ; i++ {
		pending, err := e.store.PendingTxs(t.Context(), "devnet")
		if err != nil {
			t.Fatal(err)
		}
		if len(pending) == 1 && pending[0].Kind == rampway.TxCall {
			break // the approval settled, the call not mined
		}
		if i == 6 {
			t.Fatalf("pending after 6 blocks: %+v, want the call alone", pending)
		}
		e.mine()
		e.step(x)
	}
	b := e.paidOrder(e.token, newRecipient(), 1)
	for i := range 3 {
		if err := x.Step(t.Context()); err == nil || !strings.Contains(err.Error(), "balance too low") {
			t.Fatalf("step %d: %v, want the hot wallet's balance reported", i, err)
		}
		e.wantStatus(b, rampway.StatusDepositSuccess)
		e.mine()
	}
	losing.Store(false)
	for i := 0; e.order(a).Status != rampway.StatusSuccess; i++ {
		if i == 6 {
			t.Fatalf("order a is %s after 6 steps, want SUCCESS", e.order(a).Status)
		}
		if err := x.Step(t.Context()); err != nil && !strings.Contains(err.Error(), "balance too low") {
			t.Fatal(err)
		}
		e.mine()
	}
	e.wantStatus(b, rampway.StatusDepositSuccess) // half a mint left: b waits for funds
}

// payoutOrder stores a fiat-paid area C order (ONRAMP_SUCCESS) sending amount wei to payout,
// quoted at gas, of the test mode unless live.
func (e *execEnv) payoutOrder(payout common.Address, amount *big.Int, gas uint64, live bool) *rampway.Order {
	e.t.Helper()
	now := time.Now().UTC().Truncate(time.Microsecond)
	o := &rampway.Order{ID: rampway.NewID(rampway.PrefixOrder, now), MerchantID: e.mid, Area: rampway.AreaDeposit,
		Status: rampway.StatusOnrampSuccess, Livemode: live, MerchantUserID: "u", MerchantRedirectURL: "https://x.example",
		Network: "devnet", Asset: e.net.Native, CryptoAmount: amount, CryptoReceived: new(big.Int), FunctionArgs: []byte("{}"),
		PaymentValue: new(big.Int), GasLimit: gas, NetworkFee: new(big.Int), ServiceFee: new(big.Int), PayoutAddress: payout,
		FiatSymbol: "EUR", FiatMethod: rampway.MethodSEPABankTransfer, FiatAmount: big.NewInt(500), FiatDecimals: 2,
		ExpiresAt: now.Add(time.Hour), CreatedAt: now, UpdatedAt: now}
	if err := e.store.CreateOrder(e.t.Context(), o); err != nil {
		e.t.Fatal(err)
	}
	return o
}

// An area C transfer is signed with its quoted gas (21,000 for the native coin to an account)
// on Ethereum, and with the node's estimate and 25 % where that is more (a network charging
// its L1 data in gas: l2Client): the node would refuse the quoted 21,000 for ever. Both pay
// the merchant.
func TestExecutorPayoutGasEstimated(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		l1     uint64
		wanted uint64
	}{{"ethereum", 0, 21_000}, {"l2", 15_000, (21_000 + 15_000) * 5 / 4}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newExecEnv(t)
			var client chainwork.ExecClient = e.client
			if c.l1 > 0 {
				client = l2Client{e.client, c.l1}
			}
			x := chainwork.NewExecutor(chainwork.ExecutorConfig{RepriceAfter: 2}, e.store, e.reg, e.net, client, e.hot, slog.New(slog.DiscardHandler), nil)
			payout := newRecipient()
			o := e.payoutOrder(payout, big.NewInt(1e15), 21_000, false)
			e.until(x, func() bool { return e.order(o).Status == rampway.StatusSuccess })
			tx, _, err := e.client.TransactionByHash(t.Context(), common.HexToHash(e.order(o).ExecutionTxHash))
			if err != nil {
				t.Fatal(err)
			}
			if tx.Gas() != c.wanted {
				t.Fatalf("transfer gas limit %d, want %d", tx.Gas(), c.wanted)
			}
			if bal, err := e.client.BalanceAt(t.Context(), payout, nil); err != nil || bal.Cmp(big.NewInt(1e15)) != 0 {
				t.Fatalf("the merchant got %v (%v), want 1e15 wei", bal, err)
			}
		})
	}
}
