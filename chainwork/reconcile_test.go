package chainwork_test

import (
	"encoding/json"
	"log/slog"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/shopspring/decimal"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain/devchain"
	"github.com/rampway/rampway/chain/devchain/devchaintest"
	"github.com/rampway/rampway/chain/hd"
	"github.com/rampway/rampway/chainwork"
	"github.com/rampway/rampway/pricing"
)

// ledgerOrder stores an order of f minting quantity to a new recipient, paying to deposit
// address index of keys: the price, 1000 base units of fees, and extra.
func (e *execEnv) ledgerOrder(keys *hd.Signer, index uint32, f *rampway.ContractFunction, extra int64) *rampway.Order {
	e.t.Helper()
	k, err := keys.Key(index)
	if err != nil {
		e.t.Fatal(err)
	}
	asset, _ := e.net.Asset(f.PayableSymbol)
	value := big.NewInt(devchain.NFTPriceWei)
	if !asset.IsNative() {
		value = big.NewInt(devchain.NFTTokenPrice)
	}
	args, _ := json.Marshal(map[string]any{"to": newRecipient().Hex(), "quantity": 1})
	now := time.Now().UTC().Truncate(time.Microsecond)
	o := &rampway.Order{ID: rampway.NewID(rampway.PrefixOrder, now), MerchantID: e.mid, Area: rampway.AreaMint, Status: rampway.StatusCreated,
		MerchantUserID: "u", MerchantRedirectURL: "https://x.example", Network: "devnet", Asset: asset,
		CryptoAmount: new(big.Int).Add(value, big.NewInt(1000)), CryptoReceived: new(big.Int), FunctionID: f.ID, FunctionArgs: args, PaymentValue: value,
		GasLimit: f.DefaultGasLimit, NetworkFee: big.NewInt(1000), ServiceFee: new(big.Int), DepositAddress: crypto.PubkeyToAddress(k.PublicKey),
		DepositIndex: index, ExpiresAt: now.Add(time.Hour), CreatedAt: now, UpdatedAt: now}
	if err := e.store.CreateOrder(e.t.Context(), o); err != nil {
		e.t.Fatal(err)
	}
	return o
}

// ledgerWorld is every chain worker of a network and its reconciler.
type ledgerWorld struct {
	e   *execEnv
	w   *chainwork.Watcher
	x   *chainwork.Executor
	sw  *chainwork.Sweeper
	rc  *chainwork.Reconciler
	all []*rampway.Reconciliation
}

func newLedgerWorld(e *execEnv, keys *hd.Signer) *ledgerWorld {
	log := slog.New(slog.DiscardHandler)
	return &ledgerWorld{e: e,
		w: mustWatcher(e.t, chainwork.WatcherConfig{}, e.store, e.net, e.client, log, nil),
		x: chainwork.NewExecutor(chainwork.ExecutorConfig{RepriceAfter: 2,
			Prices: pricing.Static{"ETH": decimal.NewFromInt(3000), "DUSD": decimal.NewFromInt(1)}}, e.store, e.reg, e.net, e.client, e.hot, log, nil),
		sw: chainwork.NewSweeper(chainwork.SweeperConfig{Treasury: newRecipient()}, e.store, e.net, e.client, e.hot, keys, log, nil),
		rc: chainwork.NewReconciler(chainwork.ReconcilerConfig{HotWallets: []common.Address{e.hot.Address()}}, e.store, e.net, e.client, log, nil),
	}
}

// reconcile reconciles at the safe block and fails on any drift.
func (l *ledgerWorld) reconcile() *rampway.Reconciliation {
	l.e.t.Helper()
	ctx := l.e.t.Context()
	block, ok, err := l.rc.SafeBlock(ctx)
	if err != nil || !ok {
		l.e.t.Fatalf("safe block: %v %v", ok, err)
	}
	rec, err := l.rc.Reconcile(ctx, block)
	if err != nil {
		l.e.t.Fatal(err)
	}
	if d := rec.Drifts(); len(d) > 0 {
		l.e.t.Fatalf("drift at block %d after a normal flow: %+v", block, d)
	}
	l.all = append(l.all, rec)
	return rec
}

// round steps each worker (the sweeper only when sweep), mines, and reconciles.
func (l *ledgerWorld) round(sweep bool) {
	l.e.t.Helper()
	ctx := l.e.t.Context()
	if err := l.w.Step(ctx); err != nil {
		l.e.t.Fatal(err)
	}
	l.e.step(l.x)
	if sweep {
		if err := l.sw.Step(ctx); err != nil {
			l.e.t.Fatal(err)
		}
	}
	l.e.mine()
	l.reconcile()
}

// checked reports whether a round compared account's asset.
func (l *ledgerWorld) checked(account, asset string) bool {
	for _, r := range l.all {
		for _, c := range r.Checked {
			if c.Account == account && c.Asset == asset {
				return true
			}
		}
	}
	return false
}

