package sqlstore_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rampway/rampway/internal/sqlstore"
	"github.com/rampway/rampway/sqlite"
)

// A failed upkeep round (a WAL checkpoint, on SQLite) makes Ping fail, so that /readyz says
// it, until a round goes well again; Close stops the upkeep before closing the database.
func TestMaintainFailureFailsPing(t *testing.T) {
	db, err := sqlite.OpenDB(t.Context(), filepath.Join(t.TempDir(), "rampway.db"))
	if err != nil {
		t.Fatal(err)
	}
	rounds := make(chan error)
	stopped := make(chan struct{})
	d := sqlite.Dialect
	d.Maintain = func(ctx context.Context, _ *sql.DB, writerTurn func(func() error) error, report func(error)) {
		defer close(stopped)
		for {
			select {
			case <-ctx.Done():
				return
			case err := <-rounds:
				report(writerTurn(func() error { return err }))
				rounds <- nil // reported
			}
		}
	}
	s := sqlstore.New(db, d, nil)
	round := func(err error) {
		rounds <- err
		<-rounds
	}
	if err := s.Ping(t.Context()); err != nil {
		t.Fatalf("Ping before any round: %v", err)
	}
	round(errors.New("disk I/O error"))
	if err := s.Ping(t.Context()); err == nil || !strings.Contains(err.Error(), "disk I/O error") {
		t.Fatalf("Ping after a failed round: %v", err)
	}
	round(nil)
	if err := s.Ping(t.Context()); err != nil {
		t.Fatalf("Ping after a good round: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-stopped:
	default:
		t.Fatal("the upkeep still runs after Close")
	}
}
