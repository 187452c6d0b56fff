package testpay_test

import (
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/config"
	"github.com/rampway/rampway/internal/app/apptest"
	"github.com/rampway/rampway/internal/devtest"
	"github.com/rampway/rampway/provider/testpay"
)

// A provider is one package: this one is known to no other package of rampway, yet configured
// by name it takes an order's card payment end to end: its widget on the checkout page (with
// its script and its origin in the page's CSP), its own page, its signed notification, the
// mint, and the capture of the authorised amount.
func TestAProviderIsOnePackage(t *testing.T) {
	e := apptest.Start(t, func(cfg *config.Config) { cfg.Fiat.Providers = []config.ProviderConfig{{Name: testpay.Name}} })
	a, base := e.App, e.Base
	created := e.CardMint(t)

	// The page (after its start step) mounts the provider's widget: its HTML, its scripts, its
	// origin in the CSP.
	browser := &http.Client{Timeout: 20 * time.Second}
	at, page := devtest.PaymentPage(t, browser, created.GatewayURL)
	link := regexp.MustCompile(`id="testpay-link" href="([^"]+)"`).FindStringSubmatch(page)
	if link == nil || !strings.Contains(page, `<script src="`+testpay.ScriptOrigin+`/v1.js" defer>`) ||
		!strings.Contains(page, `<script src="/checkout/widgets/`+testpay.WidgetKind+`.js" defer>`) {
		t.Fatalf("no testpay widget on the page:\n%s", page)
	}
	res, err := browser.Get(at)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self' "+testpay.ScriptOrigin) {
		t.Fatalf("the page's CSP does not allow the widget's script: %s", csp)
	}
	res, err = browser.Get(base + "/checkout/widgets/" + testpay.WidgetKind + ".js")
	if err != nil {
		t.Fatal(err)
	}
	script, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(script), "testpay") || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/javascript") {
		t.Fatalf("widget script: %d %s %q", res.StatusCode, res.Header.Get("Content-Type"), script)
	}

	// Its page approves the payment; its signed notification comes back; the order is minted
	// and the authorisation captured.
	res, err = browser.PostForm(devtest.Resolve(t, at, link[1]), url.Values{"result": {"approve"}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 || !strings.HasPrefix(res.Request.URL.String(), base+"/checkout") {
		t.Fatalf("after approving: %d at %s", res.StatusCode, res.Request.URL)
	}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		o, err := a.Store.Order(t.Context(), created.Order.ID)
		if err != nil {
			t.Fatal(err)
		}
		ps, err := a.Store.FiatPayments(t.Context(), o.ID)
		if err != nil {
			t.Fatal(err)
		}
		if o.Status == rampway.StatusSuccess && len(ps) == 1 && ps[0].Status == rampway.FiatSucceeded {
			if ps[0].Provider != testpay.Name || ps[0].CardLast4 != "4242" {
				t.Fatalf("payment: %+v", ps[0])
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("order %s, payments %+v, a minute after the approval", o.Status, ps)
		}
	}
}
