// Package postgres is rampway's production store: PostgreSQL through pgx v5, for several
// rampway instances side by side.
package postgres

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver
	"github.com/pressly/goose/v3"

	"github.com/rampway/rampway/internal/migrate"
	"github.com/rampway/rampway/internal/secretbox"
	"github.com/rampway/rampway/internal/sqlstore"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Dialect is PostgreSQL's sqlstore dialect.
var Dialect = sqlstore.Dialect{
	Name:         "postgres",
	ForUpdate:    " FOR UPDATE",
	SkipLocked:   " FOR UPDATE SKIP LOCKED",
	NextIndexSQL: `nextval('deposit_index_seq')`,
	PeekIndexSQL: `SELECT CASE WHEN is_called THEN last_value + 1 ELSE last_value END FROM deposit_index_seq`,
	// One statement: an index another instance takes meanwhile is below the new next one.
	AdvanceIndexSQL: `SELECT setval('deposit_index_seq', (SELECT CASE WHEN is_called THEN last_value + 1 ELSE last_value END FROM deposit_index_seq) + $1, false)`,
	WritableCTE:     true,
	OrderWriters:    2,
	IsUniqueViolation: func(err error) bool {
		var e *pgconn.PgError
		return errors.As(err, &e) && e.Code == "23505"
	},
	IsStatementError: func(err error) bool {
		var e *pgconn.PgError
		return errors.As(err, &e)
	},
}

// Options tune the connection pool.
type Options struct {
	MaxOpenConns int // default 20
}

// Open connects to the database at dsn and applies pending migrations.
func Open(ctx context.Context, dsn string, box *secretbox.Box, opt Options) (*sqlstore.Store, error) {
	db, err := OpenDB(ctx, dsn, opt)
	if err != nil {
		return nil, err
	}
	if _, err := Migrate(ctx, db); err != nil {
		db.Close()
		return nil, err
	}
	return sqlstore.New(db, Dialect, box), nil
}

// OpenDB connects to the database at dsn, without migrating it.
func OpenDB(ctx context.Context, dsn string, opt Options) (*sql.DB, error) {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return nil, fmt.Errorf("open postgres: %w", err)
	}
	n := opt.MaxOpenConns
	if n <= 0 {
		n = 20
	}
	db.SetMaxOpenConns(n)
	db.SetMaxIdleConns(n)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("connect postgres: %w", err)
	}
	return db, nil
}

// Migrate applies pending migrations to db and returns how many were applied.
func Migrate(ctx context.Context, db *sql.DB) (int, error) {
	sub, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return 0, err
	}
	return migrate.Up(ctx, db, goose.DialectPostgres, sub)
}
