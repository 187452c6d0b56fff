package dashboard

import (
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/checkout"
)

// Orders are the use cases of the orders pages: the order lookup and the list and search of a
// merchant's orders of one mode, what an order's page shows (its events, payments, execution,
// refunds, webhook deliveries), a merchant refund, a webhook resend, and the networks'
// explorers. OrderCases is the service's.
type Orders interface {
	// Order returns an order in scope, of any area; ENOTFOUND for another merchant's or
	// mode's (checkout.Records).
	Order(ctx context.Context, scope rampway.Scope, area rampway.Area, id string) (*rampway.Order, error)
	// SearchOrders lists, filters and searches a merchant's orders (rampway.DashboardOrderStore).
	SearchOrders(ctx context.Context, q rampway.OrderQuery) ([]*rampway.Order, error)
	// OrderEvents are an order's events, oldest first: its timeline.
	OrderEvents(ctx context.Context, orderID string) ([]*rampway.OrderEvent, error)
	// Transfers are the payments seen on chain for an order (checkout.Records).
	Transfers(ctx context.Context, o *rampway.Order) ([]*rampway.InboundTransfer, error)
	// FiatPayments are an order's payments through a provider (checkout.Service).
	FiatPayments(ctx context.Context, o *rampway.Order) ([]*rampway.FiatPayment, error)
	// Execution is an order's call and the transactions signed for it; ENOTFOUND for none.
	Execution(ctx context.Context, orderID string) (*rampway.Execution, []*rampway.ChainTx, error)
	// Refunds are an order's refunds, automatic and the merchant's (checkout.Records).
	Refunds(ctx context.Context, o *rampway.Order) ([]*rampway.Refund, error)
	// Deliveries are an order's webhook deliveries with their attempts (checkout.Records).
	Deliveries(ctx context.Context, scope rampway.Scope, area rampway.Area, orderID string) ([]checkout.DeliveryLog, error)
	// Resend queues an event of an order's again (checkout.Records).
	Resend(ctx context.Context, scope rampway.Scope, area rampway.Area, orderID, eventID string) (*rampway.Delivery, error)
	// CreateRefund is the merchant refund of the API (checkout.Refunds.Create): the same
	// checks and errors.
	CreateRefund(ctx context.Context, o *rampway.Order, req checkout.MerchantRefundRequest) (*rampway.Refund, error)
	// TxURL is a transaction's page on its network's explorer; "" when the network configures
	// none.
	TxURL(network, hash string) string
}

// OrderStore is what the orders pages read of the store besides checkout's records.
type OrderStore interface {
	rampway.DashboardOrderStore
	OrderEvents(ctx context.Context, orderID string) ([]*rampway.OrderEvent, error)
	Execution(ctx context.Context, orderID string) (*rampway.Execution, []*rampway.ChainTx, error)
}

// OrderCases are Orders over the service's parts (internal/app wires them): checkout's records
// and fiat payments, the store's reads, the merchant refunds, and the configured networks
// (their explorers).
type OrderCases struct {
	*checkout.Service
	Store    OrderStore
	Refunder *checkout.Refunds
	Networks []rampway.Network
}

var _ Orders = (*OrderCases)(nil)

// SearchOrders implements Orders.
func (c *OrderCases) SearchOrders(ctx context.Context, q rampway.OrderQuery) ([]*rampway.Order, error) {
	return c.Store.SearchOrders(ctx, q)
}

// OrderEvents implements Orders.
func (c *OrderCases) OrderEvents(ctx context.Context, orderID string) ([]*rampway.OrderEvent, error) {
	return c.Store.OrderEvents(ctx, orderID)
}

// Execution implements Orders.
func (c *OrderCases) Execution(ctx context.Context, orderID string) (*rampway.Execution, []*rampway.ChainTx, error) {
	return c.Store.Execution(ctx, orderID)
}

// CreateRefund implements Orders.
func (c *OrderCases) CreateRefund(ctx context.Context, o *rampway.Order, req checkout.MerchantRefundRequest) (*rampway.Refund, error) {
	if c.Refunder == nil {
		return nil, rampway.Errorf(rampway.EUNAVAILABLE, "Refunds are not available on this server")
	}
	return c.Refunder.Create(ctx, o, req)
}

