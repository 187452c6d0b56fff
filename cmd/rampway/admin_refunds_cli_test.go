package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/internal/browsertest"
	"github.com/rampway/rampway/sqlite"
	"github.com/rampway/rampway/storetest"
)

// heldRefund is an area A order of a stopped dev data directory that failed after it was paid,
// and its refund.
type heldRefund struct {
	orderID, refundID string
	query             string // order_id=...&hash=..., the page's
}

// failedWithRefunds starts rampway dev in dir, creates one area A order per hold, stops it,
// then, in its database, has each order paid in full and its execution refused (FAILED, with
// one refund of what was paid, to storetest.Payer) and holds the refund in that status ("":
// left pending).
func failedWithRefunds(t *testing.T, dir string, holds ...rampway.RefundStatus) []heldRefund {
	t.Helper()
	dj, stop := startDev(t, dir)
	j := newJourney(t, dj)
	var out []heldRefund
	for range holds {
		o := j.order(t, 0, map[string]any{"to": dj.Chain.PayerAddress, "quantity": "1"})
		u, err := url.Parse(o["gateway_url"].(string))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, heldRefund{orderID: o["order_id"].(string), query: u.RawQuery})
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	store, err := sqlite.Open(t.Context(), filepath.Join(dir, devDBFile), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	for i, hold := range holds {
		storetest.Drive(t, store, out[i].orderID, rampway.StatusFailed)
		rs, err := store.Refunds(t.Context(), out[i].orderID)
		if err != nil || len(rs) != 1 {
			t.Fatalf("refunds of %s: %+v %v", out[i].orderID, rs, err)
		}
		out[i].refundID = rs[0].ID
		if hold != "" {
			if _, err := store.HoldRefund(t.Context(), rs[0].ID, hold, "the payer is a contract", time.Now()); err != nil {
				t.Fatal(err)
			}
		}
	}
	return out
}

// TestAdminCLIRefunds: rampway admin refunds list, show, approve and set-address, on a dev data
// directory; set-address asks the network (running), the others work offline.
func TestAdminCLIRefunds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	held := failedWithRefunds(t, dir, rampway.RefundAwaitingAddress, rampway.RefundAwaitingApproval)
	waiting, big := held[0], held[1]
	cli := adminCLI(t, dir, "refunds")
	ids := func(v map[string]any) []string {
		var out []string
		for _, r := range v["data"].([]any) {
			out = append(out, r.(map[string]any)["refund_id"].(string))
		}
		return out
	}

	all, err := cli("list")
	if err != nil || strings.Join(ids(all), ",") != waiting.refundID+","+big.refundID || all["has_more"] != false {
		t.Fatalf("list: %v %v", all, err)
	}
	first := all["data"].([]any)[0].(map[string]any)
	if len(first) != 24 || first["order_id"] != waiting.orderID || first["symbol"] != "ETH" || first["network"] != "devnet" ||
		first["status"] != string(rampway.RefundAwaitingAddress) || first["to_source"] != rampway.RefundToPayer || first["approved_at"] != nil {
		t.Fatalf("listed %v", first)
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"list", "--status", "awaiting_approval"}, []string{big.refundID}},
		{[]string{"list", "--network", "devnet", "--status", "awaiting_address"}, []string{waiting.refundID}},
		{[]string{"list", "--network", "mainnet"}, nil},
	} {
		v, err := cli(c.args...)
		if err != nil || strings.Join(ids(v), ",") != strings.Join(c.want, ",") {
			t.Errorf("%v: %v %v, want %v", c.args, v, err, c.want)
		}
	}
	if v, err := cli("list", "--limit", "1"); err != nil || len(ids(v)) != 1 || v["has_more"] != true {
		t.Fatalf("list --limit 1: %v %v", v, err)
	}
	if v, err := cli("show", big.refundID); err != nil || v["status"] != string(rampway.RefundAwaitingApproval) || v["refund_id"] != big.refundID {
		t.Fatalf("show: %v %v", v, err)
	}
	if v, err := cli("approve", big.refundID, "--by", "alice"); err != nil || v["status"] != string(rampway.RefundPending) || v["approved_by"] != "alice" ||
		v["approved_at"] == nil {
		t.Fatalf("approve: %v %v", v, err)
	}
	for _, bad := range []struct {
		args []string
		msg  string
	}{
		{[]string{"list", "--status", "lost"}, `status "lost" is not a refund status`},
		{[]string{"list", "--limit", "0"}, "--limit must be between 1 and 1000"},
		{[]string{"list", "x"}, "expects no positional arguments"},
		{[]string{"show"}, "expects REFUND_ID"},
		{[]string{"show", "rfd_00000000000000000000000000"}, "not found"},
		{[]string{"approve", big.refundID}, "only a refund awaiting approval"},
		{[]string{"approve", waiting.refundID}, "only a refund awaiting approval"},
		{[]string{"set-address", waiting.refundID}, "expects REFUND_ID ADDRESS"},
		{[]string{"frobnicate"}, "unknown command"},
	} {
		if _, err := cli(bad.args...); err == nil || !strings.Contains(err.Error(), bad.msg) {
			t.Errorf("refunds %v: %v, want an error with %q", bad.args, err, bad.msg)
		}
	}

	// set-address asks the network: with rampway dev running it checks and records.
	_, _ = startDev(t, dir)
	if _, err := cli("set-address", waiting.refundID, "0x1234"); err == nil || !strings.Contains(err.Error(), "address") {
		t.Fatalf("set-address of a bad address: %v", err)
	}
	v, err := cli("set-address", waiting.refundID, "0x2222222222222222222222222222222222222222")
	if err != nil || v["status"] != string(rampway.RefundPending) || v["to_address"] != "0x2222222222222222222222222222222222222222" || v["to_source"] != rampway.RefundToAdmin {
		t.Fatalf("set-address: %v %v", v, err)
	}
	if _, err := cli("set-address", waiting.refundID, "0x2222222222222222222222222222222222222222"); err == nil ||
		!strings.Contains(err.Error(), "does not wait for an address") {
		t.Fatalf("set-address again: %v", err)
	}
}

