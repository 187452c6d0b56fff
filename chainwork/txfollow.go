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
	"github.com/rampway/rampway/chain"
)

// BatchClient is what a node client may add to ExecClient to broadcast transactions and read
// receipts many at a time, in JSON-RPC batches (chain.BatchingClient has it). Each answer is
// its transaction's own: errs[i] is txs[i]'s (hashes[i]'s), a receipt not found is
// ethereum.NotFound. SendTransactions must keep the order given (one wallet's nonces).
type BatchClient interface {
	SendTransactions(ctx context.Context, txs []*types.Transaction) []error
	TransactionReceipts(ctx context.Context, hashes []common.Hash) ([]*types.Receipt, []error)
}

var _ BatchClient = (*chain.BatchingClient)(nil)

// txFollower sees the transactions rampway signed of some kinds through to the confirmation
// depth: a pending one this process has not sent (stored by a process that crashed before or
// after sending it) is broadcast again, one waiting too long is re-priced, and the one mined
// deep enough for its nonce is handed to settle. Through a BatchClient, the broadcasts of a
// step go as one batch, and so do its receipt lookups.
type txFollower struct {
	net    *rampway.Network
	client ExecClient
	store  rampway.ExecutionStore
	kinds  []rampway.TxKind
	// signer returns the key of a wallet, or nil when it is not here (no re-pricing then).
	signer       func(common.Address) rampway.Signer
	settle       func(ctx context.Context, t *rampway.ChainTx, rec *types.Receipt) error
	repriceAfter uint64
	log          *slog.Logger
	now          func() time.Time
	mu           sync.Mutex // guards sent and underpriced
	// sent holds the hashes this process broadcast; underpriced those a node refused for their
	// fees (chain.Underpriced). Both forget a transaction once it is pending no more (forget).
	sent, underpriced map[common.Hash]bool
	// followed is the head the pending transactions were last looked at.
	followed uint64
}

// follow looks at every pending transaction once per block: a nonce mined deep enough is
// settled (an order's call finishes it), one not yet mined is broadcast again when this
// process has not sent it, and re-priced when it has waited RepriceAfter blocks. A nonce that
// cannot be looked at (its receipt lookup or its settling failed) is left for the next step
// and does not hold the others up; the failures are returned together.
func (x *txFollower) follow(ctx context.Context, head uint64) error {
	all, err := x.store.PendingTxs(ctx, x.net.Name)
	if err != nil {
		return err
	}
	x.forget(all)
	txs := all[:0]
	for _, t := range all {
		if slices.Contains(x.kinds, t.Kind) {
			txs = append(txs, t)
		}
	}
	newBlock := head != x.followed
	// The transactions of each nonce, latest last (the store gives them by wallet and nonce).
	type nonce struct {
		txs    []*rampway.ChainTx
		resent bool
	}
	var look []nonce
	var resend []*rampway.ChainTx
	for len(txs) > 0 {
		n := 1
		for n < len(txs) && txs[n].Wallet == txs[0].Wallet && txs[n].Nonce == txs[0].Nonce {
			n++
		}
		g := nonce{txs: txs[:n]}
		txs = txs[n:]
		latest := g.txs[len(g.txs)-1]
		if g.resent = !x.wasSent(latest.Hash); g.resent {
			resend = append(resend, latest) // stored by a process that may not have sent it
		}
		if newBlock || g.resent {
			look = append(look, g)
		}
	}
	x.broadcast(ctx, resend...)

	var hashes []common.Hash
	for _, g := range look {
		for _, t := range g.txs {
			hashes = append(hashes, t.Hash)
		}
	}
	recs, errs := x.receipts(ctx, hashes)
	var failed []error
	var stuck []*rampway.ChainTx
	for _, g := range look {
		n := len(g.txs)
		// A transaction sent again is not re-priced in the same step (another process may have
		// just stored it), unless the node refused it for its fees: it is then re-priced when
		// due, as one waiting in the pool is (sent again as it was, it would be refused for ever).
		reprice, err := x.followNonce(ctx, head, g.txs, recs[:n], errs[:n], !g.resent || x.wasUnderpriced(g.txs[n-1].Hash))
		recs, errs = recs[n:], errs[n:]
		if err != nil {
			failed = append(failed, err)
		}
		if reprice {
			stuck = append(stuck, g.txs[n-1])
		}
	}
	if err := x.reprice(ctx, head, stuck); err != nil {
		failed = append(failed, err)
	}
	if len(failed) > 0 {
		return errors.Join(failed...)
	}
	x.followed = head
	return nil
}

