package chainwork_test

import (
	"context"
	"crypto/ecdsa"
	"log/slog"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain/devchain/bindings"
	"github.com/rampway/rampway/chain/devchain/devchaintest"
	"github.com/rampway/rampway/chainwork"
)

var internalModes = []chainwork.InternalMode{chainwork.InternalTrace, chainwork.InternalBalance}

// internalWatcher is a watcher of e's chain that also sees internal transfers by mode: tracing
// through the chain's in-process client (its HTTP endpoint does not serve the debug
// namespace), balances through Multicall3 over HTTP, as a node without tracing is reached.
func (e *watchEnv) internalWatcher(mode chainwork.InternalMode) *chainwork.Watcher {
	e.t.Helper()
	var node chainwork.RPCCaller = e.client.Client()
	if mode == chainwork.InternalTrace {
		node = e.chain.RPC()
	}
	w := mustWatcher(e.t, chainwork.WatcherConfig{Internal: chainwork.InternalTransfers{Mode: mode, Node: node, Multicall3: e.chain.Contracts().Multicall}},
		e.store, &e.net, e.client, slog.New(slog.DiscardHandler), nil)
	if err := w.CheckInternalTransfers(e.t.Context()); err != nil {
		e.t.Fatal(err)
	}
	return w
}

// send sends a transaction from the payer, unmined, and returns its hash.
func (e *watchEnv) send(to common.Address, value *big.Int, data []byte, gas uint64) common.Hash {
	e.t.Helper()
	nonce := e.nonce
	e.nonce++
	signed := devchaintest.SignTx(e.t, e.client, e.chain.ChainID(), e.payer, nonce, to, value, data, gas)
	if err := e.client.SendTransaction(context.Background(), signed); err != nil {
		e.t.Fatal(err)
	}
	return signed.Hash()
}

// forward pays amount wei to the deposit address through Multicall3's aggregate3Value, as a
// contract wallet or a batch payout does: the transaction goes to the contract, which sends
// the value on in an internal call.
func (e *watchEnv) forward(to common.Address, amount int64) common.Hash {
	e.t.Helper()
	data := bindings.NewMulticall3().PackAggregate3Value([]bindings.Multicall3Call3Value{{Target: to, Value: big.NewInt(amount)}})
	return e.send(e.chain.Contracts().Multicall, big.NewInt(amount), data, 200_000)
}

// receipt waits for a mined transaction's receipt.
func (e *watchEnv) receipt(hash common.Hash) *types.Receipt {
	e.t.Helper()
	r, err := e.client.TransactionReceipt(e.t.Context(), hash)
	if err != nil {
		e.t.Fatalf("receipt of %s: %v", hash.Hex(), err)
	}
	return r
}

