package dashboard

import (
	"context"
	"net/http"
	"net/url"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/checkout"
)

// Refunds are the refund use cases of the operator's queue (checkout.Refunds), the same the
// admin API and CLI call: the refunds waiting by status, their orders, and an operator's
// approval, refusal and address.
type Refunds interface {
	List(ctx context.Context, f rampway.RefundFilter) ([]*rampway.Refund, error)
	RefundOrder(ctx context.Context, rf *rampway.Refund) (*rampway.Order, error)
	Approve(ctx context.Context, id, by string) (*rampway.Refund, error)
	Reject(ctx context.Context, id, by, why string) (*rampway.Refund, error)
	SetAddress(ctx context.Context, orderID, id, address, source string) (*rampway.Refund, error)
}

var _ Refunds = (*checkout.Refunds)(nil)

// refundQueueLimit is how many refunds of each status the queue shows (the oldest first: the
// longest waiting); the rest are in `rampway admin refunds list`.
const refundQueueLimit = 100

// routeRefunds registers the operator's refunds queue: GET /dashboard/refunds, and POST
// /dashboard/refunds/{refund_id}/approve, /reject and /address. Every merchant's refunds are
// there: the operator's only (DashAllMerchants).
func (h *Handler) routeRefunds() {
	if h.d.Refunds == nil {
		return
	}
	h.mux.HandleFunc("GET /dashboard/refunds", h.handle(rampway.DashAllMerchants, h.refundQueue))
	h.mux.HandleFunc("POST /dashboard/refunds/{refund_id}/approve", h.handle(rampway.DashAllMerchants, h.approveRefund))
	h.mux.HandleFunc("POST /dashboard/refunds/{refund_id}/reject", h.handle(rampway.DashAllMerchants, h.rejectRefund))
	h.mux.HandleFunc("POST /dashboard/refunds/{refund_id}/address", h.handle(rampway.DashAllMerchants, h.refundAddress))
}

// refundsData is what refunds.html shows: the refunds waiting for an operator, by status.
type refundsData struct {
	Queues []refundQueue
}

// refundQueue is the refunds of one status, the oldest first.
type refundQueue struct {
	// ID is the section's anchor, Title its heading, Help what the operator does with them.
	ID, Title, Help string
	Refunds         []queuedRefund
	// More says there are more than the page shows.
	More bool
}

// queuedRefund is a refund of the queue as the operator reads it, and what may be done to it.
type queuedRefund struct {
	rampway.EventRefund
	OrderID, OrderLink string
	Merchant           string
	Livemode           bool
	Network            string
	// CanApprove, CanReject and CanAddress say which forms the refund takes.
	CanApprove, CanReject, CanAddress bool
}

// refundQueue shows the refunds waiting for an operator: awaiting approval, awaiting an
// address, and those that failed (with why).
func (h *Handler) refundQueue(w http.ResponseWriter, r *http.Request, q *req) {
	ctx := r.Context()
	names := map[string]string{}
	for _, m := range q.Merchants {
		names[m.ID] = m.Name
	}
	orders := map[string]*rampway.Order{}
	var d refundsData
	for _, s := range []struct {
		status          rampway.RefundStatus
		id, title, help string
	}{
		{rampway.RefundAwaitingApproval, "approval", "Awaiting approval",
			"Above an asset's automatic limit or the merchant's approval threshold: approve it to send it, or refuse a merchant's refund."},
		{rampway.RefundAwaitingAddress, "address", "Awaiting an address",
			"Its payer is a contract or not known: give the address it is sent to (checked as the admin API checks it)."},
		{rampway.RefundFailed, "failed", "Failed",
			"Not paid, with why. An automatic refund is sent again once approved or given another address; a merchant's refund is never sent again (the merchant asks for another)."},
	} {
		rs, err := h.d.Refunds.List(ctx, rampway.RefundFilter{Status: s.status, Limit: refundQueueLimit + 1})
		if err != nil {
			h.fail(w, r, err)
			return
		}
		qu := refundQueue{ID: s.id, Title: s.title, Help: s.help, More: len(rs) > refundQueueLimit}
		for _, rf := range rs[:min(len(rs), refundQueueLimit)] {
			o, ok := orders[rf.OrderID]
			if !ok {
				if o, err = h.d.Refunds.RefundOrder(ctx, rf); err != nil {
					h.fail(w, r, err)
					return
				}
				orders[rf.OrderID] = o
			}
			v := queuedRefund{EventRefund: rampway.EventRefundOf(rf, o), OrderID: o.ID, Merchant: names[o.MerchantID], Livemode: o.Livemode,
				Network:   rf.Network,
				OrderLink: "/dashboard/orders/" + url.PathEscape(o.ID) + "?merchant=" + url.QueryEscape(o.MerchantID)}
			if v.Merchant == "" {
				v.Merchant = o.MerchantID
			}
			// The use cases decide; the forms are those they may take (checkout.Refunds).
			failedMerchant := rf.FromMerchant() && rf.Status == rampway.RefundFailed
			v.CanApprove = !failedMerchant
			v.CanReject = rf.FromMerchant() && rf.Status == rampway.RefundAwaitingApproval
			v.CanAddress = !rf.Fiat() && !failedMerchant && rf.Status != rampway.RefundAwaitingApproval
			qu.Refunds = append(qu.Refunds, v)
		}
		d.Queues = append(d.Queues, qu)
	}
	v := view{Title: "Refunds queue", Section: "refunds", Data: &d}
	switch r.URL.Query().Get("done") {
	case "approve":
		v.Notice = "Refund approved: it is sent."
	case "reject":
		v.Notice = "Refund refused: nothing is sent, and its merchant is told."
	case "address":
		v.Notice = "Address recorded: the refund is sent there."
	}
	h.show(w, r, q, http.StatusOK, "refunds.html", v)
}

