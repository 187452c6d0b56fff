package sandbox_test

import (
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/internal/devtest"
	"github.com/rampway/rampway/provider/sandbox"
	"github.com/rampway/rampway/storetest"
)

var secret = []byte("test secret")

// newSandbox is a sandbox over a fresh SQLite store whose notifications go to hook.
func newSandbox(t *testing.T, hook string) *sandbox.Provider {
	return newSandboxAt(t, hook, nil)
}

// newSandboxAt is newSandbox on the clock now (time.Now when nil).
func newSandboxAt(t *testing.T, hook string, now func() time.Time) *sandbox.Provider {
	s := storetest.OpenSQLite(t)
	return sandbox.New(sandbox.Config{BaseURL: "https://pay.example", WebhookURL: hook, Secret: secret}, sandbox.NewBooks(s, sandbox.Name), now)
}

func start(t *testing.T, p *sandbox.Provider, id, method string) *rampway.ProviderPayment {
	t.Helper()
	pp, err := p.Start(t.Context(), rampway.StartFiatPayment{PaymentID: id, OrderID: "ord_1", Amount: big.NewInt(2500), Currency: "EUR",
		Decimals: 2, Method: method, ReturnURL: "https://pay.example/checkout?order_id=ord_1"})
	if err != nil {
		t.Fatal(err)
	}
	return pp
}

// A signature is checked against the body, the secret and the time; anything else is refused.
func TestVerify(t *testing.T) {
	body := []byte(`{"id":"sbe_1"}`)
	at := time.Unix(1_800_000_000, 0)
	h := sandbox.Sign(secret, body, at)
	if err := sandbox.Verify(secret, h, body, at.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		secret, body []byte
		header       string
		at           time.Time
	}{
		"tampered body":   {secret, []byte(`{"id":"sbe_2"}`), h, at},
		"other secret":    {[]byte("x"), body, h, at},
		"too old":         {secret, body, h, at.Add(6 * time.Minute)},
		"from the future": {secret, body, h, at.Add(-6 * time.Minute)},
		"no header":       {secret, body, "", at},
		"no v1":           {secret, body, "t=1800000000", at},
		"garbage":         {secret, body, "t=x,v1=y", at},
	} {
		if err := sandbox.Verify(tc.secret, tc.header, tc.body, tc.at); err == nil {
			t.Errorf("%s: verified", name)
		}
	}
}

// Start is idempotent under the payment id; the next action is the method's.
func TestStart(t *testing.T) {
	p := newSandbox(t, "http://127.0.0.1:1/hook")
	a := start(t, p, "fpy_1", rampway.MethodCard)
	if b := start(t, p, "fpy_1", rampway.MethodCard); b.Ref != a.Ref || a.Next.Kind != "card_form" || !strings.HasSuffix(a.Next.URL, "/providers/sandbox/pay/"+a.Ref+"/card") {
		t.Fatalf("%+v %+v", a, b)
	}
	bank := start(t, p, "fpy_2", rampway.MethodSEPABankTransfer)
	if bank.Next.Kind != "bank_transfer" || bank.Next.Bank.IBAN == "" || !strings.HasPrefix(bank.Reference, "RW-") || bank.Next.Bank.Reference != bank.Reference {
		t.Fatalf("bank: %+v %+v", bank, bank.Next.Bank)
	}
	if gbp := start(t, p, "fpy_3", rampway.MethodGBPBankTransfer); gbp.Next.Bank.SortCode == "" || gbp.Next.Bank.Account == "" {
		t.Fatalf("gbp: %+v", gbp.Next.Bank)
	}
	for _, m := range []string{rampway.MethodApplePay, rampway.MethodOpenBanking} {
		if pp := start(t, p, "fpy_"+m, m); pp.Next.URL == "" {
			t.Fatalf("%s: %+v", m, pp.Next)
		}
	}
	if _, err := p.Start(t.Context(), rampway.StartFiatPayment{PaymentID: "fpy_9", Amount: big.NewInt(1), Method: "pm_unknown"}); err == nil {
		t.Fatal("an unknown method started")
	}
}