// TestBrowserRefundAddress: the checkout page of an order whose refund waits for an address
// asks the user for one; an invalid address is refused beside the field, a valid one is
// recorded from the user and the page says where the refund goes.
func TestBrowserRefundAddress(t *testing.T) {
	t.Parallel()
	browsertest.Chromium(t) // skip (or fail in CI) before starting anything
	dir := t.TempDir()
	h := failedWithRefunds(t, dir, rampway.RefundAwaitingAddress)[0]
	dj, _ := startDev(t, dir)
	ctx := browsertest.New(t)
	base := strings.TrimSuffix(dj.API.MintBaseURL, "/mint")
	browsertest.Do(t, ctx, chromedp.Navigate(base+"/checkout?"+h.query))

	input, submit := "refund-address-"+h.refundID, "refund-submit-"+h.refundID
	type panel struct {
		Text, Label, Error, Value, Invalid, Return string
		Returning                                  bool
	}
	const read = `(() => {
	  const r = document.getElementById("refunds"), i = document.querySelector("#refunds input[name=address]");
	  const e = document.querySelector("#refunds .error"), l = i && document.querySelector("label[for='" + i.id + "']");
	  return {Text: r ? r.innerText : "", Label: l ? l.textContent : "", Error: e ? e.textContent : "", Value: i ? i.value : "",
	    Invalid: i ? String(i.getAttribute("aria-invalid")) : "", Return: document.getElementById("return-note").textContent,
	    Returning: document.getElementById("return-note").textContent.includes("Returning")};
	})()`
	// The page has shown the order's final status (its return note set): a refund waits for the
	// user, so it stays. It starts no countdown to the shop then or later: a countdown would
	// say "Returning" at once, and a final status is shown once.
	p := browsertest.WaitFor(t, ctx, "the refund panel", read, 15*time.Second, func(p panel) bool {
		return strings.Contains(p.Text, "is owed back to you") && p.Label != "" && p.Return != ""
	})
	if p.Returning || !strings.Contains(p.Return, "Enter your address below") {
		t.Fatalf("the page returns to the shop while a refund waits: %+v", p)
	}
	if !strings.Contains(p.Text, "ETH is owed back to you (") || !strings.Contains(p.Text, "It was paid from a contract") ||
		!strings.Contains(p.Label, "address for the refund") {
		t.Fatalf("panel %+v", p)
	}
	browsertest.CheckAccessibility(t, ctx, "the refund address form")
	browsertest.Screenshot(t, ctx, "refund-asked")

	// An invalid address: refused beside the field, what was typed kept.
	browsertest.Do(t, ctx, chromedp.SendKeys(chromedp.ID(input), "0x1234"), chromedp.Click(chromedp.ID(submit)))
	p = browsertest.WaitFor(t, ctx, "the refusal", read, 15*time.Second, func(p panel) bool { return p.Error != "" })
	if !strings.Contains(p.Error, "address") || p.Value != "0x1234" || p.Invalid != "true" {
		t.Fatalf("refused %+v", p)
	}
	browsertest.Screenshot(t, ctx, "refund-refused")

	// A valid EOA: recorded from the user, the page says where the refund goes.
	to := "0x2222222222222222222222222222222222222222"
	// The refusal is a new document (the form's POST answered 400): the field is cleared in it.
	browsertest.Eval[string](t, ctx, `document.getElementById("`+input+`").value = ""`)
	browsertest.Do(t, ctx, chromedp.SendKeys(chromedp.ID(input), strings.ToLower(to)), chromedp.Click(chromedp.ID(submit)))
	p = browsertest.WaitFor(t, ctx, "the refund's destination", read, 15*time.Second, func(p panel) bool {
		return strings.Contains(p.Text, to) && p.Value == ""
	})
	if !strings.Contains(p.Text, "The refund will be sent to "+to) && !strings.Contains(p.Text, "was sent to "+to) {
		t.Fatalf("after the address %+v", p)
	}
	browsertest.Screenshot(t, ctx, "refund-given")

	req, _ := http.NewRequest(http.MethodGet, dj.API.AdminBaseURL+"/refunds/"+h.refundID, nil)
	req.Header.Set("Authorization", "Bearer "+dj.AdminToken)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var v map[string]any
	if err := json.NewDecoder(res.Body).Decode(&v); err != nil || res.StatusCode != 200 {
		t.Fatalf("admin refund: %d %v", res.StatusCode, err)
	}
	if v["to_source"] != rampway.RefundToUser || v["to_address"] != to ||
		(v["status"] != string(rampway.RefundPending) && v["status"] != string(rampway.RefundSent) && v["status"] != string(rampway.RefundDone)) {
		t.Fatalf("refund after the page: %v", v)
	}
}

