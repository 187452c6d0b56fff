package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway/internal/sqlstore"
)

// NonceView is a wallet's next nonce as `rampway admin nonces` prints it; with adopt, the one
// it had before.
type NonceView struct {
	Network string  `json:"network"`
	Wallet  string  `json:"wallet"`
	Next    uint64  `json:"next"`
	Before  *uint64 `json:"before,omitempty"`
}

// NoncesView lists the wallets' next nonces.
type NoncesView struct {
	Nonces []NonceView `json:"nonces"`
}

// noncesCommand runs `nonces show` and `nonces adopt --network N --wallet 0x... --next K`. The
// executor, the refunds and the sweeper sign nothing with a wallet whose nonce on chain is past
// every nonce the database assigned (rampway.ErrNonceAhead: the wallet used outside rampway, or
// the database restored from a backup older than the chain, when an order held as paid may
// have been executed already); once an operator has checked the wallet's transactions against
// the orders, adopt makes the chain's nonce the next.
func noncesCommand(ctx context.Context, store *sqlstore.Store, args []string) (any, error) {
	if len(args) < 2 || (args[1] != "show" && args[1] != "adopt") {
		return nil, errors.New("admin nonces: expects show, or adopt --network NAME --wallet ADDRESS --next N (rampway admin help)")
	}
	fset := flag.NewFlagSet("nonces "+args[1], flag.ContinueOnError)
	fset.SetOutput(io.Discard)
	network := fset.String("network", "", "the network")
	wallet := fset.String("wallet", "", "the wallet's address")
	next := fset.Uint64("next", 0, "the wallet's nonce on chain (the refusal's message gives it)")
	if err := fset.Parse(args[2:]); err != nil {
		return nil, fmt.Errorf("admin nonces %s: %w", args[1], err)
	}
	if fset.NArg() != 0 {
		return nil, fmt.Errorf("admin nonces %s: unexpected %q", args[1], fset.Arg(0))
	}
	if args[1] == "show" {
		if *network != "" || *wallet != "" || *next != 0 {
			return nil, errors.New("admin nonces show: takes no flags")
		}
		ns, err := store.Nonces(ctx)
		if err != nil {
			return nil, err
		}
		out := NoncesView{Nonces: []NonceView{}}
		for _, n := range ns {
			out.Nonces = append(out.Nonces, NonceView{Network: n.Network, Wallet: n.Wallet.Hex(), Next: n.Next})
		}
		return out, nil
	}
	if *network == "" || !common.IsHexAddress(*wallet) || *next == 0 {
		return nil, errors.New("admin nonces adopt: --network NAME, --wallet ADDRESS (0x and 40 hex digits) and --next N (at least 1) are required")
	}
	before, err := store.AdoptNonce(ctx, *network, common.HexToAddress(*wallet), *next)
	if err != nil {
		return nil, err
	}
	return NonceView{Network: *network, Wallet: common.HexToAddress(*wallet).Hex(), Next: *next, Before: &before}, nil
}
