package app_test

import (
	"encoding/json"
	"math/big"
	"net/http"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/rampway/rampway"
)

// The running service reconciles its ledger with the chain: the hot wallet's ledger opens at
// its balance; ether sent from it behind rampway's back is a drift of exactly what left it
// (its fee included), on /admin/ledger/drifts, /readyz's warnings and /metrics; an operator
// accepts it with a note, and the next round finds the ledger and the chain agreeing.
func TestLedgerDriftThroughTheService(t *testing.T) {
	w := startWallet(t)
	e, ctx, get, waitFor := w.Env, t.Context(), w.get, w.waitFor
	reconciled := func() uint64 {
		b, _, _, err := e.App.Store.Reconciled(ctx, "devnet")
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	account := rampway.HotAccount("devnet", w.hot)
	waitFor("the hot wallet's ledger to open", func() bool {
		ts, err := e.App.Store.LedgerTransfers(ctx, account)
		return err == nil && len(ts) == 1 && ts[0].Kind == "opening"
	})
	if code, body := get("/readyz"); code != http.StatusOK || strings.Contains(body, "warnings") {
		t.Fatalf("readyz before: %d %s", code, body)
	}
	payer := crypto.PubkeyToAddress(e.Payer.PublicKey)
	// send sends value from the hot wallet to the payer, or from the payer to the hot wallet.
	send := func(fromHot bool, v *big.Int) *types.Receipt {
		t.Helper()
		if fromHot {
			return w.send(w.hotKey, payer, value(v))
		}
		return w.send(e.Payer, w.hot, value(v))
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
