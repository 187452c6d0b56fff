package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/rampway/rampway/config"
	"github.com/rampway/rampway/internal/app"
	"github.com/rampway/rampway/postgres"
	"github.com/rampway/rampway/sqlite"
)

// openDB opens the configured database without migrating it, with its migrate function.
func openDB(ctx context.Context, cfg config.Config) (*sql.DB, func(context.Context, *sql.DB) (int, error), error) {
	if cfg.Database.Driver == "postgres" {
		db, err := postgres.OpenDB(ctx, cfg.Database.DSN, postgres.Options{MaxOpenConns: 2})
		return db, postgres.Migrate, err
	}
	db, err := sqlite.OpenDB(ctx, cfg.Database.Path)
	return db, sqlite.Migrate, err
}

func newLogger(cfg config.Config, w io.Writer) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(cfg.Log.Level))
	opts := &slog.HandlerOptions{Level: level}
	if cfg.Log.Format == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}

// serveFlags parses serve's command line (deploy/rampway.service's ExecStart is checked
// against it) and returns the configuration file's path.
func serveFlags(args []string, getenv func(string) string, stdout io.Writer) (string, error) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stdout)
	path := fs.String("config", getenv("RAMPWAY_CONFIG"), "configuration file (env RAMPWAY_CONFIG)")
	if err := fs.Parse(args); err != nil {
		return "", err
	}
	if fs.NArg() > 0 {
		return "", fmt.Errorf("serve: unexpected argument %q", fs.Arg(0))
	}
	if *path == "" {
		return "", errors.New("serve: --config is required")
	}
	return *path, nil
}

func runServe(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	path, err := serveFlags(args, getenv, stdout)
	if err != nil {
		return err
	}
	cfg, err := config.Load(path, getenv)
	if err != nil {
		return err
	}
	log := newLogger(cfg, stdout)
	a, err := app.Start(ctx, cfg, log, app.Options{Version: version})
	if err != nil {
		return err
	}
	return a.Serve(ctx)
}

func runMigrate(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	fs.SetOutput(stdout)
	path := fs.String("config", getenv("RAMPWAY_CONFIG"), "configuration file (env RAMPWAY_CONFIG)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *path == "" {
		return errors.New("migrate: --config is required")
	}
	cfg, err := config.Load(*path, getenv)
	if err != nil {
		return err
	}
	db, migrate, err := openDB(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	start := time.Now()
	n, err := migrate(ctx, db)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "applied %d migration(s) to %s in %s; schema is up to date\n", n, cfg.Database.Driver, time.Since(start).Round(time.Millisecond))
	return nil
}