// TestCheckoutPageRefundAddressHTTP: the refund address form over plain HTTP (what the
// browser test does in Chromium): the page asks, a refused address is 400 with the reason
// beside the field, a valid one is 303 back to the page, which says where the refund goes;
// the status says a refund waits only while one does.
func TestCheckoutPageRefundAddressHTTP(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	h := failedWithRefunds(t, dir, rampway.RefundAwaitingAddress)[0]
	dj, _ := startDev(t, dir)
	base := strings.TrimSuffix(dj.API.MintBaseURL, "/mint")
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	body := func(res *http.Response) string {
		t.Helper()
		defer res.Body.Close()
		var b bytes.Buffer
		_, _ = b.ReadFrom(res.Body)
		return b.String()
	}
	get := func(path string) (*http.Response, string) {
		t.Helper()
		res, err := noRedirect.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		return res, body(res)
	}
	post := func(form url.Values) (*http.Response, string) {
		t.Helper()
		res, err := noRedirect.PostForm(base+"/checkout/refund-address", form)
		if err != nil {
			t.Fatal(err)
		}
		return res, body(res)
	}
	q, _ := url.ParseQuery(h.query)
	form := func(address string) url.Values {
		return url.Values{"order_id": {h.orderID}, "hash": {q.Get("hash")}, "refund_id": {h.refundID}, "address": {address}}
	}

	res, page := get("/checkout?" + h.query)
	if res.StatusCode != 200 || !strings.Contains(page, `action="/checkout/refund-address"`) || !strings.Contains(page, "is owed back to you") ||
		!strings.Contains(page, `for="refund-address-`+h.refundID+`"`) {
		t.Fatalf("page %d:\n%s", res.StatusCode, page)
	}
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "form-action 'self'") || !strings.Contains(csp, "script-src 'self'") {
		t.Fatalf("CSP %q", csp)
	}
	if _, st := get("/checkout/status?" + h.query); !strings.Contains(st, `"refund_address":true`) {
		t.Fatalf("status %s", st)
	}
	// A wrong hash: the page's 404, nothing recorded.
	bad := form("0x2222222222222222222222222222222222222222")
	bad.Set("hash", strings.Repeat("0", 64))
	if res, _ := post(bad); res.StatusCode != 404 {
		t.Fatalf("wrong hash: %d", res.StatusCode)
	}
	res, page = post(form("0x1234"))
	if res.StatusCode != 400 || !strings.Contains(page, `role="alert"`) || !strings.Contains(page, `aria-invalid="true"`) || !strings.Contains(page, `value="0x1234"`) {
		t.Fatalf("refused: %d\n%s", res.StatusCode, page)
	}
	res, _ = post(form("0x2222222222222222222222222222222222222222"))
	if res.StatusCode != 303 || res.Header.Get("Location") != "/checkout?order_id="+h.orderID+"&hash="+q.Get("hash") {
		t.Fatalf("given: %d %v", res.StatusCode, res.Header)
	}
	_, page = get("/checkout?" + h.query)
	if strings.Contains(page, `action="/checkout/refund-address"`) || !strings.Contains(page, "0x2222222222222222222222222222222222222222") {
		t.Fatalf("page after the address:\n%s", page)
	}
	if _, st := get("/checkout/status?" + h.query); !strings.Contains(st, `"refund_address":false`) {
		t.Fatalf("status %s", st)
	}
	// Again: it no longer waits; back to the page.
	if res, _ := post(form("0x3333333333333333333333333333333333333333")); res.StatusCode != 303 {
		t.Fatalf("again: %d", res.StatusCode)
	}
}

