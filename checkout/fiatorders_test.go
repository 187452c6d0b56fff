package checkout_test

import (
	"errors"
	"io"
	"maps"
	"math/big"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/checkout"
	"github.com/rampway/rampway/merchant"
	"github.com/rampway/rampway/provider/sandbox"
)

// Area B: B1 creates an order priced as B3 quotes it; what it refuses; the lookups; a bank
// transfer told by the sandbox's signed notification.

// TestCreateFiatOrder: B1 stores an order priced as B3 quotes the same inputs (the fiat amount,
// the crypto it pays for), with the request's fields, nothing paid yet, and keeping its quote
// until it expires (bank transfers wait longer); an Idempotency-Key's answer is stored with it.
func TestCreateFiatOrder(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := t.Context()
	for _, tc := range []struct {
		name, symbol, method string
		expiry               time.Duration
		edit                 func(p *checkout.FiatOrderParams)
	}{
		{"EUR card, every user field", "EUR", "credit_debit_card", 30 * time.Minute, func(p *checkout.FiatOrderParams) { p.Order.User = identity() }},
		{"GBP bank transfer of the token-paid mint", "GBP", "gbp_bank_transfer", checkout.DefaultBankTransferExpiry, func(p *checkout.FiatOrderParams) {
			p.Quote.FiatSymbol, p.Quote.Method = "GBP", "gbp_bank_transfer"
			w.tokenMint("3", "30")(&p.Quote.Execution)
		}},
		{"USD Cash App, no merchant_txn_id", "USD", "pm_cash_app", 30 * time.Minute, func(p *checkout.FiatOrderParams) {
			p.Quote.FiatSymbol, p.Quote.Method = "USD", "pm_cash_app"
			p.Order.MerchantTxnID = ""
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := w.fiatParams(tc.edit)
			q, err := w.svc.FiatQuote(ctx, p.Quote)
			if err != nil || !q.Allowed || q.NoAmount || q.Amount.Sign() <= 0 {
				t.Fatalf("quote %+v, %v", q, err)
			}
			c, err := w.svc.CreateFiatOrder(ctx, w.merchant, p)
			if err != nil {
				t.Fatal(err)
			}
			w.wantCreated(c)
			if c.Info != "" {
				t.Fatalf("info %q", c.Info)
			}
			o, err := w.svc.Order(ctx, w.scope(), rampway.AreaNFTRamp, c.Order.ID)
			if err != nil {
				t.Fatal(err)
			}
			w.wantNothingYet(o, tc.expiry)
			// Its fiat side as B3 quoted it, and its crypto side (what the call is paid with).
			cq := q.Crypto
			if o.Area != rampway.AreaNFTRamp || o.FiatSymbol != tc.symbol || o.FiatMethod != tc.method || o.FiatDecimals != 2 ||
				o.FiatAmount.Cmp(q.Amount) != 0 || c.Order.FiatAmount.Cmp(q.Amount) != 0 ||
				o.Network != "devnet" || o.Asset.Symbol != cq.Asset.Symbol || o.Asset.Contract != cq.Asset.Contract ||
				o.CryptoAmount.Cmp(cq.Amount) != 0 || o.PaymentValue.Cmp(cq.Value) != 0 || o.FunctionID != p.Quote.Execution.FunctionID {
				t.Fatalf("order %+v, quoted %+v (crypto %+v)", o, q, cq)
			}
			// And how the amount was priced, as B3 states it: the page shows it.
			major := func(minor decimal.Decimal) string { return minor.Shift(-2).String() }
			m, _ := q.Currency.Method(tc.method)
			wantPricing := rampway.FiatPricing{CryptoPriceUSD: q.AssetUSD.String(), FiatPriceUSD: q.FiatUSD.String(), Subtotal: major(q.Subtotal),
				Spread: major(q.Spread), MethodFee: major(q.MethodFee), SpreadBPS: 100, MethodFeeBPS: m.FeeBPS,
				MethodFeeFixed: rampway.FormatFixed(big.NewInt(m.FeeFixed), 2)}
			if o.FiatPricing == nil || *o.FiatPricing != wantPricing {
				t.Fatalf("fiat pricing %+v, want %+v", o.FiatPricing, wantPricing)
			}
			sum := decimal.RequireFromString(o.FiatPricing.Subtotal).Add(decimal.RequireFromString(o.FiatPricing.Spread)).
				Add(decimal.RequireFromString(o.FiatPricing.MethodFee))
			if got := sum.Shift(2).Ceil().BigInt(); got.Cmp(o.FiatAmount) != 0 {
				t.Fatalf("subtotal + spread + method fee = %s, rounded up %s minor units; the amount is %s", sum, got, o.FiatAmount)
			}
			// The request's own fields; the user's, all kept with the order (the lookups show
			// the contact ones only).
			if o.MerchantUserID != "user-7" || o.MerchantTxnID != p.Order.MerchantTxnID || o.MerchantRedirectURL != "https://shop.example/back" ||
				o.MerchantWebhookURL != "" || !maps.Equal(o.User, p.Order.User) {
				t.Fatalf("order's fields %+v, asked %+v", o, p.Order)
			}
		})
	}

	// With an Idempotency-Key: its answer, made from the order, is stored with it; a request
	// refused stores none (the key may be used again).
	claim := w.claim("fiat-1")
	reply := func(c *checkout.Created) (*rampway.IdempotentReply, error) {
		return &rampway.IdempotentReply{IdempotencyClaim: claim, Status: 201, Body: []byte(c.Order.ID)}, nil
	}
	c, err := w.svc.CreateFiatOrder(ctx, w.merchant, w.fiatParams(func(p *checkout.FiatOrderParams) { p.Reply = reply }))
	if err != nil {
		t.Fatal(err)
	}
	w.replyStored(claim, c.Order.ID)
	refused := w.claim("fiat-2")
	_, err = w.svc.CreateFiatOrder(ctx, w.merchant, w.fiatParams(func(p *checkout.FiatOrderParams) {
		p.Order.User = map[string]string{"user_countryCode": "gb"}
		p.Reply = func(*checkout.Created) (*rampway.IdempotentReply, error) {
			t.Fatal("a refused request made an answer")
			return nil, nil
		}
	}))
	wantError(t, err, rampway.EINVALID, "user_countryCode")
	if prev, err := w.store.BeginIdempotent(ctx, &rampway.IdempotencyRecord{MerchantID: w.merchant.ID, Key: refused.Key, RequestHash: []byte("h"),
		CreatedAt: w.clock.Now()}, w.clock.t0); err != nil || prev == nil || prev.Done {
		t.Fatalf("the refused request's key: %+v, %v", prev, err)
	}
}

