package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/checkout"
)

// Refunds is the refund use cases the handlers call (checkout.Refunds): the address of a
// refund the payer's own address cannot take (given by the merchant or an operator), an
// operator's approval, and the listings of the admin API.
type Refunds interface {
	Create(ctx context.Context, o *rampway.Order, req checkout.MerchantRefundRequest) (*rampway.Refund, error)
	Get(ctx context.Context, id string) (*rampway.Refund, error)
	List(ctx context.Context, f rampway.RefundFilter) ([]*rampway.Refund, error)
	SetAddress(ctx context.Context, orderID, id, address, source string) (*rampway.Refund, error)
	Approve(ctx context.Context, id, by string) (*rampway.Refund, error)
	Reject(ctx context.Context, id, by, why string) (*rampway.Refund, error)
}

// OrderReader reads any order by its id (the store): the admin API's refund views take their
// asset (symbol, decimals) from the refund's order.
type OrderReader interface {
	Order(ctx context.Context, id string) (*rampway.Order, error)
}

var _ Refunds = (*checkout.Refunds)(nil)

// RefundAdminView is a refund in the admin API and CLI: what the order lookup shows of it
// (amounts in its currency: the order's asset in whole units, or its fiat currency) and what
// an operator needs besides: the order, the network and asset ("" network for a refund paid
// through the payment's provider), where the address came from (to_source: payer, user,
// merchant or admin; "" while none is known), the order's merchant and mode (origin says
// whether the merchant asked for it) and the approval.
type RefundAdminView struct {
	rampway.EventRefund
	OrderID    string  `json:"order_id"`
	MerchantID string  `json:"merchant_id"`
	Livemode   bool    `json:"livemode"`
	Network    string  `json:"network"`
	Symbol     string  `json:"symbol"`
	ToSource   string  `json:"to_source"`
	ApprovedBy string  `json:"approved_by"`
	ApprovedAt *string `json:"approved_at"`
}

// NewRefundAdminView returns the admin view of r, a refund of order o.
func NewRefundAdminView(r *rampway.Refund, o *rampway.Order) RefundAdminView {
	symbol, _ := o.RefundCurrency()
	v := RefundAdminView{EventRefund: rampway.EventRefundOf(r, o), OrderID: r.OrderID, MerchantID: o.MerchantID, Livemode: o.Livemode,
		Network: r.Network, Symbol: symbol, ApprovedBy: r.ApprovedBy}
	if v.ToAddress != "" {
		v.ToSource = r.ToSource
	}
	if !r.ApprovedAt.IsZero() {
		v.ApprovedAt = timePtr(&r.ApprovedAt)
	}
	return v
}

// RefundAssets finds the orders of refunds, for their views, each order read once.
type RefundAssets struct {
	Orders OrderReader
	seen   map[string]*rampway.Order
}

// View returns r's admin view, with its order.
func (a *RefundAssets) View(ctx context.Context, r *rampway.Refund) (RefundAdminView, error) {
	o, ok := a.seen[r.OrderID]
	if !ok {
		var err error
		if o, err = a.Orders.Order(ctx, r.OrderID); err != nil {
			return RefundAdminView{}, err
		}
		if a.seen == nil {
			a.seen = map[string]*rampway.Order{}
		}
		a.seen[r.OrderID] = o
	}
	return NewRefundAdminView(r, o), nil
}

// Views returns the admin views of refunds, all of them (a listing's page is its limit).
func (a *RefundAssets) Views(ctx context.Context, rs []*rampway.Refund) (ListView[RefundAdminView], error) {
	out := ListView[RefundAdminView]{Data: make([]RefundAdminView, 0, len(rs))}
	for _, r := range rs {
		v, err := a.View(ctx, r)
		if err != nil {
			return out, err
		}
		out.Data = append(out.Data, v)
	}
	return out, nil
}

// refundAddressBody is the body of the admin route that gives a refund its address.
type refundAddressBody struct {
	Address *string `json:"address"`
}

// merchantRefundAddressBody is the merchant route's: merchant_id, optional as in every
// merchant body, must be the key's merchant.
type merchantRefundAddressBody struct {
	MerchantID *string `json:"merchant_id"`
	Address    *string `json:"address"`
}

// refundApproveBody is the body of the admin route that approves a refund (optional).
type refundApproveBody struct {
	ApprovedBy *string `json:"approved_by"`
}

// requireAddress is a refund address body's address, required.
func requireAddress(a *string) (string, error) {
	if a == nil || *a == "" {
		return "", rampway.FieldErrorf("address", "address is required: the 0x address the refund is sent to")
	}
	return *a, nil
}

