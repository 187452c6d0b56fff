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
       rampway-bench fill --data-dir DIR [--db sqlite|postgres] [--orders N] [--open M] [flags]   (rampway-bench fill -h)`

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
	case "-h", "-help", "--help", "help":
		fmt.Fprintln(stdout, usage)
		return nil
	default:
		return fmt.Errorf("unknown command %q\n%s", args[0], usage)
	}
}