// TestCreateFiatOrderInfo: merchant_webhook_url while the merchant has no webhook secret: the
// order is created with the info saying no event will be sent, as A1; with a secret, no info,
// and the order's events are logged to its URL under area B (not A).
func TestCreateFiatOrderInfo(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := t.Context()
	hooked := func(p *checkout.FiatOrderParams) { p.Order.MerchantWebhookURL = "http://127.0.0.1:9/hooks" }
	c, err := w.svc.CreateFiatOrder(ctx, w.merchant, w.fiatParams(hooked))
	if err != nil || c.Info != checkout.NoWebhookSecretInfo(false) {
		t.Fatalf("created %+v, %v", c, err)
	}
	if o, err := w.store.Order(ctx, c.Order.ID); err != nil || o.MerchantWebhookURL != "http://127.0.0.1:9/hooks" || !o.WebhooksOff {
		t.Fatalf("stored %+v, %v; want its webhooks off, as the info says", o, err)
	}
	// Without merchant_webhook_url: no info.
	if c, err := w.svc.CreateFiatOrder(ctx, w.merchant, w.fiatParams(nil)); err != nil || c.Info != "" {
		t.Fatalf("created %+v, %v", c, err)
	}

	if _, err := w.merchants.SetWebhookSecret(ctx, w.merchant.ID, false, "", 0); err != nil {
		t.Fatal(err)
	}
	w.reload()
	c, err = w.svc.CreateFiatOrder(ctx, w.merchant, w.fiatParams(hooked))
	if err != nil || c.Info != "" {
		t.Fatalf("created %+v, %v", c, err)
	}
	id := c.Order.ID
	logs, err := w.svc.Deliveries(ctx, w.scope(), rampway.AreaNFTRamp, id)
	if err != nil || len(logs) != 1 {
		t.Fatalf("webhook log %+v, %v", logs, err)
	}
	d := logs[0].Delivery
	if d.EventName != rampway.EventCreated || d.OrderID != id || d.URL != "http://127.0.0.1:9/hooks" {
		t.Fatalf("delivery %+v", d)
	}
	if r, err := w.svc.Resend(ctx, w.scope(), rampway.AreaNFTRamp, id, d.EventID); err != nil || r.EventID != d.EventID || r.Status != rampway.DeliveryPending {
		t.Fatalf("resend %+v, %v", r, err)
	}
	// Area A does not know area B's order.
	_, err = w.svc.Deliveries(ctx, w.scope(), rampway.AreaMint, id)
	wantError(t, err, rampway.ENOTFOUND, "not found")
	_, err = w.svc.Resend(ctx, w.scope(), rampway.AreaMint, id, d.EventID)
	wantError(t, err, rampway.ENOTFOUND, "not found")
}

