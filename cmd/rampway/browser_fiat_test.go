package main

// Browser tests of area B: NFT checkouts paid in fiat on the hosted page, in a real headless
// Chromium against one `rampway dev` and its built-in sandbox payment provider. The user types
// into the fields and presses the buttons found by their accessible names (as a screen reader
// names them), on the checkout page and on the sandbox's own pages (3-D Secure, wallet sheet,
// approval); the operator tells bank transfers through the admin route. Each journey ends with
// the NFT owned by the mint example's recipient (function_args "to"), or with nothing minted,
// and with its events at the merchant's webhook receiver. Screenshots go where
// browsertest.ScreenshotDir says, one directory per subtest (the test logs it).

import (
	"context"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/checkoutpage"
	"github.com/rampway/rampway/internal/browsertest"
)

// fiatRun is a dev server, the merchant's webhook receiver and return page, and one browser
// tab, shared by the journeys of TestBrowserFiat. The journeys run one after the other: the
// recipient's NFT count before and after each one tells what it minted.
type fiatRun struct {
	*browserRun
	f    *fiatJourney
	shop *shopReturns
}

// shopReturns is the merchant's page at merchant_redirect_url: it records each return.
type shopReturns struct {
	url string
	mu  sync.Mutex
	got []url.Values
}

func (s *shopReturns) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/return" { // the browser's /favicon.ico
		http.NotFound(w, r)
		return
	}
	s.mu.Lock()
	s.got = append(s.got, r.URL.Query())
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprint(w, `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">`+
		`<title>Shop</title></head><body><main><h1 id="shop">Back at the shop</h1></main></body></html>`)
}

func (s *shopReturns) returns() []url.Values {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.got)
}

// order creates a B1 order of the mint example, paid in currency by method, returning to the
// shop; user adds or replaces body fields (nil drops one).
func (r *fiatRun) order(t *testing.T, currency, method string, user map[string]any) map[string]any {
	t.Helper()
	body := map[string]any{"merchant_redirect_url": r.shop.url + "/return"}
	for k, v := range user {
		body[k] = v
	}
	return r.f.order(t, currency, method, body)
}

// fiatPage is what the test reads from the fiat checkout page's DOM ("" or false for what is
// not there).
type fiatPage struct {
	Path      string `json:"path"`
	OrderID   string `json:"order_id"`
	State     string `json:"state"`  // #status's data-state
	Status    string `json:"status"` // #status's text
	Step      string `json:"step"`   // identity, start, card, link (wallet or redirect), bank, or ""
	Declined  string `json:"declined"`
	CardUsed  string `json:"card_used"`
	Start     string `json:"start"`      // the start step's button
	PayButton string `json:"pay_button"` // the card form's button
	PayLink   string `json:"pay_link"`   // #pay-link's text
	Reference string `json:"reference"`
	Bank      string `json:"bank"` // the bank details' text
	TxHash    string `json:"tx_hash"`
	Cancel    bool   `json:"cancel"`
	Return    string `json:"return"`   // the return link's href, when it shows
	Live      bool   `json:"live"`     // the "live updates paused" note shows
	Returned  string `json:"returned"` // what the page says of a transfer sent back
}

const fiatPageJS = `(() => {
  const m = document.getElementById("checkout");
  if (!m || !m.classList.contains("fiat") || document.readyState === "loading") return {path: location.pathname};
  const $ = (id) => document.getElementById(id);
  const text = (e) => e ? e.textContent.replace(/\s+/g, " ").trim() : "";
  const shown = (e) => !!e && !e.hidden && e.offsetParent !== null;
  let step = "";
  if (document.querySelector('form[action="/checkout/identity"]')) step = "identity";
  else if ($("start-form")) step = "start";
  else if ($("card-form")) step = "card";
  else if ($("pay-link")) step = "link";
  else if ($("bank")) step = "bank";
  return {path: location.pathname, order_id: m.dataset.orderId, state: $("status").dataset.state, status: text($("status")), step,
    declined: text($("declined")), card_used: text($("card-used")), start: text($("start-pay")), pay_button: text(document.querySelector("#card-form button")),
    pay_link: text($("pay-link")), reference: text($("bank-reference")), bank: text($("bank")), tx_hash: shown($("tx")) ? text($("tx-hash")) : "", cancel: shown($("cancel")),
    return: shown($("return")) ? $("return-link").href : "", live: shown($("live")), returned: text($("returned"))};
})()`

// page reads the fiat checkout page once it is there and ok accepts it.
func (r *fiatRun) page(t *testing.T, what string, ok func(fiatPage) bool) fiatPage {
	t.Helper()
	return browsertest.WaitFor(t, r.ctx, what, fiatPageJS, 30*time.Second, func(p fiatPage) bool { return p.State != "" && ok(p) })
}

// open opens the order's checkout page (gateway_url) and waits for it. The visit stays on
// the page at the end (see stay): the journeys check the page there.
func (r *fiatRun) open(t *testing.T, o map[string]any) fiatPage {
	t.Helper()
	p := r.openLive(t, o)
	r.stay(t, p.OrderID)
	return p
}

// openLive opens the order's checkout page as open does, leaving the page to return to the
// shop by itself at the end.
func (r *fiatRun) openLive(t *testing.T, o map[string]any) fiatPage {
	t.Helper()
	r.do(t, chromedp.Navigate(o["gateway_url"].(string)))
	p := r.page(t, "the checkout page of "+o["order_id"].(string), func(fiatPage) bool { return true })
	if p.Path != "/checkout" || p.OrderID != o["order_id"] {
		t.Fatalf("gateway_url %s opened %+v", o["gateway_url"], p)
	}
	return p
}