// refunds returns the refund use cases, or 503 when the server has none.
func (s *Server) refundCases() (Refunds, error) {
	if s.refunds == nil || s.orders == nil {
		return nil, rampway.Errorf(rampway.EUNAVAILABLE, "Refunds are not available on this server")
	}
	return s.refunds, nil
}

// handleMerchantRefundAddress gives a refund of one of the merchant's area A orders its
// address (a refund waiting for one: its payer is a contract or unknown): 200 with the refund
// as the order lookup shows it; 404 for another merchant's order or a refund of another
// order; 409 when the refund does not wait for an address.
func (s *Server) handleMerchantRefundAddress(w http.ResponseWriter, r *http.Request) error {
	if err := checkQueryMerchantID(r); err != nil {
		return err
	}
	var body merchantRefundAddressBody
	if err := decodeJSON(r, &body, decodeOptions{strict: true}); err != nil {
		return err
	}
	if body.MerchantID != nil { // optional here, as in the order lookup's query
		if err := checkMerchantID(r, body.MerchantID); err != nil {
			return err
		}
	}
	address, err := requireAddress(body.Address)
	if err != nil {
		return err
	}
	refunds, err := s.refundCases()
	if err != nil {
		return err
	}
	o, err := s.checkout.Order(r.Context(), scopeFrom(r.Context()), rampway.AreaMint, r.PathValue("order_id"))
	if err != nil {
		return err
	}
	rf, err := refunds.SetAddress(r.Context(), o.ID, r.PathValue("refund_id"), address, rampway.RefundToMerchant)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, rampway.EventRefundOf(rf, o))
	return nil
}

// handleListRefunds lists refunds, oldest first, by status and network: ?status=&network=&limit=
// (1 to 1000, default 100).
func (s *Server) handleListRefunds(w http.ResponseWriter, r *http.Request) error {
	refunds, err := s.refundCases()
	if err != nil {
		return err
	}
	q := r.URL.Query()
	f := rampway.RefundFilter{Status: rampway.RefundStatus(q.Get("status")), Network: q.Get("network"), Limit: 100}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			return rampway.FieldErrorf("limit", "limit must be an integer between 1 and 1000")
		}
		f.Limit = n
	}
	limit := f.Limit
	f.Limit++ // one more: has_more
	rs, err := refunds.List(r.Context(), f)
	if err != nil {
		return err
	}
	more := len(rs) > limit
	if more {
		rs = rs[:limit]
	}
	out, err := (&RefundAssets{Orders: s.orders}).Views(r.Context(), rs)
	if err != nil {
		return err
	}
	out.HasMore = more
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) handleGetRefund(w http.ResponseWriter, r *http.Request) error {
	refunds, err := s.refundCases()
	if err != nil {
		return err
	}
	rf, err := refunds.Get(r.Context(), r.PathValue("refund_id"))
	if err != nil {
		return err
	}
	return s.writeRefund(w, r, rf)
}

// handleApproveRefund approves a refund awaiting approval (or one that failed, to be sent
// again): 200 with it, pending again; 409 in any other status. The body is optional:
// {"approved_by": "alice"} names the operator ("admin" by default).
func (s *Server) handleApproveRefund(w http.ResponseWriter, r *http.Request) error {
	var body refundApproveBody
	if err := decodeJSON(r, &body, decodeOptions{strict: true, optional: true}); err != nil {
		return err
	}
	refunds, err := s.refundCases()
	if err != nil {
		return err
	}
	by := deref(body.ApprovedBy)
	if len(by) > 100 {
		return rampway.FieldErrorf("approved_by", "approved_by must be at most 100 characters")
	}
	rf, err := refunds.Approve(r.Context(), r.PathValue("refund_id"), by)
	if err != nil {
		return err
	}
	return s.writeRefund(w, r, rf)
}

// refundRejectBody is the body of the admin route that refuses a merchant's refund (optional).
type refundRejectBody struct {
	RejectedBy *string `json:"rejected_by"`
	Reason     *string `json:"reason"`
}

// handleRejectRefund refuses a merchant's refund awaiting approval: 200 with it, failed (its
// merchant hears order.refund.failed); 409 for any other refund. The body is optional:
// {"rejected_by": "alice", "reason": "..."}.
func (s *Server) handleRejectRefund(w http.ResponseWriter, r *http.Request) error {
	var body refundRejectBody
	if err := decodeJSON(r, &body, decodeOptions{strict: true, optional: true}); err != nil {
		return err
	}
	refunds, err := s.refundCases()
	if err != nil {
		return err
	}
	by := deref(body.RejectedBy)
	if len(by) > 100 {
		return rampway.FieldErrorf("rejected_by", "rejected_by must be at most 100 characters")
	}
	rf, err := refunds.Reject(r.Context(), r.PathValue("refund_id"), by, deref(body.Reason))
	if err != nil {
		return err
	}
	return s.writeRefund(w, r, rf)
}

