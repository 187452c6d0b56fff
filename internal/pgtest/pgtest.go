// Package pgtest gives tests a fresh PostgreSQL database each. The server comes from
// RAMPWAY_TEST_POSTGRES_DSN; without it tests skip, except in CI (CI=true), where they fail.
package pgtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver
)

// EnvDSN names the environment variable holding the test server's DSN.
const EnvDSN = "RAMPWAY_TEST_POSTGRES_DSN"

// BaseDSN returns the test server's DSN, skipping the test when there is none outside CI and
// failing it in CI.
func BaseDSN(tb testing.TB) string {
	tb.Helper()
	dsn := os.Getenv(EnvDSN)
	if dsn == "" {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("%s is not set: PostgreSQL tests must run in CI", EnvDSN)
		}
		tb.Skipf("%s not set; skipping PostgreSQL test", EnvDSN)
	}
	return dsn
}

// FreshDSN creates an empty database on the test server and returns its DSN; the database is
// dropped when the test ends.
func FreshDSN(tb testing.TB) string {
	tb.Helper()
	base := BaseDSN(tb)
	admin, err := sql.Open("pgx", base)
	if err != nil {
		tb.Fatalf("open %s: %v", EnvDSN, err)
	}
	defer admin.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := admin.PingContext(ctx); err != nil {
		tb.Fatalf("PostgreSQL at %s is not reachable: %v", EnvDSN, err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "rampway_test_" + hex.EncodeToString(b[:])
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		tb.Fatalf("create database: %v", err)
	}
	tb.Cleanup(func() {
		db, err := sql.Open("pgx", base)
		if err != nil {
			tb.Errorf("drop database %s: %v", name, err)
			return
		}
		defer db.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := db.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			tb.Errorf("drop database %s: %v", name, err)
		}
	})
	return WithDatabase(base, name)
}

// WithDatabase returns dsn (URL or key=value form) pointing at database name.
func WithDatabase(dsn, name string) string {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err == nil {
			u.Path = "/" + name
			return u.String()
		}
	}
	return dsn + " dbname=" + name // a later keyword wins in the key=value form
}