// TxURL implements Orders: the explorer's ExplorerURL + "/tx/" + hash, for an http(s) explorer.
func (c *OrderCases) TxURL(network, hash string) string {
	for _, n := range c.Networks {
		if n.Name != network || n.ExplorerURL == "" {
			continue
		}
		u, err := url.Parse(n.ExplorerURL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return ""
		}
		return strings.TrimRight(n.ExplorerURL, "/") + "/tx/" + url.PathEscape(hash)
	}
	return ""
}

// Page sizes: a page of the list, and a page of the CSV export read at a time.
const (
	ordersPerPage = 50
	csvPage       = 500
)

// routeOrders registers the orders pages. Every role may read them; refunds need DashRefund;
// a webhook resend is for the roles that look after an integration or its customers (owner,
// developer, support, operator: DashRefund or DashDevelopers), not a viewer (canResend).
func (h *Handler) routeOrders() {
	if h.d.Orders == nil {
		return
	}
	h.mux.HandleFunc("GET /dashboard/orders", h.handle(rampway.DashView, h.ordersList))
	h.mux.HandleFunc("GET /dashboard/orders.csv", h.handle(rampway.DashView, h.ordersCSV))
	h.mux.HandleFunc("GET /dashboard/orders/{id}", h.handle(rampway.DashView, h.orderPage))
	h.mux.HandleFunc("POST /dashboard/orders/{id}/refunds", h.handle(rampway.DashRefund, h.orderRefund))
	h.mux.HandleFunc("POST /dashboard/orders/{id}/webhooks/{event_id}/resend", h.handle(rampway.DashView, h.orderResend))
}

// canResend reports whether q's user may send an order's webhook again: a role that refunds
// (support answers customers) or looks after the integration (developer); not a viewer.
func canResend(q *req) bool {
	return q.Can(string(rampway.DashRefund)) || q.Can(string(rampway.DashDevelopers))
}

// merchantParam adds the merchant an operator picked to a page's query (a merchant's user has
// one merchant: nothing to add).
func merchantParam(q *req, v url.Values) url.Values {
	if q.Merchants != nil && q.Merchant != nil {
		v.Set("merchant", q.Merchant.ID)
	}
	return v
}

// href is path with the query v (none when v is empty).
func href(path string, v url.Values) string {
	if len(v) == 0 {
		return path
	}
	return path + "?" + v.Encode()
}

// orderHref is an order's page.
func orderHref(q *req, id string) string {
	return href("/dashboard/orders/"+url.PathEscape(id), merchantParam(q, url.Values{}))
}

// orderFilter is the list's filters and search as the form sends them.
type orderFilter struct {
	Area, Status, From, To, Search string
}

// values are f's query parameters (those set).
func (f orderFilter) values() url.Values {
	v := url.Values{}
	for k, s := range map[string]string{"area": f.Area, "status": f.Status, "from": f.From, "to": f.To, "q": f.Search} {
		if s != "" {
			v.Set(k, s)
		}
	}
	return v
}

// orderQuery reads the filters of r into a query of q's merchant and mode: an error names
// what is wrong (an unknown area or status, a date that is not YYYY-MM-DD, a long search).
func orderQuery(r *http.Request, q *req) (rampway.OrderQuery, orderFilter, error) {
	p := r.URL.Query()
	f := orderFilter{Area: p.Get("area"), Status: p.Get("status"), From: p.Get("from"), To: p.Get("to"), Search: strings.TrimSpace(p.Get("q"))}
	oq := rampway.OrderQuery{MerchantID: q.MerchantID(), Livemode: q.Livemode, Area: rampway.Area(f.Area), Status: rampway.OrderStatus(f.Status), Search: f.Search}
	switch oq.Area {
	case "", rampway.AreaMint, rampway.AreaNFTRamp, rampway.AreaDeposit:
	default:
		return oq, f, fmt.Errorf("area must be mint, nft_ramp or deposit")
	}
	if oq.Status != "" && !oq.Status.Valid() {
		return oq, f, fmt.Errorf("status must be one of the order states")
	}
	day := func(name, s string) (time.Time, error) {
		if s == "" {
			return time.Time{}, nil
		}
		t, err := time.Parse(time.DateOnly, s)
		if err != nil {
			return t, fmt.Errorf("%s must be a date such as 2026-01-31", name)
		}
		return t, nil
	}
	var err error
	if oq.CreatedFrom, err = day("from", f.From); err != nil {
		return oq, f, err
	}
	if oq.CreatedTo, err = day("to", f.To); err != nil {
		return oq, f, err
	}
	if !oq.CreatedTo.IsZero() {
		oq.CreatedTo = oq.CreatedTo.AddDate(0, 0, 1) // the whole of the last day
	}
	if len(f.Search) > rampway.MaxOrderSearch {
		return oq, f, fmt.Errorf("a search is at most %d characters", rampway.MaxOrderSearch)
	}
	return oq, f, nil
}

