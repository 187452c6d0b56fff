package main

// Browser tests of area C: on-ramps to the merchant's deposit address on the hosted page, in
// a real headless Chromium against one `rampway dev` and its sandbox payment provider. The
// user works the page as browser_fiat_test.go's journeys do (fields and buttons found by their
// accessible names); the operator tells bank transfers through the admin route. Each journey
// ends with the merchant's deposit address holding exactly crypto_amount more, checked on
// chain to the base unit (its balance, and the transfer itself), and with the order's events
// at its merchant_webhook_url, which overrides the merchant's own (the demo store's receiver
// gets none of them). Screenshots go where browsertest.ScreenshotDir says, one directory per
// subtest (the test logs it).

import (
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/checkoutpage"
	"github.com/rampway/rampway/internal/browsertest"
)

// depositRun is TestBrowserDeposit's dev server (with its data directory, where dev.json
// lists the deposit addresses), the shop's return page, the receiver at the orders'
// overriding merchant_webhook_url, and one browser tab.
type depositRun struct {
	*fiatRun
	dir      string
	override *receiver // at hook
	hook     string
	merchant string // the demo merchant's name, as the page shows it
}

func newDepositRun(t *testing.T) *depositRun {
	t.Helper()
	browsertest.Chromium(t) // skip (or fail in CI) before starting anything
	shop := &shopReturns{}
	srv := httptest.NewServer(shop) // closed last: the browser may be at the shop's page
	t.Cleanup(srv.Close)
	shop.url = srv.URL
	dir := t.TempDir()
	dj, _ := startDev(t, dir)
	override := &receiver{secret: dj.Merchant.WebhookSecret, events: map[string][]string{}}
	hooks := httptest.NewServer(override)
	t.Cleanup(hooks.Close)
	br := &browserRun{dj: dj, dir: dir, base: strings.TrimSuffix(dj.API.MintBaseURL, "/mint"), j: newJourney(t, dj)}
	// Started after the dev server, so stopped before it: an open page holds a status stream.
	br.ctx = browsertest.New(t)
	m := call(t, "GET", dj.API.AdminBaseURL+"/merchants/"+dj.Merchant.MerchantID, "Bearer "+dj.AdminToken, nil)
	name, _ := m["name"].(string)
	return &depositRun{fiatRun: &fiatRun{browserRun: br, f: &fiatJourney{journey: br.j, browser: &http.Client{Timeout: 20 * time.Second}, dir: dir},
		shop: shop}, dir: dir, override: override, hook: hooks.URL + "/override", merchant: name}
}

// onramp creates a C1 order of amount in currency into symbol on the dev network, paid with
// method ("" for the page's quote screen), returning to the shop, its events to the
// overriding receiver; the identity is complete, so the page skips that step.
func (r *depositRun) onramp(t *testing.T, currency, amount, symbol, method string) map[string]any {
	t.Helper()
	body := map[string]any{"merchant_id": r.dj.Merchant.MerchantID, "order_fiat_symbol": currency, "order_fiat_amount": amount,
		"convert_to_crypto_symbol": symbol, "convert_to_crypto_network": r.dj.Chain.Network, "merchant_user_id": "user-1",
		"merchant_redirect_url": r.shop.url + "/return", "merchant_txn_id": t.Name(), "merchant_webhook_url": r.hook}
	if symbol != "ETH" {
		body["convert_to_crypto_contractAddress"] = r.dj.Contracts.Token
	}
	if method != "" {
		body["fiat_payment_method"] = method
	}
	for k, v := range identity {
		body[k] = v
	}
	b, _ := json.Marshal(body)
	code, o := post(t, r.dj.API.DepositBaseURL+"/merchant/sdk/on-ramp/order", r.dj.Merchant.APIKey, string(b))
	if code != 201 {
		t.Fatalf("C1: %d %v", code, o)
	}
	if o["order_fiat_symbol"] != currency || o["order_fiat_amount"] != amount || o["convert_to_crypto_symbol"] != symbol ||
		o["convert_to_crypto_network"] != r.dj.Chain.Network || o["crypto_amount"] == nil || o["crypto_amount"] == "" ||
		!strings.HasPrefix(fmt.Sprint(o["gateway_url"]), strings.TrimSuffix(r.dj.API.MintBaseURL, "/mint")+"/checkout?") {
		t.Fatalf("C1 answer %v", o)
	}
	if m, given := o["fiat_payment_method"]; (method == "") == given || (given && m != method) {
		t.Fatalf("C1 with fiat_payment_method %q answers %v", method, m)
	}
	return o
}

// depositView is what the test reads of an area C page beyond fiatPage: what it says is
// deposited, its price lines, and its quote screen.
type depositView struct {
	Item    string       `json:"item"`  // the heading: "Deposit of 0.0195 ETH"
	Price   []priceLine  `json:"price"` // #price's lines
	Rate    string       `json:"rate"`
	Heading string       `json:"heading"`
	Choices []methodLine `json:"choices"` // the quote screen's buttons, in order
}

