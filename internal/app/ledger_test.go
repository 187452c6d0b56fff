package app_test

import (
	"encoding/json"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/internal/app/apptest"
)

// The running service reconciles its ledger with the chain: the hot wallet's ledger opens at
// its balance; ether sent from it behind rampway's back is a drift of exactly what left it
// (its fee included), on /admin/ledger/drifts, /readyz's warnings and /metrics; an operator
// accepts it with a note, and the next round finds the ledger and the chain agreeing.
func TestLedgerDriftThroughTheService(t *testing.T) {
	e := apptest.Start(t, nil)
	ctx := t.Context()
	cfg := e.App.Cfg
	get := func(path string) (int, string) { t.Helper(); return e.Admin(t, http.MethodGet, path, "") }
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(50 * time.Millisecond) { // a hang guard only
			if time.Now().After(deadline) {
				t.Fatalf("waited a minute for %s", what)
			}
		}
	}
	reconciled := func() uint64 {
		b, _, _, err := e.App.Store.Reconciled(ctx, "devnet")
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	hotKey, err := crypto.HexToECDSA(strings.TrimPrefix(cfg.Secrets.HotWalletKey, "0x"))
	if err != nil {
		t.Fatal(err)
	}
	hot := crypto.PubkeyToAddress(hotKey.PublicKey)
	account := rampway.HotAccount("devnet", hot)
	waitFor("the hot wallet's ledger to open", func() bool {
		ts, err := e.App.Store.LedgerTransfers(ctx, account)
		return err == nil && len(ts) == 1 && ts[0].Kind == "opening"
	})
	if code, body := get("/readyz"); code != http.StatusOK || strings.Contains(body, "warnings") {
		t.Fatalf("readyz before: %d %s", code, body)
	}

	cl, err := ethclient.Dial(e.Chain.RPCURL())
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	// send sends value from the hot wallet to the payer, or from the payer to the hot wallet.
	send := func(fromHot bool, value *big.Int) *types.Receipt {
		t.Helper()
		k := hotKey
		if !fromHot {
			k = e.Payer
		}
		from := crypto.PubkeyToAddress(k.PublicKey)
		nonce, err := cl.PendingNonceAt(ctx, from)
		if err != nil {
			t.Fatal(err)
		}
		tip, _ := cl.SuggestGasTipCap(ctx)
		head, _ := cl.HeaderByNumber(ctx, nil)
		to := crypto.PubkeyToAddress(e.Payer.PublicKey)
		if !fromHot {
			to = hot
		}
		tx, err := types.SignNewTx(k, types.LatestSignerForChainID(e.Chain.ChainID()), &types.DynamicFeeTx{ChainID: e.Chain.ChainID(), Nonce: nonce,
			GasTipCap: tip, GasFeeCap: new(big.Int).Add(tip, new(big.Int).Mul(head.BaseFee, big.NewInt(2))), Gas: 21_000, To: &to, Value: value})
		if err != nil {
			t.Fatal(err)
		}
		if err := cl.SendTransaction(ctx, tx); err != nil {
			t.Fatal(err)
		}
		var rec *types.Receipt
		waitFor("the transaction to be mined", func() bool { rec, err = cl.TransactionReceipt(ctx, tx.Hash()); return err == nil })
		return rec
	}
	oneEth := big.NewInt(1e18)
	rec := send(true, oneEth) // from the hot wallet, not by rampway
	gone := new(big.Int).Add(oneEth, new(big.Int).Mul(rec.EffectiveGasPrice, new(big.Int).SetUint64(rec.GasUsed)))

	var drifts struct {
		Drifts []struct{ Account, Asset, Difference string }
	}
	waitFor("the drift", func() bool {
		code, body := get("/admin/ledger/drifts")
		if code != http.StatusOK {
			t.Fatalf("drifts: %d %s", code, body)
		}
		if err := json.Unmarshal([]byte(body), &drifts); err != nil {
			t.Fatal(err)
		}
		return len(drifts.Drifts) > 0
	})
	if d := drifts.Drifts; len(d) != 1 || d[0].Account != account || d[0].Asset != "devnet/native" || d[0].Difference != "-"+gone.String() {
		t.Fatalf("drifts %+v; want %s short by %s wei", d, account, gone)
	}
	if code, body := get("/readyz"); code != http.StatusOK || !strings.Contains(body, `"warnings"`) || !strings.Contains(body, "Ledger drift on devnet: "+account) {
		t.Fatalf("readyz with a drift: %d %s", code, body)
	}
	if _, body := get("/metrics"); !strings.Contains(body, `rampway_ledger_drifts{network="devnet"} 1`) ||
		!strings.Contains(body, `rampway_ledger_drift_amount{account="`+account+`",asset="devnet/native",network="devnet"}`) {
		t.Fatalf("metrics without the drift:\n%s", body)
	}

	// Accepted by an operator: the adjustment is what left, and the next round agrees.
	code, body := e.Admin(t, http.MethodPost, "/admin/ledger/drifts/accept", `{"account": "`+account+`", "asset": "devnet/native", "note": "sent by hand to a user"}`)
	var adj struct{ Debit, Amount, Kind, Note string }
	if err := json.Unmarshal([]byte(body), &adj); err != nil || code != http.StatusOK || adj.Debit != account || adj.Amount != gone.String() || adj.Kind != "adjustment" || adj.Note != "sent by hand to a user" {
		t.Fatalf("accept: %d %s", code, body)
	}
	before := reconciled()
	send(false, big.NewInt(1)) // a new block (to the hot wallet: a positive drift of 1 wei)
	waitFor("a round after the acceptance", func() bool { return reconciled() > before })
	if _, body := get("/admin/ledger/drifts"); !strings.Contains(body, `"difference": "1"`) && !strings.Contains(body, `"difference":"1"`) {
		t.Fatalf("drifts after the acceptance and a 1 wei top-up: %s", body)
	}
}
