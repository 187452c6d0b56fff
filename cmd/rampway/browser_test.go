package main

// Browser tests: the demo store and the hosted checkout page in a real headless Chromium,
// against a real `rampway dev` (its embedded chain, watcher and executor), paying from the
// test's own wallet. They skip without Chromium, except under CI=true; screenshots of each
// main state go where browsertest.ScreenshotDir says (the test logs it).

import (
	"context"
	"encoding/base64"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	qrcode "github.com/skip2/go-qrcode"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/checkoutpage"
	"github.com/rampway/rampway/internal/browsertest"
)

// browserRun is a dev server, a paying user's wallet and a browser tab, for one test.
type browserRun struct {
	dj   devJSON
	dir  string // the dev server's data directory
	base string // the dev server, where the demo store is
	j    *journey
	ctx  context.Context // the tab
}

func newBrowserRun(t *testing.T) *browserRun {
	t.Helper()
	browsertest.Chromium(t) // skip (or fail in CI) before starting anything
	dir := t.TempDir()
	dj, _ := startDev(t, dir)
	r := &browserRun{dj: dj, dir: dir, base: strings.TrimSuffix(dj.API.MintBaseURL, "/mint"), j: newJourney(t, dj)}
	// Started after the dev server, so stopped before it: an open page holds a status stream.
	r.ctx = browsertest.New(t)
	return r
}

func (r *browserRun) do(t *testing.T, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	browsertest.Do(t, r.ctx, actions...)
}

func (r *browserRun) shot(t *testing.T, name string) {
	t.Helper()
	browsertest.Screenshot(t, r.ctx, name)
}

// checkoutPage is what the test reads from the checkout page's DOM.
type checkoutPage struct {
	OrderID string `json:"order_id"`
	Address string `json:"address"`
	Amount  string `json:"amount"`
	Token   string `json:"token"`
	State   string `json:"state"`
	Path    string `json:"path"`
}

// buy opens the demo store, clicks a buy button and waits for the checkout page it leads to.
func (r *browserRun) buy(t *testing.T, button string) checkoutPage {
	t.Helper()
	r.do(t, chromedp.Navigate(r.base+"/"))
	browsertest.WaitFor(t, r.ctx, "the demo store", `document.title`, 10*time.Second, func(s string) bool { return s == "Demo Store" })
	r.do(t, chromedp.Click(chromedp.ID(button)))
	cp := browsertest.WaitFor(t, r.ctx, "the checkout page", `(() => {
	  const m = document.getElementById("checkout"), st = document.getElementById("status");
	  if (!m || !st || document.readyState === "loading") return {path: location.pathname};
	  return {order_id: m.dataset.orderId, address: document.getElementById("address").textContent.trim(),
	    amount: document.getElementById("amount").textContent.trim(), token: m.dataset.token, state: st.dataset.state, path: location.pathname};
	})()`, 15*time.Second, func(p checkoutPage) bool { return p.State != "" })
	if cp.Path != "/checkout" || cp.State != "CREATED" || !common.IsHexAddress(cp.Address) || cp.Amount == "" {
		t.Fatalf("checkout page after %s: %+v", button, cp)
	}
	// The page shows what the API says the order is, and its link and QR code ask for that.
	o := r.j.get(t, cp.OrderID)
	if o["deposit_address"] != cp.Address || o["crypto_amount"] != cp.Amount || o["status"] != "CREATED" {
		t.Fatalf("the page shows %s to %s, the API says %v to %v (%v)", cp.Amount, cp.Address, o["crypto_amount"], o["deposit_address"], o["status"])
	}
	r.asks(t, o, cp.Amount, false)
	r.showsWhatIsBought(t, o)
	return cp
}

// bought is what the checkout page's header and summary show.
type bought struct {
	Logo      string   `json:"logo"` // the logo's alt text
	LogoShown bool     `json:"logo_shown"`
	Item      string   `json:"item"`
	ImageAlt  *string  `json:"image_alt"`
	ImgShown  bool     `json:"img_shown"`
	Lines     []string `json:"lines"`
}

// showsWhatIsBought checks the page's header and summary, as a shop shows them: the demo
// merchant's logo (loaded: the CSP lets it in; its alt text is the merchant's name), the demo
// NFT's name and picture (loaded, decorative), and the price's lines, the total being the
// order's amount.
func (r *browserRun) showsWhatIsBought(t *testing.T, o map[string]any) {
	t.Helper()
	b := browsertest.WaitFor(t, r.ctx, "the header's images", `(() => {
	  const logo = document.querySelector(".seller img"), img = document.querySelector(".item img");
	  return {logo: logo ? logo.alt : "", logo_shown: !!logo && logo.complete && logo.naturalWidth > 0,
	    item: document.getElementById("item-name").textContent.trim(), image_alt: img ? img.getAttribute("alt") : null,
	    img_shown: !!img && img.complete && img.naturalWidth > 0,
	    lines: [...document.querySelectorAll("#price div")].map((d) => d.querySelector("dt").textContent + ": " + d.querySelector("dd").textContent)};
	})()`, 10*time.Second, func(b bought) bool { return b.LogoShown && b.ImgShown })
	symbol := fmt.Sprint(o["crypto_symbol"])
	if b.Logo != "Demo Store" || !strings.HasPrefix(b.Item, "Demo NFT") || b.ImageAlt == nil || *b.ImageAlt != "" || len(b.Lines) != 4 ||
		!strings.HasPrefix(b.Lines[0], "Price: ") || b.Lines[3] != "Total: "+fmt.Sprint(o["crypto_amount"])+" "+symbol {
		t.Fatalf("the page shows %+v for order %v %v", b, o["crypto_amount"], symbol)
	}
}

