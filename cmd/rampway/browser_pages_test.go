package main

// The checkout pages as a paying user meets them, on a desktop and on a 390 px phone, in the
// browser test worlds of areas A and B (TestBrowserFiat) and C (TestBrowserDeposit): the price
// in the currency with its spread, fee and rate; amounts rounded for people but exact where
// they are sent; what a phone shows first; the country list; what the status says before a
// payment; the bank details' IBAN and days; the token's contract; where a success went; what a
// late payment becomes; one way back for all; user.widget.close once per visit. Every state is
// checked at both sizes with a screenshot of each (browsertest.ScreenshotDir) and the
// accessibility check.

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"math/big"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/checkoutpage"
	"github.com/rampway/rampway/internal/browsertest"
)

// phone is the phone the pages are checked on: 390x844 CSS pixels.
var phone = chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile)

// atBothSizes checks the page as it is at the desktop size, then on the phone: the
// accessibility check, check (when not nil; phone says which), and a screenshot of each,
// name-desktop and name-390px. On the phone the page must not scroll sideways. The desktop
// size is back at the end.
func (r *browserRun) atBothSizes(t *testing.T, what, name string, check func(t *testing.T, phone bool)) {
	t.Helper()
	for _, onPhone := range []bool{false, true} {
		size := "desktop"
		if onPhone {
			size = "390px"
			r.do(t, phone)
		} else {
			r.do(t, noPhone)
		}
		browsertest.Eval[bool](t, r.ctx, `window.scrollTo(0, 0), true`)
		browsertest.CheckAccessibility(t, r.ctx, what+" at "+size)
		if w := browsertest.Eval[int](t, r.ctx, `document.documentElement.scrollWidth`); onPhone && w > 390 {
			t.Errorf("%s is %d px wide on a 390 px phone: it scrolls sideways", what, w)
		}
		if check != nil {
			check(t, onPhone)
		}
		r.shot(t, name+"-"+size)
	}
	r.do(t, noPhone)
}

// textJS is the text of the element with id, its spaces folded, or null when it is not shown.
const textJS = `((id) => { const e = document.getElementById(id);
  return e && !e.hidden && e.offsetParent !== null ? e.textContent.replace(/\s+/g, " ").trim() : null; })`

// text is the shown text of the element with id ("" when it is not shown).
func (r *browserRun) text(t *testing.T, id string) string {
	t.Helper()
	s := browsertest.Eval[*string](t, r.ctx, textJS+`(`+fmt.Sprintf("%q", id)+`)`)
	if s == nil {
		return ""
	}
	return *s
}

// offscreen lists the elements of ids that are not wholly on the first screen (the page at
// its top), or not shown.
func (r *browserRun) offscreen(t *testing.T, ids ...string) []string {
	t.Helper()
	b, _ := json.Marshal(ids)
	return browsertest.Eval[[]string](t, r.ctx, `(`+string(b)+`).filter((id) => {
	  const e = document.getElementById(id);
	  if (!e || e.offsetParent === null) return true;
	  const b = e.getBoundingClientRect();
	  return !(b.height > 0 && b.top >= 0 && b.bottom <= innerHeight && b.left >= 0 && b.right <= innerWidth);
	})`)
}

// openPage opens gateway_url and waits for the page of the order (either kind) to be there,
// its script run.
func (r *browserRun) openPage(t *testing.T, o map[string]any) {
	t.Helper()
	// Away from whatever page is open first: a visit that watched its order end goes back to
	// the shop by itself 5 s later, and that navigation would abort this one.
	r.do(t, chromedp.Navigate("about:blank"))
	r.do(t, chromedp.Navigate(o["gateway_url"].(string)))
	browsertest.WaitFor(t, r.ctx, "the page of "+fmt.Sprint(o["order_id"]), `document.readyState === "complete" && window.RampwayPage &&
	  document.getElementById("checkout") ? document.getElementById("checkout").dataset.orderId : ""`, 15*time.Second,
		func(id string) bool { return id == o["order_id"] })
}

