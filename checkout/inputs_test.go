package checkout_test

import (
	"testing"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/checkout"
)

// TestSpecInputs: what the spec allows is accepted (issue 29, 9): C1's user_mobileNumber with
// the ISD code first and no plus sign, stored with it (B1's asks for the plus sign and keeps
// refusing one without); a totalValue with up to 18 decimals whose digits past the token's
// decimals are zeros. A totalValue the token cannot hold (a non-zero digit past its decimals)
// is refused naming them.
func TestSpecInputs(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.onboard()
	ctx := t.Context()
	c, err := w.svc.CreateDepositOrder(ctx, w.merchant, w.depositParams(func(p *checkout.DepositOrderParams) {
		p.Order.User = map[string]string{"user_mobileNumber": "4915112345678"}
	}))
	if err != nil {
		t.Fatal(err)
	}
	if o, err := w.store.Order(ctx, c.Order.ID); err != nil || o.User["user_mobileNumber"] != "+4915112345678" {
		t.Fatalf("stored %+v, %v", o, err)
	}
	_, err = w.svc.CreateDepositOrder(ctx, w.merchant, w.depositParams(func(p *checkout.DepositOrderParams) {
		p.Order.User = map[string]string{"user_mobileNumber": "04915112345678"}
	}))
	wantError(t, err, rampway.EINVALID, "user_mobileNumber must be an international number")
	_, err = w.svc.CreateFiatOrder(ctx, w.merchant, w.fiatParams(func(p *checkout.FiatOrderParams) {
		p.Order.User = map[string]string{"user_mobileNumber": "4915112345678"}
	}))
	wantError(t, err, rampway.EINVALID, "user_mobileNumber must be an international number")

	token := func(total string) checkout.MintOrderParams {
		p := w.mintParams()
		p.Quote.CryptoSymbol, p.Quote.CryptoContractAddress = "DUSD", w.chain.Contracts().Token.Hex()
		w.tokenMint("1", total)(&p.Quote.Execution)
		return p
	}
	if m, err := w.svc.CreateMintOrder(ctx, w.merchant, token("10.000000000000000000")); err != nil || m.Order.Asset.Symbol != "DUSD" {
		t.Fatalf("order %+v, %v", m, err)
	}
	_, err = w.svc.CreateMintOrder(ctx, w.merchant, token("10.0000001"))
	wantError(t, err, rampway.EINVALID, "totalValue must be a positive decimal with at most 6 decimal places")
}

// TestOrderTextRefused: text no person types (issue 29, 7) is refused naming the field by every
// order use case, before it reaches a database (PostgreSQL answered a NUL with SQLSTATE 22021)
// or a webhook: a NUL, a line break, an escape; nothing is stored. (A body that is not UTF-8 is
// refused by the HTTP API: httpapi's TestOrderTextRefused.)
func TestOrderTextRefused(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.onboard()
	ctx := t.Context()
	creates := map[rampway.Area]func(edit func(o *checkout.OrderParams)) error{
		rampway.AreaMint: func(edit func(o *checkout.OrderParams)) error {
			p := w.mintParams()
			edit(&p.Order)
			_, err := w.svc.CreateMintOrder(ctx, w.merchant, p)
			return err
		},
		rampway.AreaNFTRamp: func(edit func(o *checkout.OrderParams)) error {
			_, err := w.svc.CreateFiatOrder(ctx, w.merchant, w.fiatParams(func(p *checkout.FiatOrderParams) { edit(&p.Order) }))
			return err
		},
		rampway.AreaDeposit: func(edit func(o *checkout.OrderParams)) error {
			_, err := w.svc.CreateDepositOrder(ctx, w.merchant, w.depositParams(func(p *checkout.DepositOrderParams) { edit(&p.Order) }))
			return err
		},
	}
	for area, create := range creates {
		for _, c := range []struct {
			name string
			edit func(o *checkout.OrderParams)
			msg  string
		}{
			{"a NUL in merchant_user_id", func(o *checkout.OrderParams) { o.MerchantUserID = "user\x00-7" }, "merchant_user_id must not contain control characters"},
			{"a NUL in merchant_txn_id", func(o *checkout.OrderParams) { o.MerchantTxnID = "txn\x00" }, "merchant_txn_id must not contain control characters"},
			{"a line break in merchant_txn_id", func(o *checkout.OrderParams) { o.MerchantTxnID = "txn\n7" }, "merchant_txn_id must not contain control characters"},
			{"an escape in user_first_name", func(o *checkout.OrderParams) { o.User = map[string]string{"user_first_name": "Ada\x1b[31m"} },
				"user_first_name must not contain control characters"},
		} {
			wantError(t, create(c.edit), rampway.EINVALID, c.msg)
		}
		if os := w.orders(area, ""); len(os) != 0 {
			t.Fatalf("area %s: %d orders stored", area, len(os))
		}
	}
}
