package dashboard

import (
	"context"
	"fmt"
	"time"

	"github.com/rampway/rampway"
)

// invitableRoles are the roles a user may be invited to or given in the dashboard: a
// merchant's roles. Operators are made by the command line only.
var invitableRoles = []rampway.DashboardRole{rampway.RoleOwner, rampway.RoleDeveloper, rampway.RoleSupport, rampway.RoleViewer}

// merchantRole returns role when it is one a merchant's user may have, else EINVALID.
func merchantRole(role string) (rampway.DashboardRole, error) {
	for _, r := range invitableRoles {
		if string(r) == role {
			return r, nil
		}
	}
	return "", rampway.FieldErrorf("role", "role must be one of owner, developer, support, viewer")
}

// manages checks that by may manage the users of merchantID: its own merchant's, or any for
// an operator (the pages check the role; this keeps the use cases safe on their own): ENOTFOUND
// otherwise, as for what is not the caller's.
func manages(by *rampway.DashboardUser, merchantID string) error {
	if merchantID == "" || !rampway.Can(by.Role, rampway.DashManageUsers) ||
		(by.Role != rampway.RoleOperator && by.MerchantID != merchantID) {
		return rampway.Errorf(rampway.ENOTFOUND, "no such merchant whose users a %s may manage", by.Role)
	}
	return nil
}

func (a *Accounts) auditEntry(at time.Time, merchantID, by, action, subject, detail string) *rampway.AuditEntry {
	return &rampway.AuditEntry{ID: rampway.NewID(rampway.PrefixAuditEntry, at), MerchantID: merchantID, UserID: by, Action: action,
		Subject: subject, Detail: detail, At: at}
}

// Invitation is an invitation just made: its token is in the link the inviter copies, shown
// once; the store keeps only its hash.
type Invitation struct {
	Token string
	*rampway.DashboardInvitation
}

// Invite invites email to merchantID's dashboard as role, on behalf of by, for
// DashboardInvitationTTL, and records it in the audit log. EINVALID for a bad email or a role
// that is not a merchant's; ECONFLICT when a user has the email already.
func (a *Accounts) Invite(ctx context.Context, by *rampway.DashboardUser, merchantID, email, role string) (*Invitation, error) {
	if err := manages(by, merchantID); err != nil {
		return nil, err
	}
	normal, err := rampway.NormalizeEmail(email)
	if err != nil {
		return nil, err
	}
	r, err := merchantRole(role)
	if err != nil {
		return nil, err
	}
	if _, err := a.store.DashboardUserByEmail(ctx, normal); err == nil {
		return nil, &rampway.Error{Code: rampway.ECONFLICT, Field: "email", Message: "a dashboard user with this email already exists"}
	} else if rampway.ErrorCode(err) != rampway.ENOTFOUND {
		return nil, fmt.Errorf("invite: %w", err)
	}
	at := a.now()
	token := randomToken()
	inv := &rampway.DashboardInvitation{ID: SessionID(token), MerchantID: merchantID, Email: normal, Role: r, InvitedBy: by.ID,
		CreatedAt: at, ExpiresAt: at.Add(rampway.DashboardInvitationTTL)}
	audit := a.auditEntry(at, merchantID, by.ID, "user.invite", normal, fmt.Sprintf("%s invited as %s", normal, r))
	if err := a.store.CreateDashboardInvitation(ctx, inv, audit); err != nil {
		return nil, fmt.Errorf("invite: %w", err)
	}
	return &Invitation{Token: token, DashboardInvitation: inv}, nil
}

// Invitations returns merchantID's invitations not yet accepted nor expired, newest first.
func (a *Accounts) Invitations(ctx context.Context, merchantID string) ([]*rampway.DashboardInvitation, error) {
	return a.store.DashboardInvitations(ctx, merchantID, a.now())
}

// Invitation returns the invitation of a link's token, used or expired or not (Usable says).
// ENOTFOUND for an unknown token.
func (a *Accounts) Invitation(ctx context.Context, token string) (*rampway.DashboardInvitation, error) {
	if token == "" {
		return nil, rampway.Errorf(rampway.ENOTFOUND, "dashboard invitation not found")
	}
	return a.store.DashboardInvitation(ctx, SessionID(token))
}