// stay keeps this tab's visit of order id on its page when the order ends, as a user who
// pressed "Stay on this page" earlier in the visit would (the choice is kept for the visit, in
// the tab's sessionStorage: assets/common.js): the page then neither returns to the shop by
// itself nor, so, tells the merchant the user left. The test writes it at once, whatever the
// page's script has done yet, instead of racing the page's few seconds to the shop.
func (r *browserRun) stay(t *testing.T, id string) {
	t.Helper()
	browsertest.Eval[bool](t, r.ctx, fmt.Sprintf(`((k) => {
	  let v = null;
	  try { v = JSON.parse(sessionStorage.getItem(k) || "null"); } catch (e) { v = null; }
	  if (!v || !/^[0-9a-f]{32}$/.test(v.id || "")) v = {id: %q, live: false, closed: false};
	  v.stay = true;
	  sessionStorage.setItem(k, JSON.stringify(v));
	  return true;
	})("rampway.visit." + %q)`, strings.Repeat("5a", 16), id))
}

// startPayment presses the start step's button ("Pay 25.00 EUR by bank transfer": a GET of
// the page starts nothing) and returns the page of the payment's step it leads back to; the
// sandbox's card form has no start step (it is shown at once, its post starts the payment):
// that page is returned as it is.
func (r *fiatRun) startPayment(t *testing.T) fiatPage {
	t.Helper()
	p := r.page(t, "the start step or the card form", func(p fiatPage) bool { return p.Step == "start" || p.Step == "card" })
	if p.Step == "card" {
		return p
	}
	r.press(t, p.Start)
	return r.page(t, "the payment's step", func(p fiatPage) bool { return p.Step != "start" && p.Step != "" })
}

// watchTo watches the page until it shows state want, returning the states it showed in order
// (the page reloads itself at each change); at the first sight of a state in shots it saves
// the screenshot named shots[state]. A final state other than want fails the test.
func (r *fiatRun) watchTo(t *testing.T, want string, shots map[string]string) []string {
	t.Helper()
	var seen []string
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(30 * time.Millisecond) {
		s := r.state()
		if s != "" && (len(seen) == 0 || seen[len(seen)-1] != s) {
			seen = append(seen, s)
			if name, ok := shots[s]; ok {
				r.shotBetween(t, name)
				delete(shots, s)
			}
		}
		if s == want {
			return seen
		}
		switch s {
		case "SUCCESS", "FAILED", "EXPIRED", "CANCELLED", "REFUNDED", "REFUND_PENDING":
			t.Fatalf("the order went %s, want %s; states on the page: %v", s, want, seen)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s on the page after 60s; states on the page: %v", want, seen)
		}
	}
}

// shotBetween saves a screenshot as browserRun.shot does, of a page that may be reloading
// (then it tries again for a moment; an intermediate state is only an illustration: failing
// to catch it is logged).
func (r *fiatRun) shotBetween(t *testing.T, name string) {
	t.Helper()
	var err error
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(30 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(r.ctx, 2*time.Second)
		var png []byte
		png, err = chromedp.Run(ctx, chromedp.FullScreenshot(100))
		cancel()
		if err == nil {
			if err = os.WriteFile(filepath.Join(browsertest.ScreenshotDir(t), name+".png"), png, 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Logf("no screenshot %s: %v", name, err)
}

// axMatch is what control found in the accessibility tree.
type axMatch struct {
	ids []cdp.BackendNodeID
	all []string // the page's named controls, for a failure's message
}

// control finds the one element of the page to which Chromium's accessibility tree gives one
// of roles and the accessible name name (or a name starting with name and a space: "Expiry
// date (MM/YY)", "Pay 25.00 EUR"), waiting for the page to have it. The helpers below act on
// it by its backend node id, which stays valid while the element lives (chromedp's node ids
// do not survive its reloads of the document).
func (r *fiatRun) control(t *testing.T, name string, roles ...string) cdp.BackendNodeID {
	t.Helper()
	find := func(ctx context.Context, tg *chromedp.Target) (axMatch, error) {
		var m axMatch
		tree, err := cdp.Call(ctx, tg, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{})
		if err != nil {
			return m, err
		}
		for _, n := range tree.Nodes {
			if n.Ignored || n.Role == nil || n.Name == nil || n.BackendDOMNodeID == 0 {
				continue
			}
			var role, nm string
			_ = jsonv2.Unmarshal(n.Role.Value, &role)
			_ = jsonv2.Unmarshal(n.Name.Value, &nm)
			if axNamedRoles[role] {
				m.all = append(m.all, fmt.Sprintf("%s %q", role, nm))
			}
			if slices.Contains(roles, role) && (nm == name || strings.HasPrefix(nm, name+" ")) {
				m.ids = append(m.ids, n.BackendDOMNodeID)
			}
		}
		return m, nil
	}
	var last axMatch
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(r.ctx, 5*time.Second)
		m, err := chromedp.Run(ctx, find)
		cancel()
		if err == nil {
			last = m
			switch {
			case len(m.ids) == 1:
				return m.ids[0]
			case len(m.ids) > 1:
				t.Fatalf("%d elements named %q (%v) on the page: %v", len(m.ids), name, roles, m.all)
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no element named %q (%v) on the page after a minute (%v); its named elements: %v", name, roles, err, last.all)
		}
	}
}

// axNamedRoles are the roles of the elements a user finds by name: controls and fields.
var axNamedRoles = map[string]bool{"button": true, "link": true, "textbox": true, "date": true, "Date": true, "DateTime": true,
	"combobox": true, "spinbutton": true, "checkbox": true, "radio": true}

// axFieldRoles are the roles of a form field (a date input is not a textbox).
var axFieldRoles = []string{"textbox", "date", "Date", "DateTime", "combobox"}

// callOn calls function (JavaScript, its this the element) on the element and returns its
// result as a string.
func callOn(ctx context.Context, tg *chromedp.Target, id cdp.BackendNodeID, function string) (string, error) {
	obj, err := cdp.Call(ctx, tg, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: id})
	if err != nil {
		return "", err
	}
	yes := true
	res, err := cdp.Call(ctx, tg, runtime.CallFunctionOn, runtime.CallFunctionOnParams{FunctionDeclaration: function, ObjectID: obj.Object.ObjectID,
		ReturnByValue: &yes, AwaitPromise: &yes})
	if err != nil {
		return "", err
	}
	if res.ExceptionDetails != nil {
		return "", fmt.Errorf("%s: %s", function, res.ExceptionDetails.Text)
	}
	var v string
	_ = jsonv2.Unmarshal(res.Result.Value, &v)
	return v, nil
}

// typeInto types text into the field labelled label, key by key, as a user does; with
// replace, over what the field holds (selected first).
func (r *fiatRun) typeInto(t *testing.T, label, text string, replace ...bool) {
	t.Helper()
	id := r.control(t, label, axFieldRoles...)
	r.do(t, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		if _, err := cdp.Call(ctx, tg, dom.Focus, dom.FocusParams{BackendNodeID: id}); err != nil {
			return err
		}
		if len(replace) > 0 && replace[0] {
			_, err := callOn(ctx, tg, id, `function () { this.select(); return ""; }`)
			return err
		}
		return nil
	}), chromedp.KeyEvent(text))
}

