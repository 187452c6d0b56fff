package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
)

func TestIdempotencyKey(t *testing.T) {
	e := newMintEnv(t)
	send := func(key string, body map[string]any) resp {
		data, _ := json.Marshal(body)
		return e.do(http.MethodPost, mintOrderPath, string(data), map[string]string{"X-API-KEY": e.key, "Idempotency-Key": key, "Content-Type": "application/json"})
	}
	body := e.body(nil)
	first := send("order-1", body)
	o1 := decode[MintOrderView](t, first, 201)
	// The same key and body: the first answer again, byte for byte; no second order.
	again := send("order-1", body)
	if again.status != 201 || !bytes.Equal(again.body, first.body) || again.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay %d %s (replayed header %q)", again.status, again.body, again.header.Get("Idempotent-Replayed"))
	}
	page := decode[ListView[OrderView]](t, e.merchantAPI(http.MethodGet, "/mint/merchant/hosted/nftCheckout/orders", nil), 200)
	if len(page.Data) != 1 || page.Data[0].OrderID != o1.OrderID {
		t.Fatalf("%d orders after a replay, want 1", len(page.Data))
	}
	// The same key with another body: 422.
	other := e.body(func(b map[string]any) { b["merchant_txn_id"] = "txn-8" })
	wantEnvelope(t, send("order-1", other), 422, 422, mintOrderPath, "was already used with a different request")
	// Another key: a new order.
	if o2 := decode[MintOrderView](t, send("order-2", body), 201); o2.OrderID == o1.OrderID {
		t.Fatal("a new key replayed the old order")
	}
	// A refused request leaves no result (Stripe: validation failures are not saved): the same
	// request is checked again, and the corrected one goes through under the same key.
	bad := e.body(func(b map[string]any) { delete(b, "merchant_user_id") })
	wantEnvelope(t, send("order-3", bad), 400, 400, mintOrderPath, "merchant_user_id is required")
	if r := send("order-3", bad); r.status != 400 || r.header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("a refused request was replayed: %d %q", r.status, r.header.Get("Idempotent-Replayed"))
	}
	fixed := decode[MintOrderView](t, send("order-3", body), 201)
	if r := send("order-3", body); r.status != 201 || r.header.Get("Idempotent-Replayed") != "true" || !bytes.Contains(r.body, []byte(fixed.OrderID)) {
		t.Fatalf("the corrected request was not remembered: %d %s", r.status, r.body)
	}
	// Keys are per merchant and checked for shape.
	wantEnvelope(t, send("has space", body), 400, 400, mintOrderPath, "Idempotency-Key must be")
	// Quotes take keys too.
	data, _ := json.Marshal(body)
	q1 := e.do(http.MethodPost, quotePath, string(data), map[string]string{"X-API-KEY": e.key, "Idempotency-Key": "quote-1"})
	q2 := e.do(http.MethodPost, quotePath, string(data), map[string]string{"X-API-KEY": e.key, "Idempotency-Key": "quote-1"})
	if q1.status != 200 || !bytes.Equal(q1.body, q2.body) {
		t.Fatalf("quote replay: %d %s / %s", q1.status, q1.body, q2.body)
	}
}