// TestFiatOrderRefusals: what B1 refuses once the HTTP API has read the body, each error naming
// the field or the limit (function arguments with their own code, 403 in the envelope), and
// nothing is stored; the same request, corrected, is an order. (What the HTTP API refuses
// itself, the body's JSON types, merchant_id and the parts of contractExecution it reads, is in
// httpapi's TestFiatOrderRequestHTTP.)
func TestFiatOrderRefusals(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := t.Context()
	tomorrow := w.clock.today().Add(24 * time.Hour).Format(time.DateOnly)
	today := w.clock.today().Format(time.DateOnly)
	user := func(k, v string) func(p *checkout.FiatOrderParams) {
		return func(p *checkout.FiatOrderParams) { p.Order.User = map[string]string{k: v} }
	}
	x := func(f func(x *checkout.ExecutionParams)) func(p *checkout.FiatOrderParams) {
		return func(p *checkout.FiatOrderParams) { f(&p.Quote.Execution) }
	}
	for _, tc := range []struct {
		name string
		edit func(p *checkout.FiatOrderParams)
		code string
		msg  string
	}{
		// The user_* fields (DESIGN.md "KYC").
		{"email not an address", user("user_email_id", "not-an-email"), rampway.EINVALID, "user_email_id must be an e-mail address"},
		{"email with a display name", user("user_email_id", "Ada <ada@example.com>"), rampway.EINVALID, "user_email_id must be an e-mail address"},
		{"email too long", user("user_email_id", strings.Repeat("a", 250)+"@x.io"), rampway.EINVALID, "user_email_id must be at most 254 characters"},
		{"mobile without plus", user("user_mobileNumber", "447700900123"), rampway.EINVALID, "user_mobileNumber must be an international number with its ISD code, plus sign first (E.164)"},
		{"mobile national", user("user_mobileNumber", "07700900123"), rampway.EINVALID, "user_mobileNumber must be an international number"},
		{"mobile with spaces", user("user_mobileNumber", "+44 7700 900123"), rampway.EINVALID, "user_mobileNumber must be an international number"},
		{"mobile with a leading zero", user("user_mobileNumber", "+0447700900"), rampway.EINVALID, "user_mobileNumber must be an international number"},
		{"mobile too short", user("user_mobileNumber", "+44123"), rampway.EINVALID, "user_mobileNumber must be an international number"},
		{"mobile with letters", user("user_mobileNumber", "+44770090012a"), rampway.EINVALID, "user_mobileNumber must be an international number"},
		{"mobile too long", user("user_mobileNumber", "+"+strings.Repeat("4", 20)), rampway.EINVALID, "user_mobileNumber must be at most 20 characters"},
		{"dob day first", user("user_dob", "10-12-1990"), rampway.EINVALID, "user_dob must be a date written yyyy-mm-dd"},
		{"dob with slashes", user("user_dob", "1990/12/10"), rampway.EINVALID, "user_dob must be a date written yyyy-mm-dd"},
		{"dob without zeros", user("user_dob", "1990-2-1"), rampway.EINVALID, "user_dob must be a date written yyyy-mm-dd"},
		{"dob not a date", user("user_dob", "1990-02-30"), rampway.EINVALID, "user_dob must be a date written yyyy-mm-dd"},
		{"dob with a time", user("user_dob", "1990-12-10T00:00:00Z"), rampway.EINVALID, "user_dob must be at most 10 characters"},
		{"dob in the future", user("user_dob", tomorrow), rampway.EINVALID, "user_dob must be in the past"},
		{"dob today", user("user_dob", today), rampway.EINVALID, "user_dob must be in the past"},
		{"dob before 1900", user("user_dob", "1899-12-31"), rampway.EINVALID, "user_dob must be after 1900"},
		{"country lowercase", user("user_countryCode", "gb"), rampway.EINVALID, "user_countryCode must be an ISO 3166-1 alpha-2 country code in capitals, such as DE"},
		{"country mixed case", user("user_countryCode", "Gb"), rampway.EINVALID, "user_countryCode must be an ISO 3166-1 alpha-2 country code"},
		{"country alpha-3", user("user_countryCode", "GBR"), rampway.EINVALID, "user_countryCode must be at most 2 characters"},
		{"country a name", user("user_countryCode", "Germany"), rampway.EINVALID, "user_countryCode must be at most 2 characters"},
		{"country not a country", user("user_countryCode", "EU"), rampway.EINVALID, "user_countryCode must be an ISO 3166-1 alpha-2 country code"},
		{"country unknown", user("user_countryCode", "ZZ"), rampway.EINVALID, "user_countryCode must be an ISO 3166-1 alpha-2 country code"},
		{"country private use", user("user_countryCode", "QO"), rampway.EINVALID, "user_countryCode must be an ISO 3166-1 alpha-2 country code"},
		{"country digits", user("user_countryCode", "12"), rampway.EINVALID, "user_countryCode must be an ISO 3166-1 alpha-2 country code"},
		{"post code with symbols", user("user_postCode", "SW1A_1AA"), rampway.EINVALID, "user_postCode must be letters, digits, spaces and hyphens"},
		{"post code starting with a space", user("user_postCode", " 10115"), rampway.EINVALID, "user_postCode must be letters, digits, spaces and hyphens"},
		{"post code too long", user("user_postCode", strings.Repeat("1", 21)), rampway.EINVALID, "user_postCode must be at most 20 characters"},
		{"first name too long", user("user_first_name", strings.Repeat("n", 101)), rampway.EINVALID, "user_first_name must be at most 100 characters"},
		{"last name too long", user("user_last_name", strings.Repeat("n", 101)), rampway.EINVALID, "user_last_name must be at most 100 characters"},
		{"address line 1 too long", user("user_addressLine1", strings.Repeat("a", 201)), rampway.EINVALID, "user_addressLine1 must be at most 200 characters"},
		{"address line 2 too long", user("user_addressLine2", strings.Repeat("a", 201)), rampway.EINVALID, "user_addressLine2 must be at most 200 characters"},
		{"city too long", user("user_city", strings.Repeat("c", 101)), rampway.EINVALID, "user_city must be at most 100 characters"},
		{"state too long", user("user_state", strings.Repeat("s", 101)), rampway.EINVALID, "user_state must be at most 100 characters"},

		// The currency and the method (a field the body lacks reaches here as "").
		{"unknown currency", func(p *checkout.FiatOrderParams) { p.Quote.FiatSymbol = "JPY" }, rampway.EINVALID, "order_fiat_symbol JPY is not a supported currency"},
		{"currency lowercase", func(p *checkout.FiatOrderParams) { p.Quote.FiatSymbol = "eur" }, rampway.EINVALID, "order_fiat_symbol eur is not a supported currency"},
		{"currency missing or empty", func(p *checkout.FiatOrderParams) { p.Quote.FiatSymbol = "" }, rampway.EINVALID, "order_fiat_symbol is required"},
		{"method of another currency", func(p *checkout.FiatOrderParams) { p.Quote.Method = "gbp_bank_transfer" }, rampway.EINVALID, "fiat_payment_method gbp_bank_transfer is not available for EUR"},
		{"method of another currency (USD)", func(p *checkout.FiatOrderParams) { p.Quote.Method = "pm_cash_app" }, rampway.EINVALID, "fiat_payment_method pm_cash_app is not available for EUR"},
		{"unknown method", func(p *checkout.FiatOrderParams) { p.Quote.Method = "pm_nope" }, rampway.EINVALID, "fiat_payment_method pm_nope is not available for EUR"},
		{"method missing", func(p *checkout.FiatOrderParams) { p.Quote.Method = "" }, rampway.EINVALID, "fiat_payment_method is required"},

		// The order's own fields.
		{"merchant_user_id missing", func(p *checkout.FiatOrderParams) { p.Order.MerchantUserID = "" }, rampway.EINVALID, "merchant_user_id is required"},
		{"merchant_user_id too long", func(p *checkout.FiatOrderParams) { p.Order.MerchantUserID = strings.Repeat("u", 257) }, rampway.EINVALID, "merchant_user_id must be at most 256 characters"},
		{"merchant_txn_id too long", func(p *checkout.FiatOrderParams) { p.Order.MerchantTxnID = strings.Repeat("t", 257) }, rampway.EINVALID, "merchant_txn_id must be at most 256 characters"},
		{"redirect missing", func(p *checkout.FiatOrderParams) { p.Order.MerchantRedirectURL = "" }, rampway.EINVALID, "merchant_redirect_url is required"},
		{"redirect relative", func(p *checkout.FiatOrderParams) { p.Order.MerchantRedirectURL = "shop/back" }, rampway.EINVALID, "merchant_redirect_url must be an absolute http(s) URL"},
		{"webhook not http", func(p *checkout.FiatOrderParams) { p.Order.MerchantWebhookURL = "ftp://x" }, rampway.EINVALID, "merchant_webhook_url must be an absolute http(s) URL"},
		{"webhook with credentials", func(p *checkout.FiatOrderParams) { p.Order.MerchantWebhookURL = "https://u:p@shop.example/hook" }, rampway.EINVALID, "merchant_webhook_url must not carry credentials"},

		// The contractExecution, as A1 checks it.
		{"no networkName", x(func(x *checkout.ExecutionParams) { x.NetworkName = "" }), rampway.EINVALID, "networkName is required"},
		{"payment missing", x(func(x *checkout.ExecutionParams) { x.Payment = nil }), rampway.EINVALID, "contractExecution.payment is required"},
		{"unknown function", x(func(x *checkout.ExecutionParams) { x.FunctionID = "scf_nope" }), rampway.EINVALID, `smartContractFunctionId "scf_nope" is not a registered function`},
		{"payable asset invalid", x(func(x *checkout.ExecutionParams) { x.Payment.Symbol = "BTC" }), rampway.EINVALID, "payableCryptoSymbol BTC is not valid for network devnet"},
		{"unknown network", x(func(x *checkout.ExecutionParams) { x.NetworkName = "mainnet" }), rampway.EINVALID, `networkName "mainnet" is not a supported network`},
		{"totalValue not a number", x(func(x *checkout.ExecutionParams) { x.Payment.TotalValue = "abc" }), rampway.EINVALID, "totalValue must be a positive decimal"},
		{"bad gas limit", x(func(x *checkout.ExecutionParams) { x.CustomGasLimit = "lots" }), rampway.EINVALID, "customGasLimit must be a whole number"},
		{"too few args", x(func(x *checkout.ExecutionParams) { x.FunctionArgs = []byte(`{"to":"` + minter + `"}`) }),
			rampway.EFUNCARGS, "Function arguments are not valid: 2 arguments required, 1 given"},
		{"too many args", x(func(x *checkout.ExecutionParams) {
			x.FunctionArgs = []byte(`{"to":"` + minter + `","quantity":"1","extra":"1"}`)
		}),
			rampway.EFUNCARGS, "Function arguments are not valid: 2 arguments required, 3 given"},
		{"arg of wrong type", x(func(x *checkout.ExecutionParams) { x.FunctionArgs = args(minter, "many") }),
			rampway.EFUNCARGS, "Function arguments are not valid: argument 'quantity' must be of type uint256"},
		{"address arg of wrong type", x(func(x *checkout.ExecutionParams) { x.FunctionArgs = args("nobody", "1") }),
			rampway.EFUNCARGS, "Function arguments are not valid: argument 'to' must be of type address"},

		// What the quote does not allow: refused, naming the limit or the reason.
		{"below the minimum", x(func(x *checkout.ExecutionParams) { x.FunctionID, x.Payment = w.free, nil }), rampway.EINVALID, "Minimum buy amount is 20 EUR"},
		{"above the maximum", x(func(x *checkout.ExecutionParams) {
			x.FunctionArgs, x.CustomGasLimit = args(minter, "400"), "20000000"
			x.Payment = &checkout.PaymentParams{Symbol: "ETH", TotalValue: "4"}
		}), rampway.EINVALID, "Please place an order below 10000 EUR"},
		{"would revert", x(func(x *checkout.ExecutionParams) { x.Payment.TotalValue = "0.02" }), rampway.EINVALID, "The smart-contract call would fail"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := w.svc.CreateFiatOrder(ctx, w.merchant, w.fiatParams(tc.edit))
			if c != nil {
				t.Fatalf("created %s", c.Order.ID)
			}
			wantError(t, err, tc.code, tc.msg)
		})
	}
	// A refused request stores nothing.
	if os := w.orders(rampway.AreaNFTRamp, ""); len(os) != 0 {
		t.Fatalf("%d orders stored by refused requests", len(os))
	}
	// And the same request, corrected, is an order.
	if _, err := w.svc.CreateFiatOrder(ctx, w.merchant, w.fiatParams(func(p *checkout.FiatOrderParams) { p.Order.User = identity() })); err != nil {
		t.Fatal(err)
	}
}