// orderRow is a line of the list.
type orderRow struct {
	O      *rampway.Order
	Href   string
	Amount string
}

// ordersView is the list page's data.
type ordersView struct {
	Filter                        orderFilter
	Rows                          []orderRow
	NewerHref, OlderHref, CSVHref string
	// Merchant is the operator's merchant, kept by the filter form ("" for a merchant's user).
	Merchant string
	Areas    []rampway.Area
	Statuses []rampway.OrderStatus
	Keys     []string
}

// ordersList is GET /dashboard/orders: the merchant's orders of the mode shown, newest first,
// filtered and searched, 50 a page, with links to the newer and older pages (?after=, ?before=
// an order id).
func (h *Handler) ordersList(w http.ResponseWriter, r *http.Request, q *req) {
	oq, f, err := orderQuery(r, q)
	v := ordersView{Filter: f, Areas: []rampway.Area{rampway.AreaMint, rampway.AreaNFTRamp, rampway.AreaDeposit},
		Statuses: rampway.OrderStatuses, Keys: rampway.OrderSearchKeys}
	if q.Merchants != nil && q.Merchant != nil {
		v.Merchant = q.Merchant.ID
	}
	if err != nil {
		h.show(w, r, q, http.StatusBadRequest, "orders.html", view{Title: "Orders", Section: "orders", Error: err.Error(), Data: v})
		return
	}
	if q.Merchant == nil {
		h.show(w, r, q, http.StatusOK, "orders.html", view{Title: "Orders", Section: "orders", Data: v})
		return
	}
	before, after := r.URL.Query().Get("before"), r.URL.Query().Get("after")
	for _, c := range []string{before, after} {
		if c != "" && !rampway.ValidID(rampway.PrefixOrder, c) {
			h.badRequest(w, q, "before and after must be order ids")
			return
		}
	}
	if before != "" && after != "" {
		h.badRequest(w, q, "a page is before an order or after one, not both")
		return
	}
	oq.Before, oq.After, oq.Limit = before, after, ordersPerPage+1
	os, err := h.d.Orders.SearchOrders(r.Context(), oq)
	if err != nil {
		h.userError(w, r, q, err)
		return
	}
	newer, older := before != "", after != ""
	if len(os) > ordersPerPage {
		if after != "" { // one more newer than the page: the newest is left for the next
			os, newer = os[1:], true
		} else {
			os, older = os[:ordersPerPage], true
		}
	}
	base := merchantParam(q, f.values())
	page := func(k, id string) string {
		p := url.Values{}
		for key, vs := range base {
			p[key] = vs
		}
		p.Set(k, id)
		return href("/dashboard/orders", p)
	}
	if len(os) > 0 {
		if newer {
			v.NewerHref = page("after", os[0].ID)
		}
		if older {
			v.OlderHref = page("before", os[len(os)-1].ID)
		}
	}
	v.CSVHref = href("/dashboard/orders.csv", base)
	for _, o := range os {
		v.Rows = append(v.Rows, orderRow{O: o, Href: orderHref(q, o.ID), Amount: orderAmount(o)})
	}
	h.show(w, r, q, http.StatusOK, "orders.html", view{Title: "Orders", Section: "orders", Data: v})
}

// orderAmount is what the order asks, with its currency: the asset (area A) or the fiat
// currency (areas B and C).
func orderAmount(o *rampway.Order) string {
	if o.Area == rampway.AreaMint {
		if o.CryptoAmount == nil {
			return ""
		}
		return rampway.FormatUnits(o.CryptoAmount, o.Asset.Decimals) + " " + o.Asset.Symbol
	}
	if o.FiatAmount == nil || o.FiatSymbol == "" {
		return ""
	}
	return rampway.FormatFixed(o.FiatAmount, o.FiatDecimals) + " " + o.FiatSymbol
}

