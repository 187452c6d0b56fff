package chainwork

import (
	"context"
	"fmt"
	"log/slog"
	"math/big"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/internal/loop"
)

// transferTopic is ERC-20's Transfer event.
var transferTopic = rampway.TransferTopic

const (
	// watchBatch bounds the blocks one step scans (a watcher far behind catches up in steps).
	watchBatch = 100
	// maxReorg bounds how far back a reorganisation is followed.
	maxReorg = 128
	// lateWindow is how long after expiry a payment is still recognised (and refunded).
	lateWindow = 24 * time.Hour
)

// WatchClient is what a watcher asks of a node: per block, one block read and one log query,
// whatever the number of open orders.
type WatchClient interface {
	BlockNumber(ctx context.Context) (uint64, error)
	BlockByNumber(ctx context.Context, number *big.Int) (*types.Block, error)
	HeaderByNumber(ctx context.Context, number *big.Int) (*types.Header, error)
	FilterLogs(ctx context.Context, q ethereum.FilterQuery) ([]types.Log, error)
}

// Watcher follows one network's blocks, records payments to open orders' deposit addresses,
// credits them once they are deep enough, and undoes what a reorganisation removed.
type Watcher struct {
	store  rampway.DepositStore
	net    *rampway.Network
	client WatchClient
	log    *slog.Logger
	now    func() time.Time
	hashes map[uint64]common.Hash // canonical hashes of recently scanned blocks
	// watched are the orders a payment may arrive for, by deposit address: reloaded in full
	// every watchReload, and between reloads completed with the orders created meanwhile.
	watched map[common.Address]rampway.WatchedDeposit
	fullAt  time.Time
	// behindGrace is how long the chain's head may stay below the cursor before it is
	// reported (WatcherConfig); lag is what Step last saw of that, for Ping.
	behindGrace time.Duration
	lag         chainLag
	// internal sees native payments made inside transactions (WatcherConfig.Internal); nil
	// when off.
	internal *internalSource
}

// chainLag is a chain's head seen below the watcher's cursor: the node lost blocks the
// database has recorded (a node restored or restarted without its last blocks), or lags.
type chainLag struct {
	mu             sync.Mutex
	since          time.Time // first seen behind; zero while it is not
	head, recorded uint64
	reported       time.Time // last logged; zero until the grace is over
}

const (
	// DefaultBehindGrace is how long a chain's head may stay below the block the watcher has
	// recorded before the watcher logs an error and Ping fails: a node behind a load balancer
	// can answer from a replica a block or two late, and catch up.
	DefaultBehindGrace = time.Minute
	// behindRepeat is how often the error is logged again while the chain stays behind.
	behindRepeat = 5 * time.Minute
)

const (
	// watchReload is how often the watched set is read in full (it drops orders that no longer
	// take payments; until then, a payment to one of them is recorded and refunded anyway).
	watchReload = time.Minute
	// createdOverlap reaches back past the last load, for clocks of other instances that run
	// behind and transactions that committed late.
	createdOverlap = time.Minute
)

// watchedSet returns the deposits a payment may arrive for, by address.
func (w *Watcher) watchedSet(ctx context.Context) (map[common.Address]rampway.WatchedDeposit, error) {
	now := w.at()
	if w.watched == nil || now.Sub(w.fullAt) >= watchReload || now.Before(w.fullAt) {
		deposits, err := w.store.WatchedDeposits(ctx, w.net.Name, now.Add(-lateWindow))
		if err != nil {
			return nil, err
		}
		w.watched = make(map[common.Address]rampway.WatchedDeposit, len(deposits))
		for _, d := range deposits {
			w.watched[d.Address] = d
		}
		w.fullAt = now
		return w.watched, nil
	}
	// Only the orders created since the last full load (the set's size does not matter here).
	newer, err := w.store.DepositsCreatedSince(ctx, w.net.Name, w.fullAt.Add(-createdOverlap))
	if err != nil {
		return nil, err
	}
	for _, d := range newer {
		w.watched[d.Address] = d
	}
	return w.watched, nil
}

