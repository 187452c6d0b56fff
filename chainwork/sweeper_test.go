package chainwork_test

import (
	"context"
	"log/slog"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain"
	"github.com/rampway/rampway/chain/devchain"
	"github.com/rampway/rampway/chain/devchain/devchaintest"
	"github.com/rampway/rampway/chain/hd"
	"github.com/rampway/rampway/chainwork"
)

// depositOrder stores an order paying to deposit address index of keys.
func (e *execEnv) depositOrder(keys *hd.Signer, index uint32, asset rampway.Asset, amount *big.Int) *rampway.Order {
	e.t.Helper()
	k, err := keys.Key(index)
	if err != nil {
		e.t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Microsecond)
	o := &rampway.Order{ID: rampway.NewID(rampway.PrefixOrder, now), MerchantID: e.mid, Area: rampway.AreaMint, Status: rampway.StatusCreated,
		MerchantUserID: "u", MerchantRedirectURL: "https://x.example", Network: "devnet", Asset: asset, CryptoAmount: amount,
		CryptoReceived: new(big.Int), FunctionID: e.native.ID, FunctionArgs: []byte(`{}`), PaymentValue: new(big.Int), GasLimit: 100_000,
		NetworkFee: new(big.Int), ServiceFee: new(big.Int), DepositAddress: crypto.PubkeyToAddress(k.PublicKey), DepositIndex: index,
		ExpiresAt: now.Add(time.Hour), CreatedAt: now, UpdatedAt: now}
	if err := e.store.CreateOrder(e.t.Context(), o); err != nil {
		e.t.Fatal(err)
	}
	return o
}

// send pays amount of the asset from the payer to addr, unmined.
func (e *execEnv) send(asset rampway.Asset, to common.Address, amount *big.Int) {
	e.t.Helper()
	target, value, data := to, amount, []byte(nil)
	if !asset.IsNative() {
		target, value = asset.Contract, nil
		data = append(crypto.Keccak256([]byte("transfer(address,uint256)"))[:4],
			append(common.LeftPadBytes(to.Bytes(), 32), common.LeftPadBytes(amount.Bytes(), 32)...)...)
	}
	tx := devchaintest.SignTx(e.t, e.client, e.chain.ChainID(), e.payer, e.payerNonce, target, value, data, 100_000)
	e.payerNonce++
	if err := e.client.SendTransaction(e.t.Context(), tx); err != nil {
		e.t.Fatal(err)
	}
}

func (e *execEnv) tokenBalance(who common.Address) *big.Int {
	e.t.Helper()
	out, err := e.client.CallContract(e.t.Context(), ethereumCall(e.chain.Contracts().Token, who), nil)
	if err != nil {
		e.t.Fatal(err)
	}
	return new(big.Int).SetBytes(out)
}

