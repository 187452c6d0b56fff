package dashboard_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/checkout"
	"github.com/rampway/rampway/internal/browsertest"
	"github.com/rampway/rampway/merchant"
)

// heldRefund has the site's merchant ask for a refund of amount (EUR) of order o, above its
// approval threshold of 1.00 EUR: it waits for an operator.
func (s *site) heldRefund(t *testing.T, o *rampway.Order, amount, reason string) *rampway.Refund {
	t.Helper()
	if _, err := s.App.Merchants.Update(t.Context(), s.Merchant.ID, merchant.UpdateParams{
		RefundPolicy: map[string]rampway.RefundLimits{"EUR": {ApprovalAbove: "1.00"}}}); err != nil {
		t.Fatal(err)
	}
	rf, err := s.App.Refunds.Create(t.Context(), o, checkout.MerchantRefundRequest{Amount: amount, Reason: reason, Source: rampway.RefundToMerchant})
	if err != nil {
		t.Fatal(err)
	}
	if rf.Status != rampway.RefundAwaitingApproval {
		t.Fatalf("refund %s is %s, want awaiting_approval", rf.ID, rf.Status)
	}
	return rf
}

// waitRefund waits until refund id is in status want, and returns it.
func (s *site) waitRefund(t *testing.T, id string, want rampway.RefundStatus) *rampway.Refund {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		rf, err := s.App.Store.Refund(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if rf.Status == want {
			return rf
		}
		if time.Now().After(deadline) {
			t.Fatalf("refund %s is %s, want %s", id, rf.Status, want)
		}
	}
}