// mintOrder creates an area A order of function i's example (0: paid in ETH, 1: in the demo
// token), returning to the shop at back, its events to the journey's receiver; with its
// gateway_url.
func (r *browserRun) mintOrder(t *testing.T, i int, back string) map[string]any {
	t.Helper()
	f := r.dj.SmartContractFunctions[i]
	body := map[string]any{"merchant_id": r.dj.Merchant.MerchantID, "crypto_symbol": f.PayableSymbol, "crypto_network": r.dj.Chain.Network,
		"contractExecution": f.Example, "merchant_user_id": "user-1", "merchant_txn_id": t.Name(), "merchant_redirect_url": back,
		"merchant_webhook_url": r.j.hook}
	if f.Example.Payment != nil && f.Example.Payment.PayableCryptoContractAddress != "" {
		body["crypto_contract_address"] = f.Example.Payment.PayableCryptoContractAddress
	}
	b, _ := json.Marshal(body)
	code, o := post(t, r.dj.API.MintBaseURL+"/merchant/hosted/nftCheckout/order", r.dj.Merchant.APIKey, string(b))
	if code != 201 {
		t.Fatalf("A1: %d %v", code, o)
	}
	v := r.j.get(t, o["order_id"].(string))
	v["gateway_url"] = o["gateway_url"]
	return v
}

// expireNow ends the orders' time now, as the clock would: the service's expiry worker does
// the rest (within its 5 s).
func (r *browserRun) expireNow(t *testing.T, ids ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(r.dir, devDBFile)+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, id := range ids {
		if _, err := db.Exec(`UPDATE orders SET expires_at = ? WHERE id = ?`, time.Now().Add(-time.Second).UnixMicro(), id); err != nil {
			t.Fatal(err)
		}
	}
}

// durations are what the pages' countdown says for a time left (in seconds), as
// checkoutpage's own test has it.
var durations = map[int]string{72 * 3600: "3 days", 71*3600 + 59*60 + 56: "3 days", 30 * 3600: "1 day 6 hours", 24 * 3600: "1 day",
	5*3600 + 12*60: "5 hours 12 minutes", 3600 + 60: "1 hour 1 minute", 3600: "1 hour", 59*60 + 59: "59:59", 29*60 + 41: "29:41", 9: "0:09", 0: "0:00"}

// ends are the page's parts at its end: where a success went, what a late payment becomes,
// the way back.
type ends struct {
	SentTo string `json:"sent_to"`
	Late   string `json:"late"`
	Tx     string `json:"tx"`
	Return bool   `json:"return"` // the return link shows
	Note   string `json:"note"`   // the return line
	Stay   bool   `json:"stay"`   // "Stay on this page" shows
	Cancel bool   `json:"cancel"` // the cancel button shows
}

const endsJS = `(() => { const t = ` + textJS + `;
  return {sent_to: t("sent-to") || "", late: t("late") || "", tx: t("tx-hash") || "", return: t("return-link") !== null,
    note: t("return-note") || "", stay: t("stay") !== null, cancel: t("cancel") !== null}; })()`

func (r *browserRun) ends(t *testing.T) ends {
	t.Helper()
	return browsertest.Eval[ends](t, r.ctx, endsJS)
}