// priceLine is a line of a page's order summary.
type priceLine struct {
	Label  string `json:"label"`
	Amount string `json:"amount"` // as shown
	Exact  string `json:"exact"`  // its title: the exact amount, where Amount is rounded
	Fiat   string `json:"fiat"`   // what it is worth in the currency: "≈ 27.78 EUR"
	Total  bool   `json:"total"`
}

// exact is the line's amount as the order states it.
func (l priceLine) exact() string {
	if l.Exact != "" {
		return l.Exact
	}
	return l.Amount
}

// priceLinesJS reads #price's lines (priceLine) and #rate.
const priceLinesJS = `(() => {
  const text = (e) => e ? e.textContent.replace(/\s+/g, " ").trim() : "";
  return {price: [...document.querySelectorAll("#price > div")].map((d) => ({label: text(d.querySelector("dt")),
    amount: text(d.querySelector("dd .crypto")), exact: d.querySelector("dd").title || "", fiat: text(d.querySelector("dd .fiat")),
    total: d.classList.contains("total")})), rate: text(document.getElementById("rate"))};
})()`

// methodLine is a button of the quote screen.
type methodLine struct {
	ID       string `json:"id"`   // its value, the method's id
	Name     string `json:"name"` // as the page writes it
	Fee      string `json:"fee"`  // "Fee 1.94 EUR"
	Delivers string `json:"delivers"`
}

const depositViewJS = `(() => {
  const text = (e) => e ? e.textContent.replace(/\s+/g, " ").trim() : "";
  const form = document.querySelector('form[action="/checkout/method"]');
  return Object.assign(` + priceLinesJS + `, {item: text(document.getElementById("item-name")),
    heading: text(document.getElementById("choose-label")),
    choices: form ? [...form.querySelectorAll('#methods button[name="method"]')].map((b) => {
      const s = b.querySelectorAll("span");
      return {id: b.value, name: text(b.querySelector("strong")), fee: text(s[0]), delivers: text(s[1])};
    }) : []});
})()`

func (r *depositRun) view(t *testing.T) depositView {
	t.Helper()
	return browsertest.Eval[depositView](t, r.ctx, depositViewJS)
}

// showsDeposit checks that the page says what the merchant receives for the fiat amount
// (amount and currency) paid with method: the heading, and the price lines: delivered, the
// network fee and the service fee (which add up to what the amount buys with that method), each
// with its worth in the currency, the exchange spread and the method's fee (as dev mode's
// configuration makes them), then the fiat amount as the total; the currency's figures add up
// to it, and the rate used is dev mode's.
func (r *depositRun) showsDeposit(t *testing.T, what, crypto, symbol, currency, amount, method string) {
	t.Helper()
	v := r.view(t)
	want := strings.NewReplacer("{amount}", crypto, "{symbol}", symbol).Replace(checkoutpage.Messages["deposit_of"])
	spread, fee := fiatFees(t, currency, amount, method)
	labels := []string{strings.ReplaceAll(checkoutpage.Messages["price_delivered"], "{merchant}", r.merchant), checkoutpage.Messages["price_network_fee"],
		checkoutpage.Messages["price_service_fee"], "Exchange spread (1%)"}
	if fee.label != "" {
		labels = append(labels, fee.label)
	}
	labels = append(labels, checkoutpage.Messages["fiat_amount"])
	var got []string
	for _, l := range v.Price {
		got = append(got, l.Label)
	}
	last := v.Price[len(v.Price)-1]
	if v.Item != want || !slices.Equal(got, labels) || v.Price[0].Amount != crypto+" "+symbol || last.Amount != amount+" "+currency || !last.Total ||
		v.Price[3].Amount != spread+" "+currency || (fee.label != "" && v.Price[4].Amount != fee.amount+" "+currency) {
		t.Fatalf("%s: the page says %q, price %+v; want %q, lines %v, %s %s delivered for %s %s (spread %s, fee %+v)", what, v.Item, v.Price, want, labels,
			crypto, symbol, amount, currency, spread, fee)
	}
	// Amounts are as the order states them up to 6 significant digits; a longer one (the
	// network fee, which took the rounding of crypto_amount) reads 3, its exact amount in the
	// line's title.
	for _, l := range v.Price[:3] {
		n, _, _ := strings.Cut(l.exact(), " ")
		shown, _, _ := strings.Cut(l.Amount, " ")
		if long := significantDigits(n) > 6; long != (l.Exact != "") || (long && significantDigits(shown) > 3) {
			t.Fatalf("%s: the line %+v: %s has %d significant digits, shown %s", what, l, n, significantDigits(n), shown)
		}
	}
	sum, fiat := new(big.Int), new(big.Rat)
	for _, l := range v.Price[:3] {
		n, unit, _ := strings.Cut(l.exact(), " ")
		if unit != symbol {
			t.Fatalf("%s: the price line %+v is not in %s", what, l, symbol)
		}
		sum.Add(sum, baseUnits(t, n, symbol))
		if l.Fiat != "" {
			fiat.Add(fiat, ratOf(t, strings.TrimSuffix(strings.TrimPrefix(l.Fiat, "≈ "), " "+currency)))
		}
	}
	if gross := grossOf(t, currency, amount, method, symbol); new(big.Int).Sub(sum, gross).CmpAbs(big.NewInt(1)) > 0 {
		t.Fatalf("%s: the price lines %v add up to %s base units; %s %s by %s buys %s", what, v.Price, sum, amount, currency, method, gross)
	}
	for _, l := range v.Price[3 : len(v.Price)-1] {
		fiat.Add(fiat, ratOf(t, strings.TrimSuffix(l.Amount, " "+currency)))
	}
	if fiat.Cmp(ratOf(t, amount)) != 0 {
		t.Fatalf("%s: the currency's figures of %+v add up to %s, not %s", what, v.Price, fiat.FloatString(2), amount)
	}
	if want := "Rate used: 1 " + symbol + " = " + devRate(symbol, currency); v.Rate != want {
		t.Fatalf("%s: rate %q, want %q", what, v.Rate, want)
	}
}

