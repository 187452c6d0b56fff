// Package sqlite is rampway's embedded store: SQLite through the pure-Go modernc driver, in WAL
// mode, with immediate transactions so concurrent writers wait instead of failing.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"sync"
	"time"

	"github.com/pressly/goose/v3"
	msqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/rampway/rampway/internal/migrate"
	"github.com/rampway/rampway/internal/secretbox"
	"github.com/rampway/rampway/internal/sqlstore"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Dialect is SQLite's sqlstore dialect.
var Dialect = sqlstore.Dialect{
	Name:             "sqlite",
	NumberedQuestion: true,
	TimesAsMicros:    true,
	OneWriter:        true,
	IndexedBy:        true,
	Maintain:         checkpoints,
	IsUniqueViolation: func(err error) bool {
		var e *msqlite.Error
		if !errors.As(err, &e) {
			return false
		}
		return e.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || e.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
	},
}

// DSN returns the driver DSN for a database file: WAL, synchronous NORMAL (durable across a
// process crash; FULL also across power loss), no checkpoints by the connections themselves
// (a Store runs them in the background: see checkpoints), a busy timeout, foreign keys, and
// immediate transactions.
func DSN(path string) string { return dsn(path, 0) }

// dsn is DSN with SQLite's wal_autocheckpoint: every that many WAL pages, the connection that
// commits copies the WAL back into the database file (0: never).
func dsn(path string, autocheckpoint int) string {
	v := url.Values{}
	v.Add("_pragma", "journal_mode(WAL)")
	v.Add("_pragma", "synchronous(NORMAL)")
	v.Add("_pragma", fmt.Sprintf("wal_autocheckpoint(%d)", autocheckpoint))
	v.Add("_pragma", "busy_timeout(10000)")
	v.Add("_pragma", "foreign_keys(1)")
	v.Set("_txlock", "immediate")
	return "file:" + path + "?" + v.Encode()
}

// Open opens (creating if needed) the database file at path and applies pending migrations.
// A process that creates several databases migrates only the first: the next new ones start as
// a copy of it (the tests' processes create hundreds; applying the migrations takes seconds
// under the race detector, modernc's SQLite being Go).
func Open(ctx context.Context, path string, box *secretbox.Box) (*sqlstore.Store, error) {
	fresh := isNew(path)
	if fresh {
		if err := emptyDB.copyTo(path); err != nil {
			return nil, fmt.Errorf("open sqlite %s: %w", path, err)
		}
	}
	db, err := OpenDB(ctx, path)
	if err != nil {
		return nil, err
	}
	if _, err := Migrate(ctx, db); err != nil {
		db.Close()
		return nil, err
	}
	if fresh {
		emptyDB.keep(ctx, db, path)
	}
	return sqlstore.New(db, Dialect, box), nil
}

// isNew reports whether no database is at path yet (nor a WAL of one).
func isNew(path string) bool {
	for _, p := range []string{path, path + "-wal"} {
		if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
			return false
		}
	}
	return true
}

// emptyDB is this process's first new database as it was once migrated, before any other
// use: the file later new databases start from.
var emptyDB migratedFile

type migratedFile struct {
	mu   sync.Mutex
	data []byte
}

// copyTo writes the migrated empty database to path, when there is one.
func (m *migratedFile) copyTo(path string) error {
	m.mu.Lock()
	data := m.data
	m.mu.Unlock()
	if data == nil {
		return nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644) // SQLite's own mode
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// keep keeps the database at path, new and just migrated through db, when none is kept yet:
// its WAL copied back into the file, the file's bytes. Failing that it keeps nothing.
func (m *migratedFile) keep(ctx context.Context, db *sql.DB, path string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.data != nil {
		return
	}
	var busy, logged, copied int
	if err := db.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logged, &copied); err != nil || busy != 0 {
		return
	}
	if data, err := os.ReadFile(path); err == nil {
		m.data = data
	}
}

// OpenDB opens (creating if needed) the database file at path, without migrating it. Its
// connections do not checkpoint: what it writes stays in the WAL until a Store or the last
// connection to close copies it back.
func OpenDB(ctx context.Context, path string) (*sql.DB, error) { return openDB(ctx, path, 0) }

// OpenDBSelfCheckpointing is OpenDB with SQLite's default checkpoints (every 1,000 WAL pages,
// by the connection that commits), for a database written without a Store: the order
// benchmark's one-insert baseline.
func OpenDBSelfCheckpointing(ctx context.Context, path string) (*sql.DB, error) {
	return openDB(ctx, path, 1000)
}

func openDB(ctx context.Context, path string, autocheckpoint int) (*sql.DB, error) {
	registered, err := sql.Open("sqlite", "") // connects nothing: only to get the driver
	if err != nil {
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	drv := registered.Driver()
	registered.Close()
	db := sql.OpenDB(connector{dsn: dsn(path, autocheckpoint), drv: drv})
	// One writer at a time is SQLite's model; a few connections let reads run beside it.
	db.SetMaxOpenConns(8)
	db.SetMaxIdleConns(8)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	return db, nil
}

// checkpointEvery is how often the store copies the WAL back into the database file.
const checkpointEvery = 250 * time.Millisecond

// checkpoints copies the WAL back into the database file every checkpointEvery until ctx
// ends. By default SQLite has the connection that commits do it each time the WAL passes
// 1,000 pages: inside the one writer's turn, and under load many times a second, copying the
// same recently written pages again each time. Here the bulk is copied beside the writer (a
// PASSIVE checkpoint waits for nobody), then what was written meanwhile in the writer's turn,
// so that the copy is whole and the next transaction starts the WAL over from its beginning
// (copied beside a writer that never stops, the WAL would never be whole and would grow). The
// last connection to close copies the rest.
func checkpoints(ctx context.Context, db *sql.DB, writerTurn func(func() error) error, report func(error)) {
	t := time.NewTicker(checkpointEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		err := checkpointWhole(ctx, db, writerTurn)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			err = fmt.Errorf("WAL checkpoint: %w", err)
		}
		report(err) // /readyz says it, in the service's log
	}
}

// checkpointWhole copies the WAL into the database file, most of it beside the writer, the
// rest in its turn.
func checkpointWhole(ctx context.Context, db *sql.DB, writerTurn func(func() error) error) error {
	if _, err := checkpoint(ctx, db); err != nil {
		return err
	}
	return writerTurn(func() error {
		_, err := checkpoint(ctx, db)
		return err
	})
}

// checkpoint runs a PASSIVE checkpoint and returns the number of frames in the WAL.
func checkpoint(ctx context.Context, db *sql.DB) (frames int, err error) {
	var busy, copied int
	err = db.QueryRowContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &frames, &copied)
	return frames, err
}

// Migrate applies pending migrations to db and returns how many were applied.
func Migrate(ctx context.Context, db *sql.DB) (int, error) {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return 0, err
	}
	return migrate.Up(ctx, db, goose.DialectSQLite3, sub)
}