// TestFiatOrderCountryCodes: user_countryCode takes the ISO 3166-1 alpha-2 codes in use, and
// no other: not the codes golang.org/x/text/language's regions also hold that are not assigned
// ISO 3166-1 alpha-2 codes (UK, which merchants write for GB; the withdrawn SU, YU, DD, ZR, TP,
// AN, CS, BU, NT, FX; CLDR's UN and EZ; the reserved AC, TA, IC, EA, CP, DG, CQ).
func TestFiatOrderCountryCodes(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	country := func(c string) checkout.FiatOrderParams {
		return w.fiatParams(func(p *checkout.FiatOrderParams) { p.Order.User = map[string]string{"user_countryCode": c} })
	}
	for _, c := range []string{"GB", "DE", "FR", "US", "IE", "CH", "NO", "JP", "BR", "ZA"} {
		if _, err := w.svc.CreateFiatOrder(t.Context(), w.merchant, country(c)); err != nil {
			t.Fatalf("user_countryCode %s: %v", c, err)
		}
	}
	for _, c := range []string{"UK", "SU", "YU", "DD", "ZR", "TP", "AN", "CS", "BU", "NT", "FX", "UN", "EZ", "AC", "TA", "IC", "EA", "CP", "DG", "CQ"} {
		_, err := w.svc.CreateFiatOrder(t.Context(), w.merchant, country(c))
		wantError(t, err, rampway.EINVALID, "user_countryCode must be an ISO 3166-1 alpha-2 country code")
	}
}

