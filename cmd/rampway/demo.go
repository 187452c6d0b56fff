package main

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rampway/rampway/client"
)

// demoStore is the dev server's tiny shop at /: a newcomer's first minute. Its server side is a
// merchant like any other: it creates orders through the merchant API, over HTTP, with the demo
// merchant's key, sends the buyer to gateway_url, and shows the order's status on return. It
// is also the demo merchant's webhook receiver (demoWebhookPath): it verifies each delivery with
// the client package, as a merchant's server in Go would, logs it and shows the last ones.
type demoStore struct {
	base   string // the dev server's own address
	dj     devJSON
	client *http.Client
	log    *slog.Logger
	hooks  http.Handler // the webhook receiver

	mu     sync.Mutex
	events []demoEvent // the last demoEventsKept verified events, oldest first
	// quoted are the prices last quoted (prices), at quotedAt.
	pmu      sync.Mutex
	quoted   map[string]string
	quotedAt time.Time
}

// demoWebhookPath is the demo store's webhook receiver, the demo merchant's webhook_url.
const demoWebhookPath = "/demo/webhooks"

// demoAssetFS holds the demo store's images, ours, served under demoAssetPath so that the
// checkout page shows a logo and a picture of what is bought in dev mode, offline.
//
//go:embed demoassets/*.svg
var demoAssetFS embed.FS

// demoAssetPath prefixes the demo store's images.
const demoAssetPath = "/demo/assets/"

// The demo images, by file name: the demo merchant's logo and its NFT's picture.
const (
	demoLogo     = "logo.svg"
	demoNFTImage = "nft.svg"
)

// demoAssetURL is the address of a demo image on the dev server at base.
func demoAssetURL(base, name string) string { return base + demoAssetPath + name }

// demoAssets serves the demo images: SVG as images (a script in one would not run in an img,
// and opened by itself the CSP runs none), cached for an hour.
var demoAssets = func() http.Handler {
	sub, _ := fs.Sub(demoAssetFS, "demoassets")
	files := http.StripPrefix(demoAssetPath, http.FileServerFS(sub))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'none'")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Cache-Control", "public, max-age=3600")
		files.ServeHTTP(w, r)
	})
}()

// demoEventsKept is how many received events the demo store keeps to show.
const demoEventsKept = 50

// demoEvent is a webhook event the demo store received and verified.
type demoEvent struct {
	EventID    string `json:"event_id"`
	EventName  string `json:"event_name"`
	OrderID    string `json:"order_id"`
	Status     string `json:"status"`
	ReceivedAt string `json:"received_at"`
}

// newDemoStore returns the demo store of the dev server at base, whose dev.json is dj.
func newDemoStore(base string, dj devJSON, httpClient *http.Client, log *slog.Logger) *demoStore {
	d := &demoStore{base: base, dj: dj, client: httpClient, log: log}
	// The secret is the one dev.json gives the merchant's server: rotating it through the admin
	// API leaves the store refusing deliveries until rampway dev restarts (which sets it back).
	v := &client.Verifier{Secrets: []string{dj.Merchant.WebhookSecret}, Seen: client.NewMemoryDeduper(0)}
	d.hooks = client.WebhookHandler(v, d.record)
	return d
}

// record keeps a verified event and logs it.
func (d *demoStore) record(_ context.Context, ev *client.Event) error {
	e := demoEvent{EventID: ev.ID, EventName: ev.Name, ReceivedAt: time.Now().UTC().Format(time.RFC3339Nano)}
	if o, err := ev.Order(); err == nil {
		e.OrderID, e.Status = o.OrderID, string(o.Status)
	}
	d.mu.Lock()
	d.events = append(d.events, e)
	if len(d.events) > demoEventsKept {
		d.events = slices.Delete(d.events, 0, len(d.events)-demoEventsKept)
	}
	d.mu.Unlock()
	d.log.Info("demo store: webhook received and verified", "event_id", e.EventID, "event", e.EventName, "order_id", e.OrderID, "status", e.Status)
	return nil
}

