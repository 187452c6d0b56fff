package httpapi

import (
	"net/http"
	"testing"

	"github.com/rampway/rampway"
)

// What the spec allows is accepted (issue 29, 9): C1's user_mobileNumber with the ISD code
// first and no plus sign (B1's asks for the plus sign and keeps refusing one without); a
// totalValue with up to 18 decimals whose digits past the token's decimals are zeros. A
// totalValue the token cannot hold (a non-zero digit past its decimals) is refused naming them.
func TestSpecInputs(t *testing.T) {
	t.Parallel()
	e := newModeEnv(t, false, false)
	ctx := t.Context()
	o := decode[DepositOrderView](t, e.merchantAPI(http.MethodPost, depositOrderPath, e.depositBody(func(b map[string]any) {
		b["user_mobileNumber"] = "4915112345678"
	})), 201)
	stored, err := e.store.Order(ctx, o.OrderID)
	if err != nil || stored.User["user_mobileNumber"] != "+4915112345678" {
		t.Fatalf("stored %v, %v", stored.User, err)
	}
	wantEnvelope(t, e.merchantAPI(http.MethodPost, depositOrderPath, e.depositBody(func(b map[string]any) { b["user_mobileNumber"] = "04915112345678" })),
		400, 400, depositOrderPath, "user_mobileNumber must be an international number")
	card := func(b map[string]any) { b["order_fiat_symbol"], b["fiat_payment_method"] = "EUR", rampway.MethodCard }
	wantEnvelope(t, e.merchantAPI(http.MethodPost, fiatOrderPath, e.rampBody(func(b map[string]any) { card(b); b["user_mobileNumber"] = "4915112345678" })),
		400, 400, fiatOrderPath, "user_mobileNumber must be an international number")

	token := func(total string) func(b map[string]any) {
		return func(b map[string]any) {
			b["crypto_symbol"], b["crypto_contract_address"] = "DUSD", e.chain.Contracts().Token.Hex()
			x := b["contractExecution"].(map[string]any)
			x["smartContractFunctionId"] = e.token
			x["function_args"] = map[string]any{"to": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", "quantity": "1"}
			x["payment"] = map[string]any{"payableCryptoSymbol": "DUSD", "payableCryptoContractAddress": e.chain.Contracts().Token.Hex(), "totalValue": total}
		}
	}
	if m := decode[MintOrderView](t, e.merchantAPI(http.MethodPost, mintOrderPath, e.body(token("10.000000000000000000"))), 201); m.CryptoSymbol != "DUSD" {
		t.Fatalf("order %+v", m)
	}
	wantEnvelope(t, e.merchantAPI(http.MethodPost, mintOrderPath, e.body(token("10.0000001"))), 400, 400, mintOrderPath,
		"totalValue must be a positive decimal with at most 6 decimal places")
}
