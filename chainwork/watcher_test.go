package chainwork_test

import (
	"context"
	"crypto/ecdsa"
	"log/slog"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain/devchain"
	"github.com/rampway/rampway/chain/devchain/devchaintest"
	"github.com/rampway/rampway/chainwork"
	"github.com/rampway/rampway/internal/sqlstore"
	"github.com/rampway/rampway/storetest"
)

type watchEnv struct {
	t      *testing.T
	chain  *devchain.Chain
	client *ethclient.Client
	store  *sqlstore.Store
	payer  *ecdsa.PrivateKey
	net    rampway.Network
	mid    string
	nonce  uint64 // the payer's next nonce: counted here, as the node's pending view can lag
}

func newWatchEnv(t *testing.T) *watchEnv {
	payer, _ := crypto.GenerateKey()
	c := devchaintest.Start(t, devchain.Funding{Address: crypto.PubkeyToAddress(payer.PublicKey), Wei: big.NewInt(1e18), TokenUnits: big.NewInt(1e9)})
	cl, err := ethclient.Dial(c.RPCURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	store := storetest.OpenSQLite(t)
	m := storetest.NewMerchant(t, store)
	net := c.Network("devnet")
	net.Confirmations = 2
	return &watchEnv{t: t, chain: c, client: cl, store: store, payer: payer, net: net, mid: m.ID}
}

// order stores an order for amount of the asset, at a fresh deposit address.
func (e *watchEnv) order(asset rampway.Asset, amount int64) *rampway.Order {
	e.t.Helper()
	key, _ := crypto.GenerateKey()
	now := time.Now().UTC().Truncate(time.Microsecond)
	i, _ := e.store.NextDepositIndex(e.t.Context())
	o := &rampway.Order{ID: rampway.NewID(rampway.PrefixOrder, now), MerchantID: e.mid, Area: rampway.AreaMint, Status: rampway.StatusCreated,
		MerchantUserID: "u", MerchantRedirectURL: "https://x.example", Network: "devnet", Asset: asset,
		CryptoAmount: big.NewInt(amount), CryptoReceived: new(big.Int), PaymentValue: new(big.Int), NetworkFee: new(big.Int), ServiceFee: new(big.Int),
		DepositAddress: crypto.PubkeyToAddress(key.PublicKey), DepositIndex: i, ExpiresAt: now.Add(time.Hour), CreatedAt: now, UpdatedAt: now}
	if err := e.store.CreateOrder(e.t.Context(), o); err != nil {
		e.t.Fatal(err)
	}
	return o
}

// pay sends value (native) or a token transfer from the payer, unmined.
func (e *watchEnv) pay(o *rampway.Order, amount int64) {
	e.t.Helper()
	ctx := context.Background()
	nonce := e.nonce
	e.nonce++
	to, value, data := o.DepositAddress, big.NewInt(amount), []byte(nil)
	if !o.Asset.IsNative() {
		to, value = o.Asset.Contract, nil
		data = append(crypto.Keccak256([]byte("transfer(address,uint256)"))[:4],
			append(common.LeftPadBytes(o.DepositAddress.Bytes(), 32), common.LeftPadBytes(big.NewInt(amount).Bytes(), 32)...)...)
	}
	signed := devchaintest.SignTx(e.t, e.client, e.chain.ChainID(), e.payer, nonce, to, value, data, 100_000)
	if err := e.client.SendTransaction(ctx, signed); err != nil {
		e.t.Fatal(err)
	}
}

func (e *watchEnv) mine() {
	e.t.Helper()
	// The node takes sent transactions into its pending set in the background: wait until it
	// holds every one sent, so that the block surely has them (seen failing under CPU load).
	payer := crypto.PubkeyToAddress(e.payer.PublicKey)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		n, err := e.client.PendingNonceAt(context.Background(), payer)
		if err == nil && n >= e.nonce {
			break
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("the node's pending nonce is %d (%v), %d transactions were sent", n, err, e.nonce)
		}
	}
	if _, err := e.chain.Mine(); err != nil {
		e.t.Fatal(err)
	}
}