// significantDigits counts a decimal's significant digits.
func significantDigits(s string) int {
	d := strings.TrimLeft(strings.Replace(s, ".", "", 1), "0")
	if !strings.Contains(s, ".") {
		d = strings.TrimRight(d, "0")
	}
	return len(d)
}

// ratOf parses a decimal.
func ratOf(t *testing.T, s string) *big.Rat {
	t.Helper()
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		t.Fatalf("not a decimal: %q", s)
	}
	return r
}

// devRate is the price of one unit of symbol in currency at dev mode's prices, as the page
// writes it: to the cent, or 4 significant digits below 1.
func devRate(symbol, currency string) string {
	r := new(big.Rat).Quo(ratOfString(usdPrices[symbol]), ratOfString(usdPrices[currency]))
	if r.Cmp(big.NewRat(1, 1)) < 0 {
		return map[string]string{"DUSD/EUR": "0.9259", "DUSD/GBP": "0.7874"}[symbol+"/"+currency] + " " + currency
	}
	return r.FloatString(2) + " " + currency
}

func ratOfString(s string) *big.Rat { r, _ := new(big.Rat).SetString(s); return r }

// methodFeeLine is the method's fee line of a summary: its label ("" for a method without a
// fee) and amount.
type methodFeeLine struct{ label, amount string }

// fiatFees are the exchange spread and the method's fee a fiat amount of area C pays with
// method at dev mode's configuration, as the summary shows them (rounded half up to the cent):
// the fee is amount - (amount - fixed) / (1 + bps), the spread what the rest loses to 1%.
func fiatFees(t *testing.T, currency, amount, method string) (string, methodFeeLine) {
	t.Helper()
	var bps, fixed int64 = -1, 0
	var name string
	for _, f := range methodFees[currency] {
		if f.id == method {
			bps, fixed, name = f.bps, f.fixed, f.name
		}
	}
	if bps < 0 {
		t.Fatalf("no fee of %s in %s", method, currency)
	}
	minor := ratOf(t, amount)
	minor.Mul(minor, big.NewRat(100, 1))
	base := new(big.Rat).Sub(minor, big.NewRat(fixed, 1))
	base.Mul(base, big.NewRat(10_000, 10_000+bps))
	fee := new(big.Rat).Sub(minor, base)
	spread := new(big.Rat).Sub(base, new(big.Rat).Mul(base, big.NewRat(10_000, 10_000+devSpreadBPS)))
	cents := func(r *big.Rat) string { // half up, in major units
		q := new(big.Rat).Add(r, big.NewRat(1, 2))
		n := new(big.Int).Quo(q.Num(), q.Denom())
		return rampway.FormatFixed(n, 2)
	}
	line := methodFeeLine{}
	if fee.Sign() > 0 {
		var rates []string
		if bps > 0 {
			rates = append(rates, strings.TrimSuffix(strings.TrimRight(big.NewRat(bps, 100).FloatString(2), "0"), ".")+"%")
		}
		if fixed > 0 {
			rates = append(rates, rampway.FormatFixed(big.NewInt(fixed), 2)+" "+currency)
		}
		line.label = strings.Split(name, " (")[0] + " fee (" + strings.Join(rates, " + ") + ")"
		line.amount = cents(fee)
	}
	return cents(spread), line
}

// usdPrices are dev mode's USD prices (DESIGN.md) and devSpreadBPS its fiat.spread_bps.
var usdPrices = map[string]string{"ETH": "3000", "DUSD": "1", "EUR": "1.08", "GBP": "1.27"}