// pagesAtTwoSizes is TestBrowserFiat's subtest of the pages of areas A and B at both sizes.
func (r *fiatRun) pagesAtTwoSizes(t *testing.T) {
	ethPay, tokenPay := r.mintOrder(t, 0, r.shop.url+"/return"), r.mintOrder(t, 1, r.shop.url+"/return")
	paid := r.mintOrder(t, 0, r.shop.url+"/return")
	lateA := r.mintOrder(t, 0, r.shop.url+"/return")
	lateB := r.order(t, "EUR", rampway.MethodCard, nil)
	card := r.order(t, "EUR", rampway.MethodCard, nil)
	france := r.order(t, "EUR", rampway.MethodCard, map[string]any{"user_dob": nil, "user_countryCode": "FR"})
	sepa := r.order(t, "EUR", rampway.MethodSEPABankTransfer, nil)
	// The orders whose page is checked at their end get there meanwhile: two expire, one is
	// paid from the wallet with no page open.
	r.expireNow(t, lateA["order_id"].(string), lateB["order_id"].(string))
	r.j.pay(t, paid, paid["crypto_amount"].(string))

	t.Run("area A in ETH", func(t *testing.T) {
		r.openPage(t, ethPay)
		r.atBothSizes(t, "the crypto page", "1-crypto-eth", func(t *testing.T, onPhone bool) {
			// What the user sends is exact everywhere; the countdown reads m:ss.
			if got := r.text(t, "amount"); got != ethPay["crypto_amount"] {
				t.Errorf("amount %q, the order's %v", got, ethPay["crypto_amount"])
			}
			if c := r.text(t, "countdown"); !regexp.MustCompile(`^(2\d|30):\d\d$`).MatchString(c) {
				t.Errorf("countdown %q", c)
			}
			// A phone shows what to pay, where, the time left and the wallet button first.
			if off := r.offscreen(t, "amount", "copy-amount", "address", "countdown", "wallet"); onPhone && len(off) > 0 {
				t.Errorf("not on the phone's first screen (390x844): %v", off)
			}
		})
		// The page's script says a time left as the server does (assets/common.js).
		for s, want := range durations {
			if got := browsertest.Eval[string](t, r.ctx, fmt.Sprintf("RampwayPage.duration(%d)", s)); got != want {
				t.Errorf("RampwayPage.duration(%d) = %q, want %q", s, got, want)
			}
		}
	})

	t.Run("area A in the token", func(t *testing.T) {
		r.openPage(t, tokenPay)
		r.atBothSizes(t, "the token payment page", "2-crypto-token", func(t *testing.T, onPhone bool) {
			token := browsertest.Eval[[]string](t, r.ctx, `[document.getElementById("token-address").textContent,
			  document.querySelector("#token button.copy").dataset.copy, String(!!document.getElementById("token-link"))]`)
			if !strings.EqualFold(token[0], r.dj.Contracts.Token) || token[1] != token[0] || token[2] != "false" {
				t.Errorf("the token's contract: %v, want %s, copied as shown, no explorer link (dev has none)", token, r.dj.Contracts.Token)
			}
			if off := r.offscreen(t, "amount", "address", "countdown", "wallet"); onPhone && len(off) > 0 {
				t.Errorf("not on the phone's first screen: %v", off)
			}
		})
	})

	t.Run("area B by card", func(t *testing.T) {
		r.open(t, card)
		v := r.f.lookup(t, card["order_id"].(string))
		r.atBothSizes(t, "the card step", "3-card-breakdown", func(t *testing.T, onPhone bool) {
			r.showsFiatPrice(t, v)
			// The expiry date and the security code side by side, their fields in line.
			f := browsertest.Eval[[]float64](t, r.ctx, `[...["expiry", "cvc"]].flatMap((id) => {
			  const b = document.getElementById(id).getBoundingClientRect(); return [b.top, b.bottom, b.height]; })`)
			if d := f[0] - f[3]; d > 1 || d < -1 || f[2] != f[5] {
				t.Errorf("the expiry and security code fields are not in line: %v", f)
			}
		})
	})

	t.Run("area B identity", func(t *testing.T) {
		r.open(t, france)
		r.atBothSizes(t, "the identity step", "4-identity", func(t *testing.T, onPhone bool) {
			if s := r.text(t, "status"); s != checkoutpage.Messages["st_identity"] {
				t.Errorf("status %q before the details", s)
			}
			c := browsertest.Eval[[]string](t, r.ctx, `(() => { const s = document.getElementById("user_countryCode");
			  return [s.tagName, s.value, s.options[s.selectedIndex].text, String(s.options.length)]; })()`)
			if c[0] != "SELECT" || c[1] != "FR" || c[2] != "France" || c[3] != "250" {
				t.Errorf("the country field: %v, want a list of the 249 countries and a prompt, France chosen", c)
			}
		})
	})

	t.Run("area B by bank transfer", func(t *testing.T) {
		r.open(t, sepa)
		r.startPayment(t)
		r.atBothSizes(t, "the bank details", "5-bank-details", func(t *testing.T, onPhone bool) {
			iban := browsertest.Eval[[]string](t, r.ctx, `[document.getElementById("bank-iban").textContent,
			  document.getElementById("bank-iban").nextElementSibling.dataset.copy]`)
			if iban[0] != "DE89 3704 0044 0532 0130 00" || iban[1] != "DE89370400440532013000" {
				t.Errorf("IBAN shown %q, copied %q", iban[0], iban[1])
			}
			if s, c := r.text(t, "status"), r.text(t, "countdown"); s != checkoutpage.Messages["st_bank"] || c != "3 days" {
				t.Errorf("status %q, time left %q; want %q, 3 days", s, c, checkoutpage.Messages["st_bank"])
			}
		})
	})

	t.Run("area A success", func(t *testing.T) {
		id := paid["order_id"].(string)
		v := r.j.wait(t, id, "SUCCESS", 60*time.Second)
		r.openPage(t, paid)
		to := r.recipient().Hex()
		r.atBothSizes(t, "the crypto page at SUCCESS", "6-crypto-success", func(t *testing.T, onPhone bool) {
			e := r.ends(t)
			// Opened at its end, the page stays: the way back, no countdown to the shop.
			if want := (ends{SentTo: "Sent to: " + to, Tx: v["execution_tx_hash"].(string), Return: true}); e != want {
				t.Errorf("the page at SUCCESS:\n  %+v\nwant\n  %+v", e, want)
			}
		})
	})

	t.Run("expired", func(t *testing.T) {
		for _, c := range []struct {
			name, shot string
			o          map[string]any
			late       string
		}{{"area A", "7-crypto-expired", lateA, "late_crypto"}, {"area B by card", "8-card-expired", lateB, "late_authorise"}} {
			id := c.o["order_id"].(string)
			if c.o["order_fiat_symbol"] != nil {
				r.f.waitStatus(t, id, "EXPIRED", 30*time.Second)
			} else {
				r.j.wait(t, id, "EXPIRED", 30*time.Second)
			}
			r.openPage(t, c.o)
			r.atBothSizes(t, "the "+c.name+" page once expired", c.shot, func(t *testing.T, onPhone bool) {
				e := r.ends(t)
				if want := (ends{Late: checkoutpage.Messages[c.late], Return: true}); e != want || r.text(t, "status") != checkoutpage.Messages["st_EXPIRED"] {
					t.Errorf("%s expired: %+v (status %q), want %+v", c.name, e, r.text(t, "status"), want)
				}
			})
		}
	})
}

