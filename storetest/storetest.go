// Package storetest is the contract every rampway.Store implementation must pass. Each store
// package runs it against a fresh database per test.
package storetest

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rampway/rampway"
)

// Opener opens a store over one fresh database; calling it again opens the same database
// again (to check that data survives a restart). The suite closes what it opens.
type Opener func(t *testing.T) rampway.Store

// Fresh makes a new, empty database and returns its Opener.
type Fresh func(t *testing.T) Opener

// Run runs the whole contract suite.
func Run(t *testing.T, fresh Fresh) {
	tests := []struct {
		name string
		fn   func(t *testing.T, open Opener)
	}{
		{"MerchantRoundTrip", testMerchantRoundTrip},
		{"Modes", testModes},
		{"WebhooksOff", testWebhooksOff},
		{"FiatActionsNeedingOperator", testFiatActionsNeedingOperator},
		{"MerchantNotFound", testMerchantNotFound},
		{"MerchantDuplicate", testMerchantDuplicate},
		{"MerchantList", testMerchantList},
		{"MerchantUpdate", testMerchantUpdate},
		{"WebhookSecret", testWebhookSecret},
		{"APIKeys", testAPIKeys},
		{"APIKeyErrors", testAPIKeyErrors},
		{"RevokeAPIKey", testRevokeAPIKey},
		{"ConcurrentWrites", testConcurrentWrites},
		{"SurvivesReopen", testSurvivesReopen},
		{"ContractFunctions", testContractFunctions},
		{"MerchantDepositAddresses", testMerchantDepositAddresses},
		{"Orders", testOrders},
		{"PageEvents", testPageEvents},
		{"Transitions", testTransitions},
		{"ConcurrentTransition", testConcurrentTransition},
		{"DepositIndexes", testDepositIndexes},
		{"ReserveDepositIndexes", testReserveDepositIndexes},
		{"AdvanceDepositIndex", testAdvanceDepositIndex},
		{"ConcurrentCreateOrders", testConcurrentCreateOrders},
		{"OrderClaimTakenOver", testOrderClaimTakenOver},
		{"Idempotency", testIdempotency},
		{"DueOrders", testDueOrders},
		{"PaidOrders", testPaidOrders},
		{"Deposits", testDeposits},
		{"CreditWithoutTransition", testCreditWithoutTransition},
		{"NativeArrivals", testNativeArrivals},
		{"Executions", testExecutions},
		{"NonceAhead", testNonceAhead},
		{"ConcurrentNonces", testConcurrentNonces},
		{"Refunds", testRefunds},
		{"RefundPayouts", testRefundPayouts},
		{"MerchantRefunds", testMerchantRefunds},
		{"ConcurrentRefunds", testConcurrentRefunds},
		{"Sweeps", testSweeps},
		{"NoSweepWhileUnderpaid", testNoSweepWhileUnderpaid},
		{"Ledger", testLedger},
		{"FiatLedger", testFiatLedger},
		{"CreatedOrderDelivery", testCreatedOrderDelivery},
		{"DeliveryClaims", testDeliveryClaims},
		{"DeliveryClaimsPerMerchant", testDeliveryClaimsPerMerchant},
		{"WebhookLog", testWebhookLog},
		{"ConcurrentDeliveryClaims", testConcurrentDeliveryClaims},
		{"DeferDeliveries", testDeferDeliveries},
		{"HeldDeliveries", testHeldDeliveries},
		{"ProviderEvents", testProviderEvents},
		{"LateTransfer", testLateTransfer},
		{"Leases", testLeases},
		{"Hooks", testHooks},
		{"ApplyEach", testApplyEach},
		{"DashboardUsers", testDashboardUsers},
		{"OrderStats", testOrderStats},
		{"DashboardSessions", testDashboardSessions},
		{"LoginFailures", testLoginFailures},
		{"AuditLog", testAuditLog},
		{"DashboardInvitations", testDashboardInvitations},
		{"UpdateDashboardUser", testUpdateDashboardUser},
		{"LoginChallenges", testLoginChallenges},
		{"SearchOrders", testSearchOrders},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // each on a fresh database of its own
			tt.fn(t, fresh(t))
		})
	}
}