// The card form: the test cards authorise, decline and challenge; a bad card declines; each is
// a signed notification delivered to the webhook, which ParseWebhook reads back.
func TestCardsAndNotifications(t *testing.T) {
	var got []*rampway.ProviderEvent
	var fail atomic.Bool
	var p *sandbox.Provider
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if fail.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		body := make([]byte, r.ContentLength)
		_, _ = r.Body.Read(body)
		ev, err := p.ParseWebhook(r.Header, body, time.Now())
		if err != nil {
			t.Errorf("parse: %v", err)
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		got = append(got, ev)
	}))
	defer hook.Close()
	clk := devtest.NewClock(time.Now()) // the sandbox's: it moves only when the test moves it
	p = newSandboxAt(t, hook.URL, clk.Now)
	pages := httptest.NewServer(p.Handler())
	defer pages.Close()
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	pay := func(id, number, expiry string) (string, *rampway.ProviderPayment) {
		pp := start(t, p, id, rampway.MethodCard)
		res, err := noFollow.PostForm(pages.URL+"/providers/sandbox/pay/"+pp.Ref+"/card", url.Values{"card_number": {number}, "expiry": {expiry},
			"cvc": {"123"}, "name": {"Ada"}})
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("%s: %d", number, res.StatusCode)
		}
		return res.Header.Get("Location"), pp
	}
	fail.Store(true) // the first delivery fails: it is sent again
	if loc, _ := pay("fpy_ok", sandbox.CardSuccess, "12/34"); !strings.HasPrefix(loc, "https://pay.example/checkout") {
		t.Fatalf("success went to %s", loc)
	}
	if n, _ := p.Deliver(t.Context()); n != 0 {
		t.Fatalf("delivered %d to a failing hook", n)
	}
	fail.Store(false)
	pay("fpy_no", sandbox.CardDecline, "12/34")
	pay("fpy_bad", "4242424242424241", "12/34") // fails the Luhn check
	pay("fpy_old", sandbox.CardSuccess, "01/20")
	loc, challenged := pay("fpy_3ds", sandbox.CardThreeDS, "12/34")
	if !strings.HasSuffix(loc, "/providers/sandbox/pay/"+challenged.Ref+"/3ds") {
		t.Fatalf("3-D Secure went to %s", loc)
	}
	// The four new notifications go at once; the failed first one is due again 5 seconds later.
	if n, err := p.Deliver(t.Context()); n != 4 || err != nil {
		t.Fatalf("delivered %d (%v), want the 4 new notifications", n, err)
	}
	clk.Advance(5*time.Second - time.Microsecond)
	if n, err := p.Deliver(t.Context()); n != 0 || err != nil {
		t.Fatalf("delivered %d (%v) before the failed one was due again", n, err)
	}
	clk.Advance(time.Microsecond)
	if n, err := p.Deliver(t.Context()); n != 1 || err != nil {
		t.Fatalf("delivered %d (%v) 5 s after the failure, want the failed one", n, err)
	}
	by := map[string]*rampway.ProviderEvent{}
	for _, ev := range got {
		by[ev.Type+" "+ev.FailureReason] = ev
	}
	for _, want := range []string{"payment.authorized ", "payment.failed Your card was declined", "payment.failed The card number is not valid",
		"payment.failed The card has expired", "payment.processing "} {
		if by[want] == nil {
			t.Errorf("no %q among %d notifications", want, len(got))
		}
	}
	if ev := by["payment.authorized "]; ev == nil || ev.CardBrand != "visa" || ev.CardLast4 != "4242" || ev.Status != rampway.FiatAuthorized {
		t.Fatalf("authorised: %+v", ev)
	}
}

