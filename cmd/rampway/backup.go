package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/rampway/rampway/config"
	"github.com/rampway/rampway/sqlite"
)

const backupUsage = `rampway backup (--config FILE | --data-dir D) --to FILE

Writes a consistent copy of the SQLite database (database.path of the configuration, or a
rampway dev data directory's) to FILE, while rampway serve goes on running and writing it:
SQLite's VACUUM INTO, then the file is synced and checked. FILE must not exist. Only the
database section of the configuration is read: the service's secrets are not needed.

Restore: stop rampway, put the file in place of the database (removing the old one's -wal
and -shm files), start rampway (docs/production.md#backups).

PostgreSQL is backed up with pg_dump, not with this command (docs/production.md#backups).
`

// runBackup backs up a SQLite database online; it refuses PostgreSQL, which pg_dump backs up.
func runBackup(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	fset := flag.NewFlagSet("backup", flag.ContinueOnError)
	fset.SetOutput(stdout)
	fset.Usage = func() { fmt.Fprint(stdout, backupUsage) }
	path := fset.String("config", getenv("RAMPWAY_CONFIG"), "configuration file (env RAMPWAY_CONFIG)")
	dataDir := fset.String("data-dir", "", "a 'rampway dev' data directory instead of --config")
	to := fset.String("to", "", "the backup file to write (must not exist)")
	if err := fset.Parse(args); err != nil {
		return err
	}
	if fset.NArg() > 0 {
		return fmt.Errorf("backup: unexpected argument %q (the file goes after --to)", fset.Arg(0))
	}
	if *to == "" {
		return errors.New("backup: --to FILE is required")
	}
	var db config.Database
	switch {
	case *dataDir != "":
		db = config.Database{Driver: "sqlite", Path: filepath.Join(*dataDir, devDBFile)}
	case *path != "":
		var err error
		if db, err = config.LoadDatabase(*path, getenv); err != nil {
			return err
		}
	default:
		return errors.New("backup: --config FILE or --data-dir DIR is required")
	}
	if db.Driver == "postgres" {
		return errors.New("backup: the database is PostgreSQL: back it up with pg_dump, for example " +
			`pg_dump --format=custom --file=rampway.dump "$RAMPWAY_DATABASE_DSN", and restore it with pg_restore ` +
			"(docs/production.md#backups)")
	}
	// Opening a missing file would create an empty database, and back that up.
	if _, err := os.Stat(db.Path); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("backup: no database at %s (database.path)", db.Path)
	} else if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	start := time.Now()
	conn, err := sqlite.OpenDB(ctx, db.Path)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	defer conn.Close()
	info, err := sqlite.Backup(ctx, conn, *to)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "backed up %s to %s: %d orders, schema version %d, %d bytes, in %s\n",
		db.Path, *to, info.Orders, info.SchemaVersion, info.Bytes, time.Since(start).Round(time.Millisecond))
	return nil
}