const devSpreadBPS = 100

// grossOf is what amount (major units) of currency buys of symbol with method, in base units
// rounded down, before the network and service fees: the method's fee and the spread off the
// amount, the rest at dev mode's prices (DESIGN.md, area C's quote).
func grossOf(t *testing.T, currency, amount, method, symbol string) *big.Int {
	t.Helper()
	var bps, fixed int64 = -1, 0
	for _, f := range methodFees[currency] {
		if f.id == method {
			bps, fixed = f.bps, f.fixed
		}
	}
	if bps < 0 {
		t.Fatalf("no fee of %s in %s", method, currency)
	}
	minor := baseUnits(t, amount, "DUSD").Int64() / 10_000 // 6 decimals -> 2
	v := new(big.Rat).SetFrac(big.NewInt((minor-fixed)*10_000), big.NewInt(10_000+bps))
	v.Mul(v, big.NewRat(10_000, 10_000+devSpreadBPS))
	fiatUSD, _ := new(big.Rat).SetString(usdPrices[currency])
	assetUSD, _ := new(big.Rat).SetString(usdPrices[symbol])
	v.Mul(v, fiatUSD).Quo(v, assetUSD).Quo(v, big.NewRat(100, 1))
	unit := new(big.Int).Set(baseUnits(t, "1", symbol))
	v.Mul(v, new(big.Rat).SetInt(unit))
	return new(big.Int).Quo(v.Num(), v.Denom())
}

// depositRank maps the states of an area C order paid at once to their place in its life.
func depositRank(t *testing.T, states []string) []int {
	t.Helper()
	order := []string{"CREATED", "ONRAMP_PROCESSING", "ONRAMP_SUCCESS", "DEPOSIT_PROCESSING", "SUCCESS"}
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

// paidAndDeposited follows the page to SUCCESS (states in order, screenshots of shots),
// checks the page at SUCCESS (its status, the transfer's hash, the card, the way back), the
// deposit at the merchant's address (delivered) and the events at the overriding URL.
func (r *depositRun) paidAndDeposited(t *testing.T, o map[string]any, symbol string, to common.Address, before *big.Int, cardUsed string,
	shots map[string]string) map[string]any {
	t.Helper()
	id := o["order_id"].(string)
	seen := r.watchTo(t, "SUCCESS", shots)
	if !slices.IsSorted(depositRank(t, seen)) {
		t.Fatalf("states on the page out of order: %v", seen)
	}
	t.Logf("states on the page: %v", seen)
	r.succeeded(t, id, cardUsed)
	v := r.delivered(t, id, symbol, to, before)
	r.showsDeposit(t, "the page at SUCCESS", v["crypto_amount"].(string), symbol, o["order_fiat_symbol"].(string), o["order_fiat_amount"].(string),
		v["fiat_payment_method"].(string))
	r.overridden(t, id, depositEvents)
	return v
}

// delivered checks order id's transfer to the merchant: the lookup is at SUCCESS with the
// deposit address to; its transaction, mined and successful, sends exactly crypto_amount of
// symbol to to (the value of a native transfer, or the token's one Transfer log); and to
// holds exactly crypto_amount more than before. It returns the lookup.
func (r *depositRun) delivered(t *testing.T, id, symbol string, to common.Address, before *big.Int) map[string]any {
	t.Helper()
	v := r.f.lookup(t, id)
	amount, _ := v["crypto_amount"].(string)
	hash, _ := v["execution_tx_hash"].(string)
	if v["status"] != "SUCCESS" || v["deposit_address"] != to.Hex() || amount == "" || hash == "" {
		t.Fatalf("the lookup of %s at the end: %v (want SUCCESS, deposit_address %s, crypto_amount, execution_tx_hash)", id, v, to.Hex())
	}
	units := baseUnits(t, amount, symbol)
	var rec *types.Receipt
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		var err error
		if rec, err = r.j.c.TransactionReceipt(t.Context(), common.HexToHash(hash)); err == nil {
			break
		} else if time.Now().After(deadline) { // "transaction indexing is in progress"
			t.Fatalf("receipt of %s: %v", hash, err)
		}
	}
	tx, _, err := r.j.c.TransactionByHash(t.Context(), common.HexToHash(hash))
	if err != nil {
		t.Fatalf("transaction %s: %v", hash, err)
	}
	if rec.Status != 1 {
		t.Fatalf("the transfer %s failed on chain", hash)
	}
	if symbol == "ETH" {
		if tx.To() == nil || *tx.To() != to || tx.Value().Cmp(units) != 0 {
			t.Fatalf("the transfer %s sends %s wei to %v, want %s wei (%s ETH) to %s", hash, tx.Value(), tx.To(), units, amount, to.Hex())
		}
	} else {
		token := common.HexToAddress(r.dj.Contracts.Token)
		var sent []string
		for _, l := range rec.Logs {
			if l.Address == token && len(l.Topics) == 3 && l.Topics[0] == nftTransferTopic {
				sent = append(sent, fmt.Sprintf("%s->%s %s", common.BytesToAddress(l.Topics[1].Bytes()).Hex(),
					common.BytesToAddress(l.Topics[2].Bytes()).Hex(), new(big.Int).SetBytes(l.Data)))
			}
		}
		if tx.To() == nil || *tx.To() != token || len(sent) != 1 || !strings.HasSuffix(sent[0], "->"+to.Hex()+" "+units.String()) {
			t.Fatalf("the transfer %s (to %v) moves %v of the token, want one Transfer of %s to %s", hash, tx.To(), sent, units, to.Hex())
		}
	}
	got := r.f.balanceOf(t, symbol, to)
	if want := new(big.Int).Add(before, units); got.Cmp(want) != 0 {
		t.Fatalf("the deposit address %s holds %s %s base units, want %s + %s (crypto_amount %s)", to.Hex(), got, symbol, before, units, amount)
	}
	t.Logf("%s: %s %s (%s base units) delivered to %s by %s", id, amount, symbol, units, to.Hex(), hash)
	return v
}