func (e *watchEnv) status(o *rampway.Order) (rampway.OrderStatus, string) {
	e.t.Helper()
	got, err := e.store.Order(e.t.Context(), o.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	return got.Status, got.CryptoReceived.String()
}

func (e *watchEnv) want(o *rampway.Order, status rampway.OrderStatus, received string) {
	e.t.Helper()
	if s, r := e.status(o); s != status || r != received {
		e.t.Fatalf("order %s is %s with %s received, want %s with %s", o.ID, s, r, status, received)
	}
}

func TestWatcherCreditsPayments(t *testing.T) {
	t.Parallel()
	e := newWatchEnv(t)
	w := mustWatcher(t, chainwork.WatcherConfig{}, e.store, &e.net, e.client, slog.New(slog.DiscardHandler), nil)
	step := stepper(t, w)
	step() // starts at the head
	eth, dusd := e.net.Native, e.net.Tokens[0]
	full := e.order(eth, 1e16)
	under := e.order(eth, 1e16)
	over := e.order(eth, 1e16)
	token := e.order(dusd, 10_000_000)
	late := e.order(eth, 1e16)
	if _, err := e.store.Apply(t.Context(), late.ID, rampway.Expired{}, time.Now()); err != nil {
		t.Fatal(err)
	}
	other := e.order(eth, 1e16) // receives the token instead of ETH: not a payment of its asset

	e.pay(full, 1e16)
	e.pay(under, 4e15)
	e.pay(over, 3e16)
	e.pay(token, 10_000_000)
	e.pay(late, 1e16)
	otherAsToken := *other
	otherAsToken.Asset = dusd
	e.pay(&otherAsToken, 5)
	e.mine()
	step()
	for _, o := range []*rampway.Order{full, under, over, token} {
		e.want(o, rampway.StatusDepositProcessing, "0")
	}
	e.want(late, rampway.StatusExpired, "0")
	e.want(other, rampway.StatusCreated, "0")

	e.mine() // the payments are now 2 blocks deep
	step()
	e.want(full, rampway.StatusDepositSuccess, "10000000000000000")
	e.want(under, rampway.StatusUnderpaid, "4000000000000000")
	e.want(over, rampway.StatusDepositSuccess, "30000000000000000")
	e.want(token, rampway.StatusDepositSuccess, "10000000")
	e.want(late, rampway.StatusRefundPending, "10000000000000000")
	// What is not needed is owed back to its sender: the excess, and all of a late payment.
	for _, r := range []struct {
		o      *rampway.Order
		amount int64
		reason string
	}{{over, 2e16, "overpaid"}, {late, 1e16, "paid after the order expired"}, {full, 0, ""}} {
		rs, err := e.store.Refunds(t.Context(), r.o.ID)
		switch {
		case err != nil:
			t.Fatal(err)
		case r.amount == 0 && len(rs) != 0:
			t.Fatalf("refunds of a paid order: %+v", rs)
		case r.amount != 0 && (len(rs) != 1 || rs[0].Amount.Int64() != r.amount || !strings.Contains(rs[0].Reason, r.reason) ||
			rs[0].To != crypto.PubkeyToAddress(e.payer.PublicKey)):
			t.Fatalf("refunds of %s: %+v, want %d to the payer for %q", r.o.ID, rs, r.amount, r.reason)
		}
	}

	// A top-up completes the underpaid order.
	e.pay(under, 6e15)
	e.mine()
	step()
	e.want(under, rampway.StatusDepositProcessing, "4000000000000000")
	e.mine()
	step()
	e.want(under, rampway.StatusDepositSuccess, "10000000000000000")

	// A restarted watcher rescanning the same blocks credits nothing twice.
	cur, _, _, _ := e.store.WatchCursor(t.Context(), "devnet")
	back, _ := e.client.HeaderByNumber(t.Context(), big.NewInt(int64(cur-5)))
	if err := e.store.SetWatchCursor(t.Context(), "devnet", cur-5, back.Hash(), time.Now()); err != nil {
		t.Fatal(err)
	}
	w2 := mustWatcher(t, chainwork.WatcherConfig{}, e.store, &e.net, e.client, slog.New(slog.DiscardHandler), nil)
	for range 3 {
		if err := w2.Step(t.Context()); err != nil {
			t.Fatal(err)
		}
		e.mine()
	}
	e.want(full, rampway.StatusDepositSuccess, "10000000000000000")
	e.want(under, rampway.StatusDepositSuccess, "10000000000000000")

	events, _ := e.store.OrderEvents(t.Context(), full.ID)
	var names []rampway.EventName
	for _, ev := range events {
		names = append(names, ev.Name)
	}
	if len(names) != 3 || names[0] != rampway.EventCreated || names[1] != rampway.EventDepositProcessing || names[2] != rampway.EventDepositSuccess {
		t.Fatalf("events %v", names)
	}
}

// A payment whose block is reorganised away, and that the new branch does not have, is
// dropped: the order goes back to CREATED with order.deposit.dropped, and paid again, it
// completes. The new branch surely lacks the payment: the payer's nonce is taken there by
// another transaction (a replacement, as a wallet's "cancel" sends).
func TestWatcherReorg(t *testing.T) {
	t.Parallel()
	e := newWatchEnv(t)
	w := mustWatcher(t, chainwork.WatcherConfig{}, e.store, &e.net, e.client, slog.New(slog.DiscardHandler), nil)
	step := stepper(t, w)
	step()
	o := e.order(e.net.Native, 1e16)
	parent, _ := e.client.HeaderByNumber(t.Context(), nil)
	e.pay(o, 1e16)
	e.mine()
	step()
	e.want(o, rampway.StatusDepositProcessing, "0")

	// A longer side chain from before the payment's block, without the payment.
	e.reorg(parent.Hash(), step)
	events, _ := e.store.OrderEvents(t.Context(), o.ID)
	e.want(o, rampway.StatusCreated, "0")
	if last := events[len(events)-1]; last.Name != rampway.EventDepositDropped || last.From != rampway.StatusDepositProcessing || last.To != rampway.StatusCreated {
		t.Fatalf("the dropped payment's event: %+v", last)
	}
	// Paid again, it completes.
	e.pay(o, 1e16)
	e.mine()
	step()
	e.mine()
	step()
	e.want(o, rampway.StatusDepositSuccess, "10000000000000000")
}

// A top-up whose block is reorganised away: the order, credited for its first payment, goes
// back to UNDERPAID with order.deposit.dropped (not order.deposit.success).
func TestWatcherReorgDropsTopUp(t *testing.T) {
	t.Parallel()
	e := newWatchEnv(t)
	w := mustWatcher(t, chainwork.WatcherConfig{}, e.store, &e.net, e.client, slog.New(slog.DiscardHandler), nil)
	step := stepper(t, w)
	step()
	o := e.order(e.net.Native, 1e16)
	e.pay(o, 4e15)
	e.mine()
	step()
	e.mine()
	step()
	e.want(o, rampway.StatusUnderpaid, "4000000000000000")
	parent, _ := e.client.HeaderByNumber(t.Context(), nil)
	e.pay(o, 6e15) // the top-up
	e.mine()
	step()
	e.want(o, rampway.StatusDepositProcessing, "4000000000000000")
	e.reorg(parent.Hash(), step)
	e.want(o, rampway.StatusUnderpaid, "4000000000000000")
	events, _ := e.store.OrderEvents(t.Context(), o.ID)
	var names []string
	for _, ev := range events {
		names = append(names, string(ev.Name)+":"+string(ev.From)+">"+string(ev.To))
	}
	want := []string{"order.created:>CREATED", "order.deposit.processing:CREATED>DEPOSIT_PROCESSING", "order.deposit.success:DEPOSIT_PROCESSING>UNDERPAID",
		"order.deposit.processing:UNDERPAID>DEPOSIT_PROCESSING", "order.deposit.dropped:DEPOSIT_PROCESSING>UNDERPAID"}
	if !slices.Equal(names, want) {
		t.Fatalf("events %v, want %v", names, want)
	}
}

// reorg replaces the chain from the block after parent with a longer branch (3 blocks)
// that lacks the last payment (replaceLast), and has step see it twice.
func (e *watchEnv) reorg(parent common.Hash, step func()) {
	e.t.Helper()
	if err := e.chain.Fork(parent); err != nil {
		e.t.Fatal(err)
	}
	e.replaceLast()
	for range 3 {
		e.mine()
	}
	step()
	step()
}

// replaceLast takes the nonce of the payer's last transaction with another (a transfer of
// nothing to itself, with ten times the tip): once the node has put the last transaction back
// in its pool after a reorganisation, it is replaced there; the next block has the
// replacement.
func (e *watchEnv) replaceLast() {
	e.t.Helper()
	ctx := context.Background()
	payer := crypto.PubkeyToAddress(e.payer.PublicKey)
	// The node puts a reorganised block's transactions back in its pool in the background.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		n, err := e.client.PendingNonceAt(ctx, payer)
		if err == nil && n == e.nonce {
			break
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("the node's pending nonce is %d (%v) after the reorganisation, want %d", n, err, e.nonce)
		}
	}
	head, err := e.client.HeaderByNumber(ctx, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	tip := big.NewInt(1e10)
	tx, err := types.SignNewTx(e.payer, types.LatestSignerForChainID(e.chain.ChainID()), &types.DynamicFeeTx{ChainID: e.chain.ChainID(),
		Nonce: e.nonce - 1, GasTipCap: tip, GasFeeCap: new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(4)), tip), Gas: 21_000, To: &payer})
	if err != nil {
		e.t.Fatal(err)
	}
	// The pending nonce above is the same before the pool has moved to the new head (the last
	// transaction mined in the old one) as after (the transaction back in the pool): until
	// the pool has moved, the replacement is refused as "nonce too low" (seen under load).
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		err := e.client.SendTransaction(ctx, tx)
		if err == nil {
			return
		}
		if !strings.Contains(err.Error(), "nonce too low") || time.Now().After(deadline) {
			e.t.Fatal(err)
		}
	}
}