// now returns a time at microsecond precision, as every store keeps it.
func now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

func mustOpen(t *testing.T, open Opener) rampway.Store {
	t.Helper()
	s := open(t)
	t.Cleanup(func() { s.Close() })
	return s
}

func mustMerchant(t testing.TB, s rampway.Store, name string) *rampway.Merchant {
	t.Helper()
	at := now()
	m := &rampway.Merchant{ID: rampway.NewID(rampway.PrefixMerchant, at), Name: name, Status: rampway.MerchantActive,
		WebhookURL: "https://example.com/hooks/" + name, CreatedAt: at, UpdatedAt: at}
	if err := s.CreateMerchant(context.Background(), m); err != nil {
		t.Fatalf("CreateMerchant: %v", err)
	}
	return m
}

func mustKey(t *testing.T, s rampway.Store, merchantID string) *rampway.APIKey {
	t.Helper()
	at := now()
	id := rampway.NewID(rampway.PrefixAPIKey, at)
	k := &rampway.APIKey{ID: id, MerchantID: merchantID, Prefix: "rw_test_" + id[len(id)-8:], Hash: []byte("hash-" + id), CreatedAt: at}
	if err := s.CreateAPIKey(context.Background(), k); err != nil {
		t.Fatalf("CreateAPIKey: %v", err)
	}
	return k
}

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	if got := rampway.ErrorCode(err); got != code {
		t.Fatalf("error code = %q (%v), want %q", got, err, code)
	}
}

func sameMerchant(t *testing.T, got, want *rampway.Merchant) {
	t.Helper()
	g, w := *got, *want
	if !timeEq(g.WebhookSecretSetAt, w.WebhookSecretSetAt) {
		t.Fatalf("WebhookSecretSetAt = %v, want %v", g.WebhookSecretSetAt, w.WebhookSecretSetAt)
	}
	g.WebhookSecretSetAt, w.WebhookSecretSetAt = nil, nil
	if !int64Eq(g.ServiceFeeBPS, w.ServiceFeeBPS) {
		t.Fatalf("ServiceFeeBPS = %v, want %v", fmtInt64(g.ServiceFeeBPS), fmtInt64(w.ServiceFeeBPS))
	}
	g.ServiceFeeBPS, w.ServiceFeeBPS = nil, nil
	if !g.CreatedAt.Equal(w.CreatedAt) || !g.UpdatedAt.Equal(w.UpdatedAt) {
		t.Fatalf("times = %v/%v, want %v/%v", g.CreatedAt, g.UpdatedAt, w.CreatedAt, w.UpdatedAt)
	}
	g.CreatedAt, g.UpdatedAt, w.CreatedAt, w.UpdatedAt = time.Time{}, time.Time{}, time.Time{}, time.Time{}
	if !maps.Equal(g.RefundPolicies, w.RefundPolicies) {
		t.Fatalf("RefundPolicies = %v, want %v", g.RefundPolicies, w.RefundPolicies)
	}
	g.RefundPolicies, w.RefundPolicies = nil, nil
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("merchant = %+v, want %+v", g, w)
	}
}

func timeEq(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Equal(*b)
}

