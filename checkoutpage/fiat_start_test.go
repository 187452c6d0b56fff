package checkoutpage

import (
	"context"
	"html"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/rampway/rampway"
)

// startingFiat is a fiat checkout that counts the payments it starts: the first start opens
// one (a card form), after which it is the order's open payment. fail makes a start fail.
type startingFiat struct {
	fakeFiat
	starts int
	fail   error
}

func (f *startingFiat) StartFiatPayment(ctx context.Context, o *rampway.Order, back string) (*rampway.FiatPayment, error) {
	if f.fail != nil {
		return nil, f.fail
	}
	f.starts++
	f.next = &rampway.NextAction{Kind: "card_form", URL: "https://pay.example/providers/sandbox/pay/sbp_1/card"}
	return f.fakeFiat.StartFiatPayment(ctx, o, back)
}
func (f *startingFiat) OpenFiatPayment(ctx context.Context, o *rampway.Order) (*rampway.FiatPayment, error) {
	return f.fakeFiat.OpenFiatPayment(ctx, o)
}

// A GET (or HEAD) of a fiat order's page starts no payment, however often it comes (link
// previewers and prefetchers open URLs): the page asks the person to start it ("Pay 25.00 EUR
// by card"), a POST of that form starts it and goes back to the page, which shows the card
// form. A POST for an order not ready for it (the identity step first) starts nothing; one the
// provider refuses shows the step again with the refusal (503).
func TestFiatPageStartsNothingOnGET(t *testing.T) {
	o := fiatOrder(rampway.AreaNFTRamp, rampway.StatusCreated, rampway.MethodCard)
	f := &startingFiat{fakeFiat: fakeFiat{complete: true}}
	h := New(Config{}, Deps{Store: &viewStore{order: o}, Checkout: f, Fiat: f, Chains: viewChains{}, Log: slog.New(slog.DiscardHandler)})
	do := func(method, target string, form url.Values) *httptest.ResponseRecorder {
		t.Helper()
		var req *http.Request
		if form == nil {
			req = httptest.NewRequest(method, target, nil)
		} else {
			req = httptest.NewRequest(method, target, strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	pageURL := "/checkout?order_id=" + o.ID + "&hash=h"
	for i := range 3 {
		rec := do(http.MethodGet, pageURL, nil)
		page := rec.Body.String()
		if rec.Code != http.StatusOK || !strings.Contains(page, `<form method="post" action="/checkout/pay" id="start-form">`) ||
			!strings.Contains(page, `<button type="submit" class="primary" id="start-pay">Pay 25.00 EUR by card</button>`) ||
			strings.Contains(page, `id="card-form"`) {
			t.Fatalf("GET %d: %d, not the start step:\n%s", i, rec.Code, page)
		}
	}
	if rec := do(http.MethodHead, pageURL, nil); rec.Code != http.StatusOK {
		t.Fatalf("HEAD: %d", rec.Code)
	}
	if f.starts != 0 {
		t.Fatalf("GET and HEAD of the page started %d payments", f.starts)
	}

	f.complete = false // the identity step is still to do: nothing starts
	if rec := do(http.MethodPost, "/checkout/pay", url.Values{"order_id": {o.ID}, "hash": {"h"}}); rec.Code != http.StatusSeeOther || f.starts != 0 {
		t.Fatalf("POST before the identity step: %d, %d starts", rec.Code, f.starts)
	}
	f.complete = true
	f.fail = rampway.Errorf(rampway.EUNAVAILABLE, "provider down")
	if rec := do(http.MethodPost, "/checkout/pay", url.Values{"order_id": {o.ID}, "hash": {"h"}}); rec.Code != http.StatusServiceUnavailable ||
		!strings.Contains(rec.Body.String(), html.EscapeString(Messages["no_provider"])) || !strings.Contains(rec.Body.String(), `id="start-form"`) {
		t.Fatalf("a start the provider refused: %d\n%s", rec.Code, rec.Body)
	}
	f.fail = nil
	rec := do(http.MethodPost, "/checkout/pay", url.Values{"order_id": {o.ID}, "hash": {"h"}})
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != pageURL || f.starts != 1 {
		t.Fatalf("POST /checkout/pay: %d to %q, %d starts", rec.Code, rec.Header().Get("Location"), f.starts)
	}
	if rec := do(http.MethodGet, pageURL, nil); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `id="card-form"`) ||
		strings.Contains(rec.Body.String(), `id="start-form"`) || f.starts != 1 {
		t.Fatalf("the page after the start: %d, %d starts\n%s", rec.Code, f.starts, rec.Body)
	}
}

// The sandbox's card form is rampway's own (rampway.FormFirst): the page shows it at once,
// still starting nothing on GET, posting to /checkout/pay, which starts the payment and hands
// the form on to it with a 307 (the browser posts it again, as it is): the page reads as it
// did before payments were started by a POST (the dev-mode contract's card form).
func TestFiatPageFormFirst(t *testing.T) {
	o := fiatOrder(rampway.AreaNFTRamp, rampway.StatusCreated, rampway.MethodCard)
	f := &startingFiat{fakeFiat: fakeFiat{complete: true, formFirst: true}}
	h := New(Config{}, Deps{Store: &viewStore{order: o}, Checkout: f, Fiat: f, Chains: viewChains{}, Log: slog.New(slog.DiscardHandler)})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/checkout?order_id="+o.ID+"&hash=h", nil))
	page := rec.Body.String()
	action := `<form method="post" action="/checkout/pay?order_id=` + o.ID + `&amp;hash=h" id="card-form"`
	if rec.Code != http.StatusOK || !strings.Contains(page, action) || strings.Contains(page, `id="start-form"`) || f.starts != 0 {
		t.Fatalf("GET: %d, %d starts, want the card form posting to /checkout/pay:\n%s", rec.Code, f.starts, page)
	}
	card := url.Values{"card_number": {"4242424242424242"}, "expiry": {"12/34"}, "cvc": {"123"}, "name": {"Ada Lovelace"}}
	req := httptest.NewRequest(http.MethodPost, "/checkout/pay?order_id="+o.ID+"&hash=h", strings.NewReader(card.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusTemporaryRedirect || rec.Header().Get("Location") != "https://pay.example/providers/sandbox/pay/sbp_1/card" || f.starts != 1 {
		t.Fatalf("the card form's post: %d to %q, %d starts", rec.Code, rec.Header().Get("Location"), f.starts)
	}
	if strings.Contains(rec.Body.String(), "4242") {
		t.Fatal("the card number is echoed")
	}
	_ = html.EscapeString
}