// recent returns the last n events received, newest first (all of them when n is 0).
func (d *demoStore) recent(n int) []demoEvent {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := slices.Clone(d.events)
	slices.Reverse(out)
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out
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
  <p class="merchant">A shop on rampway's dev server: it sells demo NFTs, paid in crypto on the embedded chain or in euros
    through the test payment provider, and tops up your account with crypto bought in euros.</p>
  {{if .Return}}
  <section aria-labelledby="ret">
    <h2 id="ret">Your order</h2>
    <p id="order-status" role="status">Order <code>{{.Return.ID}}</code> is <strong>{{.Return.Status}}</strong>{{if .Return.Tx}} (transaction <code>{{.Return.Tx}}</code>){{end}}.</p>
  </section>
  {{end}}
  {{if .Error}}<p role="alert" class="note">{{.Error}}</p>{{end}}
  <h2>Buy</h2>
  <form method="post" action="/demo/buy"><input type="hidden" name="pay" value="eth">
    <p><button id="buy-eth" type="submit" class="primary product"><span>Mint a demo NFT, paid in ETH</span>{{with .Prices.eth}} <strong class="price" id="price-eth">{{.}}</strong>{{end}}</button></p></form>
  <form method="post" action="/demo/buy"><input type="hidden" name="pay" value="token">
    <p><button id="buy-token" type="submit" class="primary product"><span>Mint a demo NFT, paid in the demo token</span>{{with .Prices.token}} <strong class="price" id="price-token">{{.}}</strong>{{end}}</button></p></form>
  <p class="note">Pay from any wallet pointed at <code>{{.RPC}}</code> (chain id {{.ChainID}}), or with the payer key in dev.json.</p>
  <form method="post" action="/demo/buy"><input type="hidden" name="pay" value="card">
    <p><button id="buy-card" type="submit" class="primary product"><span>Mint a demo NFT, paid in EUR by card</span>{{with .Prices.card}} <strong class="price" id="price-card">{{.}}</strong>{{end}}</button></p></form>
  <p class="note">The test payment provider's cards are in dev.json: {{.Card}} succeeds.</p>
  {{if .NoPrices}}<p class="note" id="no-prices">Prices could not be quoted just now: {{.NoPrices}}. The checkout page shows them.</p>{{end}}
  <h2>Top up</h2>
  <form method="post" action="/demo/buy"><input type="hidden" name="pay" value="topup">
    <p><button id="top-up" type="submit" class="primary product"><span>Top up your account in ETH (on-ramp to the shop's deposit address)</span> <strong class="price" id="price-topup">{{.TopUp}} EUR</strong></button></p></form>
  <section aria-labelledby="hooks">
    <h2 id="hooks">Webhooks received</h2>
    <p class="note">The store's server receives the demo merchant's webhooks at <code>{{.Hook}}</code> and verifies their signature with the Go client package (<a href="{{.Hook}}">as JSON</a>).</p>
    {{if .Events}}<ol id="webhook-events" reversed>
    {{range .Events}}<li><code>{{.EventName}}</code>{{if .OrderID}} for order <code>{{.OrderID}}</code>{{end}}{{if .Status}} ({{.Status}}){{end}} at {{.ReceivedAt}}</li>
    {{end}}</ol>{{else}}<p id="webhook-events">None yet: buy something.</p>{{end}}
  </section>
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
	prices, why := d.prices()
	_ = demoPage.Execute(w, map[string]any{"Return": ret, "Error": msg, "RPC": d.dj.Chain.RPCURL, "ChainID": d.dj.Chain.ChainID,
		"Hook": d.base + demoWebhookPath, "Events": d.recent(10), "Card": d.dj.Fiat.TestCards.Success, "Prices": prices, "NoPrices": why,
		"TopUp": demoTopUp})
}

// demoTopUp is the amount of the store's top-up, in EUR.
const demoTopUp = "50.00"

// demoPricesFor is how long the store shows the prices it was quoted before it asks again
// (a quote's network fee follows the chain's base fee).
const demoPricesFor = 10 * time.Second

// prices are the store's buttons' prices, by the buy form's pay value: what the merchant API
// quotes for each one's order now (A2 for the mints paid in crypto, their crypto_amount; B3 for
// the one paid by card, its fiat_amount), kept demoPricesFor; why says what failed ("" when
// every one was quoted).
func (d *demoStore) prices() (map[string]string, string) {
	d.pmu.Lock()
	defer d.pmu.Unlock()
	if d.quoted != nil && time.Since(d.quotedAt) < demoPricesFor {
		return d.quoted, ""
	}
	out := map[string]string{}
	var why []string
	for _, pay := range []string{"eth", "token", "card"} {
		endpoint, body, err := d.order(pay)
		if err != nil {
			why = append(why, err.Error())
			continue
		}
		key, unit := "crypto_amount", body["crypto_symbol"]
		if pay == "card" {
			endpoint, key, unit = d.dj.API.NFTRampBaseURL+"/merchant/hosted/nftCheckout/fiatQuote", "fiat_amount", body["order_fiat_symbol"]
		} else {
			endpoint = d.dj.API.MintBaseURL + "/merchant/hosted/nftCheckout/cryptoQuote"
		}
		q, err := d.api(http.MethodPost, endpoint, body)
		if err != nil {
			why = append(why, err.Error())
			continue
		}
		if v, _ := q[key].(string); v != "" && q["allowed"] == true {
			out[pay] = v + " " + fmt.Sprint(unit)
		} else {
			why = append(why, fmt.Sprint(q["message"]))
		}
	}
	if len(why) > 0 {
		return out, strings.Join(why, "; ")
	}
	d.quoted, d.quotedAt = out, time.Now()
	return out, ""
}

func (d *demoStore) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/":
		d.render(w, nil, "", http.StatusOK)
	case r.Method == http.MethodPost && r.URL.Path == "/demo/buy":
		d.buy(w, r)
	case r.Method == http.MethodGet && r.URL.Path == "/demo/return":
		d.back(w, r)
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, demoAssetPath) && !strings.HasSuffix(r.URL.Path, "/"):
		demoAssets.ServeHTTP(w, r)
	case r.Method == http.MethodGet && r.URL.Path == demoWebhookPath:
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		_ = json.NewEncoder(w).Encode(map[string]any{"data": d.recent(0)})
	case r.URL.Path == demoWebhookPath:
		d.hooks.ServeHTTP(w, r) // POST; any other method is 405
	default:
		http.NotFound(w, r)
	}
}