// asked is what the checkout page asks the user to pay, everywhere it says it.
type asked struct {
	Amount string `json:"amount"` // #amount
	Copy   string `json:"copy"`   // what the amount's copy button copies
	Label  string `json:"label"`  // the payment section's heading
	Href   string `json:"href"`   // the link's href, as the browser resolved it
	QRURI  string `json:"qr_uri"` // the URI the QR code was made of (its data-uri)
	QRSrc  string `json:"qr_src"` // the QR code's image
	Units  string `json:"units"`  // what the wallet button sends, in base units
	Hidden bool   `json:"hidden"` // the payment section is hidden
}

const askedJS = `(() => {
  const m = document.getElementById("checkout"), qr = document.getElementById("qr");
  return {amount: document.getElementById("amount").textContent.trim(), copy: document.getElementById("copy-amount").dataset.copy,
    label: document.getElementById("pay-label").textContent.trim(), href: document.getElementById("uri").href,
    qr_uri: qr.dataset.uri, qr_src: qr.src, units: m.dataset.units, hidden: document.getElementById("pay").hidden};
})()`

// eip681 is the EIP-681 URI of a payment of amount (decimal, whole units) of order o's asset
// to its deposit address on the dev chain.
func (r *browserRun) eip681(t *testing.T, o map[string]any, amount string) (uri string, units *big.Int) {
	t.Helper()
	token, _ := o["crypto_contract_address"].(string)
	decimals := uint8(18)
	if token != "" {
		decimals = 6
	}
	units, err := rampway.ParseUnits(amount, decimals)
	if err != nil {
		t.Fatal(err)
	}
	dep := common.HexToAddress(o["deposit_address"].(string)).Hex()
	if token == "" {
		return fmt.Sprintf("ethereum:%s@%d?value=%s", dep, r.dj.Chain.ChainID, units), units
	}
	return fmt.Sprintf("ethereum:%s@%d/transfer?address=%s&uint256=%s", common.HexToAddress(token).Hex(), r.dj.Chain.ChainID, dep, units), units
}

// asks checks that the page asks for amount of order o, and only that: the amount shown and
// copied, the wallet's units, the link's href (the EIP-681 URI: the browser sees it as is,
// not html/template's "#ZgotmplZ") and the QR code, which must be the PNG of that same URI
// (made here with the page's library and settings, so the image itself is compared, not only
// its data-uri). partial: part of the order was paid, amount is the rest.
func (r *browserRun) asks(t *testing.T, o map[string]any, amount string, partial bool) asked {
	t.Helper()
	uri, units := r.eip681(t, o, amount)
	png, err := qrcode.Encode(uri, qrcode.Medium, 256)
	if err != nil {
		t.Fatal(err)
	}
	label := checkoutpage.Messages["amount"]
	if partial {
		label = checkoutpage.Messages["amount_left"]
	}
	want := asked{Amount: amount, Copy: amount, Label: label, Href: uri, QRURI: uri, QRSrc: "data:image/png;base64," + base64.StdEncoding.EncodeToString(png),
		Units: units.String()}
	got := browsertest.Eval[asked](t, r.ctx, askedJS)
	if got != want {
		short := func(a asked) asked { a.QRSrc = fmt.Sprintf("%.40s…(%d)", a.QRSrc, len(a.QRSrc)); return a }
		t.Fatalf("the page asks for\n  %+v\nwant\n  %+v", short(got), short(want))
	}
	return got
}

