package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
)

// Text no person types (issue 29, 7) is refused with a 400 naming the field on every order
// endpoint, before it reaches a database (PostgreSQL answered a NUL with SQLSTATE 22021, a 500)
// or a webhook: a NUL, a line break, an escape, and a body that is not UTF-8 (which encoding/json
// would have stored as U+FFFD).
func TestOrderTextRefused(t *testing.T) {
	t.Parallel()
	e := newModeEnv(t, false, false)
	card := func(b map[string]any) { b["order_fiat_symbol"], b["fiat_payment_method"] = "EUR", "credit_debit_card" }
	bodies := map[string]func(edit func(map[string]any)) map[string]any{
		mintOrderPath: e.body,
		fiatOrderPath: func(edit func(map[string]any)) map[string]any {
			return e.rampBody(func(b map[string]any) { card(b); edit(b) })
		},
		depositOrderPath: e.depositBody,
	}
	for path, body := range bodies {
		for _, c := range []struct{ field, value, msg string }{
			{"merchant_user_id", "user\x00-7", "merchant_user_id must not contain control characters"},
			{"merchant_txn_id", "txn\x00", "merchant_txn_id must not contain control characters"},
			{"merchant_txn_id", "txn\n7", "merchant_txn_id must not contain control characters"},
			{"user_first_name", "Ada\x1b[31m", "user_first_name must not contain control characters"},
		} {
			r := e.merchantAPI(http.MethodPost, path, body(func(b map[string]any) { b[c.field] = c.value }))
			if b := wantEnvelope(t, r, 400, 400, path, c.msg); b.Message == "" {
				t.Fatal("no message")
			}
		}
		// Invalid UTF-8 in a string: the raw body, as a client that does not encode would send it.
		raw, _ := json.Marshal(body(func(b map[string]any) { b["merchant_txn_id"] = "TXN-MARK" }))
		raw = bytes.Replace(raw, []byte("TXN-MARK"), []byte("txn-\xff\xfe"), 1)
		r := e.do(http.MethodPost, path, string(raw), map[string]string{"X-API-KEY": e.key})
		wantEnvelope(t, r, 400, 400, path, "Request body must be UTF-8 encoded JSON")
		// Nothing was stored.
		list := map[string]string{mintOrderPath: "/mint" + routeOrders, fiatOrderPath: fiatOrdersPath, depositOrderPath: depositOrdersPath}[path]
		if l := decode[ListView[OrderView]](t, e.merchantAPI(http.MethodGet, list, nil), 200); len(l.Data) != 0 {
			t.Fatalf("%s: %d orders stored", path, len(l.Data))
		}
	}
}
