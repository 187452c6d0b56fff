package dashboard

import (
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/rampway/rampway"
)

// auditPageSize is how many audit entries a page of the log shows.
const auditPageSize = 50

// routeUsers registers the users pages: the merchant's users and invitations, the audit log
// (owners and the operator), a user's own account with its password and TOTP (everyone), and
// the invitation link's page (no session: the invitee has none yet).
func (h *Handler) routeUsers() {
	h.mux.HandleFunc("GET /dashboard/users", h.handle(rampway.DashManageUsers, h.users))
	h.mux.HandleFunc("POST /dashboard/users/invite", h.handle(rampway.DashManageUsers, h.invite))
	h.mux.HandleFunc("POST /dashboard/users/{id}/role", h.handle(rampway.DashManageUsers, h.setRole))
	h.mux.HandleFunc("POST /dashboard/users/{id}/disable", h.handle(rampway.DashManageUsers, h.setDisabled(true)))
	h.mux.HandleFunc("POST /dashboard/users/{id}/enable", h.handle(rampway.DashManageUsers, h.setDisabled(false)))
	h.mux.HandleFunc("GET /dashboard/audit", h.handle(rampway.DashManageUsers, h.auditLog))
	h.mux.HandleFunc("GET /dashboard/invite/{token}", h.invitation)
	h.mux.HandleFunc("POST /dashboard/invite/{token}", h.acceptInvitation)
	h.routeAccount()
}

// usersView is the users page's data.
type usersView struct {
	Users       []*rampway.DashboardUser
	Invitations []*rampway.DashboardInvitation
	// Roles are those a user may be invited to or given.
	Roles []rampway.DashboardRole
	// Link is the invitation link just made, shown once; Invited its invitation.
	Link    string
	Invited *rampway.DashboardInvitation
	// Email and Role are the invite form's values after an error.
	Email, Role string
}

// usersNotices are the messages of what a form on the users page did (the done parameter of
// the redirect after it).
var usersNotices = map[string]string{
	"role":    "The role was changed.",
	"disable": "The user was disabled: their sessions have ended and they cannot sign in.",
	"enable":  "The user was enabled again: they can sign in.",
}

// users shows the merchant's users and invitations, with the invite form.
func (h *Handler) users(w http.ResponseWriter, r *http.Request, q *req) {
	h.showUsers(w, r, q, http.StatusOK, usersNotices[r.URL.Query().Get("done")], "", usersView{})
}

// showUsers renders the users page with a notice or an error and data's form values and link.
func (h *Handler) showUsers(w http.ResponseWriter, r *http.Request, q *req, status int, notice, errMsg string, data usersView) {
	if q.Merchant == nil {
		h.notFound(w, q)
		return
	}
	ctx := r.Context()
	var err error
	if data.Users, err = h.acc.Users(ctx, q.MerchantID()); err != nil {
		h.fail(w, r, err)
		return
	}
	if data.Invitations, err = h.acc.Invitations(ctx, q.MerchantID()); err != nil {
		h.fail(w, r, err)
		return
	}
	data.Roles = invitableRoles
	h.show(w, r, q, status, "users.html", view{Title: "Users", Section: "users", Notice: notice, Error: errMsg, Data: data})
}

// formError answers an error of a form on a page: a message the user can act on (invalid,
// conflict, not allowed) re-renders the page with it, anything else goes to userError.
func formError(err error) (int, string, bool) {
	var e *rampway.Error
	if !errors.As(err, &e) {
		return 0, "", false
	}
	switch e.Code {
	case rampway.EINVALID:
		return http.StatusBadRequest, e.Message, true
	case rampway.ECONFLICT:
		return http.StatusConflict, e.Message, true
	case rampway.EUNAUTHORIZED:
		return http.StatusUnauthorized, e.Message, true
	}
	return 0, "", false
}

