package dashboard_test

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"html"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain/devchain"
	"github.com/rampway/rampway/chain/devchain/devchaintest"
	"github.com/rampway/rampway/checkout"
	"github.com/rampway/rampway/contract"
	"github.com/rampway/rampway/dashboard"
	"github.com/rampway/rampway/internal/browsertest"
	"github.com/rampway/rampway/internal/devtest"
	"github.com/rampway/rampway/merchant"
	"github.com/rampway/rampway/provider/sandbox"
	"github.com/rampway/rampway/storetest"
)

// shop is the site with what the orders pages show of s.Merchant: a webhook endpoint (every
// delivery answered 200, counted), and an order of area B paid by card on the sandbox
// provider and minted on the dev chain (SUCCESS), with its payment, execution and webhooks.
type shop struct {
	*site
	Paid *rampway.Order
	// Function is the dev chain's NFT mint, registered for s.Merchant.
	Function string
	// Hooks counts the webhook deliveries the merchant's endpoint received.
	Hooks *atomic.Int64
}

// newShop starts the site and pays an order of s.Merchant by card, through the checkout page.
func newShop(t *testing.T) *shop {
	t.Helper()
	s := &shop{site: newSite(t), Hooks: &atomic.Int64{}}
	ctx := t.Context()
	hooks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.Hooks.Add(1) }))
	t.Cleanup(hooks.Close)
	u := hooks.URL + "/hooks"
	if _, err := s.App.Merchants.Update(ctx, s.Merchant.ID, merchant.UpdateParams{WebhookURL: &u}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.App.Merchants.SetWebhookSecret(ctx, s.Merchant.ID, false, "", 0); err != nil {
		t.Fatal(err)
	}
	fragment, _ := contract.FunctionFragment(devchain.NFTABI(), "mint")
	f, err := s.App.Functions.Register(ctx, s.Merchant.ID, contract.RegisterParams{Network: "devnet", ContractAddress: s.Chain.Contracts().NFT.Hex(),
		ABI: fragment, DefaultGasLimit: 300_000, PayableSymbol: "ETH"})
	if err != nil {
		t.Fatal(err)
	}
	s.Function = f.ID
	args, _ := json.Marshal(map[string]any{"to": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", "quantity": "1"})
	created, err := s.App.Checkout.CreateFiatOrder(ctx, s.Merchant, checkout.FiatOrderParams{
		Quote: checkout.FiatQuoteParams{FiatSymbol: "EUR", Method: rampway.MethodCard, Execution: checkout.ExecutionParams{FunctionID: f.ID,
			FunctionArgs: args, NetworkName: "devnet", Payment: &checkout.PaymentParams{Symbol: "ETH", TotalValue: "0.01"}}},
		Order: checkout.OrderParams{MerchantUserID: "customer-7", MerchantTxnID: "T-paid-1", MerchantRedirectURL: "https://shop.example/done", User: map[string]string{
			"user_first_name": "Ada", "user_last_name": "Lovelace", "user_email_id": "ada@example.com", "user_dob": "1990-12-10", "user_countryCode": "DE"}}})
	if err != nil {
		t.Fatal(err)
	}
	devtest.PayCard(t, created.GatewayURL, sandbox.CardSuccess)
	s.Paid = s.waitOrder(t, created.Order.ID, func(o *rampway.Order) bool { return o.Status == rampway.StatusSuccess })
	return s
}

// waitOrder waits until order id satisfies ok (the workers move it) and returns it.
func (s *site) waitOrder(t *testing.T, id string, ok func(*rampway.Order) bool) *rampway.Order {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		o, err := s.App.Store.Order(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if ok(o) {
			return o
		}
		if time.Now().After(deadline) {
			t.Fatalf("order %s is %s: not what the test waits for", id, o.Status)
		}
	}
}

// storeOrder writes an area A order of merchantID straight into the store (created at at,
// unpaid, test mode unless change says otherwise), as the API would have: the list's many
// orders, and merchant strings the API would not take.
func (s *site) storeOrder(t *testing.T, merchantID string, at time.Time, change func(o *rampway.Order)) *rampway.Order {
	t.Helper()
	idx, err := s.App.Store.NextDepositIndex(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	o := storetest.NewOrder(merchantID, idx)
	o.ID = rampway.NewID(rampway.PrefixOrder, at)
	o.CreatedAt, o.UpdatedAt, o.ExpiresAt = at, at, time.Now().Add(24*time.Hour)
	o.MerchantWebhookURL = ""
	o.Asset = rampway.Asset{Symbol: "ETH", Network: "devnet", Decimals: 18}
	o.CryptoAmount = big.NewInt(1_500_000_000_000_000)
	o.MerchantTxnID, o.MerchantUserID = "txn-"+o.ID, "user-"+o.ID
	if change != nil {
		change(o)
	}
	if err := s.App.Store.CreateOrder(t.Context(), o); err != nil {
		t.Fatal(err)
	}
	return o
}

// orderLinks are the order ids a list page links to, in order.
func orderLinks(page string) []string {
	var ids []string
	for _, m := range orderLink.FindAllStringSubmatch(page, -1) {
		ids = append(ids, m[1])
	}
	return ids
}

var (
	orderLink = regexp.MustCompile(`<a href="/dashboard/orders/(ord_[0-9a-z]+)[^"]*" class="mono">`)
	olderLink = regexp.MustCompile(`<a href="([^"]+)" rel="next">Older orders</a>`)
	newerLink = regexp.MustCompile(`<a href="([^"]+)" rel="prev">Newer orders</a>`)
)

// list gets a list page (its query) and returns the order ids it links to and the page.
func (a *agent) list(query url.Values) ([]string, string) {
	a.t.Helper()
	res, page := a.get("/dashboard/orders?" + query.Encode())
	if res.StatusCode != http.StatusOK {
		a.t.Fatalf("list %v: %d\n%s", query, res.StatusCode, page)
	}
	return orderLinks(page), page
}

// Each search key finds its order, and only it: the order id, merchant_txn_id,
// merchant_user_id, the deposit address (in any case), a payment's and the execution's
// transaction hash, the fiat payment's and a refund's provider reference. Never another
// merchant's order, nor the other mode's.
func TestOrdersSearchByEveryKey(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	ctx := t.Context()
	a := s.as(t, "support")
	unpaid := s.storeOrder(t, s.Merchant.ID, time.Now().UTC().Truncate(time.Microsecond), nil)
	payment := &rampway.InboundTransfer{Network: "devnet", TxHash: common.HexToHash("0x" + strings.Repeat("5a", 32)), OrderID: unpaid.ID,
		From: storetest.Payer, To: unpaid.DepositAddress, Amount: big.NewInt(1), BlockNumber: 1, BlockHash: common.HexToHash("0xb1")}
	if _, err := s.App.Store.RecordTransfer(ctx, payment, time.Now()); err != nil {
		t.Fatal(err)
	}
	theirs := s.storeOrder(t, s.Other.ID, time.Now().UTC().Truncate(time.Microsecond), func(o *rampway.Order) { o.MerchantTxnID = "T-paid-1" })
	live := s.storeOrder(t, s.Merchant.ID, time.Now().UTC().Truncate(time.Microsecond), func(o *rampway.Order) { o.Livemode, o.MerchantTxnID = true, "T-paid-1" })
	ps, err := s.App.Checkout.FiatPayments(ctx, s.Paid)
	if err != nil || len(ps) == 0 || ps[0].ProviderRef == "" {
		t.Fatalf("payments %+v, %v", ps, err)
	}
	// A refund the provider pays: its reference is a key too.
	if _, err := s.App.Refunds.Create(ctx, s.Paid, checkout.MerchantRefundRequest{Amount: "1.00", Source: rampway.RefundToMerchant}); err != nil {
		t.Fatal(err)
	}
	var refundRef string
	for deadline := time.Now().Add(30 * time.Second); refundRef == ""; time.Sleep(50 * time.Millisecond) {
		rs, _ := s.App.Checkout.Refunds(ctx, s.Paid)
		for _, r := range rs {
			refundRef = r.ProviderRef
		}
		if time.Now().After(deadline) {
			t.Fatalf("the refund was not paid: %+v", rs)
		}
	}
	for _, c := range []struct{ key, text, want string }{
		{"order id", s.Paid.ID, s.Paid.ID},
		{"merchant_txn_id", "T-paid-1", s.Paid.ID},
		{"merchant_user_id", "customer-7", s.Paid.ID},
		{"execution's transaction hash", s.Paid.ExecutionTxHash, s.Paid.ID},
		{"execution's transaction hash in upper case", "0x" + strings.ToUpper(s.Paid.ExecutionTxHash[2:]), s.Paid.ID},
		{"fiat payment's provider reference", ps[0].ProviderRef, s.Paid.ID},
		{"refund's provider reference", refundRef, s.Paid.ID},
		{"deposit address", unpaid.DepositAddress.Hex(), unpaid.ID},
		{"deposit address in lower case", strings.ToLower(unpaid.DepositAddress.Hex()), unpaid.ID},
		{"payment's transaction hash", payment.TxHash.Hex(), unpaid.ID},
		{"another merchant's order id", theirs.ID, ""},
		{"the live order's id, in test mode", live.ID, ""},
	} {
		ids, page := a.list(url.Values{"q": {"  " + c.text + " "}})
		want := []string{}
		if c.want != "" {
			want = []string{c.want}
		}
		if fmt.Sprint(ids) != fmt.Sprint(want) {
			t.Errorf("search by %s %q: %v, want %v", c.key, c.text, ids, want)
		}
		if !strings.Contains(page, `value="`+html.EscapeString(c.text)+`"`) {
			t.Errorf("search by %s: the box does not show the search", c.key)
		}
	}
	// The operator searches the merchant it picks.
	op := s.as(t, "operator")
	if ids, _ := op.list(url.Values{"merchant": {s.Merchant.ID}, "q": {"T-paid-1"}}); fmt.Sprint(ids) != fmt.Sprint([]string{s.Paid.ID}) {
		t.Errorf("operator's search of Shop: %v", ids)
	}
	if ids, _ := op.list(url.Values{"merchant": {s.Other.ID}, "q": {"T-paid-1"}}); fmt.Sprint(ids) != fmt.Sprint([]string{theirs.ID}) {
		t.Errorf("operator's search of Other shop: %v", ids)
	}
}

// The list: newest first, 50 a page, older and newer pages by cursor links that keep the
// filters; filters by area, status and creation day; a bad filter is 400 naming it.
func TestOrdersFiltersAndPages(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	a := s.as(t, "viewer")
	day := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	var all []string // newest first
	for i := range 110 {
		o := s.storeOrder(t, s.Merchant.ID, day.Add(-time.Duration(i)*time.Minute), nil)
		all = append(all, o.ID)
	}
	older := s.storeOrder(t, s.Merchant.ID, day.AddDate(0, 0, -5), func(o *rampway.Order) { o.Area, o.Status = rampway.AreaDeposit, rampway.StatusExpired })
	all = append(all, older.ID)
	s.storeOrder(t, s.Other.ID, day, nil)

	ids, page := a.list(url.Values{})
	if fmt.Sprint(ids) != fmt.Sprint(all[:50]) || newerLink.MatchString(page) {
		t.Fatalf("first page: %d orders %v…", len(ids), ids[:min(3, len(ids))])
	}
	var walked []string
	walked = append(walked, ids...)
	for range 5 {
		m := olderLink.FindStringSubmatch(page)
		if m == nil {
			break
		}
		if ids, page = a.list(mustQuery(t, m[1])); len(ids) == 0 {
			t.Fatal("an older page without orders")
		}
		walked = append(walked, ids...)
	}
	if fmt.Sprint(walked) != fmt.Sprint(all) {
		t.Fatalf("walked %d orders, want the %d, newest first", len(walked), len(all))
	}
	// Back from the last page: the newer pages are the same pages.
	m := newerLink.FindStringSubmatch(page)
	if m == nil {
		t.Fatal("the last page has no newer link")
	}
	if ids, page = a.list(mustQuery(t, m[1])); fmt.Sprint(ids) != fmt.Sprint(all[50:100]) {
		t.Fatalf("newer than the last page: %v", ids)
	}
	if m = newerLink.FindStringSubmatch(page); m == nil {
		t.Fatal("the second page has no newer link")
	}
	if ids, _ = a.list(mustQuery(t, m[1])); fmt.Sprint(ids) != fmt.Sprint(all[:50]) {
		t.Fatalf("newer than the second page: %v", ids)
	}

	// Filters; their links keep them.
	if ids, _ := a.list(url.Values{"area": {"deposit"}}); fmt.Sprint(ids) != fmt.Sprint([]string{older.ID}) {
		t.Errorf("area deposit: %v", ids)
	}
	if ids, _ := a.list(url.Values{"status": {"EXPIRED"}}); fmt.Sprint(ids) != fmt.Sprint([]string{older.ID}) {
		t.Errorf("status EXPIRED: %v", ids)
	}
	if ids, _ := a.list(url.Values{"area": {"mint"}, "status": {"EXPIRED"}}); len(ids) != 0 {
		t.Errorf("area mint, status EXPIRED: %v", ids)
	}
	if ids, _ := a.list(url.Values{"from": {"2026-03-05"}, "to": {"2026-03-05"}}); fmt.Sprint(ids) != fmt.Sprint([]string{older.ID}) {
		t.Errorf("created on 2026-03-05: %v", ids)
	}
	ids, page = a.list(url.Values{"from": {"2026-03-06"}, "area": {"mint"}})
	if fmt.Sprint(ids) != fmt.Sprint(all[:50]) {
		t.Errorf("from 2026-03-06, area mint: %d orders", len(ids))
	}
	if m := olderLink.FindStringSubmatch(page); m == nil || !strings.Contains(m[1], "area=mint") || !strings.Contains(m[1], "from=2026-03-06") {
		t.Errorf("the older link drops the filters: %v", m)
	}
	for _, bad := range []url.Values{{"area": {"nope"}}, {"status": {"PAID"}}, {"from": {"10/03/2026"}}, {"q": {strings.Repeat("x", 201)}}, {"before": {"x"}}} {
		if res, _ := a.get("/dashboard/orders?" + bad.Encode()); res.StatusCode != http.StatusBadRequest {
			t.Errorf("%v: %d, want 400", bad, res.StatusCode)
		}
	}
	// Live mode shows live orders: none.
	if res, _ := a.submit("/dashboard/mode", url.Values{"mode": {"live"}, "back": {"/dashboard/orders"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("mode switch: %d", res.StatusCode)
	}
	if ids, page := a.list(url.Values{}); len(ids) != 0 || !strings.Contains(page, "No orders in live mode") {
		t.Errorf("live mode lists %v", ids)
	}
}

func mustQuery(t *testing.T, link string) url.Values {
	t.Helper()
	u, err := url.Parse(html.UnescapeString(link))
	if err != nil {
		t.Fatal(err)
	}
	return u.Query()
}

// The CSV export: every order of the filtered set, newest first, across the export's pages,
// as an attachment; a cell a spreadsheet would run as a formula starts with a quote.
func TestOrdersCSV(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	a := s.as(t, "viewer")
	day := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	var want []string
	for i := range 520 {
		o := s.storeOrder(t, s.Merchant.ID, day.Add(-time.Duration(i)*time.Second), nil)
		want = append(want, o.ID)
	}
	evil := []string{"=HYPERLINK(\"https://evil.example\")", "+1+2", "-3", "@SUM(A1)", "\tx", "\rx"}
	var evilIDs []string
	for i, v := range evil {
		o := s.storeOrder(t, s.Merchant.ID, day.AddDate(0, 0, -1).Add(-time.Duration(i)*time.Second), func(o *rampway.Order) {
			o.MerchantTxnID, o.MerchantUserID, o.Status = v, v, rampway.StatusExpired
		})
		evilIDs = append(evilIDs, o.ID)
	}
	s.storeOrder(t, s.Other.ID, day, nil)

	res, body := a.get("/dashboard/orders.csv")
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/csv") ||
		!strings.HasPrefix(res.Header.Get("Content-Disposition"), "attachment; filename=") {
		t.Fatalf("export: %d %q %q", res.StatusCode, res.Header.Get("Content-Type"), res.Header.Get("Content-Disposition"))
	}
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if rows[0][0] != "created_at" || rows[0][1] != "order_id" || len(rows) != 1+len(want)+len(evil) {
		t.Fatalf("%d rows, header %v", len(rows), rows[0])
	}
	var got []string
	for _, r := range rows[1:] {
		got = append(got, r[1])
	}
	if fmt.Sprint(got) != fmt.Sprint(append(want, evilIDs...)) {
		t.Fatal("the export is not the merchant's orders, newest first")
	}
	// Filtered: the expired ones, their formulas defused.
	res, body = a.get("/dashboard/orders.csv?status=EXPIRED")
	rows, err = csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil || res.StatusCode != http.StatusOK || len(rows) != 1+len(evil) {
		t.Fatalf("expired: %d, %d rows, %v", res.StatusCode, len(rows), err)
	}
	for i, r := range rows[1:] {
		if r[7] != "'"+evil[i] || r[8] != "'"+evil[i] {
			t.Errorf("row %d: merchant_txn_id %q, merchant_user_id %q: want %q", i, r[7], r[8], "'"+evil[i])
		}
	}
	if res, _ := a.get("/dashboard/orders.csv?area=x"); res.StatusCode != http.StatusBadRequest {
		t.Errorf("a bad filter: %d", res.StatusCode)
	}
}

// An order's page: its summary, timeline, the card payment (brand and last four only), the
// execution, refunds and webhook deliveries; the refund form and the resend buttons for the
// roles that may use them only. Another merchant's order, or the other mode's, is not found.
func TestOrderPage(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	s.waitDelivered(t, s.Paid.ID)
	path := "/dashboard/orders/" + s.Paid.ID
	res, page := s.as(t, "viewer").get(path)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("order page: %d\n%s", res.StatusCode, page)
	}
	for _, want := range []string{
		"T-paid-1", "customer-7", "SUCCESS", "NFT checkout (fiat)",
		"order.created", "order.onramp.success", "order.smartcontract.processing", "order.success", // the timeline
		"visa •••• 4242", "(paid the order)", // the payment
		s.Paid.ExecutionTxHash, // the execution, a plain hash: the dev network configures no explorer
		"Webhooks", "delivered",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the order page lacks %q", want)
		}
	}
	if strings.Contains(page, sandbox.CardSuccess) || strings.Contains(page, sandbox.CardSuccess[:6]) {
		t.Error("the page shows more of the card than its last four digits")
	}
	if strings.Contains(page, `href="`+s.Paid.ExecutionTxHash) || strings.Contains(page, "/tx/") {
		t.Error("a transaction links to an explorer no network configures")
	}
	if strings.Contains(page, `name="amount"`) || strings.Contains(page, ">Resend</button>") {
		t.Error("a viewer sees the refund form or a resend button")
	}
	for role, want := range map[rampway.DashboardRole][2]bool{ // refund form, resend buttons
		"owner": {true, true}, "developer": {false, true}, "support": {true, true}, "operator": {true, true},
	} {
		p := path
		if role == "operator" {
			p += "?merchant=" + s.Merchant.ID
		}
		res, page := s.as(t, role).get(p)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d", role, res.StatusCode)
		}
		if got := [2]bool{strings.Contains(page, `name="amount"`), strings.Contains(page, ">Resend</button>")}; got != want {
			t.Errorf("%s sees refund form, resend buttons: %v, want %v", role, got, want)
		}
	}
	// An order whose events are off says why it has no deliveries.
	off := s.storeOrder(t, s.Merchant.ID, time.Now().UTC().Truncate(time.Microsecond), func(o *rampway.Order) {
		o.MerchantWebhookURL, o.WebhooksOff = "https://shop.example/hooks", true
	})
	if _, page := s.as(t, "viewer").get("/dashboard/orders/" + off.ID); !strings.Contains(page, "No webhook events are sent for this order") {
		t.Errorf("the page of an order whose events are off does not say so:\n%s", page)
	}
	// Not found: another merchant's order, the other mode's, one that does not exist.
	theirs := s.storeOrder(t, s.Other.ID, time.Now().UTC().Truncate(time.Microsecond), nil)
	live := s.storeOrder(t, s.Merchant.ID, time.Now().UTC().Truncate(time.Microsecond), func(o *rampway.Order) { o.Livemode = true })
	for _, id := range []string{theirs.ID, live.ID, "ord_nope", "../orders"} {
		if res, _ := s.as(t, "owner").get("/dashboard/orders/" + url.PathEscape(id)); res.StatusCode != http.StatusNotFound {
			t.Errorf("order %s: %d, want 404", id, res.StatusCode)
		}
	}
}

// waitDelivered waits until every webhook delivery of an order is delivered.
func (s *shop) waitDelivered(t *testing.T, orderID string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		ds, err := s.App.Store.Deliveries(t.Context(), orderID)
		if err != nil {
			t.Fatal(err)
		}
		if len(ds) > 0 && !slices.ContainsFunc(ds, func(d *rampway.Delivery) bool { return d.Status != rampway.DeliveryDelivered }) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("deliveries of %s: %+v", orderID, ds)
		}
	}
}