// followNonce handles the transactions of one nonce, latest last, with their receipts: settles
// the one mined deep enough, or reports whether the latest has waited too long and should be
// re-priced (when mayReprice: it was not just sent again).
func (x *txFollower) followNonce(ctx context.Context, head uint64, group []*rampway.ChainTx, recs []*types.Receipt, errs []error,
	mayReprice bool) (reprice bool, err error) {
	for i, t := range group {
		if errors.Is(errs[i], ethereum.NotFound) {
			continue
		}
		if errs[i] != nil {
			return false, fmt.Errorf("receipt of %s: %w", t.Hash.Hex(), errs[i])
		}
		rec := recs[i]
		if head+1 < rec.BlockNumber.Uint64()+uint64(max(x.net.Confirmations, 1)) {
			return false, nil // mined, not deep enough yet
		}
		return false, x.settle(ctx, t, rec)
	}
	latest := group[len(group)-1]
	return mayReprice && head >= latest.SentBlock+x.repriceAfter, nil
}

// mined reads what t did, mined with receipt rec: its fee, its value, its transfers of the
// network's tokens (rampway.NewMinedTx), for the store to settle it with.
func mined(net *rampway.Network, t *rampway.ChainTx, rec *types.Receipt) (rampway.MinedTx, error) {
	var tx types.Transaction
	if err := tx.UnmarshalBinary(t.Raw); err != nil {
		return rampway.MinedTx{}, fmt.Errorf("stored transaction %s: %w", t.Hash.Hex(), err)
	}
	tokens := make([]common.Address, 0, len(net.Tokens))
	for _, a := range net.Tokens {
		tokens = append(tokens, a.Contract)
	}
	return rampway.NewMinedTx(&tx, t.Wallet, rec, tokens), nil
}

// receipts looks up the receipts of hashes: in JSON-RPC batches through a BatchClient, else
// one by one.
func (x *txFollower) receipts(ctx context.Context, hashes []common.Hash) ([]*types.Receipt, []error) {
	if b, ok := x.client.(BatchClient); ok {
		return b.TransactionReceipts(ctx, hashes)
	}
	recs := make([]*types.Receipt, len(hashes))
	errs := make([]error, len(hashes))
	for i, h := range hashes {
		recs[i], errs[i] = x.client.TransactionReceipt(ctx, h)
	}
	return recs, errs
}

// forget drops from sent and underpriced the transactions no longer pending (settled, or
// replaced and settled), so that the maps hold what is in flight, not every transaction of
// the process's life. One stored and sent while the pending ones were read, and dropped, is
// only sent again once by the next step (a node that knows it is fine).
func (x *txFollower) forget(pending []*rampway.ChainTx) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if len(x.sent)+len(x.underpriced) == 0 {
		return
	}
	keep := make(map[common.Hash]bool, len(pending))
	for _, t := range pending {
		keep[t.Hash] = true
	}
	gone := func(h common.Hash, _ bool) bool { return !keep[h] }
	maps.DeleteFunc(x.sent, gone)
	maps.DeleteFunc(x.underpriced, gone)
}

func (x *txFollower) wasSent(h common.Hash) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.sent[h]
}

func (x *txFollower) wasUnderpriced(h common.Hash) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.underpriced[h]
}