// click clicks the middle of the element, as a user does with a mouse.
func (r *fiatRun) click(t *testing.T, id cdp.BackendNodeID) {
	t.Helper()
	r.do(t, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		// As a person does: the element in view, where it stays put for two frames in a row,
		// and on top there (not under a moving part of the page); a click at a point measured
		// while the layout still moved could land beside it (seen once, loaded: a Cancel that
		// never cancelled).
		last := ""
		for try := 1; ; try++ {
			if _, err := cdp.Call(ctx, tg, dom.ScrollIntoViewIfNeeded, dom.ScrollIntoViewIfNeededParams{BackendNodeID: id}); err != nil {
				return err
			}
			at, err := callOn(ctx, tg, id, `async function () {
			  await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
			  const b = this.getBoundingClientRect(), x = b.left + b.width / 2, y = b.top + b.height / 2;
			  const e = b.width > 0 && b.height > 0 ? document.elementFromPoint(x, y) : null;
			  return e && (e === this || this.contains(e)) ? x + " " + y : "";
			}`)
			if err != nil {
				return err
			}
			if at != "" && at == last {
				var x, y float64
				if _, err := fmt.Sscan(at, &x, &y); err != nil {
					return err
				}
				return chromedp.Do(ctx, chromedp.MouseClickXY(x, y))
			}
			if try == 100 {
				return fmt.Errorf("element %d is not still and on top to be clicked (last seen at %q)", id, at)
			}
			last = at
		}
	}))
}

// press clicks the button named name (or whose name starts with name and a space).
func (r *fiatRun) press(t *testing.T, name string) {
	t.Helper()
	r.click(t, r.control(t, name, "button"))
}

// follow clicks the link named name.
func (r *fiatRun) follow(t *testing.T, name string) {
	t.Helper()
	r.click(t, r.control(t, name, "link"))
}

// field reads the value of the field labelled label.
func (r *fiatRun) field(t *testing.T, label string) string {
	t.Helper()
	id := r.control(t, label, axFieldRoles...)
	ctx, cancel := context.WithTimeout(r.ctx, browsertest.Timeout)
	defer cancel()
	v, err := chromedp.Run(ctx, func(ctx context.Context, tg *chromedp.Target) (string, error) {
		return callOn(ctx, tg, id, `function () { return this.value; }`)
	})
	if err != nil {
		t.Fatalf("the value of %q: %v", label, err)
	}
	return v
}

// payByCard fills the card form as a user does, by the fields' labels, and presses the button
// whose name starts with "Pay"; shot, if not "", names a screenshot of the filled form. At the
// start step, it starts the payment first.
func (r *fiatRun) payByCard(t *testing.T, number, shot string) {
	t.Helper()
	if p := r.page(t, "the card form", func(p fiatPage) bool { return p.Step == "card" || p.Step == "start" }); p.Step == "start" {
		r.startPayment(t)
	}
	// The name is the identity's, prefilled; the user types it again.
	if name := r.field(t, "Name on card"); name != "Ada Lovelace" {
		t.Errorf("Name on card prefilled with %q, want the identity's Ada Lovelace", name)
	}
	r.typeInto(t, "Card number", number)
	r.typeInto(t, "Expiry date", "1234") // the page writes MM/YY as it is typed
	r.typeInto(t, "Security code", "123")
	r.typeInto(t, "Name on card", "Ada Lovelace", true)
	if exp := r.field(t, "Expiry date"); exp != "12/34" {
		t.Fatalf("Expiry date reads %q after typing 1234, want 12/34", exp)
	}
	if shot != "" {
		r.shot(t, shot)
	}
	r.press(t, "Pay")
}

// sandboxPage waits for the sandbox's page titled title (3-D Secure, a wallet sheet, an
// approval) and checks it shows amount.
func (r *fiatRun) sandboxPage(t *testing.T, title, amount string) {
	t.Helper()
	browsertest.WaitFor(t, r.ctx, "the sandbox page "+title, `document.readyState === "complete" ? document.title : ""`, 15*time.Second,
		func(s string) bool { return s == title })
	if got := browsertest.Eval[string](t, r.ctx, `(document.querySelector(".amount") || {}).textContent || ""`); got != amount {
		t.Fatalf("the sandbox page %q asks %q, want %q", title, got, amount)
	}
}

// recipient is the mint example's recipient (function_args "to").
func (r *fiatRun) recipient() common.Address {
	return common.HexToAddress(r.dj.SmartContractFunctions[0].Example.FunctionArgs["to"].(string))
}

var nftTransferTopic = crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))

