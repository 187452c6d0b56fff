package main

import (
	"database/sql"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/rampway/rampway/internal/devtest"
)

// Several payment providers at once, each payment with its own: the sandbox module under two
// names in dev, one taking euros, the other dollars. A payment starts with the provider that
// takes its currency; its pages, its notifications and its operator's bank transfer are that
// provider's (the other's books do not know its reference). A provider that still holds an open
// payment cannot be removed from the configuration: the start is refused, naming it.
func TestServeTwoProviders(t *testing.T) {
	e := newChainEnv(t)
	// The sandbox's notifications come back to the public URL: a port of its own.
	port := devtest.FreePort(t)
	both := "fiat:\n  providers:\n    - {name: sandbox, module: sandbox, currencies: [USD]}\n    - {name: sandbox-eu, module: sandbox, currencies: [EUR]}\n"
	config := func(providers string) string {
		path := devServeConfig(t, e.dbPath, e.ch.RPCURL(), 1, crypto.PubkeyToAddress(e.hotKey.PublicKey), providers)
		withPort(t, path, port)
		return path
	}
	env := map[string]string{"RAMPWAY_HOT_WALLET_KEY": fmt.Sprintf("%x", crypto.FromECDSA(e.hotKey))}
	getenv := func(k string) string { return env[k] }
	e.cfgPath = config(both)
	var stop func() error
	e.base, e.out, stop = startServe(t, e.cfgPath, getenv)
	e.onboard()
	e.mineEvery(100 * time.Millisecond)
	if want := `"payment_provider":"sandbox, sandbox-eu"`; !strings.Contains(e.out.String(), want) {
		t.Fatalf("the start does not name both providers (%s):\n%s", want, e.out)
	}

	db, err := sql.Open("sqlite", "file:"+e.dbPath+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	holder := func(orderID string) string {
		var p string
		if err := db.QueryRow(`SELECT provider FROM fiat_payments WHERE order_id = ? ORDER BY created_at DESC LIMIT 1`, orderID).Scan(&p); err != nil {
			t.Fatalf("order %s's payment: %v", orderID, err)
		}
		return p
	}
	fiatOrder := func(currency, method string) map[string]any {
		body := map[string]any{"merchant_id": e.merchantID, "order_fiat_symbol": currency, "fiat_payment_method": method,
			"merchant_user_id": "u1", "merchant_redirect_url": "https://shop.example/done",
			"contractExecution": map[string]any{"smartContractFunctionId": e.functionID, "function_args": map[string]any{"to": e.payer.Hex(), "quantity": "1"},
				"payment":        map[string]any{"payableCryptoSymbol": "ETH", "totalValue": "0.01"},
				"network_params": map[string]any{"networkName": "devnet"}}}
		for k, v := range identity {
			body[k] = v
		}
		return call(t, "POST", e.base+"/nft-ramp/merchant/hosted/nftCheckout/order", e.apiKey, body)
	}
	waitSuccess := func(id string) {
		t.Helper()
		for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			v := call(t, "GET", e.base+"/nft-ramp/merchant/hosted/nftCheckout/order/"+id, e.apiKey, nil)
			if v["status"] == "SUCCESS" {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("order %s still %v (%v)\n%s", id, v["status"], v["failure_reason"], e.out)
			}
		}
	}

	// A card in dollars: the first provider's; in euros: the second's. Each is minted.
	usd, eur := fiatOrder("USD", "credit_debit_card"), fiatOrder("EUR", "credit_debit_card")
	for _, c := range []struct {
		o    map[string]any
		want string
	}{{usd, "sandbox"}, {eur, "sandbox-eu"}} {
		devtest.PayCard(t, c.o["gateway_url"].(string), "4242424242424242")
		id := c.o["order_id"].(string)
		waitSuccess(id)
		if got := holder(id); got != c.want {
			t.Fatalf("order in %v paid through %s, want %s", c.o["order_fiat_symbol"], got, c.want)
		}
	}

	// A bank transfer in euros: the reference is the second provider's; the first does not
	// know it (404), the second takes the transfer (201) and the order is minted.
	transfer := fiatOrder("EUR", "sepa_bank_transfer")
	browser := &http.Client{Timeout: 20 * time.Second}
	_, html := devtest.PaymentPage(t, browser, transfer["gateway_url"].(string))
	ref := match(t, reference, html)
	amount := transfer["order_fiat_amount"].(string)
	id := transfer["order_id"].(string)
	if got := holder(id); got != "sandbox-eu" {
		t.Fatalf("the euro transfer is held by %s", got)
	}
	body := map[string]any{"reference": ref, "amount": amount, "currency": "EUR"}
	if status, v := apiCall(t, "POST", e.base+"/admin/sandbox/bank-transfers", refundAdmin, body); status != 404 {
		t.Fatalf("the other provider took the transfer: %d %v", status, v)
	}
	if status, v := apiCall(t, "POST", e.base+"/admin/sandbox-eu/bank-transfers", refundAdmin, body); status != 201 {
		t.Fatalf("bank transfer: %d %v", status, v)
	}
	waitSuccess(id)

	// An open payment (a transfer started, not yet paid) on the euro provider: taking it out of
	// the configuration is refused at start, naming it; with it, the start goes on.
	open := fiatOrder("EUR", "sepa_bank_transfer")
	devtest.PaymentPage(t, browser, open["gateway_url"].(string))
	if got := holder(open["order_id"].(string)); got != "sandbox-eu" {
		t.Fatalf("the open transfer is held by %s", got)
	}
	if err := stop(); err != nil && !strings.Contains(err.Error(), "context canceled") {
		t.Fatalf("serve: %v", err)
	}
	one := config("fiat:\n  providers: [sandbox]\n")
	err = run(t.Context(), []string{"serve", "--config", one}, getenv, &lockedBuffer{})
	if err == nil || !strings.Contains(err.Error(), `payment provider "sandbox-eu" still holds 1 open payment(s)`) {
		t.Fatalf("start without the provider of an open payment: %v", err)
	}
	_, _, stop = startServe(t, config(both), getenv)
	if err := stop(); err != nil && !strings.Contains(err.Error(), "context canceled") {
		t.Fatalf("serve with both again: %v", err)
	}
}

// withPort makes a devServeConfig file listen on port, its public URL there.
func withPort(t *testing.T, path string, port int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	old := `http: {addr: "127.0.0.1:0", public_url: "http://127.0.0.1:9"}`
	if !strings.Contains(string(b), old) {
		t.Fatalf("no %s in %s", old, b)
	}
	b = []byte(strings.Replace(string(b), old, fmt.Sprintf(`http: {addr: "127.0.0.1:%d", public_url: "http://127.0.0.1:%d"}`, port, port), 1))
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}