// broadcast sends stored transactions, in the order given (one wallet's nonces ascending): in
// JSON-RPC batches through a BatchClient, else one by one. A node that knows one already, or
// has mined its nonce, is fine: receipts tell the rest. One that fails is logged and sent again
// by a later step; it fails no other.
func (x *txFollower) broadcast(ctx context.Context, ts ...*rampway.ChainTx) {
	txs := make([]*types.Transaction, 0, len(ts))
	stored := make([]*rampway.ChainTx, 0, len(ts))
	for _, t := range ts {
		var tx types.Transaction
		if err := tx.UnmarshalBinary(t.Raw); err != nil {
			x.log.Error("stored transaction does not decode", "tx", t.Hash.Hex(), "error", err)
			continue
		}
		txs, stored = append(txs, &tx), append(stored, t)
	}
	if len(txs) == 0 {
		return
	}
	var errs []error
	if b, ok := x.client.(BatchClient); ok {
		errs = b.SendTransactions(ctx, txs)
	} else {
		errs = make([]error, len(txs))
		for i, tx := range txs {
			errs[i] = x.client.SendTransaction(ctx, tx)
		}
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	for i, t := range stored {
		if err := errs[i]; err != nil && !chain.NonceUsed(err) {
			x.log.Warn("broadcast failed; will retry", "ref", t.Ref, "tx", t.Hash.Hex(), "nonce", t.Nonce, "error", err)
			if chain.Underpriced(err) {
				if x.underpriced == nil {
					x.underpriced = map[common.Hash]bool{}
				}
				x.underpriced[t.Hash] = true
			}
			continue
		}
		x.sent[t.Hash] = true
	}
}

// sendQueue broadcasts the transactions a step stores while the step goes on storing more:
// what is queued goes as one broadcast, the next as soon as that is back, in the order queued
// (so one wallet's nonces reach the node in order).
type sendQueue struct {
	f   *txFollower
	ctx context.Context

	mu     sync.Mutex
	queued []*rampway.ChainTx
	busy   bool
	done   sync.WaitGroup
}

// queue returns an empty sendQueue broadcasting with ctx; wait for it before the step ends.
func (x *txFollower) queue(ctx context.Context) *sendQueue { return &sendQueue{f: x, ctx: ctx} }

// add queues stored transactions for their broadcast.
func (q *sendQueue) add(ts ...*rampway.ChainTx) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.queued = append(q.queued, ts...)
	if q.busy || len(q.queued) == 0 {
		return
	}
	q.busy = true
	q.done.Go(func() {
		for {
			q.mu.Lock()
			ts := q.queued
			q.queued = nil
			if len(ts) == 0 {
				q.busy = false
				q.mu.Unlock()
				return
			}
			q.mu.Unlock()
			q.f.broadcast(q.ctx, ts...)
		}
	})
}

// wait returns when every queued transaction has been broadcast (or failed to be).
func (q *sendQueue) wait() { q.done.Wait() }

// reprice replaces stuck transactions with the same ones at fees 12.5% higher (both caps; at
// least the current estimate, read once), stores each, then broadcasts them together. Both
// stay tracked: whichever is mined settles the nonce.
func (x *txFollower) reprice(ctx context.Context, head uint64, stuck []*rampway.ChainTx) error {
	if len(stuck) == 0 {
		return nil
	}
	tip, feeCap, err := fees(ctx, x.client)
	if err != nil {
		return err
	}
	var replacements []*rampway.ChainTx
	var failed []error
	for _, t := range stuck {
		r, err := x.replacement(ctx, head, t, tip, feeCap)
		if err != nil {
			failed = append(failed, err)
		}
		if r != nil {
			replacements = append(replacements, r)
		}
	}
	x.broadcast(ctx, replacements...)
	return errors.Join(failed...)
}

