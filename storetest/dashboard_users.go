package storetest

import (
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/rampway/rampway"
)

func testDashboardInvitations(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	ctx := t.Context()
	m := mustMerchant(t, s, "acme")
	other := mustMerchant(t, s, "other")
	owner := mustDashboardUser(t, s, m.ID, "owner@acme.example", rampway.RoleOwner)
	at := now()
	invite := func(i int, merchantID string, created time.Time) *rampway.DashboardInvitation {
		t.Helper()
		inv := &rampway.DashboardInvitation{ID: fmt.Sprintf("%064x", i), MerchantID: merchantID, Email: fmt.Sprintf("new%d@acme.example", i),
			Role: rampway.RoleDeveloper, InvitedBy: owner.ID, CreatedAt: created, ExpiresAt: created.Add(rampway.DashboardInvitationTTL)}
		audit := &rampway.AuditEntry{ID: rampway.NewID(rampway.PrefixAuditEntry, at), MerchantID: merchantID, UserID: owner.ID,
			Action: "user.invite", Subject: inv.Email, At: created}
		if err := s.CreateDashboardInvitation(ctx, inv, audit); err != nil {
			t.Fatal(err)
		}
		return inv
	}
	first := invite(1, m.ID, at)
	second := invite(2, m.ID, at.Add(time.Second))
	invite(3, other.ID, at)
	old := invite(4, m.ID, at.Add(-rampway.DashboardInvitationTTL-time.Minute)) // expired

	got, err := s.DashboardInvitation(ctx, first.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !got.CreatedAt.Equal(first.CreatedAt) || !got.ExpiresAt.Equal(first.ExpiresAt) || got.UsedAt != nil {
		t.Fatalf("invitation times = %+v, want %+v", got, first)
	}
	g, w := *got, *first
	g.CreatedAt, g.ExpiresAt, w.CreatedAt, w.ExpiresAt = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("invitation = %+v, want %+v", g, w)
	}
	_, err = s.DashboardInvitation(ctx, "nope")
	wantCode(t, err, rampway.ENOTFOUND)
	wantCode(t, s.CreateDashboardInvitation(ctx, first, nil), rampway.ECONFLICT)
	orphan := *first
	orphan.ID, orphan.MerchantID = fmt.Sprintf("%064x", 9), "mch_nope"
	wantCode(t, s.CreateDashboardInvitation(ctx, &orphan, nil), rampway.ENOTFOUND)

	// The merchant's usable invitations, newest first: not another merchant's, not expired.
	list, err := s.DashboardInvitations(ctx, m.ID, at.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(list, func(i *rampway.DashboardInvitation) string { return i.ID }); !reflect.DeepEqual(got, []string{second.ID, first.ID}) {
		t.Fatalf("invitations = %v, want [%s %s]", got, second.ID, first.ID)
	}

	// Accepted once: the user, its session and the audit entry in one transaction.
	newUser := func(inv *rampway.DashboardInvitation, created time.Time) *rampway.DashboardUser {
		return &rampway.DashboardUser{ID: rampway.NewID(rampway.PrefixDashboardUser, created), MerchantID: inv.MerchantID, Email: inv.Email,
			Role: inv.Role, PasswordHash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA", CreatedAt: created}
	}
	accepted := at.Add(time.Hour)
	u := newUser(first, accepted)
	ds := &rampway.DashboardSession{ID: fmt.Sprintf("%064x", 100), UserID: u.ID, CSRFToken: "csrf", CreatedAt: accepted, LastSeenAt: accepted,
		ExpiresAt: rampway.SessionExpiry(accepted, accepted)}
	audit := &rampway.AuditEntry{ID: rampway.NewID(rampway.PrefixAuditEntry, accepted), MerchantID: m.ID, UserID: u.ID, Action: "user.create",
		Subject: u.ID, At: accepted}
	if err := s.AcceptDashboardInvitation(ctx, first.ID, u, ds, audit); err != nil {
		t.Fatal(err)
	}
	if got, err := s.DashboardUserByEmail(ctx, first.Email); err != nil || got.ID != u.ID || got.Role != rampway.RoleDeveloper {
		t.Fatalf("the invited user = %+v, %v", got, err)
	}
	if _, err := s.DashboardSession(ctx, ds.ID); err != nil {
		t.Fatalf("the invited user's session: %v", err)
	}
	if got, err = s.DashboardInvitation(ctx, first.ID); err != nil || got.UsedAt == nil || !got.UsedAt.Equal(accepted) || got.UserID != u.ID {
		t.Fatalf("accepted invitation = %+v, %v", got, err)
	}
	// Used, expired, unknown: refused, nothing written.
	again := newUser(first, accepted)
	again.Email = "again@acme.example"
	wantCode(t, s.AcceptDashboardInvitation(ctx, first.ID, again, nil, nil), rampway.ECONFLICT)
	late := newUser(old, at)
	wantCode(t, s.AcceptDashboardInvitation(ctx, old.ID, late, nil, nil), rampway.ECONFLICT)
	wantCode(t, s.AcceptDashboardInvitation(ctx, "nope", newUser(second, at), nil, nil), rampway.ENOTFOUND)
	for _, email := range []string{again.Email, late.Email} {
		if _, err := s.DashboardUserByEmail(ctx, email); rampway.ErrorCode(err) != rampway.ENOTFOUND {
			t.Fatalf("a refused acceptance made %s: %v", email, err)
		}
	}
	// An email taken meanwhile: refused, and the invitation stays usable.
	taken := newUser(second, accepted)
	taken.Email = owner.Email
	wantCode(t, s.AcceptDashboardInvitation(ctx, second.ID, taken, nil, nil), rampway.ECONFLICT)
	if got, err := s.DashboardInvitation(ctx, second.ID); err != nil || got.UsedAt != nil {
		t.Fatalf("an invitation whose email was taken = %+v, %v", got, err)
	}
	if list, err = s.DashboardInvitations(ctx, m.ID, accepted); err != nil || len(list) != 1 || list[0].ID != second.ID {
		t.Fatalf("invitations after one was accepted = %v, %v", list, err)
	}
	// Two acceptances at once make one user.
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Go(func() {
			nu := newUser(second, accepted)
			nu.Email = fmt.Sprintf("race%d@acme.example", i)
			errs[i] = s.AcceptDashboardInvitation(ctx, second.ID, nu, nil, nil)
		})
	}
	wg.Wait()
	if (errs[0] == nil) == (errs[1] == nil) {
		t.Fatalf("two acceptances at once: %v, %v; want one", errs[0], errs[1])
	}
}

func testUpdateDashboardUser(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	ctx := t.Context()
	m := mustMerchant(t, s, "acme")
	owner := mustDashboardUser(t, s, m.ID, "owner@acme.example", rampway.RoleOwner)
	dev := mustDashboardUser(t, s, m.ID, "dev@acme.example", rampway.RoleDeveloper)
	at := now()
	session := func(i int, u *rampway.DashboardUser) string {
		ds := &rampway.DashboardSession{ID: fmt.Sprintf("%064x", i), UserID: u.ID, CSRFToken: "c", CreatedAt: at, LastSeenAt: at,
			ExpiresAt: rampway.SessionExpiry(at, at)}
		if err := s.CreateDashboardSession(ctx, ds, nil); err != nil {
			t.Fatal(err)
		}
		return ds.ID
	}
	exists := func(id string) bool {
		_, err := s.DashboardSession(ctx, id)
		return err == nil
	}
	audit := func(action string) *rampway.AuditEntry {
		return &rampway.AuditEntry{ID: rampway.NewID(rampway.PrefixAuditEntry, at), MerchantID: m.ID, UserID: owner.ID, Action: action, At: at}
	}
	role := func(r rampway.DashboardRole) *rampway.DashboardRole { return &r }
	yes, no := true, false

	// The last enabled owner is neither demoted nor disabled; nothing is written.
	_, err := s.UpdateDashboardUser(ctx, owner.ID, rampway.DashboardUserUpdate{Role: role(rampway.RoleViewer), At: at}, audit("user.role"))
	wantCode(t, err, rampway.ECONFLICT)
	_, err = s.UpdateDashboardUser(ctx, owner.ID, rampway.DashboardUserUpdate{Disabled: &yes, At: at}, audit("user.disable"))
	wantCode(t, err, rampway.ECONFLICT)
	if entries, err := s.AuditEntries(ctx, m.ID, rampway.Page{Limit: 10}); err != nil || len(entries) != 0 {
		t.Fatalf("refused changes left %d audit entries, %v", len(entries), err)
	}
	_, err = s.UpdateDashboardUser(ctx, "usr_nope", rampway.DashboardUserUpdate{Disabled: &yes, At: at}, nil)
	wantCode(t, err, rampway.ENOTFOUND)
	_, err = s.UpdateDashboardUser(ctx, dev.ID, rampway.DashboardUserUpdate{Role: role(rampway.RoleOperator), At: at}, nil)
	wantCode(t, err, rampway.EINVALID)

	// A second owner: now the first may be demoted; the second then is the last.
	u, err := s.UpdateDashboardUser(ctx, dev.ID, rampway.DashboardUserUpdate{Role: role(rampway.RoleOwner), At: at}, audit("user.role"))
	if err != nil || u.Role != rampway.RoleOwner {
		t.Fatalf("promote: %+v, %v", u, err)
	}
	if u, err = s.UpdateDashboardUser(ctx, owner.ID, rampway.DashboardUserUpdate{Role: role(rampway.RoleSupport), At: at}, audit("user.role")); err != nil || u.Role != rampway.RoleSupport {
		t.Fatalf("demote with another owner: %+v, %v", u, err)
	}
	_, err = s.UpdateDashboardUser(ctx, dev.ID, rampway.DashboardUserUpdate{Disabled: &yes, At: at}, nil)
	wantCode(t, err, rampway.ECONFLICT)

	// Disabling ends the user's sessions (and sign-ins waiting for a code); enabling again.
	s1, s2, sDev := session(1, owner), session(2, owner), session(3, dev)
	challenge := &rampway.DashboardLoginChallenge{ID: fmt.Sprintf("%064x", 50), UserID: owner.ID, CreatedAt: at, ExpiresAt: at.Add(time.Minute)}
	if err := s.CreateLoginChallenge(ctx, challenge); err != nil {
		t.Fatal(err)
	}
	disabledAt := at.Add(time.Second)
	if u, err = s.UpdateDashboardUser(ctx, owner.ID, rampway.DashboardUserUpdate{Disabled: &yes, At: disabledAt}, audit("user.disable")); err != nil ||
		u.DisabledAt == nil || !u.DisabledAt.Equal(disabledAt) {
		t.Fatalf("disable: %+v, %v", u, err)
	}
	if exists(s1) || exists(s2) || !exists(sDev) {
		t.Fatalf("after disabling: sessions %v %v (gone), %v (stays)", exists(s1), exists(s2), exists(sDev))
	}
	if _, err := s.LoginChallenge(ctx, challenge.ID); rampway.ErrorCode(err) != rampway.ENOTFOUND {
		t.Fatalf("a disabled user's sign-in challenge: %v", err)
	}
	if got, _ := s.DashboardUser(ctx, owner.ID); got.DisabledAt == nil {
		t.Fatal("disabled user read as enabled")
	}
	if u, err = s.UpdateDashboardUser(ctx, owner.ID, rampway.DashboardUserUpdate{Disabled: &no, At: at}, audit("user.enable")); err != nil || u.DisabledAt != nil {
		t.Fatalf("enable: %+v, %v", u, err)
	}

	// A new password ends the other sessions, the kept one stays.
	s1, s2 = session(4, dev), session(5, dev)
	hash := "$argon2id$v=19$m=19456,t=2,p=1$bmV3$bmV3"
	if u, err = s.UpdateDashboardUser(ctx, dev.ID, rampway.DashboardUserUpdate{PasswordHash: &hash, EndSessions: true, KeepSession: s1, At: at}, audit("user.password")); err != nil ||
		u.PasswordHash != hash {
		t.Fatalf("password: %+v, %v", u, err)
	}
	if !exists(s1) || exists(s2) || exists(sDev) {
		t.Fatalf("after a new password: kept %v, others %v %v", exists(s1), exists(s2), exists(sDev))
	}

	// TOTP: the secret is kept (sealed when the store has a key) and read back; each step is
	// used once, and only forward; a new secret forgets the steps.
	secret := "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
	if _, err = s.UpdateDashboardUser(ctx, dev.ID, rampway.DashboardUserUpdate{TOTPSecret: &secret, At: at}, audit("user.totp_on")); err != nil {
		t.Fatal(err)
	}
	if got, err := s.DashboardUser(ctx, dev.ID); err != nil || got.TOTPSecret != secret {
		t.Fatalf("TOTP secret read back = %q, %v", got.TOTPSecret, err)
	}
	for i, c := range []struct {
		step int64
		ok   bool
	}{{100, true}, {100, false}, {99, false}, {101, true}} {
		if ok, err := s.UseTOTPStep(ctx, dev.ID, c.step); err != nil || ok != c.ok {
			t.Fatalf("UseTOTPStep #%d (%d) = %v, %v; want %v", i, c.step, ok, err, c.ok)
		}
	}
	none := ""
	if _, err = s.UpdateDashboardUser(ctx, dev.ID, rampway.DashboardUserUpdate{TOTPSecret: &none, At: at}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err = s.UpdateDashboardUser(ctx, dev.ID, rampway.DashboardUserUpdate{TOTPSecret: &secret, At: at}, nil); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.UseTOTPStep(ctx, dev.ID, 50); err != nil || !ok {
		t.Fatalf("a step after a new secret: %v, %v", ok, err)
	}
	entries, err := s.AuditEntries(ctx, m.ID, rampway.Page{Limit: 20})
	if err != nil || len(entries) != 6 {
		t.Fatalf("audit log: %d entries, %v; want 6", len(entries), err)
	}

	// Two owners demoting each other at once: one is refused, the merchant keeps an owner.
	if _, err = s.UpdateDashboardUser(ctx, owner.ID, rampway.DashboardUserUpdate{Role: role(rampway.RoleOwner), At: at}, nil); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, id := range []string{owner.ID, dev.ID} {
		wg.Go(func() {
			_, errs[i] = s.UpdateDashboardUser(ctx, id, rampway.DashboardUserUpdate{Role: role(rampway.RoleViewer), At: at}, nil)
		})
	}
	wg.Wait()
	if (errs[0] == nil) == (errs[1] == nil) {
		t.Fatalf("two owners demoted at once: %v, %v; want one refused", errs[0], errs[1])
	}
	for _, err := range errs {
		if err != nil {
			wantCode(t, err, rampway.ECONFLICT)
		}
	}
}

func testLoginChallenges(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	ctx := t.Context()
	m := mustMerchant(t, s, "acme")
	u := mustDashboardUser(t, s, m.ID, "owner@acme.example", rampway.RoleOwner)
	at := now()
	var made []*rampway.DashboardLoginChallenge
	for i := range 3 {
		c := &rampway.DashboardLoginChallenge{ID: fmt.Sprintf("%064x", i), UserID: u.ID, CreatedAt: at, ExpiresAt: at.Add(time.Duration(i) * time.Minute)}
		if err := s.CreateLoginChallenge(ctx, c); err != nil {
			t.Fatal(err)
		}
		made = append(made, c)
	}
	wantCode(t, s.CreateLoginChallenge(ctx, made[0]), rampway.ECONFLICT)
	got, err := s.LoginChallenge(ctx, made[2].ID)
	if err != nil || got.UserID != u.ID || !got.CreatedAt.Equal(at) || !got.ExpiresAt.Equal(made[2].ExpiresAt) {
		t.Fatalf("LoginChallenge = %+v, %v", got, err)
	}
	_, err = s.LoginChallenge(ctx, "nope")
	wantCode(t, err, rampway.ENOTFOUND)
	if n, err := s.DeleteExpiredLoginChallenges(ctx, at.Add(time.Minute), 100); err != nil || n != 2 {
		t.Fatalf("DeleteExpiredLoginChallenges = %d, %v; want 2", n, err)
	}
	for i, want := range []bool{true, false} {
		if gone, err := s.DeleteLoginChallenge(ctx, made[2].ID); err != nil || gone != want {
			t.Fatalf("delete #%d = %v, %v; want %v", i+1, gone, err, want)
		}
	}
}
