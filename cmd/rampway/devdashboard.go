package main

import (
	"context"
	"fmt"
	"time"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/dashboard"
)

// devDashboardEmail is the sign-in name of the demo merchant's dashboard owner.
const devDashboardEmail = "owner@demo.example"

// devDashboard is dev.json's dashboard part: where the dashboard is, and the demo merchant's
// owner's sign-in (its password is kept in the data directory's state).
type devDashboard struct {
	URL      string `json:"url"`
	Email    string `json:"email"`
	Password string `json:"password"`
}

// ensureDevLogin makes sure the demo merchant st.MerchantID has a dashboard owner who signs in
// with devDashboardEmail and st's dashboard password (made on the first run), and returns
// dev.json's dashboard part. On each start: a user missing is made, and one whose password,
// role or access was changed in the dashboard gets them back (each recorded in the audit log
// as by the command line), so that dev.json's login always works. A second factor turned on in
// the dashboard stays: the sign-in then asks for its code.
func ensureDevLogin(ctx context.Context, store dashboard.Store, st *devState, base string) (devDashboard, error) {
	if st.DashboardPassword == "" {
		st.DashboardPassword = dashboard.GeneratePassword()
	}
	out := devDashboard{URL: base + "/dashboard/", Email: devDashboardEmail, Password: st.DashboardPassword}
	acc := dashboard.NewAccounts(store, dashboard.Config{}, nil)
	u, err := store.DashboardUserByEmail(ctx, devDashboardEmail)
	if rampway.ErrorCode(err) == rampway.ENOTFOUND {
		if _, err := acc.CreateUser(ctx, dashboard.NewUser{MerchantID: st.MerchantID, Email: devDashboardEmail, Role: rampway.RoleOwner,
			Password: st.DashboardPassword}); err != nil {
			return out, fmt.Errorf("dev: the demo merchant's dashboard owner: %w", err)
		}
		return out, nil
	} else if err != nil {
		return out, fmt.Errorf("dev: the demo merchant's dashboard owner: %w", err)
	}
	if u.MerchantID != st.MerchantID {
		return out, fmt.Errorf("dev: the dashboard user %s belongs to merchant %q, not the demo merchant %s", devDashboardEmail, u.MerchantID, st.MerchantID)
	}
	ok, _ := dashboard.CheckPassword(st.DashboardPassword, u.PasswordHash)
	if ok && u.Role == rampway.RoleOwner && u.DisabledAt == nil {
		return out, nil
	}
	at := time.Now().UTC().Truncate(time.Microsecond)
	owner, disabled := rampway.RoleOwner, false
	up := rampway.DashboardUserUpdate{Role: &owner, Disabled: &disabled, At: at}
	if !ok {
		hash := dashboard.HashPassword(st.DashboardPassword, dashboard.DefaultParams)
		up.PasswordHash = &hash
	}
	audit := &rampway.AuditEntry{ID: rampway.NewID(rampway.PrefixAuditEntry, at), MerchantID: u.MerchantID, Action: "user.reset",
		Subject: u.ID, Detail: "the demo login of dev.json restored by rampway dev", At: at}
	if _, err := store.UpdateDashboardUser(ctx, u.ID, up, audit); err != nil {
		return out, fmt.Errorf("dev: restore the demo merchant's dashboard owner: %w", err)
	}
	return out, nil
}
