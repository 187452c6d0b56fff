package dashboard

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/rampway/rampway"
)

// Deps are the use cases the dashboard's pages call. Accounts is required; a page whose use
// cases are nil is not served (its routes answer 404 and the navigation does not show it).
type Deps struct {
	Accounts *Accounts
	Log      *slog.Logger
	// Merchants lists the merchants an operator picks from, and a merchant's API keys and
	// webhook settings (merchant.Service).
	Merchants Merchants
	// Orders reads and searches orders, their refunds, payments and webhook log
	// (checkout.Records and the store's dashboard reads).
	Orders Orders
	// Refunds creates, approves and refuses refunds (checkout.Refunds).
	Refunds Refunds
	// Functions is the registry of contract functions (contract.Registry).
	Functions Functions
	// Deposits are merchants' deposit addresses of area C (merchant.DepositAddresses).
	Deposits DepositAddresses
	// Stats are the overview's figures (the store).
	Stats Stats
	// TestEvents sends the Developers page's test events (the webhook dispatcher); nil: the
	// page offers none.
	TestEvents TestEvents
}

// ModeCookie remembers the mode (test or live) the dashboard shows; it is a preference, not a
// credential: every read and write is still scoped by the session's merchant.
const ModeCookie = "rampway_dashboard_mode"

// req is a signed-in request, checked: the session, its user, the merchant the page is about
// (the user's own; the one an operator picked), and the mode shown.
type req struct {
	Session  *rampway.DashboardSession
	User     *rampway.DashboardUser
	Merchant *rampway.Merchant
	// Merchants are those an operator may pick from (nil for a merchant's user).
	Merchants []*rampway.Merchant
	Livemode  bool
}

// MerchantID is the merchant the page is about; "" when an operator has none to pick.
func (q *req) MerchantID() string {
	if q.Merchant == nil {
		return ""
	}
	return q.Merchant.ID
}

// Scope is the orders the request may see: its merchant's, of the mode shown.
func (q *req) Scope() rampway.Scope { return rampway.MerchantScope(q.MerchantID(), q.Livemode) }

// Can reports whether the user may do action.
func (q *req) Can(action string) bool {
	return rampway.Can(q.User.Role, rampway.DashboardAction(action))
}

// Mode is "live" or "test".
func (q *req) Mode() string {
	if q.Livemode {
		return "live"
	}
	return "test"
}

// audit records a change the user made; a failure to record it is logged (the change is made).
func (h *Handler) audit(ctx context.Context, q *req, action, subject, detail string) {
	e := &rampway.AuditEntry{ID: rampway.NewID(rampway.PrefixAuditEntry, time.Now()), MerchantID: q.MerchantID(), UserID: q.User.ID,
		Action: action, Subject: subject, Detail: detail, At: time.Now().UTC().Truncate(time.Microsecond)}
	if err := h.acc.store.AddAuditEntry(ctx, e); err != nil {
		h.log.Error("dashboard audit entry", "action", action, "subject", subject, "err", err)
	}
}

// handle wraps a page: the session is required (a GET without one goes to the sign-in page, a
// POST is refused), the user's role must allow action (403 otherwise), a POST must carry the
// session's CSRF token (403 otherwise, nothing done), and the merchant and mode are resolved.
func (h *Handler) handle(action rampway.DashboardAction, fn func(http.ResponseWriter, *http.Request, *req)) http.HandlerFunc {
	return h.handleSized(action, maxFormSize, fn)
}

// handleSized is handle with another bound on the size of a POST's form, in bytes (a pasted
// contract ABI is larger than the forms of the other pages).
func (h *Handler) handleSized(action rampway.DashboardAction, maxBytes int64, fn func(http.ResponseWriter, *http.Request, *req)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		post := r.Method != http.MethodGet && r.Method != http.MethodHead
		if post {
			r.Body = http.MaxBytesReader(w, r.Body, maxBytes)
			if err := r.ParseForm(); err != nil {
				h.render(w, http.StatusBadRequest, "error.html", page{Title: "Bad request", Error: "The form could not be read."})
				return
			}
		}
		s, u, err := h.session(r)
		if err != nil {
			h.fail(w, r, err)
			return
		}
		if s == nil {
			if post {
				h.forbidden(w)
				return
			}
			to := "/dashboard/login"
			if p := r.URL.RequestURI(); p != "/dashboard/" {
				to += "?next=" + url.QueryEscape(p)
			}
			http.Redirect(w, r, to, http.StatusSeeOther)
			return
		}
		if post && !SameToken(s.CSRFToken, r.PostForm.Get(csrfField)) {
			h.forbidden(w)
			return
		}
		if !rampway.Can(u.Role, action) {
			h.render(w, http.StatusForbidden, "error.html", page{Title: "Forbidden", User: u, CSRFToken: s.CSRFToken,
				Error: fmt.Sprintf("A %s may not do this.", u.Role)})
			return
		}
		q := &req{Session: s, User: u}
		if c, err := r.Cookie(ModeCookie); err == nil && c.Value == "live" {
			q.Livemode = true
		}
		if err := h.resolveMerchant(r, q); err != nil {
			if rampway.ErrorCode(err) == rampway.ENOTFOUND {
				h.notFound(w, q)
				return
			}
			h.fail(w, r, err)
			return
		}
		fn(w, r, q)
	}
}

