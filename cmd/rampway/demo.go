package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// demoStore is the dev server's tiny shop at /: a newcomer's first minute. Its server side is a
// merchant like any other: it creates orders through the merchant API, over HTTP, with the demo
// merchant's key, sends the buyer to gateway_url, and shows the order's status on return.
type demoStore struct {
	base   string // the dev server's own address
	dj     devJSON
	client *http.Client
	log    *slog.Logger
}

var demoPage = template.Must(template.New("demo").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Demo Store</title>
<link rel="stylesheet" href="/checkout/assets/checkout.css">
<link rel="icon" href="data:,">
</head>
<body>
<main>
  <h1>Demo Store</h1>
  <p class="merchant">A shop on rampway's dev server: it sells demo NFTs, paid in crypto on the embedded chain.</p>
  {{if .Return}}
  <section aria-labelledby="ret">
    <h2 id="ret">Your order</h2>
    <p id="order-status" role="status">Order <code>{{.Return.ID}}</code> is <strong>{{.Return.Status}}</strong>{{if .Return.Tx}} (transaction <code>{{.Return.Tx}}</code>){{end}}.</p>
  </section>
  {{end}}
  {{if .Error}}<p role="alert" class="note">{{.Error}}</p>{{end}}
  <h2>Buy</h2>
  <form method="post" action="/demo/buy"><input type="hidden" name="pay" value="eth">
    <p><button id="buy-eth" type="submit" class="primary">Mint a demo NFT (pay in ETH)</button></p></form>
  <form method="post" action="/demo/buy"><input type="hidden" name="pay" value="token">
    <p><button id="buy-token" type="submit" class="primary">Mint a demo NFT (pay in the demo token)</button></p></form>
  <p class="note">Pay from any wallet pointed at <code>{{.RPC}}</code> (chain id {{.ChainID}}), or with the payer key in dev.json.</p>
</main>
</body>
</html>
`))

type demoReturn struct{ ID, Status, Tx string }

func (d *demoStore) render(w http.ResponseWriter, ret *demoReturn, msg string, code int) {
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_ = demoPage.Execute(w, map[string]any{"Return": ret, "Error": msg, "RPC": d.dj.Chain.RPCURL, "ChainID": d.dj.Chain.ChainID})
}

func (d *demoStore) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/":
		d.render(w, nil, "", http.StatusOK)
	case r.Method == http.MethodPost && r.URL.Path == "/demo/buy":
		d.buy(w, r)
	case r.Method == http.MethodGet && r.URL.Path == "/demo/return":
		d.back(w, r)
	default:
		http.NotFound(w, r)
	}
}

// api calls the merchant API as the demo merchant's server would.
func (d *demoStore) api(method, path string, body any) (map[string]any, error) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, d.dj.API.MintBaseURL+path, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-KEY", d.dj.Merchant.APIKey)
	res, err := d.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	var v map[string]any
	if err := json.NewDecoder(io.LimitReader(res.Body, 1<<20)).Decode(&v); err != nil {
		return nil, fmt.Errorf("merchant API answered %d: %w", res.StatusCode, err)
	}
	if res.StatusCode >= 300 {
		return nil, fmt.Errorf("merchant API answered %d: %v", res.StatusCode, v["message"])
	}
	return v, nil
}

func (d *demoStore) buy(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 1024)
	want := "ETH"
	if r.FormValue("pay") == "token" {
		want = "DUSD"
	}
	var fn *devFunction
	for i := range d.dj.SmartContractFunctions {
		if f := &d.dj.SmartContractFunctions[i]; f.PayableSymbol == want {
			fn = f
			break
		}
	}
	if fn == nil {
		d.render(w, nil, "No demo function is paid in "+want, http.StatusInternalServerError)
		return
	}
	body := map[string]any{"merchant_id": d.dj.Merchant.MerchantID, "crypto_symbol": want, "crypto_network": d.dj.Chain.Network,
		"contractExecution": fn.Example, "merchant_user_id": "demo-buyer", "merchant_txn_id": fmt.Sprintf("demo-%d", time.Now().UnixNano()),
		"merchant_redirect_url": d.base + "/demo/return"}
	if fn.Example.Payment != nil && fn.Example.Payment.PayableCryptoContractAddress != "" {
		body["crypto_contract_address"] = fn.Example.Payment.PayableCryptoContractAddress
	}
	o, err := d.api(http.MethodPost, "/merchant/hosted/nftCheckout/order", body)
	if err != nil {
		d.log.Error("demo store: create order", "error", err)
		d.render(w, nil, "The order could not be created: "+err.Error(), http.StatusBadGateway)
		return
	}
	http.Redirect(w, r, o["gateway_url"].(string), http.StatusSeeOther)
}

func (d *demoStore) back(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("order_id")
	if id == "" || strings.ContainsAny(id, "/?#") {
		d.render(w, nil, "No order to show.", http.StatusBadRequest)
		return
	}
	o, err := d.api(http.MethodGet, "/merchant/hosted/nftCheckout/order/"+url.PathEscape(id), nil)
	if err != nil {
		d.render(w, nil, "The order could not be read: "+err.Error(), http.StatusBadGateway)
		return
	}
	ret := &demoReturn{ID: id}
	ret.Status, _ = o["status"].(string)
	ret.Tx, _ = o["execution_tx_hash"].(string)
	d.render(w, ret, "", http.StatusOK)
}
