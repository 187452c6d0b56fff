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
	ClaimIndex:       " INDEXED BY webhook_deliveries_pending",
	IsUniqueViolation: func(err error) bool {
		var e *msqlite.Error
		if !errors.As(err, &e) {
			return false
		}
		return e.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || e.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
	},
}

// DSN returns the driver DSN for a database file: WAL, synchronous NORMAL (durable across a
// process crash; FULL also across power loss), a busy timeout, foreign keys, and immediate
// transactions.
func DSN(path string) string {
	v := url.Values{}
	v.Add("_pragma", "journal_mode(WAL)")
	v.Add("_pragma", "synchronous(NORMAL)")
	v.Add("_pragma", "busy_timeout(10000)")
	v.Add("_pragma", "foreign_keys(1)")
	v.Set("_txlock", "immediate")
	return "file:" + path + "?" + v.Encode()
}

// Open opens (creating if needed) the database file at path and applies pending migrations.
func Open(ctx context.Context, path string, box *secretbox.Box) (*sqlstore.Store, error) {
	db, err := OpenDB(ctx, path)
	if err != nil {
		return nil, err
	}
	if _, err := Migrate(ctx, db); err != nil {
		db.Close()
		return nil, err
	}
	return sqlstore.New(db, Dialect, box), nil
}

// OpenDB opens (creating if needed) the database file at path, without migrating it.
func OpenDB(ctx context.Context, path string) (*sql.DB, error) {
	registered, err := sql.Open("sqlite", "") // connects nothing: only to get the driver
	if err != nil {
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	drv := registered.Driver()
	registered.Close()
	db := sql.OpenDB(connector{dsn: DSN(path), drv: drv})
	// One writer at a time is SQLite's model; a few connections let reads run beside it.
	db.SetMaxOpenConns(8)
	db.SetMaxIdleConns(8)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	return db, nil
}

// Migrate applies pending migrations to db and returns how many were applied.
func Migrate(ctx context.Context, db *sql.DB) (int, error) {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return 0, err
	}
	return migrate.Up(ctx, db, goose.DialectSQLite3, sub)
}