// stepper returns a function that runs one step of w, failing the test on an error.
func stepper(t *testing.T, w *chainwork.Watcher) func() {
	return func() {
		t.Helper()
		if err := w.Step(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
}

// mustWatcher is chainwork.NewWatcher, failing tb on an error.
func mustWatcher(tb testing.TB, cfg chainwork.WatcherConfig, store rampway.DepositStore, net *rampway.Network, client chainwork.WatchClient,
	log *slog.Logger, now func() time.Time) *chainwork.Watcher {
	tb.Helper()
	w, err := chainwork.NewWatcher(cfg, store, net, client, log, now)
	if err != nil {
		tb.Fatal(err)
	}
	return w
}

// Begin records where the watcher starts before any order is taken: a payment mined before
// the watcher's first step (its node failing, its process busy) is seen all the same, and a
// watcher that began already keeps its place. Without Begin, a first step begins at the head
// and the payment's block is behind it for ever (found by package sim, seed 10002).
func TestWatcherBeginsBeforeOrders(t *testing.T) {
	t.Parallel()
	e := newWatchEnv(t)
	log := slog.New(slog.DiscardHandler)
	w := mustWatcher(t, chainwork.WatcherConfig{}, e.store, &e.net, e.client, log, nil)
	if err := w.Begin(t.Context()); err != nil {
		t.Fatal(err)
	}
	o := e.order(e.net.Native, 1e16)
	e.pay(o, 1e16)
	for range 4 {
		e.mine()
	}
	// Another instance starting now begins nothing: the cursor is there.
	if err := mustWatcher(t, chainwork.WatcherConfig{}, e.store, &e.net, e.client, log, nil).Begin(t.Context()); err != nil {
		t.Fatal(err)
	}
	step := stepper(t, w)
	for range 3 {
		step()
	}
	e.want(o, rampway.StatusDepositSuccess, "10000000000000000")
}