// minted checks that order id's execution minted one NFT to the recipient, that the recipient
// owns it, and that it is the one NFT the recipient got since it held before.
func (r *fiatRun) minted(t *testing.T, id string, before *big.Int) {
	t.Helper()
	v := r.f.lookup(t, id)
	hash, _ := v["execution_tx_hash"].(string)
	if hash == "" {
		t.Fatalf("order %s (%v) has no execution transaction", id, v["status"])
	}
	var rec *types.Receipt
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		var err error
		if rec, err = r.j.c.TransactionReceipt(t.Context(), common.HexToHash(hash)); err == nil {
			break
		} else if time.Now().After(deadline) { // right after a start: "transaction indexing is in progress"
			t.Fatalf("receipt of %s: %v", hash, err)
		}
	}
	nft, to := common.HexToAddress(r.dj.Contracts.NFT), r.recipient()
	var tokens []*big.Int
	for _, l := range rec.Logs {
		if l.Address == nft && len(l.Topics) == 4 && l.Topics[0] == nftTransferTopic && l.Topics[1] == (common.Hash{}) &&
			common.BytesToAddress(l.Topics[2].Bytes()) == to {
			tokens = append(tokens, l.Topics[3].Big())
		}
	}
	if rec.Status != 1 || len(tokens) != 1 {
		t.Fatalf("execution %s: status %d, NFTs minted to %s: %v", hash, rec.Status, to.Hex(), tokens)
	}
	data := append(crypto.Keccak256([]byte("ownerOf(uint256)"))[:4], common.LeftPadBytes(tokens[0].Bytes(), 32)...)
	out, err := r.j.c.CallContract(t.Context(), ethereum.CallMsg{To: &nft, Data: data}, nil)
	if err != nil || common.BytesToAddress(out) != to {
		t.Fatalf("ownerOf(%s) = %x (%v), want %s", tokens[0], out, err, to.Hex())
	}
	if got := r.f.nfts(t); got.Cmp(new(big.Int).Add(before, big.NewInt(1))) != 0 {
		t.Fatalf("the recipient holds %s NFTs, want %s + 1", got, before)
	}
}

// nothingMinted checks that order id has no execution and the recipient holds what it held
// before.
func (r *fiatRun) nothingMinted(t *testing.T, id string, before *big.Int) {
	t.Helper()
	if v := r.f.lookup(t, id); v["execution_tx_hash"] != nil {
		t.Fatalf("order %s (%v) has an execution: %v", id, v["status"], v["execution_tx_hash"])
	}
	if got := r.f.nfts(t); got.Cmp(before) != 0 {
		t.Fatalf("the recipient holds %s NFTs, held %s", got, before)
	}
}

// succeeded checks the page at SUCCESS against the order: the status and the transaction, the
// card that paid (cardUsed, "" for none), nothing to pay or cancel any more, the way back to
// the shop.
func (r *fiatRun) succeeded(t *testing.T, id, cardUsed string) {
	t.Helper()
	p := r.page(t, "the page at SUCCESS", func(p fiatPage) bool { return p.State == "SUCCESS" })
	v := r.f.lookup(t, id)
	tx, _ := v["execution_tx_hash"].(string)
	// Live is false: at a final state the page opens no stream, so it never says live updates
	// are paused.
	want := fiatPage{Path: "/checkout", OrderID: id, State: "SUCCESS", Status: checkoutpage.Messages["st_SUCCESS"], CardUsed: cardUsed, TxHash: tx,
		Return: r.shopReturn(id, "SUCCESS")}
	if p != want {
		t.Fatalf("the page at SUCCESS:\n  %+v\nwant\n  %+v", p, want)
	}
}

// shopReturn is where the page sends the user back to the shop.
func (r *fiatRun) shopReturn(id, status string) string {
	return r.shop.url + "/return?" + url.Values{"order_id": {id}, "status": {status}}.Encode()
}

// backAtShop waits for the browser at the shop's return page and checks it came back with the
// order's id and status.
func (r *fiatRun) backAtShop(t *testing.T, id, status string) {
	t.Helper()
	defer func() {
		if t.Failed() { // did the order get there (a page that did not follow), or not (a press lost)?
			t.Logf("the API has order %s %v", id, r.f.lookup(t, id)["status"])
		}
	}()
	at := browsertest.WaitFor(t, r.ctx, "the return to the shop", `document.readyState === "complete" && document.getElementById("shop") ? location.href : ""`,
		60*time.Second, func(s string) bool { return s != "" })
	if want := r.shopReturn(id, status); at != want {
		t.Fatalf("back at %s, want %s", at, want)
	}
	got := r.shop.returns()
	if len(got) == 0 || got[len(got)-1].Get("order_id") != id || got[len(got)-1].Get("status") != status || len(got[len(got)-1]) != 2 {
		t.Fatalf("the shop saw returns %v, want order_id=%s&status=%s", got, id, status)
	}
}