// A refund of part of a paid order from its page: the API's checks and messages, the refund on
// the page, in the audit log; a viewer's forged refund and a POST without the form's token are
// 403 and refund nothing; another merchant's order is 404. A resend queues the event again, is
// audited, and is refused to a viewer.
func TestOrderRefundAndResend(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	ctx := t.Context()
	path := "/dashboard/orders/" + s.Paid.ID
	refunds := func() int {
		t.Helper()
		rs, err := s.App.Checkout.Refunds(ctx, s.Paid)
		if err != nil {
			t.Fatal(err)
		}
		return len(rs)
	}
	viewer, support, developer := s.as(t, "viewer"), s.as(t, "support"), s.as(t, "developer")
	if res, _ := viewer.submit(path+"/refunds", url.Values{"amount": {"1.00"}}); res.StatusCode != http.StatusForbidden {
		t.Errorf("a viewer's refund: %d, want 403", res.StatusCode)
	}
	if res, _ := developer.submit(path+"/refunds", url.Values{"amount": {"1.00"}}); res.StatusCode != http.StatusForbidden {
		t.Errorf("a developer's refund: %d, want 403", res.StatusCode)
	}
	if res, _ := support.post(path+"/refunds", url.Values{"amount": {"1.00"}}); res.StatusCode != http.StatusForbidden {
		t.Errorf("a refund without the CSRF token: %d, want 403", res.StatusCode)
	}
	if res, _ := support.post(path+"/refunds", url.Values{"amount": {"1.00"}, "csrf_token": {viewer.Token}}); res.StatusCode != http.StatusForbidden {
		t.Errorf("a refund with another session's token: %d, want 403", res.StatusCode)
	}
	if n := refunds(); n != 0 {
		t.Fatalf("%d refunds after refused requests", n)
	}
	for _, c := range []struct {
		form   url.Values
		status int
		says   string
	}{
		{url.Values{"amount": {""}}, http.StatusBadRequest, "amount is required"},
		{url.Values{"amount": {"ten"}}, http.StatusBadRequest, "amount must be a positive decimal amount of EUR"},
		{url.Values{"amount": {"1.001"}}, http.StatusBadRequest, "at most 2 decimals"},
		{url.Values{"amount": {"1.00"}, "address": {"0x70997970C51812dc3A010C7d01b50e0d17dc79C8"}}, http.StatusBadRequest, "address is for refunds of area A orders"},
		{url.Values{"amount": {"100000.00"}}, http.StatusBadRequest, "amount"},
	} {
		res, page := support.submit(path+"/refunds", c.form)
		if res.StatusCode != c.status || !strings.Contains(html.UnescapeString(page), c.says) {
			t.Errorf("refund %v: %d, want %d saying %q", c.form, res.StatusCode, c.status, c.says)
		}
		if c.form.Get("amount") != "" && !strings.Contains(page, `value="`+html.EscapeString(c.form.Get("amount"))+`"`) {
			t.Errorf("refund %v: the form does not keep the amount", c.form)
		}
	}
	if n := refunds(); n != 0 {
		t.Fatalf("%d refunds after invalid requests", n)
	}
	res, _ := support.submit(path+"/refunds", url.Values{"amount": {"1.50"}, "reason": {"Damaged <item>"}})
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), path+"?done=refund") {
		t.Fatalf("refund: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	if n := refunds(); n != 1 {
		t.Fatalf("%d refunds, want 1", n)
	}
	_, page := support.get(res.Header.Get("Location"))
	for _, want := range []string{"Refund created.", "1.50 EUR", "merchant", "Damaged &lt;item&gt;"} {
		if !strings.Contains(page, want) {
			t.Errorf("after the refund the page lacks %q", want)
		}
	}
	entries, err := s.App.Store.AuditEntries(ctx, s.Merchant.ID, rampway.Page{Limit: 10})
	if err != nil || len(entries) == 0 || entries[0].Action != "order.refund" || entries[0].Subject != s.Paid.ID || entries[0].UserID != s.Users["support"].ID ||
		!strings.Contains(entries[0].Detail, "1.50 EUR") {
		t.Fatalf("audit log %+v, %v", entries, err)
	}
	// Another merchant's order: 404, nothing refunded.
	theirs := s.storeOrder(t, s.Other.ID, time.Now().UTC().Truncate(time.Microsecond), func(o *rampway.Order) { o.Status = rampway.StatusSuccess })
	if res, _ := support.submit("/dashboard/orders/"+theirs.ID+"/refunds", url.Values{"amount": {"0.001"}}); res.StatusCode != http.StatusNotFound {
		t.Errorf("refund of another merchant's order: %d, want 404", res.StatusCode)
	}

	// Resend.
	s.waitDelivered(t, s.Paid.ID)
	ds, err := s.App.Store.Deliveries(ctx, s.Paid.ID)
	if err != nil || len(ds) == 0 {
		t.Fatalf("deliveries %v, %v", ds, err)
	}
	event := ds[len(ds)-1].EventID
	resend := path + "/webhooks/" + event + "/resend"
	if res, _ := viewer.submit(resend, nil); res.StatusCode != http.StatusForbidden {
		t.Errorf("a viewer's resend: %d, want 403", res.StatusCode)
	}
	if res, _ := developer.post(resend, nil); res.StatusCode != http.StatusForbidden {
		t.Errorf("a resend without the CSRF token: %d, want 403", res.StatusCode)
	}
	if res, _ := developer.submit(path+"/webhooks/evt_nope/resend", nil); res.StatusCode != http.StatusNotFound {
		t.Errorf("resend of an unknown event: %d, want 404", res.StatusCode)
	}
	before := s.Hooks.Load()
	res, _ = developer.submit(resend, nil)
	if res.StatusCode != http.StatusSeeOther || !strings.Contains(res.Header.Get("Location"), "done=resend") {
		t.Fatalf("resend: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	for deadline := time.Now().Add(30 * time.Second); s.Hooks.Load() == before; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the event was not sent again")
		}
	}
	entries, _ = s.App.Store.AuditEntries(ctx, s.Merchant.ID, rampway.Page{Limit: 10})
	if len(entries) == 0 || entries[0].Action != "webhook.resend" || entries[0].Subject != s.Paid.ID || entries[0].Detail != event {
		t.Fatalf("audit log %+v", entries)
	}
}