// csvHeader are the export's columns.
var csvHeader = []string{"created_at", "order_id", "area", "status", "livemode", "amount", "currency", "merchant_txn_id", "merchant_user_id",
	"network", "deposit_address", "execution_tx_hash", "failure_reason"}

// csvRow is an order's line of the export.
func csvRow(o *rampway.Order) []string {
	amount, currency := "", ""
	if a := orderAmount(o); a != "" {
		amount, currency, _ = strings.Cut(a, " ")
	}
	dep := ""
	if o.DepositAddress != ([20]byte{}) {
		dep = o.DepositAddress.Hex()
	}
	row := []string{o.CreatedAt.UTC().Format(time.RFC3339Nano), o.ID, string(o.Area), string(o.Status), fmt.Sprint(o.Livemode), amount, currency,
		o.MerchantTxnID, o.MerchantUserID, o.Network, dep, o.ExecutionTxHash, o.FailureReason}
	for i, c := range row {
		row[i] = csvCell(c)
	}
	return row
}

// csvCell defuses a cell a spreadsheet would run as a formula (CSV injection): one that starts
// with = + - @, a tab or a carriage return is prefixed with a quote.
func csvCell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// ordersCSV is GET /dashboard/orders.csv: every order the list's filters and search select,
// newest first, as CSV, read and written a page at a time (never the whole set in memory).
func (h *Handler) ordersCSV(w http.ResponseWriter, r *http.Request, q *req) {
	oq, _, err := orderQuery(r, q)
	if err != nil {
		h.badRequest(w, q, err.Error())
		return
	}
	if q.Merchant == nil {
		h.notFound(w, q)
		return
	}
	oq.Limit = csvPage
	os, err := h.d.Orders.SearchOrders(r.Context(), oq)
	if err != nil {
		h.userError(w, r, q, err)
		return
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="orders-%s-%s.csv"`, q.Merchant.ID, q.Mode()))
	cw := csv.NewWriter(w)
	_ = cw.Write(csvHeader)
	flusher, _ := w.(http.Flusher)
	for {
		for _, o := range os {
			_ = cw.Write(csvRow(o))
		}
		cw.Flush()
		if err := cw.Error(); err != nil {
			return // the client went away
		}
		if flusher != nil {
			flusher.Flush()
		}
		if len(os) < csvPage {
			return
		}
		oq.Before = os[len(os)-1].ID
		if os, err = h.d.Orders.SearchOrders(r.Context(), oq); err != nil {
			// The answer has begun: the file ends short; the log says why.
			h.log.Error("dashboard orders export", "merchant", q.MerchantID(), "err", err)
			return
		}
	}
}

// txLink is a transaction's hash with its explorer page ("" for none).
type txLink struct {
	Hash, URL string
}

// transferView is a payment seen on chain.
type transferView struct {
	T      *rampway.InboundTransfer
	Tx     txLink
	Amount string
}

// paymentView is a payment through a provider; Paid marks the one that paid the order.
type paymentView struct {
	P      *rampway.FiatPayment
	Amount string
	Paid   bool
}

// refundView is a refund of the order, its amount in the order's refund currency.
type refundView struct {
	R      *rampway.Refund
	Amount string
	// Origin is "merchant" (asked by the merchant: the API or the dashboard) or "automatic"
	// (owed by the service on its own: an overpayment, a late payment, a failed order).
	Origin string
	Tx     txLink
}

// deliveryView is a webhook delivery with its attempts and its resend form's action.
type deliveryView struct {
	D        *rampway.Delivery
	Attempts []*rampway.DeliveryAttempt
	Resend   string
}

// refundForm is the refund form's fields, shown again after an error.
type refundForm struct {
	Amount, Reason, Address string
}

// orderView is an order's page's data.
type orderView struct {
	O      *rampway.Order
	Amount string
	// Deposit is the deposit address (area A), "" for none.
	Deposit   string
	Events    []*rampway.OrderEvent
	Transfers []transferView
	Payments  []paymentView
	Execution *rampway.Execution
	CallTx    txLink
	Txs       []txLink
	// TxKinds are the kinds of Txs, by index.
	TxKinds    []string
	Refunds    []refundView
	Currency   string
	Paid       string
	Refunded   string
	Refundable string
	// CanRefund shows the refund form: the role may, and something is left to refund.
	CanRefund bool
	// AskAddress shows the refund form's address (area A: the payer's own address by default).
	AskAddress   bool
	RefundAction string
	Form         refundForm
	Deliveries   []deliveryView
	CanResend    bool
	// Merchant is the operator's merchant, sent back by the forms ("" for a merchant's user).
	Merchant string
}

// orderPage is GET /dashboard/orders/{id}.
func (h *Handler) orderPage(w http.ResponseWriter, r *http.Request, q *req) {
	o, err := h.d.Orders.Order(r.Context(), q.Scope(), "", r.PathValue("id"))
	if err != nil {
		h.userError(w, r, q, err)
		return
	}
	notice := map[string]string{"refund": "Refund created.", "resend": "The event is queued to be sent again."}[r.URL.Query().Get("done")]
	h.showOrder(w, r, q, o, http.StatusOK, notice, "", refundForm{})
}

// showOrder renders order o's page, with a notice or an error (and the refund form as sent).
func (h *Handler) showOrder(w http.ResponseWriter, r *http.Request, q *req, o *rampway.Order, status int, notice, msg string, form refundForm) {
	v, err := h.orderView(r.Context(), q, o)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	v.Form = form
	h.show(w, r, q, status, "orders_order.html", view{Title: "Order " + o.ID, Section: "orders", Notice: notice, Error: msg, Data: v})
}

// orderView reads what order o's page shows.
func (h *Handler) orderView(ctx context.Context, q *req, o *rampway.Order) (*orderView, error) {
	d := h.d.Orders
	v := &orderView{O: o, Amount: orderAmount(o), CanResend: canResend(q), AskAddress: o.Area == rampway.AreaMint,
		RefundAction: href("/dashboard/orders/"+url.PathEscape(o.ID)+"/refunds", nil)}
	if q.Merchants != nil && q.Merchant != nil {
		v.Merchant = q.Merchant.ID
	}
	if o.DepositAddress != ([20]byte{}) {
		v.Deposit = o.DepositAddress.Hex()
	}
	var err error
	if v.Events, err = d.OrderEvents(ctx, o.ID); err != nil {
		return nil, err
	}
	ts, err := d.Transfers(ctx, o)
	if err != nil {
		return nil, err
	}
	for _, t := range ts {
		v.Transfers = append(v.Transfers, transferView{T: t, Tx: h.tx(t.Network, t.TxHash.Hex()),
			Amount: rampway.FormatUnits(t.Amount, o.Asset.Decimals) + " " + o.Asset.Symbol})
	}
	ps, err := d.FiatPayments(ctx, o)
	if err != nil {
		return nil, err
	}
	for _, p := range ps {
		v.Payments = append(v.Payments, paymentView{P: p, Amount: rampway.FormatFixed(p.Amount, p.Decimals) + " " + p.Currency, Paid: p.ID == o.FiatPaymentID})
	}
	exec, txs, err := d.Execution(ctx, o.ID)
	switch {
	case rampway.ErrorCode(err) == rampway.ENOTFOUND:
	case err != nil:
		return nil, err
	default:
		v.Execution, v.CallTx = exec, h.tx(exec.Network, exec.TxHash.Hex())
		for _, t := range txs {
			v.Txs = append(v.Txs, h.tx(t.Network, t.Hash.Hex()))
			v.TxKinds = append(v.TxKinds, string(t.Kind)+" ("+string(t.Status)+")")
		}
	}
	rs, err := d.Refunds(ctx, o)
	if err != nil {
		return nil, err
	}
	for _, rf := range rs {
		rv := refundView{R: rf, Amount: o.FormatRefundAmount(rf.Amount), Origin: "automatic"}
		if rf.FromMerchant() {
			rv.Origin = "merchant"
		}
		if rf.TxHash != ([32]byte{}) {
			rv.Tx = h.tx(rf.Network, rf.TxHash.Hex())
		}
		v.Refunds = append(v.Refunds, rv)
	}
	t := rampway.MerchantRefundTotals(o, rs)
	v.Currency, _ = o.RefundCurrency()
	v.Paid, v.Refunded, v.Refundable = o.FormatRefundAmount(t.Paid), o.FormatRefundAmount(t.Refunded), o.FormatRefundAmount(t.Left)
	v.CanRefund = q.Can(string(rampway.DashRefund)) && t.Left.Sign() > 0 && o.Status == rampway.StatusSuccess
	ds, err := d.Deliveries(ctx, q.Scope(), "", o.ID)
	if err != nil {
		return nil, err
	}
	for _, dl := range ds {
		v.Deliveries = append(v.Deliveries, deliveryView{D: dl.Delivery, Attempts: dl.Attempts,
			Resend: "/dashboard/orders/" + url.PathEscape(o.ID) + "/webhooks/" + url.PathEscape(dl.Delivery.EventID) + "/resend"})
	}
	return v, nil
}

// tx is a transaction's hash and explorer link.
func (h *Handler) tx(network, hash string) txLink {
	return txLink{Hash: hash, URL: h.d.Orders.TxURL(network, hash)}
}

// orderRefund is POST /dashboard/orders/{id}/refunds: the merchant refund of the API
// (checkout.Refunds.Create), for a role that may refund (DashRefund, checked by handle). The
// amount is required here (the form has no "all that is left" by omission: the page shows
// what is left); the reason is optional, the address for area A only. A merchant's user asks
// as the merchant, an operator as an operator (the refund's address source).
func (h *Handler) orderRefund(w http.ResponseWriter, r *http.Request, q *req) {
	o, err := h.d.Orders.Order(r.Context(), q.Scope(), "", r.PathValue("id"))
	if err != nil {
		h.userError(w, r, q, err)
		return
	}
	form := refundForm{Amount: strings.TrimSpace(r.PostForm.Get("amount")), Reason: r.PostForm.Get("reason"), Address: strings.TrimSpace(r.PostForm.Get("address"))}
	source := rampway.RefundToMerchant
	if q.User.MerchantID == "" {
		source = rampway.RefundToAdmin
	}
	var rf *rampway.Refund
	if form.Amount == "" {
		symbol, _ := o.RefundCurrency()
		err = rampway.FieldErrorf("amount", "amount is required: a decimal amount of %s", symbol)
	} else {
		rf, err = h.d.Orders.CreateRefund(r.Context(), o, checkout.MerchantRefundRequest{Amount: form.Amount, Reason: form.Reason, Address: form.Address, Source: source})
	}
	if err != nil {
		switch rampway.ErrorCode(err) {
		case rampway.EINVALID:
			h.showOrder(w, r, q, o, http.StatusBadRequest, "", rampway.ErrorMessage(err), form)
		case rampway.ECONFLICT:
			h.showOrder(w, r, q, o, http.StatusConflict, "", rampway.ErrorMessage(err), form)
		default:
			h.userError(w, r, q, err)
		}
		return
	}
	symbol, _ := o.RefundCurrency()
	h.audit(r.Context(), q, "order.refund", o.ID, fmt.Sprintf("%s: %s %s (%s)", rf.ID, o.FormatRefundAmount(rf.Amount), symbol, rf.Status))
	http.Redirect(w, r, afterPost(q, o.ID, "refund"), http.StatusSeeOther)
}

// afterPost is where a form of order id's page goes once done: the page, with the notice of
// what was done.
func afterPost(q *req, id, done string) string {
	return href("/dashboard/orders/"+url.PathEscape(id), merchantParam(q, url.Values{"done": {done}}))
}

// orderResend is POST /dashboard/orders/{id}/webhooks/{event_id}/resend: the event's
// delivery is queued again, due now (checkout.Records.Resend), for a role canResend allows.
func (h *Handler) orderResend(w http.ResponseWriter, r *http.Request, q *req) {
	if !canResend(q) {
		h.render(w, http.StatusForbidden, "error.html", page{Title: "Forbidden", User: q.User, CSRFToken: q.Session.CSRFToken,
			Error: fmt.Sprintf("A %s may not resend webhooks.", q.User.Role)})
		return
	}
	id, event := r.PathValue("id"), r.PathValue("event_id")
	if _, err := h.d.Orders.Resend(r.Context(), q.Scope(), "", id, event); err != nil {
		h.userError(w, r, q, err)
		return
	}
	h.audit(r.Context(), q, "webhook.resend", id, event)
	http.Redirect(w, r, afterPost(q, id, "resend"), http.StatusSeeOther)
}

// areaName names an order's area for people: its letter and name ("Mint (crypto)").
func areaName(a rampway.Area) string {
	switch a {
	case rampway.AreaMint:
		return "Mint (crypto)"
	case rampway.AreaNFTRamp:
		return "NFT checkout (fiat)"
	case rampway.AreaDeposit:
		return "On-ramp to a deposit"
	}
	return string(a)
}
