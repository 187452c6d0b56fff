package rampway_test

import (
	"testing"
	"time"

	"github.com/rampway/rampway"
)

// The permissions table, role by role: what each may do, and nothing else.
func TestCan(t *testing.T) {
	const (
		view, refund, devs, conf, users, all = rampway.DashView, rampway.DashRefund, rampway.DashDevelopers,
			rampway.DashConfigure, rampway.DashManageUsers, rampway.DashAllMerchants
	)
	may := map[rampway.DashboardRole][]rampway.DashboardAction{
		rampway.RoleOwner:     {view, refund, devs, conf, users},
		rampway.RoleDeveloper: {view, devs, conf},
		rampway.RoleSupport:   {view, refund},
		rampway.RoleViewer:    {view},
		rampway.RoleOperator:  {view, refund, devs, conf, users, all},
		"admin":               {}, // unknown roles may do nothing
		"":                    {},
	}
	for role, actions := range may {
		for _, action := range append(rampway.DashboardActions, "delete_everything") {
			want := false
			for _, a := range actions {
				want = want || a == action
			}
			if got := rampway.Can(role, action); got != want {
				t.Errorf("Can(%q, %q) = %v, want %v", role, action, got, want)
			}
		}
	}
	for _, r := range rampway.DashboardRoles {
		if !r.Valid() {
			t.Errorf("role %q is not valid", r)
		}
	}
	if rampway.DashboardRole("Owner").Valid() {
		t.Error(`role "Owner" is valid: roles are lower case`)
	}
}

func TestDashboardUserValidate(t *testing.T) {
	ok := rampway.DashboardUser{MerchantID: "mch_x", Email: "ada@example.com", Role: rampway.RoleViewer, PasswordHash: "h"}
	for _, tt := range []struct {
		name  string
		edit  func(u *rampway.DashboardUser)
		field string
	}{
		{"valid", func(u *rampway.DashboardUser) {}, ""},
		{"operator without merchant", func(u *rampway.DashboardUser) { u.Role, u.MerchantID = rampway.RoleOperator, "" }, ""},
		{"operator with merchant", func(u *rampway.DashboardUser) { u.Role = rampway.RoleOperator }, "merchant_id"},
		{"owner without merchant", func(u *rampway.DashboardUser) { u.Role, u.MerchantID = rampway.RoleOwner, "" }, "merchant_id"},
		{"unknown role", func(u *rampway.DashboardUser) { u.Role = "admin" }, "role"},
		{"email not normalised", func(u *rampway.DashboardUser) { u.Email = "Ada@example.com" }, "email"},
		{"no password", func(u *rampway.DashboardUser) { u.PasswordHash = "" }, "password"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			u := ok
			tt.edit(&u)
			err := u.Validate()
			var e *rampway.Error
			if tt.field == "" && err != nil || tt.field != "" && (!asError(err, &e) || e.Field != tt.field) {
				t.Fatalf("Validate() = %v, want field %q", err, tt.field)
			}
		})
	}
}

func asError(err error, e **rampway.Error) bool {
	x, ok := err.(*rampway.Error)
	*e = x
	return ok
}

func TestNormalizeEmail(t *testing.T) {
	for in, want := range map[string]string{
		" Ada@Example.COM ":  "ada@example.com",
		"a.b+c@d.example":    "a.b+c@d.example",
		"":                   "",
		"ada":                "",
		"ada@localhost":      "",
		"Ada <ada@x.com>":    "",
		"<ada@x.com>":        "",
		"ada@x.com, b@y.com": "",
	} {
		got, err := rampway.NormalizeEmail(in)
		if got != want || (want == "") != (err != nil) {
			t.Errorf("NormalizeEmail(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestSessionExpiry(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if got := rampway.SessionExpiry(start, start); !got.Equal(start.Add(12 * time.Hour)) {
		t.Errorf("a new session ends at %v, want 12 h later", got)
	}
	late := start.Add(7*24*time.Hour - time.Hour)
	if got := rampway.SessionExpiry(start, late); !got.Equal(start.Add(7 * 24 * time.Hour)) {
		t.Errorf("a session used on its last day ends at %v, want 7 days after it began", got)
	}
	s := rampway.DashboardSession{ExpiresAt: start}
	if s.Expired(start.Add(-time.Microsecond)) || !s.Expired(start) {
		t.Error("a session ends at its ExpiresAt")
	}
}
