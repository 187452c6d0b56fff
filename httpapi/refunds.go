package httpapi

import (
	"context"
	"net/http"
	"strconv"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/checkout"
)

// Refunds is the refund use cases the handlers call (checkout.Refunds): the address of a
// refund the payer's own address cannot take (given by the merchant or an operator), an
// operator's approval, and the listings of the admin API.
type Refunds interface {
	Get(ctx context.Context, id string) (*rampway.Refund, error)
	List(ctx context.Context, f rampway.RefundFilter) ([]*rampway.Refund, error)
	SetAddress(ctx context.Context, orderID, id, address, source string) (*rampway.Refund, error)
	Approve(ctx context.Context, id, by string) (*rampway.Refund, error)
}

// OrderReader reads any order by its id (the store): the admin API's refund views take their
// asset (symbol, decimals) from the refund's order.
type OrderReader interface {
	Order(ctx context.Context, id string) (*rampway.Order, error)
}

var _ Refunds = (*checkout.Refunds)(nil)

// RefundAdminView is a refund in the admin API and CLI: what the order lookup shows of it
// (amounts in whole units of the order's asset) and what an operator needs besides: the
// order, the network and asset, where the address came from (to_source: payer, user,
// merchant or admin; "" while none is known) and the approval.
type RefundAdminView struct {
	RefundID     string               `json:"refund_id"`
	OrderID      string               `json:"order_id"`
	Network      string               `json:"network"`
	Symbol       string               `json:"symbol"`
	Amount       string               `json:"amount"`
	NetworkFee   string               `json:"network_fee"`
	AmountSent   string               `json:"amount_sent"`
	Reason       string               `json:"reason"`
	Status       rampway.RefundStatus `json:"status"`
	StatusReason string               `json:"status_reason"`
	ToAddress    string               `json:"to_address"`
	ToSource     string               `json:"to_source"`
	TxHash       string               `json:"tx_hash"`
	ApprovedBy   string               `json:"approved_by"`
	ApprovedAt   *string              `json:"approved_at"`
	CreatedAt    string               `json:"created_at"`
	UpdatedAt    string               `json:"updated_at"`
}

// NewRefundAdminView returns r's admin view; asset is its order's (the asset it is paid in).
func NewRefundAdminView(r *rampway.Refund, asset rampway.Asset) RefundAdminView {
	e := rampway.EventRefunds([]*rampway.Refund{r}, asset.Decimals)[0]
	v := RefundAdminView{RefundID: r.ID, OrderID: r.OrderID, Network: r.Network, Symbol: asset.Symbol, Amount: e.Amount,
		NetworkFee: e.NetworkFee, AmountSent: e.AmountSent, Reason: r.Reason, Status: r.Status, StatusReason: r.StatusReason,
		ToAddress: e.ToAddress, TxHash: e.TxHash, ApprovedBy: r.ApprovedBy,
		CreatedAt: r.CreatedAt.UTC().Format(TimeFormat), UpdatedAt: r.UpdatedAt.UTC().Format(TimeFormat)}
	if e.ToAddress != "" {
		v.ToSource = r.ToSource
	}
	if !r.ApprovedAt.IsZero() {
		v.ApprovedAt = timePtr(&r.ApprovedAt)
	}
	return v
}

// RefundAssets finds the asset of refunds through their orders, each order read once.
type RefundAssets struct {
	Orders OrderReader
	seen   map[string]rampway.Asset
}

// View returns r's admin view, its asset read from its order.
func (a *RefundAssets) View(ctx context.Context, r *rampway.Refund) (RefundAdminView, error) {
	asset, ok := a.seen[r.OrderID]
	if !ok {
		o, err := a.Orders.Order(ctx, r.OrderID)
		if err != nil {
			return RefundAdminView{}, err
		}
		if a.seen == nil {
			a.seen = map[string]rampway.Asset{}
		}
		asset, a.seen[r.OrderID] = o.Asset, o.Asset
	}
	return NewRefundAdminView(r, asset), nil
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
	writeJSON(w, http.StatusOK, rampway.EventRefunds([]*rampway.Refund{rf}, o.Asset.Decimals)[0])
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
