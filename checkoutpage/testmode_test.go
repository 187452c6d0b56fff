package checkoutpage

import (
	"context"
	"html"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/rampway/rampway"
)

// fakeFiat is a fiat checkout whose open payment asks next (nil: no payment is open, the page
// asks the person to start one) once the identity is complete; payments are what it says the
// order's payments are.
type fakeFiat struct {
	anyHash
	complete bool
	next     *rampway.NextAction
	payments []*rampway.FiatPayment
	// formFirst: the provider's form comes before the payment (rampway.FormFirst).
	formFirst bool
}

func (f fakeFiat) FormFirst(*rampway.Order) bool { return f.formFirst }

func (f fakeFiat) StartFiatPayment(context.Context, *rampway.Order, string) (*rampway.FiatPayment, error) {
	return &rampway.FiatPayment{ID: "fpy_now", ProviderRef: "ref_now", Status: rampway.FiatPending, Next: f.next}, nil
}
func (f fakeFiat) OpenFiatPayment(context.Context, *rampway.Order) (*rampway.FiatPayment, error) {
	if f.next == nil {
		return nil, nil
	}
	return &rampway.FiatPayment{ID: "fpy_now", ProviderRef: "ref_now", Status: rampway.FiatPending, Next: f.next}, nil
}
func (f fakeFiat) FiatPayments(context.Context, *rampway.Order) ([]*rampway.FiatPayment, error) {
	return f.payments, nil
}
func (fakeFiat) SetIdentity(context.Context, string, map[string]string) (*rampway.Order, error) {
	return nil, rampway.Errorf(rampway.EUNAVAILABLE, "no identity in this test")
}
func (fakeFiat) GatewayURL(id string) string            { return "/checkout?order_id=" + id + "&hash=h" }
func (f fakeFiat) IdentityComplete(*rampway.Order) bool { return f.complete }
func (fakeFiat) FiatActions(context.Context, *rampway.Order) ([]*rampway.FiatAction, error) {
	return nil, nil
}
func (fakeFiat) ChooseFiatMethod(context.Context, *rampway.Order, string) (*rampway.Order, error) {
	return nil, rampway.Errorf(rampway.EUNAVAILABLE, "no choice in this test")
}

// awaitingRefund is a refund panel with one refund waiting for the user's address.
type awaitingRefund struct{}

func (awaitingRefund) OrderRefunds(context.Context, string) ([]*rampway.Refund, error) {
	return []*rampway.Refund{{ID: "rfd_1", Amount: big.NewInt(1000), Reason: "paid after expiry", Status: rampway.RefundAwaitingAddress}}, nil
}
func (awaitingRefund) SetAddress(context.Context, string, string, string, string) (*rampway.Refund, error) {
	return nil, rampway.Errorf(rampway.EUNAVAILABLE, "no address in this test")
}

func fiatOrder(area rampway.Area, status rampway.OrderStatus, method string) *rampway.Order {
	o := viewOrder(status, true, 25_000_000, 0)
	o.Area, o.FiatSymbol, o.FiatMethod, o.FiatAmount, o.FiatDecimals = area, "EUR", method, big.NewInt(2500), 2
	o.PaymentValue, o.NetworkFee, o.ServiceFee = big.NewInt(24_000_000), big.NewInt(500_000), big.NewInt(500_000)
	if area == rampway.AreaDeposit && method == "" {
		o.MethodQuotes = []rampway.MethodQuote{{Method: rampway.MethodCard, CryptoAmount: big.NewInt(24_000_000), MethodFee: big.NewInt(100)}}
	}
	return o
}

// testModeMark matches the mark of a test order, where it must be: the first thing in the
// page's main element, before the header.
var testModeMark = regexp.MustCompile(`<main id="checkout"[^>]*>\s*<p id="test-mode" class="testmode" role="note" aria-label="Test mode">` +
	`<strong class="badge">Test mode</strong>\s*<span>— no real money moves\. Use the test data you were given\.</span></p>\s*<header class="shop">`)

// i18nData is the page's texts for its script.
var i18nData = regexp.MustCompile(`<script type="application/json" id="i18n">[^<]*</script>`)

