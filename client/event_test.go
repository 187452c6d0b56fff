package client_test

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/rampway/rampway/client"
)

func TestEventOrder(t *testing.T) {
	tests := []struct {
		name    string
		context string
		want    *client.OrderContext
		wantErr error
	}{
		{
			name: "all fields",
			context: `{"order_id":"ord_1","merchant_id":"mch_1","merchant_txn_id":"txn-42","merchant_user_id":"user-7","livemode":true,
				"status":"DEPOSIT_SUCCESS","crypto_symbol":"USDC","crypto_network":"ethereum",
				"crypto_contract_address":"0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48",
				"crypto_amount":"12.500000","crypto_amount_received":"12.500001",
				"deposit_address":"0x1111111111111111111111111111111111111111",
				"deposit_tx_hashes":["0xaa","0xbb"],"execution_tx_hash":"0xcc","failure_reason":"reverted",
				"refunds":[{"amount":"0.000001","reason":"overpaid","status":"pending","to_address":"0x2222222222222222222222222222222222222222","created_at":"2026-11-21T16:35:00Z"}],
				"created_at":"2026-11-21T16:30:00Z","updated_at":"2026-11-21T16:40:00.123Z","later_field":1}`,
			want: &client.OrderContext{OrderID: "ord_1", MerchantID: "mch_1", MerchantTxnID: "txn-42", MerchantUserID: "user-7", Livemode: true,
				Status: client.StatusDepositSuccess, CryptoSymbol: "USDC", CryptoNetwork: "ethereum",
				CryptoContractAddress: "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48",
				CryptoAmount:          "12.500000", CryptoAmountReceived: "12.500001",
				DepositAddress:  "0x1111111111111111111111111111111111111111",
				DepositTxHashes: []string{"0xaa", "0xbb"}, ExecutionTxHash: "0xcc", FailureReason: "reverted",
				Refunds: []client.Refund{{Amount: "0.000001", Reason: "overpaid", Status: "pending",
					ToAddress: "0x2222222222222222222222222222222222222222", CreatedAt: time.Date(2026, 11, 21, 16, 35, 0, 0, time.UTC)}},
				CreatedAt: time.Date(2026, 11, 21, 16, 30, 0, 0, time.UTC),
				UpdatedAt: time.Date(2026, 11, 21, 16, 40, 0, 123e6, time.UTC)},
		},
		{
			name: "nulls",
			context: `{"order_id":"ord_1","status":"CREATED","crypto_contract_address":null,"deposit_tx_hashes":[],
				"execution_tx_hash":null,"failure_reason":null}`,
			want: &client.OrderContext{OrderID: "ord_1", Status: client.StatusCreated, DepositTxHashes: []string{}},
		},
		{name: "amount as a JSON number", context: `{"crypto_amount":12.5}`, wantErr: client.ErrBadBody},
		{name: "no context", context: ``, wantErr: client.ErrBadBody},
		{name: "null context", context: `null`, wantErr: client.ErrBadBody},
		{name: "context not an object", context: `"x"`, wantErr: client.ErrBadBody},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := &client.Event{ID: "evt_1", Name: client.EventOrderDepositSuccess, Context: []byte(tt.context)}
			got, err := ev.Order()
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || got != nil {
					t.Fatalf("Order = %+v, %v; want %v", got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Order =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

func TestEventDecodeContext(t *testing.T) {
	ev := &client.Event{ID: "evt_1", Name: client.EventUserWidgetOpen, Context: []byte(`{"order_id":"ord_1","x":2}`)}
	var m map[string]any
	if err := ev.DecodeContext(&m); err != nil || m["order_id"] != "ord_1" {
		t.Fatalf("DecodeContext = %v, %v", m, err)
	}
}

// A merchant refund's event: the refund it is about in refund (also in refunds), and the
// order's refunded_amount.
func TestEventOrderRefund(t *testing.T) {
	const refund = `{"refund_id":"rfd_2","origin":"merchant","amount":"10.00","currency":"EUR","fee":"0.00","network_fee":"",` +
		`"amount_sent":"10.00","reason":"requested by the merchant","status":"done","status_reason":"","destination":"sepa_bank_transfer",` +
		`"to_address":"","tx_hash":"","provider_reference":"re_1","created_at":"2026-11-25T06:31:00.000Z","updated_at":"2026-11-25T06:32:00.000Z"}`
	ev := &client.Event{ID: "evt_1", Name: client.EventOrderRefundSucceeded,
		Context: []byte(`{"order_id":"ord_1","status":"SUCCESS","order_fiat_symbol":"EUR","order_fiat_amount":"25.00","refunded_amount":"10.00",` +
			`"refunds":[` + refund + `],"refund":` + refund + `}`)}
	o, err := ev.Order()
	if err != nil {
		t.Fatal(err)
	}
	want := client.Refund{RefundID: "rfd_2", Origin: "merchant", Amount: "10.00", Currency: "EUR", Fee: "0.00", AmountSent: "10.00",
		Reason: "requested by the merchant", Status: "done", Destination: "sepa_bank_transfer", ProviderReference: "re_1",
		CreatedAt: time.Date(2026, 11, 25, 6, 31, 0, 0, time.UTC), UpdatedAt: time.Date(2026, 11, 25, 6, 32, 0, 0, time.UTC)}
	if o.Refund == nil || !reflect.DeepEqual(*o.Refund, want) || len(o.Refunds) != 1 || !reflect.DeepEqual(o.Refunds[0], want) ||
		o.RefundedAmount != "10.00" || o.Status != client.StatusSuccess {
		t.Fatalf("context %+v", o)
	}
	// Another event's context has no refund.
	ev = &client.Event{ID: "evt_2", Name: client.EventOrderSuccess, Context: []byte(`{"order_id":"ord_1","refunds":[],"refunded_amount":"0"}`)}
	if o, err = ev.Order(); err != nil || o.Refund != nil {
		t.Fatalf("context %+v, %v", o, err)
	}
	if client.EventOrderRefundSucceeded != "order.refund.succeeded" || client.EventOrderRefundFailed != "order.refund.failed" ||
		client.EventOrderRefundPending != "order.refund.pending" {
		t.Fatal("refund event names")
	}
}
