package main

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/checkoutpage"
	"github.com/rampway/rampway/internal/browsertest"
)

// banner is a test-mode banner as a person on a phone sees it.
type banner struct {
	Text  string  `json:"text"`
	Role  string  `json:"role"`
	Label string  `json:"label"`
	Shown bool    `json:"shown"` // displayed, within the first screen
	First bool    `json:"first"` // above everything else the page shows
	Right float64 `json:"right"` // its right edge, in CSS pixels
}

// bannerJS reads the banner with the id %q; "first" compares it with the element that follows it.
const bannerJS = `(() => {
  const b = document.getElementById(%q);
  if (!b || document.readyState === "loading") return {};
  const r = b.getBoundingClientRect(), s = getComputedStyle(b), next = b.nextElementSibling;
  return {text: b.textContent.replace(/\s+/g, " ").trim(), role: b.getAttribute("role") || "", label: b.getAttribute("aria-label") || "",
    shown: s.display !== "none" && s.visibility === "visible" && r.height > 0 && r.top >= 0 && r.bottom <= innerHeight,
    first: !!next && r.bottom <= next.getBoundingClientRect().top + 1, right: r.right};
})()`

// seesBanner waits for the banner id on the page and checks that a person on a 360 px phone
// sees it first, saying want, with its role and name, the page not scrolling sideways and
// passing the accessibility check (its colours' contrast included); shot names a screenshot.
func (r *browserRun) seesBanner(t *testing.T, what, id, want, label, shot string) {
	t.Helper()
	b := browsertest.WaitFor(t, r.ctx, "the banner of "+what, fmt.Sprintf(bannerJS, id), 15*time.Second, func(b banner) bool { return b.Text != "" })
	if b != (banner{Text: want, Role: "note", Label: label, Shown: true, First: true, Right: b.Right}) || b.Right > 360 {
		t.Errorf("%s: the banner is %+v, want %q shown first within 360 px", what, b, want)
	}
	if w := browsertest.Eval[int](t, r.ctx, `document.documentElement.scrollWidth`); w > 360 {
		t.Errorf("%s is %d px wide at 360 px: it scrolls sideways", what, w)
	}
	browsertest.CheckAccessibility(t, r.ctx, what)
	r.shot(t, shot)
}

// A dev order is a test order (`rampway dev` is test mode throughout): on a phone, its
// checkout page says "Test mode" first, paid in crypto and on a fiat step (the bank details,
// whose beneficiary is the sandbox), and the sandbox's own approval page says it is the
// sandbox.
func TestBrowserTestMode(t *testing.T) {
	t.Parallel()
	r := newBrowserRun(t)
	r.do(t, chromedp.EmulateViewport(360, 740, chromedp.EmulateMobile))
	mark := checkoutpage.Messages["test_mode"] + " — " + checkoutpage.Messages["test_mode_note"]

	r.buy(t, "buy-eth")
	r.seesBanner(t, "the crypto checkout page", "test-mode", mark, "Test mode", "1-crypto-360px")

	f := &fiatRun{browserRun: r, f: &fiatJourney{journey: r.j, browser: &http.Client{Timeout: 20 * time.Second}}}
	f.open(t, f.f.order(t, "EUR", rampway.MethodSEPABankTransfer, nil))
	if p := f.startPayment(t); p.Step != "bank" {
		t.Fatalf("the SEPA order's page: %+v", p)
	}
	r.seesBanner(t, "the bank details", "test-mode", mark, "Test mode", "2-bank-details-360px")

	o := f.f.order(t, "EUR", rampway.MethodOpenBanking, nil)
	amount := o["order_fiat_amount"].(string)
	f.open(t, o)
	f.startPayment(t)
	r.seesBanner(t, "the open banking step", "test-mode", mark, "Test mode", "3-open-banking-360px")
	f.follow(t, "Pay with open banking: "+amount+" EUR")
	f.sandboxPage(t, "Open banking (sandbox)", amount+" EUR")
	r.seesBanner(t, "the sandbox's approval page", "sandbox-banner", "Sandbox — test data only. No real money moves.", "Sandbox", "4-sandbox-approval-360px")
}