// A test order's page says "Test mode" first on every screen: the crypto page (waiting, paid,
// asking for a refund address) and each step of a fiat checkout (quote screen, identity, start,
// card form, wallet, redirect, bank details, 3-D Secure, waiting, success, failure). The same
// screens of a live order say nothing of it.
func TestTestModeMark(t *testing.T) {
	net := &rampway.Network{Name: "devnet", ChainID: big.NewInt(1337), Confirmations: 1, Native: rampway.Asset{Symbol: "ETH"}}
	card := &rampway.NextAction{Kind: "card_form", URL: "https://pay.example/providers/sandbox/pay/sbp_1/card"}
	bank := &rampway.NextAction{Kind: "bank_transfer", Bank: &rampway.BankAccount{Beneficiary: "rampway sandbox (test data only)",
		IBAN: "DE89370400440532013000", BIC: "COBADEFFXXX", Reference: "RW-TEST"}}
	challenge := []*rampway.FiatPayment{{ID: "fpy_1", Status: rampway.FiatProcessing,
		Next: &rampway.NextAction{Kind: "redirect", URL: "https://pay.example/providers/sandbox/pay/sbp_1/3ds"}}}
	failed := fiatOrder(rampway.AreaNFTRamp, rampway.StatusFailed, rampway.MethodCard)
	failed.FailureReason = "the call reverted"
	for _, tc := range []struct {
		name    string
		o       *rampway.Order
		fiat    *fakeFiat // nil: a crypto page
		refunds Refunds
		screen  string // in the page: it is the screen the case is about
	}{
		{"crypto waiting", viewOrder(rampway.StatusCreated, false, 1000, 0), nil, nil, `<section id="pay" aria-labelledby="pay-label" >`},
		{"crypto success", viewOrder(rampway.StatusSuccess, false, 1000, 1000), nil, nil, `data-state="SUCCESS"`},
		{"crypto refund address", viewOrder(rampway.StatusExpired, false, 1000, 0), nil, awaitingRefund{}, `class="refund-form"`},
		{"fiat quote screen", fiatOrder(rampway.AreaDeposit, rampway.StatusCreated, ""), &fakeFiat{}, nil, `id="methods"`},
		{"fiat identity", fiatOrder(rampway.AreaNFTRamp, rampway.StatusCreated, rampway.MethodCard), &fakeFiat{}, nil, `action="/checkout/identity"`},
		{"fiat start", fiatOrder(rampway.AreaNFTRamp, rampway.StatusCreated, rampway.MethodCard), &fakeFiat{complete: true}, nil, `id="start-form"`},
		{"fiat card form", fiatOrder(rampway.AreaNFTRamp, rampway.StatusCreated, rampway.MethodCard), &fakeFiat{complete: true, next: card}, nil, `id="card-form"`},
		{"fiat wallet", fiatOrder(rampway.AreaNFTRamp, rampway.StatusCreated, rampway.MethodApplePay),
			&fakeFiat{complete: true, next: &rampway.NextAction{Kind: "wallet", URL: "https://pay.example/w"}}, nil, `id="pay-link"`},
		{"fiat redirect", fiatOrder(rampway.AreaNFTRamp, rampway.StatusCreated, rampway.MethodOpenBanking),
			&fakeFiat{complete: true, next: &rampway.NextAction{Kind: "redirect", URL: "https://pay.example/a"}}, nil, html.EscapeString(Messages["redirect_note"])},
		{"fiat bank transfer", fiatOrder(rampway.AreaNFTRamp, rampway.StatusCreated, rampway.MethodSEPABankTransfer),
			&fakeFiat{complete: true, next: bank}, nil, `<dd>rampway sandbox (test data only)</dd>`},
		{"fiat 3-D Secure", fiatOrder(rampway.AreaNFTRamp, rampway.StatusOnrampProcessing, rampway.MethodCard),
			&fakeFiat{payments: challenge}, nil, html.EscapeString(Messages["authenticate_link"])},
		{"fiat waiting", fiatOrder(rampway.AreaNFTRamp, rampway.StatusOnrampProcessing, rampway.MethodCard), &fakeFiat{}, nil, `data-state="ONRAMP_PROCESSING"`},
		{"fiat success", fiatOrder(rampway.AreaNFTRamp, rampway.StatusSuccess, rampway.MethodCard), &fakeFiat{}, nil, `data-state="SUCCESS"`},
		{"fiat failure", failed, &fakeFiat{}, nil, `data-state="FAILED"`},
	} {
		for _, live := range []bool{false, true} {
			t.Run(tc.name+" "+rampway.ModeName(live), func(t *testing.T) {
				o := *tc.o
				o.Livemode = live
				deps := Deps{Store: &viewStore{order: &o}, Checkout: anyHash{}, Chains: viewChains{net}, Log: slog.New(slog.DiscardHandler)}
				if tc.fiat != nil {
					deps.Checkout, deps.Fiat = *tc.fiat, *tc.fiat
				}
				if tc.refunds != nil {
					deps.Refunds = tc.refunds
				}
				h := New(Config{}, deps)
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/checkout?order_id="+o.ID+"&hash=h", nil))
				page := rec.Body.String()
				if rec.Code != http.StatusOK || !strings.Contains(page, tc.screen) {
					t.Fatalf("%d, not the screen with %s:\n%s", rec.Code, tc.screen, page)
				}
				marked := testModeMark.MatchString(page)
				if !live && !marked {
					t.Errorf("a test order's page has no test-mode mark first in its main element:\n%s", page)
				}
				// Its texts are in the page's i18n data (all of Messages are); nowhere else.
				shown := i18nData.ReplaceAllString(page, "")
				if live && (marked || strings.Contains(shown, "testmode") || strings.Contains(shown, Messages["test_mode"])) {
					t.Errorf("a live order's page is marked test mode:\n%s", page)
				}
			})
		}
	}
}
