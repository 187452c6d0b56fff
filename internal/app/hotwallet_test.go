package app_test

import (
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/internal/app/apptest"
	"github.com/rampway/rampway/internal/devtest"
)

// walletEnv is a running service with its hot wallet's key at hand, to move its funds or use
// its nonces behind rampway's back.
type walletEnv struct {
	*apptest.Env
	t      *testing.T
	cl     *ethclient.Client
	hotKey *ecdsa.PrivateKey
	hot    common.Address
}

func startWallet(t *testing.T) *walletEnv {
	e := apptest.Start(t, nil)
	hotKey, err := crypto.HexToECDSA(strings.TrimPrefix(e.App.Cfg.Secrets.HotWalletKey, "0x"))
	if err != nil {
		t.Fatal(err)
	}
	cl, err := ethclient.Dial(e.Chain.RPCURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return &walletEnv{Env: e, t: t, cl: cl, hotKey: hotKey, hot: crypto.PubkeyToAddress(hotKey.PublicKey)}
}

func (w *walletEnv) get(path string) (int, string) {
	w.t.Helper()
	return w.Admin(w.t, http.MethodGet, path, "")
}

func (w *walletEnv) waitFor(what string, cond func() bool) {
	w.t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(50 * time.Millisecond) { // a hang guard only
		if time.Now().After(deadline) {
			w.t.Fatalf("waited a minute for %s", what)
		}
	}
}

// send moves value from one key's account to another (value is given the balance and the
// fee, whose cap is fixed: what is left of a drained wallet is known), waits for it to be
// mined, and returns its receipt.
func (w *walletEnv) send(from *ecdsa.PrivateKey, to common.Address, value func(balance, fee *big.Int) *big.Int) *types.Receipt {
	w.t.Helper()
	ctx := w.t.Context()
	addr := crypto.PubkeyToAddress(from.PublicKey)
	nonce, err := w.cl.PendingNonceAt(ctx, addr)
	if err != nil {
		w.t.Fatal(err)
	}
	balance, err := w.cl.BalanceAt(ctx, addr, nil)
	if err != nil {
		w.t.Fatal(err)
	}
	head, _ := w.cl.HeaderByNumber(ctx, nil)
	tip, _ := w.cl.SuggestGasTipCap(ctx)
	feeCap := new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(3)), tip)
	tx, err := types.SignNewTx(from, types.LatestSignerForChainID(w.Chain.ChainID()), &types.DynamicFeeTx{ChainID: w.Chain.ChainID(), Nonce: nonce,
		GasTipCap: tip, GasFeeCap: feeCap, Gas: 21_000, To: &to, Value: value(balance, new(big.Int).Mul(feeCap, big.NewInt(21_000)))})
	if err != nil {
		w.t.Fatal(err)
	}
	if err := w.cl.SendTransaction(ctx, tx); err != nil {
		w.t.Fatal(err)
	}
	var rec *types.Receipt
	w.waitFor("the transfer to be mined", func() bool { rec, err = w.cl.TransactionReceipt(ctx, tx.Hash()); return err == nil })
	return rec
}

// value is a send's fixed value.
func value(v *big.Int) func(_, _ *big.Int) *big.Int { return func(_, _ *big.Int) *big.Int { return v } }

// readyzWarns waits until /readyz (200) names want among its warnings, and returns its body.
func (w *walletEnv) readyzWarns(want string) string {
	w.t.Helper()
	var body string
	w.waitFor("/readyz to warn "+want, func() bool {
		var code int
		code, body = w.get("/readyz")
		if code != http.StatusOK {
			w.t.Fatalf("readyz: %d %s", code, body)
		}
		return strings.Contains(body, want)
	})
	return body
}

func (w *walletEnv) waitStatus(orderID string, want rampway.OrderStatus) {
	w.t.Helper()
	w.waitFor("order "+orderID+" to be "+string(want), func() bool {
		o, err := w.App.Store.Order(w.t.Context(), orderID)
		return err == nil && o.Status == want
	})
}