// Confirmed deposits reach the treasury: native ones less their gas; tokens after the hot
// wallet sends the address gas. Dust is left; nothing is swept twice.
func TestSweeper(t *testing.T) {
	t.Parallel()
	e := newExecEnv(t)
	mnemonic, _ := hd.NewMnemonic()
	keys, _ := hd.FromMnemonic(mnemonic, "")
	eth, _ := e.net.Asset("ETH")
	dusd, _ := e.net.Asset(devchain.TokenSymbol)
	oneEth := big.NewInt(1e18)
	a := e.depositOrder(keys, 3, eth, oneEth)
	b := e.depositOrder(keys, 4, dusd, big.NewInt(25_000_000))
	dust := e.depositOrder(keys, 5, eth, big.NewInt(1000))
	e.send(eth, a.DepositAddress, oneEth)
	e.send(dusd, b.DepositAddress, big.NewInt(25_000_000))
	e.send(eth, dust.DepositAddress, big.NewInt(1000))

	log := slog.New(slog.DiscardHandler)
	w := mustWatcher(t, chainwork.WatcherConfig{}, e.store, e.net, e.client, log, nil)
	if err := w.Step(t.Context()); err != nil { // starts at the head
		t.Fatal(err)
	}
	e.mine()
	if err := w.Step(t.Context()); err != nil {
		t.Fatal(err)
	}
	treasury := newRecipient()
	sw := chainwork.NewSweeper(chainwork.SweeperConfig{Treasury: treasury}, e.store, e.net, e.client, e.hot, keys, log, nil)
	for range 4 {
		if err := sw.Step(t.Context()); err != nil {
			t.Fatal(err)
		}
		e.mine()
	}
	if err := sw.Step(t.Context()); err != nil {
		t.Fatal(err)
	}
	got, err := e.client.BalanceAt(t.Context(), treasury, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Sign() <= 0 || got.Cmp(oneEth) >= 0 || new(big.Int).Sub(oneEth, got).Cmp(big.NewInt(1e15)) > 0 {
		t.Fatalf("treasury got %s wei of the 1 ETH deposit (want it less a little gas)", got)
	}
	if tb := e.tokenBalance(treasury); tb.Int64() != 25_000_000 {
		t.Fatalf("treasury got %s DUSD units, want 25000000", tb)
	}
	if left := e.tokenBalance(b.DepositAddress); left.Sign() != 0 {
		t.Fatalf("%s DUSD left at the deposit address", left)
	}
	for _, c := range []struct {
		o      *rampway.Order
		status rampway.SweepStatus
	}{{a, rampway.SweepDone}, {b, rampway.SweepDone}, {dust, rampway.SweepSkipped}} {
		sweeps, err := e.store.Sweeps(t.Context(), "devnet", c.o.DepositAddress)
		if err != nil || len(sweeps) != 1 || sweeps[0].Status != c.status {
			t.Fatalf("sweeps of %s: %+v, %v; want one %s", c.o.DepositAddress.Hex(), sweeps, err, c.status)
		}
	}
	if pending, _ := e.store.PendingTxs(t.Context(), "devnet"); len(pending) != 0 {
		t.Fatalf("transactions still pending: %+v", pending)
	}
	// A new deposit to a swept address is swept by itself.
	e.send(eth, a.DepositAddress, oneEth)
	e.mine()
	if err := w.Step(t.Context()); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := sw.Step(t.Context()); err != nil {
			t.Fatal(err)
		}
		e.mine()
	}
	if err := sw.Step(t.Context()); err != nil {
		t.Fatal(err)
	}
	if sweeps, _ := e.store.Sweeps(t.Context(), "devnet", a.DepositAddress); len(sweeps) != 2 || sweeps[1].Status != rampway.SweepDone {
		t.Fatalf("sweeps after a second deposit: %+v", sweeps)
	}
	// The order was paid already: the second payment is owed back to its sender.
	e.wantRefund(a, oneEth, "paid after the order was paid in full")
	if rs, _ := e.store.Refunds(t.Context(), a.ID); rs[0].To != crypto.PubkeyToAddress(e.payer.PublicKey) {
		t.Fatalf("refund to %s, not the payer", rs[0].To.Hex())
	}
}

func ethereumCall(token, who common.Address) ethereum.CallMsg {
	return ethereum.CallMsg{To: &token, Data: append(crypto.Keccak256([]byte("balanceOf(address)"))[:4], common.LeftPadBytes(who.Bytes(), 32)...)}
}

// forgetfulNode accepts the first transaction sent and forgets it (a node that drops a
// transaction from its pool): it is never mined unless sent again or replaced.
type forgetfulNode struct {
	*ethclient.Client
	forgot int
}

func (n *forgetfulNode) SendTransaction(ctx context.Context, tx *types.Transaction) error {
	if n.forgot == 0 {
		n.forgot++
		return nil
	}
	return n.Client.SendTransaction(ctx, tx)
}

