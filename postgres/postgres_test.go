package postgres_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/internal/pgtest"
	"github.com/rampway/rampway/internal/secretbox"
	"github.com/rampway/rampway/postgres"
	"github.com/rampway/rampway/storetest"
)

// The store contract suite (storetest.Run) runs once, as TestNoStatementScansAGrowingTable's
// subtest "store contract", which records the statements it runs to read their plans.

// fresh is a new database, opened (and opened again) by the store.
func fresh(t *testing.T) storetest.Opener {
	dsn := pgtest.FreshDSN(t)
	box, err := secretbox.New("test-key")
	if err != nil {
		t.Fatal(err)
	}
	return func(t *testing.T) rampway.Store {
		s, err := postgres.Open(t.Context(), dsn, box, postgres.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
}

// Several instances starting at once must apply each migration exactly once.
func TestConcurrentMigrate(t *testing.T) {
	dsn := pgtest.FreshDSN(t)
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			s, err := postgres.Open(t.Context(), dsn, nil, postgres.Options{MaxOpenConns: 2})
			if err == nil {
				err = s.Close()
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// The executor's poll walks the index of paid orders even in a plan made for any parameters
// (PostgreSQL's generic plans, which prepared statements get after a few runs): a partial
// index is used only when its condition is in the query itself.
func TestExecutorPollPlan(t *testing.T) {
	got := genericPlan(t, nil, `PREPARE poll(text, bigint) AS SELECT id FROM orders WHERE network = $1 AND status IN ('DEPOSIT_SUCCESS', 'ONRAMP_SUCCESS') ORDER BY updated_at, id LIMIT $2`,
		`EXPLAIN EXECUTE poll('devnet', 10)`)
	if !strings.Contains(got, "Index Only Scan using orders_network_paid") {
		t.Fatalf("plan:\n%s\nwant an index scan of orders_network_paid", got)
	}
}

// genericPlan prepares a statement on a fresh database, after the setup statements (on the
// same connection), and returns the plan explain gives it
// under PostgreSQL's generic plans (what prepared statements get after a few runs).
func genericPlan(t *testing.T, setup []string, prepare, explain string) string {
	t.Helper()
	s, err := postgres.Open(t.Context(), pgtest.FreshDSN(t), nil, postgres.Options{MaxOpenConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	db := s.DB()
	for _, q := range append(setup, `SET plan_cache_mode = force_generic_plan`, prepare) {
		if _, err := db.ExecContext(t.Context(), q); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := db.QueryContext(t.Context(), explain)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, line)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(plan, "\n")
}

func BenchmarkCreateOrders(b *testing.B) {
	s, err := postgres.Open(b.Context(), pgtest.FreshDSN(b), nil, postgres.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	storetest.BenchCreateOrders(b, s)
}

// An order whose caller gives up while it waits behind a statement that hangs (here on a lock
// of its merchant's row) returns at once and is never written; the order in the hung statement
// is written when the lock goes, and its caller learns so.
func TestAbandonedWaitingOrderNotWritten(t *testing.T) {
	s, err := postgres.Open(t.Context(), pgtest.FreshDSN(t), nil, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	m := storetest.NewMerchant(t, s)
	lock, err := s.DB().BeginTx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Rollback()
	if _, err := lock.ExecContext(t.Context(), `SELECT id FROM merchants WHERE id = $1 FOR UPDATE`, m.ID); err != nil {
		t.Fatal(err)
	}

	first := storetest.NewOrder(m.ID, 1)
	firstDone := make(chan error, 1)
	go func() { firstDone <- s.CreateOrder(context.Background(), first) }()
	// The first order's statement waits on the lock (its foreign key check).
	deadline := time.Now().Add(time.Minute)
	for {
		var waiting int
		if err := s.DB().QueryRowContext(t.Context(), `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first order's statement never waited on the lock")
		}
		time.Sleep(10 * time.Millisecond)
	}

	second := storetest.NewOrder(m.ID, 2)
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := s.CreateOrder(ctx, second); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second order, its caller gone: %v", err)
	}
	if d := time.Since(start); d > time.Minute {
		t.Fatalf("second order's caller waited %s for a hung statement", d)
	}

	if err := lock.Rollback(); err != nil {
		t.Fatal(err)
	}
	if err := <-firstDone; err != nil {
		t.Fatalf("first order: %v", err)
	}
	if _, err := s.Order(t.Context(), first.ID); err != nil {
		t.Fatalf("first order not stored: %v", err)
	}
	if o, err := s.Order(t.Context(), second.ID); rampway.ErrorCode(err) != rampway.ENOTFOUND {
		t.Fatalf("second order: %+v, %v; want not found", o, err)
	}
}
