package storetest

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/rampway/rampway"
)

func mustDashboardUser(t *testing.T, s rampway.Store, merchantID, email string, role rampway.DashboardRole) *rampway.DashboardUser {
	t.Helper()
	at := now()
	u := &rampway.DashboardUser{ID: rampway.NewID(rampway.PrefixDashboardUser, at), MerchantID: merchantID, Email: email, Role: role,
		PasswordHash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA", CreatedAt: at}
	if err := s.CreateDashboardUser(t.Context(), u, nil); err != nil {
		t.Fatalf("CreateDashboardUser: %v", err)
	}
	return u
}

func sameDashboardUser(t *testing.T, got, want *rampway.DashboardUser) {
	t.Helper()
	g, w := *got, *want
	if !g.CreatedAt.Equal(w.CreatedAt) || !timeEq(g.DisabledAt, w.DisabledAt) {
		t.Fatalf("times = %v/%v, want %v/%v", g.CreatedAt, g.DisabledAt, w.CreatedAt, w.DisabledAt)
	}
	g.CreatedAt, w.CreatedAt, g.DisabledAt, w.DisabledAt = time.Time{}, time.Time{}, nil, nil
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("user = %+v, want %+v", g, w)
	}
}

func ids[T any](xs []T, id func(T) string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = id(x)
	}
	return out
}

