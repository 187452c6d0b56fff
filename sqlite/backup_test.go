package sqlite_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rampway/rampway/sqlite"
)

// A backup taken while another connection writes without pause is one snapshot: every row
// committed before it began, and of those written meanwhile a prefix, never a gap. The writer
// is not held up (it goes on committing while the backup runs), and the file is whole.
func TestBackupWhileWriting(t *testing.T) {
	dir := t.TempDir()
	db, err := sqlite.OpenDB(t.Context(), filepath.Join(dir, "rampway.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := sqlite.Migrate(t.Context(), db); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE backup_probe (i INTEGER PRIMARY KEY, pad BLOB)"); err != nil {
		t.Fatal(err)
	}
	// Enough rows that the copy takes a while (a few MB).
	insert := func(i int64) error {
		_, err := db.Exec("INSERT INTO backup_probe (i, pad) VALUES (?, randomblob(4000))", i)
		return err
	}
	var written atomic.Int64
	for range 1000 {
		if err := insert(written.Load() + 1); err != nil {
			t.Fatal(err)
		}
		written.Add(1)
	}

	ctx, stop := context.WithCancel(t.Context())
	writerDone := make(chan error, 1)
	go func() {
		for ctx.Err() == nil {
			if err := insert(written.Load() + 1); err != nil {
				writerDone <- err
				return
			}
			written.Add(1)
		}
		writerDone <- nil
	}()
	before := written.Load()
	to := filepath.Join(dir, "backup.db")
	info, err := sqlite.Backup(t.Context(), db, to)
	during := written.Load() - before
	stop()
	if err := <-writerDone; err != nil {
		t.Fatalf("writer: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if info.SchemaVersion == 0 || info.Bytes < 4e6 || info.Orders != 0 {
		t.Fatalf("backup info %+v", info)
	}
	t.Logf("backup of %d bytes; the writer committed %d rows while it ran", info.Bytes, during)

	b := openBackup(t, to)
	var n, maxI int64
	if err := b.QueryRow("SELECT COUNT(*), MAX(i) FROM backup_probe").Scan(&n, &maxI); err != nil {
		t.Fatal(err)
	}
	if n < before || n != maxI {
		t.Fatalf("backup has %d rows up to %d; %d were committed before it began: want all of them and no gap", n, maxI, before)
	}
	if st, err := os.Stat(to); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("backup file: %v %v, want mode 0600", st.Mode(), err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".backup.db.partial-*")); len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}

// openBackup opens a backup file as the service would open it once restored.
func openBackup(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sqlite.OpenDB(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if n, err := sqlite.Migrate(t.Context(), db); err != nil || n != 0 {
		t.Fatalf("migrate the backup: %d applied, %v; want its schema up to date", n, err)
	}
	return db
}

func TestBackupRefuses(t *testing.T) {
	dir := t.TempDir()
	db, err := sqlite.OpenDB(t.Context(), filepath.Join(dir, "rampway.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Not a rampway database (no migrations): no backup file is left.
	if _, err := sqlite.Backup(t.Context(), db, filepath.Join(dir, "a.db")); err == nil || !strings.Contains(err.Error(), "not a rampway database") {
		t.Fatalf("backup of an empty database: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*a.db*")); len(left) != 0 {
		t.Fatalf("files left: %v", left)
	}
	if _, err := sqlite.Migrate(t.Context(), db); err != nil {
		t.Fatal(err)
	}
	// An existing file is never replaced.
	exists := filepath.Join(dir, "exists.db")
	if err := os.WriteFile(exists, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := sqlite.Backup(t.Context(), db, exists); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Fatalf("backup over an existing file: %v", err)
	}
	if b, _ := os.ReadFile(exists); string(b) != "keep" {
		t.Fatalf("the existing file changed: %q", b)
	}
	// A directory that does not exist.
	if _, err := sqlite.Backup(t.Context(), db, filepath.Join(dir, "nope", "b.db")); err == nil {
		t.Fatal("backup into a missing directory succeeded")
	}
	// A file that is not a database.
	if _, err := sqlite.CheckBackup(t.Context(), exists); err == nil {
		t.Fatal("CheckBackup of a text file succeeded")
	}
}
