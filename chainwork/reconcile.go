package chainwork

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math/big"
	"slices"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/internal/loop"
)

// ReconcileClient is what a reconciliation asks of a node: balances at a past block (recent
// ones: any full node keeps them), and the receipts of the transactions not yet settled.
type ReconcileClient interface {
	BlockNumber(ctx context.Context) (uint64, error)
	BalanceAt(ctx context.Context, account common.Address, block *big.Int) (*big.Int, error)
	CallContract(ctx context.Context, msg ethereum.CallMsg, block *big.Int) ([]byte, error)
	TransactionReceipt(ctx context.Context, hash common.Hash) (*types.Receipt, error)
}

// ReconcileStore is what a reconciliation reads and records.
type ReconcileStore interface {
	rampway.LedgerStore
	WatchCursor(ctx context.Context, network string) (uint64, common.Hash, bool, error)
	PendingTxs(ctx context.Context, network string) ([]*rampway.ChainTx, error)
	PendingTransfers(ctx context.Context, network string) ([]*rampway.InboundTransfer, error)
}

// ReconcilerConfig tunes a Reconciler.
type ReconcilerConfig struct {
	// HotWallets are the network's hot wallets: held accounts, compared every round, their
	// ledger opened at the chain's balance the first time.
	HotWallets []common.Address
	// Sweep is how many other accounts with a balance a round looks at besides those that
	// moved (a rolling look through all of them); default 100.
	Sweep int
}

// Reconciler compares, block after block, the ledger's balance of every account rampway
// holds keys for on one network with the chain's, at a block where every movement up to it is
// recorded: the watcher's cursor, and the confirmation depth (deposits are credited and
// transactions settled there). A difference is stored as a drift (an alarm: metric, /readyz
// warning, admin listing) until the balances agree again. See docs/ledger.md.
type Reconciler struct {
	cfg    ReconcilerConfig
	store  ReconcileStore
	net    *rampway.Network
	client ReconcileClient
	log    *slog.Logger
	now    func() time.Time

	mu         sync.Mutex
	sweepAfter string
	// openFrom is the chain's head when this reconciler first ran: an account is opened at a
	// block no lower, so that what was sent to it before rampway started (a hot wallet funded
	// in the block rampway started at, while the watcher's cursor, and so the safe block, is
	// one below) is in its opening (seen in make e2e: an empty opening, then the funding
	// standing as a drift).
	openFrom uint64
}

// NewReconciler returns a reconciler of net.
func NewReconciler(cfg ReconcilerConfig, store ReconcileStore, net *rampway.Network, client ReconcileClient, log *slog.Logger, now func() time.Time) *Reconciler {
	if cfg.Sweep <= 0 {
		cfg.Sweep = 100
	}
	if now == nil {
		now = time.Now
	}
	return &Reconciler{cfg: cfg, store: store, net: net, client: client, log: log.With("network", net.Name), now: now}
}

func (r *Reconciler) at() time.Time { return r.now().UTC().Truncate(time.Microsecond) }

// Run steps every poll until ctx ends.
func (r *Reconciler) Run(ctx context.Context, poll time.Duration) {
	loop.Every(ctx, poll, r.log, "reconcile step", r.Step)
}

// Step reconciles at the newest block where every movement is recorded, when the last round
// was below it.
func (r *Reconciler) Step(ctx context.Context) error {
	block, ok, err := r.SafeBlock(ctx)
	if err != nil || !ok {
		return err
	}
	last, _, done, err := r.store.Reconciled(ctx, r.net.Name)
	if err != nil || (done && last >= block) {
		return err
	}
	rec, err := r.Reconcile(ctx, block)
	if err != nil {
		return err
	}
	for _, d := range rec.Drifts() {
		r.log.Error("ledger drift: the chain's balance is not the ledger's (see rampway admin ledger drifts)", "account", d.Account, "asset", d.Asset,
			"block", d.Block, "ledger", d.Ledger.String(), "chain", d.Chain.String(), "difference", d.Diff().String())
	}
	return nil
}

// SafeBlock is the newest block at which every movement is recorded: deep enough that its
// payments are credited and its transactions settled (the network's confirmations), and
// scanned by the watcher. ok is false while there is none yet.
func (r *Reconciler) SafeBlock(ctx context.Context) (uint64, bool, error) {
	head, err := r.client.BlockNumber(ctx)
	if err != nil {
		return 0, false, fmt.Errorf("head: %w", err)
	}
	need := uint64(max(r.net.Confirmations, 1))
	if head+1 < need {
		return 0, false, nil
	}
	block := head + 1 - need
	cursor, _, ok, err := r.store.WatchCursor(ctx, r.net.Name)
	if err != nil || !ok {
		return 0, false, err
	}
	return min(block, cursor), true, nil
}

// AddHotWallets makes the configured hot wallets held accounts of the ledger.
func (r *Reconciler) AddHotWallets(ctx context.Context) error {
	for _, w := range r.cfg.HotWallets {
		if err := r.store.AddHotWallet(ctx, r.net.Name, w); err != nil {
			return err
		}
	}
	return nil
}