// invite creates an invitation and shows its link, once.
func (h *Handler) invite(w http.ResponseWriter, r *http.Request, q *req) {
	email, role := r.PostForm.Get("email"), r.PostForm.Get("role")
	inv, err := h.acc.Invite(r.Context(), q.User, q.MerchantID(), email, role)
	if err != nil {
		if status, msg, ok := formError(err); ok {
			h.showUsers(w, r, q, status, "", msg, usersView{Email: email, Role: role})
			return
		}
		h.userError(w, r, q, err)
		return
	}
	link := publicBase(r) + "/dashboard/invite/" + inv.Token
	h.showUsers(w, r, q, http.StatusOK, "Invitation made: copy the link below and send it to "+inv.Email+".", "",
		usersView{Link: link, Invited: inv.DashboardInvitation})
}

// setRole changes a user's role.
func (h *Handler) setRole(w http.ResponseWriter, r *http.Request, q *req) {
	_, err := h.acc.SetRole(r.Context(), q.User, q.MerchantID(), r.PathValue("id"), r.PostForm.Get("role"))
	h.afterUserChange(w, r, q, err, "role")
}

// setDisabled returns the handler that disables a user (or enables one again).
func (h *Handler) setDisabled(disabled bool) func(http.ResponseWriter, *http.Request, *req) {
	done := "enable"
	if disabled {
		done = "disable"
	}
	return func(w http.ResponseWriter, r *http.Request, q *req) {
		_, err := h.acc.SetDisabled(r.Context(), q.User, q.MerchantID(), r.PathValue("id"), disabled)
		h.afterUserChange(w, r, q, err, done)
	}
}

// afterUserChange answers a change of a user: back to the users page saying what was done, or
// the page with the error.
func (h *Handler) afterUserChange(w http.ResponseWriter, r *http.Request, q *req, err error, done string) {
	if err != nil {
		if status, msg, ok := formError(err); ok {
			h.showUsers(w, r, q, status, "", msg, usersView{})
			return
		}
		h.userError(w, r, q, err)
		return
	}
	v := url.Values{"done": {done}}
	if q.User.Role == rampway.RoleOperator {
		v.Set("merchant", q.MerchantID())
	}
	http.Redirect(w, r, "/dashboard/users?"+v.Encode(), http.StatusSeeOther)
}

// auditRow is an audit entry as the log shows it: with its author's email.
type auditRow struct {
	*rampway.AuditEntry
	// Who is the author's email, "command line" for the CLI, or its id when it is gone.
	Who string
}

// auditView is the audit log page's data.
type auditView struct {
	Entries []auditRow
	// Next is the link to the older entries, "" at the end.
	Next string
}

// auditLog shows the merchant's audit log, newest first, a page at a time (after=the last
// entry shown).
func (h *Handler) auditLog(w http.ResponseWriter, r *http.Request, q *req) {
	if q.Merchant == nil {
		h.notFound(w, q)
		return
	}
	ctx := r.Context()
	after := r.URL.Query().Get("after")
	entries, err := h.acc.AuditLog(ctx, q.MerchantID(), after, auditPageSize+1)
	if err != nil {
		h.userError(w, r, q, err)
		return
	}
	var data auditView
	if len(entries) > auditPageSize {
		entries = entries[:auditPageSize]
		v := url.Values{"after": {entries[len(entries)-1].ID}}
		if q.User.Role == rampway.RoleOperator {
			v.Set("merchant", q.MerchantID())
		}
		data.Next = "/dashboard/audit?" + v.Encode()
	}
	who := map[string]string{"": "command line"}
	for _, e := range entries {
		if _, ok := who[e.UserID]; !ok {
			who[e.UserID] = e.UserID
			if u, err := h.acc.User(ctx, e.UserID); err == nil {
				who[e.UserID] = u.Email
			} else if rampway.ErrorCode(err) != rampway.ENOTFOUND {
				h.fail(w, r, err)
				return
			}
		}
		data.Entries = append(data.Entries, auditRow{AuditEntry: e, Who: who[e.UserID]})
	}
	h.show(w, r, q, http.StatusOK, "audit.html", view{Title: "Audit log", Section: "audit", Data: data})
}

// invitationView is the invitation page's data.
type invitationView struct {
	Token      string
	Invitation *rampway.DashboardInvitation
	Merchant   *rampway.Merchant
	// Gone says why the invitation cannot be accepted ("" when it can).
	Gone string
}