// Capture, void and refund: once per key, whatever the retries; what cannot be done is refused.
func TestMoneyMovesOnce(t *testing.T) {
	p := newSandbox(t, "http://127.0.0.1:1/hook")
	ctx := t.Context()
	bank := start(t, p, "fpy_b", rampway.MethodSEPABankTransfer)
	if _, err := p.BankTransfer(ctx, bank.Reference, "30.00", "EUR"); err != nil {
		t.Fatal(err)
	}
	if _, err := p.BankTransfer(ctx, "RW-NOPE", "30.00", "EUR"); rampway.ErrorCode(err) != rampway.ENOTFOUND {
		t.Fatalf("unknown reference: %v", err)
	}
	for _, tc := range []struct{ amount, currency, field string }{{"-1", "EUR", "amount"}, {"1.001", "EUR", "amount"}, {"x", "EUR", "amount"}, {"1", "GBP", "currency"}} {
		if _, err := p.BankTransfer(ctx, bank.Reference, tc.amount, tc.currency); rampway.ErrorCode(err) != rampway.EINVALID || !strings.Contains(err.Error(), tc.field) {
			t.Fatalf("%v: %v", tc, err)
		}
	}
	r1, err := p.Refund(ctx, bank.Ref, big.NewInt(500), "fac_1")
	if err != nil {
		t.Fatal(err)
	}
	if r2, err := p.Refund(ctx, bank.Ref, big.NewInt(500), "fac_1"); err != nil || r2 != r1 {
		t.Fatalf("a retried refund: %s %v, want %s", r2, err, r1)
	}
	if _, err := p.Refund(ctx, bank.Ref, big.NewInt(2501), "fac_2"); err == nil {
		t.Fatal("refunded more than is left")
	}
	card := start(t, p, "fpy_c", rampway.MethodCard)
	if err := p.Capture(ctx, card.Ref, big.NewInt(2500), "fac_3"); err == nil {
		t.Fatal("captured a payment never authorised")
	}
	if err := p.Void(ctx, card.Ref, "fac_4"); err != nil {
		t.Fatal(err)
	}
	if err := p.Void(ctx, card.Ref, "fac_4"); err != nil {
		t.Fatalf("a retried void: %v", err)
	}
	if err := p.Void(ctx, card.Ref, "fac_5"); err == nil {
		t.Fatal("voided twice under two keys")
	}
	if _, err := p.Refund(ctx, card.Ref, big.NewInt(1), "fac_4"); err == nil {
		t.Fatal("a key used for a void was taken for a refund")
	}
}

// Every page of the sandbox (the 3-D Secure challenge, a wallet sheet, an approval page) says
// first, in a banner, that it is the sandbox: test data only, no real money moves.
func TestPagesSayTheyAreTheSandbox(t *testing.T) {
	p := newSandbox(t, "http://127.0.0.1:1/hook")
	pages := httptest.NewServer(p.Handler())
	defer pages.Close()
	get := func(t *testing.T, next string) string {
		t.Helper()
		u, err := url.Parse(next)
		if err != nil {
			t.Fatal(err)
		}
		res, err := http.Get(pages.URL + u.Path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, err := io.ReadAll(res.Body)
		if err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %v\n%s", u.Path, res.StatusCode, err, body)
		}
		return string(body)
	}
	challenge := start(t, p, "fpy_3ds", rampway.MethodCard)
	res, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).PostForm(
		pages.URL+"/providers/sandbox/pay/"+challenge.Ref+"/card",
		url.Values{"card_number": {sandbox.CardThreeDS}, "expiry": {"12/34"}, "cvc": {"123"}, "name": {"Ada"}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	banner := regexp.MustCompile(`<body>\s*<p class="sandbox" id="sandbox-banner" role="note" aria-label="Sandbox">Sandbox — test data only\. No real money moves\.</p>\s*<main`)
	for name, next := range map[string]string{
		"3-D Secure": res.Header.Get("Location"),
		"wallet":     start(t, p, "fpy_wallet", rampway.MethodApplePay).Next.URL,
		"approval":   start(t, p, "fpy_approve", rampway.MethodOpenBanking).Next.URL,
	} {
		if page := get(t, next); !banner.MatchString(page) {
			t.Errorf("%s page: no sandbox banner first:\n%s", name, page)
		}
	}
}