func testDashboardUsers(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	m := mustMerchant(t, s, "acme")
	other := mustMerchant(t, s, "other")

	at := now()
	disabled := at.Add(time.Minute)
	owner := &rampway.DashboardUser{ID: rampway.NewID(rampway.PrefixDashboardUser, at), MerchantID: m.ID, Email: "owner@acme.example",
		Role: rampway.RoleOwner, PasswordHash: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA", TOTPSecret: "JBSWY3DPEHPK3PXP",
		CreatedAt: at, DisabledAt: &disabled}
	audit := &rampway.AuditEntry{ID: rampway.NewID(rampway.PrefixAuditEntry, at), MerchantID: m.ID, Action: "user.create",
		Subject: owner.ID, Detail: "owner@acme.example as owner", At: at}
	if err := s.CreateDashboardUser(t.Context(), owner, audit); err != nil {
		t.Fatal(err)
	}
	got, err := s.DashboardUser(t.Context(), owner.ID)
	if err != nil {
		t.Fatal(err)
	}
	sameDashboardUser(t, got, owner)
	if got, err = s.DashboardUserByEmail(t.Context(), owner.Email); err != nil {
		t.Fatal(err)
	}
	sameDashboardUser(t, got, owner)
	// The user's creation is in the audit log, with the user.
	entries, err := s.AuditEntries(t.Context(), m.ID, rampway.Page{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || !reflect.DeepEqual(*entries[0], *audit) {
		t.Fatalf("audit log = %+v, want [%+v]", entries, audit)
	}

	op := mustDashboardUser(t, s, "", "ops@rampway.example", rampway.RoleOperator)
	viewer := mustDashboardUser(t, s, m.ID, "a-viewer@acme.example", rampway.RoleViewer)
	support := mustDashboardUser(t, s, other.ID, "support@other.example", rampway.RoleSupport)

	// Listed by merchant, then email.
	list, err := s.DashboardUsers(t.Context(), m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ids(list, func(u *rampway.DashboardUser) string { return u.ID }), []string{viewer.ID, owner.ID}; !reflect.DeepEqual(got, want) {
		t.Fatalf("DashboardUsers(%s) = %v, want %v", m.ID, got, want)
	}
	all, err := s.DashboardUsers(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{op.ID}
	if m.ID < other.ID {
		want = append(want, viewer.ID, owner.ID, support.ID)
	} else {
		want = append(want, support.ID, viewer.ID, owner.ID)
	}
	if got := ids(all, func(u *rampway.DashboardUser) string { return u.ID }); !reflect.DeepEqual(got, want) {
		t.Fatalf("DashboardUsers(all) = %v, want %v", got, want)
	}

	// An email is taken once; a merchant must exist; unknown users are not found.
	dup := *viewer
	dup.ID = rampway.NewID(rampway.PrefixDashboardUser, now())
	wantCode(t, s.CreateDashboardUser(t.Context(), &dup, nil), rampway.ECONFLICT)
	orphan := *viewer
	orphan.ID, orphan.Email, orphan.MerchantID = rampway.NewID(rampway.PrefixDashboardUser, now()), "orphan@example.com", "mch_nope"
	wantCode(t, s.CreateDashboardUser(t.Context(), &orphan, nil), rampway.ENOTFOUND)
	_, err = s.DashboardUser(t.Context(), "usr_nope")
	wantCode(t, err, rampway.ENOTFOUND)
	_, err = s.DashboardUserByEmail(t.Context(), "nobody@example.com")
	wantCode(t, err, rampway.ENOTFOUND)
	_, err = s.DashboardUsers(t.Context(), "mch_nope")
	wantCode(t, err, rampway.ENOTFOUND)
	// A refused user leaves no audit entry behind.
	failed := &rampway.AuditEntry{ID: rampway.NewID(rampway.PrefixAuditEntry, now()), MerchantID: m.ID, Action: "user.create", At: now()}
	wantCode(t, s.CreateDashboardUser(t.Context(), &dup, failed), rampway.ECONFLICT)
	if entries, err := s.AuditEntries(t.Context(), m.ID, rampway.Page{Limit: 10}); err != nil || len(entries) != 1 {
		t.Fatalf("audit log after a refused user: %d entries, %v", len(entries), err)
	}
}

func testDashboardSessions(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	m := mustMerchant(t, s, "acme")
	u := mustDashboardUser(t, s, m.ID, "owner@acme.example", rampway.RoleOwner)
	at := now()
	newSession := func(i int, expires time.Time) *rampway.DashboardSession {
		return &rampway.DashboardSession{ID: fmt.Sprintf("%064x", i), UserID: u.ID, CSRFToken: fmt.Sprintf("csrf-%d", i),
			CreatedAt: at, LastSeenAt: at, ExpiresAt: expires, IP: "192.0.2.1", UserAgent: "Mozilla/5.0 <test>"}
	}
	ds := newSession(1, rampway.SessionExpiry(at, at))
	login := &rampway.AuditEntry{ID: rampway.NewID(rampway.PrefixAuditEntry, at), MerchantID: m.ID, UserID: u.ID, Action: "login", At: at}
	if err := s.CreateDashboardSession(t.Context(), ds, login); err != nil {
		t.Fatal(err)
	}
	wantCode(t, s.CreateDashboardSession(t.Context(), ds, nil), rampway.ECONFLICT)
	got, err := s.DashboardSession(t.Context(), ds.ID)
	if err != nil {
		t.Fatal(err)
	}
	sameSession := func(got, want *rampway.DashboardSession) {
		t.Helper()
		if !got.CreatedAt.Equal(want.CreatedAt) || !got.LastSeenAt.Equal(want.LastSeenAt) || !got.ExpiresAt.Equal(want.ExpiresAt) {
			t.Fatalf("session times = %v %v %v, want %v %v %v", got.CreatedAt, got.LastSeenAt, got.ExpiresAt, want.CreatedAt, want.LastSeenAt, want.ExpiresAt)
		}
		g, w := *got, *want
		g.CreatedAt, g.LastSeenAt, g.ExpiresAt, w.CreatedAt, w.LastSeenAt, w.ExpiresAt = time.Time{}, time.Time{}, time.Time{}, time.Time{}, time.Time{}, time.Time{}
		if !reflect.DeepEqual(g, w) {
			t.Fatalf("session = %+v, want %+v", g, w)
		}
	}
	sameSession(got, ds)

	// A touch moves its last use and its end.
	seen := at.Add(time.Hour)
	if err := s.TouchDashboardSession(t.Context(), ds.ID, seen, rampway.SessionExpiry(at, seen)); err != nil {
		t.Fatal(err)
	}
	ds.LastSeenAt, ds.ExpiresAt = seen, rampway.SessionExpiry(at, seen)
	if got, err = s.DashboardSession(t.Context(), ds.ID); err != nil {
		t.Fatal(err)
	}
	sameSession(got, ds)
	wantCode(t, s.TouchDashboardSession(t.Context(), "nope", seen, seen), rampway.ENOTFOUND)
	_, err = s.DashboardSession(t.Context(), "nope")
	wantCode(t, err, rampway.ENOTFOUND)

	// Deleted once, with its audit entry; a second delete finds nothing and records nothing.
	logout := &rampway.AuditEntry{ID: rampway.NewID(rampway.PrefixAuditEntry, at), MerchantID: m.ID, UserID: u.ID, Action: "logout", At: at.Add(time.Second)}
	for i, want := range []bool{true, false} {
		e := *logout
		e.ID = rampway.NewID(rampway.PrefixAuditEntry, at)
		if i == 0 {
			e = *logout
		}
		deleted, err := s.DeleteDashboardSession(t.Context(), ds.ID, &e)
		if err != nil || deleted != want {
			t.Fatalf("delete #%d = %v, %v; want %v", i+1, deleted, err, want)
		}
	}
	_, err = s.DashboardSession(t.Context(), ds.ID)
	wantCode(t, err, rampway.ENOTFOUND)
	entries, err := s.AuditEntries(t.Context(), m.ID, rampway.Page{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(entries, func(e *rampway.AuditEntry) string { return e.Action }); !reflect.DeepEqual(got, []string{"logout", "login"}) {
		t.Fatalf("audit actions = %v, want [logout login]", got)
	}

	// The ended sessions are deleted, a page at a time; the others stay.
	for i := range 5 {
		if err := s.CreateDashboardSession(t.Context(), newSession(10+i, at.Add(time.Duration(i)*time.Minute)), nil); err != nil {
			t.Fatal(err)
		}
	}
	n, err := s.DeleteExpiredDashboardSessions(t.Context(), at.Add(2*time.Minute), 2)
	if err != nil || n != 2 {
		t.Fatalf("first cleanup = %d, %v; want 2", n, err)
	}
	if n, err = s.DeleteExpiredDashboardSessions(t.Context(), at.Add(2*time.Minute), 100); err != nil || n != 1 {
		t.Fatalf("second cleanup = %d, %v; want 1", n, err)
	}
	for i := range 5 {
		_, err := s.DashboardSession(t.Context(), fmt.Sprintf("%064x", 10+i))
		if i <= 2 {
			wantCode(t, err, rampway.ENOTFOUND)
		} else if err != nil {
			t.Fatalf("session %d, not ended, is gone: %v", i, err)
		}
	}
}

func testLoginFailures(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	const window = 15 * time.Minute
	at := now()
	if f, err := s.LoginFailures(t.Context(), "email:a@example.com"); err != nil || f.Count != 0 {
		t.Fatalf("failures of a new key = %+v, %v", f, err)
	}
	for i := 1; i <= 3; i++ {
		f, err := s.RecordLoginFailure(t.Context(), "email:a@example.com", at.Add(time.Duration(i)*time.Minute), window)
		if err != nil {
			t.Fatal(err)
		}
		if f.Count != i || !f.WindowStart.Equal(at.Add(time.Minute)) {
			t.Fatalf("failure %d: %+v, want %d since %v", i, f, i, at.Add(time.Minute))
		}
	}
	f, err := s.LoginFailures(t.Context(), "email:a@example.com")
	if err != nil || f.Count != 3 || !f.WindowStart.Equal(at.Add(time.Minute)) {
		t.Fatalf("LoginFailures = %+v, %v", f, err)
	}
	if f, err := s.LoginFailures(t.Context(), "ip:192.0.2.1"); err != nil || f.Count != 0 {
		t.Fatalf("another key's failures = %+v, %v", f, err)
	}
	// Once the window has passed, a failure begins a new one.
	later := at.Add(time.Minute + window)
	if f, err = s.RecordLoginFailure(t.Context(), "email:a@example.com", later, window); err != nil || f.Count != 1 || !f.WindowStart.Equal(later) {
		t.Fatalf("failure after the window = %+v, %v; want 1 since %v", f, err, later)
	}
	if err := s.ClearLoginFailures(t.Context(), "email:a@example.com"); err != nil {
		t.Fatal(err)
	}
	if f, err := s.LoginFailures(t.Context(), "email:a@example.com"); err != nil || f.Count != 0 {
		t.Fatalf("failures after clearing = %+v, %v", f, err)
	}
	// Old windows are deleted.
	for i, key := range []string{"ip:192.0.2.1", "ip:192.0.2.2", "ip:192.0.2.3"} {
		if _, err := s.RecordLoginFailure(t.Context(), key, at.Add(time.Duration(i)*time.Hour), window); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := s.DeleteLoginFailuresBefore(t.Context(), at.Add(90*time.Minute), 100); err != nil || n != 2 {
		t.Fatalf("DeleteLoginFailuresBefore = %d, %v; want 2", n, err)
	}
	if f, err := s.LoginFailures(t.Context(), "ip:192.0.2.3"); err != nil || f.Count != 1 {
		t.Fatalf("the recent window = %+v, %v", f, err)
	}
}

func testAuditLog(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	m := mustMerchant(t, s, "acme")
	at := now()
	var want []string // newest first
	for i := range 5 {
		e := &rampway.AuditEntry{ID: rampway.NewID(rampway.PrefixAuditEntry, at), MerchantID: m.ID, UserID: "usr_x",
			Action: "user.create", Subject: fmt.Sprint(i), Detail: "<b>détail</b>", At: at.Add(time.Duration(i/2) * time.Second)}
		if err := s.AddAuditEntry(t.Context(), e); err != nil {
			t.Fatal(err)
		}
		want = append([]string{e.ID}, want...)
	}
	// Entries of one instant are ordered by id: ids made in one millisecond sort by their
	// random part, so the expected order is by (at, id).
	entries, err := s.AuditEntries(t.Context(), m.ID, rampway.Page{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(entries); i++ {
		a, b := entries[i-1], entries[i]
		if a.At.Before(b.At) || (a.At.Equal(b.At) && a.ID < b.ID) {
			t.Fatalf("audit log out of order at %d: %+v before %+v", i, a, b)
		}
	}
	want = ids(entries, func(e *rampway.AuditEntry) string { return e.ID })
	if len(want) != 5 {
		t.Fatalf("%d entries, want 5", len(want))
	}
	var got []string
	after := ""
	for {
		page, err := s.AuditEntries(t.Context(), m.ID, rampway.Page{After: after, Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		got = append(got, ids(page, func(e *rampway.AuditEntry) string { return e.ID })...)
		after = page[len(page)-1].ID
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("paged = %v, want %v", got, want)
	}
	// Another merchant's log (and the operator's) are apart.
	if entries, err := s.AuditEntries(t.Context(), "", rampway.Page{Limit: 100}); err != nil || len(entries) != 0 {
		t.Fatalf("operator's log = %d entries, %v", len(entries), err)
	}
	_, err = s.AuditEntries(t.Context(), "", rampway.Page{After: want[0], Limit: 10})
	wantCode(t, err, rampway.ENOTFOUND)
}