// InvitationUsable reports whether inv may be accepted now.
func (a *Accounts) InvitationUsable(inv *rampway.DashboardInvitation) bool {
	return inv.Usable(a.now())
}

// AcceptInvitation makes the invited user with password, signs it in from ip (user agent ua)
// and records it in the audit log. ENOTFOUND for an unknown token; ECONFLICT for an
// invitation used or expired, or an email taken meanwhile; EINVALID for a short password.
func (a *Accounts) AcceptInvitation(ctx context.Context, token, password, ip, ua string) (*SignIn, error) {
	inv, err := a.Invitation(ctx, token)
	if err != nil {
		return nil, err
	}
	at := a.now()
	if !inv.Usable(at) {
		return nil, rampway.Errorf(rampway.ECONFLICT, "the invitation was used already, or has expired")
	}
	if err := checkNewPassword(password); err != nil {
		return nil, err
	}
	u := &rampway.DashboardUser{ID: rampway.NewID(rampway.PrefixDashboardUser, at), MerchantID: inv.MerchantID, Email: inv.Email,
		Role: inv.Role, PasswordHash: HashPassword(password, a.cfg.Params), CreatedAt: at}
	if err := u.Validate(); err != nil {
		return nil, err
	}
	sessionToken := randomToken()
	s := a.newSession(sessionToken, u, ip, ua, at)
	audit := a.auditEntry(at, u.MerchantID, u.ID, "user.create", u.ID, fmt.Sprintf("%s as %s, by invitation", u.Email, u.Role))
	if err := a.store.AcceptDashboardInvitation(ctx, inv.ID, u, s, audit); err != nil {
		return nil, fmt.Errorf("accept invitation: %w", err)
	}
	return &SignIn{Token: sessionToken, Session: s, User: u}, nil
}

// checkNewPassword returns EINVALID for a password shorter than MinPasswordLength characters
// or longer than maxPasswordLength bytes.
func checkNewPassword(password string) error {
	if n := len([]rune(password)); n < MinPasswordLength || len(password) > maxPasswordLength {
		return rampway.FieldErrorf("password", "a password has at least %d characters (and at most %d bytes)", MinPasswordLength, maxPasswordLength)
	}
	return nil
}

// target returns the user userID of merchantID that by may change: ENOTFOUND for a user of
// another merchant (or an operator), ECONFLICT for by itself.
func (a *Accounts) target(ctx context.Context, by *rampway.DashboardUser, merchantID, userID string) (*rampway.DashboardUser, error) {
	if err := manages(by, merchantID); err != nil {
		return nil, err
	}
	u, err := a.store.DashboardUser(ctx, userID)
	if err != nil {
		return nil, err
	}
	if u.MerchantID != merchantID {
		return nil, rampway.Errorf(rampway.ENOTFOUND, "dashboard user not found")
	}
	if u.ID == by.ID {
		return nil, rampway.Errorf(rampway.ECONFLICT, "you cannot change your own role or disable yourself: another owner can")
	}
	return u, nil
}

// SetRole gives the user userID of merchantID the role role, on behalf of by, and records it
// in the audit log. EINVALID for a role that is not a merchant's; ECONFLICT for by itself or
// the merchant's last enabled owner; ENOTFOUND for a user of another merchant.
func (a *Accounts) SetRole(ctx context.Context, by *rampway.DashboardUser, merchantID, userID, role string) (*rampway.DashboardUser, error) {
	r, err := merchantRole(role)
	if err != nil {
		return nil, err
	}
	u, err := a.target(ctx, by, merchantID, userID)
	if err != nil {
		return nil, err
	}
	at := a.now()
	audit := a.auditEntry(at, merchantID, by.ID, "user.role", u.ID, fmt.Sprintf("%s: %s to %s", u.Email, u.Role, r))
	return a.store.UpdateDashboardUser(ctx, u.ID, rampway.DashboardUserUpdate{Role: &r, At: at}, audit)
}

