package checkoutpage

import (
	"bytes"
	"context"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/checkout"
	"github.com/rampway/rampway/provider"
)

// The checkout of a fiat-paid order (area B): what is bought and its price in the currency,
// the quote's countdown, the identity step (prefilled from the order's user_* fields, skipped
// when they are complete), the start step ("Pay 25.00 EUR by card": a form posted to
// /checkout/pay, for a GET of the page starts nothing at the provider, whoever opens its URL:
// a link previewer, a prefetcher), the payment step of the order's method (the card form,
// posting to the provider, never to rampway; a wallet sheet; a redirect to approve; bank
// details with copy buttons and the reference), then live progress to the end and the way back.

// FiatCheckout is the use cases a fiat checkout calls (checkout.Service).
type FiatCheckout interface {
	// StartFiatPayment returns the order's payment waiting for the user, or starts one;
	// ECONFLICT when the order takes no payment.
	StartFiatPayment(ctx context.Context, o *rampway.Order, returnURL string) (*rampway.FiatPayment, error)
	// OpenFiatPayment returns the order's payment waiting for the user, or nil: it starts
	// nothing (a GET of the page calls it). ECONFLICT when the order takes no payment.
	OpenFiatPayment(ctx context.Context, o *rampway.Order) (*rampway.FiatPayment, error)
	// FormFirst reports whether the order's payment starts from the provider's form (an
	// in-process provider's card form), shown before the payment exists; its post starts the payment.
	FormFirst(o *rampway.Order) bool
	FiatPayments(ctx context.Context, o *rampway.Order) ([]*rampway.FiatPayment, error)
	// SetIdentity stores the identity step's fields; EINVALID naming a field.
	SetIdentity(ctx context.Context, orderID string, fields map[string]string) (*rampway.Order, error)
	GatewayURL(orderID string) string
	// IdentityComplete reports whether the order carries every field of the identity step.
	IdentityComplete(o *rampway.Order) bool
	// FiatActions are the order's captures, voids and refunds.
	FiatActions(ctx context.Context, o *rampway.Order) ([]*rampway.FiatAction, error)
	// ChooseFiatMethod settles an area C order's method, with the quote of it the order kept.
	ChooseFiatMethod(ctx context.Context, o *rampway.Order, method string) (*rampway.Order, error)
}

// checkout.Service is the page's fiat use cases (Deps.Fiat).
var _ FiatCheckout = (*checkout.Service)(nil)

// methodLabel capitalises a method's name for a button ("card" -> "Card").
func methodLabel(name string) string {
	if name == "" {
		return name
	}
	return strings.ToUpper(name[:1]) + name[1:]
}

// MethodChoice is a line of area C's quote screen: a method, its fee and what it delivers.
type MethodChoice struct {
	ID, Name, Fee, Delivers string
}