// replacement signs and stores the replacement of stuck transaction t at fees 12.5% above its
// own, at least tip and feeCap (today's), and returns it to broadcast; or t itself, to send
// again, when it is priced at today's fees already or its wallet cannot pay a higher fee (a
// node that dropped it gets it again); nil when its wallet's key is not here.
func (x *txFollower) replacement(ctx context.Context, head uint64, t *rampway.ChainTx, tip, feeCap *big.Int) (*rampway.ChainTx, error) {
	var old types.Transaction
	if err := old.UnmarshalBinary(t.Raw); err != nil {
		return nil, fmt.Errorf("stored transaction %s: %w", t.Hash.Hex(), err)
	}
	// One priced at today's fees or above waits for something else (a lower nonce of its
	// wallet held up, a node that lost it, blocks full a while): it is sent again as it is.
	// Re-priced all the same, its fees grew 12.5% every few blocks for as long as it waited,
	// without bound, to be paid in full once it was mined. One the node refused for its fees
	// is re-priced whatever the estimate says: the node wants more.
	if !x.wasUnderpriced(t.Hash) && old.GasTipCap().Cmp(tip) >= 0 && old.GasFeeCap().Cmp(feeCap) >= 0 {
		return t, nil
	}
	tip = maxBig(tip, bump(old.GasTipCap()))
	feeCap = maxBig(feeCap, bump(old.GasFeeCap()))
	if feeCap.Cmp(tip) < 0 {
		feeCap = new(big.Int).Set(tip)
	}
	signer := x.signer(t.Wallet)
	if signer == nil {
		x.log.Warn("transaction stuck, and its wallet's key is not here to re-price it", "wallet", t.Wallet.Hex(), "tx", t.Hash.Hex(), "nonce", t.Nonce)
		return nil, nil
	}
	value := old.Value()
	if t.Kind == rampway.TxSweep && len(old.Data()) == 0 {
		// A native sweep sends the deposit's whole balance less its gas at its fee cap: the
		// higher fee comes off the value, or the replacement costs more than the address
		// holds, the node refuses it, and the sweep waits for ever (found by package sim).
		extra := new(big.Int).Mul(new(big.Int).Sub(feeCap, old.GasFeeCap()), new(big.Int).SetUint64(old.Gas()))
		if value = new(big.Int).Sub(value, extra); value.Sign() <= 0 {
			x.log.Warn("native sweep stuck, and worth less than the fee of its replacement: sent again", "ref", t.Ref, "tx", t.Hash.Hex(), "nonce", t.Nonce)
			return t, nil
		}
	}
	if t.Kind == rampway.TxSweep && len(old.Data()) > 0 {
		// A token sweep pays its gas from what the hot wallet sent the address: a replacement
		// costing more is refused by the node, sent again at every step and never re-priced,
		// and the transfer it replaces, if the node dropped it, never sent again. Priced at
		// what the address holds, if that still replaces it; else the transfer is sent again.
		balance, err := x.client.BalanceAt(ctx, t.Wallet, nil)
		if err != nil {
			return nil, fmt.Errorf("balance of %s: %w", t.Wallet.Hex(), err)
		}
		if afford := new(big.Int).Div(balance, new(big.Int).SetUint64(old.Gas())); afford.Cmp(feeCap) < 0 {
			feeCap = afford
			if tip.Cmp(feeCap) > 0 {
				tip = new(big.Int).Set(feeCap)
			}
			if feeCap.Cmp(bump(old.GasFeeCap())) < 0 || tip.Cmp(bump(old.GasTipCap())) < 0 {
				x.log.Warn("token sweep stuck, and its address holds too little gas to re-price it: sent again", "ref", t.Ref, "tx", t.Hash.Hex(),
					"nonce", t.Nonce, "balance", balance.String())
				return t, nil
			}
		}
	}
	signed, err := signer.SignTx(ctx, types.NewTx(&types.DynamicFeeTx{ChainID: x.net.ChainID, Nonce: old.Nonce(), GasTipCap: tip, GasFeeCap: feeCap,
		Gas: old.Gas(), To: old.To(), Value: value, Data: old.Data()}), x.net.ChainID)
	if err != nil {
		return nil, fmt.Errorf("sign replacement: %w", err)
	}
	raw, err := signed.MarshalBinary()
	if err != nil {
		return nil, err
	}
	r := &rampway.ChainTx{Hash: signed.Hash(), Network: t.Network, Wallet: t.Wallet, Nonce: t.Nonce, Kind: t.Kind, Ref: t.Ref,
		Raw: raw, SentBlock: head, CreatedAt: x.now()}
	if err := x.store.AddTx(ctx, r); err != nil {
		return nil, fmt.Errorf("store replacement of %s: %w", t.Hash.Hex(), err)
	}
	x.log.Warn("transaction stuck: re-priced", "ref", t.Ref, "nonce", t.Nonce, "old_tx", t.Hash.Hex(), "new_tx", r.Hash.Hex(),
		"tip", tip.String(), "fee_cap", feeCap.String())
	return r, nil
}

// bump is v + 12.5%, rounded up (nodes want at least 10% more to replace a transaction).
func bump(v *big.Int) *big.Int {
	b := new(big.Int).Mul(v, big.NewInt(1125))
	b.Add(b, big.NewInt(999))
	return b.Div(b, big.NewInt(1000))
}

func maxBig(a, b *big.Int) *big.Int {
	if a.Cmp(b) >= 0 {
		return a
	}
	return b
}

// fees is the EIP-1559 estimate: the node's suggested tip, and a fee cap of twice the base
// fee plus the tip (room for six full blocks of base-fee rises).
func fees(ctx context.Context, client ExecClient) (tip, feeCap *big.Int, err error) {
	var h *types.Header
	var herr, terr error
	var wg sync.WaitGroup
	wg.Go(func() { h, herr = client.HeaderByNumber(ctx, nil) })
	wg.Go(func() { tip, terr = client.SuggestGasTipCap(ctx) })
	wg.Wait()
	if herr != nil {
		return nil, nil, fmt.Errorf("head: %w", herr)
	}
	if terr != nil {
		return nil, nil, fmt.Errorf("tip: %w", terr)
	}
	feeCap = new(big.Int).Set(tip)
	if h.BaseFee != nil {
		feeCap.Add(feeCap, new(big.Int).Mul(h.BaseFee, big.NewInt(2)))
	}
	return tip, feeCap, nil
}