// api calls the merchant API (url: a base URL and a path) as the demo merchant's server would.
func (d *demoStore) api(method, url string, body any) (map[string]any, error) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, url, rd)
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
	endpoint, body, err := d.order(r.FormValue("pay"))
	if err != nil {
		d.render(w, nil, err.Error(), http.StatusInternalServerError)
		return
	}
	txn := fmt.Sprintf("demo-%d", time.Now().UnixNano())
	body["merchant_user_id"], body["merchant_txn_id"], body["merchant_redirect_url"] = "demo-buyer", txn, d.base+"/demo/return"
	if endpoint != d.dj.API.MintBaseURL+"/merchant/hosted/nftCheckout/order" {
		body["user_email_id"] = "buyer@example.com" // (the fiat page's identity step asks the rest)
	}
	o, err := d.api(http.MethodPost, endpoint, body)
	if err != nil {
		d.log.Error("demo store: create order", "error", err)
		d.render(w, nil, "The order could not be created: "+err.Error(), http.StatusBadGateway)
		return
	}
	http.Redirect(w, r, o["gateway_url"].(string), http.StatusSeeOther)
}

// order is the order endpoint and the body (its product's part: the quote's fields) of the
// store's button pay ("eth", "token", "card" or "topup").
func (d *demoStore) order(pay string) (string, map[string]any, error) {
	if pay == "topup" { // area C: demoTopUp EUR of ETH to the shop's deposit address; the user chooses how to pay
		return d.dj.API.DepositBaseURL + "/merchant/sdk/on-ramp/order", map[string]any{"merchant_id": d.dj.Merchant.MerchantID,
			"order_fiat_symbol": "EUR", "order_fiat_amount": demoTopUp, "convert_to_crypto_symbol": "ETH",
			"convert_to_crypto_network": d.dj.Chain.Network}, nil
	}
	want := "ETH"
	if pay == "token" {
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
		return "", nil, fmt.Errorf("no demo function is paid in %s", want)
	}
	if pay == "card" { // area B: the mint, paid in euros by card
		return d.dj.API.NFTRampBaseURL + "/merchant/hosted/nftCheckout/order", map[string]any{"merchant_id": d.dj.Merchant.MerchantID,
			"order_fiat_symbol": "EUR", "fiat_payment_method": "credit_debit_card", "contractExecution": fn.Example}, nil
	}
	body := map[string]any{"merchant_id": d.dj.Merchant.MerchantID, "crypto_symbol": want, "crypto_network": d.dj.Chain.Network,
		"contractExecution": fn.Example}
	if fn.Example.Payment != nil && fn.Example.Payment.PayableCryptoContractAddress != "" {
		body["crypto_contract_address"] = fn.Example.Payment.PayableCryptoContractAddress
	}
	return d.dj.API.MintBaseURL + "/merchant/hosted/nftCheckout/order", body, nil
}

func (d *demoStore) back(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("order_id")
	if id == "" || strings.ContainsAny(id, "/?#") {
		d.render(w, nil, "No order to show.", http.StatusBadRequest)
		return
	}
	// The order is in one of the three areas: each area's lookup, in turn.
	var o map[string]any
	var err error
	for _, u := range []string{d.dj.API.MintBaseURL + "/merchant/hosted/nftCheckout/order/", d.dj.API.NFTRampBaseURL + "/merchant/hosted/nftCheckout/order/",
		d.dj.API.DepositBaseURL + "/merchant/sdk/on-ramp/order/"} {
		if o, err = d.api(http.MethodGet, u+url.PathEscape(id), nil); err == nil {
			break
		}
	}
	if err != nil {
		d.render(w, nil, "The order could not be read: "+err.Error(), http.StatusBadGateway)
		return
	}
	ret := &demoReturn{ID: id}
	ret.Status, _ = o["status"].(string)
	ret.Tx, _ = o["execution_tx_hash"].(string)
	d.render(w, ret, "", http.StatusOK)
}