// Merchant strings are text: a merchant_txn_id or merchant_user_id holding markup is shown
// escaped in the list and on the order's page, never run.
func TestOrdersEscapeMerchantStrings(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	txn, user := `<script>alert("txn")</script>`, `"><img src=x onerror=alert(1)>`
	o := s.storeOrder(t, s.Merchant.ID, time.Now().UTC().Truncate(time.Microsecond), func(o *rampway.Order) { o.MerchantTxnID, o.MerchantUserID = txn, user })
	a := s.as(t, "viewer")
	_, list := a.list(url.Values{})
	_, page := a.get("/dashboard/orders/" + o.ID)
	_, search := a.list(url.Values{"q": {txn}})
	for name, body := range map[string]string{"list": list, "order page": page, "search": search} {
		if strings.Contains(body, txn) || strings.Contains(body, "<img src=x") {
			t.Errorf("%s: the merchant's markup is in the page as markup", name)
		}
		if !strings.Contains(body, html.EscapeString(txn)) && !strings.Contains(body, "&lt;script&gt;") {
			t.Errorf("%s: the merchant_txn_id is not shown", name)
		}
	}
	if ids := orderLinks(search); fmt.Sprint(ids) != fmt.Sprint([]string{o.ID}) {
		t.Errorf("search by the markup: %v", ids)
	}
}