// A hot wallet that cannot pay for a paid order's execution is shown to the operator while the
// order waits: a /readyz warning naming the wallet, the order and the amounts (the service
// stays ready), and /metrics' rampway_hot_wallet_short_seconds and _shortfall_amount. Funded,
// the wallet pays, the order executes, and both are gone.
func TestHotWalletShortThroughTheService(t *testing.T) {
	w := startWallet(t)
	// The order is quoted while the wallet can pay; then the wallet is emptied (behind
	// rampway's back) and the user pays.
	created := w.CardMint(t)
	w.send(w.hotKey, crypto.PubkeyToAddress(w.Payer.PublicKey), func(balance, fee *big.Int) *big.Int { return new(big.Int).Sub(balance, fee) })
	devtest.PayCard(t, created.GatewayURL, "4242424242424242")
	body := w.readyzWarns("Hot wallet " + w.hot.Hex() + " on devnet cannot pay for order " + created.Order.ID + ": it needs ")
	if !strings.Contains(body, " ETH and can spend ") || !strings.Contains(body, " ETH (waiting for funds since ") {
		t.Fatalf("readyz: %s", body)
	}
	series := `{asset="ETH",network="devnet",wallet="` + w.hot.Hex() + `"}`
	if _, m := w.get("/metrics"); !strings.Contains(m, "rampway_hot_wallet_short_seconds"+series) || !strings.Contains(m, "rampway_hot_wallet_shortfall_amount"+series) {
		t.Fatalf("metrics without the shortfall:\n%s", m)
	}
	if o, err := w.App.Store.Order(t.Context(), created.Order.ID); err != nil || o.Status.Decided() {
		t.Fatalf("order %+v, %v: want it waiting", o, err)
	}

	// Funded again, the wallet pays for the order, and the warning and the series are gone.
	w.send(w.Payer, w.hot, value(big.NewInt(1e18)))
	w.waitStatus(created.Order.ID, rampway.StatusSuccess)
	w.waitFor("the warning to go", func() bool {
		_, body = w.get("/readyz")
		return !strings.Contains(body, "Hot wallet "+w.hot.Hex())
	})
	if _, m := w.get("/metrics"); strings.Contains(m, "rampway_hot_wallet_short") {
		t.Fatalf("metrics with a shortfall after the wallet was funded:\n%s", m)
	}
}

// A hot wallet used outside rampway after its first execution (its nonce on chain past every
// one the database assigned) signs nothing: the next paid order waits, /readyz warns with the
// store's words and the command to run, and /metrics has rampway_hot_wallet_nonce_refused.
// Once the operator adopts the chain's nonce, the order is executed and both are gone.
func TestHotWalletNonceRefusalThroughTheService(t *testing.T) {
	w := startWallet(t)
	ctx := t.Context()
	first := w.CardMint(t)
	devtest.PayCard(t, first.GatewayURL, "4242424242424242")
	w.waitStatus(first.Order.ID, rampway.StatusSuccess)

	w.send(w.hotKey, crypto.PubkeyToAddress(w.Payer.PublicKey), value(big.NewInt(1)))
	next, err := w.cl.NonceAt(ctx, w.hot, nil)
	if err != nil {
		t.Fatal(err)
	}
	second := w.CardMint(t)
	devtest.PayCard(t, second.GatewayURL, "4242424242424242")
	w.readyzWarns(fmt.Sprintf("Hot wallet %s on devnet signs nothing: %v: the hot wallet %s on devnet is at nonce %d on chain",
		w.hot.Hex(), rampway.ErrNonceAhead, w.hot.Hex(), next))
	w.readyzWarns(fmt.Sprintf("rampway admin nonces adopt --network devnet --wallet %s --next %d", w.hot.Hex(), next))
	if _, m := w.get("/metrics"); !strings.Contains(m, `rampway_hot_wallet_nonce_refused{network="devnet",wallet="`+w.hot.Hex()+`"} 1`) {
		t.Fatalf("metrics without the refusal:\n%s", m)
	}
	if o, err := w.App.Store.Order(ctx, second.Order.ID); err != nil || o.Status != rampway.StatusOnrampSuccess {
		t.Fatalf("order %+v, %v: want it paid and waiting", o, err)
	}

	if _, err := w.App.Store.AdoptNonce(ctx, "devnet", w.hot, next); err != nil {
		t.Fatal(err)
	}
	w.waitStatus(second.Order.ID, rampway.StatusSuccess)
	w.waitFor("the warning to go", func() bool {
		_, body := w.get("/readyz")
		return !strings.Contains(body, "signs nothing")
	})
	if _, m := w.get("/metrics"); strings.Contains(m, "rampway_hot_wallet_nonce_refused") {
		t.Fatalf("metrics with a refusal after the operator adopted the chain's nonce:\n%s", m)
	}
}
