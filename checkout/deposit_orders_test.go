package checkout_test

import (
	"maps"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/shopspring/decimal"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain/devchain/devchaintest"
	"github.com/rampway/rampway/checkout"
	"github.com/rampway/rampway/merchant"
)

// Area C: C1 converts the user's fiat amount into an asset sent to the merchant's deposit
// address (onboarded first), quoted the reverse of B3.

// TestCreateDepositOrder: C1 stores an order delivering to the merchant's deposit address for
// the asset, the amount as asked (in the currency's minor units), the crypto amount it answered,
// the transfer's gas and network fee, nothing paid yet; it is not an order of areas A or B.
// Without a method, the crypto amount is the estimate of the first method the amount fits (the
// card's); a method with a lower fee buys more.
func TestCreateDepositOrder(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.onboard()
	ctx := t.Context()
	for _, tc := range []struct {
		name     string
		payout   common.Address
		gasLimit uint64
		expiry   time.Duration
		minor    int64 // order_fiat_amount in the currency's minor units
		method   string
		edit     func(p *checkout.DepositOrderParams)
	}{
		{"EUR card into ETH", payoutETH, 21_000, 30 * time.Minute, 10000, "credit_debit_card", nil},
		{"EUR without a method into ETH", payoutETH, 21_000, 30 * time.Minute, 10000, "", func(p *checkout.DepositOrderParams) { p.Quote.Method = "" }},
		{"GBP bank transfer into DUSD, every user field", payoutDUSD, 100_000, checkout.DefaultBankTransferExpiry, 25050, "gbp_bank_transfer", func(p *checkout.DepositOrderParams) {
			w.inToken(p)
			p.Quote.FiatSymbol, p.Quote.FiatAmount, p.Quote.Method = "GBP", "250.50", "gbp_bank_transfer"
			p.Order.User = identity()
		}},
		{"USD Cash App into ETH, no merchant_txn_id, no contract address", payoutETH, 21_000, 30 * time.Minute, 2000, "pm_cash_app", func(p *checkout.DepositOrderParams) {
			p.Quote.FiatSymbol, p.Quote.FiatAmount, p.Quote.Method = "USD", "20", "pm_cash_app"
			p.Quote.ContractAddress, p.Order.MerchantTxnID = "", ""
		}},
		{"EUR without a method into DUSD, at the maximum", payoutDUSD, 100_000, 30 * time.Minute, 1_000_000, "", func(p *checkout.DepositOrderParams) {
			w.inToken(p)
			p.Quote.FiatAmount, p.Quote.Method = "10000", ""
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := w.depositParams(tc.edit)
			c, err := w.svc.CreateDepositOrder(ctx, w.merchant, p)
			if err != nil {
				t.Fatal(err)
			}
			w.wantCreated(c)
			if c.Info != "" {
				t.Fatalf("info %q", c.Info)
			}
			o, err := w.svc.Order(ctx, w.scope(), rampway.AreaDeposit, c.Order.ID)
			if err != nil {
				t.Fatal(err)
			}
			w.wantNothingYet(o, tc.expiry)
			var contract common.Address
			if p.Quote.CryptoSymbol == "DUSD" {
				contract = w.chain.Contracts().Token
			}
			if o.Area != rampway.AreaDeposit || o.FiatSymbol != p.Quote.FiatSymbol || o.FiatAmount.Int64() != tc.minor || o.FiatDecimals != 2 || o.FiatMethod != tc.method ||
				o.Network != "devnet" || o.Asset.Symbol != p.Quote.CryptoSymbol || o.Asset.Contract != contract || o.PayoutAddress != tc.payout ||
				o.CryptoAmount.Sign() <= 0 || o.CryptoAmount.Cmp(c.Order.CryptoAmount) != 0 || o.GasLimit != tc.gasLimit ||
				o.FunctionID != "" || o.PaymentValue.Sign() != 0 {
				t.Fatalf("order %+v for %+v", o, p.Quote)
			}
			// What came off it: the transfer's network fee, and no service fee (the merchant has none).
			if o.NetworkFee.Sign() <= 0 || o.ServiceFee.Sign() != 0 {
				t.Fatalf("network fee %s, service fee %s", o.NetworkFee, o.ServiceFee)
			}
			if o.MerchantUserID != "user-7" || o.MerchantTxnID != p.Order.MerchantTxnID || o.MerchantRedirectURL != "https://shop.example/back" ||
				o.MerchantWebhookURL != "" || !maps.Equal(o.User, p.Order.User) {
				t.Fatalf("order's fields %+v, asked %+v", o, p.Order)
			}
			// Areas A and B do not know it.
			for _, area := range []rampway.Area{rampway.AreaNFTRamp, rampway.AreaMint} {
				_, err := w.svc.Order(ctx, w.scope(), area, o.ID)
				wantError(t, err, rampway.ENOTFOUND, `Order "`+o.ID+`" not found`)
			}
		})
	}

	create := func(edit func(p *checkout.DepositOrderParams)) *rampway.Order {
		t.Helper()
		c, err := w.svc.CreateDepositOrder(ctx, w.merchant, w.depositParams(edit))
		if err != nil {
			t.Fatal(err)
		}
		return c.Order
	}
	card := create(nil)
	none := create(func(p *checkout.DepositOrderParams) { p.Quote.Method = "" })
	if none.CryptoAmount.Cmp(card.CryptoAmount) != 0 {
		t.Fatalf("without a method crypto amount %s, with the card %s", none.CryptoAmount, card.CryptoAmount)
	}
	// The pricing: the card's, with the card; none before a choice, then the chosen method's
	// (the one its quote line showed).
	if card.FiatPricing == nil || none.FiatPricing != nil || len(none.MethodQuotes) == 0 || none.MethodQuotes[0].Pricing == nil ||
		*none.MethodQuotes[0].Pricing != *card.FiatPricing {
		t.Fatalf("pricing with the card %+v, without a method %+v (quotes %+v)", card.FiatPricing, none.FiatPricing, none.MethodQuotes)
	}
	chosen, err := w.svc.ChooseFiatMethod(ctx, none, none.MethodQuotes[0].Method)
	if err != nil || chosen.FiatPricing == nil || *chosen.FiatPricing != *card.FiatPricing {
		t.Fatalf("after choosing %s: %+v, %v", none.MethodQuotes[0].Method, chosen, err)
	}
	if sepa := create(func(p *checkout.DepositOrderParams) { p.Quote.Method = "sepa_bank_transfer" }); sepa.CryptoAmount.Cmp(card.CryptoAmount) <= 0 {
		t.Fatalf("SEPA (no fee) buys %s, the card %s", sepa.CryptoAmount, card.CryptoAmount)
	}

	// With an Idempotency-Key: its answer is stored with the order.
	claim := w.claim("dep-1")
	c, err := w.svc.CreateDepositOrder(ctx, w.merchant, w.depositParams(func(p *checkout.DepositOrderParams) {
		p.Reply = func(c *checkout.Created) (*rampway.IdempotentReply, error) {
			return &rampway.IdempotentReply{IdempotencyClaim: claim, Status: 201, Body: []byte(c.Order.ID)}, nil
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	w.replyStored(claim, c.Order.ID)
}

// TestCreateDepositOrderInfo: merchant_webhook_url while the merchant has no webhook secret: the
// order is created with the info (with or without a method); the URL is kept on the order, and
// overrides the merchant's onboarded URL for its events, logged under area C (not B).
func TestCreateDepositOrderInfo(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.onboard()
	ctx := t.Context()
	hooked := func(p *checkout.DepositOrderParams) { p.Order.MerchantWebhookURL = "http://127.0.0.1:9/hooks" }
	create := func(edit func(p *checkout.DepositOrderParams), info string) *rampway.Order {
		t.Helper()
		c, err := w.svc.CreateDepositOrder(ctx, w.merchant, w.depositParams(edit))
		if err != nil || c.Info != info {
			t.Fatalf("created %+v (%v), want info %q", c, err, info)
		}
		return c.Order
	}
	noSecret := checkout.NoWebhookSecretInfo(false)
	if o, err := w.store.Order(ctx, create(hooked, noSecret).ID); err != nil || o.MerchantWebhookURL != "http://127.0.0.1:9/hooks" || !o.WebhooksOff {
		t.Fatalf("stored %+v, %v; want its webhooks off, as the info says", o, err)
	}
	create(nil, "")
	create(func(p *checkout.DepositOrderParams) { hooked(p); p.Quote.Method = "" }, noSecret)

	// With a secret and an onboarded URL: no info, and the order's URL is where its events go.
	url := "https://shop.example/onboarded"
	if _, err := w.merchants.Update(ctx, w.merchant.ID, merchant.UpdateParams{WebhookURL: &url}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.merchants.SetWebhookSecret(ctx, w.merchant.ID, false, "", 0); err != nil {
		t.Fatal(err)
	}
	w.reload()
	o, plain := create(hooked, ""), create(nil, "")
	for id, url := range map[string]string{o.ID: "http://127.0.0.1:9/hooks", plain.ID: url} {
		logs, err := w.svc.Deliveries(ctx, w.scope(), rampway.AreaDeposit, id)
		if err != nil || len(logs) != 1 {
			t.Fatalf("webhook log of %s %+v, %v", id, logs, err)
		}
		d := logs[0].Delivery
		if d.EventName != rampway.EventCreated || d.OrderID != id || d.URL != url {
			t.Fatalf("delivery %+v, want order.created to %s", d, url)
		}
		if r, err := w.svc.Resend(ctx, w.scope(), rampway.AreaDeposit, id, d.EventID); err != nil || r.EventID != d.EventID || r.Status != rampway.DeliveryPending || r.URL != url {
			t.Fatalf("resend %+v, %v", r, err)
		}
		// Area B does not know area C's order.
		_, err = w.svc.Deliveries(ctx, w.scope(), rampway.AreaNFTRamp, id)
		wantError(t, err, rampway.ENOTFOUND, "not found")
		_, err = w.svc.Resend(ctx, w.scope(), rampway.AreaNFTRamp, id, d.EventID)
		wantError(t, err, rampway.ENOTFOUND, "not found")
	}
	_, err := w.svc.Deliveries(ctx, w.scope(), rampway.AreaDeposit, "ord_nope")
	wantError(t, err, rampway.ENOTFOUND, `Order "ord_nope" not found`)
}

// TestDepositOrderRefusals: what C1 refuses once the HTTP API has read the body, each error
// naming the field or the limit; a merchant without a deposit address for the asset is told to
// onboard one; nothing is stored. (What the HTTP API refuses itself, the body's JSON types and
// merchant_id, is in httpapi's TestDepositOrderRequestHTTP.)
func TestDepositOrderRefusals(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.onboard()
	ctx := t.Context()
	token, nft := w.chain.Contracts().Token.Hex(), w.chain.Contracts().NFT.Hex()
	q := func(f func(q *checkout.DepositQuoteParams)) func(p *checkout.DepositOrderParams) {
		return func(p *checkout.DepositOrderParams) { f(&p.Quote) }
	}
	amount := func(a string) func(p *checkout.DepositOrderParams) {
		return q(func(q *checkout.DepositQuoteParams) { q.FiatAmount = a })
	}
	user := func(k, v string) func(p *checkout.DepositOrderParams) {
		return func(p *checkout.DepositOrderParams) { p.Order.User = map[string]string{k: v} }
	}
	for _, tc := range []struct {
		name string
		edit func(p *checkout.DepositOrderParams)
		msg  string
	}{
		// The limits: per method, or across the currency's methods when none is given.
		{"below the minimum", amount("19.99"), "Minimum buy amount is 20 EUR"},
		{"above the maximum", amount("10000.01"), "Please place an order below 10000 EUR"},
		{"below the minimum, no method", q(func(q *checkout.DepositQuoteParams) { q.FiatAmount, q.Method = "5", "" }), "Minimum buy amount is 20 EUR"},
		{"above the maximum, no method", q(func(q *checkout.DepositQuoteParams) { q.FiatAmount, q.Method = "25000", "" }), "Please place an order below 10000 EUR"},
		{"below the GBP minimum", q(func(q *checkout.DepositQuoteParams) {
			q.FiatSymbol, q.Method, q.FiatAmount = "GBP", "gbp_bank_transfer", "1"
		}), "Minimum buy amount is 20 GBP"},

		// The currency and the method (a field the body lacks reaches here as "").
		{"unknown currency", q(func(q *checkout.DepositQuoteParams) { q.FiatSymbol = "JPY" }), "order_fiat_symbol JPY is not a supported currency"},
		{"currency lowercase", q(func(q *checkout.DepositQuoteParams) { q.FiatSymbol = "eur" }), "order_fiat_symbol eur is not a supported currency"},
		{"currency missing or empty", q(func(q *checkout.DepositQuoteParams) { q.FiatSymbol = "" }), "order_fiat_symbol is required"},
		{"method of another currency", q(func(q *checkout.DepositQuoteParams) { q.Method = "gbp_bank_transfer" }), "fiat_payment_method gbp_bank_transfer is not available for EUR"},
		{"method of another currency (USD)", q(func(q *checkout.DepositQuoteParams) { q.Method = "pm_cash_app" }), "fiat_payment_method pm_cash_app is not available for EUR"},
		{"unknown method", q(func(q *checkout.DepositQuoteParams) { q.Method = "pm_nope" }), "fiat_payment_method pm_nope is not available for EUR"},

		// order_fiat_amount.
		{"amount missing or empty", amount(""), "order_fiat_amount is required"},
		{"amount not a number", amount("lots"), "order_fiat_amount must be a positive decimal with at most 2 decimal places, such as 100.00"},
		{"amount negative", amount("-100"), "order_fiat_amount must be a positive decimal"},
		{"amount zero", amount("0.00"), "order_fiat_amount must be a positive decimal"},
		{"amount too precise", amount("100.001"), "order_fiat_amount must be a positive decimal with at most 2 decimal places"},
		{"amount in exponent form", amount("1e2"), "order_fiat_amount must be a positive decimal"},
		{"amount with a currency", amount("100 EUR"), "order_fiat_amount must be a positive decimal"},

		// The asset and its network.
		{"network missing", q(func(q *checkout.DepositQuoteParams) { q.CryptoNetwork = "" }), "convert_to_crypto_network is required"},
		{"network unknown", q(func(q *checkout.DepositQuoteParams) { q.CryptoNetwork = "mainnet" }), `convert_to_crypto_network "mainnet" is not a supported network`},
		{"symbol missing", q(func(q *checkout.DepositQuoteParams) { q.CryptoSymbol = "" }), "convert_to_crypto_symbol is required"},
		{"symbol not configured", q(func(q *checkout.DepositQuoteParams) { q.CryptoSymbol = "BTC" }), "convert_to_crypto_symbol BTC is not valid for network devnet"},
		{"symbol lowercase", q(func(q *checkout.DepositQuoteParams) { q.CryptoSymbol = "eth" }), "convert_to_crypto_symbol eth is not valid for network devnet"},
		{"contract address for the native coin", q(func(q *checkout.DepositQuoteParams) { q.ContractAddress = token }),
			"convert_to_crypto_contractAddress must be empty for ETH, the native coin of devnet"},
		{"token with another contract", func(p *checkout.DepositOrderParams) { w.inToken(p); p.Quote.ContractAddress = nft },
			"convert_to_crypto_contractAddress " + nft + " is not the contract of DUSD on devnet"},
		{"token with a malformed address", func(p *checkout.DepositOrderParams) { w.inToken(p); p.Quote.ContractAddress = "0x1234" }, "convert_to_crypto_contractAddress"},

		// The user_* fields (DESIGN.md "KYC"), as B1 checks them (a mobile number may come
		// without its plus sign: TestSpecInputs).
		{"email not an address", user("user_email_id", "not-an-email"), "user_email_id must be an e-mail address"},
		{"mobile with a leading zero", user("user_mobileNumber", "0447700900123"), "user_mobileNumber must be an international number"},
		{"dob day first", user("user_dob", "10-12-1990"), "user_dob must be a date written yyyy-mm-dd"},
		{"dob in the future", user("user_dob", w.clock.today().Add(48*time.Hour).Format(time.DateOnly)), "user_dob must be in the past"},
		{"country lowercase", user("user_countryCode", "gb"), "user_countryCode must be an ISO 3166-1 alpha-2 country code"},
		{"post code with symbols", user("user_postCode", "SW1A_1AA"), "user_postCode must be letters, digits, spaces and hyphens"},
		{"city too long", user("user_city", strings.Repeat("c", 101)), "user_city must be at most 100 characters"},

		// The order's own fields.
		{"merchant_user_id missing", func(p *checkout.DepositOrderParams) { p.Order.MerchantUserID = "" }, "merchant_user_id is required"},
		{"redirect missing", func(p *checkout.DepositOrderParams) { p.Order.MerchantRedirectURL = "" }, "merchant_redirect_url is required"},
		{"redirect relative", func(p *checkout.DepositOrderParams) { p.Order.MerchantRedirectURL = "shop/back" }, "merchant_redirect_url must be an absolute http(s) URL"},
		{"webhook not http", func(p *checkout.DepositOrderParams) { p.Order.MerchantWebhookURL = "ftp://x" }, "merchant_webhook_url must be an absolute http(s) URL"},
		{"merchant_txn_id too long", func(p *checkout.DepositOrderParams) { p.Order.MerchantTxnID = strings.Repeat("t", 257) }, "merchant_txn_id must be at most 256 characters"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := w.svc.CreateDepositOrder(ctx, w.merchant, w.depositParams(tc.edit))
			if c != nil {
				t.Fatalf("created %s", c.Order.ID)
			}
			wantError(t, err, rampway.EINVALID, tc.msg)
		})
	}

	// No deposit address for the asset: onboard one first. Another merchant has none; this one
	// loses its ETH address, then gets it back.
	other, err := w.merchants.Create(ctx, merchant.CreateParams{Name: "Other"})
	if err != nil {
		t.Fatal(err)
	}
	for _, edit := range []func(p *checkout.DepositOrderParams){nil, w.inToken} {
		p := w.depositParams(edit)
		_, err := w.svc.CreateDepositOrder(ctx, other, p)
		wantError(t, err, rampway.EINVALID, "The merchant has no deposit address for "+p.Quote.CryptoSymbol+" on devnet: onboard one first")
	}
	if err := w.addresses.Delete(ctx, w.merchant.ID, "devnet", "ETH"); err != nil {
		t.Fatal(err)
	}
	_, err = w.svc.CreateDepositOrder(ctx, w.merchant, w.depositParams(nil))
	wantError(t, err, rampway.EINVALID, "The merchant has no deposit address for ETH on devnet: onboard one first")

	// A refused request stores nothing.
	if os := w.orders(rampway.AreaDeposit, ""); len(os) != 0 {
		t.Fatalf("%d orders stored by refused requests", len(os))
	}
	// Onboarded again, the same request is an order.
	w.onboardOne("ETH", payoutETH)
	if _, err := w.svc.CreateDepositOrder(ctx, w.merchant, w.depositParams(func(p *checkout.DepositOrderParams) { p.Order.User = identity() })); err != nil {
		t.Fatal(err)
	}
}

// TestDepositOrderUnavailable: a hot wallet that cannot deliver the amount, and a currency
// without a price, are unavailable (not the merchant's fault), saying so without the wallet's
// address; nothing is stored.
func TestDepositOrderUnavailable(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.onboard()
	ctx := t.Context()
	// No price for EUR: nothing converts it.
	eur := w.prices["EUR"]
	delete(w.prices, "EUR")
	_, err := w.svc.CreateDepositOrder(ctx, w.merchant, w.depositParams(nil))
	wantError(t, err, rampway.EUNAVAILABLE, "No current price converts EUR into ETH: try again later")
	w.prices["EUR"] = eur

	// The hot wallet sends nearly all its ETH away: 100 EUR of ETH is more than it has.
	c := w.chain.Client()
	hot, _ := crypto.HexToECDSA(hotWalletKey)
	bal, err := c.BalanceAt(ctx, w.hotWallet, nil)
	if err != nil {
		t.Fatal(err)
	}
	tx := devchaintest.SignTx(t, c, w.chain.ChainID(), hot, 0, common.Address{0x01}, new(big.Int).Sub(bal, big.NewInt(5e15)), nil, 21_000)
	if err := c.SendTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	if _, err := w.chain.Mine(); err != nil {
		t.Fatal(err)
	}
	for _, edit := range []func(p *checkout.DepositOrderParams){nil, func(p *checkout.DepositOrderParams) { p.Quote.Method = "" }} {
		_, err := w.svc.CreateDepositOrder(ctx, w.merchant, w.depositParams(edit))
		wantError(t, err, rampway.EUNAVAILABLE, "The service cannot deliver ")
		if msg := rampway.ErrorMessage(err); !strings.Contains(msg, " ETH on devnet at the moment: try a smaller amount or again later") ||
			strings.Contains(strings.ToLower(msg), strings.ToLower(w.hotWallet.Hex()[2:])) {
			t.Fatalf("message %q", msg)
		}
	}
	if os := w.orders(rampway.AreaDeposit, ""); len(os) != 0 {
		t.Fatalf("%d orders stored by refused requests", len(os))
	}
	// The token still goes: the hot wallet holds DUSD.
	if _, err := w.svc.CreateDepositOrder(ctx, w.merchant, w.depositParams(w.inToken)); err != nil {
		t.Fatal(err)
	}
}

// TestDepositOrderLookups: an area C order is found in area C, in its merchant's scope, and
// listed there (by status, a page at a time, with its fiat side and deposit address); area B's
// orders are neither found nor listed there, nor area C's in B.
func TestDepositOrderLookups(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.onboard()
	ctx := t.Context()
	var ids []string // oldest first
	for i, edit := range []func(p *checkout.DepositOrderParams){nil, w.inToken, func(p *checkout.DepositOrderParams) { p.Quote.Method = "" }} {
		c, err := w.svc.CreateDepositOrder(ctx, w.merchant, w.depositParams(func(p *checkout.DepositOrderParams) {
			p.Order.MerchantTxnID = "txn-" + string(rune('a'+i))
			if edit != nil {
				edit(p)
			}
		}))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, c.Order.ID)
	}
	ramp, err := w.svc.CreateFiatOrder(ctx, w.merchant, w.fiatParams(nil))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.svc.Cancel(ctx, ids[1]); err != nil {
		t.Fatal(err)
	}

	if o, err := w.svc.Order(ctx, w.scope(), rampway.AreaDeposit, ids[0]); err != nil || o.ID != ids[0] || o.MerchantTxnID != "txn-a" {
		t.Fatalf("lookup %+v, %v", o, err)
	}
	other, err := w.merchants.Create(ctx, merchant.CreateParams{Name: "Other"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		scope rampway.Scope
		id    string
	}{{w.scope(), ramp.Order.ID}, {rampway.MerchantScope(other.ID, false), ids[0]}} {
		_, err := w.svc.Order(ctx, c.scope, rampway.AreaDeposit, c.id)
		wantError(t, err, rampway.ENOTFOUND, `Order "`+c.id+`" not found`)
	}
	live := false
	if os, err := w.svc.Orders(ctx, rampway.OrderFilter{MerchantID: other.ID, Livemode: live, Area: rampway.AreaDeposit, Limit: 10}); err != nil || len(os) != 0 {
		t.Fatalf("another merchant's list %+v, %v", os, err)
	}

	list := func(status rampway.OrderStatus, before string, limit int) []string {
		t.Helper()
		os, err := w.svc.Orders(ctx, rampway.OrderFilter{MerchantID: w.merchant.ID, Livemode: live, Area: rampway.AreaDeposit, Status: status, Before: before, Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, o := range os {
			out = append(out, o.ID)
			want := payoutETH
			if o.Asset.Symbol == "DUSD" {
				want = payoutDUSD
			}
			if o.FiatSymbol != "EUR" || o.FiatAmount.Int64() != 10000 || o.PayoutAddress != want {
				t.Fatalf("listed without its fiat side or deposit address: %+v", o)
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
		{"", "", 10, []string{ids[2], ids[1], ids[0]}},
		{rampway.StatusCreated, "", 10, []string{ids[2], ids[0]}},
		{rampway.StatusCancelled, "", 10, []string{ids[1]}},
		{rampway.StatusOnrampSuccess, "", 10, nil},
		{rampway.StatusDepositProcessing, "", 10, nil},
		{"", "", 2, []string{ids[2], ids[1]}},
		{"", ids[1], 2, []string{ids[0]}},
		{rampway.StatusCreated, ids[2], 1, []string{ids[0]}},
	} {
		if got := list(c.status, c.before, c.limit); !slices.Equal(got, c.want) {
			t.Fatalf("list %s after %q, limit %d: %v, want %v", c.status, c.before, c.limit, got, c.want)
		}
	}
	// Area C's orders are not in area B's list.
	if os := w.orders(rampway.AreaNFTRamp, ""); len(os) != 1 || os[0].ID != ramp.Order.ID {
		t.Fatalf("area B list %+v", os)
	}
}

// TestDepositOrderQuoteArithmetic: the crypto amount worked out here from the configuration (the
// method's fee, the spread, the static prices), the node's fee data and the merchant's service
// fee, exactly: the fiat amount less the method's fee (bps and fixed) and the spread, converted
// at the prices and rounded down to the base unit, less the transfer's network fee and the
// service fee, rounded down to 5 significant digits (the rounding goes to the network fee).
func TestDepositOrderQuoteArithmetic(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.onboard()
	ctx := t.Context()
	fee := int64(75)
	if _, err := w.merchants.Update(ctx, w.merchant.ID, merchant.UpdateParams{SetServiceFeeBPS: true, ServiceFeeBPS: &fee}); err != nil {
		t.Fatal(err)
	}
	w.reload()
	for _, tc := range []struct {
		name, currency, method, amount string
		token                          bool
		why                            string
	}{
		{"EUR card into ETH", "EUR", "credit_debit_card", "123.45", false, ""},
		{"GBP open banking into DUSD", "GBP", "pm_open_banking", "987.65", true, ""},
		{"USD Cash App into ETH", "USD", "pm_cash_app", "20.01", false, ""},
		{"EUR SEPA into DUSD", "EUR", "sepa_bank_transfer", "4321.09", true, ""},
		// (693.11 - 0.25) / 1.029 / 1.01 EUR at 1.08 USD is exactly 720 DUSD.
		{"EUR card into exactly 720 DUSD", "EUR", "credit_debit_card", "693.11", true,
			"priceDeposit once rounded each step to 18 places and landed one base unit short (719.999999): one exact fraction, floored once"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The fee data the quote reads: the head's base fee and the node's tip (the dev
			// chain mines no block meanwhile).
			head, err := w.chain.Client().HeaderByNumber(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			tip, err := w.chain.Client().SuggestGasTipCap(ctx)
			if err != nil {
				t.Fatal(err)
			}
			c, err := w.svc.CreateDepositOrder(ctx, w.merchant, w.depositParams(func(p *checkout.DepositOrderParams) {
				p.Quote.FiatSymbol, p.Quote.Method, p.Quote.FiatAmount = tc.currency, tc.method, tc.amount
				if tc.token {
					w.inToken(p)
				}
			}))
			if err != nil {
				t.Fatal(err)
			}
			got, err := w.store.Order(ctx, c.Order.ID)
			if err != nil {
				t.Fatal(err)
			}
			if after, _ := w.chain.Client().HeaderByNumber(ctx, nil); after.Number.Cmp(head.Number) != 0 {
				t.Fatal("a block was mined during the quote")
			}

			// The configuration: the method's fee, the spread, the prices.
			var cur rampway.FiatCurrency
			for _, c := range testFiat() {
				if c.Symbol == tc.currency {
					cur = c
				}
			}
			m, ok := cur.Method(tc.method)
			if !ok {
				t.Fatalf("no %s for %s", tc.method, tc.currency)
			}
			asset, native := rampway.Asset{Symbol: "ETH", Decimals: 18}, rampway.Asset{Symbol: "ETH", Decimals: 18}
			if tc.token {
				asset = rampway.Asset{Symbol: "DUSD", Decimals: 6}
			}
			const spreadBPS, serviceBPS = 100, 75
			ten := func(n int) decimal.Decimal { return decimal.New(1, int32(n)) }
			minor := decimal.RequireFromString(tc.amount).Shift(int32(cur.Decimals))
			// gross = (minor - fixed) / (1 + fee) / (1 + spread) in the currency's minor units,
			// at fiat/USD over asset/USD, in the asset's base units, rounded down.
			num := minor.Sub(decimal.NewFromInt(m.FeeFixed)).Mul(ten(8)).Mul(w.prices[tc.currency]).Mul(ten(int(asset.Decimals)))
			den := decimal.NewFromInt((10_000 + m.FeeBPS) * (10_000 + spreadBPS)).Mul(ten(int(cur.Decimals))).Mul(w.prices[asset.Symbol])
			grossD, _ := num.QuoRem(den, 0)
			gross := grossD.BigInt()
			// The network fee: the transfer's gas at base fee plus tip, in wei, converted into
			// the asset at the prices, rounded up.
			wei := decimal.NewFromBigInt(new(big.Int).Add(head.BaseFee, tip), 0).Mul(decimal.NewFromInt(int64(got.GasLimit)))
			networkFee := wei.BigInt()
			if asset.Symbol != native.Symbol {
				n := wei.Mul(w.prices[native.Symbol]).Mul(ten(int(asset.Decimals)))
				d := ten(int(native.Decimals)).Mul(w.prices[asset.Symbol])
				q, r := n.QuoRem(d, 0)
				if r.Sign() > 0 {
					q = q.Add(decimal.NewFromInt(1))
				}
				networkFee = q.BigInt()
			}
			// The service fee: 75 bps of the gross, rounded up.
			sq, sr := decimal.NewFromBigInt(gross, 0).Mul(decimal.NewFromInt(serviceBPS)).QuoRem(decimal.NewFromInt(10_000), 0)
			if sr.Sign() > 0 {
				sq = sq.Add(decimal.NewFromInt(1))
			}
			serviceFee := sq.BigInt()
			// What remains, rounded down to 5 significant digits.
			exact := new(big.Int).Sub(gross, networkFee)
			exact.Sub(exact, serviceFee)
			unit := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(max(len(exact.String())-5, 0))), nil)
			want := new(big.Int).Mul(new(big.Int).Quo(exact, unit), unit)
			networkFee.Add(networkFee, new(big.Int).Sub(exact, want))

			// The stored order's amounts, and what C1 answered, exactly.
			d := asset.Decimals
			if c.Order.CryptoAmount.Cmp(want) != 0 || got.CryptoAmount.Cmp(want) != 0 {
				t.Errorf("crypto amount %s (stored %s), want %s: gross %s, network fee %s, service fee %s", rampway.FormatUnits(c.Order.CryptoAmount, d),
					rampway.FormatUnits(got.CryptoAmount, d), rampway.FormatUnits(want, d), rampway.FormatUnits(gross, d),
					rampway.FormatUnits(networkFee, d), rampway.FormatUnits(serviceFee, d))
			}
			if got.NetworkFee.Cmp(networkFee) != 0 {
				t.Errorf("network fee %s, want %s", rampway.FormatUnits(got.NetworkFee, d), rampway.FormatUnits(networkFee, d))
			}
			if got.ServiceFee.Cmp(serviceFee) != 0 {
				t.Errorf("service fee %s, want %s", rampway.FormatUnits(got.ServiceFee, d), rampway.FormatUnits(serviceFee, d))
			}
			// How the fiat amount was priced: the fees off it, exactly, and what was converted.
			if pr := got.FiatPricing; pr == nil || pr.SpreadBPS != spreadBPS || pr.MethodFeeBPS != m.FeeBPS ||
				pr.CryptoPriceUSD != w.prices[asset.Symbol].String() || pr.FiatPriceUSD != w.prices[tc.currency].String() ||
				!decimal.RequireFromString(pr.Subtotal).Add(decimal.RequireFromString(pr.Spread)).Add(decimal.RequireFromString(pr.MethodFee)).
					Equal(decimal.RequireFromString(tc.amount)) ||
				decimal.RequireFromString(pr.MethodFee).IsZero() != (m.FeeBPS == 0 && m.FeeFixed == 0) {
				t.Errorf("fiat pricing %+v of %s %s", pr, tc.amount, tc.currency)
			}
			// And the parts add up to the converted amount, from the order's own figures.
			sum := new(big.Int).Add(got.CryptoAmount, got.NetworkFee)
			if sum.Add(sum, got.ServiceFee); sum.Cmp(gross) != 0 {
				t.Errorf("crypto amount + network fee + service fee = %s, converted %s", rampway.FormatUnits(sum, d), rampway.FormatUnits(gross, d))
			}
		})
	}
}