// TxURL links a transaction to its network's explorer, and only to a configured http(s) one.
func TestOrderCasesTxURL(t *testing.T) {
	t.Parallel()
	c := &dashboard.OrderCases{Networks: []rampway.Network{{Name: "sepolia", ExplorerURL: "https://sepolia.etherscan.io/"},
		{Name: "devnet"}, {Name: "odd", ExplorerURL: "javascript:alert(1)"}}}
	for network, want := range map[string]string{"sepolia": "https://sepolia.etherscan.io/tx/0xab", "devnet": "", "odd": "", "none": ""} {
		if got := c.TxURL(network, "0xab"); got != want {
			t.Errorf("TxURL(%s) = %q, want %q", network, got, want)
		}
	}
}

// In Chromium, as support: the list, a search, the order's page (timeline, payment, refund
// form), each page accessible and kept as a screenshot.
func TestOrdersInChromium(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	for i := range 3 {
		s.storeOrder(t, s.Merchant.ID, time.Now().UTC().Truncate(time.Microsecond).Add(-time.Duration(i+1)*time.Hour), nil)
	}
	ctx := s.chromiumAt(t, "support", "/dashboard/orders")
	browsertest.Do(t, ctx, chromedp.WaitVisible(chromedp.CSS("table.orders")))
	if n := browsertest.Eval[int](t, ctx, `document.querySelectorAll("table.orders tbody tr").length`); n != 4 {
		t.Fatalf("%d orders listed, want 4", n)
	}
	browsertest.CheckAccessibility(t, ctx, "orders list")
	browsertest.Screenshot(t, ctx, "orders-list")

	browsertest.Do(t, ctx,
		chromedp.SendKeys(chromedp.ID("orders-q"), "customer-7"),
		chromedp.Submit(chromedp.ID("orders-q")),
	)
	// The list of the search's page, once it is there (the list before it has the order too).
	if n := browsertest.WaitFor(t, ctx, "the search's results", `location.search.includes("q=customer-7") && document.readyState === "complete" ?
	  document.querySelectorAll("table.orders tbody tr").length : -1`, browsertest.Timeout, func(n int) bool { return n >= 0 }); n != 1 {
		t.Fatalf("%d orders found, want 1", n)
	}
	browsertest.CheckAccessibility(t, ctx, "orders search")
	browsertest.Screenshot(t, ctx, "orders-search")

	browsertest.Do(t, ctx,
		chromedp.Click(chromedp.CSS(`table.orders a[href^="/dashboard/orders/`+s.Paid.ID+`"]`)),
		chromedp.WaitVisible(chromedp.ID("order-timeline")),
	)
	text := browsertest.Eval[string](t, ctx, `document.querySelector("main").innerText`)
	for _, want := range []string{"order.success", "visa •••• 4242", "Refund this order"} {
		if !strings.Contains(text, want) {
			t.Errorf("the order page lacks %q", want)
		}
	}
	browsertest.CheckAccessibility(t, ctx, "order page")
	browsertest.Screenshot(t, ctx, "order-page")

	// A partial refund from the page.
	browsertest.Do(t, ctx,
		chromedp.SendKeys(chromedp.ID("refund-amount"), "2.00"),
		chromedp.SendKeys(chromedp.ID("refund-reason"), "one item returned"),
		chromedp.Submit(chromedp.ID("refund-amount")),
		chromedp.WaitVisible(chromedp.CSS(".notice")),
	)
	if text := browsertest.Eval[string](t, ctx, `document.querySelector("main").innerText`); !strings.Contains(text, "2.00 EUR") {
		t.Errorf("the refund is not on the page:\n%s", text)
	}
	browsertest.Screenshot(t, ctx, "order-refunded")
}