// overridden waits for the order's events at the overriding receiver, want in order, and
// checks that none reached the merchant's own webhook URL (the demo store's receiver).
func (r *depositRun) overridden(t *testing.T, id string, want []rampway.EventName) {
	t.Helper()
	r.override.wantEvents(t, id, want)
	for _, e := range demoEvents(t, r.base) {
		if e.OrderID == id {
			t.Fatalf("the merchant's own webhook URL received %s of %s, which has its merchant_webhook_url", e.EventName, id)
		}
	}
}

// methodFees are dev mode's fees of each currency's methods (config's defaults): percent in
// basis points and a fixed part in minor units, in the currency's order, by the page's name.
var methodFees = map[string][]struct {
	id, name   string
	bps, fixed int64
}{
	"EUR": {{rampway.MethodCard, "Card", 290, 25}, {rampway.MethodApplePay, "Apple Pay", 290, 25}, {rampway.MethodGooglePay, "Google Pay", 290, 25},
		{rampway.MethodSEPABankTransfer, "SEPA bank transfer", 0, 0}, {rampway.MethodOpenBanking, "Open banking", 100, 0}},
	"GBP": {{rampway.MethodCard, "Card", 290, 25}, {rampway.MethodGBPBankTransfer, "Bank transfer (Faster Payments)", 0, 0},
		{rampway.MethodOpenBanking, "Open banking", 100, 0}},
}

// methodFee is the method's fee on amount (minor units) as the quote screen shows it: what
// comes off the amount before the spread, amount - (amount - fixed) / (1 + bps), rounded up
// to the minor unit.
func methodFee(amount, bps, fixed int64, currency string) string {
	base := new(big.Rat).SetFrac(big.NewInt((amount-fixed)*10_000), big.NewInt(10_000+bps))
	fee := new(big.Rat).Sub(new(big.Rat).SetInt64(amount), base)
	q, m := new(big.Int).DivMod(fee.Num(), fee.Denom(), new(big.Int))
	if m.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	return rampway.FormatFixed(q, 2) + " " + currency
}

