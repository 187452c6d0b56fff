package sandbox

import (
	"html/template"
	"net/http"
	"strings"
	"time"

	"github.com/rampway/rampway"
)

// The sandbox's own pages, as a provider hosts them: where the page's card form posts, the
// 3-D Secure challenge, the wallet sheets and the approval page of the redirect methods. Each
// action sends the user back to the payment's return URL (the checkout page). Every page says
// first, in a banner, that it is the sandbox: test data only, no real money moves.

// Routes are the patterns Handler serves (provider.Router).
func (p *Provider) Routes() []string {
	base := "/providers/" + p.cfg.Name + "/pay/{id}/"
	return []string{"POST " + base + "card", "GET " + base + "{step}", "POST " + base + "{step}"}
}

var page = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:28rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}
.box{border:1px solid #ccc;border-radius:8px;padding:1.25rem}
.amount{font-size:1.5rem;font-weight:600;margin:.5rem 0 1rem}
button{font:inherit;padding:.7rem 1rem;border-radius:6px;border:1px solid #1a1a1a;margin:.25rem .25rem .25rem 0;min-height:44px;cursor:pointer}
button.primary{background:#1a1a1a;color:#fff}
.sandbox{margin:0 0 1rem;padding:.75rem 1rem;border:2px solid #8a4b00;border-radius:8px;background:#fff4ce;color:#3d2c00;font-weight:600}
</style></head>
<body>
<p class="sandbox" id="sandbox-banner" role="note" aria-label="Sandbox">Sandbox — test data only. No real money moves.</p>
<main class="box">
<h1>{{.Title}}</h1>
<p class="amount">{{.Amount}}</p>
<p>{{.Text}}</p>
<form method="post">
{{range .Buttons}}<button type="submit" name="result" value="{{.Value}}"{{if .Primary}} class="primary"{{end}}>{{.Label}}</button>
{{end}}</form>
</main></body></html>`))

type button struct {
	Value, Label string
	Primary      bool
}

type view struct {
	Title, Amount, Text string
	Buttons             []button
}

// Handler serves the sandbox's pages.
func (p *Provider) Handler() http.Handler {
	mux := http.NewServeMux()
	routes := p.Routes()
	mux.HandleFunc(routes[0], p.handleCard)
	mux.HandleFunc(routes[1], p.handleStep)
	mux.HandleFunc(routes[2], p.handleStep)
	return secured(mux)
}

// secured sets the pages' headers: no script at all, forms posting only here.
func secured(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Referrer-Policy", "no-referrer")
		w.Header().Set("Cache-Control", "no-store")
		h.ServeHTTP(w, r)
	})
}

func (p *Provider) load(w http.ResponseWriter, r *http.Request) (*Payment, bool) {
	pay, err := p.store.SandboxPayment(r.Context(), r.PathValue("id"), false)
	if err != nil {
		code := http.StatusInternalServerError
		if rampway.ErrorCode(err) == rampway.ENOTFOUND {
			code = http.StatusNotFound
		}
		http.Error(w, http.StatusText(code), code)
		return nil, false
	}
	return pay, true
}

func back(w http.ResponseWriter, r *http.Request, pay *Payment) {
	http.Redirect(w, r, pay.ReturnURL, http.StatusSeeOther)
}

// handleCard takes the checkout page's card form: a valid test card authorises, declines or
// asks for a 3-D Secure challenge; any other valid card authorises; an invalid one declines.
// Only the brand and the last four digits are kept.
func (p *Provider) handleCard(w http.ResponseWriter, r *http.Request) {
	pay, ok := p.load(w, r)
	if !ok {
		return
	}
	if pay.Status != rampway.FiatPending || pay.Method != rampway.MethodCard {
		back(w, r, pay)
		return
	}
	number := strings.Map(func(c rune) rune {
		if c == ' ' || c == '-' {
			return -1
		}
		return c
	}, r.PostFormValue("card_number"))
	reason := checkCard(number, r.PostFormValue("expiry"), r.PostFormValue("cvc"), r.PostFormValue("name"), p.now())
	brand, last4 := Brand(number), ""
	if len(number) >= 4 {
		last4 = number[len(number)-4:]
	}
	var err error
	switch {
	case reason != "":
		err = p.move(r.Context(), pay, rampway.ProviderPaymentFailed, func(x *Payment) {
			x.Status, x.CardBrand, x.CardLast4 = rampway.FiatFailed, brand, last4
		}, eventData{Reason: reason}, nil)
	case number == CardDecline:
		err = p.move(r.Context(), pay, rampway.ProviderPaymentFailed, func(x *Payment) {
			x.Status, x.CardBrand, x.CardLast4 = rampway.FiatFailed, brand, last4
		}, eventData{Reason: "Your card was declined"}, nil)
	case number == CardThreeDS:
		err = p.move(r.Context(), pay, rampway.ProviderPaymentProcessing, func(x *Payment) {
			x.Status, x.CardBrand, x.CardLast4 = rampway.FiatProcessing, brand, last4
		}, eventData{NextURL: p.challengeURL(pay)}, nil)
		if err == nil {
			http.Redirect(w, r, p.challengeURL(pay), http.StatusSeeOther)
			return
		}
	default:
		err = p.move(r.Context(), pay, rampway.ProviderPaymentAuthorized, func(x *Payment) {
			x.Status, x.CardBrand, x.CardLast4 = rampway.FiatAuthorized, brand, last4
		}, eventData{}, nil)
	}
	if err != nil && rampway.ErrorCode(err) != rampway.ECONFLICT {
		http.Error(w, "the sandbox could not record the payment", http.StatusInternalServerError)
		return
	}
	back(w, r, pay)
}

// checkCard returns why card details are refused ("" when they are not).
func checkCard(number, expiry, cvc, name string, now time.Time) string {
	if len(number) < 12 || len(number) > 19 || !digits(number) || !luhn(number) {
		return "The card number is not valid"
	}
	mm, yy, ok := strings.Cut(strings.ReplaceAll(expiry, " ", ""), "/")
	if !ok || len(mm) != 2 || len(yy) != 2 || !digits(mm) || !digits(yy) || mm < "01" || mm > "12" {
		return "The expiry date must be MM/YY"
	}
	exp, _ := time.Parse("01/06", mm+"/"+yy)
	if !exp.AddDate(0, 1, 0).After(now) {
		return "The card has expired"
	}
	if (len(cvc) != 3 && len(cvc) != 4) || !digits(cvc) {
		return "The security code must be 3 or 4 digits"
	}
	if strings.TrimSpace(name) == "" {
		return "The name on the card is required"
	}
	return ""
}

func digits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

func luhn(n string) bool {
	sum := 0
	for i := range len(n) {
		d := int(n[len(n)-1-i] - '0')
		if i%2 == 1 {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return sum%10 == 0
}

// Brand names a card's network by its number.
func Brand(n string) string {
	switch {
	case strings.HasPrefix(n, "4"):
		return "visa"
	case len(n) >= 2 && n[0] == '5' && n[1] >= '1' && n[1] <= '5', strings.HasPrefix(n, "22"), strings.HasPrefix(n, "27"):
		return "mastercard"
	case strings.HasPrefix(n, "34"), strings.HasPrefix(n, "37"):
		return "amex"
	}
	return "card"
}

// steps are the pages after the card form: what each shows and what each answer does.
var steps = map[string]struct {
	title, text string
	status      rampway.FiatPaymentStatus // the payment's state the page acts on
	buttons     []button
}{
	"3ds": {"3-D Secure authentication", "Your bank asks you to confirm this payment.", rampway.FiatProcessing,
		[]button{{"complete", "Complete authentication", true}, {"fail", "Fail authentication", false}}},
	"wallet": {"", "Confirm the payment in your wallet.", rampway.FiatPending,
		[]button{{"pay", "Pay", true}, {"cancel", "Cancel", false}}},
	"approve": {"", "Approve this payment from your account.", rampway.FiatPending,
		[]button{{"approve", "Approve payment", true}, {"reject", "Reject payment", false}}},
}

var methodNames = map[string]string{rampway.MethodApplePay: "Apple Pay", rampway.MethodGooglePay: "Google Pay",
	rampway.MethodOpenBanking: "Open banking", rampway.MethodCashApp: "Cash App", rampway.MethodJWire: "JWire"}

func (p *Provider) handleStep(w http.ResponseWriter, r *http.Request) {
	st, ok := steps[r.PathValue("step")]
	if !ok {
		http.NotFound(w, r)
		return
	}
	pay, ok := p.load(w, r)
	if !ok {
		return
	}
	if pay.Status != st.status {
		back(w, r, pay) // done already, or not for this page
		return
	}
	if r.Method == http.MethodGet {
		title := st.title
		if title == "" {
			title = methodNames[pay.Method] + " (sandbox)"
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_ = page.Execute(w, view{Title: title, Amount: rampway.FormatFixed(pay.Amount, pay.Decimals) + " " + pay.Currency, Text: st.text, Buttons: st.buttons})
		return
	}
	var err error
	switch r.PostFormValue("result") {
	case "complete", "pay":
		err = p.move(r.Context(), pay, rampway.ProviderPaymentAuthorized, func(x *Payment) {
			x.Status = rampway.FiatAuthorized
			if x.CardBrand == "" { // a wallet's card
				x.CardBrand, x.CardLast4 = "visa", "4242"
			}
		}, eventData{}, nil)
	case "approve":
		_, err = p.credit(r.Context(), pay, pay.Amount)
	case "fail":
		err = p.move(r.Context(), pay, rampway.ProviderPaymentFailed, func(x *Payment) { x.Status = rampway.FiatFailed },
			eventData{Reason: "Authentication failed"}, nil)
	case "reject":
		err = p.move(r.Context(), pay, rampway.ProviderPaymentFailed, func(x *Payment) { x.Status = rampway.FiatFailed },
			eventData{Reason: "The payment was rejected"}, nil)
	case "cancel": // the sheet closed: the payment waits as it was
	default:
		http.Error(w, "result must be one of the page's buttons", http.StatusBadRequest)
		return
	}
	if err != nil && rampway.ErrorCode(err) != rampway.ECONFLICT {
		http.Error(w, "the sandbox could not record the payment", http.StatusInternalServerError)
		return
	}
	back(w, r, pay)
}
