package dashboard_test

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain/devchain"
	"github.com/rampway/rampway/checkout"
	"github.com/rampway/rampway/contract"
	"github.com/rampway/rampway/internal/browsertest"
	"github.com/rampway/rampway/internal/devtest"
	"github.com/rampway/rampway/provider/sandbox"
	"github.com/rampway/rampway/storetest"
)

// cardOrder creates an order of the site's merchant (test mode): one mint of the dev chain's
// NFT, paid by card in euros (area B), through the checkout use case, as the API would.
func (s *site) cardOrder(t *testing.T) *checkout.Created {
	t.Helper()
	ctx := t.Context()
	fs, err := s.App.Functions.List(ctx, s.Merchant.ID)
	if err != nil {
		t.Fatal(err)
	}
	var fid string
	for _, f := range fs {
		fid = f.ID
	}
	if fid == "" {
		fragment, _ := contract.FunctionFragment(devchain.NFTABI(), "mint")
		f, err := s.App.Functions.Register(ctx, s.Merchant.ID, contract.RegisterParams{Network: "devnet", ContractAddress: s.Chain.Contracts().NFT.Hex(),
			ABI: fragment, DefaultGasLimit: 300_000, PayableSymbol: "ETH"})
		if err != nil {
			t.Fatal(err)
		}
		fid = f.ID
	}
	args, _ := json.Marshal(map[string]any{"to": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", "quantity": "1"})
	created, err := s.App.Checkout.CreateFiatOrder(ctx, s.Merchant, checkout.FiatOrderParams{
		Quote: checkout.FiatQuoteParams{FiatSymbol: "EUR", Method: rampway.MethodCard, Execution: checkout.ExecutionParams{FunctionID: fid,
			FunctionArgs: args, NetworkName: "devnet", Payment: &checkout.PaymentParams{Symbol: "ETH", TotalValue: "0.01"}}},
		Order: checkout.OrderParams{MerchantUserID: "u1", MerchantRedirectURL: "https://shop.example/done", User: map[string]string{
			"user_first_name": "Ada", "user_last_name": "Lovelace", "user_email_id": "ada@example.com", "user_dob": "1990-12-10", "user_countryCode": "DE"}}})
	if err != nil {
		t.Fatal(err)
	}
	return created
}

// paidOrder is a card order of the site's merchant paid with the sandbox's success card on its
// checkout page and minted by the executor: SUCCESS.
func (s *site) paidOrder(t *testing.T) *rampway.Order {
	t.Helper()
	c := s.cardOrder(t)
	devtest.PayCard(t, c.GatewayURL, sandbox.CardSuccess)
	return s.waitOrder(t, c.Order.ID, func(o *rampway.Order) bool { return o.Status == rampway.StatusSuccess })
}

var svgElement = regexp.MustCompile(`(?s)<svg .*?</svg>`)

// svgChart is what a test reads of a chart's SVG.
type svgChart struct {
	XMLName xml.Name `xml:"svg"`
	Role    string   `xml:"role,attr"`
	Labels  string   `xml:"aria-labelledby,attr"`
	Title   struct {
		ID   string `xml:"id,attr"`
		Text string `xml:",chardata"`
	} `xml:"title"`
	Rects []struct {
		Class  string `xml:"class,attr"`
		Height int    `xml:"height,attr"`
		Tip    string `xml:"title"`
	} `xml:"rect"`
}

// charts parses every SVG chart of page as XML: each must be well formed.
func charts(t *testing.T, page string) []svgChart {
	t.Helper()
	var out []svgChart
	for _, raw := range svgElement.FindAllString(page, -1) {
		var c svgChart
		if err := xml.Unmarshal([]byte(raw), &c); err != nil {
			t.Fatalf("chart SVG is not well-formed XML: %v\n%s", err, raw)
		}
		if c.Role != "img" || c.Title.Text == "" || c.Labels != c.Title.ID {
			t.Errorf("chart without an accessible name: role %q, aria-labelledby %q, title %q (%q)", c.Role, c.Labels, c.Title.Text, c.Title.ID)
		}
		out = append(out, c)
	}
	return out
}

// The overview counts what was created and moved through the real use cases: today's orders
// of area B (one paid by card and minted, one open, one cancelled), the exact volume in euros,
// the success rate, paid-to-success times; the charts are well-formed SVG with names and
// tables; the live mode shows its own order only, and another merchant's never.
func TestOverviewFigures(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	ctx := t.Context()
	paid := s.paidOrder(t)
	s.cardOrder(t) // open
	cancelled := s.cardOrder(t)
	if _, err := s.App.Store.Apply(ctx, cancelled.Order.ID, rampway.Cancelled{}, time.Now().UTC()); err != nil {
		t.Fatal(err)
	}
	// Another merchant's order, and a live one of the merchant: not in the test-mode figures.
	if err := s.App.Store.CreateOrder(ctx, storetest.NewOrder(s.Other.ID, 1<<20)); err != nil {
		t.Fatal(err)
	}
	live := storetest.NewOrder(s.Merchant.ID, 1<<20+1)
	live.Livemode = true
	if err := s.App.Store.CreateOrder(ctx, live); err != nil {
		t.Fatal(err)
	}

	a := s.as(t, rampway.RoleViewer)
	// The start page is the overview.
	res, _ := a.get("/dashboard/")
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/dashboard/overview" {
		t.Fatalf("/dashboard/: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	res, page := a.get("/dashboard/overview")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("overview: %d\n%s", res.StatusCode, page)
	}
	today := time.Now().UTC().Format("Jan 2")
	eur := rampway.FormatFixed(paid.FiatAmount, paid.FiatDecimals) + " EUR"
	for _, want := range []string{
		`<span class="figure" id="fig-orders">3</span>`,
		`<span class="figure" id="fig-success">50.0 %</span>`,
		`1 succeeded of 2 ended; 1 in progress`,
		`<span class="figure-note">of 1 orders</span>`,
		`<option value="30" selected>Last 30 days</option>`,
		// The orders per area, and today's row of the orders chart's table.
		`<tr><th scope="row">NFT checkout (fiat)</th><td class="num">3</td><td class="num">1</td><td class="num">1</td><td class="num">1</td></tr>`,
		`<tr><th scope="row">` + today + `</th><td class="num">0</td><td class="num">3</td><td class="num">0</td><td class="num">3</td></tr>`,
		// The volume: the order's price exactly.
		`<tr><th scope="row">` + today + `</th><td class="num">` + eur + `</td><td class="num">` + eur + `</td></tr>`,
		`Test mode, orders created from`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the overview lacks %s", want)
		}
	}
	if !regexp.MustCompile(`id="fig-times">p50 \d+ (ms|s|min \d+ s) · p95 `).MatchString(page) {
		t.Errorf("no paid-to-success times:\n%s", page)
	}
	cs := charts(t, page)
	if len(cs) != 2 {
		t.Fatalf("%d charts, want orders and EUR volume", len(cs))
	}
	if n := len(cs[0].Rects); n != 1 || cs[0].Rects[0].Class != "area-nft-ramp" || cs[0].Rects[0].Height <= 0 ||
		cs[0].Rects[0].Tip != today+", NFT checkout (fiat): 3" {
		t.Errorf("orders chart bars %+v", cs[0].Rects)
	}
	if !strings.Contains(cs[1].Title.Text, "EUR") || len(cs[1].Rects) != 1 || !strings.HasSuffix(cs[1].Rects[0].Tip, ": "+eur) {
		t.Errorf("volume chart %+v", cs[1])
	}
	if strings.Contains(page, "style=") {
		t.Error("the page has a style attribute (the CSP refuses it)")
	}

	// The period: 7 and 90 days; anything else is refused.
	if res, page := a.get("/dashboard/overview?days=7"); res.StatusCode != http.StatusOK || !strings.Contains(page, `<option value="7" selected>`) ||
		strings.Count(page, `<tr><th scope="row">`) < 7 {
		t.Errorf("7 days: %d", res.StatusCode)
	}
	if res, _ := a.get("/dashboard/overview?days=365"); res.StatusCode != http.StatusBadRequest {
		t.Errorf("365 days: %d, want 400", res.StatusCode)
	}

	// Live mode: the live order alone (area A, open), no volume.
	if res, _ := a.submit("/dashboard/mode", url.Values{"mode": {"live"}, "back": {"/dashboard/overview"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("mode switch: %d", res.StatusCode)
	}
	_, page = a.get("/dashboard/overview")
	for _, want := range []string{`id="fig-orders">1</span>`, `id="fig-success">none ended</span>`, `No order succeeded in the period.`,
		`<tr><th scope="row">Mint (crypto)</th><td class="num">1</td><td class="num">0</td><td class="num">0</td><td class="num">1</td></tr>`} {
		if !strings.Contains(page, want) {
			t.Errorf("live overview lacks %s", want)
		}
	}
	if cs := charts(t, page); len(cs) != 1 {
		t.Errorf("live: %d charts, want 1", len(cs))
	}

	// The operator sees the merchant it picks: the other merchant has one open order.
	op := s.as(t, rampway.RoleOperator)
	_, page = op.get("/dashboard/overview?merchant=" + s.Other.ID)
	if !strings.Contains(page, `id="fig-orders">1</span>`) || !strings.Contains(page, fmt.Sprintf(`name="merchant" value="%s"`, s.Other.ID)) {
		t.Errorf("the operator's overview of the other merchant:\n%s", page)
	}
}

// The overview in Chromium: accessible, and drawn.
func TestOverviewInChromium(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	s.paidOrder(t)
	ctx := s.chromium(t, rampway.RoleOwner)
	browsertest.Do(t, ctx,
		chromedp.Navigate(s.Base+"/dashboard/overview"),
		chromedp.WaitVisible(chromedp.CSS("figure.chart svg")),
	)
	title := browsertest.Eval[string](t, ctx, `document.getElementById("chart-orders-title").textContent`)
	if n := browsertest.Eval[int](t, ctx, `document.querySelectorAll("svg rect").length`); n < 2 {
		t.Errorf("%d bars drawn, want the orders' and the volume's", n)
	}
	if !strings.Contains(title, "Orders created per day") {
		t.Errorf("chart title %q", title)
	}
	browsertest.CheckAccessibility(t, ctx, "overview")
	browsertest.Screenshot(t, ctx, "dashboard-overview")
}