// The operator's queue: a merchant refund above the merchant's threshold is listed with its
// order, merchant, amount and reason; approved, it is paid back by the provider; another is
// refused with a reason and listed among the failures. Each is in the merchant's audit log.
// Nobody but the operator opens the queue or sees it in the navigation, and a POST without the
// CSRF token does nothing.
func TestRefundsQueue(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	ctx := t.Context()
	o := s.paidOrder(t)
	approve := s.heldRefund(t, o, "2.00", "customer returned the item")
	refuse := s.heldRefund(t, o, "1.50", "<b>goodwill</b>")

	op := s.as(t, rampway.RoleOperator)
	res, page := op.get("/dashboard/refunds")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("queue: %d\n%s", res.StatusCode, page)
	}
	for _, want := range []string{
		`<a href="/dashboard/refunds" aria-current="page">Refunds</a>`,
		`<tr id="` + approve.ID + `">`,
		`<a href="/dashboard/orders/` + o.ID + `?merchant=` + s.Merchant.ID + `"><code>` + o.ID + `</code></a>`,
		`<td>Shop</td>`,
		`<td class="num">2.00 EUR</td>`,
		`<td>customer returned the item</td>`,
		`<td>&lt;b&gt;goodwill&lt;/b&gt;</td>`, // escaped
		`action="/dashboard/refunds/` + approve.ID + `/approve"`,
		`action="/dashboard/refunds/` + refuse.ID + `/reject"`,
		`Awaiting approval (2)`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the queue lacks %s", want)
		}
	}
	if strings.Contains(page, `/dashboard/refunds/`+approve.ID+`/address`) {
		t.Error("a card refund awaiting approval is offered an address form")
	}

	// Without the CSRF token: 403, nothing done.
	if res, _ := op.post("/dashboard/refunds/"+approve.ID+"/approve", url.Values{}); res.StatusCode != http.StatusForbidden {
		t.Errorf("approve without token: %d, want 403", res.StatusCode)
	}
	if rf, _ := s.App.Store.Refund(ctx, approve.ID); rf.Status != rampway.RefundAwaitingApproval {
		t.Fatalf("refund approved without the token: %s", rf.Status)
	}

	// Approve: pending, then paid back through the sandbox.
	res, _ = op.submit("/dashboard/refunds/"+approve.ID+"/approve", nil)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/dashboard/refunds?done=approve" {
		t.Fatalf("approve: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	rf := s.waitRefund(t, approve.ID, rampway.RefundDone)
	if rf.ApprovedBy != s.Users[rampway.RoleOperator].Email {
		t.Errorf("approved by %q", rf.ApprovedBy)
	}
	// Approving again: 409 with the use case's message.
	if res, page := op.submit("/dashboard/refunds/"+approve.ID+"/approve", nil); res.StatusCode != http.StatusConflict ||
		!strings.Contains(page, "only a refund awaiting approval") {
		t.Errorf("approve twice: %d\n%s", res.StatusCode, page)
	}

	// Refuse: a reason is required; with one, the refund fails and is listed with it.
	if res, _ := op.submit("/dashboard/refunds/"+refuse.ID+"/reject", nil); res.StatusCode != http.StatusBadRequest {
		t.Errorf("refuse without a reason: %d, want 400", res.StatusCode)
	}
	res, _ = op.submit("/dashboard/refunds/"+refuse.ID+"/reject", url.Values{"reason": {"not in the return window"}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("refuse: %d", res.StatusCode)
	}
	if rf := s.waitRefund(t, refuse.ID, rampway.RefundFailed); !strings.Contains(rf.StatusReason, "not in the return window") {
		t.Errorf("refused refund's reason %q", rf.StatusReason)
	}
	_, page = op.get("/dashboard/refunds?done=reject")
	for _, want := range []string{"Refund refused", `Awaiting approval (0)`, `<tr id="` + refuse.ID + `">`, "not in the return window",
		"None: the merchant asks for another."} {
		if !strings.Contains(page, want) {
			t.Errorf("after the refusal the queue lacks %s", want)
		}
	}

	// An address is checked as the admin API checks it: a card refund takes none (409).
	if res, _ := op.submit("/dashboard/refunds/"+refuse.ID+"/address", url.Values{"address": {"0x2222222222222222222222222222222222222222"}}); res.StatusCode != http.StatusConflict {
		t.Errorf("address of a card refund: %d, want 409", res.StatusCode)
	}
	if res, _ := op.submit("/dashboard/refunds/"+refuse.ID+"/address", url.Values{}); res.StatusCode != http.StatusBadRequest {
		t.Errorf("no address: %d, want 400", res.StatusCode)
	}

	// The audit log of the refund's merchant has both.
	entries, err := s.App.Store.AuditEntries(ctx, s.Merchant.ID, rampway.Page{Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	audited := map[string]string{}
	for _, e := range entries {
		if strings.HasPrefix(e.Action, "refund.") {
			audited[e.Action] = e.Subject + " by " + e.UserID
		}
	}
	opID := s.Users[rampway.RoleOperator].ID
	if audited["refund.approve"] != approve.ID+" by "+opID || audited["refund.reject"] != refuse.ID+" by "+opID {
		t.Errorf("audit log %v", audited)
	}

	// Any other role: 403 and no link.
	for _, role := range []rampway.DashboardRole{rampway.RoleOwner, rampway.RoleSupport, rampway.RoleViewer} {
		a := s.as(t, role)
		if res, _ := a.get("/dashboard/refunds"); res.StatusCode != http.StatusForbidden {
			t.Errorf("%s opens the queue: %d", role, res.StatusCode)
		}
		if res, _ := a.submit("/dashboard/refunds/"+refuse.ID+"/approve", nil); res.StatusCode != http.StatusForbidden {
			t.Errorf("%s approves: %d", role, res.StatusCode)
		}
		if _, page := a.get("/dashboard/overview"); strings.Contains(page, `href="/dashboard/refunds"`) {
			t.Errorf("%s sees a link to the queue", role)
		}
	}
}

// The queue in Chromium: the operator approves a refund with the button; the page is
// accessible.
func TestRefundsQueueInChromium(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	o := s.paidOrder(t)
	rf := s.heldRefund(t, o, "2.00", "customer returned the item")
	ctx := s.chromium(t, rampway.RoleOperator)
	browsertest.Do(t, ctx,
		chromedp.Navigate(s.Base+"/dashboard/refunds"),
		chromedp.WaitVisible(chromedp.ID(rf.ID)),
	)
	browsertest.CheckAccessibility(t, ctx, "refunds queue")
	browsertest.Screenshot(t, ctx, "dashboard-refunds")
	browsertest.Do(t, ctx,
		chromedp.Click(chromedp.CSS(`form[action="/dashboard/refunds/`+rf.ID+`/approve"] button`)),
		chromedp.WaitVisible(chromedp.CSS(".notice")),
	)
	s.waitRefund(t, rf.ID, rampway.RefundDone)
}
