package dashboard

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/rampway/rampway"
)

// routeAccount registers a user's own account pages (every signed-in user: DashView) and the
// sign-in's second step.
func (h *Handler) routeAccount() {
	h.mux.HandleFunc("GET /dashboard/account", h.handle(rampway.DashView, h.account))
	h.mux.HandleFunc("POST /dashboard/account/password", h.handle(rampway.DashView, h.changePassword))
	h.mux.HandleFunc("GET /dashboard/account/totp", h.handle(rampway.DashView, h.totpSetup))
	h.mux.HandleFunc("POST /dashboard/account/totp", h.handle(rampway.DashView, h.totpEnable))
	h.mux.HandleFunc("POST /dashboard/account/totp/off", h.handle(rampway.DashView, h.totpDisable))
}

// accountView is the account pages' data.
type accountView struct {
	// TOTP says whether two-factor sign-in is on.
	TOTP bool
	// Secret and URI are a new TOTP secret to confirm (the set-up page), in base32 and as an
	// otpauth:// URI.
	Secret, URI string
}

// accountNotices are the messages of what a form on the account page did.
var accountNotices = map[string]string{
	"password": "Your password was changed; your other sessions have ended.",
	"totp_on":  "Two-factor sign-in is on: signing in now asks for a code of your authenticator app.",
	"totp_off": "Two-factor sign-in is off.",
}

// account shows the user's account: its password form and TOTP.
func (h *Handler) account(w http.ResponseWriter, r *http.Request, q *req) {
	h.showAccount(w, r, q, http.StatusOK, accountNotices[r.URL.Query().Get("done")], "")
}

func (h *Handler) showAccount(w http.ResponseWriter, r *http.Request, q *req, status int, notice, errMsg string) {
	h.show(w, r, q, status, "account.html", view{Title: "Your account", Section: "account", Notice: notice, Error: errMsg,
		Data: accountView{TOTP: q.User.TOTPSecret != ""}})
}

// accountError answers a failed account form: too many attempts (429, Retry-After), or a
// message the user can act on, on the page; anything else as a failure.
func (h *Handler) accountError(w http.ResponseWriter, r *http.Request, q *req, err error, again func(status int, msg string)) {
	var e *rampway.Error
	if errors.As(err, &e) && e.Code == rampway.ERATELIMIT {
		setRetryAfter(w, e.RetryAfter)
		again(http.StatusTooManyRequests, fmt.Sprintf("Too many failed attempts. Try again in %s.", minutes(e.RetryAfter)))
		return
	}
	if status, msg, ok := formError(err); ok {
		again(status, upperFirst(msg)+".")
		return
	}
	h.userError(w, r, q, err)
}

// accountDone redirects to the account page saying what was done.
func (h *Handler) accountDone(w http.ResponseWriter, r *http.Request, what string) {
	http.Redirect(w, r, "/dashboard/account?done="+what, http.StatusSeeOther)
}

// changePassword changes the user's own password (the current one required); the user's other
// sessions end.
func (h *Handler) changePassword(w http.ResponseWriter, r *http.Request, q *req) {
	again := func(status int, msg string) { h.showAccount(w, r, q, status, "", msg) }
	next := r.PostForm.Get("password")
	if next != r.PostForm.Get("password_again") {
		again(http.StatusBadRequest, "The two new passwords differ: type the same password twice.")
		return
	}
	if err := h.acc.ChangePassword(r.Context(), q.User, q.Session, r.PostForm.Get("current_password"), next, clientIP(r)); err != nil {
		h.accountError(w, r, q, err, again)
		return
	}
	h.accountDone(w, r, "password")
}

// totpSetup shows a new TOTP secret to add to an authenticator app, and the form confirming it
// with a code. It changes nothing: the secret is kept once the code confirms it.
func (h *Handler) totpSetup(w http.ResponseWriter, r *http.Request, q *req) {
	if q.User.TOTPSecret != "" {
		h.accountDone(w, r, "")
		return
	}
	h.showTOTPSetup(w, r, q, http.StatusOK, NewTOTPSecret(), "")
}

