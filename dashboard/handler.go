package dashboard

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/rampway/rampway"
)

// Cookie names. Both are HttpOnly, SameSite=Strict, on Path /dashboard, and Secure but on
// plain http to a loopback host (rampway dev).
const (
	// SessionCookie holds a signed-in browser's session token.
	SessionCookie = "rampway_dashboard"
	// LoginCookie holds the sign-in form's CSRF token before there is a session (double
	// submit: the form sends it back in csrf_token).
	LoginCookie = "rampway_dashboard_login"
	// csrfField is the hidden field of every form.
	csrfField   = "csrf_token"
	cookiePath  = "/dashboard"
	maxFormSize = 16 << 10
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed assets
var assetFS embed.FS

var pages = template.Must(template.New("").Funcs(funcs).ParseFS(templateFS, "templates/*.html"))

// Handler serves the dashboard under /dashboard/.
type Handler struct {
	acc *Accounts
	d   Deps
	log *slog.Logger
	mux *http.ServeMux
}

// NewHandler returns the dashboard's pages over d. A page whose use cases d lacks answers 404.
func NewHandler(d Deps) *Handler {
	log := d.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	h := &Handler{acc: d.Accounts, d: d, log: log, mux: http.NewServeMux()}
	assets, _ := fs.Sub(assetFS, "assets")
	h.mux.Handle("GET /dashboard/assets/", http.StripPrefix("/dashboard/assets/", http.FileServerFS(assets)))
	h.mux.Handle("GET /dashboard", http.RedirectHandler("/dashboard/", http.StatusMovedPermanently))
	h.mux.HandleFunc("GET /dashboard/login", h.loginForm)
	h.mux.HandleFunc("POST /dashboard/login", h.login)
	h.mux.HandleFunc("POST /dashboard/login/code", h.loginCode)
	h.mux.HandleFunc("POST /dashboard/logout", h.logout)
	h.mux.HandleFunc("GET /dashboard/{$}", h.home)
	h.mux.HandleFunc("POST /dashboard/mode", h.handle(rampway.DashView, h.setMode))
	h.routeOverview()
	h.routeOrders()
	h.routeDevelopers()
	h.routeCatalogue()
	h.routeRefunds()
	h.routeUsers()
	h.mux.HandleFunc("/dashboard/", func(w http.ResponseWriter, r *http.Request) {
		h.render(w, http.StatusNotFound, "error.html", page{Title: "Not found", Error: "There is no such page of the dashboard."})
	})
	return h
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Referrer-Policy", "same-origin")
	if !strings.HasPrefix(r.URL.Path, "/dashboard/assets/") {
		hd.Set("Cache-Control", "no-store")
	}
	h.mux.ServeHTTP(w, r)
}

// page is what the templates read.
type page struct {
	Title     string
	Error     string
	ErrorID   string
	CSRFToken string
	Email     string
	User      *rampway.DashboardUser
	Merchant  *rampway.Merchant
	// Next is where the sign-in form goes once signed in (a dashboard path), "" for the start.
	Next string
	// Challenge is the token of a sign-in waiting for its TOTP code (the second step's form).
	Challenge string
	// Data is a page's own data (the invitation page's).
	Data any
}

func (h *Handler) render(w http.ResponseWriter, status int, name string, p page) {
	var buf bytes.Buffer
	if err := pages.ExecuteTemplate(&buf, name, p); err != nil {
		h.log.Error("render dashboard page", "page", name, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// fail answers an error the visitor cannot fix with a page that names it by an id, which the
// log has with the cause.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	id := rampway.NewID("err", time.Now())
	h.log.Error("dashboard", "error_id", id, "method", r.Method, "path", r.URL.Path, "err", err)
	h.render(w, http.StatusInternalServerError, "error.html", page{Title: "Something went wrong", Error: "The dashboard could not answer.", ErrorID: id})
}

func (h *Handler) forbidden(w http.ResponseWriter) {
	h.render(w, http.StatusForbidden, "error.html", page{Title: "Forbidden",
		Error: "The form's security token is missing or out of date. Go back, reload the page and try again."})
}

// session returns the signed-in session and user of r, or nil ones.
func (h *Handler) session(r *http.Request) (*rampway.DashboardSession, *rampway.DashboardUser, error) {
	c, err := r.Cookie(SessionCookie)
	if err != nil {
		return nil, nil, nil
	}
	s, u, err := h.acc.Authenticate(r.Context(), c.Value)
	if rampway.ErrorCode(err) == rampway.EUNAUTHORIZED {
		return nil, nil, nil
	}
	return s, u, err
}

func (h *Handler) loginForm(w http.ResponseWriter, r *http.Request) {
	s, _, err := h.session(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if s != nil {
		http.Redirect(w, r, "/dashboard/", http.StatusSeeOther)
		return
	}
	h.renderLogin(w, r, http.StatusOK, "", "")
}

// renderLogin shows the sign-in form with the login CSRF token (the cookie's, or a new one).
func (h *Handler) renderLogin(w http.ResponseWriter, r *http.Request, status int, email, msg string) {
	h.render(w, status, "login.html", page{Title: "Sign in", CSRFToken: h.loginToken(w, r), Email: email, Error: msg, Next: localPath(r.FormValue("next"), "")})
}

// signedOutForm reads a form posted without a session (sign-in, its code step, an invitation's
// acceptance): at most maxFormSize, with the sign-in CSRF token of the LoginCookie (double
// submit). It answers the request (400, 403) and reports false when the form may not be used.
func (h *Handler) signedOutForm(w http.ResponseWriter, r *http.Request) bool {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormSize)
	if err := r.ParseForm(); err != nil {
		h.render(w, http.StatusBadRequest, "error.html", page{Title: "Bad request", Error: "The form could not be read."})
		return false
	}
	c, err := r.Cookie(LoginCookie)
	if err != nil || !SameToken(c.Value, r.PostForm.Get(csrfField)) {
		h.forbidden(w)
		return false
	}
	return true
}

func (h *Handler) login(w http.ResponseWriter, r *http.Request) {
	if !h.signedOutForm(w, r) {
		return
	}
	email := r.PostForm.Get("email")
	in, err := h.acc.Login(r.Context(), email, r.PostForm.Get("password"), clientIP(r), r.UserAgent())
	var e *rampway.Error
	switch {
	case err == nil:
	case errors.As(err, &e) && e.Code == rampway.ERATELIMIT:
		secs := int(e.RetryAfter.Round(time.Second) / time.Second)
		w.Header().Set("Retry-After", strconv.Itoa(max(secs, 1)))
		h.renderLogin(w, r, http.StatusTooManyRequests, email,
			fmt.Sprintf("Too many failed sign-ins. Try again in %s.", minutes(e.RetryAfter)))
		return
	case errors.As(err, &e) && e.Code == rampway.EUNAUTHORIZED:
		h.renderLogin(w, r, http.StatusUnauthorized, email, "The email or the password is wrong.")
		return
	default:
		h.fail(w, r, err)
		return
	}
	if in.Challenge != "" { // the password was right; TOTP's code is the second step
		h.renderLoginCode(w, r, http.StatusOK, in.Challenge, "")
		return
	}
	h.signedIn(w, r, in, localPath(r.PostForm.Get("next"), "/dashboard/"))
}

func minutes(d time.Duration) string {
	m := int((d + time.Minute - 1) / time.Minute)
	if m <= 1 {
		return "a minute"
	}
	return fmt.Sprintf("%d minutes", m)
}

func (h *Handler) logout(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormSize)
	if err := r.ParseForm(); err != nil {
		h.render(w, http.StatusBadRequest, "error.html", page{Title: "Bad request", Error: "The form could not be read."})
		return
	}
	s, u, err := h.session(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if s == nil || !SameToken(s.CSRFToken, r.PostForm.Get(csrfField)) {
		h.forbidden(w)
		return
	}
	if err := h.acc.Logout(r.Context(), s, u); err != nil {
		h.fail(w, r, err)
		return
	}
	http.SetCookie(w, cookie(r, SessionCookie, "", -1))
	http.Redirect(w, r, "/dashboard/login", http.StatusSeeOther)
}

func (h *Handler) home(w http.ResponseWriter, r *http.Request) {
	h.handle(rampway.DashView, func(w http.ResponseWriter, r *http.Request, q *req) {
		if h.d.Stats != nil { // the overview is the start page when it is served
			http.Redirect(w, r, "/dashboard/overview", http.StatusSeeOther)
			return
		}
		h.show(w, r, q, http.StatusOK, "home.html", view{Title: "Dashboard"})
	})(w, r)
}

// cookie makes one of the dashboard's cookies; maxAge < 0 deletes it, 0 lasts the browser's
// session. The session cookie lasts as long as a session may (the server ends it sooner when
// it is idle).
func cookie(r *http.Request, name, value string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: name, Value: value, Path: cookiePath, MaxAge: maxAge, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: !plainLocal(r)}
}

// plainLocal reports whether r came over plain http to a loopback host (rampway dev), where a
// Secure cookie would not be sent back.
func plainLocal(r *http.Request) bool {
	if r.TLS != nil {
		return false
	}
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// clientIP is the address the request came from: the peer's, or behind a proxy listed in
// http.trusted_proxies the client's that the proxy forwarded (httpapi sets RemoteAddr).
func clientIP(r *http.Request) string {
	if h, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return h
	}
	return r.RemoteAddr
}