// resolveMerchant sets the merchant of q: a merchant's user's own; for an operator, the one
// named by the merchant parameter (query or form), else the first.
func (h *Handler) resolveMerchant(r *http.Request, q *req) error {
	ctx := r.Context()
	if q.User.MerchantID != "" {
		m, err := h.acc.Merchant(ctx, q.User.MerchantID)
		q.Merchant = m
		return err
	}
	if h.d.Merchants == nil {
		return nil
	}
	ms, err := h.d.Merchants.List(ctx, rampway.Page{Limit: 100})
	if err != nil {
		return err
	}
	q.Merchants = ms
	want := r.FormValue("merchant")
	for _, m := range ms {
		if m.ID == want || (want == "" && q.Merchant == nil) {
			q.Merchant = m
		}
	}
	if want != "" && (q.Merchant == nil || q.Merchant.ID != want) {
		m, err := h.acc.Merchant(ctx, want) // beyond the first hundred
		if err != nil {
			return err
		}
		q.Merchant = m
	}
	return nil
}

// setMode switches the mode shown, then goes back to the page the switch was on.
func (h *Handler) setMode(w http.ResponseWriter, r *http.Request, q *req) {
	mode := r.PostForm.Get("mode")
	if mode != "live" && mode != "test" {
		h.badRequest(w, q, "mode must be test or live")
		return
	}
	http.SetCookie(w, cookie(r, ModeCookie, mode, int((365*24*time.Hour)/time.Second)))
	http.Redirect(w, r, localPath(r.PostForm.Get("back"), "/dashboard/"), http.StatusSeeOther)
}

// localPath returns p when it is a path of the dashboard (never another site), else def.
func localPath(p, def string) string {
	if !strings.HasPrefix(p, "/dashboard/") || strings.HasPrefix(p, "//") || strings.ContainsAny(p, "\\\r\n") {
		return def
	}
	return p
}

// view is what a signed-in page's template reads: the request (user, merchant, mode, CSRF
// token), the page's title and section of the navigation, a notice, and the page's own data.
type view struct {
	Title string
	// Section is the navigation entry of the page: overview, orders, developers, catalogue,
	// refunds, users, audit, account.
	Section string
	// Notice is a message of what a form did ("Refund created"); Error one of what it could not.
	Notice, Error string
	// Path is the page's path with its query, for the mode switch's way back (the request's
	// when "").
	Path string
	Q    *req
	Nav  []navEntry
	Data any
}

type navEntry struct {
	Section, Label, Href string
}

// CSRFToken is the session's form token.
func (v *view) CSRFToken() string { return v.Q.Session.CSRFToken }

// nav lists the sections q's user may open, of those the dashboard serves.
func (h *Handler) nav(q *req) []navEntry {
	var n []navEntry
	add := func(ok bool, section, label string) {
		if ok {
			n = append(n, navEntry{section, label, "/dashboard/" + section})
		}
	}
	add(h.d.Stats != nil, "overview", "Overview")
	add(h.d.Orders != nil, "orders", "Orders")
	add(h.d.Merchants != nil && q.Can(string(rampway.DashDevelopers)), "developers", "Developers")
	add(h.d.Functions != nil && q.Can(string(rampway.DashConfigure)), "catalogue", "Catalogue")
	add(h.d.Refunds != nil && q.Can(string(rampway.DashAllMerchants)), "refunds", "Refunds")
	add(q.Can(string(rampway.DashManageUsers)), "users", "Users")
	add(q.Can(string(rampway.DashManageUsers)), "audit", "Audit log")
	add(true, "account", "Account")
	return n
}

// show renders a signed-in page.
func (h *Handler) show(w http.ResponseWriter, r *http.Request, q *req, status int, name string, v view) {
	v.Q = q
	v.Nav = h.nav(q)
	if v.Path == "" { // a POST's answer names the page to come back to
		v.Path = r.URL.RequestURI()
	}
	var buf strings.Builder
	if err := pages.ExecuteTemplate(&buf, name, &v); err != nil {
		h.log.Error("render dashboard page", "page", name, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(buf.String()))
}

func (h *Handler) notFound(w http.ResponseWriter, q *req) {
	h.render(w, http.StatusNotFound, "error.html", page{Title: "Not found", User: q.User, CSRFToken: q.Session.CSRFToken,
		Error: "There is no such page of the dashboard, or nothing by that id that you may see."})
}

func (h *Handler) badRequest(w http.ResponseWriter, q *req, msg string) {
	h.render(w, http.StatusBadRequest, "error.html", page{Title: "Bad request", User: q.User, CSRFToken: q.Session.CSRFToken, Error: msg})
}

// userError answers err: a *rampway.Error a user can act on (invalid, not found, conflict) with
// its message and status; anything else as a failure with an id in the log.
func (h *Handler) userError(w http.ResponseWriter, r *http.Request, q *req, err error) {
	var e *rampway.Error
	if errors.As(err, &e) {
		switch e.Code {
		case rampway.EINVALID:
			h.render(w, http.StatusBadRequest, "error.html", page{Title: "Bad request", User: q.User, CSRFToken: q.Session.CSRFToken, Error: e.Message})
			return
		case rampway.ENOTFOUND:
			h.notFound(w, q)
			return
		case rampway.ECONFLICT:
			h.render(w, http.StatusConflict, "error.html", page{Title: "Not possible now", User: q.User, CSRFToken: q.Session.CSRFToken, Error: e.Message})
			return
		}
	}
	h.fail(w, r, err)
}

// funcs are the templates' helpers.
var funcs = template.FuncMap{
	// when formats a time in UTC to the second; the zero time is "".
	"when": func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format("2006-01-02 15:04:05 UTC")
	},
	// whenp is when of a time that may be nil ("").
	"whenp": func(t *time.Time) string {
		if t == nil {
			return ""
		}
		return t.UTC().Format("2006-01-02 15:04:05 UTC")
	},
	// areaName names an order's area for people ("Mint (crypto)").
	"areaName": areaName,
	// units formats an integer amount of an asset with its decimals, exactly.
	"units": func(v *big.Int, decimals int) string {
		if v == nil {
			return ""
		}
		return rampway.FormatUnits(v, uint8(decimals))
	},
}