func (h *Handler) showTOTPSetup(w http.ResponseWriter, r *http.Request, q *req, status int, secret, errMsg string) {
	h.show(w, r, q, status, "account_totp.html", view{Title: "Turn on two-factor sign-in", Section: "account", Error: errMsg,
		Data: accountView{Secret: secret, URI: TOTPURI(secret, q.User.Email)}})
}

// totpEnable turns TOTP on with the secret of the set-up page, once its code is right.
func (h *Handler) totpEnable(w http.ResponseWriter, r *http.Request, q *req) {
	secret := r.PostForm.Get("secret")
	err := h.acc.EnableTOTP(r.Context(), q.User, secret, r.PostForm.Get("code"))
	if e := (*rampway.Error)(nil); errors.As(err, &e) && e.Field == "secret" {
		secret = NewTOTPSecret() // not one the dashboard made: a new one to start again with
	}
	if err != nil {
		h.accountError(w, r, q, err, func(status int, msg string) { h.showTOTPSetup(w, r, q, status, secret, msg) })
		return
	}
	h.accountDone(w, r, "totp_on")
}

// totpDisable turns TOTP off, given a current code.
func (h *Handler) totpDisable(w http.ResponseWriter, r *http.Request, q *req) {
	if err := h.acc.DisableTOTP(r.Context(), q.User, r.PostForm.Get("code"), clientIP(r)); err != nil {
		h.accountError(w, r, q, err, func(status int, msg string) { h.showAccount(w, r, q, status, "", msg) })
		return
	}
	h.accountDone(w, r, "totp_off")
}

// renderLoginCode shows the sign-in's second step: the TOTP code form of challenge.
func (h *Handler) renderLoginCode(w http.ResponseWriter, r *http.Request, status int, challenge, msg string) {
	h.render(w, status, "login_code.html", page{Title: "Sign in: code", CSRFToken: h.loginToken(w, r), Challenge: challenge, Error: msg,
		Next: localPath(r.FormValue("next"), "")})
}

// loginCode is the sign-in's second step: the code of the user's authenticator app.
func (h *Handler) loginCode(w http.ResponseWriter, r *http.Request) {
	if !h.signedOutForm(w, r) {
		return
	}
	challenge := r.PostForm.Get("challenge")
	in, err := h.acc.LoginCode(r.Context(), challenge, r.PostForm.Get("code"), clientIP(r), r.UserAgent())
	var e *rampway.Error
	switch {
	case err == nil:
	case errors.As(err, &e) && e.Code == rampway.ERATELIMIT:
		setRetryAfter(w, e.RetryAfter)
		h.renderLoginCode(w, r, http.StatusTooManyRequests, challenge,
			fmt.Sprintf("Too many failed sign-ins. Try again in %s.", minutes(e.RetryAfter)))
		return
	case errors.As(err, &e) && e.Code == rampway.EUNAUTHORIZED && e.Field == "code":
		h.renderLoginCode(w, r, http.StatusUnauthorized, challenge, "The code is wrong. Enter the 6 digits your authenticator app shows now.")
		return
	case errors.As(err, &e) && e.Code == rampway.EUNAUTHORIZED:
		h.renderLogin(w, r, http.StatusUnauthorized, "", "The sign-in has expired: enter your email and password again.")
		return
	default:
		h.fail(w, r, err)
		return
	}
	h.signedIn(w, r, in, localPath(r.PostForm.Get("next"), "/dashboard/"))
}

// setRetryAfter sets Retry-After to d in whole seconds (at least one).
func setRetryAfter(w http.ResponseWriter, d time.Duration) {
	secs := int(d.Round(time.Second) / time.Second)
	w.Header().Set("Retry-After", strconv.Itoa(max(secs, 1)))
}
