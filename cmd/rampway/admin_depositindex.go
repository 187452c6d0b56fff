package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/rampway/rampway/internal/sqlstore"
)

// DepositIndexView is what `rampway admin deposit-index` prints: the HD derivation index the
// next new order's deposit address gets, and with advance the one it had before.
type DepositIndexView struct {
	Next   int64  `json:"next"`
	Before *int64 `json:"before,omitempty"`
}

// depositIndexCommand runs `deposit-index show` and `deposit-index advance --by N`: after a
// restore from a backup, the counter is back where the backup had it, and the deposit
// addresses of orders made since (gone with them) would be handed out again; advance moves it
// past them.
func depositIndexCommand(ctx context.Context, store *sqlstore.Store, args []string) (any, error) {
	if len(args) < 2 || (args[1] != "show" && args[1] != "advance") {
		return nil, errors.New("admin deposit-index: expects show, or advance --by N (rampway admin help)")
	}
	fset := flag.NewFlagSet("deposit-index "+args[1], flag.ContinueOnError)
	fset.SetOutput(io.Discard)
	by := fset.Int64("by", 0, "how far to move the counter on")
	if err := fset.Parse(args[2:]); err != nil {
		return nil, fmt.Errorf("admin deposit-index %s: %w", args[1], err)
	}
	if fset.NArg() != 0 {
		return nil, fmt.Errorf("admin deposit-index %s: unexpected %q", args[1], fset.Arg(0))
	}
	if args[1] == "show" {
		if *by != 0 {
			return nil, errors.New("admin deposit-index show: takes no --by")
		}
		next, err := store.PeekDepositIndex(ctx)
		if err != nil {
			return nil, err
		}
		return DepositIndexView{Next: next}, nil
	}
	if *by <= 0 {
		return nil, errors.New("admin deposit-index advance: --by N is required, N at least 1 (more than the orders made since the backup)")
	}
	before, after, err := store.AdvanceDepositIndex(ctx, *by)
	if err != nil {
		return nil, err
	}
	return DepositIndexView{Next: after, Before: &before}, nil
}
