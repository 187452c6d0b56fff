package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/httpapi"
)

// ledgerCommand runs `rampway admin ledger ...`: the drifts standing, the report per day and
// asset, the transfers of a reference or an account (the admin API's ledger routes).
func ledgerCommand(ctx context.Context, l rampway.LedgerStore, args []string) (any, error) {
	if len(args) < 2 {
		return nil, errors.New(`admin: "ledger" needs a sub-command: drifts, accept, report or transfers (rampway admin help)`)
	}
	verb, rest := args[1], args[2:]
	fset := flag.NewFlagSet("ledger "+verb, flag.ContinueOnError)
	fset.SetOutput(io.Discard)
	network := fset.String("network", "", "network name")
	from := fset.String("from", "", "first day, YYYY-MM-DD")
	to := fset.String("to", "", "day after the last, YYYY-MM-DD")
	note := fset.String("note", "", "what was found")
	var pos []string
	for len(rest) > 0 && (len(rest[0]) == 0 || rest[0][0] != '-') {
		pos, rest = append(pos, rest[0]), rest[1:]
	}
	if err := fset.Parse(rest); err != nil {
		return nil, fmt.Errorf("admin ledger %s: %w", verb, err)
	}
	pos = append(pos, fset.Args()...)
	switch verb {
	case "drifts":
		if len(pos) != 0 {
			return nil, errors.New("admin ledger drifts: expects no positional arguments")
		}
		ds, err := l.LedgerDrifts(ctx, *network)
		if err != nil {
			return nil, err
		}
		return httpapi.NewLedgerDriftsView(ds), nil
	case "report":
		if len(pos) != 0 {
			return nil, errors.New("admin ledger report: expects no positional arguments")
		}
		f, t, err := httpapi.LedgerRange(*from, *to, time.Now())
		if err != nil {
			return nil, err
		}
		days, err := l.LedgerReport(ctx, f, t)
		if err != nil {
			return nil, err
		}
		return httpapi.NewLedgerReportView(f, t, days), nil
	case "transfers":
		if len(pos) != 1 {
			return nil, errors.New("admin ledger transfers: expects REF (an order, sweep, refund or fiat payment's id) or an ACCOUNT")
		}
		ts, err := l.LedgerTransfers(ctx, pos[0])
		if err != nil {
			return nil, err
		}
		return httpapi.NewLedgerTransfersView(ts), nil
	case "accept":
		if len(pos) != 2 {
			return nil, errors.New("admin ledger accept: expects ACCOUNT ASSET --note TEXT")
		}
		t, err := l.AcceptLedgerDrift(ctx, pos[0], pos[1], *note, time.Now().UTC().Truncate(time.Microsecond))
		if err != nil {
			return nil, err
		}
		return httpapi.NewLedgerTransfersView([]rampway.LedgerTransfer{*t}).Transfers[0], nil
	}
	return nil, fmt.Errorf("admin ledger: unknown sub-command %q (drifts, accept, report, transfers)", verb)
}