// payOnChain creates an area A order of s.Merchant (one mint, 0.01 ETH) and pays it from the
// chain's funded payer, in full, to its deposit address; it returns the order once minted
// (SUCCESS) and the payment's transaction.
func (s *shop) payOnChain(t *testing.T) (*rampway.Order, common.Hash) {
	t.Helper()
	ctx := t.Context()
	empty := ""
	args, _ := json.Marshal(map[string]any{"to": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", "quantity": "1"})
	created, err := s.App.Checkout.CreateMintOrder(ctx, s.Merchant, checkout.MintOrderParams{
		Quote: checkout.QuoteParams{MerchantID: s.Merchant.ID, CryptoSymbol: "ETH", CryptoNetwork: "devnet", Execution: checkout.ExecutionParams{
			FunctionID: s.Function, FunctionArgs: args, NetworkName: "devnet", Payment: &checkout.PaymentParams{Symbol: "ETH", ContractAddress: &empty, TotalValue: "0.01"}}},
		Order: checkout.OrderParams{MerchantUserID: "chain-user", MerchantTxnID: "T-chain-1", MerchantRedirectURL: "https://shop.example/done", User: map[string]string{}}})
	if err != nil {
		t.Fatal(err)
	}
	o := created.Order
	client := s.Chain.Client()
	nonce, err := client.NonceAt(ctx, crypto.PubkeyToAddress(s.Payer.PublicKey), nil)
	if err != nil {
		t.Fatal(err)
	}
	tx := devchaintest.SignTx(t, client, s.Chain.ChainID(), s.Payer, nonce, o.DepositAddress, o.CryptoAmount, nil, 21_000)
	if err := client.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	return s.waitOrder(t, o.ID, func(o *rampway.Order) bool { return o.Status == rampway.StatusSuccess }), tx.Hash()
}

// An order of area A paid on chain: its page shows the transfer (hash, payer, amount) and the
// mint; the payment's hash finds it; part of it is refunded from the page, to the payer.
func TestOrderPaidOnChain(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	o, payment := s.payOnChain(t)
	a := s.as(t, "owner")
	if ids, _ := a.list(url.Values{"q": {payment.Hex()}}); fmt.Sprint(ids) != fmt.Sprint([]string{o.ID}) {
		t.Errorf("search by the payment's hash: %v", ids)
	}
	path := "/dashboard/orders/" + o.ID
	_, page := a.get(path)
	payer := crypto.PubkeyToAddress(s.Payer.PublicKey).Hex()
	for _, want := range []string{payment.Hex(), payer, "0.01", "ETH", "Mint (crypto)", o.DepositAddress.Hex(), o.ExecutionTxHash, "Address (optional)"} {
		if !strings.Contains(page, want) {
			t.Errorf("the order page lacks %q", want)
		}
	}
	res, _ := a.submit(path+"/refunds", url.Values{"amount": {"0.001"}, "reason": {"partial"}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("refund: %d", res.StatusCode)
	}
	rs, err := s.App.Checkout.Refunds(t.Context(), o)
	if err != nil || len(rs) != 1 || rs[0].Amount.String() != "1000000000000000" || rs[0].To.Hex() != payer || !rs[0].FromMerchant() {
		t.Fatalf("refunds %+v, %v", rs, err)
	}
	_, page = a.get(path)
	if !strings.Contains(page, "0.001 ETH") || !strings.Contains(page, rs[0].ID) {
		t.Error("the refund is not on the page")
	}
}

// The operator works on the merchant it picks: the list's links, the order's page and its
// forms carry the merchant; its refund is recorded in that merchant's audit log, by the
// operator.
func TestOrdersOperator(t *testing.T) {
	t.Parallel()
	s := newShop(t)
	op := s.as(t, "operator")
	ids, list := op.list(url.Values{"merchant": {s.Merchant.ID}})
	if fmt.Sprint(ids) != fmt.Sprint([]string{s.Paid.ID}) || !strings.Contains(list, "/dashboard/orders/"+s.Paid.ID+"?merchant="+s.Merchant.ID) {
		t.Fatalf("the operator's list of Shop: %v", ids)
	}
	if ids, _ := op.list(url.Values{"merchant": {s.Other.ID}}); len(ids) != 0 {
		t.Fatalf("the operator's list of Other shop: %v", ids)
	}
	// The order is Shop's: under Other shop it is not found.
	if res, _ := op.get("/dashboard/orders/" + s.Paid.ID + "?merchant=" + s.Other.ID); res.StatusCode != http.StatusNotFound {
		t.Errorf("Shop's order under Other shop: %d", res.StatusCode)
	}
	_, page := op.get("/dashboard/orders/" + s.Paid.ID + "?merchant=" + s.Merchant.ID)
	if !strings.Contains(page, `<input type="hidden" name="merchant" value="`+s.Merchant.ID+`">`) {
		t.Fatal("the order page's forms do not carry the merchant")
	}
	res, _ := op.submit("/dashboard/orders/"+s.Paid.ID+"/refunds", url.Values{"merchant": {s.Merchant.ID}, "amount": {"0.50"}})
	if res.StatusCode != http.StatusSeeOther || !strings.Contains(res.Header.Get("Location"), "merchant="+s.Merchant.ID) {
		t.Fatalf("operator's refund: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	entries, err := s.App.Store.AuditEntries(t.Context(), s.Merchant.ID, rampway.Page{Limit: 5})
	if err != nil || len(entries) == 0 || entries[0].Action != "order.refund" || entries[0].UserID != s.Users["operator"].ID {
		t.Fatalf("audit log %+v, %v", entries, err)
	}
}
