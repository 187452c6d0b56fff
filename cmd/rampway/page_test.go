package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rampway/rampway"
)

// The hosted checkout page over plain HTTP (the browser tests drive it in Chromium).
func TestCheckoutPageHTTP(t *testing.T) {
	t.Parallel()
	dj, _ := startDev(t, t.TempDir())
	j := newJourney(t, dj)
	o := j.order(t, 0, map[string]any{"to": dj.Chain.PayerAddress, "quantity": "1"})
	gw := o["gateway_url"].(string)
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(u string) (*http.Response, string) {
		t.Helper()
		res, err := noRedirect.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, string(b)
	}
	res, page := get(gw)
	if res.StatusCode != 200 || !strings.Contains(page, o["deposit_address"].(string)) || !strings.Contains(page, o["crypto_amount"].(string)) ||
		!strings.Contains(page, "ethereum:"+o["deposit_address"].(string)+"@1337?value=") || !strings.Contains(page, "Demo Store") {
		t.Fatalf("page: %d\n%s", res.StatusCode, page)
	}
	// The payment link is the EIP-681 URI itself, not html/template's "#ZgotmplZ" (a link
	// that opens no wallet).
	wei, err := rampway.ParseUnits(o["crypto_amount"].(string), 18)
	if err != nil {
		t.Fatal(err)
	}
	if uri := "ethereum:" + o["deposit_address"].(string) + "@1337?value=" + wei.String(); !strings.Contains(page, `<a id="uri" href="`+uri+`">`) ||
		strings.Contains(page, "ZgotmplZ") {
		t.Fatalf("no link to %s in the page:\n%s", uri, page)
	}
	csp := res.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe") ||
		res.Header.Get("Referrer-Policy") != "no-referrer" {
		t.Fatalf("headers: %v", res.Header)
	}
	// What is bought, as a shop shows it: the demo merchant's logo and name, the demo NFT's
	// name and picture (images the dev server serves itself, from the one origin the CSP
	// names), and the price broken down, adding up to the amount.
	base := strings.Split(gw, "/checkout?")[0]
	for _, want := range []string{
		`<img class="logo" src="` + base + `/demo/assets/logo.svg" alt="Demo Store"`,
		`<img class="item-image" src="` + base + `/demo/assets/nft.svg" alt=""`,
		`<h1 id="item-name">Demo NFT</h1>`,
		`<dt>Price</dt><dd><span class="crypto">0.01 ETH</span></dd>`,
		`<dt>Network fee</dt><dd`,
		`<dt>Service fee</dt><dd`,
		`<div class="total"><dt>Total</dt><dd><span class="crypto">` + o["crypto_amount"].(string) + ` ETH</span></dd>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page has no %s", want)
		}
	}
	if !strings.Contains(csp, "img-src 'self' data: "+base+";") {
		t.Errorf("CSP %q does not allow the demo images' origin %s (alone)", csp, base)
	}
	// The page with its assets stays small.
	size := len(page)
	for _, a := range []string{"/checkout/assets/checkout.css", "/checkout/assets/common.js", "/checkout/assets/checkout.js"} {
		r, body := get(strings.Split(gw, "/checkout?")[0] + a)
		if r.StatusCode != 200 {
			t.Fatalf("%s: %d", a, r.StatusCode)
		}
		size += len(body)
	}
	if size > 100<<10 {
		t.Fatalf("page and assets weigh %d bytes", size)
	}
	// A wrong or missing hash: a plain 404, never the order.
	u, _ := url.Parse(gw)
	for _, bad := range []string{"hash=" + strings.Repeat("0", 64), "hash=", ""} {
		res, body := get(u.Scheme + "://" + u.Host + "/checkout?order_id=" + o["order_id"].(string) + "&" + bad)
		if res.StatusCode != 404 || strings.Contains(body, o["deposit_address"].(string)) {
			t.Fatalf("%q: %d\n%s", bad, res.StatusCode, body)
		}
	}
	// Opening the page told the merchant once. The page records the event before its
	// response ends (get reads it whole) and an order's events go out in order: a second
	// user.widget.open would come before the order.cancelled below, which the last check
	// waits for, rather than after a pause long enough on this machine.
	j.hooks.wantEvents(t, o["order_id"].(string), []rampway.EventName{"order.created", "user.widget.open"})
	get(gw)

	// The live status stream starts with the current status.
	ev, err := http.Get(strings.Replace(gw, "/checkout?", "/checkout/events?", 1))
	if err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(ev.Body).ReadString('\n')
	ev.Body.Close()
	if ev.Header.Get("Content-Type") != "text/event-stream" || line != "event: status\n" {
		t.Fatalf("events: %v %q", ev.Header, line)
	}

	// Cancel before paying: CANCELLED, back to the merchant with the order id and status.
	form := url.Values{"order_id": {o["order_id"].(string)}, "hash": {u.Query().Get("hash")}}
	res, err = noRedirect.PostForm(u.Scheme+"://"+u.Host+"/checkout/cancel", form)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	loc := res.Header.Get("Location")
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "http://127.0.0.1:3000/done?") || !strings.Contains(loc, "status=CANCELLED") ||
		!strings.Contains(loc, "order_id="+o["order_id"].(string)) {
		t.Fatalf("cancel: %d %s", res.StatusCode, loc)
	}
	if got := j.get(t, o["order_id"].(string)); got["status"] != "CANCELLED" {
		t.Fatalf("order after cancel: %v", got["status"])
	}
	// Still one user.widget.open: a second opening told the merchant nothing.
	j.hooks.wantEvents(t, o["order_id"].(string), []rampway.EventName{"order.created", "user.widget.open", "order.cancelled"})

	// A form post too large for its form is 413 with a page that says so (issue 29, 7), not a
	// 404 for the order its cut-off body no longer names.
	query := strings.Split(gw, "?")[1]
	for _, path := range []string{"/checkout/identity", "/checkout/refund-address", "/checkout/method", "/checkout/cancel", "/checkout/pay"} {
		res, err := noRedirect.Post(base+path+"?"+query, "application/x-www-form-urlencoded", strings.NewReader("address="+strings.Repeat("a", 20_000)))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(b), "Too much was sent") {
			t.Fatalf("%s with 20 kB: %d\n%s", path, res.StatusCode, b)
		}
	}
}

// The demo store: the shop page, a purchase that leads to gateway_url, the return page.
func TestDemoStoreHTTP(t *testing.T) {
	t.Parallel()
	dj, _ := startDev(t, t.TempDir())
	base := strings.TrimSuffix(dj.API.MintBaseURL, "/mint")
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := http.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	shop, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(shop), "Mint a demo NFT, paid in ETH") || !strings.Contains(string(shop), "paid in the demo token") {
		t.Fatalf("shop: %d\n%s", res.StatusCode, shop)
	}
	// Each product shows its price: what the merchant API quotes for its order now (A2 for the
	// mints paid in crypto, B3 for the one by card; nothing is mined meanwhile, so the same
	// quote), and the top-up its amount.
	price := func(id string) string {
		m := regexp.MustCompile(`<strong class="price" id="` + id + `">([^<]*)</strong>`).FindStringSubmatch(string(shop))
		if m == nil {
			t.Fatalf("no price %s in the shop:\n%s", id, shop)
		}
		return m[1]
	}
	for i, id := range []string{"price-eth", "price-token"} {
		f := dj.SmartContractFunctions[i]
		body := map[string]any{"merchant_id": dj.Merchant.MerchantID, "crypto_symbol": f.PayableSymbol, "crypto_network": dj.Chain.Network,
			"contractExecution": f.Example}
		if f.Example.Payment != nil && f.Example.Payment.PayableCryptoContractAddress != "" {
			body["crypto_contract_address"] = f.Example.Payment.PayableCryptoContractAddress
		}
		b, _ := json.Marshal(body)
		code, q := post(t, dj.API.MintBaseURL+"/merchant/hosted/nftCheckout/cryptoQuote", dj.Merchant.APIKey, string(b))
		if got, want := price(id), fmt.Sprint(q["crypto_amount"])+" "+f.PayableSymbol; code != 200 || got != want {
			t.Errorf("%s: %q, A2 quotes %q (%d %v)", id, got, want, code, q)
		}
	}
	b, _ := json.Marshal(map[string]any{"merchant_id": dj.Merchant.MerchantID, "order_fiat_symbol": "EUR", "fiat_payment_method": "credit_debit_card",
		"contractExecution": dj.SmartContractFunctions[0].Example})
	code, q := post(t, dj.API.NFTRampBaseURL+"/merchant/hosted/nftCheckout/fiatQuote", dj.Merchant.APIKey, string(b))
	if got, want := price("price-card"), fmt.Sprint(q["fiat_amount"])+" EUR"; code != 200 || got != want {
		t.Errorf("price-card: %q, B3 quotes %q (%d %v)", got, want, code, q)
	}
	if got := price("price-topup"); got != demoTopUp+" EUR" {
		t.Errorf("price-topup: %q", got)
	}
	// The demo images are the store's own, served as images that run nothing; nothing else
	// under /demo/assets/ is.
	for path, want := range map[string]int{"/demo/assets/logo.svg": 200, "/demo/assets/nft.svg": 200, "/demo/assets/": 404,
		"/demo/assets/nope.svg": 404, "/demo/assets/../dev.go": 404} {
		res, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != want {
			t.Errorf("%s: %d, want %d", path, res.StatusCode, want)
			continue
		}
		if want == 200 && (res.Header.Get("Content-Type") != "image/svg+xml" || !strings.HasPrefix(res.Header.Get("Content-Security-Policy"), "default-src 'none'") ||
			!strings.HasPrefix(string(body), "<svg ")) {
			t.Errorf("%s: %v\n%.80s", path, res.Header, body)
		}
	}
	// A crypto mint (A), a card mint (B, the identity step first) and a top-up (C, the quote
	// screen first): each a checkout, and the order shown on return.
	for pay, want := range map[string]string{"eth": `id="pay"`, "token": `id="pay"`, "card": `action="/checkout/identity"`, "topup": `action="/checkout/method"`} {
		res, err = noRedirect.PostForm(base+"/demo/buy", url.Values{"pay": {pay}})
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		loc := res.Header.Get("Location")
		if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, base+"/checkout?order_id=ord_") {
			t.Fatalf("buy %s: %d %q", pay, res.StatusCode, loc)
		}
		id := strings.TrimPrefix(strings.Split(loc, "&")[0], base+"/checkout?order_id=")
		res, err = http.Get(loc)
		if err != nil {
			t.Fatal(err)
		}
		checkout, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if !strings.Contains(string(checkout), want) {
			t.Fatalf("buy %s: the checkout has no %s:\n%s", pay, want, checkout)
		}
		res, err = http.Get(base + "/demo/return?order_id=" + id + "&status=CREATED")
		if err != nil {
			t.Fatal(err)
		}
		page, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || !strings.Contains(string(page), id) || !strings.Contains(string(page), "CREATED") {
			t.Fatalf("return: %d\n%s", res.StatusCode, page)
		}
	}
}

// /metrics exports the work queues.
func TestQueueMetrics(t *testing.T) {
	t.Parallel()
	dj, _ := startDev(t, t.TempDir())
	base := strings.TrimSuffix(dj.API.MintBaseURL, "/mint")
	res, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	for _, m := range []string{"rampway_webhook_deliveries_pending ", "rampway_webhook_deliveries_failed ", "rampway_webhook_oldest_pending_seconds ",
		"rampway_orders_awaiting_execution ", "rampway_chain_txs_pending ", "rampway_refunds_pending ",
		"rampway_orders_awaiting_execution_oldest_seconds ", "rampway_fiat_actions_pending ", "rampway_fiat_actions_needing_operator ", "rampway_refunds_awaiting_approval ",
		"rampway_refunds_awaiting_address ", "rampway_refunds_failed "} {
		if !strings.Contains(string(body), "\n"+m) {
			t.Errorf("/metrics has no %s", m)
		}
	}
	// The one instance holds its chain workers' leases (taken as it starts serving).
	want := `rampway_worker_lease_held{lease="watcher/` + dj.Chain.Network + `"} 1`
	for deadline := time.Now().Add(time.Minute); !strings.Contains(string(body), want); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("/metrics has no %s:\n%s", want, body)
		}
		res, err := http.Get(base + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		body, _ = io.ReadAll(res.Body)
		res.Body.Close()
	}
	if !strings.Contains(string(body), `rampway_worker_lease_held{lease="executor/`+dj.Chain.Network+"/") {
		t.Fatalf("/metrics has no executor lease:\n%s", body)
	}
}
