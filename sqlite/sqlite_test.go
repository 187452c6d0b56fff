package sqlite_test

import (
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/internal/secretbox"
	"github.com/rampway/rampway/sqlite"
	"github.com/rampway/rampway/storetest"
)

// The store contract suite (storetest.Run) runs once, as TestNoStatementScansAGrowingTable's
// subtest "store contract", which records the statements it runs to read their plans.

// fresh is a new database file, opened (and opened again) by the store.
func fresh(t *testing.T) storetest.Opener {
	path := filepath.Join(t.TempDir(), "rampway.db")
	box, err := secretbox.New("test-key")
	if err != nil {
		t.Fatal(err)
	}
	return func(t *testing.T) rampway.Store {
		s, err := sqlite.Open(t.Context(), path, box)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
}

func TestMigrateIsIdempotent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rampway.db")
	s, err := sqlite.Open(t.Context(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	n, err := sqlite.Migrate(t.Context(), s.DB())
	if err != nil || n != 0 {
		t.Fatalf("second Migrate applied %d, %v; want 0, nil", n, err)
	}
}

func BenchmarkCreateOrders(b *testing.B) {
	s, err := sqlite.Open(b.Context(), filepath.Join(b.TempDir(), "rampway.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	storetest.BenchCreateOrders(b, s)
}

// The background checkpoint copies the WAL whole although writes go on beside it: what was
// written after its first pass is copied in the writer's turn, and the next write starts the
// WAL over instead of making it longer.
// New databases after the process's first start as a copy of it as migrated: each migrated,
// each its own (what one holds the other does not), a database already there never replaced.
func TestNewDatabasesStartMigrated(t *testing.T) {
	dir := t.TempDir()
	open := func(name string) rampway.Store {
		t.Helper()
		s, err := sqlite.Open(t.Context(), filepath.Join(dir, name), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	first := open("first.db")
	m := storetest.NewMerchant(t, first)
	for _, name := range []string{"second.db", "third.db"} {
		s := open(name)
		if n, err := sqlite.Migrate(t.Context(), s.(interface{ DB() *sql.DB }).DB()); err != nil || n != 0 {
			t.Fatalf("%s: %d migrations still to apply (%v)", name, n, err)
		}
		if _, err := s.Merchant(t.Context(), m.ID); rampway.ErrorCode(err) != rampway.ENOTFOUND {
			t.Fatalf("%s holds the first database's merchant: %v", name, err)
		}
		storetest.NewMerchant(t, s)
	}
	again := open("first.db") // reopened: the same database, its merchant there
	if _, err := again.Merchant(t.Context(), m.ID); err != nil {
		t.Fatalf("the first database reopened: %v", err)
	}
}

func TestCheckpointStartsTheWALOver(t *testing.T) {
	// The database as the store opens it, without the store's own background checkpoints: on a
	// loaded machine one of them could hold the WAL while the test's checkpoint ran.
	db, err := sqlite.OpenDB(t.Context(), filepath.Join(t.TempDir(), "rampway.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	write := func(n int) {
		t.Helper()
		for range n {
			if _, err := db.ExecContext(t.Context(), `INSERT INTO wal_test (b) VALUES (randomblob(3000))`); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := db.ExecContext(t.Context(), `CREATE TABLE wal_test (b BLOB)`); err != nil {
		t.Fatal(err)
	}
	// A PASSIVE checkpoint reports -1 frames when it could not run (the store's own
	// background checkpoint ran at that moment): ask again.
	checkpoint := func() (int, error) {
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
			n, err := sqlite.Checkpoint(t.Context(), db)
			if err != nil || n != -1 || time.Now().After(deadline) {
				return n, err
			}
		}
	}
	write(200)
	before, err := checkpoint()
	if err != nil || before < 200 {
		t.Fatalf("%d frames in the WAL after 200 rows of 3,000 bytes, %v", before, err)
	}
	turns := 0
	err = sqlite.CheckpointWhole(t.Context(), db, func(fn func() error) error {
		turns++
		write(50) // written after the first pass: only the writer's turn can copy it
		return fn()
	})
	if err != nil || turns != 1 {
		t.Fatalf("checkpoint: %v, %d writer turns", err, turns)
	}
	write(1)
	after, err := checkpoint()
	if err != nil || after >= 10 {
		t.Fatalf("%d frames in the WAL after one more row (%d before the checkpoint), %v; want the WAL started over", after, before, err)
	}
}
