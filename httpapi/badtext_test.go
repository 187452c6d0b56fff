package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/checkout"
	"github.com/rampway/rampway/mock"
)

// Text no person types (issue 29, 7): a body that is not UTF-8 (which encoding/json would have
// stored as U+FFFD) is refused with a 400 on every order endpoint, before any use case is
// asked. (Control characters in a field are the use cases' to refuse: checkout's
// TestOrderTextRefused.)
func TestOrderTextRefused(t *testing.T) {
	t.Parallel()
	var asked atomic.Int32
	refuse := func() (*checkout.Created, error) { asked.Add(1); return nil, rampway.Errorf(rampway.EINVALID, "asked") }
	e := newMockEnv(t, &mock.Checkout{
		CreateMintOrderFn: func(context.Context, *rampway.Merchant, checkout.MintOrderParams) (*checkout.Created, error) {
			return refuse()
		},
		CreateFiatOrderFn: func(context.Context, *rampway.Merchant, checkout.FiatOrderParams) (*checkout.Created, error) {
			return refuse()
		},
		CreateDepositOrderFn: func(context.Context, *rampway.Merchant, checkout.DepositOrderParams) (*checkout.Created, error) {
			return refuse()
		},
	})
	for path, body := range map[string]map[string]any{mintOrderPath: e.mintBody(), fiatOrderPath: e.rampBody(nil), depositOrderPath: e.depositBody(nil)} {
		// Invalid UTF-8 in a string: the raw body, as a client that does not encode would send it.
		body["merchant_txn_id"] = "TXN-MARK"
		raw, _ := json.Marshal(body)
		raw = bytes.Replace(raw, []byte("TXN-MARK"), []byte("txn-\xff\xfe"), 1)
		r := e.do(http.MethodPost, path, string(raw), map[string]string{"X-API-KEY": e.key})
		wantEnvelope(t, r, 400, 400, path, "Request body must be UTF-8 encoded JSON")
	}
	if n := asked.Load(); n != 0 {
		t.Fatalf("a use case was asked %d times", n)
	}
}