// fiatMessages are the fiat checkout's texts (joined to Messages).
var fiatMessages = map[string]string{
	"fiat_amount":          "Amount to pay",
	"fiat_includes":        "Includes the payment method's fee and the exchange spread",
	"quote_expires_in":     "Price held for",
	"identity":             "Your details",
	"identity_note":        "The payment provider needs these to process your payment.",
	"first_name":           "First name",
	"last_name":            "Last name",
	"email":                "E-mail",
	"dob":                  "Date of birth",
	"country":              "Country of residence",
	"country_choose":       "Choose your country",
	"continue":             "Continue",
	"payment":              "Payment",
	"card_number":          "Card number",
	"card_expiry":          "Expiry date",
	"card_expiry_hint":     "MM/YY",
	"card_cvc":             "Security code",
	"card_name":            "Name on card",
	"pay":                  "Pay",
	"pay_with":             "Pay with",
	"start_pay":            "Pay {amount} by {method}",
	"declined":             "Your payment did not go through: {reason}. You can try again.",
	"bank_intro":           "Send a bank transfer of exactly this amount with this reference. Your order completes when it arrives.",
	"bank_beneficiary":     "Beneficiary",
	"bank_iban":            "IBAN",
	"bank_bic":             "BIC",
	"bank_sort_code":       "Sort code",
	"bank_account":         "Account number",
	"bank_reference":       "Reference",
	"copy_value":           "Copy {what}",
	"redirect_note":        "You will approve the payment on your provider's page, then come back here.",
	"choose_method":        "Choose how to pay",
	"choose_note":          "Each way of paying has its own fee: here is what your amount buys with each.",
	"method_fee":           "Fee",
	"delivers":             "Delivered",
	"deposit_of":           "Deposit of {amount} {symbol}",
	"deposit_in":           "Deposit in {symbol}",
	"price_delivered":      "Delivered to {merchant}",
	"bank_returned":        "A transfer of {amount} arrived that could not be used ({reason}): it is being sent back to you. Send {total} with the same reference.",
	"authenticate":         "Your bank asks you to confirm the payment",
	"authenticate_link":    "Continue to your bank's confirmation",
	"st_ONRAMP_PROCESSING": "Your payment is being confirmed",
	"st_choose":            "Choose how to pay",
	"st_identity":          "Enter your details to pay",
	"st_bank":              "Waiting for your bank transfer",
	"st_ONRAMP_SUCCESS":    "Payment received: completing your order",
	"card_in":              "Paid with {brand} ending in {last4}",
	"no_provider":          "Payments are not available right now. Nothing was charged: try again later.",
}

func init() {
	for k, v := range fiatMessages {
		Messages[k] = v
	}
}

// fiatData is what templates/fiat.html renders.
type fiatData struct {
	OrderID, Hash string
	Header        Header
	Price         Summary
	Amount        string // "25.00 EUR"
	MethodName    string
	ExpiresAt     string
	// Countdown is the time left as the page first shows it (its script ticks it).
	Countdown string
	Status    *Status
	// Step is what the page asks now: "choose", "identity", "start" (the button that starts
	// the payment), "card", "wallet", "redirect", "bank", "widget" (the provider's own form),
	// "authenticate", or ""
	// (nothing: the payment is on its way, or the order is over).
	Step string
	// StartLabel is the start step's button: "Pay 25.00 EUR by card".
	StartLabel string
	Identity   map[string]string
	// FieldError names the identity field refused, with Error its message.
	FieldError, Error string
	// Declined is why the last payment failed ("" when it did not).
	Declined string
	// Returned says a transfer to this order could not be used and is sent back.
	Returned  string
	ActionURL string
	Bank      *rampway.BankAccount
	Card      string // "Paid with visa ending in 4242"
	// Choices are area C's quote screen (Step "choose").
	Choices []MethodChoice
	// Widget is the provider's own form (Step "widget"), rendered, and WidgetScripts the
	// scripts it needs: the provider's, then its own.
	Widget        template.HTML
	WidgetScripts []string
	I18N          map[string]string
	// Livemode is the order's mode: a test order's page is marked "Test mode" on every step
	// (block "testmode").
	Livemode bool
	// Outcome is what the page says at the end (block "outcome").
	Outcome           Outcome
	ReturnAfterSecond int
}

// pageWidget is a payment provider module's widget (provider.Widget), its template parsed with
// the page's functions.
type pageWidget struct {
	*provider.Widget
	tmpl *template.Template
}

// parseWidgets parses the registered modules' widgets, by the next-action kind they serve.
func parseWidgets(funcs template.FuncMap) map[string]*pageWidget {
	out := map[string]*pageWidget{}
	for kind, w := range provider.Widgets() {
		out[kind] = &pageWidget{Widget: w, tmpl: template.Must(template.New(kind).Funcs(funcs).Parse(w.Template))}
	}
	return out
}

// widgetScript is the URL of a widget's own script.
func widgetScript(kind string) string { return "/checkout/widgets/" + url.PathEscape(kind) + ".js" }