// WatcherConfig tunes a Watcher; the zero value is a watcher of top-level transfers and token
// logs, with the default grace.
type WatcherConfig struct {
	// BehindGrace is how long the chain's head may stay below the block the watcher has
	// recorded before it is reported; DefaultBehindGrace when zero.
	BehindGrace time.Duration
	// CannotLag reports a head below the recorded block at the first step that sees it,
	// without BehindGrace: for a chain that mines its own blocks (the dev chain).
	CannotLag bool
	// Internal has the watcher also see native payments made inside transactions (see
	// InternalMode); the zero value leaves them unseen.
	Internal InternalTransfers
}

// NewWatcher returns a watcher of net. An error says what of cfg.Internal cannot work.
func NewWatcher(cfg WatcherConfig, store rampway.DepositStore, net *rampway.Network, client WatchClient, log *slog.Logger, now func() time.Time) (*Watcher, error) {
	if now == nil {
		now = time.Now
	}
	grace := cfg.BehindGrace
	switch {
	case cfg.CannotLag:
		grace = 0
	case grace <= 0:
		grace = DefaultBehindGrace
	}
	w := &Watcher{store: store, net: net, client: client, log: log, now: now, hashes: map[uint64]common.Hash{}, behindGrace: grace}
	src, err := cfg.Internal.source(net.Name)
	if err != nil {
		return nil, err
	}
	w.internal = src
	return w, nil
}

// noteHead compares the chain's head with the block the watcher has recorded. A head below it
// means the chain lost blocks the database knows (payments seen in them, calls mined there)
// or its node lags: nothing on this network goes on until the head passes the recorded block
// again. Once that has lasted behindGrace it is logged as an error (again every behindRepeat)
// and Ping fails; when the head catches up, that is logged too.
func (w *Watcher) noteHead(head, recorded uint64) {
	l := &w.lag
	l.mu.Lock()
	defer l.mu.Unlock()
	if head >= recorded {
		if !l.reported.IsZero() {
			w.log.Info("chain head caught up with the block rampway has recorded", "network", w.net.Name, "head", head, "recorded", recorded)
		}
		l.since, l.reported = time.Time{}, time.Time{}
		return
	}
	now := w.now()
	if l.since.IsZero() {
		l.since = now
	}
	l.head, l.recorded = head, recorded
	if now.Sub(l.since) < w.behindGrace || (!l.reported.IsZero() && now.Sub(l.reported) < behindRepeat) {
		return
	}
	l.reported = now
	w.log.Error("chain head is behind the block rampway has recorded: the node lost blocks (a chain restored or restarted without its last blocks) or lags; payments and executions on this network wait until it passes the recorded block",
		"network", w.net.Name, "head", head, "recorded", recorded, "behind_since", l.since.UTC().Format(time.RFC3339))
}

// Ping fails, for /readyz, while the chain's head has been below the block the watcher has
// recorded for longer than the grace (see noteHead), naming the network and both heights.
func (w *Watcher) Ping(context.Context) error {
	l := &w.lag
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.reported.IsZero() {
		return nil
	}
	return rampway.Errorf(rampway.EUNAVAILABLE,
		"Network %s: the chain's head is block %d, behind block %d that rampway has recorded (the node lost blocks or lags); payments and executions on %s wait until it passes block %d",
		w.net.Name, l.head, l.recorded, w.net.Name, l.recorded)
}

func (w *Watcher) at() time.Time { return w.now().UTC().Truncate(time.Microsecond) }

// Run steps every poll until ctx ends.
func (w *Watcher) Run(ctx context.Context, poll time.Duration) {
	loop.Every(ctx, poll, w.log.With("network", w.net.Name), "watch step", w.Step)
}

// Begin records the block the watcher starts from, the head, when none is recorded yet (a new
// database): the composition root calls it before any order is taken, so that no payment to
// an order can be in a block before it. A payment mined before the first step of a watcher
// that began only then was never seen (found by package sim: orders created and paid while
// the node failed the watcher's first steps).
func (w *Watcher) Begin(ctx context.Context) error {
	if _, _, ok, err := w.store.WatchCursor(ctx, w.net.Name); err != nil || ok {
		return err
	}
	head, err := w.client.BlockNumber(ctx)
	if err != nil {
		return fmt.Errorf("head: %w", err)
	}
	_, _, err = w.startAt(ctx, head)
	return err
}