// transfers returns an order's recorded transfers.
func (e *watchEnv) transfers(o *rampway.Order) []*rampway.InboundTransfer {
	e.t.Helper()
	ts, err := e.store.OrderTransfers(e.t.Context(), o.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	return ts
}

// A native payment forwarded by a contract (Multicall3 aggregate3Value) is seen, confirmed and
// credited exactly as a top-level transfer, in both modes; a top-level transfer is credited
// once (not a second time by the trace or the balance check); a forward that was reverted,
// in a reverted transaction or inside a reverted call of a transaction that succeeded,
// credits nothing; a token paid through a contract is its Transfer log, seen as before; a
// rescan credits nothing twice.
func TestWatcherInternalTransfers(t *testing.T) {
	t.Parallel()
	for _, mode := range internalModes {
		t.Run(string(mode), func(t *testing.T) {
			t.Parallel()
			e := newWatchEnv(t)
			w := e.internalWatcher(mode)
			step := stepper(t, w)
			step() // starts at the head
			eth, dusd := e.net.Native, e.net.Tokens[0]
			mc := e.chain.Contracts().Multicall
			forwarded := e.order(eth, 1e16)
			topLevel := e.order(eth, 1e16)
			reverted := e.order(eth, 1e16)
			token := e.order(dusd, 10_000_000)

			// The token through a contract: Multicall3 holds tokens and transfers them on.
			m3 := bindings.NewMulticall3()
			e.send(dusd.Contract, nil, transferData(mc, 10_000_000), 100_000)
			e.mine()
			step()

			fwdTx := e.forward(forwarded.DepositAddress, 1e16)
			e.pay(topLevel, 1e16)
			// Reverted: the whole transaction (its second call fails and allowFailure is
			// false), and a forward inside a call that reverts in a transaction that succeeds
			// (the outer call allows the failure).
			fail := bindings.Multicall3Call3Value{Target: dusd.Contract, Value: new(big.Int), CallData: []byte{0xde, 0xad, 0xbe, 0xef}}
			inner := m3.PackAggregate3Value([]bindings.Multicall3Call3Value{{Target: reverted.DepositAddress, Value: big.NewInt(1e16)}, fail})
			revertedTx := e.send(mc, big.NewInt(1e16), inner, 300_000)
			outer := m3.PackAggregate3Value([]bindings.Multicall3Call3Value{{Target: mc, AllowFailure: true, Value: big.NewInt(1e16), CallData: inner}})
			survivedTx := e.send(mc, big.NewInt(1e16), outer, 300_000)
			tokenTx := e.send(mc, nil, m3.PackAggregate3([]bindings.Multicall3Call3{{Target: dusd.Contract, CallData: transferData(token.DepositAddress, 10_000_000)}}), 200_000)
			e.mine()
			if r := e.receipt(revertedTx); r.Status != types.ReceiptStatusFailed {
				t.Fatal("the reverted forward succeeded")
			}
			for _, h := range []common.Hash{fwdTx, survivedTx, tokenTx} {
				if r := e.receipt(h); r.Status != types.ReceiptStatusSuccessful {
					t.Fatalf("transaction %s failed", h.Hex())
				}
			}
			step()
			for _, o := range []*rampway.Order{forwarded, topLevel, token} {
				e.want(o, rampway.StatusDepositProcessing, "0")
			}
			e.want(reverted, rampway.StatusCreated, "0")
			e.mine()
			step()
			e.want(forwarded, rampway.StatusDepositSuccess, "10000000000000000")
			e.want(topLevel, rampway.StatusDepositSuccess, "10000000000000000")
			e.want(token, rampway.StatusDepositSuccess, "10000000")
			e.want(reverted, rampway.StatusCreated, "0")

			// What was recorded: one transfer each, the forward as its mode records it.
			ts := e.transfers(forwarded)
			if len(ts) != 1 || ts[0].Amount.Int64() != 1e16 || ts[0].Status != rampway.TransferConfirmed || ts[0].Token != (common.Address{}) {
				t.Fatalf("the forward's transfers: %+v", ts)
			}
			switch mode {
			case chainwork.InternalTrace: // the transaction, its internal frame, Multicall3 the sender
				if ts[0].TxHash != fwdTx || ts[0].LogIndex > -3 || ts[0].From != mc {
					t.Fatalf("traced forward: %+v", ts[0])
				}
			case chainwork.InternalBalance: // no transaction known, no sender
				if ts[0].TxHash == fwdTx || ts[0].LogIndex != -2 || ts[0].From != (common.Address{}) {
					t.Fatalf("balance credit: %+v", ts[0])
				}
			}
			if ts := e.transfers(topLevel); len(ts) != 1 || ts[0].LogIndex != -1 {
				t.Fatalf("the top-level payment's transfers: %+v", ts)
			}
			if ts := e.transfers(token); len(ts) != 1 || ts[0].TxHash != tokenTx || ts[0].LogIndex < 0 || ts[0].From != mc {
				t.Fatalf("the token's transfers: %+v", ts)
			}
			if ts := e.transfers(reverted); len(ts) != 0 {
				t.Fatalf("the reverted forward's transfers: %+v", ts)
			}

			// A restarted watcher rescanning the same blocks credits nothing twice.
			cur, _, _, _ := e.store.WatchCursor(t.Context(), "devnet")
			back, _ := e.client.HeaderByNumber(t.Context(), big.NewInt(int64(cur-5)))
			if err := e.store.SetWatchCursor(t.Context(), "devnet", cur-5, back.Hash(), time.Now()); err != nil {
				t.Fatal(err)
			}
			w2 := e.internalWatcher(mode)
			for range 3 {
				if err := w2.Step(t.Context()); err != nil {
					t.Fatal(err)
				}
				e.mine()
			}
			e.want(forwarded, rampway.StatusDepositSuccess, "10000000000000000")
			e.want(topLevel, rampway.StatusDepositSuccess, "10000000000000000")
			if ts := e.transfers(forwarded); len(ts) != 1 {
				t.Fatalf("after the rescan: %d transfers", len(ts))
			}
		})
	}
}

// transferData is ERC-20 transfer(to, amount).
func transferData(to common.Address, amount int64) []byte {
	return append(crypto.Keccak256([]byte("transfer(address,uint256)"))[:4],
		append(common.LeftPadBytes(to.Bytes(), 32), common.LeftPadBytes(big.NewInt(amount).Bytes(), 32)...)...)
}

// A forwarded payment whose block is reorganised away, the new branch without it, is dropped
// as a top-level one is: the order goes back to CREATED with order.deposit.dropped; forwarded
// again, it completes.
func TestWatcherInternalReorg(t *testing.T) {
	t.Parallel()
	for _, mode := range internalModes {
		t.Run(string(mode), func(t *testing.T) {
			t.Parallel()
			e := newWatchEnv(t)
			w := e.internalWatcher(mode)
			step := stepper(t, w)
			step()
			o := e.order(e.net.Native, 1e16)
			e.mine()
			step() // the balance check has the address's balance before the payment
			parent, _ := e.client.HeaderByNumber(t.Context(), nil)
			e.forward(o.DepositAddress, 1e16)
			e.mine()
			step()
			e.want(o, rampway.StatusDepositProcessing, "0")
			e.reorg(parent.Hash(), step)
			e.want(o, rampway.StatusCreated, "0")
			events, _ := e.store.OrderEvents(t.Context(), o.ID)
			if last := events[len(events)-1]; last.Name != rampway.EventDepositDropped || last.From != rampway.StatusDepositProcessing {
				t.Fatalf("the dropped forward's event: %+v", last)
			}
			if ts := e.transfers(o); len(ts) != 1 || ts[0].Status != rampway.TransferDropped {
				t.Fatalf("transfers after the reorganisation: %+v", ts)
			}
			e.forward(o.DepositAddress, 1e16)
			e.mine()
			step()
			e.mine()
			step()
			e.want(o, rampway.StatusDepositSuccess, "10000000000000000")
		})
	}
}

// Balance checks and sweeps: money leaving a deposit address (the sweeper moving a deposit on)
// credits nothing, and an internal top-up after it is credited to the wei; a watcher started
// afresh (no balances of its own yet) credits nothing of what was swept either.
func TestWatcherBalanceSwept(t *testing.T) {
	t.Parallel()
	e := newWatchEnv(t)
	w := e.internalWatcher(chainwork.InternalBalance)
	step := stepper(t, w)
	step()
	key, _ := crypto.GenerateKey()
	o := e.orderAt(key, 1e16)
	e.pay(o, 4e15)
	e.mine()
	step()
	e.mine()
	step()
	e.want(o, rampway.StatusUnderpaid, "4000000000000000")

	// The sweep: all of it but its gas goes on, leaving dust.
	e.sweep(key, 3e15)
	e.mine()
	step()
	e.mine()
	step()
	e.want(o, rampway.StatusUnderpaid, "4000000000000000")

	// A restarted watcher's first check starts from what the store recorded: the swept
	// address holds less than that, so nothing.
	w = e.internalWatcher(chainwork.InternalBalance)
	step = stepper(t, w)
	e.mine()
	step()
	e.want(o, rampway.StatusUnderpaid, "4000000000000000")

	// The top-up, forwarded by a contract: credited exactly.
	e.forward(o.DepositAddress, 6e15)
	e.mine()
	step()
	e.mine()
	step()
	e.want(o, rampway.StatusDepositSuccess, "10000000000000000")
	if ts := e.transfers(o); len(ts) != 2 || ts[1].Amount.Int64() != 6e15 || ts[1].LogIndex != -2 {
		t.Fatalf("transfers %+v", ts)
	}
}

// orderAt is order for a native amount at the address of key (the sweep signs with it).
func (e *watchEnv) orderAt(key *ecdsa.PrivateKey, amount int64) *rampway.Order {
	e.t.Helper()
	now := time.Now().UTC().Truncate(time.Microsecond)
	i, _ := e.store.NextDepositIndex(e.t.Context())
	o := &rampway.Order{ID: rampway.NewID(rampway.PrefixOrder, now), MerchantID: e.mid, Area: rampway.AreaMint, Status: rampway.StatusCreated,
		MerchantUserID: "u", MerchantRedirectURL: "https://x.example", Network: "devnet", Asset: e.net.Native,
		CryptoAmount: big.NewInt(amount), CryptoReceived: new(big.Int), PaymentValue: new(big.Int), NetworkFee: new(big.Int), ServiceFee: new(big.Int),
		DepositAddress: crypto.PubkeyToAddress(key.PublicKey), DepositIndex: i, ExpiresAt: now.Add(time.Hour), CreatedAt: now, UpdatedAt: now}
	if err := e.store.CreateOrder(e.t.Context(), o); err != nil {
		e.t.Fatal(err)
	}
	return o
}

// sweep sends amount from the address of key elsewhere, as the sweeper does.
func (e *watchEnv) sweep(key *ecdsa.PrivateKey, amount int64) {
	e.t.Helper()
	treasury := common.HexToAddress("0x000000000000000000000000000000000000dEaD")
	tx := devchaintest.SignTx(e.t, e.client, e.chain.ChainID(), key, 0, treasury, big.NewInt(amount), nil, 21_000)
	if err := e.client.SendTransaction(e.t.Context(), tx); err != nil {
		e.t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		if n, err := e.client.PendingNonceAt(e.t.Context(), crypto.PubkeyToAddress(key.PublicKey)); err == nil && n == 1 {
			break
		}
		if time.Now().After(deadline) {
			e.t.Fatal("the sweep is not pending")
		}
	}
}

// A node that does not serve the mode is refused at the check, naming what to configure.
func TestCheckInternalTransfers(t *testing.T) {
	t.Parallel()
	e := newWatchEnv(t)
	watcher := func(mode chainwork.InternalMode, multicall3 common.Address) (*chainwork.Watcher, error) {
		return chainwork.NewWatcher(chainwork.WatcherConfig{Internal: chainwork.InternalTransfers{Mode: mode, Node: e.client.Client(), Multicall3: multicall3}},
			e.store, &e.net, e.client, slog.New(slog.DiscardHandler), nil)
	}
	// The chain's HTTP endpoint has no debug namespace: a node without tracing.
	w, err := watcher(chainwork.InternalTrace, common.Address{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.CheckInternalTransfers(t.Context()); err == nil || !strings.Contains(err.Error(), "does not serve debug_traceBlockByHash") {
		t.Fatalf("trace on a node without it: %v", err)
	}
	if _, err := watcher(chainwork.InternalBalance, common.Address{}); err == nil {
		t.Fatal("balance without a Multicall3 address was taken")
	}
	if _, err := watcher("poll", common.Address{}); err == nil {
		t.Fatal("an unknown mode was taken")
	}
	if w, err = watcher(chainwork.InternalBalance, common.HexToAddress("0x00000000000000000000000000000000000c0de0")); err != nil {
		t.Fatal(err)
	}
	if err := w.CheckInternalTransfers(t.Context()); err == nil || !strings.Contains(err.Error(), "no contract is deployed at multicall3") {
		t.Fatalf("balance without Multicall3 there: %v", err)
	}
	if w, err = watcher(chainwork.InternalBalance, e.chain.Contracts().Multicall); err != nil {
		t.Fatal(err)
	}
	if err := w.CheckInternalTransfers(t.Context()); err != nil {
		t.Fatal(err)
	}
}
