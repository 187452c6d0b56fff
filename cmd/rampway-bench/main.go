// Command rampway-bench measures rampway end to end against a minimal baseline, in one
// process, and prints markdown table rows for docs/BENCHMARKS.md.
//
//	go run ./cmd/rampway-bench orders [--api a1,a2,b1,b3] [--db sqlite,postgres] [--concurrency 16] [--duration 20s] ...
//
// `orders` starts what a real `rampway dev` run has (the embedded chain with the demo
// contracts, the store, the demo merchant and its native-paid `mint`, rampway's HTTP handler on
// a loopback listener, the deposit watcher and the expiry worker) next to the baselines: plain
// net/http handlers that decode the same JSON body and, for an order endpoint (A1, B1), insert
// one row of about the same size into the same database through the same *sql.DB, or, for a
// quote endpoint (A2, B3), answer with the body encoded again (the bare JSON handler). A Go
// load generator then sends the endpoint's requests to each, one after the other, and reports
// requests/s and latency percentiles. See docs/BENCHMARKS.md.
//
//	go run ./cmd/rampway dev --data-dir DIR    # once, stopped with Ctrl-C: the dev world, its keys and secrets
//	go run ./cmd/rampway-bench fill --data-dir DIR [--orders 1000000] [--open 100000] [--merchants 10] [--seed 1]
//	go run ./cmd/rampway-bench fill --data-dir DIR --db postgres --pg-database NAME [--serve-config FILE] ...
//	go run ./cmd/rampway-bench orders --db sqlite --data-dir DIR --reuse [--snapshot] ...
//	go run ./cmd/rampway-bench orders --db postgres --data-dir DIR --pg-database NAME [--snapshot] ...
//
// `fill` grows a database to N orders in every state of the order machine (areas A, B and C,
// the dev demo merchant and K-1 others, ages over --days, M of them open and expiring hours
// after the fill, with their events, webhook deliveries and attempts, payments, executions,
// refunds, sweeps, fiat payments and the sandbox provider's records): the SQLite database of a
// `rampway dev` data directory (`rampway dev --data-dir DIR` starts on it afterwards), or a
// PostgreSQL database filled with that directory's keys and secrets (`rampway serve` runs on
// it with --serve-config's configuration). Each order is moved through its life by the
// domain's own rules (rampway.Apply) and its rows written in bulk. `orders --reuse` (SQLite)
// and `orders --pg-database` (PostgreSQL) measure on such a database instead of a fresh one,
// in place or (--snapshot) on a copy. See docs/BENCHMARKS.md, "A grown database".
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/rampway/rampway/internal/app"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	app.TuneGC(os.Getenv) // as cmd/rampway: both servers in this process collect as rampway does
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "rampway-bench:", err)
		os.Exit(1)
	}
}

const usage = `usage: rampway-bench orders [--api a1,a2,b1,b3] [flags]   (rampway-bench orders -h lists the flags)
       rampway-bench windows --dev-json DIR/dev.json [--api a1] [--windows 6] [--window 5s]   (a running rampway, from outside)
       rampway-bench fill --data-dir DIR [--db sqlite|postgres] [--orders N] [--open M] [flags]   (rampway-bench fill -h)
       rampway-bench dashboard --url URL --data-dir DIR [--db sqlite|postgres] [--pg-database NAME]   (the dashboard's orders pages, from outside)`

func run(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	if len(args) == 0 {
		return errors.New(usage)
	}
	switch args[0] {
	case "orders":
		return runOrders(ctx, args[1:], getenv, stdout)
	case "windows":
		return runWindows(ctx, args[1:], stdout)
	case "fill":
		return runFill(ctx, args[1:], getenv, stdout)
	case "dashboard":
		return runDashboard(ctx, args[1:], getenv, stdout)
	case "-h", "-help", "--help", "help":
		fmt.Fprintln(stdout, usage)
		return nil
	default:
		return fmt.Errorf("unknown command %q\n%s", args[0], usage)
	}
}