// startAt records the block before head as the cursor (the first step scans head).
func (w *Watcher) startAt(ctx context.Context, head uint64) (uint64, common.Hash, error) {
	start := head
	if start > 0 {
		start--
	}
	h, err := w.client.HeaderByNumber(ctx, new(big.Int).SetUint64(start))
	if err != nil {
		return 0, common.Hash{}, fmt.Errorf("header %d: %w", start, err)
	}
	if err := w.store.SetWatchCursor(ctx, w.net.Name, start, h.Hash(), w.at()); err != nil {
		return 0, common.Hash{}, err
	}
	return start, h.Hash(), nil
}

// Step scans the blocks since the last step (at most watchBatch) and then confirms or drops
// the payments waiting for confirmations. Starting from nothing (no Begin), it begins at the
// head.
func (w *Watcher) Step(ctx context.Context) error {
	head, err := w.client.BlockNumber(ctx)
	if err != nil {
		return fmt.Errorf("head: %w", err)
	}
	cur, curHash, ok, err := w.store.WatchCursor(ctx, w.net.Name)
	if err != nil {
		return err
	}
	if ok {
		w.noteHead(head, cur)
	} else if cur, curHash, err = w.startAt(ctx, head); err != nil {
		return err
	}
	if head > cur {
		if err := w.scan(ctx, cur, curHash, min(head, cur+watchBatch)); err != nil {
			return err
		}
	}
	return w.confirm(ctx, head)
}

// scan processes blocks cur+1..end.
func (w *Watcher) scan(ctx context.Context, cur uint64, curHash common.Hash, end uint64) error {
	byAddr, err := w.watchedSet(ctx)
	if err != nil {
		return err
	}
	var tokens []common.Address
	for _, t := range w.net.Tokens {
		tokens = append(tokens, t.Contract)
	}
	signer := types.LatestSignerForChainID(w.net.ChainID)
	for n := cur + 1; n <= end; n++ {
		b, err := w.client.BlockByNumber(ctx, new(big.Int).SetUint64(n))
		if err != nil {
			return fmt.Errorf("block %d: %w", n, err)
		}
		if b.ParentHash() != curHash {
			return w.rewind(ctx, cur)
		}
		var found []*rampway.InboundTransfer
		for _, tx := range b.Transactions() {
			if tx.To() == nil || tx.Value().Sign() <= 0 {
				continue
			}
			if o, ok := byAddr[*tx.To()]; ok && o.Token == (common.Address{}) {
				from, err := types.Sender(signer, tx) // only for matches: a signature recovery each
				if err != nil {
					return fmt.Errorf("sender of %s: %w", tx.Hash().Hex(), err)
				}
				found = append(found, &rampway.InboundTransfer{Network: w.net.Name, TxHash: tx.Hash(), LogIndex: -1, OrderID: o.OrderID,
					From: from, To: *tx.To(), Amount: tx.Value(), BlockNumber: n, BlockHash: b.Hash()})
			}
		}
		if len(tokens) > 0 {
			hash := b.Hash()
			logs, err := w.client.FilterLogs(ctx, ethereum.FilterQuery{BlockHash: &hash, Addresses: tokens, Topics: [][]common.Hash{{transferTopic}}})
			if err != nil {
				return fmt.Errorf("logs of block %d: %w", n, err)
			}
			for _, l := range logs {
				if len(l.Topics) != 3 || len(l.Data) != 32 || l.Removed {
					continue
				}
				to := common.BytesToAddress(l.Topics[2].Bytes())
				if o, ok := byAddr[to]; ok && o.Token != (common.Address{}) && o.Token == l.Address {
					found = append(found, &rampway.InboundTransfer{Network: w.net.Name, TxHash: l.TxHash, LogIndex: int64(l.Index), OrderID: o.OrderID,
						Token: l.Address, From: common.BytesToAddress(l.Topics[1].Bytes()), To: to, Amount: new(big.Int).SetBytes(l.Data), BlockNumber: n, BlockHash: b.Hash()})
				}
			}
		}
		if w.internal != nil && w.internal.mode == InternalTrace {
			internal, err := w.internal.traced(ctx, w.net.Name, b, byAddr)
			if err != nil {
				return err
			}
			found = append(found, internal...)
		}
		if err := w.record(ctx, found, n); err != nil {
			return err
		}
		// Balances last: they count the block's transfers just recorded, so that a transfer
		// seen both ways is credited once.
		if w.internal != nil && w.internal.mode == InternalBalance {
			credits, err := w.internal.balanceCredits(ctx, w.store, w.net.Name, b, byAddr)
			if err != nil {
				return err
			}
			if err := w.record(ctx, credits, n); err != nil {
				return err
			}
			w.internal.keepBalances()
		}
		cur, curHash = n, b.Hash()
		w.hashes[n] = curHash
		delete(w.hashes, n-min(n, maxReorg*2))
		if err := w.store.SetWatchCursor(ctx, w.net.Name, cur, curHash, w.at()); err != nil {
			return err
		}
	}
	return nil
}

