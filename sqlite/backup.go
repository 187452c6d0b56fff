package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// BackupInfo says what a backup file holds.
type BackupInfo struct {
	// Bytes is the file's size.
	Bytes int64
	// SchemaVersion is the last migration applied to the database it was taken from.
	SchemaVersion int64
	// Orders is how many orders it holds.
	Orders int64
}

// Backup writes a consistent copy of the database db to the file to, while other connections
// and processes go on reading and writing it: SQLite's VACUUM INTO reads one snapshot of the
// database, and in WAL mode a reader neither waits for the writer nor holds it up. It refuses
// a file that exists. It writes a temporary file beside to, syncs it to disk (VACUUM INTO does
// not), checks it (PRAGMA quick_check, and that it holds rampway's schema) and only then gives
// it the name to, so that a file of that name is always a whole backup; it has mode 0600.
func Backup(ctx context.Context, db *sql.DB, to string) (BackupInfo, error) {
	if _, err := os.Lstat(to); err == nil {
		return BackupInfo{}, fmt.Errorf("backup: %s exists: give a new file", to)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return BackupInfo{}, fmt.Errorf("backup: %w", err)
	}
	dir := filepath.Dir(to)
	f, err := os.CreateTemp(dir, "."+filepath.Base(to)+".partial-*") // mode 0600; VACUUM INTO takes an empty file
	if err != nil {
		return BackupInfo{}, fmt.Errorf("backup: %w", err)
	}
	tmp := f.Name()
	f.Close()
	done := false
	defer func() {
		if !done {
			os.Remove(tmp)
		}
	}()
	if _, err := db.ExecContext(ctx, "VACUUM INTO ?", tmp); err != nil {
		return BackupInfo{}, fmt.Errorf("backup: VACUUM INTO %s: %w", tmp, err)
	}
	if err := syncFile(tmp); err != nil {
		return BackupInfo{}, fmt.Errorf("backup: %w", err)
	}
	info, err := CheckBackup(ctx, tmp)
	if err != nil {
		return BackupInfo{}, err
	}
	// A hard link names the file without replacing one made meanwhile; a file system without
	// hard links gets a rename.
	if err := os.Link(tmp, to); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return BackupInfo{}, fmt.Errorf("backup: %s exists: give a new file", to)
		}
		if err := os.Rename(tmp, to); err != nil {
			return BackupInfo{}, fmt.Errorf("backup: %w", err)
		}
	} else {
		os.Remove(tmp)
	}
	done = true
	if d, err := os.Open(dir); err == nil { // the new name, on disk
		_ = d.Sync()
		d.Close()
	}
	return info, nil
}

// CheckBackup opens the database file at path read-only, as a file nobody writes, and checks
// that it is whole (PRAGMA quick_check) and holds rampway's schema; it says what it holds.
func CheckBackup(ctx context.Context, path string) (BackupInfo, error) {
	st, err := os.Stat(path)
	if err != nil {
		return BackupInfo{}, fmt.Errorf("check backup: %w", err)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&immutable=1")
	if err != nil {
		return BackupInfo{}, fmt.Errorf("check backup %s: %w", path, err)
	}
	defer db.Close()
	var check string
	if err := db.QueryRowContext(ctx, "PRAGMA quick_check").Scan(&check); err != nil {
		return BackupInfo{}, fmt.Errorf("check backup %s: %w", path, err)
	}
	if check != "ok" {
		return BackupInfo{}, fmt.Errorf("check backup %s: quick_check says %q", path, check)
	}
	info := BackupInfo{Bytes: st.Size()}
	if err := db.QueryRowContext(ctx, "SELECT COALESCE(MAX(version_id), 0) FROM goose_db_version WHERE is_applied").Scan(&info.SchemaVersion); err != nil {
		return BackupInfo{}, fmt.Errorf("check backup %s: not a rampway database: %w", path, err)
	}
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM orders").Scan(&info.Orders); err != nil {
		return BackupInfo{}, fmt.Errorf("check backup %s: not a rampway database: %w", path, err)
	}
	return info, nil
}

func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