// showsFiatPrice checks an area B page's summary against the order (its lookup v) at dev
// mode's prices and fees: the crypto lines exact to the order, each with its worth in EUR, the
// exchange spread (1%) and the card's fee (2.9% + 0.25 EUR) as the quote makes them, the
// amount; the EUR figures add up to it; the rate used.
func (r *browserRun) showsFiatPrice(t *testing.T, v map[string]any) {
	t.Helper()
	p := browsertest.Eval[struct {
		Price []priceLine `json:"price"`
		Rate  string      `json:"rate"`
	}](t, r.ctx, priceLinesJS)
	var labels []string
	for _, l := range p.Price {
		labels = append(labels, l.Label)
	}
	want := []string{"Price", "Network fee", "Service fee", "Exchange spread (1%)", "Card fee (2.9% + 0.25 EUR)", "Amount to pay"}
	if !slices.Equal(labels, want) || p.Rate != "Rate used: 1 ETH = 2777.78 EUR" {
		t.Fatalf("summary %+v, rate %q; want lines %v and the rate of 3000 USD / 1.08 USD", p.Price, p.Rate, want)
	}
	// The crypto: value + fees = what the order pays for, exact.
	crypto, fiat := new(big.Int), new(big.Rat)
	for _, l := range p.Price[:3] {
		n, unit, _ := strings.Cut(l.exact(), " ")
		if unit != "ETH" {
			t.Fatalf("the line %+v is not in ETH", l)
		}
		crypto.Add(crypto, baseUnits(t, n, "ETH"))
		if l.Fiat != "" {
			fiat.Add(fiat, ratOf(t, strings.TrimSuffix(strings.TrimPrefix(l.Fiat, "≈ "), " EUR")))
		}
	}
	if want := baseUnits(t, fmt.Sprint(v["crypto_amount"]), "ETH"); crypto.Cmp(want) != 0 {
		t.Fatalf("the crypto lines %+v add up to %s wei, the order's crypto_amount %v", p.Price, crypto, v["crypto_amount"])
	}
	// The spread and the fee as B3 makes them: the crypto at 3000 USD / 1.08 USD, 1% of that,
	// 2.9% of the two and 0.25 EUR; each rounded to the cent (half up).
	sub := new(big.Rat).SetFrac(crypto, new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil))
	sub.Mul(sub, big.NewRat(300_000, 108))
	spread := new(big.Rat).Mul(sub, big.NewRat(1, 100))
	fee := new(big.Rat).Add(sub, spread)
	fee.Mul(fee, big.NewRat(290, 10_000)).Add(fee, big.NewRat(25, 100))
	cents := func(r *big.Rat) string {
		c := new(big.Rat).Add(new(big.Rat).Mul(r, big.NewRat(100, 1)), big.NewRat(1, 2))
		return rampway.FormatFixed(new(big.Int).Quo(c.Num(), c.Denom()), 2) + " EUR"
	}
	if p.Price[3].Amount != cents(spread) || p.Price[4].Amount != cents(fee) || p.Price[5].Amount != fmt.Sprint(v["order_fiat_amount"])+" EUR" {
		t.Fatalf("spread %s, fee %s, amount %s; want %s, %s, %v EUR", p.Price[3].Amount, p.Price[4].Amount, p.Price[5].Amount, cents(spread), cents(fee),
			v["order_fiat_amount"])
	}
	fiat.Add(fiat, ratOf(t, strings.TrimSuffix(p.Price[3].Amount, " EUR"))).Add(fiat, ratOf(t, strings.TrimSuffix(p.Price[4].Amount, " EUR")))
	if fiat.Cmp(ratOf(t, fmt.Sprint(v["order_fiat_amount"]))) != 0 {
		t.Fatalf("the EUR figures of %+v add up to %s, not %v", p.Price, fiat.FloatString(2), v["order_fiat_amount"])
	}
}

