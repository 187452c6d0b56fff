package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/rampway/rampway/client"
)

func ExampleVerifyWebhook() {
	// In a receiver: secret from the configuration, body the raw request body (read it
	// whole, before any JSON decoding), header the X-Service-Webhook-Signature header.
	secret := "whsec_k3xq7vz2mfp4hd6wyt5rj2nbce4qga7s"
	body := []byte(`{"eventId":"evt_01kaksy8m3qx9v7c2d4f6h8j0k","timestamp":"2026-11-21T16:40:00.123Z",` +
		`"eventName":"order.deposit.success","context":{"order_id":"ord_01kaks2b5m7n9p1q3r5s7t9v0w",` +
		`"merchant_txn_id":"order-1042","status":"DEPOSIT_SUCCESS","crypto_symbol":"ETH",` +
		`"crypto_amount":"0.05","crypto_amount_received":"0.05"}}`)
	now := time.Date(2026, 11, 21, 16, 40, 2, 0, time.UTC)
	header := client.Sign(secret, body, now.Add(-time.Second)) // what rampway sent

	ev, err := client.VerifyWebhook(secret, body, header, now)
	if err != nil {
		// errors.Is(err, client.ErrBadSignature), client.ErrTimestamp, ...: answer 400.
		log.Fatal(err)
	}
	fmt.Println(ev.Name, ev.ID)
	if strings.HasPrefix(ev.Name, "order.") {
		order, err := ev.Order()
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(order.MerchantTxnID, order.Status, order.CryptoAmountReceived, order.CryptoSymbol)
	}

	// A body changed in transit, or re-encoded before verifying, does not verify.
	_, err = client.VerifyWebhook(secret, []byte(strings.Replace(string(body), "0.05", "5.00", 1)), header, now)
	fmt.Println(errors.Is(err, client.ErrBadSignature))
	// Nor does a delivery replayed later than the tolerance.
	_, err = client.VerifyWebhook(secret, body, header, now.Add(time.Hour))
	fmt.Println(errors.Is(err, client.ErrTimestamp))
	// Output:
	// order.deposit.success evt_01kaksy8m3qx9v7c2d4f6h8j0k
	// order-1042 DEPOSIT_SUCCESS 0.05 ETH
	// true
	// true
}

func ExampleWebhookHandler() {
	v := &client.Verifier{
		// The secret rampway gave; during a rotation of your own, list the new and the old.
		Secrets: []string{"whsec_k3xq7vz2mfp4hd6wyt5rj2nbce4qga7s"},
		// Acknowledge retries of events already processed without processing them again.
		Seen: client.NewMemoryDeduper(24 * time.Hour),
	}
	h := client.WebhookHandler(v, func(ctx context.Context, ev *client.Event) error {
		switch ev.Name {
		case client.EventOrderSuccess:
			order, err := ev.Order()
			if err != nil {
				return err
			}
			// Fulfil order.MerchantTxnID. Returning an error answers 500: rampway retries.
			fmt.Println("fulfil", order.MerchantTxnID)
		default:
			// Acknowledge events you do not act on, including kinds added later.
		}
		return nil
	})
	mux := http.NewServeMux()
	mux.Handle("POST /webhooks/rampway", h)
	// http.ListenAndServe(":8443", mux), behind TLS.

	// What rampway does, twice (a retry): the second is acknowledged without fulfilling again.
	body := `{"eventId":"evt_2","timestamp":"2026-11-21T16:45:00Z","eventName":"order.success",` +
		`"context":{"order_id":"ord_1","merchant_txn_id":"order-1042","status":"SUCCESS"}}`
	for range 2 {
		req := httptest.NewRequest(http.MethodPost, "/webhooks/rampway", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(client.SignatureHeader, client.Sign("whsec_k3xq7vz2mfp4hd6wyt5rj2nbce4qga7s", []byte(body), time.Now()))
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, req)
		fmt.Println(rec.Code)
	}
	// Output:
	// fulfil order-1042
	// 200
	// 200
}

func ExampleSign() {
	// Sign a body as rampway does, to test a receiver.
	body := []byte(`{"eventId":"evt_1","eventName":"order.created","context":{}}`)
	fmt.Println(client.Sign("whsec_test", body, time.Unix(1795279201, 0)))
	// Output:
	// t=1795279201,v1=9b0dd36e084b26ba961d0a920a85dee954d533f0300751050ab5539601731e27
}

func ExampleVerifier() {
	body := []byte(`{"eventId":"evt_1","eventName":"order.created","context":{}}`)
	t := time.Unix(1795279201, 0)
	v := &client.Verifier{
		Secrets:   []string{"whsec_new", "whsec_old"}, // accept either while rolling out a new secret
		Tolerance: 5 * time.Minute,
		Seen:      client.NewMemoryDeduper(time.Hour),
	}
	_, err := v.Verify(body, client.Sign("whsec_old", body, t), t)
	fmt.Println(err)
	// The same event again, in a retry with a fresh t.
	ev, err := v.Verify(body, client.Sign("whsec_new", body, t.Add(time.Minute)), t.Add(time.Minute))
	fmt.Println(ev.ID, errors.Is(err, client.ErrDuplicate))
	// Output:
	// <nil>
	// evt_1 true
}