// state is #status's data-state, or "" while no checkout page is there (a navigation).
func (r *browserRun) state() string {
	ctx, cancel := context.WithTimeout(r.ctx, 5*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.getElementById("status") || {dataset: {}}).dataset.state || ""`))
	if err != nil {
		return ""
	}
	return s
}

// watch follows #status until SUCCESS, returning the states it saw in order; on the first
// sight of each state in shots it saves a screenshot named shots[state].
func (r *browserRun) watch(t *testing.T, shots map[string]string) []string {
	t.Helper()
	var seen []string
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(30 * time.Millisecond) {
		s := r.state()
		if s != "" && (len(seen) == 0 || seen[len(seen)-1] != s) {
			seen = append(seen, s)
			if name, ok := shots[s]; ok {
				r.shot(t, name)
				delete(shots, s)
			}
			// Once the payment is seen the page stops asking for one: a second payment would
			// only be refunded.
			if s != "CREATED" && s != "UNDERPAID" {
				if hidden := browsertest.Eval[bool](t, r.ctx, `document.getElementById("pay").hidden`); !hidden {
					t.Fatalf("the payment section still shows at %s", s)
				}
			}
		}
		switch s {
		case "SUCCESS":
			return seen
		case "FAILED", "EXPIRED", "CANCELLED", "REFUNDED", "REFUND_PENDING":
			t.Fatalf("the order went %s; states seen: %v", s, seen)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no SUCCESS on the page after 2 minutes; states seen: %v; %s", seen, r.whereIsIt(t))
		}
	}
}

// whereIsIt says, for a failure message, where the order of the open page is by the API and
// whether the page's live stream was up: a page behind the API missed an update, a page that
// agrees with it waited on the service.
func (r *browserRun) whereIsIt(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(r.ctx, 5*time.Second)
	defer cancel()
	type where struct {
		OrderID string `json:"order_id"`
		Live    bool   `json:"live_hidden"`
		URL     string `json:"url"`
	}
	page, err := chromedp.Run(ctx, chromedp.Evaluate[where](`({order_id: new URLSearchParams(location.search).get("order_id") || "",
	  live_hidden: !!(document.getElementById("live") || {hidden: true}).hidden, url: location.pathname})`))
	if err != nil {
		return "the page does not answer: " + err.Error()
	}
	if page.OrderID == "" {
		return "the page is at " + page.URL
	}
	o := getOrder(t, r.j.dj, page.OrderID)
	return fmt.Sprintf("the API says %v (received %v); the page's \"reconnecting\" line hidden=%v", o["status"], o["crypto_amount_received"], page.Live)
}

// backAtStore waits for the page's automatic return to the demo store and returns the store's
// #order-status text.
func (r *browserRun) backAtStore(t *testing.T, limit time.Duration) string {
	t.Helper()
	return browsertest.WaitFor(t, r.ctx, "the return to the demo store", `location.pathname === "/demo/return" && document.readyState === "complete" && document.getElementById("order-status") ?
	  document.getElementById("order-status").textContent.replace(/\s+/g, " ").trim() : ""`, limit, func(s string) bool { return s != "" })
}

// The demo store's ETH journey: buy, read the address and amount from the page, pay exactly
// that from the test's own wallet, watch the page follow the order to SUCCESS, and land back
// at the store, which says SUCCESS.
func TestBrowserDemoStoreETH(t *testing.T) {
	t.Parallel()
	r := newBrowserRun(t)
	r.do(t, chromedp.Navigate(r.base+"/"))
	r.shot(t, "1-store")
	cp := r.buy(t, "buy-eth")
	if cp.Token != "" {
		t.Fatalf("an ETH order with a token: %+v", cp)
	}
	r.shot(t, "2-waiting-for-payment")

	start := time.Now()
	r.j.pay(t, map[string]any{"deposit_address": cp.Address}, cp.Amount)
	// The states in between go by in a second or two: each one caught gets its picture.
	seen := r.watch(t, map[string]string{"DEPOSIT_PROCESSING": "3-payment-seen",
		"DEPOSIT_SUCCESS": "3-payment-received", "SMARTCONTRACT_PROCESSING": "3-executing"})
	t.Logf("paid to SUCCESS in %s; states on the page: %v", time.Since(start).Round(10*time.Millisecond), seen)
	if !slices.IsSorted(rank(t, seen)) { // (buy saw CREATED before the payment)
		t.Fatalf("states on the page out of order: %v", seen)
	}
	r.shot(t, "4-success")
	browsertest.CheckAccessibility(t, r.ctx, "the checkout page at SUCCESS")
	// The final state: the payment part is gone, the return link and the execution tx are there.
	o := r.j.get(t, cp.OrderID)
	final := browsertest.Eval[map[string]any](t, r.ctx, `({pay: document.getElementById("pay").hidden, ret: document.getElementById("return").hidden,
	  href: document.getElementById("return-link").href, tx: document.getElementById("tx-hash").textContent,
	  cancel: document.getElementById("cancel-form").hidden, text: document.getElementById("status").textContent})`)
	if final["pay"] != true || final["ret"] != false || final["cancel"] != true || final["tx"] != o["execution_tx_hash"] ||
		!strings.HasPrefix(final["href"].(string), r.base+"/demo/return?") || final["text"] != checkoutpage.Messages["st_SUCCESS"] {
		t.Fatalf("final page: %v (order %v)", final, o)
	}
	r.paidView(t, o, "ETH")

	text := r.backAtStore(t, 15*time.Second)
	if want := fmt.Sprintf("Order %s is SUCCESS (transaction %s).", cp.OrderID, o["execution_tx_hash"]); text != want {
		t.Fatalf("the store says %q, want %q", text, want)
	}
	r.shot(t, "5-store-success")
	browsertest.CheckAccessibility(t, r.ctx, "the demo store's return page")
}

// paid is what the page says was paid.
type paid struct {
	Hidden   bool     `json:"hidden"`
	Amount   string   `json:"amount"` // #paid-amount and the asset after it
	Payments []string `json:"payments"`
	Hashes   []string `json:"hashes"`
	TxHidden bool     `json:"tx_hidden"`
	Tx       string   `json:"tx"`
}

// paidView checks that the page, once the order is paid, still shows what was paid (the
// amount in its asset, and each payment's transaction as the API lists its deposits) and the
// order's transaction.
func (r *browserRun) paidView(t *testing.T, o map[string]any, symbol string) paid {
	t.Helper()
	p := browsertest.Eval[paid](t, r.ctx, `(() => {
	  const el = document.getElementById("paid");
	  return {hidden: el.hidden || el.offsetParent === null, amount: el.querySelector("p strong").textContent.replace(/\s+/g, " ").trim(),
	    payments: [...el.querySelectorAll("#payments li")].map((li) => li.querySelector(".tx-amount").textContent.trim()),
	    hashes: [...el.querySelectorAll("#payments li code")].map((c) => c.textContent.trim()),
	    tx_hidden: document.getElementById("tx").hidden, tx: document.getElementById("tx-hash").textContent.trim()};
	})()`)
	var hashes, amounts []string
	deposits, _ := o["deposits"].([]any)
	for _, d := range deposits {
		d := d.(map[string]any)
		hashes = append(hashes, fmt.Sprint(d["tx_hash"]))
		amounts = append(amounts, fmt.Sprint(d["amount"])+" "+symbol)
	}
	if p.Hidden || p.Amount != fmt.Sprint(o["crypto_amount"])+" "+symbol || !slices.Equal(p.Payments, amounts) || len(hashes) == 0 ||
		!slices.EqualFunc(p.Hashes, hashes, strings.EqualFold) || p.TxHidden || p.Tx != o["execution_tx_hash"] {
		t.Fatalf("what the page says was paid: %+v; the order: %v %v, deposits %v, tx %v", p, o["crypto_amount"], symbol, deposits, o["execution_tx_hash"])
	}
	return p
}

// rank maps the statuses of a paid order to their place in its life, for an order check.
func rank(t *testing.T, states []string) []int {
	t.Helper()
	order := []string{"CREATED", "DEPOSIT_PROCESSING", "DEPOSIT_SUCCESS", "SMARTCONTRACT_PROCESSING", "SUCCESS"}
	var out []int
	for _, s := range states {
		i := slices.Index(order, s)
		if i < 0 {
			t.Fatalf("unexpected state %s in %v", s, states)
		}
		out = append(out, i)
	}
	return out
}

// wallet is an EIP-1193 provider injected into every page as window.ethereum, backed by the
// embedded chain: its request() goes to a Go func (chromedp.ExposeFunc) that answers for the
// payer's account, signing and sending transactions with the payer key. It records every call.
// It starts on the dev chain, knowing only it; onOtherChain puts it on another chain, as a
// user's wallet left on mainnet.
type wallet struct {
	j       *journey
	chainID *big.Int // the dev chain, the only one this wallet can send on
	account common.Address
	reject  atomic.Bool // the user says no to eth_sendTransaction (EIP-1193 code 4001)

	mu    sync.Mutex
	on    string          // the chain the wallet is on (0x hex)
	known map[string]bool // the chains it knows: a switch to another one fails with 4902
	// refuseAdd: the user says no to wallet_addEthereumChain (4001); otherwise the wallet adds
	// the chain and switches to it, as MetaMask does.
	refuseAdd bool
	// stuck: wallet_switchEthereumChain says yes but the wallet stays where it is (a broken
	// wallet, or a user who switches back meanwhile).
	stuck bool
	calls []walletRequest
	sent  []*types.Transaction
}

// onOtherChain puts the wallet on chain id (hex) knowing only that chain, refusing to add
// another when refuseAdd, lying about switches when stuck.
func (w *wallet) onOtherChain(id string, refuseAdd, stuck bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.on, w.known, w.refuseAdd, w.stuck = id, map[string]bool{id: true}, refuseAdd, stuck
	w.calls = nil
}

type walletRequest struct {
	Method string           `json:"method"`
	Params []map[string]any `json:"params"`
}

type walletError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type walletReply struct {
	Result any          `json:"result"`
	Error  *walletError `json:"error,omitempty"`
}

// providerJS installs window.ethereum in each new document, before the page's own scripts
// (Page.addScriptToEvaluateOnNewDocument, which the page's CSP does not apply to).
const providerJS = `(() => {
  window.ethereum = {
    isRampwayTestWallet: true,
    async request(args) {
      const r = await window.rampwayWallet({method: args.method, params: args.params || []});
      if (r.error) { const e = new Error(r.error.message); e.code = r.error.code; throw e; }
      return r.result;
    },
    on() {}, removeListener() {},
  };
})();`

func installWallet(t *testing.T, r *browserRun) *wallet {
	t.Helper()
	w := &wallet{j: r.j, chainID: big.NewInt(r.dj.Chain.ChainID), account: crypto.PubkeyToAddress(r.j.payer.PublicKey)}
	w.on = hexutil.EncodeBig(w.chainID)
	w.known = map[string]bool{w.on: true}
	r.do(t, chromedp.ExposeFunc("rampwayWallet", w.request))
	ctx, cancel := context.WithTimeout(r.ctx, browsertest.Timeout)
	defer cancel()
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: providerJS}); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *wallet) request(ctx context.Context, req walletRequest) (walletReply, error) {
	w.mu.Lock()
	w.calls = append(w.calls, req)
	on := w.on
	w.mu.Unlock()
	param := func(k string) any {
		if len(req.Params) != 1 {
			return nil
		}
		return req.Params[0][k]
	}
	switch req.Method {
	case "eth_requestAccounts", "eth_accounts":
		return walletReply{Result: []string{w.account.Hex()}}, nil
	case "eth_chainId":
		return walletReply{Result: on}, nil
	case "wallet_switchEthereumChain":
		id, _ := param("chainId").(string)
		w.mu.Lock()
		defer w.mu.Unlock()
		if !w.known[id] {
			return walletReply{Error: &walletError{4902, fmt.Sprintf("Unrecognized chain ID %q. Try adding the chain using wallet_addEthereumChain first.", id)}}, nil
		}
		if !w.stuck {
			w.on = id
		}
		return walletReply{Result: nil}, nil
	case "wallet_addEthereumChain":
		id, _ := param("chainId").(string)
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.refuseAdd {
			return walletReply{Error: &walletError{4001, "User rejected the request."}}, nil
		}
		w.known[id] = true
		w.on = id
		return walletReply{Result: nil}, nil
	case "eth_sendTransaction":
		if w.reject.Load() {
			return walletReply{Error: &walletError{4001, "User rejected the request."}}, nil
		}
		if len(req.Params) != 1 {
			return walletReply{Error: &walletError{-32602, "eth_sendTransaction takes one transaction"}}, nil
		}
		// A wallet signs for the chain it is on: anywhere but the dev chain, the user would
		// pay on another chain, where nobody watches the deposit address.
		if on != hexutil.EncodeBig(w.chainID) {
			return walletReply{Error: &walletError{-32603, "TEST WALLET: asked to send on chain " + on}}, nil
		}
		if c, ok := param("chainId").(string); ok && c != on {
			return walletReply{Error: &walletError{-32602, fmt.Sprintf("chainId %s is not the wallet's chain %s", c, on)}}, nil
		}
		hash, err := w.send(ctx, req.Params[0])
		if err != nil {
			return walletReply{Error: &walletError{-32603, err.Error()}}, nil
		}
		return walletReply{Result: hash}, nil
	}
	return walletReply{Error: &walletError{4200, "Unsupported method " + req.Method}}, nil
}

// send signs tx (EIP-1193 fields: from, to, value, data, all hex) with the payer key and
// sends it to the chain, as a wallet would once the user confirms.
func (w *wallet) send(ctx context.Context, p map[string]any) (string, error) {
	str := func(k string) string { s, _ := p[k].(string); return s }
	if !strings.EqualFold(str("from"), w.account.Hex()) {
		return "", fmt.Errorf("from %q is not this wallet's account", str("from"))
	}
	if !common.IsHexAddress(str("to")) {
		return "", fmt.Errorf("to %q is not an address", str("to"))
	}
	to, value, data := common.HexToAddress(str("to")), new(big.Int), []byte(nil)
	var err error
	if v := str("value"); v != "" {
		if value, err = hexutil.DecodeBig(v); err != nil {
			return "", fmt.Errorf("value %q: %w", v, err)
		}
	}
	if d := str("data"); d != "" {
		if data, err = hexutil.Decode(d); err != nil {
			return "", fmt.Errorf("data %q: %w", d, err)
		}
	}
	c := w.j.c
	gas, err := c.EstimateGas(ctx, ethereum.CallMsg{From: w.account, To: &to, Value: value, Data: data})
	if err != nil {
		return "", fmt.Errorf("estimate gas: %w", err)
	}
	head, err := c.HeaderByNumber(ctx, nil)
	if err != nil {
		return "", err
	}
	tip := big.NewInt(1e9)
	w.j.mu.Lock() // the payer's nonce, shared with journey.pay
	defer w.j.mu.Unlock()
	tx, err := types.SignNewTx(w.j.payer, types.LatestSignerForChainID(w.chainID), &types.DynamicFeeTx{ChainID: w.chainID,
		// 1.2x the estimate, as wallets do: a sweep of the deposit address between the estimate
		// and the mining made the rest of an underpaid order run out of gas (rampway no longer
		// sweeps an UNDERPAID order's address; TestBrowserUnderpaid would see it again).
		Nonce: w.j.nonce, GasTipCap: tip, GasFeeCap: new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip),
		Gas: gas * 12 / 10, To: &to, Value: value, Data: data})
	if err != nil {
		return "", err
	}
	if err := c.SendTransaction(ctx, tx); err != nil {
		return "", fmt.Errorf("send: %w", err)
	}
	w.j.nonce++
	w.mu.Lock()
	w.sent = append(w.sent, tx)
	w.mu.Unlock()
	return tx.Hash().Hex(), nil
}

func (w *wallet) methods() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var m []string
	for _, c := range w.calls {
		m = append(m, c.Method)
	}
	return m
}

// walletMsg waits for #wallet-msg to say something containing want.
func (r *browserRun) walletMsg(t *testing.T, want string) string {
	t.Helper()
	return browsertest.WaitFor(t, r.ctx, "#wallet-msg to say "+want, `document.getElementById("wallet-msg").textContent`, 15*time.Second,
		func(s string) bool { return strings.Contains(s, want) })
}

// The wallet-button journey, paid in the demo token (the page builds a transfer() call): a
// user who first refuses in the wallet sees why, then pays with the button; the order
// reaches SUCCESS and the store says so. Then the same button pays an ETH order.
func TestBrowserWalletButton(t *testing.T) {
	t.Parallel()
	r := newBrowserRun(t)
	w := installWallet(t, r)
	cp := r.buy(t, "buy-token")
	if !strings.EqualFold(cp.Token, r.dj.Contracts.Token) {
		t.Fatalf("a DUSD order without the token's address: %+v", cp)
	}
	r.shot(t, "1-token-waiting-for-payment")

	// The user says no in the wallet: the page tells, and the button works again.
	w.reject.Store(true)
	r.do(t, chromedp.Click(chromedp.ID("wallet")))
	msg := r.walletMsg(t, "User rejected")
	if want := checkoutpage.Messages["wallet_error"] + "User rejected the request."; msg != want {
		t.Fatalf("#wallet-msg %q, want %q", msg, want)
	}
	browsertest.WaitFor(t, r.ctx, "#wallet enabled again", `!document.getElementById("wallet").disabled`, 5*time.Second, func(b bool) bool { return b })
	r.shot(t, "2-token-wallet-refused")
	browsertest.CheckAccessibility(t, r.ctx, "the checkout page with a wallet error")
	if s := r.state(); s != "CREATED" {
		t.Fatalf("state after a refusal: %s", s)
	}

	// Now the user confirms.
	w.reject.Store(false)
	r.do(t, chromedp.Click(chromedp.ID("wallet")))
	msg = r.walletMsg(t, checkoutpage.Messages["wallet_sent"])
	w.mu.Lock()
	if len(w.sent) != 1 {
		w.mu.Unlock()
		t.Fatalf("the wallet sent %d transactions, want 1", len(w.sent))
	}
	tx := w.sent[0]
	w.mu.Unlock()
	if want := checkoutpage.Messages["wallet_sent"] + tx.Hash().Hex(); msg != want {
		t.Fatalf("#wallet-msg %q, want %q", msg, want)
	}
	r.shot(t, "3-token-payment-sent")
	// What the page asked the wallet for: accounts, its chain (already the dev chain: no
	// switch), and a DUSD transfer on the dev chain (0x539 = 1337) of exactly the amount shown
	// to the address shown.
	if m := w.methods(); !slices.Equal(m, []string{"eth_requestAccounts", "eth_chainId", "eth_sendTransaction",
		"eth_requestAccounts", "eth_chainId", "eth_sendTransaction"}) {
		t.Fatalf("wallet calls: %v", m)
	}
	w.mu.Lock()
	txChain := w.calls[5].Params[0]["chainId"]
	w.mu.Unlock()
	if txChain != "0x539" {
		t.Fatalf("eth_sendTransaction with chainId %v, want 0x539", txChain)
	}
	units, err := rampway.ParseUnits(cp.Amount, 6)
	if err != nil {
		t.Fatal(err)
	}
	wantData := append(crypto.Keccak256([]byte("transfer(address,uint256)"))[:4],
		append(common.LeftPadBytes(common.HexToAddress(cp.Address).Bytes(), 32), common.LeftPadBytes(units.Bytes(), 32)...)...)
	if *tx.To() != common.HexToAddress(r.dj.Contracts.Token) || tx.Value().Sign() != 0 || !slices.Equal(tx.Data(), wantData) {
		t.Fatalf("the page asked for to=%s value=%s data=%x, want a transfer of %s DUSD to %s", tx.To(), tx.Value(), tx.Data(), cp.Amount, cp.Address)
	}

	seen := r.watch(t, map[string]string{"DEPOSIT_PROCESSING": "4-token-payment-seen", "SMARTCONTRACT_PROCESSING": "4-token-executing"})
	t.Logf("states on the page: %v", seen)
	r.shot(t, "5-token-success")
	text := r.backAtStore(t, 15*time.Second)
	if !strings.HasPrefix(text, "Order "+cp.OrderID+" is SUCCESS") {
		t.Fatalf("the store says %q", text)
	}
	r.shot(t, "6-token-store-success")

	// The ETH order: the page asks for value = the amount in wei, no data.
	cp = r.buy(t, "buy-eth")
	r.do(t, chromedp.Click(chromedp.ID("wallet")))
	r.walletMsg(t, checkoutpage.Messages["wallet_sent"])
	w.mu.Lock()
	tx = w.sent[len(w.sent)-1]
	w.mu.Unlock()
	wei, err := rampway.ParseUnits(cp.Amount, 18)
	if err != nil {
		t.Fatal(err)
	}
	if *tx.To() != common.HexToAddress(cp.Address) || tx.Value().Cmp(wei) != 0 || len(tx.Data()) != 0 {
		t.Fatalf("the page asked for to=%s value=%s data=%x, want %s ETH to %s", tx.To(), tx.Value(), tx.Data(), cp.Amount, cp.Address)
	}
	r.watch(t, nil)
	r.shot(t, "7-eth-success")
}

// A wallet on another chain never pays there. Left on mainnet (0x1) and not knowing the dev
// chain, it is asked to switch, then (4902, unknown chain) to add the dev chain with its
// parameters; a user who refuses sees why and nothing is sent. A wallet that says it switched
// but did not is caught by the page's eth_chainId check: nothing is sent. A user who accepts
// the new chain pays on it, and the transaction names the dev chain.
func TestBrowserWalletOtherChain(t *testing.T) {
	t.Parallel()
	r := newBrowserRun(t)
	w := installWallet(t, r)
	cp := r.buy(t, "buy-eth")
	dev := hexutil.EncodeBig(big.NewInt(r.dj.Chain.ChainID))
	calls := func() []walletRequest {
		w.mu.Lock()
		defer w.mu.Unlock()
		return slices.Clone(w.calls)
	}
	noSend := func(what string) {
		t.Helper()
		if m := w.methods(); slices.Contains(m, "eth_sendTransaction") {
			t.Fatalf("%s: the page asked the wallet to send (%v)", what, m)
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		if len(w.sent) > 0 {
			t.Fatalf("%s: the wallet sent %d transactions", what, len(w.sent))
		}
	}

	// The user refuses to add the dev chain.
	w.onOtherChain("0x1", true, false)
	r.do(t, chromedp.Click(chromedp.ID("wallet")))
	chainMsg := strings.NewReplacer("{network}", r.dj.Chain.Network, "{want}", fmt.Sprint(r.dj.Chain.ChainID))
	msg := r.walletMsg(t, "User rejected")
	if want := strings.NewReplacer("{reason}", "User rejected the request").Replace(chainMsg.Replace(checkoutpage.Messages["wallet_not_switched"])); msg != want {
		t.Fatalf("#wallet-msg %q, want %q", msg, want)
	}
	browsertest.WaitFor(t, r.ctx, "#wallet enabled again", `!document.getElementById("wallet").disabled`, 5*time.Second, func(b bool) bool { return b })
	if m := w.methods(); !slices.Equal(m, []string{"eth_requestAccounts", "eth_chainId", "wallet_switchEthereumChain", "wallet_addEthereumChain"}) {
		t.Fatalf("wallet calls: %v", m)
	}
	noSend("add refused")
	// What wallet_addEthereumChain was given: the dev chain as EIP-3085 describes a chain (the
	// dev network has no block explorer: none is given).
	add := calls()[3].Params
	wantAdd := []map[string]any{{"chainId": dev, "chainName": r.dj.Chain.Network, "rpcUrls": []any{r.dj.Chain.RPCURL},
		"nativeCurrency": map[string]any{"name": "ETH", "symbol": "ETH", "decimals": float64(18)}}}
	if fmt.Sprint(add) != fmt.Sprint(wantAdd) {
		t.Fatalf("wallet_addEthereumChain params %v, want %v", add, wantAdd)
	}
	if sw := calls()[2].Params; len(sw) != 1 || sw[0]["chainId"] != dev {
		t.Fatalf("wallet_switchEthereumChain params %v", sw)
	}
	r.shot(t, "1-other-chain-add-refused")
	browsertest.CheckAccessibility(t, r.ctx, "the checkout page after a refused network")

	// The wallet knows the dev chain and says it switched, but stays on mainnet.
	w.onOtherChain("0x1", false, true)
	w.mu.Lock()
	w.known[dev] = true
	w.mu.Unlock()
	r.do(t, chromedp.Click(chromedp.ID("wallet")))
	want := strings.ReplaceAll(chainMsg.Replace(checkoutpage.Messages["wallet_wrong_chain"]), "{got}", "1")
	if msg := r.walletMsg(t, want); msg != want {
		t.Fatalf("#wallet-msg %q, want %q", msg, want)
	}
	if m := w.methods(); !slices.Equal(m, []string{"eth_requestAccounts", "eth_chainId", "wallet_switchEthereumChain", "eth_chainId"}) {
		t.Fatalf("wallet calls: %v", m)
	}
	noSend("a wallet stuck on another chain")
	r.shot(t, "2-other-chain-not-switched")

	// The user accepts the dev chain: the wallet adds it and switches, and the page pays there.
	w.onOtherChain("0x1", false, false)
	r.do(t, chromedp.Click(chromedp.ID("wallet")))
	r.walletMsg(t, checkoutpage.Messages["wallet_sent"])
	if m := w.methods(); !slices.Equal(m, []string{"eth_requestAccounts", "eth_chainId", "wallet_switchEthereumChain", "wallet_addEthereumChain",
		"eth_chainId", "eth_sendTransaction"}) {
		t.Fatalf("wallet calls: %v", m)
	}
	c := calls()
	w.mu.Lock()
	sent := slices.Clone(w.sent)
	w.mu.Unlock()
	if txChain := c[len(c)-1].Params[0]["chainId"]; txChain != dev || len(sent) != 1 || sent[0].ChainId().Cmp(big.NewInt(r.dj.Chain.ChainID)) != 0 {
		t.Fatalf("eth_sendTransaction with chainId %v, %d sent", txChain, len(sent))
	}
	wei, err := rampway.ParseUnits(cp.Amount, 18)
	if err != nil {
		t.Fatal(err)
	}
	if tx := sent[0]; *tx.To() != common.HexToAddress(cp.Address) || tx.Value().Cmp(wei) != 0 {
		t.Fatalf("the page asked for to=%s value=%s, want %s ETH to %s", tx.To(), tx.Value(), cp.Amount, cp.Address)
	}
	r.shot(t, "3-other-chain-added-and-paid")
	r.watch(t, nil)
	r.paidView(t, r.j.get(t, cp.OrderID), "ETH")
}

// A partial payment: the page says what is missing and from then on asks for exactly that,
// everywhere (amount, copy button, EIP-681 link, QR code, wallet button), live and after a
// reload; the rest, paid with the wallet button, completes the order, and the success view
// keeps the amount paid and both payments' transactions. Paid in the demo token: its link
// is a transfer() call whose amount changes.
func TestBrowserUnderpaid(t *testing.T) {
	t.Parallel()
	r := newBrowserRun(t)
	w := installWallet(t, r)
	cp := r.buy(t, "buy-token")
	o := r.j.get(t, cp.OrderID)
	whole := browsertest.Eval[asked](t, r.ctx, askedJS)
	total, err := rampway.ParseUnits(cp.Amount, 6)
	if err != nil {
		t.Fatal(err)
	}
	half := new(big.Int).Div(total, big.NewInt(2))
	rest := rampway.FormatUnits(new(big.Int).Sub(total, half), 6)
	r.shot(t, "1-waiting-for-payment")

	r.j.pay(t, o, rampway.FormatUnits(half, 6))
	browsertest.WaitFor(t, r.ctx, "the page to say UNDERPAID", `document.getElementById("status").dataset.state`, 30*time.Second,
		func(s string) bool { return s == "UNDERPAID" })
	live := r.asks(t, o, rest, true)
	if live.QRSrc == whole.QRSrc || live.Href == whole.Href {
		t.Fatalf("the QR code or the link still asks for the whole amount")
	}
	status := browsertest.Eval[string](t, r.ctx, `document.getElementById("status").textContent`)
	if want := strings.NewReplacer("{missing}", rest, "{symbol}", "DUSD").Replace(checkoutpage.Messages["st_UNDERPAID"]); status != want {
		t.Fatalf("status %q, want %q", status, want)
	}
	paidNow := browsertest.Eval[string](t, r.ctx, `document.getElementById("paid").hidden ? "" : document.getElementById("paid-amount").textContent`)
	if paidNow != rampway.FormatUnits(half, 6) {
		t.Fatalf("the page says %q was paid, want %s", paidNow, rampway.FormatUnits(half, 6))
	}
	r.shot(t, "2-underpaid-live")

	// A reload asks for the rest too (server side), also on a phone.
	r.do(t, chromedp.EmulateViewport(360, 740, chromedp.EmulateMobile), chromedp.Reload())
	browsertest.WaitFor(t, r.ctx, "the reloaded page", `document.readyState !== "loading" && document.getElementById("status") ?
	  document.getElementById("status").dataset.state : ""`, 15*time.Second,
		func(s string) bool { return s == "UNDERPAID" })
	r.asks(t, o, rest, true)
	r.shot(t, "3-underpaid-reloaded-360px")
	browsertest.CheckAccessibility(t, r.ctx, "the checkout page of an underpaid order")
	if sw := browsertest.Eval[int](t, r.ctx, `document.documentElement.scrollWidth`); sw > 360 {
		t.Errorf("the underpaid page is %d px wide at 360 px: it scrolls sideways", sw)
	}

	// The wallet button pays the rest, exactly.
	r.do(t, chromedp.Click(chromedp.ID("wallet")))
	r.walletMsg(t, checkoutpage.Messages["wallet_sent"])
	w.mu.Lock()
	tx := w.sent[len(w.sent)-1]
	w.mu.Unlock()
	restUnits, _ := rampway.ParseUnits(rest, 6)
	wantData := append(crypto.Keccak256([]byte("transfer(address,uint256)"))[:4],
		append(common.LeftPadBytes(common.HexToAddress(cp.Address).Bytes(), 32), common.LeftPadBytes(restUnits.Bytes(), 32)...)...)
	if *tx.To() != common.HexToAddress(r.dj.Contracts.Token) || !slices.Equal(tx.Data(), wantData) {
		t.Fatalf("the wallet button asked for to=%s data=%x, want a transfer of %s DUSD to %s", tx.To(), tx.Data(), rest, cp.Address)
	}
	// Mined first (seen once under load: the order stayed UNDERPAID for 2 minutes after the
	// wallet sent the rest; this tells a transfer never mined from one mined and not seen).
	r.j.mined(t, tx)
	r.watch(t, map[string]string{"DEPOSIT_PROCESSING": "4-rest-seen-360px"})
	o = r.j.get(t, cp.OrderID)
	if o["crypto_amount_received"] != cp.Amount {
		t.Fatalf("received %v of %s", o["crypto_amount_received"], cp.Amount)
	}
	p := r.paidView(t, o, "DUSD")
	if len(p.Payments) != 2 {
		t.Fatalf("payments on the page: %v, want the half and the rest", p.Payments)
	}
	r.shot(t, "5-success-360px")
	browsertest.CheckAccessibility(t, r.ctx, "the checkout page at SUCCESS after two payments")
	if sw := browsertest.Eval[int](t, r.ctx, `document.documentElement.scrollWidth`); sw > 360 {
		t.Errorf("the success page is %d px wide at 360 px: it scrolls sideways", sw)
	}
}

// Cancel from the checkout page: back at the store, which says CANCELLED.
func TestBrowserCancel(t *testing.T) {
	t.Parallel()
	r := newBrowserRun(t)
	cp := r.buy(t, "buy-eth")
	r.shot(t, "1-checkout")
	r.do(t, chromedp.Click(chromedp.ID("cancel")))
	text := r.backAtStore(t, 10*time.Second)
	if want := "Order " + cp.OrderID + " is CANCELLED."; text != want {
		t.Fatalf("the store says %q, want %q", text, want)
	}
	r.shot(t, "2-store-cancelled")
	browsertest.CheckAccessibility(t, r.ctx, "the demo store's return page")
	if o := r.j.get(t, cp.OrderID); o["status"] != "CANCELLED" {
		t.Fatalf("the order is %v after cancel", o["status"])
	}
}

// A checkout link with a wrong hash: a plain 404 page, which shows nothing of the order.
func TestBrowserWrongHash(t *testing.T) {
	t.Parallel()
	r := newBrowserRun(t)
	cp := r.buy(t, "buy-eth")
	ctx, cancel := context.WithTimeout(r.ctx, browsertest.Timeout)
	defer cancel()
	res, err := chromedp.Run(ctx, chromedp.NavigateResponse(r.base+"/checkout?order_id="+cp.OrderID+"&hash="+strings.Repeat("0", 64)))
	if err != nil {
		t.Fatal(err)
	}
	body := browsertest.Eval[string](t, r.ctx, `document.documentElement.outerHTML`)
	h1 := browsertest.Eval[string](t, r.ctx, `(document.querySelector("h1") || {}).textContent || ""`)
	if res.Status != 404 || h1 != checkoutpage.Messages["not_found_title"] || strings.Contains(strings.ToLower(body), strings.ToLower(cp.Address)) ||
		strings.Contains(body, cp.Amount) || browsertest.Eval[bool](t, r.ctx, `!!document.getElementById("checkout")`) {
		t.Fatalf("wrong hash: %d %q\n%s", res.Status, h1, body)
	}
	r.shot(t, "not-found")
	browsertest.CheckAccessibility(t, r.ctx, "the checkout 404 page")
}

// Accessibility on a phone-sized screen: the demo store, the checkout page (ETH and token) and
// the store's return page pass the automated check and do not scroll sideways at 360 px (nor
// the checkout page at 320 px, WCAG's reflow width); a keyboard user reaches every control of
// the checkout page with Tab, sees where focus is, and can press the wallet and cancel buttons.
func TestBrowserAccessibility(t *testing.T) {
	t.Parallel()
	r := newBrowserRun(t)
	phone := func(width int64) { r.do(t, chromedp.EmulateViewport(width, 740, chromedp.EmulateMobile)) }
	check := func(what string, width int) {
		t.Helper()
		browsertest.CheckAccessibility(t, r.ctx, what)
		if w := browsertest.Eval[int](t, r.ctx, `document.documentElement.scrollWidth`); w > width {
			t.Errorf("%s is %d px wide at a %d px viewport: it scrolls sideways", what, w, width)
		}
	}
	phone(360)
	r.do(t, chromedp.Navigate(r.base+"/"))
	check("the demo store", 360)
	r.shot(t, "1-store-360px")

	r.buy(t, "buy-eth")
	check("the checkout page", 360)
	r.shot(t, "2-checkout-360px")
	phone(320)
	check("the checkout page", 320)
	phone(360)

	stops := browsertest.Tab(t, r.ctx, 5) // every control of the page
	var got, gaps []string
	for _, f := range stops {
		got = append(got, f.Element)
		if f.Indicator == "" {
			t.Errorf("no visible focus indicator on %s", f.Element)
		}
		// WCAG 1.4.11 asks 3:1 of a focus indicator against the colours next to it.
		if f.Contrast > 0 && f.Contrast < 3 {
			gaps = append(gaps, fmt.Sprintf("%s (%.2f:1)", f.Element, f.Contrast))
		}
	}
	if len(gaps) > 0 {
		t.Errorf("focus outlines contrast less than 3:1 with the background (WCAG 1.4.11): %s", strings.Join(gaps, ", "))
	}
	want := []string{`button#copy-amount "Copy"`, `button.copy "Copy"`, `button#wallet "Pay with a browser wallet"`,
		`a#uri "` + checkoutpage.Messages["open_wallet"] + `"`, `button#cancel "Cancel and return to the shop"`}
	for i, w := range want {
		if i >= len(got) || !strings.HasPrefix(got[i], w) {
			t.Fatalf("Tab order: %v, want %v", got, want)
		}
	}
	// Back to the wallet button (Tab from the address's copy button), pressed with the keyboard:
	// with no wallet in this browser, the page says so.
	r.do(t, chromedp.Focus(chromedp.CSS("#pay .address button.copy")), chromedp.KeyEvent(kb.Tab))
	if id := browsertest.Eval[string](t, r.ctx, `document.activeElement.id`); id != "wallet" {
		t.Fatalf("focus on %q, want wallet", id)
	}
	r.shot(t, "3-checkout-wallet-focused")
	r.do(t, chromedp.KeyEvent(kb.Enter))
	r.walletMsg(t, checkoutpage.Messages["wallet_none"])
	r.shot(t, "4-checkout-no-wallet")
	browsertest.CheckAccessibility(t, r.ctx, "the checkout page with the no-wallet message")
	// Tab on to cancel (past the wallet app's link), Enter: back at the store.
	r.do(t, chromedp.KeyEvent(kb.Tab), chromedp.KeyEvent(kb.Tab), chromedp.KeyEvent(kb.Enter))
	r.backAtStore(t, 10*time.Second)
	check("the demo store's return page", 360)
	r.shot(t, "5-store-return-360px")

	r.buy(t, "buy-token") // its payment link is the longest
	check("the token checkout page", 360)
	r.shot(t, "6-token-checkout-360px")
}