// approveRefund approves a refund (one awaiting approval, or an automatic one that failed: sent
// again), by the operator: checkout.Refunds.Approve with the operator's email as by.
func (h *Handler) approveRefund(w http.ResponseWriter, r *http.Request, q *req) {
	h.refundAction(w, r, q, "approve", func(ctx context.Context, id string) (*rampway.Refund, error) {
		return h.d.Refunds.Approve(ctx, id, q.User.Email)
	})
}

// rejectRefund refuses a merchant's refund awaiting approval, with the reason the operator
// gives (required).
func (h *Handler) rejectRefund(w http.ResponseWriter, r *http.Request, q *req) {
	why := r.PostForm.Get("reason")
	if why == "" {
		h.badRequest(w, q, "reason is required: say why the refund is refused (its merchant reads it).")
		return
	}
	h.refundAction(w, r, q, "reject", func(ctx context.Context, id string) (*rampway.Refund, error) {
		return h.d.Refunds.Reject(ctx, id, q.User.Email, why)
	})
}

// refundAddress gives a refund waiting for an address (or an automatic one that failed) the
// address the operator enters, checked as the admin API checks it (checkout.Refunds.SetAddress).
func (h *Handler) refundAddress(w http.ResponseWriter, r *http.Request, q *req) {
	address := r.PostForm.Get("address")
	if address == "" {
		h.badRequest(w, q, "address is required: the 0x address the refund is sent to.")
		return
	}
	h.refundAction(w, r, q, "address", func(ctx context.Context, id string) (*rampway.Refund, error) {
		return h.d.Refunds.SetAddress(ctx, "", id, address, rampway.RefundToAdmin)
	})
}

// refundAction does an operator's action to the refund of the path, audits it in the log of
// the refund's merchant, and goes back to the queue; a refusal of the use case (not found, a
// refund that changed, an address refused) is answered with its message.
func (h *Handler) refundAction(w http.ResponseWriter, r *http.Request, q *req, action string, do func(ctx context.Context, id string) (*rampway.Refund, error)) {
	ctx := r.Context()
	id := r.PathValue("refund_id")
	rf, err := do(ctx, id)
	if err != nil {
		h.userError(w, r, q, err)
		return
	}
	detail := string(rf.Status)
	if action == "address" {
		detail += " to " + rf.To.Hex()
	}
	if action == "reject" {
		detail += ": " + rf.StatusReason
	}
	aq := *q // the entry is the refund's merchant's (an automatic refund's: its order's)
	if o, err := h.d.Refunds.RefundOrder(ctx, rf); err == nil {
		aq.Merchant = &rampway.Merchant{ID: o.MerchantID}
	} else {
		h.log.Error("dashboard refund's order", "refund", rf.ID, "err", err)
	}
	h.audit(ctx, &aq, "refund."+action, rf.ID, detail)
	http.Redirect(w, r, "/dashboard/refunds?done="+action, http.StatusSeeOther)
}