// quoteScreen reads the quote screen and checks it lists the currency's methods in order,
// each with its fee on amount and an amount of symbol it delivers; equal fees deliver
// equal amounts, a lower fee more. It returns what each method delivers (decimal) by id.
func (r *depositRun) quoteScreen(t *testing.T, currency, amount, symbol string) map[string]string {
	t.Helper()
	v := r.view(t)
	minor := baseUnits(t, amount, "DUSD").Int64() / 10_000 // 6 decimals -> 2
	fees := methodFees[currency]
	if v.Heading != checkoutpage.Messages["choose_method"] || len(v.Choices) != len(fees) {
		t.Fatalf("the quote screen of %s %s: heading %q, choices %+v; want %d methods", amount, currency, v.Heading, v.Choices, len(fees))
	}
	out := map[string]string{}
	type priced struct {
		fee       int64
		delivered *big.Int
		id        string
	}
	var lines []priced
	for i, f := range fees {
		c := v.Choices[i]
		fee, wantFee := strings.TrimPrefix(c.Fee, checkoutpage.Messages["method_fee"]+" "), methodFee(minor, f.bps, f.fixed, currency)
		d, ok := strings.CutPrefix(c.Delivers, checkoutpage.Messages["delivers"]+" ")
		n, unit, _ := strings.Cut(d, " ")
		if c.ID != f.id || c.Name != f.name || fee != wantFee || !ok || unit != symbol {
			t.Fatalf("the quote screen's line %d: %+v; want %s (%q) with a fee of %s and what it delivers in %s", i+1, c, f.id, f.name, wantFee, symbol)
		}
		units := baseUnits(t, n, symbol)
		if units.Sign() <= 0 {
			t.Fatalf("the quote screen's line %d delivers %q", i+1, c.Delivers)
		}
		// What a line delivers is what the amount buys with the method less the network and
		// service fees: less than it, by less than 1 % here (the dev transfers cost cents).
		if gross := grossOf(t, currency, amount, c.ID, symbol); units.Cmp(gross) >= 0 || new(big.Int).Mul(new(big.Int).Sub(gross, units), big.NewInt(100)).Cmp(gross) >= 0 {
			t.Fatalf("the quote screen's line %d delivers %s %s; %s %s by %s buys %s base units before the fees", i+1, n, symbol, amount, currency, c.ID, gross)
		}
		out[c.ID] = n
		lines = append(lines, priced{f.bps*10_000 + f.fixed, units, c.ID})
	}
	for _, a := range lines {
		for _, b := range lines {
			if (a.fee == b.fee) != (a.delivered.Cmp(b.delivered) == 0) || (a.fee < b.fee) != (a.delivered.Cmp(b.delivered) > 0) {
				t.Fatalf("the quote screen: %s (fee %d) delivers %s, %s (fee %d) %s", a.id, a.fee, a.delivered, b.id, b.fee, b.delivered)
			}
		}
	}
	t.Logf("the quote screen of %s %s: %+v", amount, currency, v.Choices)
	return out
}