// record stores the transfers seen in block n.
func (w *Watcher) record(ctx context.Context, found []*rampway.InboundTransfer, n uint64) error {
	for _, t := range found {
		isNew, err := w.store.RecordTransfer(ctx, t, w.at())
		if err != nil {
			return fmt.Errorf("record transfer %s: %w", t.TxHash.Hex(), err)
		}
		if isNew {
			w.log.Info("payment seen", "network", w.net.Name, "order_id", t.OrderID, "tx", t.TxHash.Hex(), "log_index", t.LogIndex,
				"amount", t.Amount.String(), "block", n)
		}
	}
	return nil
}

// rewind handles a reorganisation found above block cur: it finds the newest block this
// watcher saw that is still canonical, drops the payments seen above it, and moves the cursor
// there, so the next step rescans the new branch (payments still in it are seen again).
func (w *Watcher) rewind(ctx context.Context, cur uint64) error {
	fork := cur
	for depth := 0; fork > 0 && depth < maxReorg; depth++ {
		known, ok := w.hashes[fork]
		if !ok {
			// Not seen by this process (it restarted): go back as deep as confirmations reach.
			fork -= min(fork, uint64(w.net.Confirmations)+1)
			break
		}
		h, err := w.client.HeaderByNumber(ctx, new(big.Int).SetUint64(fork))
		if err != nil {
			return fmt.Errorf("header %d: %w", fork, err)
		}
		if h.Hash() == known {
			break
		}
		fork--
	}
	pending, err := w.store.PendingTransfers(ctx, w.net.Name)
	if err != nil {
		return err
	}
	for _, t := range pending {
		if t.BlockNumber > fork {
			if err := w.store.DropTransfer(ctx, t.Network, t.TxHash, t.LogIndex, w.at()); err != nil {
				return err
			}
		}
	}
	h, err := w.client.HeaderByNumber(ctx, new(big.Int).SetUint64(fork))
	if err != nil {
		return fmt.Errorf("header %d: %w", fork, err)
	}
	w.log.Warn("chain reorganised: rescanning", "network", w.net.Name, "from_block", fork+1, "was_at", cur)
	w.hashes[fork] = h.Hash()
	return w.store.SetWatchCursor(ctx, w.net.Name, fork, h.Hash(), w.at())
}

// confirm credits the payments deep enough in the canonical chain and drops those whose
// block left it.
func (w *Watcher) confirm(ctx context.Context, head uint64) error {
	pending, err := w.store.PendingTransfers(ctx, w.net.Name)
	if err != nil {
		return err
	}
	need := uint64(max(w.net.Confirmations, 1))
	for _, t := range pending {
		if head+1 < t.BlockNumber+need {
			continue
		}
		canon, ok := w.hashes[t.BlockNumber]
		if !ok {
			h, err := w.client.HeaderByNumber(ctx, new(big.Int).SetUint64(t.BlockNumber))
			if err != nil {
				return fmt.Errorf("header %d: %w", t.BlockNumber, err)
			}
			canon = h.Hash()
		}
		if canon != t.BlockHash {
			if err := w.store.DropTransfer(ctx, t.Network, t.TxHash, t.LogIndex, w.at()); err != nil {
				return err
			}
			continue
		}
		if err := w.store.ConfirmTransfer(ctx, t.Network, t.TxHash, t.LogIndex, w.at()); err != nil {
			return fmt.Errorf("confirm transfer %s: %w", t.TxHash.Hex(), err)
		}
		w.log.Info("payment confirmed", "network", w.net.Name, "order_id", t.OrderID, "tx", t.TxHash.Hex())
	}
	return nil
}