// TestFiatOrderLookups: an area B order is found in area B, in its merchant's scope, and listed
// there by status and a page at a time (newest first); area A's are neither found nor listed
// there, nor B's in A.
func TestFiatOrderLookups(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := t.Context()
	var ids []string // oldest first
	for i := range 3 {
		c, err := w.svc.CreateFiatOrder(ctx, w.merchant, w.fiatParams(func(p *checkout.FiatOrderParams) { p.Order.MerchantTxnID = "txn-" + string(rune('a'+i)) }))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, c.Order.ID)
	}
	mint, err := w.svc.CreateMintOrder(ctx, w.merchant, w.mintParams())
	if err != nil {
		t.Fatal(err)
	}
	// The second order is cancelled by its user.
	if o, err := w.svc.Cancel(ctx, ids[1]); err != nil || o.Status != rampway.StatusCancelled {
		t.Fatalf("cancel %+v, %v", o, err)
	}

	if o, err := w.svc.Order(ctx, w.scope(), rampway.AreaNFTRamp, ids[0]); err != nil || o.ID != ids[0] || o.MerchantTxnID != "txn-a" {
		t.Fatalf("lookup %+v, %v", o, err)
	}
	// Another area, another merchant, an unknown id: not found, the same message.
	other, err := w.merchants.Create(ctx, merchant.CreateParams{Name: "Other"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		scope rampway.Scope
		area  rampway.Area
		id    string
	}{
		{w.scope(), rampway.AreaMint, ids[0]}, {w.scope(), rampway.AreaNFTRamp, mint.Order.ID},
		{rampway.MerchantScope(other.ID, false), rampway.AreaNFTRamp, ids[0]}, {w.scope(), rampway.AreaNFTRamp, "ord_nope"},
	} {
		_, err := w.svc.Order(ctx, c.scope, c.area, c.id)
		wantError(t, err, rampway.ENOTFOUND, `Order "`+c.id+`" not found`)
	}
	if o, err := w.svc.Order(ctx, w.scope(), rampway.AreaMint, mint.Order.ID); err != nil || o.FiatSymbol != "" || o.FiatAmount != nil {
		t.Fatalf("area A order with a fiat side %+v, %v", o, err)
	}
	// The other merchant's list is empty.
	live := false
	if os, err := w.svc.Orders(ctx, rampway.OrderFilter{MerchantID: other.ID, Livemode: live, Area: rampway.AreaNFTRamp, Limit: 10}); err != nil || len(os) != 0 {
		t.Fatalf("another merchant's list %+v, %v", os, err)
	}

	list := func(status rampway.OrderStatus, before string, limit int) []string {
		t.Helper()
		os, err := w.svc.Orders(ctx, rampway.OrderFilter{MerchantID: w.merchant.ID, Livemode: live, Area: rampway.AreaNFTRamp, Status: status, Before: before, Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, o := range os {
			out = append(out, o.ID)
			if o.FiatSymbol != "EUR" || o.FiatMethod != "credit_debit_card" || o.FiatAmount.Sign() <= 0 {
				t.Fatalf("listed without its fiat side: %+v", o)
			}
		}
		return out
	}
	for _, c := range []struct {
		status rampway.OrderStatus
		before string
		limit  int
		want   []string
	}{
		{"", "", 10, []string{ids[2], ids[1], ids[0]}}, // newest first, area B only
		{rampway.StatusCreated, "", 10, []string{ids[2], ids[0]}},
		{rampway.StatusCancelled, "", 10, []string{ids[1]}},
		{rampway.StatusOnrampSuccess, "", 10, nil},
		{"", "", 2, []string{ids[2], ids[1]}}, // a page at a time
		{"", ids[1], 2, []string{ids[0]}},
		{rampway.StatusCreated, ids[2], 1, []string{ids[0]}},
	} {
		if got := list(c.status, c.before, c.limit); !slices.Equal(got, c.want) {
			t.Fatalf("list %s after %q, limit %d: %v, want %v", c.status, c.before, c.limit, got, c.want)
		}
	}
	if got := w.orders(rampway.AreaNFTRamp, rampway.StatusCancelled); got[0].Status != rampway.StatusCancelled {
		t.Fatalf("CANCELLED: %+v", got[0])
	}
	// Area B's orders are not in area A's list.
	if os := w.orders(rampway.AreaMint, ""); len(os) != 1 || os[0].ID != mint.Order.ID {
		t.Fatalf("area A list %+v", os)
	}
}

// TestFiatOrderPaidByBankTransfer: the user's bank transfer, told to the sandbox (as its admin
// operation does), reaches the order through the sandbox's signed notification: the order is
// in ONRAMP_SUCCESS, its payment succeeded with its reference. A notification that is not the
// sandbox's, as sent, changes nothing; one applied twice counts once.
func TestFiatOrderPaidByBankTransfer(t *testing.T) {
	t.Parallel()
	// The sandbox's notifications reach the use case as the webhook route passes them on.
	var w *world
	var duplicates atomic.Int32
	route := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		applied, err := w.svc.ProviderWebhook(r.Context(), sandbox.Name, r.Header, body)
		if err != nil {
			http.Error(rw, err.Error(), http.StatusBadRequest)
			return
		}
		if !applied {
			duplicates.Add(1)
		}
	}))
	t.Cleanup(route.Close)
	w = newWorldWith(t, worldOptions{noChain: true, sandboxWebhook: route.URL})
	ctx := t.Context()
	o := w.storeFiatOrder(rampway.AreaNFTRamp, "EUR", rampway.MethodSEPABankTransfer, 2599)

	// The user chooses to pay on the page: the payment is started at the sandbox.
	started, err := w.svc.StartFiatPayment(ctx, o, "https://pay.example/back")
	if err != nil {
		t.Fatal(err)
	}
	payment := func() (*rampway.Order, *rampway.FiatPayment) {
		t.Helper()
		o, err := w.svc.Order(ctx, w.scope(), rampway.AreaNFTRamp, o.ID)
		if err != nil {
			t.Fatal(err)
		}
		ps, err := w.svc.FiatPayments(ctx, o)
		if err != nil || len(ps) != 1 {
			t.Fatalf("payments %+v, %v", ps, err)
		}
		return o, ps[0]
	}
	got, p := payment()
	if got.Status != rampway.StatusCreated || p.ID != started.ID || p.Provider != sandbox.Name || p.Method != rampway.MethodSEPABankTransfer ||
		p.Status != rampway.FiatPending || p.Amount.Int64() != 2599 || p.Decimals != 2 || p.Currency != "EUR" || p.Reference != started.Reference ||
		!strings.HasPrefix(p.Reference, "RW-") || p.CardBrand != "" || p.CreatedAt.IsZero() {
		t.Fatalf("after the payment started: %+v, payment %+v", got, p)
	}

	// The transfer arrives at the sandbox; not yet told to rampway, the order is unchanged.
	if credit, err := w.sandbox.BankTransfer(ctx, started.Reference, "25.99", "EUR"); err != nil || !strings.HasPrefix(credit, "sbc_") {
		t.Fatalf("bank transfer %q, %v", credit, err)
	}
	if got, p := payment(); got.Status != rampway.StatusCreated || p.Status != rampway.FiatPending {
		t.Fatalf("before the notification: %+v, payment %+v", got, p)
	}

	// The sandbox's notification, as it sends it: signed.
	evs, err := sandbox.NewBooks(w.store, sandbox.Name).SandboxDueEvents(ctx, w.clock.Now().Add(time.Hour), 10)
	if err != nil || len(evs) != 1 {
		t.Fatalf("%d notifications due (%v), want the credit", len(evs), err)
	}
	body := evs[0].Body
	notify := func(body []byte, sig string) (bool, error) {
		return w.svc.ProviderWebhook(ctx, sandbox.Name, http.Header{sandbox.SignatureHeader: {sig}}, body)
	}
	secret := []byte(sandboxSecret)
	// Tampered or unsigned: refused, nothing applied.
	tampered := []byte(strings.Replace(string(body), `"amount":"`, `"amount":"9`, 1))
	for _, tc := range []struct {
		name, sig, msg string
		body           []byte
	}{
		{"no signature", "", "sandbox webhook: missing or malformed Sandbox-Signature header", body},
		{"wrong secret", sandbox.Sign([]byte("another secret"), body, w.clock.Now()), "sandbox webhook: no valid signature", body},
		{"tampered body", sandbox.Sign(secret, body, w.clock.Now()) /* the genuine body's */, "sandbox webhook: no valid signature", tampered},
		{"too old", sandbox.Sign(secret, body, w.clock.Now().Add(-sandbox.Tolerance-time.Minute)), "sandbox webhook: the signature's timestamp is outside the tolerance", body},
		{"from the future", sandbox.Sign(secret, body, w.clock.Now().Add(sandbox.Tolerance+time.Minute)), "outside the tolerance", body},
		{"malformed header", "v1=00,t=soon", "sandbox webhook: missing or malformed Sandbox-Signature header", body},
	} {
		t.Run(tc.name, func(t *testing.T) {
			applied, err := notify(tc.body, tc.sig)
			if applied {
				t.Fatal("applied")
			}
			wantError(t, err, rampway.EINVALID, tc.msg)
		})
	}
	if got, p := payment(); got.Status != rampway.StatusCreated || p.Status != rampway.FiatPending {
		t.Fatalf("after refused notifications: %+v, payment %+v", got, p)
	}

	// Genuine: applied once; the same event again is a duplicate.
	for i, want := range []bool{true, false} {
		if applied, err := notify(body, sandbox.Sign(secret, body, w.clock.Now())); err != nil || applied != want {
			t.Fatalf("notification %d: applied %v (%v), want %v", i+1, applied, err, want)
		}
	}
	// The sandbox sends it too (its books do not know it arrived): received, a duplicate.
	if n, err := w.sandbox.Deliver(ctx); n != 1 || err != nil || duplicates.Load() != 1 {
		t.Fatalf("sandbox delivered %d (%v), %d duplicates", n, err, duplicates.Load())
	}
	got, p = payment()
	if got.Status != rampway.StatusOnrampSuccess || got.FiatPaymentID != p.ID || p.Status != rampway.FiatSucceeded || p.Amount.Int64() != 2599 ||
		p.Reference != started.Reference || got.FiatAmount.Int64() != 2599 {
		t.Fatalf("after the credit: %+v, payment %+v", got, p)
	}
	if os := w.orders(rampway.AreaNFTRamp, rampway.StatusOnrampSuccess); len(os) != 1 || os[0].ID != o.ID {
		t.Fatalf("ONRAMP_SUCCESS list %+v", os)
	}
}