// fiatRank maps the states of a fiat order paid at once to their place in its life.
func fiatRank(t *testing.T, states []string) []int {
	t.Helper()
	order := []string{"CREATED", "ONRAMP_PROCESSING", "ONRAMP_SUCCESS", "SMARTCONTRACT_PROCESSING", "SUCCESS"}
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

// paidAndMinted follows the page to SUCCESS (states in order, screenshots of shots), and
// checks the success page, the NFT at the recipient and the events at the merchant.
func (r *fiatRun) paidAndMinted(t *testing.T, id string, before *big.Int, cardUsed string, shots map[string]string, events []rampway.EventName) {
	t.Helper()
	seen := r.watchTo(t, "SUCCESS", shots)
	if !slices.IsSorted(fiatRank(t, seen)) {
		t.Fatalf("states on the page out of order: %v", seen)
	}
	t.Logf("states on the page: %v", seen)
	r.succeeded(t, id, cardUsed)
	r.minted(t, id, before)
	r.f.hooks.wantEvents(t, id, events)
}

// The webhook events of fiat orders.
var (
	fiatMintEvents = []rampway.EventName{rampway.EventSmartContractProcessing, rampway.EventSmartContractSuccess, rampway.EventSuccess}
	// fiatPaidEvents: paid at once (a card, a wallet, a transfer or an approval), then minted.
	fiatPaidEvents = append([]rampway.EventName{rampway.EventCreated, rampway.EventWidgetOpen, rampway.EventOnrampProcessing, rampway.EventOnrampSuccess},
		fiatMintEvents...)
)

// accessible runs TestBrowserAccessibility's checks on the page as it was loaded (focus at the
// top, nothing typed yet): the automated check at the desktop size and on phones 360 and 320
// px wide, where the page must not scroll sideways (a screenshot at 360 px is named shot);
// then a keyboard user's Tab stops, which must be tabs in order (each the start of a
// browsertest.Focus's Element), each with a visible focus indicator contrasting 3:1 with the
// background (WCAG 1.4.11).
func (r *fiatRun) accessible(t *testing.T, what, shot string, tabs []string) {
	t.Helper()
	browsertest.CheckAccessibility(t, r.ctx, what)
	for _, width := range []int64{360, 320} {
		r.do(t, chromedp.EmulateViewport(width, 740, chromedp.EmulateMobile))
		browsertest.CheckAccessibility(t, r.ctx, fmt.Sprintf("%s at %d px", what, width))
		if w := browsertest.Eval[int64](t, r.ctx, `document.documentElement.scrollWidth`); w > width {
			t.Errorf("%s is %d px wide at a %d px viewport: it scrolls sideways", what, w, width)
		}
		if width == 360 {
			r.shot(t, shot)
		}
	}
	r.do(t, noPhone)
	// A date field takes a Tab per part (month, day, year): consecutive stops on one element
	// (one id) are one stop.
	var stops []browsertest.Focus
	for i := 0; len(stops) < len(tabs) && i < len(tabs)+6; i++ {
		f := browsertest.Tab(t, r.ctx, 1)[0]
		if n := len(stops); n > 0 && f.ID != "" && stops[n-1].ID == f.ID {
			continue
		}
		stops = append(stops, f)
	}
	var got, gaps []string
	for _, f := range stops {
		got = append(got, f.Element)
		if f.Indicator == "" {
			t.Errorf("%s: no visible focus indicator on %s", what, f.Element)
		}
		if f.Contrast > 0 && f.Contrast < 3 {
			gaps = append(gaps, fmt.Sprintf("%s (%.2f:1)", f.Element, f.Contrast))
		}
	}
	if len(gaps) > 0 {
		t.Errorf("%s: focus outlines contrast less than 3:1 with the background (WCAG 1.4.11): %s", what, strings.Join(gaps, ", "))
	}
	for i, w := range tabs {
		if i >= len(got) || !strings.HasPrefix(got[i], w) {
			t.Fatalf("%s: Tab order %v, want %v", what, got, tabs)
		}
	}
}

// noPhone ends the emulation of a phone: the window's own size again.
var noPhone = chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
	if _, err := cdp.Call(ctx, tg, emulation.ClearDeviceMetricsOverride, cdp.Empty{}); err != nil {
		return err
	}
	_, err := cdp.Call(ctx, tg, emulation.SetTouchEmulationEnabled, emulation.SetTouchEmulationEnabledParams{})
	return err
})

// The Tab stops of the fiat page's steps.
var (
	fiatCancelStop   = `button#cancel "` + checkoutpage.Messages["cancel"] + `"`
	fiatStartTabs    = []string{`button#start-pay "Pay `, fiatCancelStop}
	fiatCardTabs     = []string{"input#card_number", "input#expiry", "input#cvc", "input#name", `button.primary "Pay `, fiatCancelStop}
	fiatSEPATabs     = []string{`button.copy "Copy"`, `button.copy "Copy"`, fiatCancelStop} // IBAN, reference
	fiatIdentityTabs = []string{"input#user_first_name", "input#user_last_name", "input#user_email_id", "input#user_dob", "select#user_countryCode",
		`button.primary "Continue"`, fiatCancelStop}
)

// fiatIdentityForm is the identity step's form state.
type fiatIdentityForm struct {
	Invalid     []string `json:"invalid"`     // the ids of the fields marked aria-invalid
	DescribedBy string   `json:"describedby"` // user_dob's aria-describedby
	Error       string   `json:"error"`       // #identity-error's text
}

const fiatIdentityFormJS = `({invalid: [...document.querySelectorAll('[aria-invalid="true"]')].map((e) => e.id),
  describedby: document.getElementById("user_dob").getAttribute("aria-describedby") || "",
  error: (document.getElementById("identity-error") || {textContent: ""}).textContent.trim()})`