// A native sweep that the node forgot, below the market by then, is re-priced, its higher fee taken off what it sends
// (it sends the address's whole balance: at the same value the replacement would cost more
// than the address holds, and the node would refuse it for ever), and the sweep records what
// was sent. Found by the simulation (package sim, seed 1071).
func TestNativeSweepRepriced(t *testing.T) {
	t.Parallel()
	e := newExecEnv(t)
	mnemonic, _ := hd.NewMnemonic()
	keys, _ := hd.FromMnemonic(mnemonic, "")
	eth, _ := e.net.Asset("ETH")
	oneEth := big.NewInt(1e18)
	a := e.depositOrder(keys, 3, eth, oneEth)
	e.send(eth, a.DepositAddress, oneEth)
	log := slog.New(slog.DiscardHandler)
	w := mustWatcher(t, chainwork.WatcherConfig{}, e.store, e.net, e.client, log, nil)
	if err := w.Step(t.Context()); err != nil {
		t.Fatal(err)
	}
	e.mine()
	if err := w.Step(t.Context()); err != nil {
		t.Fatal(err)
	}
	treasury := newRecipient()
	node := &spikyNode{Client: e.client, forget: treasury}
	sw := chainwork.NewSweeper(chainwork.SweeperConfig{Treasury: treasury, RepriceAfter: 2}, e.store, e.net, node, e.hot, keys, log, nil)
	var first *big.Int
	for i := range 8 {
		if err := sw.Step(t.Context()); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			sweeps, _ := e.store.Sweeps(t.Context(), "devnet", a.DepositAddress)
			if len(sweeps) != 1 {
				t.Fatalf("sweeps after a step: %+v", sweeps)
			}
			first = sweeps[0].Amount
			node.x = 3 // the tip rises threefold: the forgotten sweep is below the market
		}
		e.mine()
	}
	if node.forgot != 1 {
		t.Fatal("the node forgot no transaction")
	}
	sweeps, err := e.store.Sweeps(t.Context(), "devnet", a.DepositAddress)
	if err != nil || len(sweeps) != 1 || sweeps[0].Status != rampway.SweepDone {
		t.Fatalf("sweeps: %+v, %v; want one done", sweeps, err)
	}
	if sweeps[0].Amount.Cmp(first) >= 0 {
		t.Fatalf("the sweep sent %s, its first transfer %s: want the replacement's higher fee taken off", sweeps[0].Amount, first)
	}
	got, err := e.client.BalanceAt(t.Context(), treasury, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Sign() <= 0 || got.Cmp(sweeps[0].Amount) != 0 {
		t.Fatalf("treasury got %s wei, the sweep records %s", got, sweeps[0].Amount)
	}
	if pending, _ := e.store.PendingTxs(t.Context(), "devnet"); len(pending) != 0 {
		t.Fatalf("transactions still pending: %+v", pending)
	}
}

