package app_test

import (
	"encoding/json"
	"log/slog"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/fiatwork"
	"github.com/rampway/rampway/internal/app/apptest"
	"github.com/rampway/rampway/internal/devtest"
)

// The running service's fiat ledger against the provider's records: an order paid by card
// through the sandbox agrees with it; 1.00 refunded at the provider behind rampway's back (as
// from its dashboard) is a drift of the payment, on /admin/ledger/drifts, /readyz's warnings
// and /metrics; an operator accepts it and the next round agrees.
func TestFiatLedgerDriftThroughTheService(t *testing.T) {
	e := apptest.Start(t, nil)
	ctx := t.Context()
	created := e.CardMint(t)
	devtest.PayCard(t, created.GatewayURL, "4242424242424242")
	var pay *rampway.FiatPayment
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) { // a hang guard only
		as, err := e.App.Store.FiatActions(ctx, created.Order.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(as) == 1 && as[0].Kind == rampway.ActionCapture && as[0].Status == rampway.ActionDone {
			ps, _ := e.App.Store.FiatPayments(ctx, created.Order.ID)
			pay = ps[0]
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no capture done a minute after the payment: %+v", as)
		}
	}
	prov := e.App.Checkout.FiatProviders()[pay.Provider]
	r := fiatwork.NewReconciler(e.App.Store, e.App.Checkout.FiatProviders(), fiatwork.ReconcilerConfig{Grace: -1}, slog.New(slog.DiscardHandler), nil)
	rec, err := r.Reconcile(ctx)
	if err != nil || len(rec.Checked) != 1 || len(rec.Drifts()) != 0 || rec.Checked[0].Ledger.Cmp(pay.Amount) != 0 {
		t.Fatalf("the captured payment against the provider: %+v %v", rec, err)
	}

	if _, err := prov.Refund(ctx, pay.ProviderRef, big.NewInt(100), "dashboard-refund"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	account := rampway.ProviderPaymentAccount(pay.Provider, pay.Currency, pay.ID)
	var drifts struct {
		Drifts []struct{ Account, Asset, Difference, Network string }
	}
	code, body := e.Admin(t, http.MethodGet, "/admin/ledger/drifts", "")
	if err := json.Unmarshal([]byte(body), &drifts); err != nil || code != http.StatusOK {
		t.Fatalf("drifts: %d %s %v", code, body, err)
	}
	if d := drifts.Drifts; len(d) != 1 || d[0].Account != account || d[0].Asset != "fiat/EUR" || d[0].Difference != "-100" || d[0].Network != "fiat" {
		t.Fatalf("drifts %+v; want %s short by 100", d, account)
	}
	if code, body := e.Admin(t, http.MethodGet, "/readyz", ""); code != http.StatusOK || !strings.Contains(body, "Ledger drift at payment provider "+pay.Provider+": payment "+pay.ID) {
		t.Fatalf("readyz with a drift: %d %s", code, body)
	}
	if _, body := e.Admin(t, http.MethodGet, "/metrics", ""); !strings.Contains(body, `rampway_ledger_drifts{network="fiat"} 1`) {
		t.Fatalf("metrics without the fiat drift:\n%s", body)
	}

	// Bad requests are refused, in the error envelope, and change nothing.
	for _, c := range []struct {
		body string
		code int
		says string
	}{
		{`{"asset": "fiat/EUR", "note": "n"}`, http.StatusBadRequest, `account is required`},
		{`{"account": "` + account + `", "note": "n"}`, http.StatusBadRequest, `asset is required`},
		{`{"account": "` + account + `", "asset": "fiat/EUR"}`, http.StatusBadRequest, `note is required`},
		{`{"account": "` + account + `", "asset": "fiat/EUR", "note": "n", "extra": 1}`, http.StatusBadRequest, `extra`},
		{`{"account": 1}`, http.StatusBadRequest, `account`},
		{`{"account": "`, http.StatusBadRequest, `JSON`},
		{`{"account": "provider/sandbox/EUR/fpy_nope", "asset": "fiat/EUR", "note": "n"}`, http.StatusNotFound, `no drift`},
	} {
		if code, body := e.Admin(t, http.MethodPost, "/admin/ledger/drifts/accept", c.body); code != c.code || !strings.Contains(body, c.says) || !strings.Contains(body, `"statusCode"`) {
			t.Fatalf("accept %s: %d %s; want %d saying %s", c.body, code, body, c.code, c.says)
		}
	}

	// Accepted by an operator: the payment's own adjustment; the next round agrees.
	code, body = e.Admin(t, http.MethodPost, "/admin/ledger/drifts/accept", `{"account": "`+account+`", "asset": "fiat/EUR", "note": "refunded from the provider's dashboard"}`)
	var adj struct{ Debit, Credit, Amount, Ref string }
	if err := json.Unmarshal([]byte(body), &adj); err != nil || code != http.StatusOK || adj.Ref != pay.ID || adj.Amount != "100" ||
		adj.Debit != rampway.ProviderAccount(pay.Provider, "EUR") || adj.Credit != rampway.CustomersAccount(pay.Provider, "EUR") {
		t.Fatalf("accept: %d %s", code, body)
	}
	rec, err = r.Reconcile(ctx)
	if err != nil || len(rec.Checked) != 1 || len(rec.Drifts()) != 0 {
		t.Fatalf("after the acceptance: %+v %v", rec, err)
	}
	if _, body := e.Admin(t, http.MethodGet, "/admin/ledger/drifts", ""); strings.Contains(body, account) {
		t.Fatalf("drifts after the acceptance: %s", body)
	}
}