func int64Eq(a, b *int64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

func fmtInt64(v *int64) string {
	if v == nil {
		return "nil"
	}
	return fmt.Sprint(*v)
}

func testMerchantRoundTrip(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	m := mustMerchant(t, s, "acme")
	got, err := s.Merchant(t.Context(), m.ID)
	if err != nil {
		t.Fatal(err)
	}
	sameMerchant(t, got, m)
	if got.WebhookSecret != "" {
		t.Fatalf("new merchant has a webhook secret %q", got.WebhookSecret)
	}
	if got.ServiceFeeBPS != nil {
		t.Fatalf("new merchant has a service fee of %d bps, want the default (nil)", *got.ServiceFeeBPS)
	}
	// A merchant with its own service fee, 0 included (free is not the default).
	for _, bps := range []int64{250, 0, 10_000} {
		at := now()
		fee := bps
		m := &rampway.Merchant{ID: rampway.NewID(rampway.PrefixMerchant, at), Name: "fee", Status: rampway.MerchantActive,
			ServiceFeeBPS: &fee, CreatedAt: at, UpdatedAt: at}
		if err := s.CreateMerchant(t.Context(), m); err != nil {
			t.Fatal(err)
		}
		got, err := s.Merchant(t.Context(), m.ID)
		if err != nil {
			t.Fatal(err)
		}
		sameMerchant(t, got, m)
		if got.ServiceFeeBPS == nil || *got.ServiceFeeBPS != bps {
			t.Fatalf("service fee %s, want %d", fmtInt64(got.ServiceFeeBPS), bps)
		}
		ms, err := s.Merchants(t.Context(), rampway.Page{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		if i := slices.IndexFunc(ms, func(x *rampway.Merchant) bool { return x.ID == m.ID }); i < 0 {
			t.Fatalf("merchant %s not listed", m.ID)
		} else {
			sameMerchant(t, ms[i], m)
		}
	}
	// A merchant with a logo (a new merchant has none: "").
	if got.LogoURL != "" {
		t.Fatalf("new merchant has a logo %q", got.LogoURL)
	}
	at := now()
	logo := &rampway.Merchant{ID: rampway.NewID(rampway.PrefixMerchant, at), Name: "logo", Status: rampway.MerchantActive,
		LogoURL: "https://cdn.example/" + strings.Repeat("l", 2000) + ".svg", CreatedAt: at, UpdatedAt: at}
	if err := s.CreateMerchant(t.Context(), logo); err != nil {
		t.Fatal(err)
	}
	if got, err = s.Merchant(t.Context(), logo.ID); err != nil {
		t.Fatal(err)
	}
	sameMerchant(t, got, logo)
}

func testMerchantNotFound(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	_, err := s.Merchant(t.Context(), "mch_nope")
	wantCode(t, err, rampway.ENOTFOUND)
	_, err = s.UpdateMerchant(t.Context(), "mch_nope", rampway.MerchantUpdate{UpdatedAt: now()})
	wantCode(t, err, rampway.ENOTFOUND)
	wantCode(t, s.SetWebhookSecret(t.Context(), "mch_nope", false, "x", 0, now()), rampway.ENOTFOUND)
}

func testMerchantDuplicate(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	m := mustMerchant(t, s, "acme")
	dup := *m
	wantCode(t, s.CreateMerchant(t.Context(), &dup), rampway.ECONFLICT)
}

func testMerchantList(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	var ids []string
	for i := range 5 {
		ids = append(ids, mustMerchant(t, s, fmt.Sprintf("m%d", i)).ID)
	}
	slices.Sort(ids) // ids made in one millisecond sort by their random part
	var got []string
	after := ""
	for {
		page, err := s.Merchants(t.Context(), rampway.Page{After: after, Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		if len(page) > 2 {
			t.Fatalf("page of %d, limit 2", len(page))
		}
		if len(page) == 0 {
			break
		}
		for _, m := range page {
			got = append(got, m.ID)
		}
		after = page[len(page)-1].ID
	}
	if strings.Join(got, ",") != strings.Join(ids, ",") {
		t.Fatalf("listed %v, want %v (id order)", got, ids)
	}
}

func testMerchantUpdate(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	m := mustMerchant(t, s, "acme")
	name, status := "Acme Ltd", rampway.MerchantDisabled
	at := now().Add(time.Second)
	got, err := s.UpdateMerchant(t.Context(), m.ID, rampway.MerchantUpdate{Name: &name, Status: &status, UpdatedAt: at})
	if err != nil {
		t.Fatal(err)
	}
	want := *m
	want.Name, want.Status, want.UpdatedAt = name, status, at
	sameMerchant(t, got, &want)
	again, err := s.Merchant(t.Context(), m.ID)
	if err != nil {
		t.Fatal(err)
	}
	sameMerchant(t, again, &want)
	url := ""
	got, err = s.UpdateMerchant(t.Context(), m.ID, rampway.MerchantUpdate{WebhookURL: &url, UpdatedAt: at})
	if err != nil {
		t.Fatal(err)
	}
	if got.WebhookURL != "" || got.Name != name {
		t.Fatalf("after clearing the URL: %+v", got)
	}

	// The service fee: set, left alone when not asked, changed, back to the default (nil).
	fee := int64(250)
	got, err = s.UpdateMerchant(t.Context(), m.ID, rampway.MerchantUpdate{SetServiceFeeBPS: true, ServiceFeeBPS: &fee, UpdatedAt: at})
	if err != nil {
		t.Fatal(err)
	}
	fee = 9999 // the store keeps its own copy
	if got.ServiceFeeBPS == nil || *got.ServiceFeeBPS != 250 {
		t.Fatalf("service fee after setting 250: %s", fmtInt64(got.ServiceFeeBPS))
	}
	want.WebhookURL, want.ServiceFeeBPS = "", got.ServiceFeeBPS
	for _, u := range []rampway.MerchantUpdate{
		{UpdatedAt: at},
		{Name: &name, UpdatedAt: at},
		{ServiceFeeBPS: &fee, UpdatedAt: at}, // without SetServiceFeeBPS: left alone
	} {
		if got, err = s.UpdateMerchant(t.Context(), m.ID, u); err != nil {
			t.Fatal(err)
		}
		sameMerchant(t, got, &want)
		if again, err = s.Merchant(t.Context(), m.ID); err != nil {
			t.Fatal(err)
		}
		sameMerchant(t, again, &want)
	}
	// The logo: set, left alone when not asked, removed.
	for _, logo := range []string{"https://cdn.example/acme.svg", "", "http://127.0.0.1:8080/demo/assets/logo.svg"} {
		for _, u := range []rampway.MerchantUpdate{{LogoURL: &logo, UpdatedAt: at}, {UpdatedAt: at}} {
			if got, err = s.UpdateMerchant(t.Context(), m.ID, u); err != nil {
				t.Fatal(err)
			}
			want.LogoURL = logo
			sameMerchant(t, got, &want)
			if again, err = s.Merchant(t.Context(), m.ID); err != nil {
				t.Fatal(err)
			}
			sameMerchant(t, again, &want)
		}
	}
	zero := int64(0)
	for _, set := range []*int64{&zero, nil} {
		if got, err = s.UpdateMerchant(t.Context(), m.ID, rampway.MerchantUpdate{SetServiceFeeBPS: true, ServiceFeeBPS: set, UpdatedAt: at}); err != nil {
			t.Fatal(err)
		}
		want.ServiceFeeBPS = set
		sameMerchant(t, got, &want)
		if again, err = s.Merchant(t.Context(), m.ID); err != nil {
			t.Fatal(err)
		}
		sameMerchant(t, again, &want)
	}
}

func testWebhookSecret(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	m := mustMerchant(t, s, "acme")
	for _, secret := range []string{"whsec_first", "whsec_second"} {
		at := now()
		if err := s.SetWebhookSecret(t.Context(), m.ID, false, secret, 0, at); err != nil {
			t.Fatal(err)
		}
		got, err := s.Merchant(t.Context(), m.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.WebhookSecret != secret || got.WebhookSecretSetAt == nil || !got.WebhookSecretSetAt.Equal(at) {
			t.Fatalf("secret = %q set at %v, want %q at %v", got.WebhookSecret, got.WebhookSecretSetAt, secret, at)
		}
		if got.PreviousWebhookSecret != "" || len(got.WebhookSecrets(false, at)) != 1 {
			t.Fatalf("a rotation without grace kept the old secret: %+v", got)
		}
	}
	// A rotation with a grace period keeps the old secret valid until it ends.
	at := now()
	if err := s.SetWebhookSecret(t.Context(), m.ID, false, "whsec_third", time.Hour, at); err != nil {
		t.Fatal(err)
	}
	got, _ := s.Merchant(t.Context(), m.ID)
	if secrets := got.WebhookSecrets(false, at.Add(59*time.Minute)); len(secrets) != 2 || secrets[0] != "whsec_third" || secrets[1] != "whsec_second" {
		t.Fatalf("during the grace period: %v", secrets)
	}
	if secrets := got.WebhookSecrets(false, at.Add(time.Hour)); len(secrets) != 1 || secrets[0] != "whsec_third" {
		t.Fatalf("after the grace period: %v", secrets)
	}
	// Rotating again without grace ends the old one at once.
	if err := s.SetWebhookSecret(t.Context(), m.ID, false, "whsec_fourth", 0, now()); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Merchant(t.Context(), m.ID); len(got.WebhookSecrets(false, now())) != 1 || got.PreviousSecretExpiresAt != nil {
		t.Fatalf("after a rotation without grace: %+v", got)
	}
	// Stores that expose their database must not keep the secret in clear when they were given
	// an encryption key; the suite's stores always are.
	if d, ok := s.(interface{ DB() *sql.DB }); ok {
		var raw string
		if err := d.DB().QueryRowContext(t.Context(), "SELECT webhook_secret FROM merchants WHERE id = '"+m.ID+"'").Scan(&raw); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(raw, "whsec_fourth") {
			t.Fatalf("webhook secret stored in clear: %q", raw)
		}
	}
	// The live-mode secret is apart: setting and rotating it leaves the test-mode one alone,
	// and each mode's deliveries are signed with their own.
	at = now()
	if err := s.SetWebhookSecret(t.Context(), m.ID, true, "whsec_live_one", 0, at); err != nil {
		t.Fatal(err)
	}
	if err := s.SetWebhookSecret(t.Context(), m.ID, true, "whsec_live_two", time.Hour, at); err != nil {
		t.Fatal(err)
	}
	got, _ = s.Merchant(t.Context(), m.ID)
	if live := got.WebhookSecrets(true, at); len(live) != 2 || live[0] != "whsec_live_two" || live[1] != "whsec_live_one" ||
		got.LiveWebhookSecretSetAt == nil || !got.LiveWebhookSecretSetAt.Equal(at) {
		t.Fatalf("live secrets = %v (set at %v)", live, got.LiveWebhookSecretSetAt)
	}
	if test := got.WebhookSecrets(false, at); len(test) != 1 || test[0] != "whsec_fourth" || !got.HasWebhookSecret(false) || !got.HasWebhookSecret(true) {
		t.Fatalf("test secrets after a live rotation = %v", test)
	}
	if d, ok := s.(interface{ DB() *sql.DB }); ok {
		var raw string
		if err := d.DB().QueryRowContext(t.Context(), "SELECT live_webhook_secret FROM merchants WHERE id = '"+m.ID+"'").Scan(&raw); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(raw, "whsec_live_two") {
			t.Fatalf("live webhook secret stored in clear: %q", raw)
		}
	}
}

func testAPIKeys(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	m := mustMerchant(t, s, "acme")
	other := mustMerchant(t, s, "other")
	k1, k2 := mustKey(t, s, m.ID), mustKey(t, s, m.ID)
	mustKey(t, s, other.ID)
	got, err := s.APIKeyByPrefix(t.Context(), k2.Prefix)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != k2.ID || got.MerchantID != m.ID || !bytes.Equal(got.Hash, k2.Hash) || !got.CreatedAt.Equal(k2.CreatedAt) || !got.Active() {
		t.Fatalf("APIKeyByPrefix = %+v, want %+v", got, k2)
	}
	list, err := s.APIKeys(t.Context(), m.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].ID != k1.ID || list[1].ID != k2.ID {
		t.Fatalf("APIKeys = %v, want [%s %s]", list, k1.ID, k2.ID)
	}
	_, err = s.APIKeyByPrefix(t.Context(), "rw_test_missing")
	wantCode(t, err, rampway.ENOTFOUND)
}

func testAPIKeyErrors(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	m := mustMerchant(t, s, "acme")
	k := mustKey(t, s, m.ID)
	dup := *k
	dup.ID = rampway.NewID(rampway.PrefixAPIKey, now())
	wantCode(t, s.CreateAPIKey(t.Context(), &dup), rampway.ECONFLICT)
	orphan := &rampway.APIKey{ID: rampway.NewID(rampway.PrefixAPIKey, now()), MerchantID: "mch_nope", Prefix: "rw_test_orphan", Hash: []byte("h"), CreatedAt: now()}
	wantCode(t, s.CreateAPIKey(t.Context(), orphan), rampway.ENOTFOUND)
	_, err := s.APIKeys(t.Context(), "mch_nope")
	wantCode(t, err, rampway.ENOTFOUND)
}

func testRevokeAPIKey(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	m := mustMerchant(t, s, "acme")
	other := mustMerchant(t, s, "other")
	k := mustKey(t, s, m.ID)
	_, err := s.RevokeAPIKey(t.Context(), other.ID, k.ID, now())
	wantCode(t, err, rampway.ENOTFOUND)
	first := now()
	got, err := s.RevokeAPIKey(t.Context(), m.ID, k.ID, first)
	if err != nil {
		t.Fatal(err)
	}
	if got.Active() || !got.RevokedAt.Equal(first) {
		t.Fatalf("revoked key = %+v", got)
	}
	got, err = s.RevokeAPIKey(t.Context(), m.ID, k.ID, first.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if !got.RevokedAt.Equal(first) {
		t.Fatalf("second revoke moved revoked_at to %v", got.RevokedAt)
	}
	byPrefix, err := s.APIKeyByPrefix(t.Context(), k.Prefix)
	if err != nil || byPrefix.Active() {
		t.Fatalf("APIKeyByPrefix after revoke = %+v, %v", byPrefix, err)
	}
	_, err = s.RevokeAPIKey(t.Context(), m.ID, "key_nope", now())
	wantCode(t, err, rampway.ENOTFOUND)
}

func testConcurrentWrites(t *testing.T, open Opener) {
	s := mustOpen(t, open)
	m := mustMerchant(t, s, "acme")
	const n = 32
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Go(func() {
			at := now()
			id := rampway.NewID(rampway.PrefixAPIKey, at)
			errs <- s.CreateAPIKey(context.Background(), &rampway.APIKey{ID: id, MerchantID: m.ID, Prefix: "rw_test_" + id[len(id)-12:], Hash: []byte(id), CreatedAt: at})
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("concurrent CreateAPIKey: %v", err)
		}
	}
	list, err := s.APIKeys(t.Context(), m.ID)
	if err != nil || len(list) != n {
		t.Fatalf("APIKeys = %d keys, %v; want %d", len(list), err, n)
	}
}

func testSurvivesReopen(t *testing.T, open Opener) {
	s := open(t)
	m := mustMerchant(t, s, "acme")
	k := mustKey(t, s, m.ID)
	if err := s.SetWebhookSecret(t.Context(), m.ID, false, "whsec_keep", 0, now()); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2 := mustOpen(t, open)
	got, err := s2.Merchant(t.Context(), m.ID)
	if err != nil || got.WebhookSecret != "whsec_keep" {
		t.Fatalf("after reopen: %+v, %v", got, err)
	}
	if _, err := s2.APIKeyByPrefix(t.Context(), k.Prefix); err != nil {
		t.Fatalf("key lost on reopen: %v", err)
	}
	if err := s2.Ping(t.Context()); err != nil {
		t.Fatal(err)
	}
	// A closed store refuses writes at once (SQLite's group commit has stopped with it).
	done := make(chan error, 1)
	go func() { done <- s.CreateOrder(t.Context(), mustOrderValues(m.ID)) }()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a closed store stored an order")
		}
	case <-time.After(time.Minute):
		t.Fatal("a write to a closed store hangs")
	}
}