// invitation shows an invitation link's page: the form to pick a password, or why the link
// works no more.
func (h *Handler) invitation(w http.ResponseWriter, r *http.Request) {
	h.renderInvitation(w, r, http.StatusOK, "")
}

// renderInvitation renders the invitation of the path's token with an error message (of the
// form), or the page saying that it works no more.
func (h *Handler) renderInvitation(w http.ResponseWriter, r *http.Request, status int, msg string) {
	token := r.PathValue("token")
	inv, err := h.acc.Invitation(r.Context(), token)
	if rampway.ErrorCode(err) == rampway.ENOTFOUND {
		h.render(w, http.StatusNotFound, "invite.html", page{Title: "Invitation not found",
			Data: invitationView{Gone: "This invitation link is not known. Check that it was copied whole, or ask for a new one."}})
		return
	} else if err != nil {
		h.fail(w, r, err)
		return
	}
	v := invitationView{Token: token, Invitation: inv}
	switch {
	case inv.UsedAt != nil:
		v.Gone = "This invitation was accepted already. Sign in with the password chosen then, or ask for a new invitation."
	case !h.acc.InvitationUsable(inv):
		v.Gone = "This invitation has expired (an invitation lasts 7 days). Ask for a new one."
	}
	if v.Gone != "" {
		h.render(w, http.StatusGone, "invite.html", page{Title: "Invitation no longer valid", Data: v})
		return
	}
	if v.Merchant, err = h.acc.Merchant(r.Context(), inv.MerchantID); err != nil {
		h.fail(w, r, err)
		return
	}
	h.render(w, status, "invite.html", page{Title: "Accept the invitation", CSRFToken: h.loginToken(w, r), Error: msg, Data: v})
}

// acceptInvitation makes the invited user with the password chosen and signs it in.
func (h *Handler) acceptInvitation(w http.ResponseWriter, r *http.Request) {
	if !h.signedOutForm(w, r) {
		return
	}
	pw := r.PostForm.Get("password")
	if pw != r.PostForm.Get("password_again") {
		h.renderInvitation(w, r, http.StatusBadRequest, "The two passwords differ: type the same password twice.")
		return
	}
	in, err := h.acc.AcceptInvitation(r.Context(), r.PathValue("token"), pw, clientIP(r), r.UserAgent())
	if err != nil {
		switch rampway.ErrorCode(err) {
		case rampway.EINVALID:
			var e *rampway.Error
			errors.As(err, &e)
			h.renderInvitation(w, r, http.StatusBadRequest, upperFirst(e.Message)+".")
		case rampway.ENOTFOUND, rampway.ECONFLICT:
			// Unknown, used or expired: the page says so; still usable: the email was taken
			// meanwhile, which the form says.
			var e *rampway.Error
			errors.As(err, &e)
			h.renderInvitation(w, r, http.StatusConflict, upperFirst(e.Message)+".")
		default:
			h.fail(w, r, err)
		}
		return
	}
	h.signedIn(w, r, in, "/dashboard/")
}

// signedIn sets the session cookie of a sign-in just made and goes to next.
func (h *Handler) signedIn(w http.ResponseWriter, r *http.Request, in *SignIn, next string) {
	http.SetCookie(w, cookie(r, LoginCookie, "", -1))
	http.SetCookie(w, cookie(r, SessionCookie, in.Token, int(rampway.DashboardSessionMax/time.Second)))
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// loginToken returns the CSRF token of the forms shown before a session: the login cookie's,
// or a new one (set as the cookie).
func (h *Handler) loginToken(w http.ResponseWriter, r *http.Request) string {
	if c, err := r.Cookie(LoginCookie); err == nil && len(c.Value) >= 32 {
		return c.Value
	}
	token := randomToken()
	http.SetCookie(w, cookie(r, LoginCookie, token, 0))
	return token
}

// publicBase is the scheme and host the request came to, for links to copy (the invitation's):
// https, as the dashboard is served in production (its cookies are Secure), except on plain
// http to a loopback host (rampway dev).
func publicBase(r *http.Request) string {
	if plainLocal(r) {
		return "http://" + r.Host
	}
	return "https://" + r.Host
}

// upperFirst is s with its first letter in upper case (the store's messages begin in lower
// case; a page's sentences do not).
func upperFirst(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