// Normal flows leave no drift at any block: mints paid exact and over in ETH, a mint paid in
// DUSD (approve and call), the overpayment's refund, sweeps of ETH and of DUSD (with the hot
// wallet's gas top-up, whose leftover stays recorded). Then a transfer out of a deposit address
// made with its key, behind rampway's back, is found: a drift of exactly what left it, its fee
// included.
func TestLedgerReconciles(t *testing.T) {
	t.Parallel()
	e := newExecEnv(t)
	ctx := t.Context()
	mnemonic, _ := hd.NewMnemonic()
	keys, _ := hd.FromMnemonic(mnemonic, "")
	l := newLedgerWorld(e, keys)
	if err := l.w.Step(ctx); err != nil { // the watcher starts at the head
		t.Fatal(err)
	}
	l.reconcile() // opens the hot wallet's ledger at its balance
	eth, _ := e.net.Asset("ETH")
	dusd, _ := e.net.Asset(devchain.TokenSymbol)
	exact := e.ledgerOrder(keys, 1, e.native, 0)
	over := e.ledgerOrder(keys, 2, e.native, 1e15)
	token := e.ledgerOrder(keys, 3, e.token, 0)
	e.send(eth, exact.DepositAddress, exact.CryptoAmount)
	e.send(eth, over.DepositAddress, new(big.Int).Add(over.CryptoAmount, big.NewInt(1e15)))
	e.send(dusd, token.DepositAddress, token.CryptoAmount)
	e.mine()
	done := func() bool {
		for _, o := range []*rampway.Order{exact, over, token} {
			if e.order(o).Status != rampway.StatusSuccess {
				return false
			}
			sweeps, _ := e.store.Sweeps(ctx, "devnet", o.DepositAddress)
			if len(sweeps) == 0 || sweeps[len(sweeps)-1].Status != rampway.SweepDone {
				return false
			}
		}
		rs := e.refunds(over)
		return len(rs) == 1 && rs[0].Status == rampway.RefundDone
	}
	for i := 0; !done(); i++ {
		if i == 15 {
			t.Fatal("the flows did not finish in 15 rounds")
		}
		l.round(true)
	}
	t.Logf("rounds: %d, checked in last: %d", len(l.all), len(l.all[len(l.all)-1].Checked))
	for range 2 { // everything settled and compared
		l.round(true)
	}
	hot := rampway.HotAccount("devnet", e.hot.Address())
	for _, c := range []struct{ account, asset string }{
		{hot, rampway.NativeAsset("devnet")}, {hot, rampway.TokenAsset("devnet", dusd.Contract)},
		{rampway.DepositAccount("devnet", exact.DepositAddress), rampway.NativeAsset("devnet")},
		{rampway.DepositAccount("devnet", over.DepositAddress), rampway.NativeAsset("devnet")},
		{rampway.DepositAccount("devnet", token.DepositAddress), rampway.NativeAsset("devnet")},
		{rampway.DepositAccount("devnet", token.DepositAddress), rampway.TokenAsset("devnet", dusd.Contract)},
	} {
		if !l.checked(c.account, c.asset) {
			t.Errorf("%s %s was never compared", c.account, c.asset)
		}
	}
	// The token sweep's gas top-up left some ETH at its deposit address: the ledger has it to
	// the wei (the last rounds compared it with the chain).
	tr, err := e.store.LedgerTransfers(ctx, rampway.DepositAccount("devnet", token.DepositAddress))
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, x := range tr {
		kinds[x.Kind] = true
	}
	if !kinds["deposit"] || !kinds["gas"] || !kinds["fee"] || !kinds["sweep"] {
		t.Fatalf("transfers of the token deposit address: %+v", tr)
	}
	if d, _ := e.store.LedgerDrifts(ctx, ""); len(d) != 0 {
		t.Fatalf("drifts stored after normal flows: %+v", d)
	}

	// Behind rampway's back: a payment is credited, then its deposit address's key sends some
	// of it away.
	stolen := e.ledgerOrder(keys, 4, e.native, 0)
	e.send(eth, stolen.DepositAddress, stolen.CryptoAmount)
	e.mine()
	if err := l.w.Step(ctx); err != nil {
		t.Fatal(err)
	}
	l.reconcile()
	if e.order(stolen).Status != rampway.StatusDepositSuccess {
		t.Fatalf("order %s is %s, want DEPOSIT_SUCCESS", stolen.ID, e.order(stolen).Status)
	}
	key, _ := keys.Key(4)
	amount := big.NewInt(devchain.NFTPriceWei / 2)
	tx := devchaintest.SignTx(t, e.client, e.chain.ChainID(), key, 0, newRecipient(), amount, nil, 21_000)
	if err := e.client.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	e.mine()
	rec, err := e.client.TransactionReceipt(ctx, tx.Hash())
	if err != nil {
		t.Fatal(err)
	}
	if err := l.w.Step(ctx); err != nil {
		t.Fatal(err)
	}
	if err := l.rc.Step(ctx); err != nil {
		t.Fatal(err)
	}
	drifts, err := e.store.LedgerDrifts(ctx, "devnet")
	if err != nil {
		t.Fatal(err)
	}
	gone := new(big.Int).Add(amount, new(big.Int).Mul(rec.EffectiveGasPrice, new(big.Int).SetUint64(rec.GasUsed)))
	account := rampway.DepositAccount("devnet", stolen.DepositAddress)
	if len(drifts) != 1 || drifts[0].Account != account || drifts[0].Asset != rampway.NativeAsset("devnet") ||
		drifts[0].Ledger.Cmp(stolen.CryptoAmount) != 0 || new(big.Int).Neg(drifts[0].Diff()).Cmp(gone) != 0 {
		t.Fatalf("drifts %+v; want %s short by %s wei", drifts, account, gone)
	}
	// It stands, round after round, until the ledger and the chain agree again.
	e.mine()
	if err := l.w.Step(ctx); err != nil {
		t.Fatal(err)
	}
	if err := l.rc.Step(ctx); err != nil {
		t.Fatal(err)
	}
	if d, _ := e.store.LedgerDrifts(ctx, "devnet"); len(d) != 1 || !d[0].LastSeen.After(d[0].FirstSeen) && !d[0].LastSeen.Equal(d[0].FirstSeen) {
		t.Fatalf("drift after another round: %+v", d)
	}
}