// leavingOnce is TestBrowserFiat's subtest of one visit of an area A page: the user reloads it
// twice (the page's visit stays the same, and the merchant hears user.widget.close once, at the
// first reload), pays, and the page, having watched the order end, goes back to the shop by
// itself after saying so (with a way to stay), adding no second close.
func (r *fiatRun) leavingOnce(t *testing.T) {
	o := r.mintOrder(t, 0, r.shop.url+"/return")
	id := o["order_id"].(string)
	r.openPage(t, o)
	visit := func() map[string]any {
		return browsertest.Eval[map[string]any](t, r.ctx, `JSON.parse(sessionStorage.getItem("rampway.visit." + `+fmt.Sprintf("%q", id)+`))`)
	}
	first := visit()
	for i := range 2 {
		r.do(t, chromedp.Reload())
		r.openPage(t, o)
		if v := visit(); v["id"] != first["id"] || v["closed"] != true || v["live"] != true {
			t.Fatalf("the visit after reload %d: %v (first %v)", i+1, v, first)
		}
	}
	r.j.hooks.wantEvents(t, id, []rampway.EventName{rampway.EventCreated, rampway.EventWidgetOpen, rampway.EventWidgetClose})
	r.j.pay(t, o, o["crypto_amount"].(string))
	e := browsertest.WaitFor(t, r.ctx, "the page at SUCCESS, returning", endsJS, 60*time.Second, func(e ends) bool { return e.Note != "" })
	if !strings.HasPrefix(e.Note, "Returning to the shop in ") || !e.Stay || !e.Return || e.Cancel {
		t.Fatalf("the page at its end: %+v", e)
	}
	r.shotBetween(t, "1-returning")
	r.backAtShop(t, id, "SUCCESS")
	// Every event of the order, the close once, before the payment's.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		r.j.hooks.mu.Lock()
		got := slices.Clone(r.j.hooks.events[id])
		r.j.hooks.mu.Unlock()
		if slices.Contains(got, string(rampway.EventSuccess)) {
			if n := len(slices.DeleteFunc(slices.Clone(got), func(s string) bool { return s != string(rampway.EventWidgetClose) })); n != 1 ||
				!slices.Equal(got[:3], []string{"order.created", "user.widget.open", "user.widget.close"}) {
				t.Fatalf("events %v: want one user.widget.close, after the open", got)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no order.success after 30s: %v", got)
		}
	}
}