// TestAdminCLIRefundCreate: rampway admin refunds create refunds a part of an order that
// succeeded, for its merchant (offline: the refund worker of a running server pays it); the
// merchant's refund policy, set with merchants update --refund-policy, holds one above its
// threshold; bad input is refused and records nothing.
func TestAdminCLIRefundCreate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dj, stop := startDev(t, dir)
	j := newJourney(t, dj)
	o := j.order(t, 0, map[string]any{"to": dj.Chain.PayerAddress, "quantity": "1"})
	id := o["order_id"].(string)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	store, err := sqlite.Open(t.Context(), filepath.Join(dir, devDBFile), nil)
	if err != nil {
		t.Fatal(err)
	}
	storetest.Drive(t, store, id, rampway.StatusSuccess)
	store.Close()
	cli := adminCLI(t, dir)
	r, err := cli("refunds", "create", id, "--amount", "0.001", "--reason", "returned")
	if err != nil || r["origin"] != "merchant" || r["amount"] != "0.001" || r["status"] != "pending" || r["reason"] != "returned" ||
		r["to_source"] != rampway.RefundToPayer || r["merchant_id"] != dj.Merchant.MerchantID || r["order_id"] != id {
		t.Fatalf("create: %v %v", r, err)
	}
	for _, bad := range [][]string{{"refunds", "create", id, "--amount", "x"}, {"refunds", "create", id, "--amount", "1000"},
		{"refunds", "create", "ord_06h1x3cagzczxpsx7r1t4ddb34"}, {"refunds", "create"},
		{"merchants", "update", dj.Merchant.MerchantID, "--refund-policy", `{"ETH": {"approval_above": "x"}}`},
		{"merchants", "update", dj.Merchant.MerchantID, "--refund-policy", `{"ETH": {"nope": "1"}}`}} {
		if v, err := cli(bad...); err == nil {
			t.Fatalf("%v: %v", bad, v)
		}
	}
	m, err := cli("merchants", "update", dj.Merchant.MerchantID, "--refund-policy", `{"ETH": {"approval_above": "0.0005"}}`)
	if err != nil || m["refund_policy"].(map[string]any)["ETH"].(map[string]any)["approval_above"] != "0.0005" {
		t.Fatalf("policy: %v %v", m, err)
	}
	r, err = cli("refunds", "create", id, "--amount", "0.002")
	if err != nil || r["status"] != "awaiting_approval" {
		t.Fatalf("above the threshold: %v %v", r, err)
	}
	list, err := cli("refunds", "list")
	if err != nil || len(list["data"].([]any)) != 2 {
		t.Fatalf("list: %v %v", list, err)
	}
	// Refused: failed, and its amount refundable again.
	rejected, err := cli("refunds", "reject", r["refund_id"].(string), "--by", "alice", "--reason", "kept the goods")
	if err != nil || rejected["status"] != "failed" || rejected["status_reason"] != "refused by alice: kept the goods" {
		t.Fatalf("reject: %v %v", rejected, err)
	}
	if v, err := cli("refunds", "reject", r["refund_id"].(string)); err == nil {
		t.Fatalf("rejected twice: %v", v)
	}
	if _, err := cli("refunds", "create", id, "--amount", "0.002", "--reason", "again"); err != nil {
		t.Fatalf("after the refusal: %v", err)
	}
}
