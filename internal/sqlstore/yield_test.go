package sqlstore_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/internal/sqlstore"
	"github.com/rampway/rampway/sqlite"
)

// On SQLite's one writer, background work (rampway.Background) lets the writes waiting
// for the writer go first, those that came after it too: with the writer held, a request's
// write F1 waits, then a background write B, then another request's F2; once the writer is
// free they are written F1, F2, B (without the yield: F1, B, F2).
func TestBackgroundWritesYieldToRequests(t *testing.T) {
	db, err := sqlite.OpenDB(t.Context(), filepath.Join(t.TempDir(), "rampway.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sqlite.Migrate(t.Context(), db); err != nil {
		t.Fatal(err)
	}
	hold, held, release := make(chan struct{}), make(chan struct{}), make(chan struct{})
	d := sqlite.Dialect
	d.Maintain = func(ctx context.Context, _ *sql.DB, writerTurn func(func() error) error, report func(error)) {
		select {
		case <-hold:
		case <-ctx.Done():
			return
		}
		_ = writerTurn(func() error {
			close(held)
			<-release
			return nil
		})
		<-ctx.Done()
	}
	s := sqlstore.New(db, d, nil)
	defer s.Close()
	yielding := make(chan struct{})
	s.SetYield(time.Hour, func() { close(yielding) }) // no wall-clock bound in the test

	create := func(ctx context.Context, name string, done chan<- error) {
		now := time.Now().UTC()
		done <- s.CreateMerchant(ctx, &rampway.Merchant{ID: rampway.NewID(rampway.PrefixMerchant, now), Name: name, Status: rampway.MerchantActive, CreatedAt: now, UpdatedAt: now})
	}
	waitFor := func(n int32) {
		for s.Waiting() != n {
			time.Sleep(time.Millisecond)
		}
	}
	close(hold)
	<-held
	done := make(chan error, 3)
	go create(t.Context(), "F1", done)
	waitFor(1)
	go create(rampway.Background(t.Context()), "B", done)
	yielded := false // else B waits for the writer too (what the test fails on)
	for !yielded && s.Waiting() < 2 {
		select {
		case <-yielding:
			yielded = true
		default:
			time.Sleep(time.Millisecond)
		}
	}
	go create(t.Context(), "F2", done)
	if yielded {
		waitFor(2)
	} else {
		waitFor(3)
	}
	close(release)
	for range 3 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	rows, err := db.QueryContext(t.Context(), `SELECT name FROM merchants ORDER BY rowid`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var order []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		order = append(order, n)
	}
	if got := len(order); got != 3 || order[0] != "F1" || order[1] != "F2" || order[2] != "B" {
		t.Fatalf("written in the order %v, want [F1 F2 B]", order)
	}
}