// handleAdminRefundAddress gives a refund its address as an operator: one awaiting an
// address, or one that failed (sent again to the new address).
func (s *Server) handleAdminRefundAddress(w http.ResponseWriter, r *http.Request) error {
	var body refundAddressBody
	if err := decodeJSON(r, &body, decodeOptions{strict: true}); err != nil {
		return err
	}
	address, err := requireAddress(body.Address)
	if err != nil {
		return err
	}
	refunds, err := s.refundCases()
	if err != nil {
		return err
	}
	rf, err := refunds.SetAddress(r.Context(), "", r.PathValue("refund_id"), address, rampway.RefundToAdmin)
	if err != nil {
		return err
	}
	return s.writeRefund(w, r, rf)
}

func (s *Server) writeRefund(w http.ResponseWriter, r *http.Request, rf *rampway.Refund) error {
	v, err := (&RefundAssets{Orders: s.orders}).View(r.Context(), rf)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, v)
	return nil
}

// refundBody is the body of a merchant's refund (every field optional; the body too).
type refundBody struct {
	MerchantID *string `json:"merchant_id"`
	// Amount is read raw: an explicit null is refused, not taken as "all that is left".
	Amount  json.RawMessage `json:"amount"`
	Reason  *string         `json:"reason"`
	Address *string         `json:"address"`
}

// RefundListView is the answer of an order's refunds: every refund of it, oldest first
// (automatic and the merchant's), and what its merchant refunds add up to, in the order's
// refund currency: what it was paid, what is refunded (paid back), what is left to refund.
type RefundListView struct {
	Data             []RefundView `json:"data"`
	Currency         string       `json:"currency"`
	AmountPaid       string       `json:"amount_paid"`
	AmountRefunded   string       `json:"amount_refunded"`
	AmountRefundable string       `json:"amount_refundable"`
}

// handleCreateRefund refunds all or part of one of the merchant's orders of an area: 200 with
// the refund; 400 naming amount (more than is left, over the daily cap, not a decimal),
// reason or address; 404 for an order that is not the key's merchant's, or of the other mode;
// 409 for an order that did not succeed or has nothing left to refund.
func (s *Server) handleCreateRefund(area rampway.Area) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if err := checkQueryMerchantID(r); err != nil {
			return err
		}
		var body refundBody
		if err := decodeJSON(r, &body, decodeOptions{strict: true, optional: true}); err != nil {
			return err
		}
		if body.MerchantID != nil {
			if err := checkMerchantID(r, body.MerchantID); err != nil {
				return err
			}
		}
		refunds, err := s.refundCases()
		if err != nil {
			return err
		}
		o, err := s.checkout.Order(r.Context(), scopeFrom(r.Context()), area, r.PathValue("order_id"))
		if err != nil {
			return err
		}
		amount, err := refundAmount(body.Amount)
		if err != nil {
			return err
		}
		rf, err := refunds.Create(r.Context(), o, checkout.MerchantRefundRequest{Amount: amount, Reason: deref(body.Reason),
			Address: deref(body.Address), Source: rampway.RefundToMerchant})
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, rampway.EventRefundOf(rf, o))
		return nil
	}
}

// handleOrderRefunds lists the refunds of one of the merchant's orders of an area, with what
// they add up to. 404 as the order lookup.
func (s *Server) handleOrderRefunds(area rampway.Area) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if err := checkQueryMerchantID(r); err != nil {
			return err
		}
		o, err := s.checkout.Order(r.Context(), scopeFrom(r.Context()), area, r.PathValue("order_id"))
		if err != nil {
			return err
		}
		rs, err := s.checkout.Refunds(r.Context(), o)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, NewRefundListView(o, rs))
		return nil
	}
}

// refundAmount is a refund body's amount: "" when left out (all that is left), else a string;
// null, a number or anything else is EINVALID naming amount.
func refundAmount(raw json.RawMessage) (string, error) {
	if raw == nil {
		return "", nil
	}
	var v string
	if err := json.Unmarshal(raw, &v); err != nil || v == "" {
		return "", rampway.FieldErrorf("amount", `amount must be a decimal string such as "10.00"; leave it out to refund all that is left`)
	}
	return v, nil
}

// NewRefundListView is the list of order o's refunds rs.
func NewRefundListView(o *rampway.Order, rs []*rampway.Refund) RefundListView {
	t := rampway.MerchantRefundTotals(o, rs)
	symbol, _ := o.RefundCurrency()
	return RefundListView{Data: rampway.EventRefunds(rs, o), Currency: symbol, AmountPaid: o.FormatRefundAmount(t.Paid),
		AmountRefunded: o.FormatRefundAmount(t.Refunded), AmountRefundable: o.FormatRefundAmount(t.Left)}
}
