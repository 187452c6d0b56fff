package httpapi

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain"
	"github.com/rampway/rampway/checkout"
	"github.com/rampway/rampway/merchant"
	"github.com/rampway/rampway/storetest"
)

// newRefunds is the refund use cases on e's store and dev chain, with e's hot wallet, as the
// server wires them.
func newRefunds(t *testing.T, e *env) *checkout.Refunds {
	t.Helper()
	nets, err := chain.Dial(t.Context(), []rampway.Network{e.chain.Network("devnet")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nets.Close)
	return checkout.NewRefunds(e.store, nets, e.hotWallet, nil)
}

// refundEnv is a mint env served with the refund routes.
type refundEnv struct {
	*mintEnv
}

func newRefundEnv(t *testing.T, refunds Refunds) *refundEnv {
	t.Helper()
	e := &refundEnv{newMintEnv(t)}
	if refunds == nil {
		refunds = newRefunds(t, e.env)
	}
	srv := httptest.NewServer(New(testConfig(), Deps{Merchants: e.svc, Functions: e.functions, Checkout: e.checkout, Idempotency: e.store,
		DB: e.ping, Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Metrics: prometheus.NewRegistry(), Refunds: refunds, Orders: e.store}))
	t.Cleanup(srv.Close)
	e.srv = srv
	return e
}

// failedOrder creates an area A order paid in full whose execution was refused: FAILED, with
// one refund of what was paid (to storetest.Payer); hold, when given, holds it in that status.
func (e *refundEnv) failedOrder(t *testing.T, hold rampway.RefundStatus) (*rampway.Order, *rampway.Refund) {
	t.Helper()
	o := decode[MintOrderView](t, e.merchantAPI(http.MethodPost, mintOrderPath, e.body(nil)), 201)
	stored := storetest.Drive(t, e.store, o.OrderID, rampway.StatusFailed)
	rs, err := e.store.Refunds(t.Context(), o.OrderID)
	if err != nil || len(rs) != 1 || rs[0].Status != rampway.RefundPending {
		t.Fatalf("refunds of the failed order: %+v %v", rs, err)
	}
	r := rs[0]
	if hold != "" {
		if r, err = e.store.HoldRefund(t.Context(), r.ID, hold, "the payer is a contract", time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	return stored, r
}

// refundAddressPath is the merchant route that gives a refund its address.
func refundAddressPath(orderID, refundID string) string {
	return mintOrderPath + "/" + orderID + "/refunds/" + refundID + "/address"
}

// An EOA that is none of the service's addresses.
const refundTo = "0x2222222222222222222222222222222222222222"

// TestMerchantRefundAddress: the merchant gives a refund of its order waiting for an address
// its address: 200 with the refund as the order lookup shows it; each refusal is the envelope.
func TestMerchantRefundAddress(t *testing.T) {
	t.Parallel()
	e := newRefundEnv(t, nil)
	// (The first order's deposit address is the test's hot wallet's: this one's is its own.)
	other, otherRefund := e.failedOrder(t, rampway.RefundAwaitingAddress)
	o, rf := e.failedOrder(t, rampway.RefundAwaitingAddress)
	path := refundAddressPath(o.ID, rf.ID)
	owed := rampway.FormatUnits(o.CryptoAmount, o.Asset.Decimals)

	// What is wrong with the request, whatever the refund: 400 naming the field, 413, 415.
	for _, tc := range []struct {
		name string
		body any
		msg  string
	}{
		{"malformed JSON", `{"address": `, "Malformed JSON"},
		{"not an object", `["0x"]`, "must be a JSON object"},
		{"empty body", "", "Request body is required"},
		{"wrong type", map[string]any{"address": 7}, "Field 'address' must be a string, not a number"},
		{"unknown field", map[string]any{"address": refundTo, "memo": "x"}, "Unknown field 'memo'"},
		{"merchant_id of the wrong type", map[string]any{"address": refundTo, "merchant_id": 5}, "Field 'merchant_id' must be a string"},
		{"missing address", map[string]any{}, "address is required"},
		{"null address", map[string]any{"address": nil}, "address is required"},
		{"empty address", map[string]any{"address": ""}, "address is required"},
		{"not an address", map[string]any{"address": "0x1234"}, "address"},
		{"zero address", map[string]any{"address": "0x0000000000000000000000000000000000000000"}, "address must not be the zero address"},
		{"hot wallet", map[string]any{"address": e.hotWallet.Hex()}, "hot wallet"},
		{"deposit address", map[string]any{"address": strings.ToLower(o.DepositAddress.Hex())}, "deposit address"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.merchantAPI(http.MethodPost, path, tc.body)
			if tc.body == "" {
				r = e.do(http.MethodPost, path, strings.NewReader(""), map[string]string{"X-API-KEY": e.key, "Content-Type": "application/json"})
			}
			wantEnvelope(t, r, 400, 400, path, tc.msg)
		})
	}
	huge := `{"address":"` + strings.Repeat("a", 2<<20) + `"}`
	wantEnvelope(t, e.merchantAPI(http.MethodPost, path, huge), 413, 413, path, "larger than")
	wantEnvelope(t, e.do(http.MethodPost, path, map[string]any{"address": refundTo}, map[string]string{"X-API-KEY": e.key, "Content-Type": "text/plain"}),
		415, 415, path, "Content-Type")

	// Unknown ids, another merchant's order, a refund of another order: 404.
	stranger, _ := e.svc.Create(t.Context(), merchant.CreateParams{Name: "Stranger"})
	_, strangerKey, _ := e.svc.IssueAPIKey(t.Context(), stranger.ID, false)
	for _, p := range []string{refundAddressPath("ord_00000000000000000000000000", rf.ID), refundAddressPath(o.ID, "rfd_00000000000000000000000000"),
		refundAddressPath(o.ID, "nope"), refundAddressPath(o.ID, otherRefund.ID), refundAddressPath(other.ID, rf.ID)} {
		wantEnvelope(t, e.merchantAPI(http.MethodPost, p, map[string]any{"address": refundTo}), 404, 404, p, "not found")
	}
	wantEnvelope(t, e.do(http.MethodPost, path, map[string]any{"address": refundTo}, map[string]string{"X-API-KEY": strangerKey}), 404, 404, path, "not found")
	wantEnvelope(t, e.merchantAPI(http.MethodPost, path+"?merchant_id="+stranger.ID, map[string]any{"address": refundTo}), 401, 401, path, "Unauthorized")
	wantEnvelope(t, e.merchantAPI(http.MethodPost, path, map[string]any{"address": refundTo, "merchant_id": stranger.ID}), 401, 401, path, "Unauthorized")
	wantEnvelope(t, e.do(http.MethodPost, path, map[string]any{"address": refundTo}, nil), 401, 401, path, "Unauthorized")

	// Given: 200, the refund as the lookup shows it, pending to the address.
	r := e.merchantAPI(http.MethodPost, path, map[string]any{"address": strings.ToLower(refundTo), "merchant_id": e.merchant.ID})
	var fields map[string]any
	_ = json.Unmarshal(r.body, &fields)
	got := decode[RefundView](t, r, 200)
	if len(fields) != 16 || got.RefundID != rf.ID || got.Status != rampway.RefundPending || got.ToAddress != refundTo || got.Amount != owed ||
		got.Reason != rf.Reason || got.NetworkFee != "" || got.AmountSent != "" || got.TxHash != "" {
		t.Fatalf("answer %s", r.body)
	}
	lookup := decode[OrderView](t, e.merchantAPI(http.MethodGet, mintOrderPath+"/"+o.ID, nil), 200)
	if len(lookup.Refunds) != 1 || lookup.Refunds[0] != got {
		t.Fatalf("lookup's refunds %+v, want %+v", lookup.Refunds, got)
	}
	stored, _ := e.store.Refund(t.Context(), rf.ID)
	if stored.ToSource != rampway.RefundToMerchant || stored.To.Hex() != refundTo {
		t.Fatalf("stored %+v", stored)
	}
	// It no longer waits for one: 409.
	done := e.merchantAPI(http.MethodPost, path, map[string]any{"address": refundTo})
	wantEnvelope(t, done, 409, 409, path, "does not wait for an address")
	if ra := done.header.Get("Retry-After"); ra != "" { // a retry would only repeat it
		t.Fatalf("a state conflict with Retry-After %q", ra)
	}
	// A pending refund never waited: 409 too.
	_, pending := e.failedOrder(t, "")
	p := refundAddressPath(pending.OrderID, pending.ID)
	wantEnvelope(t, e.merchantAPI(http.MethodPost, p, map[string]any{"address": refundTo}), 409, 409, p, "is pending")
}

// unavailableRefunds answers every refund use case 503, as a node that cannot be asked does.
type unavailableRefunds struct{}

func (unavailableRefunds) Create(context.Context, *rampway.Order, checkout.MerchantRefundRequest) (*rampway.Refund, error) {
	return nil, errNoChain
}
func (unavailableRefunds) Get(context.Context, string) (*rampway.Refund, error) {
	return nil, errNoChain
}
func (unavailableRefunds) List(context.Context, rampway.RefundFilter) ([]*rampway.Refund, error) {
	return nil, errNoChain
}
func (unavailableRefunds) SetAddress(context.Context, string, string, string, string) (*rampway.Refund, error) {
	return nil, errNoChain
}
func (unavailableRefunds) Approve(context.Context, string, string) (*rampway.Refund, error) {
	return nil, errNoChain
}
func (unavailableRefunds) Reject(context.Context, string, string, string) (*rampway.Refund, error) {
	return nil, errNoChain
}

// A use case's 503 passes through, with Retry-After.
func TestRefundRoutesUnavailable(t *testing.T) {
	t.Parallel()
	e := newRefundEnv(t, unavailableRefunds{})
	o, rf := e.failedOrder(t, rampway.RefundAwaitingAddress)
	path := refundAddressPath(o.ID, rf.ID)
	r := e.merchantAPI(http.MethodPost, path, map[string]any{"address": refundTo})
	wantEnvelope(t, r, 503, 503, path, "no chain")
	if r.header.Get("Retry-After") == "" {
		t.Fatal("503 without Retry-After")
	}
	for _, c := range []struct{ method, path string }{{"GET", "/refunds"}, {"GET", "/refunds/" + rf.ID}, {"POST", "/refunds/" + rf.ID + "/approve"},
		{"POST", "/refunds/" + rf.ID + "/address"}} {
		var body any
		if strings.HasSuffix(c.path, "/address") {
			body = map[string]any{"address": refundTo}
		}
		wantEnvelope(t, e.admin(c.method, c.path, body), 503, 503, "/admin"+c.path, "no chain")
	}
	// A server without the refund use cases: 503 too, never a panic.
	bare := newHTTPEnv(t)
	wantEnvelope(t, bare.admin("GET", "/refunds", nil), 503, 503, "/admin/refunds", "Refunds are not available")
}

// TestAdminRefunds: an operator lists refunds, looks one up, approves one above the automatic
// limit and gives one its address; each refusal is the envelope.
func TestAdminRefunds(t *testing.T) {
	t.Parallel()
	e := newRefundEnv(t, nil)
	o, waiting := e.failedOrder(t, rampway.RefundAwaitingAddress)
	_, big := e.failedOrder(t, rampway.RefundAwaitingApproval)
	_, pending := e.failedOrder(t, "")

	view := func(r resp, status int) RefundAdminView {
		t.Helper()
		var fields map[string]any
		_ = json.Unmarshal(r.body, &fields)
		v := decode[RefundAdminView](t, r, status)
		if len(fields) != 24 || !timestampRE.MatchString(v.CreatedAt) || !timestampRE.MatchString(v.UpdatedAt) {
			t.Fatalf("view %s: want exactly the 24 fields", r.body)
		}
		return v
	}
	ids := func(l ListView[RefundAdminView]) []string {
		var out []string
		for _, v := range l.Data {
			out = append(out, v.RefundID)
		}
		return out
	}

	// Lists, oldest first, by status and network.
	all := decode[ListView[RefundAdminView]](t, e.admin("GET", "/refunds", nil), 200)
	if want := []string{waiting.ID, big.ID, pending.ID}; !slices.Equal(ids(all), want) || all.HasMore {
		t.Fatalf("all refunds %v (has_more %v), want %v", ids(all), all.HasMore, want)
	}
	first := all.Data[0]
	if first.OrderID != waiting.OrderID || first.Network != "devnet" || first.Symbol != "ETH" || first.Amount != rampway.FormatUnits(o.CryptoAmount, 18) ||
		first.Status != rampway.RefundAwaitingAddress || first.StatusReason != "the payer is a contract" || first.ToAddress != storetest.Payer.Hex() ||
		first.ToSource != rampway.RefundToPayer || first.ApprovedBy != "" || first.ApprovedAt != nil || first.TxHash != "" || first.NetworkFee != "" {
		t.Fatalf("listed %+v", first)
	}
	for q, want := range map[string][]string{"?status=awaiting_approval": {big.ID}, "?status=pending&network=devnet": {pending.ID},
		"?network=mainnet": nil, "?status=done": nil, "?limit=2": {waiting.ID, big.ID}} {
		l := decode[ListView[RefundAdminView]](t, e.admin("GET", "/refunds"+q, nil), 200)
		if !slices.Equal(ids(l), want) || l.Data == nil || l.HasMore != (q == "?limit=2") {
			t.Errorf("%s: %v (has_more %v), want %v", q, ids(l), l.HasMore, want)
		}
	}
	wantEnvelope(t, e.admin("GET", "/refunds?status=lost", nil), 400, 400, "/admin/refunds", `status "lost" is not a refund status`)
	for _, q := range []string{"?limit=0", "?limit=x", "?limit=1001"} {
		wantEnvelope(t, e.admin("GET", "/refunds"+q, nil), 400, 400, "/admin/refunds", "limit must be an integer between 1 and 1000")
	}

	// One refund; unknown ids are 404.
	if v := view(e.admin("GET", "/refunds/"+big.ID, nil), 200); v.Status != rampway.RefundAwaitingApproval || v.RefundID != big.ID {
		t.Fatalf("get %+v", v)
	}
	for _, id := range []string{"rfd_00000000000000000000000000", "nope", strings.Repeat("x", 300)} {
		r := e.admin("GET", "/refunds/"+id, nil)
		if r.status != 404 {
			t.Fatalf("GET /refunds/%.20s: %d %s", id, r.status, r.body)
		}
	}
	wantEnvelope(t, e.do("GET", "/admin/refunds", nil, nil), 401, 401, "/admin/refunds", "Unauthorized")
	wantEnvelope(t, e.do("GET", "/admin/refunds", nil, map[string]string{"X-API-KEY": e.key}), 401, 401, "/admin/refunds", "Unauthorized")

	// Approval: the body is optional and checked; only a refund awaiting approval (or failed).
	approve := "/refunds/" + big.ID + "/approve"
	for _, tc := range []struct {
		body any
		msg  string
	}{
		{`{"approved_by":`, "Malformed JSON"},
		{map[string]any{"approved_by": 1}, "Field 'approved_by' must be a string"},
		{map[string]any{"by": "alice"}, "Unknown field 'by'"},
		{map[string]any{"approved_by": strings.Repeat("a", 101)}, "approved_by must be at most 100 characters"},
	} {
		wantEnvelope(t, e.admin("POST", approve, tc.body), 400, 400, "/admin"+approve, tc.msg)
	}
	wantEnvelope(t, e.admin("POST", "/refunds/"+pending.ID+"/approve", nil), 409, 409, "/admin/refunds/"+pending.ID+"/approve", "only a refund awaiting approval")
	wantEnvelope(t, e.admin("POST", "/refunds/rfd_00000000000000000000000000/approve", nil), 404, 404, "/admin/refunds/rfd_00000000000000000000000000/approve", "not found")
	v := view(e.admin("POST", approve, map[string]any{"approved_by": "alice"}), 200)
	if v.Status != rampway.RefundPending || v.ApprovedBy != "alice" || v.ApprovedAt == nil || !timestampRE.MatchString(*v.ApprovedAt) {
		t.Fatalf("approved %+v", v)
	}
	wantEnvelope(t, e.admin("POST", approve, nil), 409, 409, "/admin"+approve, "is pending")
	// Without a body, the approver is "admin".
	_, big2 := e.failedOrder(t, rampway.RefundAwaitingApproval)
	if v := view(e.admin("POST", "/refunds/"+big2.ID+"/approve", nil), 200); v.ApprovedBy != "admin" || v.Status != rampway.RefundPending {
		t.Fatalf("approved without a body %+v", v)
	}

	// An operator's address.
	address := "/refunds/" + waiting.ID + "/address"
	for _, tc := range []struct {
		body any
		msg  string
	}{
		{`{`, "Malformed JSON"},
		{map[string]any{"address": true}, "Field 'address' must be a string"},
		{map[string]any{"address": refundTo, "to": "x"}, "Unknown field 'to'"},
		{map[string]any{}, "address is required"},
		{map[string]any{"address": "0xZZ22222222222222222222222222222222222222"}, "address"},
	} {
		wantEnvelope(t, e.admin("POST", address, tc.body), 400, 400, "/admin"+address, tc.msg)
	}
	wantEnvelope(t, e.admin("POST", "/refunds/rfd_00000000000000000000000000/address", map[string]any{"address": refundTo}), 404, 404,
		"/admin/refunds/rfd_00000000000000000000000000/address", "not found")
	v = view(e.admin("POST", address, map[string]any{"address": refundTo}), 200)
	if v.Status != rampway.RefundPending || v.ToAddress != refundTo || v.ToSource != rampway.RefundToAdmin {
		t.Fatalf("address given %+v", v)
	}
	wantEnvelope(t, e.admin("POST", address, map[string]any{"address": refundTo}), 409, 409, "/admin"+address, "does not wait for an address")
}

// A merchant's refund route, field by field: every bad input is a 400 naming its field in the
// envelope and records nothing; an order that is not the key's, or not of the route's area, is
// 404; one that did not succeed 409; a retry with the same Idempotency-Key answers the first
// refund again and makes no second one.
func TestMerchantRefundRequests(t *testing.T) {
	t.Parallel()
	e := newRefundEnv(t, nil)
	o := decode[MintOrderView](t, e.merchantAPI(http.MethodPost, mintOrderPath, e.body(nil)), 201)
	storetest.Drive(t, e.store, o.OrderID, rampway.StatusSuccess)
	path := mintOrderPath + "/" + o.OrderID + "/refunds"
	for _, c := range []struct {
		body any
		msg  string
	}{
		{`{"amount": 1}`, "amount"},
		{`{"amount": null}`, "leave it out to refund all that is left"},
		{map[string]any{"amount": ""}, "amount must be a decimal string"},
		{map[string]any{"amount": "abc"}, "amount must be a positive decimal amount of ETH"},
		{map[string]any{"amount": "-1"}, "amount must be a positive decimal"},
		{map[string]any{"amount": "0"}, "amount must be a positive decimal"},
		{map[string]any{"amount": "0.0000000000000000001"}, "at most 18 decimals"},
		{map[string]any{"amount": "1000"}, "left to refund"},
		{map[string]any{"reason": 5}, "reason"},
		{map[string]any{"reason": strings.Repeat("x", rampway.MaxRefundReason+1)}, "reason"},
		{map[string]any{"address": "0x123"}, "address"},
		{map[string]any{"address": "0x0000000000000000000000000000000000000000"}, "zero address"},
		{map[string]any{"nope": 1}, "nope"},
		{`{"amount": "0.001"`, "JSON"},
		{`[]`, "object"},
	} {
		wantEnvelope(t, e.merchantAPI(http.MethodPost, path, c.body), 400, 400, path, c.msg)
	}
	if rs, _ := e.store.Refunds(t.Context(), o.OrderID); len(rs) != 0 {
		t.Fatalf("bad requests recorded %+v", rs)
	}
	wantEnvelope(t, e.merchantAPI(http.MethodPost, mintOrderPath+"/ord_06h1x3cagzczxpsx7r1t4ddb34/refunds", nil), 404, 404, mintOrderPath+"/ord_06h1x3cagzczxpsx7r1t4ddb34/refunds", "not found")
	wantEnvelope(t, e.merchantAPI(http.MethodPost, fiatOrderPath+"/"+o.OrderID+"/refunds", nil), 404, 404, fiatOrderPath+"/"+o.OrderID+"/refunds", "not found")
	wantEnvelope(t, e.merchantAPI(http.MethodGet, depositOrderPath+"/"+o.OrderID+"/refunds", nil), 404, 404, depositOrderPath+"/"+o.OrderID+"/refunds", "not found")

	// A part, then a retry of it: one refund.
	key := map[string]string{"X-API-KEY": e.key, "Idempotency-Key": "refund-" + o.OrderID}
	first := e.do(http.MethodPost, path, map[string]any{"amount": "0.001", "reason": "returned"}, key)
	again := e.do(http.MethodPost, path, map[string]any{"amount": "0.001", "reason": "returned"}, key)
	r := decode[RefundView](t, first, 200)
	if r.Origin != rampway.RefundOriginMerchant || r.Amount != "0.001" || r.Currency != "ETH" || r.Status != rampway.RefundPending ||
		r.Reason != "returned" || r.ToAddress != storetest.Payer.Hex() || again.status != 200 || string(again.body) != string(first.body) {
		t.Fatalf("refund %s, again %d %s", first.body, again.status, again.body)
	}
	list := decode[RefundListView](t, e.merchantAPI(http.MethodGet, path, nil), 200)
	if len(list.Data) != 1 || list.Data[0].RefundID != r.RefundID || list.Currency != "ETH" || list.AmountRefunded != "0" {
		t.Fatalf("list %+v", list)
	}
	paid, _ := rampway.ParseUnits(list.AmountPaid, 18)
	left, _ := rampway.ParseUnits(list.AmountRefundable, 18)
	if new(big.Int).Sub(paid, left).Cmp(big.NewInt(1e15)) != 0 {
		t.Fatalf("list %+v: paid less refundable is not the refund", list)
	}
	// All that is left (no body), then nothing is: 409.
	if rest := decode[RefundView](t, e.merchantAPI(http.MethodPost, path, nil), 200); rest.Amount != list.AmountRefundable {
		t.Fatalf("the rest %+v, want %s", rest, list.AmountRefundable)
	}
	wantEnvelope(t, e.merchantAPI(http.MethodPost, path, nil), 409, 409, path, "nothing left to refund")
	// A failed order: 409 (its payment is refunded on its own).
	failed, _ := e.failedOrder(t, "")
	fpath := mintOrderPath + "/" + failed.ID + "/refunds"
	wantEnvelope(t, e.merchantAPI(http.MethodPost, fpath, nil), 409, 409, fpath, "FAILED")
}