// Area B's journeys in Chromium on one dev server, one after the other.
func TestBrowserFiat(t *testing.T) {
	t.Parallel()
	shop := &shopReturns{}
	srv := httptest.NewServer(shop) // closed last: the browser may be at the shop's page
	t.Cleanup(srv.Close)
	shop.url = srv.URL
	br := newBrowserRun(t)
	r := &fiatRun{browserRun: br, f: &fiatJourney{journey: br.j, browser: &http.Client{Timeout: 20 * time.Second}}, shop: shop}
	cards := r.dj.Fiat.TestCards
	declined := func(reason string) string {
		return strings.ReplaceAll(checkoutpage.Messages["declined"], "{reason}", reason)
	}

	// A card that succeeds: the sandbox's card form at once (opening the page started nothing:
	// its post starts the payment), the card typed into it, authorised, the NFT minted, then
	// captured.
	t.Run("card", func(t *testing.T) {
		before := r.f.nfts(t)
		o := r.order(t, "EUR", rampway.MethodCard, nil)
		id, amount := o["order_id"].(string), o["order_fiat_amount"].(string)
		p := r.open(t, o)
		want := fiatPage{Path: "/checkout", OrderID: id, State: "CREATED", Status: checkoutpage.Messages["st_CREATED"], Step: "card",
			PayButton: "Pay " + amount + " EUR", Cancel: true}
		if p != want {
			t.Fatalf("the card step:\n  %+v\nwant\n  %+v", p, want)
		}
		if v := r.f.lookup(t, id); v["fiat_payment"] != nil {
			t.Fatalf("opening the page made a payment: %v", v["fiat_payment"])
		}
		r.shot(t, "1-card-form")
		r.accessible(t, "the card step", "1-card-form-360px", fiatCardTabs)
		r.payByCard(t, cards.Success, "2-card-filled")
		r.paidAndMinted(t, id, before, "Paid with visa ending in 4242",
			map[string]string{"ONRAMP_SUCCESS": "3-payment-authorised", "SMARTCONTRACT_PROCESSING": "3-minting"}, fiatPaidEvents)
		// Where the NFT went, beside the transaction: at both sizes.
		r.atBothSizes(t, "the fiat page at SUCCESS", "4-success", func(t *testing.T, onPhone bool) {
			if e := r.ends(t); e.SentTo != "Sent to: "+r.recipient().Hex() || e.Tx != r.f.lookup(t, id)["execution_tx_hash"] || !e.Return || e.Stay || e.Cancel {
				t.Errorf("the page at SUCCESS: %+v, want sent to %s", e, r.recipient().Hex())
			}
		})
		if fp := r.f.captured(t, id, amount); fp["card_brand"] != "visa" || fp["card_last4"] != "4242" {
			t.Fatalf("fiat_payment %v", fp)
		}
		r.follow(t, checkoutpage.Messages["return"])
		r.backAtShop(t, id, "SUCCESS")
		r.shot(t, "5-back-at-shop")
	})

	// A declined card: the page says so and offers the form again; the next card pays, once.
	t.Run("decline then success", func(t *testing.T) {
		before := r.f.nfts(t)
		o := r.order(t, "GBP", rampway.MethodCard, nil)
		id := o["order_id"].(string)
		r.open(t, o)
		r.payByCard(t, cards.Decline, "1-declined-card")
		// The user is back at the page: it says the card was declined (the provider's
		// notification may come a moment later: the page must show it without a reload).
		p := browsertest.WaitFor(t, r.ctx, "the decline on the page", fiatPageJS, 10*time.Second, func(p fiatPage) bool { return p.Declined != "" })
		if p.State != "CREATED" || p.Step != "card" || p.Declined != declined("Your card was declined") {
			t.Fatalf("after a decline: %+v", p)
		}
		r.shot(t, "2-declined")
		browsertest.CheckAccessibility(t, r.ctx, "the card step after a decline")
		if v := r.f.lookup(t, id); v["status"] != "CREATED" || len(v["fiat_movements"].([]any)) != 0 {
			t.Fatalf("after a decline the order is %v, its payment %v, movements %v", v["status"], v["fiat_payment"], v["fiat_movements"])
		}
		r.nothingMinted(t, id, before)
		r.payByCard(t, cards.Success, "")
		r.paidAndMinted(t, id, before, "Paid with visa ending in 4242", map[string]string{"SMARTCONTRACT_PROCESSING": "3-minting"},
			append([]rampway.EventName{rampway.EventCreated, rampway.EventWidgetOpen, rampway.EventOnrampFailure, rampway.EventOnrampProcessing,
				rampway.EventOnrampSuccess}, fiatMintEvents...))
		r.shot(t, "4-success")
	})

	// 3-D Secure failed: the sandbox's challenge, then back at the page, which says why and
	// offers the form again; the order is CREATED and nothing is minted.
	t.Run("3-D Secure failed", func(t *testing.T) {
		before := r.f.nfts(t)
		o := r.order(t, "EUR", rampway.MethodCard, nil)
		id := o["order_id"].(string)
		r.open(t, o)
		r.payByCard(t, cards.ThreeDS, "")
		r.sandboxPage(t, "3-D Secure authentication", o["order_fiat_amount"].(string)+" EUR")
		r.f.waitStatus(t, id, "ONRAMP_PROCESSING", time.Minute)
		r.shot(t, "1-3ds-challenge")
		browsertest.CheckAccessibility(t, r.ctx, "the sandbox's 3-D Secure page")
		r.press(t, "Fail authentication")
		p := r.page(t, "the failure on the page", func(p fiatPage) bool { return p.State == "CREATED" && p.Declined != "" })
		if p.Step != "card" || p.Declined != declined("Authentication failed") {
			t.Fatalf("after a failed authentication: %+v", p)
		}
		r.shot(t, "2-3ds-failed")
		if v := r.f.lookup(t, id); v["status"] != "CREATED" || len(v["fiat_movements"].([]any)) != 0 {
			t.Fatalf("after a failed authentication the order is %v, its payment %v, movements %v", v["status"], v["fiat_payment"], v["fiat_movements"])
		}
		r.f.hooks.wantEvents(t, id, []rampway.EventName{rampway.EventCreated, rampway.EventWidgetOpen, rampway.EventOnrampProcessing, rampway.EventOnrampFailure})
		r.nothingMinted(t, id, before)
	})

	t.Run("3-D Secure completed", func(t *testing.T) {
		before := r.f.nfts(t)
		o := r.order(t, "EUR", rampway.MethodCard, nil)
		id := o["order_id"].(string)
		r.open(t, o)
		r.payByCard(t, cards.ThreeDS, "")
		r.sandboxPage(t, "3-D Secure authentication", o["order_fiat_amount"].(string)+" EUR")
		r.press(t, "Complete authentication")
		r.paidAndMinted(t, id, before, "Paid with visa ending in 3220", map[string]string{"SMARTCONTRACT_PROCESSING": "1-minting"}, fiatPaidEvents)
		r.shot(t, "2-success")
		r.f.movement(t, id, "capture", o["order_fiat_amount"].(string))
	})

	// Apple Pay: the page's link opens the sandbox's sheet; Cancel comes back to the page,
	// which still offers it; Pay authorises, and the order is minted and captured.
	t.Run("Apple Pay", func(t *testing.T) {
		before := r.f.nfts(t)
		o := r.order(t, "EUR", rampway.MethodApplePay, nil)
		id, amount := o["order_id"].(string), o["order_fiat_amount"].(string)
		link := "Pay with Apple Pay: " + amount + " EUR"
		if p := r.open(t, o); p.Step != "start" || p.Start != "Pay "+amount+" EUR by Apple Pay" {
			t.Fatalf("the Apple Pay start step: %+v", p)
		}
		if p := r.startPayment(t); p.Step != "link" || p.PayLink != link || !p.Cancel {
			t.Fatalf("the Apple Pay step: %+v", p)
		}
		r.shot(t, "1-apple-pay")
		r.follow(t, link)
		r.sandboxPage(t, "Apple Pay (sandbox)", amount+" EUR")
		r.shot(t, "2-apple-pay-sheet")
		r.press(t, "Cancel")
		if p := r.page(t, "the page after the sheet's Cancel", func(fiatPage) bool { return true }); p.State != "CREATED" || p.Step != "link" {
			t.Fatalf("after the sheet's Cancel: %+v", p)
		}
		r.follow(t, link)
		r.sandboxPage(t, "Apple Pay (sandbox)", amount+" EUR")
		r.press(t, "Pay")
		r.paidAndMinted(t, id, before, "Paid with visa ending in 4242", map[string]string{"SMARTCONTRACT_PROCESSING": "3-minting"}, fiatPaidEvents)
		r.shot(t, "4-success")
		r.f.movement(t, id, "capture", amount)
	})

	// SEPA: the page shows the account and the reference; the test reads the reference off
	// the page and, as the operator, tells the transfer; the page follows to SUCCESS.
	t.Run("SEPA transfer", func(t *testing.T) {
		before := r.f.nfts(t)
		o := r.order(t, "EUR", rampway.MethodSEPABankTransfer, nil)
		id, amount := o["order_id"].(string), o["order_fiat_amount"].(string)
		if p := r.open(t, o); p.Step != "start" || p.Start != "Pay "+amount+" EUR by SEPA bank transfer" {
			t.Fatalf("the SEPA start step: %+v", p)
		}
		if v := r.f.lookup(t, id); v["fiat_payment"] != nil {
			t.Fatalf("opening the page made a payment: %v", v["fiat_payment"])
		}
		r.shot(t, "0-start")
		r.accessible(t, "the start step", "0-start-360px", fiatStartTabs)
		p := r.startPayment(t)
		fp := r.f.lookup(t, id)["fiat_payment"].(map[string]any)
		if p.Step != "bank" || p.Reference == "" || p.Reference != fp["reference"] || !p.Cancel {
			t.Fatalf("the bank step: %+v (fiat_payment %v)", p, fp)
		}
		for _, s := range []string{amount + " EUR", "rampway sandbox", "DE89 3704 0044 0532 0130 00", "COBADEFFXXX", p.Reference} {
			if !strings.Contains(p.Bank, s) {
				t.Fatalf("the bank details do not say %q: %q", s, p.Bank)
			}
		}
		r.shot(t, "1-bank-details")
		r.accessible(t, "the bank step", "1-bank-details-360px", fiatSEPATabs)
		r.f.bankTransfer(t, p.Reference, amount, "EUR")
		r.paidAndMinted(t, id, before, "", map[string]string{"SMARTCONTRACT_PROCESSING": "2-minting"}, fiatPaidEvents)
		r.shot(t, "3-success")
		if v := r.f.lookup(t, id); v["fiat_payment"].(map[string]any)["status"] != "succeeded" || len(v["fiat_movements"].([]any)) != 0 {
			t.Fatalf("a transfer of the amount: %v %v", v["fiat_payment"], v["fiat_movements"])
		}
	})

	// A short transfer (GBP) is refunded and the order waits; the right amount, sent with the
	// reference the page then shows, completes it.
	t.Run("short transfer refunded", func(t *testing.T) {
		before := r.f.nfts(t)
		o := r.order(t, "GBP", rampway.MethodGBPBankTransfer, nil)
		id, amount := o["order_id"].(string), o["order_fiat_amount"].(string)
		r.open(t, o)
		p := r.startPayment(t)
		for _, s := range []string{amount + " GBP", "04-00-04", "12345678"} {
			if p.Step != "bank" || !strings.Contains(p.Bank, s) {
				t.Fatalf("the bank details do not say %q: %+v", s, p)
			}
		}
		r.shot(t, "1-bank-details")
		r.f.bankTransfer(t, p.Reference, "5.00", "GBP")
		r.f.movement(t, id, "refund", "5.00")
		v := r.f.lookup(t, id)
		ms, _ := v["fiat_movements"].([]any)
		if v["status"] != "CREATED" || len(ms) != 1 || ms[0].(map[string]any)["currency"] != "GBP" {
			t.Fatalf("after a short transfer the order is %v, its movements %v", v["status"], ms)
		}
		if p := r.page(t, "the page after the short transfer", func(fiatPage) bool { return true }); p.State != "CREATED" || p.Step != "bank" {
			t.Fatalf("after a short transfer: %+v", p)
		}
		r.shot(t, "2-after-short-transfer")
		// The user comes back to the page: it asks for the whole amount again.
		r.do(t, chromedp.Reload())
		again := r.page(t, "the page again", func(p fiatPage) bool { return p.Step == "bank" })
		if again.State != "CREATED" || !strings.Contains(again.Bank, amount+" GBP") || again.Reference == "" {
			t.Fatalf("the page again after a short transfer: %+v", again)
		}
		t.Logf("after the refund the page shows the reference %s (first %s); what it says of the short transfer: %q %q",
			again.Reference, p.Reference, again.Status, again.Declined)
		r.shot(t, "3-page-after-refund")
		if again.Reference != p.Reference || !strings.Contains(again.Returned, "5.00 GBP") {
			t.Fatalf("after the refund the page should keep the reference %s and say the 5.00 GBP went back: %+v", p.Reference, again)
		}
		r.f.bankTransfer(t, again.Reference, amount, "GBP")
		// The user's reload closed the page once (user.widget.close), then it opened again.
		reloaded := append([]rampway.EventName{rampway.EventCreated, rampway.EventWidgetOpen, rampway.EventWidgetClose}, fiatPaidEvents[2:]...)
		r.paidAndMinted(t, id, before, "", map[string]string{"SMARTCONTRACT_PROCESSING": "4-minting"}, reloaded)
		r.shot(t, "5-success")
		v = r.f.lookup(t, id)
		if ms, _ := v["fiat_movements"].([]any); len(ms) != 1 || ms[0].(map[string]any)["kind"] != "refund" || ms[0].(map[string]any)["amount"] != "5.00" {
			t.Fatalf("movements after the full transfer: %v (want only the refund of 5.00)", ms)
		}
	})

	// Open banking: the page's link to the sandbox's approval page; approved, the money is
	// pushed (nothing to capture) and the order minted.
	t.Run("open banking", func(t *testing.T) {
		before := r.f.nfts(t)
		o := r.order(t, "EUR", rampway.MethodOpenBanking, nil)
		id, amount := o["order_id"].(string), o["order_fiat_amount"].(string)
		link := "Pay with open banking: " + amount + " EUR"
		r.open(t, o)
		if p := r.startPayment(t); p.Step != "link" || p.PayLink != link {
			t.Fatalf("the open banking step: %+v", p)
		}
		r.shot(t, "1-open-banking")
		r.follow(t, link)
		r.sandboxPage(t, "Open banking (sandbox)", amount+" EUR")
		r.shot(t, "2-approval-page")
		browsertest.CheckAccessibility(t, r.ctx, "the sandbox's approval page")
		r.press(t, "Approve payment")
		r.paidAndMinted(t, id, before, "", map[string]string{"SMARTCONTRACT_PROCESSING": "3-minting"}, fiatPaidEvents)
		r.shot(t, "4-success")
		if v := r.f.lookup(t, id); v["fiat_payment"].(map[string]any)["status"] != "succeeded" || len(v["fiat_movements"].([]any)) != 0 {
			t.Fatalf("open banking: %v %v", v["fiat_payment"], v["fiat_movements"])
		}
	})

	// The identity step: an order without a date of birth and a country shows the form with
	// what the merchant gave; a date in the future is refused, the field marked; a valid one
	// goes on to the card form, and the card pays.
	t.Run("identity step", func(t *testing.T) {
		before := r.f.nfts(t)
		o := r.order(t, "EUR", rampway.MethodCard, map[string]any{"user_dob": nil, "user_countryCode": nil})
		id := o["order_id"].(string)
		if p := r.open(t, o); p.Step != "identity" || p.State != "CREATED" || !p.Cancel {
			t.Fatalf("the identity step: %+v", p)
		}
		for label, want := range map[string]string{"First name": "Ada", "Last name": "Lovelace", "E-mail": "ada@example.com", "Date of birth": "",
			"Country of residence": ""} {
			if got := r.field(t, label); got != want {
				t.Errorf("%s prefilled with %q, want %q", label, got, want)
			}
		}
		r.shot(t, "1-identity")
		r.accessible(t, "the identity step", "1-identity-360px", fiatIdentityTabs)
		r.typeInto(t, "Date of birth", "01012099")
		if dob := r.field(t, "Date of birth"); dob != "2099-01-01" {
			t.Fatalf("Date of birth reads %q after typing 01012099, want 2099-01-01", dob)
		}
		// The country is a list of names: typing a name picks it, as in any select.
		r.typeInto(t, "Country of residence", "Germany")
		if c := r.field(t, "Country of residence"); c != "DE" {
			t.Fatalf("Country of residence reads %q after typing Germany, want DE", c)
		}
		r.press(t, checkoutpage.Messages["continue"])
		f := browsertest.WaitFor(t, r.ctx, "the refused date", `document.getElementById("identity-error") ? `+fiatIdentityFormJS+` : null`, 15*time.Second,
			func(f *fiatIdentityForm) bool { return f != nil })
		if !slices.Equal(f.Invalid, []string{"user_dob"}) || f.DescribedBy != "identity-error" || f.Error == "" {
			t.Fatalf("a date of birth in the future: %+v", f)
		}
		t.Logf("the identity step refuses 2099-01-01 with %q", f.Error)
		for label, want := range map[string]string{"First name": "Ada", "Last name": "Lovelace", "E-mail": "ada@example.com", "Country of residence": "DE"} {
			if got := r.field(t, label); got != want {
				t.Errorf("after the refusal %s reads %q, want %q", label, got, want)
			}
		}
		r.shot(t, "2-identity-refused")
		browsertest.CheckAccessibility(t, r.ctx, "the identity step with a refused date")
		r.typeInto(t, "Date of birth", "12101990")
		if dob := r.field(t, "Date of birth"); dob != "1990-12-10" {
			t.Fatalf("Date of birth reads %q after typing 12101990, want 1990-12-10", dob)
		}
		r.press(t, checkoutpage.Messages["continue"])
		if p := r.page(t, "the card step", func(p fiatPage) bool { return p.Step != "identity" }); p.Step != "card" || p.State != "CREATED" {
			t.Fatalf("after the identity step: %+v", p)
		}
		r.shot(t, "3-card-step")
		r.payByCard(t, cards.Success, "")
		r.paidAndMinted(t, id, before, "Paid with visa ending in 4242", nil, fiatPaidEvents)
		r.shot(t, "4-success")
	})

	// The pages of areas A and B at a desktop size and on a phone, and one visit's way out.
	t.Run("pages at desktop and 390 px", func(t *testing.T) { r.pagesAtTwoSizes(t) })
	t.Run("leaving once", func(t *testing.T) { r.leavingOnce(t) })

	// Cancel: back at the shop's merchant_redirect_url with the order's id and CANCELLED.
	t.Run("cancel", func(t *testing.T) {
		before := r.f.nfts(t)
		o := r.order(t, "EUR", rampway.MethodCard, nil)
		id := o["order_id"].(string)
		r.open(t, o)
		r.shot(t, "1-checkout")
		r.press(t, checkoutpage.Messages["cancel"])
		r.backAtShop(t, id, "CANCELLED")
		r.shot(t, "2-back-at-shop")
		if v := r.f.lookup(t, id); v["status"] != "CANCELLED" {
			t.Fatalf("the order is %v after cancel", v["status"])
		}
		// Cancelling leaves the page: the visit's user.widget.close comes last.
		r.f.hooks.wantEvents(t, id, []rampway.EventName{rampway.EventCreated, rampway.EventWidgetOpen, rampway.EventCancelled, rampway.EventWidgetClose})
		r.nothingMinted(t, id, before)
	})
}