// A second deposit to an address whose sweep is still in flight waits for that sweep: priced
// on the balance that still holds what the first sends, its transfer could never be mined.
// Found by the simulation (package sim, seed 1160: an order paid short, then the rest; an
// underpaid order's address is no longer swept before the rest comes, so here the second
// payment is one more after the full one).
func TestNoSecondSweepWhileOneIsInFlight(t *testing.T) {
	t.Parallel()
	e := newExecEnv(t)
	mnemonic, _ := hd.NewMnemonic()
	keys, _ := hd.FromMnemonic(mnemonic, "")
	eth, _ := e.net.Asset("ETH")
	half := big.NewInt(5e17)
	a := e.depositOrder(keys, 3, eth, new(big.Int).Mul(half, big.NewInt(2)))
	log := slog.New(slog.DiscardHandler)
	w := mustWatcher(t, chainwork.WatcherConfig{}, e.store, e.net, e.client, log, nil)
	if err := w.Step(t.Context()); err != nil {
		t.Fatal(err)
	}
	e.send(eth, a.DepositAddress, new(big.Int).Mul(half, big.NewInt(2))) // paid in full
	e.mine()
	if err := w.Step(t.Context()); err != nil {
		t.Fatal(err)
	}
	treasury := newRecipient()
	// The node forgets the first sweep's transfer: it is re-priced a few blocks later.
	node := &forgetfulNode{Client: e.client}
	sw := chainwork.NewSweeper(chainwork.SweeperConfig{Treasury: treasury}, e.store, e.net, node, e.hot, keys, log, nil)
	if err := sw.Step(t.Context()); err != nil { // the first sweep: sent, not mined
		t.Fatal(err)
	}
	e.send(eth, a.DepositAddress, half) // more (a second payment), mined while the first sweep waits
	e.mine()
	if err := w.Step(t.Context()); err != nil {
		t.Fatal(err)
	}
	for range 10 {
		if err := sw.Step(t.Context()); err != nil {
			t.Fatal(err)
		}
		e.mine()
		if err := w.Step(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	sweeps, err := e.store.Sweeps(t.Context(), "devnet", a.DepositAddress)
	if err != nil || len(sweeps) != 2 || sweeps[0].Status != rampway.SweepDone || sweeps[1].Status != rampway.SweepDone {
		for _, x := range sweeps {
			t.Logf("sweep %s: %s", x.Amount, x.Status)
		}
		t.Fatalf("sweeps: %v; want two done", err)
	}
	if pending, _ := e.store.PendingTxs(t.Context(), "devnet"); len(pending) != 0 {
		t.Fatalf("%d transactions still pending", len(pending))
	}
	got, _ := e.client.BalanceAt(t.Context(), treasury, nil)
	if want := new(big.Int).Add(sweeps[0].Amount, sweeps[1].Amount); got.Cmp(want) != 0 {
		t.Fatalf("treasury got %s wei, the sweeps record %s", got, want)
	}
}

// tokenDeposit is an order of 25 DUSD at deposit index 4, paid and confirmed, for a sweeper.
type tokenDeposit struct {
	e     *execEnv
	keys  *hd.Signer
	dusd  rampway.Asset
	order *rampway.Order
	log   *slog.Logger
}

func newTokenDeposit(t *testing.T) *tokenDeposit {
	e := newExecEnv(t)
	mnemonic, _ := hd.NewMnemonic()
	keys, _ := hd.FromMnemonic(mnemonic, "")
	dusd, _ := e.net.Asset(devchain.TokenSymbol)
	d := &tokenDeposit{e: e, keys: keys, dusd: dusd, order: e.depositOrder(keys, 4, dusd, big.NewInt(25_000_000)), log: slog.New(slog.DiscardHandler)}
	e.send(dusd, d.order.DepositAddress, big.NewInt(25_000_000))
	w := mustWatcher(t, chainwork.WatcherConfig{}, e.store, e.net, e.client, d.log, nil)
	if err := w.Step(t.Context()); err != nil {
		t.Fatal(err)
	}
	e.mine()
	if err := w.Step(t.Context()); err != nil {
		t.Fatal(err)
	}
	return d
}

// status is the status of the order's one sweep; "" before it starts.
func (d *tokenDeposit) status(t *testing.T) rampway.SweepStatus {
	sweeps, err := d.e.store.Sweeps(t.Context(), "devnet", d.order.DepositAddress)
	if err != nil || len(sweeps) > 1 {
		t.Fatalf("sweeps: %+v, %v", sweeps, err)
	}
	if len(sweeps) == 0 {
		return ""
	}
	return sweeps[0].Status
}

// A token sweep whose gas arrived but whose fees more than doubled before its transfer gets
// more gas from the hot wallet and is then swept: it neither waits for ever for fees to fall
// nor sends a transfer priced below the market. Found by the simulation (package sim, seed
// 100014: a fee spike between the gas and the transfer, the sweep left funded to the end).
func TestTokenSweepRefuelledWhenFeesRise(t *testing.T) {
	t.Parallel()
	d := newTokenDeposit(t)
	e, keys, log := d.e, d.keys, d.log
	treasury := newRecipient()
	node := &spikyNode{Client: e.client}
	sw := chainwork.NewSweeper(chainwork.SweeperConfig{Treasury: treasury}, e.store, e.net, node, e.hot, keys, log, nil)
	status := func() rampway.SweepStatus { return d.status(t) }
	hotNonce := func() uint64 {
		n, err := e.client.NonceAt(t.Context(), e.hot.Address(), nil)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := hotNonce()
	if err := sw.Step(t.Context()); err != nil {
		t.Fatal(err)
	}
	if s := status(); s != rampway.SweepFunding {
		t.Fatalf("sweep %s after a step, want funding", s)
	}
	node.x = 10_000 // a tip of 10 gwei where it was 0.001: the gas on its way covered twice the fees of its day
	for i := 0; status() != rampway.SweepDone; i++ {
		if i == 10 {
			t.Fatalf("sweep %s after 10 steps, want done", status())
		}
		e.mine()
		if err := sw.Step(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	if sent := hotNonce() - before; sent != 2 {
		t.Fatalf("the hot wallet sent %d transactions, want 2 (the gas, then more when the fees rose)", sent)
	}
	if tb := e.tokenBalance(treasury); tb.Int64() != 25_000_000 {
		t.Fatalf("treasury got %s DUSD units, want 25000000", tb)
	}
	if pending, _ := e.store.PendingTxs(t.Context(), "devnet"); len(pending) != 0 {
		t.Fatalf("transactions still pending: %+v", pending)
	}
}

// spikyNode forgets the first transaction sent to forget (a node dropping it from its pool)
// and suggests tips times x once x is set (a fee spike).
type spikyNode struct {
	*ethclient.Client
	forget common.Address
	forgot int
	x      int64
}

func (n *spikyNode) SendTransaction(ctx context.Context, tx *types.Transaction) error {
	if n.forgot == 0 && tx.To() != nil && *tx.To() == n.forget {
		n.forgot++
		return nil
	}
	return n.Client.SendTransaction(ctx, tx)
}

func (n *spikyNode) SuggestGasTipCap(ctx context.Context) (*big.Int, error) {
	tip, err := n.Client.SuggestGasTipCap(ctx)
	if err != nil || n.x == 0 {
		return tip, err
	}
	return tip.Mul(tip, big.NewInt(n.x)), nil
}

// A token sweep's transfer that the node forgot, re-priced during a fee spike its address
// cannot pay for, is still mined: the replacement is priced at what the address can pay (a
// refused replacement would be sent again at every step, never re-priced, the forgotten
// transfer never sent again: the sweep's nonce pending for ever).
func TestTokenSweepRepricedWithinItsGas(t *testing.T) {
	t.Parallel()
	d := newTokenDeposit(t)
	e, keys, dusd, log := d.e, d.keys, d.dusd, d.log
	treasury := newRecipient()
	node := &spikyNode{Client: e.client, forget: dusd.Contract}
	sw := chainwork.NewSweeper(chainwork.SweeperConfig{Treasury: treasury, RepriceAfter: 2}, e.store, e.net, node, e.hot, keys, log, nil)
	status := func() rampway.SweepStatus { return d.status(t) }
	for i := 0; status() != rampway.SweepSent; i++ {
		if i == 10 {
			t.Fatalf("sweep %s after 10 steps, want sent", status())
		}
		if err := sw.Step(t.Context()); err != nil {
			t.Fatal(err)
		}
		e.mine()
	}
	if node.forgot != 1 {
		t.Fatal("the node forgot no transfer")
	}
	node.x = 10_000 // a tip of 10 gwei where it was 0.001, above what the address holds gas for
	for i := 0; status() != rampway.SweepDone; i++ {
		if i == 6 {
			node.x = 0 // the spike passes
		}
		if i == 16 {
			t.Fatalf("sweep %s after 16 steps, want done", status())
		}
		if err := sw.Step(t.Context()); err != nil {
			t.Logf("step: %v", err)
		}
		e.mine()
	}
	if tb := e.tokenBalance(treasury); tb.Int64() != 25_000_000 {
		t.Fatalf("treasury got %s DUSD units, want 25000000", tb)
	}
}

// A sweep that fails at every step holds up no other: here a "token" whose balanceOf answers
// nothing (a transfer recorded of a contract that is no token) at an address that comes first
// among the candidates, and another address's DUSD is swept all the same.
func TestSweepFailingHoldsUpNoOther(t *testing.T) {
	t.Parallel()
	d := newTokenDeposit(t)
	e, keys, dusd, b, log := d.e, d.keys, d.dusd, d.order, d.log
	var c *rampway.Order // an address the store lists before b's
	for i := uint32(5); c == nil || c.DepositAddress.Hex() > b.DepositAddress.Hex(); i++ {
		k, _ := keys.Key(i)
		if crypto.PubkeyToAddress(k.PublicKey).Hex() < b.DepositAddress.Hex() {
			c = e.depositOrder(keys, i, dusd, big.NewInt(1)) // paid in full by the odd transfer: not UNDERPAID, swept
		}
	}
	odd := &rampway.InboundTransfer{Network: "devnet", TxHash: common.HexToHash("0x0dd"), OrderID: c.ID, Token: common.HexToAddress("0x01"),
		To: c.DepositAddress, Amount: big.NewInt(1), BlockNumber: 1, BlockHash: common.HexToHash("0x0b")}
	if _, err := e.store.RecordTransfer(t.Context(), odd, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := e.store.ConfirmTransfer(t.Context(), "devnet", odd.TxHash, odd.LogIndex, time.Now()); err != nil {
		t.Fatal(err)
	}
	if cands, _ := e.store.SweepCandidates(t.Context(), "devnet", 10); len(cands) != 2 || cands[0].Token != odd.Token {
		t.Fatalf("candidates %+v, want the odd token's first", cands)
	}
	treasury := newRecipient()
	sw := chainwork.NewSweeper(chainwork.SweeperConfig{Treasury: treasury}, e.store, e.net, e.client, e.hot, keys, log, nil)
	for range 5 {
		if err := sw.Step(t.Context()); err == nil || !strings.Contains(err.Error(), "balanceOf answered 0 bytes") {
			t.Fatalf("step: %v, want the odd token's failure", err)
		}
		e.mine()
	}
	if tb := e.tokenBalance(treasury); tb.Int64() != 25_000_000 {
		t.Fatalf("treasury got %s DUSD units, want 25000000", tb)
	}
}

// A token sweep whose gas the hot wallet cannot pay waits, without an error and without
// sending anything, until the wallet is funded; then it is swept. The gas used to be signed
// and stored whatever the wallet held: the node refused it ("insufficient funds"), and every
// later transaction of the hot wallet (executions, refunds) queued behind its nonce.
func TestTokenSweepWaitsForTheHotWallet(t *testing.T) {
	t.Parallel()
	d := newTokenDeposit(t)
	e, keys, log := d.e, d.keys, d.log
	key, _ := crypto.GenerateKey()
	hot := chain.NewKeySigner(key)
	e.send(e.net.Native, hot.Address(), big.NewInt(1e9)) // far below the gas of a token transfer
	e.mineSent()
	treasury := newRecipient()
	sw := chainwork.NewSweeper(chainwork.SweeperConfig{Treasury: treasury}, e.store, e.net, e.client, hot, keys, log, nil)
	for i := range 3 {
		if err := sw.Step(t.Context()); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if s := d.status(t); s != "" {
			t.Fatalf("sweep %s with the hot wallet empty, want none started", s)
		}
		e.mine()
	}
	if n, err := e.client.PendingNonceAt(t.Context(), hot.Address()); err != nil || n != 0 {
		t.Fatalf("the hot wallet sent %d transactions (%v), want none", n, err)
	}
	// The shortfall is the sweeper's to report (a /readyz warning, a metric).
	if sf := sw.Shortfall(); sf == nil || sf.Wallet != hot.Address() || sf.For != "the gas of a token sweep" || sf.Asset.Symbol != e.net.Native.Symbol ||
		sf.Have.Cmp(big.NewInt(1e9)) != 0 || sf.Need.Cmp(sf.Have) <= 0 {
		t.Fatalf("shortfall %+v", sf)
	}
	e.send(e.net.Native, hot.Address(), big.NewInt(1e17))
	e.mineSent()
	for i := 0; d.status(t) != rampway.SweepDone; i++ {
		if i == 10 {
			t.Fatalf("sweep %s after 10 steps, want done", d.status(t))
		}
		if err := sw.Step(t.Context()); err != nil {
			t.Fatal(err)
		}
		e.mine()
	}
	if tb := e.tokenBalance(treasury); tb.Int64() != 25_000_000 {
		t.Fatalf("treasury got %s DUSD units, want 25000000", tb)
	}
	if sf := sw.Shortfall(); sf != nil {
		t.Fatalf("shortfall %+v after the wallet was funded", sf)
	}
}

// The hot wallet's transfer of gas to a deposit address and the address's token transfer have
// the node's estimates as their gas: on a network whose transactions cost 100,000 gas more than
// Ethereum's (l2Client), 25 % above the estimates (the token's transfer above its 100,000
// floor); the sweep is done.
func TestTokenSweepGasEstimated(t *testing.T) {
	t.Parallel()
	d := newTokenDeposit(t)
	e := d.e
	treasury := newRecipient()
	const l1 = 100_000
	est, err := e.client.EstimateGas(t.Context(), ethereum.CallMsg{From: d.order.DepositAddress, To: &d.dusd.Contract,
		Data: rampway.ERC20Call(rampway.SelTransfer, treasury, big.NewInt(25_000_000))})
	if err != nil {
		t.Fatal(err)
	}
	sw := chainwork.NewSweeper(chainwork.SweeperConfig{Treasury: treasury}, e.store, e.net, l2Client{e.client, l1}, e.hot, d.keys, d.log, nil)
	var topUp, transfer *types.Transaction
	for range 6 {
		if err := sw.Step(t.Context()); err != nil {
			t.Fatal(err)
		}
		pending, err := e.store.PendingTxs(t.Context(), "devnet")
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pending {
			tx := new(types.Transaction)
			if err := tx.UnmarshalBinary(p.Raw); err != nil {
				t.Fatal(err)
			}
			switch p.Kind {
			case rampway.TxGas:
				topUp = tx
			case rampway.TxSweep:
				transfer = tx
			}
		}
		e.mine()
	}
	if want := uint64(21_000+l1) * 5 / 4; topUp == nil || topUp.Gas() != want {
		t.Fatalf("gas top-up %v, want one of gas limit %d", topUp, want)
	}
	want := (est + l1) * 5 / 4
	if transfer == nil || transfer.Gas() != want {
		t.Fatalf("token transfer %v, want one of gas limit %d", transfer, want)
	}
	if tb := e.tokenBalance(treasury); tb.Int64() != 25_000_000 {
		t.Fatalf("treasury got %s DUSD units, want 25000000", tb)
	}
}