// Area C's journeys in Chromium on one dev server, one after the other (each deposit
// address's balance before and after a journey tells what it received).
func TestBrowserDeposit(t *testing.T) {
	t.Parallel()
	r := newDepositRun(t)
	cards := r.dj.Fiat.TestCards

	// A card into ETH: fiat_payment_method given, so the start step at once, then the card
	// form; typed, paid, the ETH sent to the merchant's deposit address, then the card captured.
	t.Run("card into ETH", func(t *testing.T) {
		to := devDepositAddress(t, r.dir, "ETH")
		before := r.f.balanceOf(t, "ETH", to)
		o := r.onramp(t, "EUR", "100.00", "ETH", rampway.MethodCard)
		id, amount := o["order_id"].(string), o["order_fiat_amount"].(string)
		if o["convert_to_crypto_contractAddress"] != nil {
			t.Fatalf("C1 into ETH answers a contract address: %v", o)
		}
		p := r.open(t, o)
		want := fiatPage{Path: "/checkout", OrderID: id, State: "CREATED", Status: checkoutpage.Messages["st_CREATED"], Step: "card",
			PayButton: "Pay " + amount + " EUR", Cancel: true}
		if p != want {
			t.Fatalf("the card step:\n  %+v\nwant\n  %+v", p, want)
		}
		if v := r.view(t); len(v.Choices) != 0 || v.Heading != "" {
			t.Fatalf("a quote screen for an order with its method: %+v", v)
		}
		r.atBothSizes(t, "the card step of an on-ramp", "1-card-form", func(t *testing.T, onPhone bool) {
			r.showsDeposit(t, "the card step", o["crypto_amount"].(string), "ETH", "EUR", amount, rampway.MethodCard)
		})
		r.payByCard(t, cards.Success, "2-card-filled")
		v := r.paidAndDeposited(t, o, "ETH", to, before, "Paid with visa ending in 4242",
			map[string]string{"ONRAMP_SUCCESS": "3-payment-authorised", "DEPOSIT_PROCESSING": "3-sending"})
		if v["crypto_amount"] != o["crypto_amount"] {
			t.Fatalf("crypto_amount %v at the end, C1 quoted %v", v["crypto_amount"], o["crypto_amount"])
		}
		// Where the top-up went: the merchant's deposit address, beside the transfer.
		r.atBothSizes(t, "the on-ramp page at SUCCESS", "4-success", func(t *testing.T, onPhone bool) {
			if e := r.ends(t); e.SentTo != "Sent to "+r.merchant+": "+to.Hex() || e.Tx != v["execution_tx_hash"] || !e.Return || e.Cancel {
				t.Errorf("the page at SUCCESS: %+v, want sent to %s", e, to.Hex())
			}
		})
		if fp := r.f.captured(t, id, amount); fp["method"] != rampway.MethodCard ||
			fp["card_brand"] != "visa" || fp["card_last4"] != "4242" {
			t.Fatalf("fiat_payment %v", fp)
		}
		r.follow(t, checkoutpage.Messages["return"])
		r.backAtShop(t, id, "SUCCESS")
		r.shot(t, "5-back-at-shop")
	})

	// SEPA into the token: the page shows the account and the reference; the test reads the
	// reference off the page and, as the operator, tells the transfer through the admin route.
	t.Run("SEPA transfer into the token", func(t *testing.T) {
		to := devDepositAddress(t, r.dir, "DUSD")
		before := r.f.balanceOf(t, "DUSD", to)
		o := r.onramp(t, "EUR", "50.00", "DUSD", rampway.MethodSEPABankTransfer)
		id, amount := o["order_id"].(string), o["order_fiat_amount"].(string)
		if !strings.EqualFold(fmt.Sprint(o["convert_to_crypto_contractAddress"]), r.dj.Contracts.Token) {
			t.Fatalf("C1 into the token answers contract address %v, want %s", o["convert_to_crypto_contractAddress"], r.dj.Contracts.Token)
		}
		r.open(t, o)
		p := r.startPayment(t)
		fp := r.f.lookup(t, id)["fiat_payment"].(map[string]any)
		if p.Step != "bank" || p.State != "CREATED" || p.Reference == "" || p.Reference != fp["reference"] || !p.Cancel {
			t.Fatalf("the bank step: %+v (fiat_payment %v)", p, fp)
		}
		for _, s := range []string{amount + " EUR", "rampway sandbox", "DE89 3704 0044 0532 0130 00", "COBADEFFXXX", p.Reference} {
			if !strings.Contains(p.Bank, s) {
				t.Fatalf("the bank details do not say %q: %q", s, p.Bank)
			}
		}
		r.showsDeposit(t, "the bank step", o["crypto_amount"].(string), "DUSD", "EUR", amount, rampway.MethodSEPABankTransfer)
		r.shot(t, "1-bank-details")
		browsertest.CheckAccessibility(t, r.ctx, "the bank step of an on-ramp")
		r.f.bankTransfer(t, p.Reference, amount, "EUR")
		v := r.paidAndDeposited(t, o, "DUSD", to, before, "", map[string]string{"DEPOSIT_PROCESSING": "2-sending"})
		if v["crypto_amount"] != o["crypto_amount"] {
			t.Fatalf("crypto_amount %v at the end, C1 quoted %v", v["crypto_amount"], o["crypto_amount"])
		}
		r.shot(t, "3-success")
		if fp, ms := v["fiat_payment"].(map[string]any), v["fiat_movements"].([]any); fp["status"] != "succeeded" || fp["reference"] != p.Reference || len(ms) != 0 {
			t.Fatalf("a transfer of the amount: %v %v", fp, ms)
		}
	})

	// No fiat_payment_method: the quote screen lists the currency's methods with their fees
	// and what each delivers; the user presses Card (by its accessible name), the start step
	// and the card form follow, and the order delivers exactly what the card's line showed.
	t.Run("method chosen on the quote screen", func(t *testing.T) {
		to := devDepositAddress(t, r.dir, "ETH")
		before := r.f.balanceOf(t, "ETH", to)
		o := r.onramp(t, "EUR", "60.00", "ETH", "")
		id := o["order_id"].(string)
		p := r.open(t, o)
		if p.State != "CREATED" || p.Step != "" || p.PayButton != "" || !p.Cancel || p.Status != checkoutpage.Messages["st_choose"] {
			t.Fatalf("the quote screen: %+v", p)
		}
		lines := r.quoteScreen(t, "EUR", "60.00", "ETH")
		t.Logf("before a choice the page's heading and price read %+v (C1's estimate %v)", r.view(t), o["crypto_amount"])
		r.shot(t, "1-quote-screen")
		// What the line of SEPA shows is what C1 quotes with that method.
		if sepa := r.onramp(t, "EUR", "60.00", "ETH", rampway.MethodSEPABankTransfer); sepa["crypto_amount"] != lines[rampway.MethodSEPABankTransfer] {
			t.Errorf("the quote screen's SEPA line delivers %s ETH, C1 with sepa_bank_transfer quotes %v", lines[rampway.MethodSEPABankTransfer], sepa["crypto_amount"])
		}
		r.press(t, "Card")
		if p = r.page(t, "the card step after the choice", func(p fiatPage) bool { return p.Step != "" }); p.Step != "card" || p.State != "CREATED" ||
			p.PayButton != "Pay 60.00 EUR" || !p.Cancel {
			t.Fatalf("after choosing Card: %+v", p)
		}
		chosen := lines[rampway.MethodCard]
		r.showsDeposit(t, "the card step after the choice", chosen, "ETH", "EUR", "60.00", rampway.MethodCard)
		r.shot(t, "2-card-form")
		if v := r.f.lookup(t, id); v["fiat_payment_method"] != rampway.MethodCard || v["crypto_amount"] != chosen {
			t.Fatalf("after choosing Card on the quote screen (its line: %s ETH) the order is %v with crypto_amount %v", chosen, v["fiat_payment_method"], v["crypto_amount"])
		}
		r.payByCard(t, cards.Success, "")
		v := r.paidAndDeposited(t, o, "ETH", to, before, "Paid with visa ending in 4242", map[string]string{"DEPOSIT_PROCESSING": "3-sending"})
		if v["crypto_amount"] != chosen {
			t.Fatalf("crypto_amount %v at the end, the chosen line showed %s", v["crypto_amount"], chosen)
		}
		r.shot(t, "4-success")
		r.f.movement(t, id, "capture", "60.00")
	})

	// The quote screen's accessibility (TestBrowserAccessibility's checks: automated, phones,
	// Tab order with visible focus), in GBP into the token; then a keyboard user goes back to
	// the bank transfer's line, presses Enter, starts the payment and gets the bank details, and
	// cancels.
	t.Run("quote screen accessibility", func(t *testing.T) {
		o := r.onramp(t, "GBP", "80.00", "DUSD", "")
		id := o["order_id"].(string)
		if p := r.open(t, o); p.State != "CREATED" || p.Step != "" || !p.Cancel {
			t.Fatalf("the quote screen: %+v", p)
		}
		r.quoteScreen(t, "GBP", "80.00", "DUSD")
		r.shot(t, "1-quote-screen")
		var tabs []string
		for _, f := range methodFees["GBP"] {
			tabs = append(tabs, `button.method "`+f.name+` `)
		}
		r.accessible(t, "the quote screen", "1-quote-screen-360px", append(tabs, fiatCancelStop))
		// Focus is on Cancel, the last stop: Shift+Tab twice reaches the bank transfer.
		back := chromedp.KeyEvent(kb.Tab, chromedp.KeyModifiers(chromedp.ModifierShift))
		r.do(t, back, back)
		if v := browsertest.Eval[string](t, r.ctx, `document.activeElement.value || ""`); v != rampway.MethodGBPBankTransfer {
			t.Fatalf("two Shift+Tab from Cancel focus %q, want the bank transfer's line", v)
		}
		r.shot(t, "2-bank-transfer-focused")
		r.do(t, chromedp.KeyEvent(kb.Enter))
		if p := r.page(t, "the start step after the choice", func(p fiatPage) bool { return p.Step != "" }); p.Step != "start" || p.Start != "Pay 80.00 GBP by bank transfer" {
			t.Fatalf("after choosing the bank transfer with the keyboard: %+v", p)
		}
		p := r.startPayment(t)
		v := r.f.lookup(t, id)
		fp, _ := v["fiat_payment"].(map[string]any)
		if p.Step != "bank" || p.State != "CREATED" || p.Reference == "" || fp["reference"] != p.Reference || v["fiat_payment_method"] != rampway.MethodGBPBankTransfer {
			t.Fatalf("after choosing the bank transfer with the keyboard: %+v; the order %v %v", p, v["fiat_payment_method"], fp)
		}
		for _, s := range []string{"80.00 GBP", "04-00-04", "12345678"} {
			if !strings.Contains(p.Bank, s) {
				t.Fatalf("the bank details do not say %q: %q", s, p.Bank)
			}
		}
		r.shot(t, "3-bank-details")
		browsertest.CheckAccessibility(t, r.ctx, "the bank step after the quote screen")
		r.press(t, checkoutpage.Messages["cancel"])
		r.backAtShop(t, id, "CANCELLED")
		if v := r.f.lookup(t, id); v["status"] != "CANCELLED" || v["execution_tx_hash"] != nil {
			t.Fatalf("after cancel the order is %v (transfer %v)", v["status"], v["execution_tx_hash"])
		}
		r.overridden(t, id, []rampway.EventName{rampway.EventCreated, rampway.EventWidgetOpen, rampway.EventCancelled, rampway.EventWidgetClose})
	})

	// The quote screen and, once the time is over, what a late payment becomes (nothing was
	// paid), at a desktop size and on a phone.
	t.Run("pages at desktop and 390 px", func(t *testing.T) {
		o := r.onramp(t, "EUR", "40.00", "ETH", "")
		r.open(t, o)
		r.atBothSizes(t, "the quote screen", "1-quote-screen", func(t *testing.T, onPhone bool) {
			if s := r.text(t, "status"); s != checkoutpage.Messages["st_choose"] {
				t.Errorf("status %q before a choice", s)
			}
		})
		// Away from the page first: a visit watching the order end goes back to the shop by
		// itself 5 s later, and that navigation would race the one to the expired page.
		r.do(t, chromedp.Navigate("about:blank"))
		r.expireNow(t, o["order_id"].(string))
		r.f.waitStatus(t, o["order_id"].(string), "EXPIRED", 30*time.Second)
		r.openPage(t, o)
		r.atBothSizes(t, "the on-ramp page once expired", "2-expired", func(t *testing.T, onPhone bool) {
			if e := r.ends(t); e != (ends{Late: checkoutpage.Messages["late_none"], Return: true}) {
				t.Errorf("expired: %+v", e)
			}
		})
	})
}