// Reconcile compares at block the ledger's balances of the held accounts with the chain's and
// records the round (rampway.LedgerStore.RecordReconciliation); the returned round's Drifts
// are the differences. The accounts compared are the hot wallets, those moved since they were
// last compared, those with a drift standing, and the next few of the rest with a balance.
// An account with a movement at or below block not yet recorded (a transaction mined, not yet
// settled; a payment seen, not yet credited) is skipped: it is compared in a later round.
// A hot wallet's ledger is opened at the chain's balance the first time it is compared.
//
// block must be one where the watcher has scanned every block up to it (SafeBlock); the
// simulation calls Reconcile directly after each step.
func (r *Reconciler) Reconcile(ctx context.Context, block uint64) (*rampway.Reconciliation, error) {
	if err := r.AddHotWallets(ctx); err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.openFrom == 0 {
		head, err := r.client.BlockNumber(ctx)
		if err != nil {
			return nil, fmt.Errorf("head: %w", err)
		}
		r.openFrom = max(head, 1)
	}
	// What is not settled yet first: a movement settled after this look is in the balances
	// read next.
	busy, err := r.unsettled(ctx, block)
	if err != nil {
		return nil, err
	}
	holdings, next, err := r.store.LedgerHoldings(ctx, r.net.Name, block, r.sweepAfter, r.cfg.Sweep)
	if err != nil {
		return nil, err
	}
	rec := &rampway.Reconciliation{Network: r.net.Name, Block: block, Moves: map[string]map[string]int64{}, At: r.at()}
	at := new(big.Int).SetUint64(block)
	for _, h := range holdings {
		if busy[h.Address] || (!h.Opened && block < r.openFrom) {
			rec.Skipped = append(rec.Skipped, h.Account)
			continue
		}
		assets := map[string]common.Address{rampway.NativeAsset(r.net.Name): {}}
		if h.Kind == rampway.AccountHot {
			for _, t := range r.net.Tokens {
				assets[rampway.TokenAsset(r.net.Name, t.Contract)] = t.Contract
			}
		}
		for _, t := range r.net.Tokens {
			if _, ok := h.Balances[rampway.TokenAsset(r.net.Name, t.Contract)]; ok {
				assets[rampway.TokenAsset(r.net.Name, t.Contract)] = t.Contract
			}
		}
		opening := map[string]*big.Int{}
		var checks []rampway.LedgerCheck
		for _, asset := range slices.Sorted(maps.Keys(assets)) {
			chain, err := r.balance(ctx, assets[asset], h.Address, at)
			if err != nil {
				return nil, err
			}
			ledger := new(big.Int)
			if v := h.Balances[asset]; v != nil {
				ledger.Set(v)
			}
			if !h.Opened {
				if d := new(big.Int).Sub(chain, ledger); d.Sign() != 0 {
					opening[asset] = d
				}
				ledger = new(big.Int).Set(chain)
			}
			checks = append(checks, rampway.LedgerCheck{Account: h.Account, Network: r.net.Name, Address: h.Address, Asset: asset, Block: block,
				Ledger: ledger, Chain: chain})
		}
		if !h.Opened {
			if err := r.store.OpenLedgerAccount(ctx, r.net.Name, h.Account, block, opening, rec.At); err != nil {
				return nil, err
			}
			r.log.Info("ledger account opened at the chain's balance", "account", h.Account, "block", block, "opening", fmt.Sprint(opening))
			continue // its opening moved it: compared next round
		}
		rec.Checked = append(rec.Checked, checks...)
		rec.Moves[h.Account] = h.Moves
	}
	if err := r.store.RecordReconciliation(ctx, rec); err != nil {
		return nil, err
	}
	r.sweepAfter = next
	return rec, nil
}

// balance is who's balance of token (the native coin for the zero address) at block.
func (r *Reconciler) balance(ctx context.Context, token, who common.Address, block *big.Int) (*big.Int, error) {
	if token == (common.Address{}) {
		v, err := r.client.BalanceAt(ctx, who, block)
		if err != nil {
			return nil, fmt.Errorf("balance of %s at %s: %w", who.Hex(), block, err)
		}
		return v, nil
	}
	out, err := r.client.CallContract(ctx, ethereum.CallMsg{To: &token, Data: append(rampway.SelBalanceOf[:], common.LeftPadBytes(who.Bytes(), 32)...)}, block)
	if err != nil {
		return nil, fmt.Errorf("token %s balance of %s at %s: %w", token.Hex(), who.Hex(), block, err)
	}
	if len(out) != 32 {
		return nil, fmt.Errorf("token %s: balanceOf answered %d bytes", token.Hex(), len(out))
	}
	return new(big.Int).SetBytes(out), nil
}

// unsettled are the addresses with a movement at or below block that the ledger does not
// have yet: the senders and recipients of the transactions mined there and not yet settled,
// and the deposit addresses of payments seen there and not yet credited.
func (r *Reconciler) unsettled(ctx context.Context, block uint64) (map[common.Address]bool, error) {
	busy := map[common.Address]bool{}
	seen, err := r.store.PendingTransfers(ctx, r.net.Name)
	if err != nil {
		return nil, err
	}
	for _, t := range seen {
		if t.BlockNumber <= block {
			busy[t.To] = true
		}
	}
	pending, err := r.store.PendingTxs(ctx, r.net.Name)
	if err != nil {
		return nil, err
	}
	for _, t := range pending {
		rec, err := r.client.TransactionReceipt(ctx, t.Hash)
		if errors.Is(err, ethereum.NotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("receipt of %s: %w", t.Hash.Hex(), err)
		}
		if rec.BlockNumber.Uint64() > block {
			continue
		}
		busy[t.Wallet] = true
		var tx types.Transaction
		if err := tx.UnmarshalBinary(t.Raw); err == nil && tx.To() != nil {
			busy[*tx.To()] = true
		}
		for _, l := range rec.Logs {
			if len(l.Topics) == 3 && l.Topics[0] == rampway.TransferTopic {
				busy[common.BytesToAddress(l.Topics[1].Bytes())] = true
				busy[common.BytesToAddress(l.Topics[2].Bytes())] = true
			}
		}
	}
	return busy, nil
}