// SetDisabled disables (ending its sessions at once) or enables again the user userID of
// merchantID, on behalf of by, and records it in the audit log. ECONFLICT for by itself or
// the merchant's last enabled owner; ENOTFOUND for a user of another merchant.
func (a *Accounts) SetDisabled(ctx context.Context, by *rampway.DashboardUser, merchantID, userID string, disabled bool) (*rampway.DashboardUser, error) {
	u, err := a.target(ctx, by, merchantID, userID)
	if err != nil {
		return nil, err
	}
	at := a.now()
	action := "user.enable"
	if disabled {
		action = "user.disable"
	}
	audit := a.auditEntry(at, merchantID, by.ID, action, u.ID, u.Email)
	return a.store.UpdateDashboardUser(ctx, u.ID, rampway.DashboardUserUpdate{Disabled: &disabled, At: at}, audit)
}

// ChangePassword sets u's password to next after checking current, ends u's other sessions
// (keep stays), and records it in the audit log. A wrong current password is EUNAUTHORIZED and
// counts as a failed sign-in of the account and from ip (ERATELIMIT once too many);
// EINVALID for a short new password.
func (a *Accounts) ChangePassword(ctx context.Context, u *rampway.DashboardUser, keep *rampway.DashboardSession, current, next, ip string) error {
	at := a.now()
	keys := []string{addressKey(ip), accountKey(u.Email)}
	if err := a.throttle(ctx, keys, at); err != nil {
		return err
	}
	if ok, _ := CheckPassword(current, u.PasswordHash); !ok || len(current) > maxPasswordLength {
		if err := a.recordFailure(ctx, keys, at); err != nil {
			return err
		}
		return &rampway.Error{Code: rampway.EUNAUTHORIZED, Field: "current_password", Message: "the current password is wrong"}
	}
	if err := checkNewPassword(next); err != nil {
		return err
	}
	hash := HashPassword(next, a.cfg.Params)
	audit := a.auditEntry(at, u.MerchantID, u.ID, "user.password", u.ID, "password changed; other sessions ended")
	_, err := a.store.UpdateDashboardUser(ctx, u.ID, rampway.DashboardUserUpdate{PasswordHash: &hash, EndSessions: true, KeepSession: keep.ID, At: at}, audit)
	return err
}

// EnableTOTP turns on u's second factor with secret (base32, as NewTOTPSecret makes), once
// code shows that u's authenticator has it, and records it in the audit log. EINVALID for a
// wrong code; ECONFLICT when u has TOTP already.
func (a *Accounts) EnableTOTP(ctx context.Context, u *rampway.DashboardUser, secret, code string) error {
	if u.TOTPSecret != "" {
		return rampway.Errorf(rampway.ECONFLICT, "two-factor sign-in is on already")
	}
	if _, err := decodeTOTPSecret(secret); err != nil || len(secret) < 16 {
		return rampway.FieldErrorf("secret", "the secret is not one the dashboard made: start again")
	}
	at := a.now()
	step, ok := checkTOTP(secret, code, at)
	if !ok {
		return rampway.FieldErrorf("code", "the code is wrong: enter the 6 digits your authenticator app shows now")
	}
	audit := a.auditEntry(at, u.MerchantID, u.ID, "user.totp_on", u.ID, "two-factor sign-in turned on")
	if _, err := a.store.UpdateDashboardUser(ctx, u.ID, rampway.DashboardUserUpdate{TOTPSecret: &secret, At: at}, audit); err != nil {
		return err
	}
	if _, err := a.store.UseTOTPStep(ctx, u.ID, step); err != nil {
		return err
	}
	return nil
}

// DisableTOTP turns off u's second factor given a current code of it (from ip), and records it
// in the audit log. A wrong code is EUNAUTHORIZED and counts as a failed sign-in (ERATELIMIT
// once too many); ECONFLICT when u has no TOTP.
func (a *Accounts) DisableTOTP(ctx context.Context, u *rampway.DashboardUser, code, ip string) error {
	if u.TOTPSecret == "" {
		return rampway.Errorf(rampway.ECONFLICT, "two-factor sign-in is off already")
	}
	at := a.now()
	if err := a.checkCode(ctx, u, code, ip, at); err != nil {
		return err
	}
	none := ""
	audit := a.auditEntry(at, u.MerchantID, u.ID, "user.totp_off", u.ID, "two-factor sign-in turned off")
	_, err := a.store.UpdateDashboardUser(ctx, u.ID, rampway.DashboardUserUpdate{TOTPSecret: &none, At: at}, audit)
	return err
}

