package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/dashboard"
)

// dashboardUserView is a dashboard user as `rampway admin users` prints it: never its password
// hash; the password itself only when the command made it up (printed once).
type dashboardUserView struct {
	UserID     string  `json:"user_id"`
	MerchantID string  `json:"merchant_id"`
	Email      string  `json:"email"`
	Role       string  `json:"role"`
	CreatedAt  string  `json:"created_at"`
	DisabledAt *string `json:"disabled_at"`
	Password   string  `json:"password,omitempty"`
}

func newDashboardUserView(u *rampway.DashboardUser) dashboardUserView {
	v := dashboardUserView{UserID: u.ID, MerchantID: u.MerchantID, Email: u.Email, Role: string(u.Role),
		CreatedAt: u.CreatedAt.UTC().Format(time.RFC3339)}
	if u.DisabledAt != nil {
		s := u.DisabledAt.UTC().Format(time.RFC3339)
		v.DisabledAt = &s
	}
	return v
}

// usersCommand runs `rampway admin users add|list`.
func usersCommand(ctx context.Context, acc *dashboard.Accounts, args []string) (any, error) {
	if len(args) < 2 {
		return nil, fmt.Errorf("admin: %q needs a sub-command (rampway admin help)", args[0])
	}
	verb := args[1]
	fset := flag.NewFlagSet("users "+verb, flag.ContinueOnError)
	fset.SetOutput(io.Discard)
	merchantID := fset.String("merchant", "", "the user's merchant (none for an operator)")
	email := fset.String("email", "", "the user's email, its sign-in name")
	role := fset.String("role", "", "owner, developer, support, viewer or operator")
	password := fset.String("password", "", "the user's password (made up and printed once when not given)")
	if err := fset.Parse(args[2:]); err != nil {
		return nil, fmt.Errorf("admin users %s: %w", verb, err)
	}
	if fset.NArg() != 0 {
		return nil, fmt.Errorf("admin users %s: expects flags only, not %q", verb, fset.Args())
	}
	switch verb {
	case "add":
		pw, made := *password, false
		if pw == "" {
			pw, made = dashboard.GeneratePassword(), true
		}
		u, err := acc.CreateUser(ctx, dashboard.NewUser{MerchantID: *merchantID, Email: *email, Role: rampway.DashboardRole(*role), Password: pw})
		if err != nil {
			return nil, err
		}
		v := newDashboardUserView(u)
		if made {
			v.Password = pw
		}
		return v, nil
	case "list":
		us, err := acc.Users(ctx, *merchantID)
		if err != nil {
			return nil, err
		}
		out := struct {
			Data []dashboardUserView `json:"data"`
		}{Data: []dashboardUserView{}}
		for _, u := range us {
			out.Data = append(out.Data, newDashboardUserView(u))
		}
		return out, nil
	}
	return nil, fmt.Errorf("admin: unknown command %q (rampway admin help)", "users "+verb)
}