// handleWidgetScript serves a widget's own script.
func (h *Handler) handleWidgetScript(w http.ResponseWriter, r *http.Request) {
	wd, ok := h.widgets[strings.TrimSuffix(r.PathValue("file"), ".js")]
	if !ok || !strings.HasSuffix(r.PathValue("file"), ".js") {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(wd.Script)
}

// allowWidget widens the page's CSP for a widget: its provider's script, API and frame origins;
// nothing else changes.
func allowWidget(h http.Header, c provider.CSP) {
	csp := h.Get("Content-Security-Policy")
	if len(c.Script) > 0 {
		csp = strings.Replace(csp, "script-src 'self'", "script-src 'self' "+strings.Join(c.Script, " "), 1)
	}
	if len(c.Connect) > 0 {
		csp = strings.Replace(csp, "connect-src 'self'", "connect-src 'self' "+strings.Join(c.Connect, " "), 1)
	}
	if len(c.Frame) > 0 {
		csp = strings.Replace(csp, "default-src 'none';", "default-src 'none'; frame-src "+strings.Join(c.Frame, " ")+";", 1)
	}
	h.Set("Content-Security-Policy", csp)
}

// methodNames are the payment methods' names on the page.
var methodNames = map[string]string{rampway.MethodCard: "card", rampway.MethodApplePay: "Apple Pay", rampway.MethodGooglePay: "Google Pay",
	rampway.MethodSEPABankTransfer: "SEPA bank transfer", rampway.MethodGBPBankTransfer: "bank transfer", rampway.MethodOpenBanking: "open banking",
	rampway.MethodCashApp: "Cash App", rampway.MethodJWire: "JWire", rampway.MethodSEPADebit: "SEPA Direct Debit"}

// fiatPosted is what a form of the fiat page brings back to it: the identity step's refusal
// (identityErr) with the fields as entered, or a payment the provider could not start.
type fiatPosted struct {
	identityErr error
	form        map[string]string
	startFailed bool
}

// handleFiatPage renders the checkout of a fiat-paid order; posted (nil for a GET) is the
// refusal of a form to show. A GET (or HEAD) creates nothing: it reads the order's open
// payment, and that payment's state at the provider, only.
func (h *Handler) handleFiatPage(w http.ResponseWriter, r *http.Request, o *rampway.Order, posted *fiatPosted) {
	if posted == nil {
		posted = &fiatPosted{}
	}
	identityErr := posted.identityErr
	ctx := r.Context()
	st, err := h.status(ctx, o)
	if err != nil {
		h.log.Error("checkout page: status", "order_id", o.ID, "error", err)
		h.unavailable(w, r, false)
		return
	}
	hd := h.header(ctx, o)
	if o.Area == rampway.AreaDeposit {
		hd.ItemName = strings.NewReplacer("{amount}", forPeople(o.CryptoAmount, o.Asset.Decimals), "{symbol}", o.Asset.Symbol).Replace(Messages["deposit_of"])
		if o.FiatMethod == "" { // what it buys depends on the method: the quote screen says
			hd.ItemName = strings.ReplaceAll(Messages["deposit_in"], "{symbol}", o.Asset.Symbol)
		}
	}
	d := fiatData{OrderID: o.ID, Hash: r.FormValue("hash"), Header: hd, Price: fiatPriceLines(o, hd.MerchantName),
		Amount: rampway.FormatFixed(o.FiatAmount, o.FiatDecimals) + " " + o.FiatSymbol, MethodName: methodNames[o.FiatMethod],
		ExpiresAt: o.ExpiresAt.UTC().Format(rampway.TimeFormat), Countdown: humanDuration(o.ExpiresAt.Sub(h.now())), Status: st,
		Identity: map[string]string{}, I18N: Messages, Livemode: o.Livemode, Outcome: h.outcome(ctx, o, hd.MerchantName),
		ReturnAfterSecond: int(h.cfg.ReturnAfter / time.Second)}
	if d.MethodName == "" {
		d.MethodName = o.FiatMethod
	}
	for k, v := range o.User {
		d.Identity[k] = v
	}
	for k, v := range posted.form {
		d.Identity[k] = v
	}
	formTargets := []string{origin(o.MerchantRedirectURL)}
	var current *rampway.FiatPayment
	var widget *pageWidget // the provider's own form, when the payment mounts one
	starting := false      // no payment is open: the page offers to start one
	switch {
	case identityErr != nil:
		d.Step = "identity"
		var e *rampway.Error
		if errors.As(identityErr, &e) {
			// The API's message, with the field named as the form labels it.
			d.FieldError, d.Error = e.Field, e.Message
			for _, f := range identityFormFields() {
				if f.Name == e.Field {
					d.Error = strings.Replace(e.Message, e.Field, strings.SplitN(f.Label, " (", 2)[0], 1)
				}
			}
		}
	case o.Status == rampway.StatusOnrampProcessing:
		// A payment waits on the user at the provider (a 3-D Secure challenge left open):
		// the way back to it.
		if ps, err := h.fiat.FiatPayments(ctx, o); err == nil {
			for _, p := range ps {
				if p.Status == rampway.FiatProcessing && p.Next != nil && p.Next.URL != "" {
					d.Step, d.ActionURL = "authenticate", p.Next.URL
				}
			}
		}
	case o.Status != rampway.StatusCreated:
	case o.FiatMethod == "":
		// Area C without a method: the quote screen first (the spec's rule), with the quotes
		// the order kept from its creation.
		d.Step = "choose"
		for _, q := range o.MethodQuotes {
			name := q.Name
			if name == "" {
				name = methodNames[q.Method]
			}
			if name == "" {
				name = q.Method
			}
			d.Choices = append(d.Choices, MethodChoice{ID: q.Method, Name: methodLabel(name),
				Fee:      rampway.FormatFixed(q.MethodFee, o.FiatDecimals) + " " + o.FiatSymbol,
				Delivers: forPeople(q.CryptoAmount, o.Asset.Decimals) + " " + o.Asset.Symbol})
		}
	case !h.fiat.IdentityComplete(o):
		d.Step = "identity"
	default:
		sctx, cancel := context.WithTimeout(ctx, fiatTimeout)
		p, err := h.fiat.OpenFiatPayment(sctx, o)
		cancel()
		switch {
		case rampway.ErrorCode(err) == rampway.ECONFLICT: // paid or closed meanwhile: show where it is
			http.Redirect(w, r, h.fiat.GatewayURL(o.ID), http.StatusSeeOther)
			return
		case err != nil:
			h.log.Error("checkout page: open fiat payment", "order_id", o.ID, "error", err)
			d.Error = Messages["no_provider"]
		case p == nil || p.ProviderRef == "":
			// Nothing started (or a start cut short): the person starts it, with a POST: the
			// start step's button, or the provider's form, shown at once, whose post starts
			// the payment and goes on to the provider (handleStartPayment).
			starting = true
			if h.fiat.FormFirst(o) {
				d.Step = "card"
				d.ActionURL = "/checkout/pay?order_id=" + url.QueryEscape(o.ID) + "&hash=" + url.QueryEscape(r.FormValue("hash"))
				// The post goes on (307) to the provider's form, on rampway's public origin.
				formTargets = append(formTargets, origin(h.fiat.GatewayURL(o.ID)))
			} else {
				d.Step = "start"
				d.StartLabel = strings.NewReplacer("{amount}", d.Amount, "{method}", d.MethodName).Replace(Messages["start_pay"])
			}
			if posted.startFailed {
				d.Error = Messages["no_provider"]
			}
		default:
			current = p
		}
		if current == nil {
			break
		}
		if p.Next != nil {
			d.ActionURL, d.Bank = p.Next.URL, p.Next.Bank
			switch p.Next.Kind {
			case "card_form":
				d.Step = "card"
				formTargets = append(formTargets, origin(p.Next.URL))
			case "wallet":
				d.Step = "wallet"
			case "redirect":
				d.Step = "redirect"
			case "bank_transfer":
				d.Step = "bank"
			default:
				if wd := h.widgets[p.Next.Kind]; wd != nil {
					var buf bytes.Buffer
					err := wd.tmpl.ExecuteTemplate(&buf, "widget", provider.WidgetData{Meta: p.Next.Meta, Amount: d.Amount,
						ReturnURL: h.fiat.GatewayURL(o.ID), ScriptURL: widgetScript(p.Next.Kind)})
					if err != nil {
						h.log.Error("checkout page: render widget", "order_id", o.ID, "kind", p.Next.Kind, "error", err)
						h.unavailable(w, r, false)
						return
					}
					d.Step, d.Widget, widget = "widget", template.HTML(buf.String()), wd
					d.WidgetScripts = append(slices.Clone(wd.Scripts), widgetScript(p.Next.Kind))
				}
			}
		}
	}
	if d.Step == "bank" {
		// A transfer that could not pay the order (short, or in another currency) is sent back:
		// the page says so, with what to send.
		if as, err := h.fiat.FiatActions(ctx, o); err == nil {
			for _, a := range as {
				if a.Kind == rampway.ActionRefund && strings.HasPrefix(a.Cause, "refund:credit:") {
					d.Returned = strings.NewReplacer("{amount}", rampway.FormatFixed(a.Amount, o.FiatDecimals)+" "+a.Currency,
						"{reason}", a.Reason, "{total}", d.Amount).Replace(Messages["bank_returned"])
				}
			}
		}
	}
	ps, err := h.fiat.FiatPayments(ctx, o)
	if err != nil {
		h.log.Error("checkout page: fiat payments", "order_id", o.ID, "error", err)
		h.unavailable(w, r, false)
		return
	}
	var failed *rampway.FiatPayment
	for i, p := range ps {
		if p.ID == o.FiatPaymentID && p.CardLast4 != "" {
			d.Card = strings.NewReplacer("{brand}", p.CardBrand, "{last4}", p.CardLast4).Replace(Messages["card_in"])
		}
		// The attempt before the one the page offers failed (or, at the start step, the last
		// one): say why, and offer another.
		switch {
		case current != nil && p.ID == current.ID && i > 0 && ps[i-1].Status == rampway.FiatFailed:
			failed = ps[i-1]
		case starting && i == len(ps)-1 && p.Status == rampway.FiatFailed:
			failed = p
		}
	}
	if failed != nil {
		reason := strings.TrimSuffix(failed.FailureReason, ".")
		if reason == "" {
			reason = "it was declined"
		}
		d.Declined = strings.ReplaceAll(Messages["declined"], "{reason}", reason)
	}
	// What the status says before a payment: what the step asks.
	if o.Status == rampway.StatusCreated {
		switch d.Step {
		case "choose", "identity", "bank":
			st.Text = Messages["st_"+d.Step]
		}
	}
	var buf bytes.Buffer
	if err := h.fiatPg.Execute(&buf, d); err != nil {
		h.log.Error("checkout page: render", "order_id", o.ID, "error", err)
		h.unavailable(w, r, false)
		return
	}
	securityHeaders(w, strings.Join(formTargets, " "), d.Header.images()...)
	if widget != nil {
		allowWidget(w.Header(), widget.CSP)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	switch {
	case identityErr != nil:
		w.WriteHeader(http.StatusBadRequest)
	case posted.startFailed:
		w.Header().Set("Retry-After", "2")
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	_, _ = w.Write(buf.Bytes())
	if err := h.recordOpen(ctx, o); err != nil {
		h.log.Warn("checkout page: record widget open", "order_id", o.ID, "error", err)
	}
}

// handleIdentity takes the identity step's form: stored and back to the page, or the page again
// with the field refused.
func (h *Handler) handleIdentity(w http.ResponseWriter, r *http.Request) {
	if !h.readForm(w, r, 8192) {
		return
	}
	o := h.order(w, r, false)
	if o == nil {
		return
	}
	if o.FiatSymbol == "" || o.Status != rampway.StatusCreated {
		http.Redirect(w, r, h.fiat.GatewayURL(o.ID), http.StatusSeeOther)
		return
	}
	fields := map[string]string{}
	for _, f := range identityFormFields() {
		fields[f.Name] = strings.TrimSpace(r.PostFormValue(f.Name))
	}
	if _, err := h.fiat.SetIdentity(r.Context(), o.ID, fields); err != nil {
		if rampway.ErrorCode(err) == rampway.EINVALID {
			h.handleFiatPage(w, r, o, &fiatPosted{identityErr: err, form: fields})
			return
		}
		h.log.Error("checkout page: identity", "order_id", o.ID, "error", err)
		h.unavailable(w, r, false)
		return
	}
	http.Redirect(w, r, "/checkout?order_id="+url.QueryEscape(o.ID)+"&hash="+url.QueryEscape(r.FormValue("hash")), http.StatusSeeOther)
}

// handleStartPayment takes the start step's form: the order's payment is started at the
// provider (or the open one found), then back to the page, which shows its step. An order
// that takes no payment now (paid, closed, a step before this one left) goes back to the
// page too, which shows where it is.
func (h *Handler) handleStartPayment(w http.ResponseWriter, r *http.Request) {
	o, back := h.formOrder(w, r, 4096)
	if o == nil {
		return
	}
	if o.FiatSymbol == "" || o.Status != rampway.StatusCreated || o.FiatMethod == "" || !h.fiat.IdentityComplete(o) {
		http.Redirect(w, r, back, http.StatusSeeOther)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), fiatTimeout)
	p, err := h.fiat.StartFiatPayment(ctx, o, h.fiat.GatewayURL(o.ID))
	cancel()
	if err != nil && rampway.ErrorCode(err) != rampway.ECONFLICT { // ECONFLICT: paid or closed meanwhile
		h.log.Error("checkout page: start fiat payment", "order_id", o.ID, "error", err)
		h.handleFiatPage(w, r, o, &fiatPosted{startFailed: true})
		return
	}
	if err == nil && p.Next != nil && p.Next.Kind == "card_form" && r.PostForm.Has("card_number") {
		// The provider's own form, posted here first (rampway.FormFirst): 307, so that the
		// browser posts it again, as it is, to the payment it started. Nothing of it is read
		// or kept here.
		http.Redirect(w, r, p.Next.URL, http.StatusTemporaryRedirect)
		return
	}
	http.Redirect(w, r, back, http.StatusSeeOther)
}

// fiatTimeout bounds what a fiat page asks of the provider.
const fiatTimeout = 10 * time.Second

// handleMethod takes area C's quote screen's choice: the order's method, then its page.
func (h *Handler) handleMethod(w http.ResponseWriter, r *http.Request) {
	o, back := h.formOrder(w, r, 4096)
	if o == nil {
		return
	}
	if _, err := h.fiat.ChooseFiatMethod(r.Context(), o, r.PostFormValue("method")); err != nil {
		switch rampway.ErrorCode(err) {
		case rampway.ECONFLICT, rampway.EINVALID: // chosen already, or not one of the currency's: the page shows where it is
		default:
			h.log.Error("checkout page: choose method", "order_id", o.ID, "error", err)
			h.unavailable(w, r, false)
			return
		}
	}
	http.Redirect(w, r, back, http.StatusSeeOther)
}

// identityField is a field of the identity step's form; Type "select" is the list of
// countries.
type identityField struct{ Name, Label, Type, Autocomplete string }

// identityFormFields are the identity step's fields, in the form's order.
func identityFormFields() []identityField {
	return []identityField{{"user_first_name", Messages["first_name"], "text", "given-name"},
		{"user_last_name", Messages["last_name"], "text", "family-name"}, {"user_email_id", Messages["email"], "email", "email"},
		{"user_dob", Messages["dob"], "date", "bday"}, {"user_countryCode", Messages["country"], "select", "country"}}
}

// fiatTemplate parses templates/fiat.html with the header blocks.
func fiatTemplate(funcs template.FuncMap) *template.Template {
	fs := template.FuncMap{"identityFields": identityFormFields, "methodIcon": MethodIcon, "countries": func() []Country { return countries },
		"iban": groupIBAN, "ibanText": ibanText}
	for k, v := range funcs {
		fs[k] = v
	}
	return template.Must(template.New("fiat.html").Funcs(fs).ParseFS(templateFS, "templates/fiat.html", "templates/header.html"))
}