// checkCode checks u's TOTP code from ip at at: the throttle first (ERATELIMIT), then the code,
// once (a code used before is wrong). A wrong code is EUNAUTHORIZED and counted as a failed
// sign-in of the account and the address.
func (a *Accounts) checkCode(ctx context.Context, u *rampway.DashboardUser, code, ip string, at time.Time) error {
	keys := []string{addressKey(ip), accountKey(u.Email)}
	if err := a.throttle(ctx, keys, at); err != nil {
		return err
	}
	step, ok := checkTOTP(u.TOTPSecret, code, at)
	if ok {
		fresh, err := a.store.UseTOTPStep(ctx, u.ID, step)
		if err != nil {
			return err
		}
		ok = fresh
	}
	if !ok {
		if err := a.recordFailure(ctx, keys, at); err != nil {
			return err
		}
		return &rampway.Error{Code: rampway.EUNAUTHORIZED, Field: "code", Message: "the code is wrong"}
	}
	return nil
}

// errChallengeEnded is LoginCode's answer to a second step that ended (expired, used, unknown).
func errChallengeEnded() error {
	return &rampway.Error{Code: rampway.EUNAUTHORIZED, Field: "challenge", Message: "the sign-in has expired: enter your email and password again"}
}

// LoginCode completes the sign-in of a user with TOTP: challenge is the token Login returned,
// code the authenticator's. It returns the new session. A wrong code is EUNAUTHORIZED (field
// "code") and counts in the sign-in throttle like a wrong password (ERATELIMIT once too
// many); an ended challenge (or a user since disabled) is EUNAUTHORIZED (field "challenge").
func (a *Accounts) LoginCode(ctx context.Context, challenge, code, ip, ua string) (*SignIn, error) {
	at := a.now()
	if challenge == "" {
		return nil, errChallengeEnded()
	}
	c, err := a.store.LoginChallenge(ctx, SessionID(challenge))
	if rampway.ErrorCode(err) == rampway.ENOTFOUND {
		return nil, errChallengeEnded()
	} else if err != nil {
		return nil, fmt.Errorf("login: %w", err)
	}
	if !at.Before(c.ExpiresAt) {
		_, _ = a.store.DeleteLoginChallenge(ctx, c.ID)
		return nil, errChallengeEnded()
	}
	u, err := a.store.DashboardUser(ctx, c.UserID)
	if err != nil {
		return nil, fmt.Errorf("login: %w", err)
	}
	if u.DisabledAt != nil || u.TOTPSecret == "" {
		_, _ = a.store.DeleteLoginChallenge(ctx, c.ID)
		return nil, errChallengeEnded()
	}
	if err := a.checkCode(ctx, u, code, ip, at); err != nil {
		return nil, err
	}
	if gone, err := a.store.DeleteLoginChallenge(ctx, c.ID); err != nil {
		return nil, fmt.Errorf("login: %w", err)
	} else if !gone {
		return nil, errChallengeEnded() // completed by another request at once
	}
	return a.startSession(ctx, u, ip, ua, at, "from "+ip+", with a TOTP code")
}

// AuditLog returns merchantID's audit entries, newest first: up to limit, older than the entry
// after when it is set (ENOTFOUND for an entry not of the merchant).
func (a *Accounts) AuditLog(ctx context.Context, merchantID, after string, limit int) ([]*rampway.AuditEntry, error) {
	return a.store.AuditEntries(ctx, merchantID, rampway.Page{After: after, Limit: limit})
}

// User returns a dashboard user by id. ENOTFOUND.
func (a *Accounts) User(ctx context.Context, id string) (*rampway.DashboardUser, error) {
	return a.store.DashboardUser(ctx, id)
}
