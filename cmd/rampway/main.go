// Command rampway is the rampway payment gateway: one binary for the API server (serve), a
// self-contained development environment (dev), onboarding (admin), schema migrations, online
// backups of SQLite (backup) and the generation of production keys (keys).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/rampway/rampway/internal/app"
)

// version is the release, set at build time with -ldflags "-X main.version=..." (make build
// sets it from git describe); without it, what the Go toolchain recorded (versionOf).
var version string

func init() { version = versionOf(version, debug.ReadBuildInfo) }

// versionOf is the version a binary reports: set, when the build set one; else the module's
// version when it was installed by version (go install github.com/rampway/rampway/cmd/rampway@v1.2.3);
// else "dev-" and the commit it was built from (with "-dirty" for uncommitted changes), which
// go build records in a checkout; else "dev" (go run, go test).
func versionOf(set string, read func() (*debug.BuildInfo, bool)) string {
	if set != "" {
		return set
	}
	info, ok := read()
	if !ok {
		return "dev"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if rev == "" {
		return "dev"
	}
	return "dev-" + rev[:min(len(rev), 12)] + dirty
}

// processStart is when the program's own package was initialised: the start time where the
// kernel's is not at hand.
var processStart = time.Now()

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	stopWithGoRun() // after NotifyContext: the SIGTERM it asks for shuts down cleanly
	app.TuneGC(os.Getenv)
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return // a command's -h or --help: its usage went to stdout, as asked
		}
		fmt.Fprintln(os.Stderr, "rampway:", err)
		os.Exit(1)
	}
}

const usage = `rampway: self-hosted payment gateway for on-chain actions

Usage:
  rampway serve --config FILE        run the API server (production)
  rampway dev [--addr A] [--rpc-addr R] [--block-time T] [--data-dir D]
                                     run everything locally on SQLite and an embedded
                                     chain; writes D/dev.json (rampway dev --help)
  rampway dev pay [--data-dir D] [--amount A] ORDER_ID
                                     pay an order of a running rampway dev from its
                                     payer wallet (what is due, or A)
  rampway admin (--config FILE | --data-dir D) COMMAND ...
                                     onboard merchants (rampway admin help)
  rampway migrate --config FILE      apply database migrations
  rampway backup (--config FILE | --data-dir D) --to FILE
                                     back up the SQLite database while serve runs
                                     (PostgreSQL: pg_dump; rampway backup --help)
  rampway keys new [--keystore-dir D] [--json]
                                     generate the keys and secrets of a production
                                     serve, and say where each goes (rampway keys help)
  rampway demo deploy --rpc-url URL [--network N]
                                     deploy the demo contracts to any chain (key in
                                     RAMPWAY_DEPLOYER_KEY) and print their configuration
  rampway listen --forward-to URL [--server S] [--data-dir D]
                                     forward your merchant's webhook deliveries, signed,
                                     to a local URL (rampway listen --help)
  rampway version                    print the version
`

// run is the whole program; main only wires the process to it.
func run(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stdout, usage)
		return errors.New("no command given")
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "serve":
		return runServe(ctx, rest, getenv, stdout)
	case "dev":
		return runDev(ctx, rest, getenv, stdout)
	case "admin":
		return runAdmin(ctx, rest, getenv, stdout, os.Stderr)
	case "migrate":
		return runMigrate(ctx, rest, getenv, stdout)
	case "backup":
		return runBackup(ctx, rest, getenv, stdout)
	case "keys":
		return runKeys(ctx, rest, getenv, stdout)
	case "demo":
		return runDemo(ctx, rest, getenv, stdout)
	case "listen":
		return runListen(ctx, rest, getenv, stdout)
	case "version", "--version":
		fmt.Fprintln(stdout, "rampway", version)
		return nil
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stdout, usage)
	return fmt.Errorf("unknown command %q", cmd)
}