// TestProviderWebhook: a notification for a provider that is not configured is not found; a
// signed one about a payment never started here is ignored (acknowledged: a refusal would have
// it sent for ever); one the provider cannot read is refused naming the provider.
func TestProviderWebhook(t *testing.T) {
	t.Parallel()
	w := newWorldWith(t, worldOptions{noChain: true})
	ctx := t.Context()
	secret := []byte(sandboxSecret)
	body := []byte(`{"id":"sbe_x","type":"payment.updated","data":{"payment":{"id":"sbp_nope","status":"processing"}}}`)
	signed := func(body []byte) http.Header {
		return http.Header{sandbox.SignatureHeader: {sandbox.Sign(secret, body, w.clock.Now())}}
	}
	for _, name := range []string{"stripe", "Sandbox", "nope"} {
		_, err := w.svc.ProviderWebhook(ctx, name, signed(body), body)
		wantError(t, err, rampway.ENOTFOUND, `no payment provider "`+name+`" is configured`)
	}
	if applied, err := w.svc.ProviderWebhook(ctx, sandbox.Name, signed(body), body); applied || !errors.Is(err, checkout.ErrUnknownPayment) || !errors.Is(err, checkout.ErrIgnored) {
		t.Fatalf("unknown payment: applied %v, %v", applied, err)
	}
	_, err := w.svc.ProviderWebhook(ctx, sandbox.Name, signed([]byte(`{"id":"x"}`)), []byte(`{"id":"x"}`))
	wantError(t, err, rampway.EINVALID, "sandbox webhook: malformed notification")
	_, err = w.svc.ProviderWebhook(ctx, sandbox.Name, http.Header{sandbox.SignatureHeader: {"t=1,v1=00"}}, []byte("not json"))
	wantError(t, err, rampway.EINVALID, "sandbox webhook:")

	// Without a provider configured, the sandbox is unknown too.
	bare := checkout.New(checkout.Config{}, checkout.Deps{Store: w.store})
	_, err = bare.ProviderWebhook(ctx, sandbox.Name, signed(body), body)
	wantError(t, err, rampway.ENOTFOUND, `no payment provider "sandbox" is configured`)
}
