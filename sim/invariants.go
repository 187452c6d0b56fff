package sim

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chainwork"
	"github.com/rampway/rampway/fiatwork"
	"github.com/rampway/rampway/internal/sqlstore"
)

// Invariant is a property every run must keep. Check returns what breaks it (nil when it
// holds).
type Invariant struct {
	Name string
	// Final invariants are checked once, at the end of a run, after the simulation let the
	// system quiesce with every fault off; the others after every step too.
	Final bool
	Check func(ctx context.Context, v *View) []string
}

// View is what an invariant reads: the store (as the process left it) and the chain (the
// truth), with what the simulation knows of the world.
type View struct {
	Store *sqlstore.Store
	// DB is the store's database.
	DB *sql.DB
	// Chain is the embedded chain's client, without faults.
	Chain *ethclient.Client
	// Network is the simulated network, HotWallet rampway's hot wallet on it, Treasury where
	// the sweeper sends deposits.
	Network   rampway.Network
	HotWallet common.Address
	Treasury  common.Address
	// Provider is the payment provider's money by currency: taken from users, refunded.
	Provider map[string][2]*big.Int
	w        *World
}

// Checks are the built-in invariants, in the order they are checked.
var Checks = []Invariant{
	{Name: "at most one execution per order, on chain", Check: checkOneExecution},
	{Name: "the hot wallet's nonces are gapless, stored and on chain", Check: checkNonces},
	{Name: "no webhook event delivered again after a 2xx", Check: checkNoRedelivery},
	{Name: "the ledger agrees with the chain to the wei", Check: checkLedger},
	{Name: "the ledger's fiat side agrees with the provider's records", Final: true, Check: checkFiatLedger},
	{Name: "every paid order ends SUCCESS, refunded, or waiting for an operator with a reason", Final: true, Check: checkOrderEnds},
	{Name: "every webhook event delivered at least once", Final: true, Check: checkAllDelivered},
	{Name: "every stored transaction mined, none pending", Final: true, Check: checkNothingPending},
	{Name: "every refund, fiat action and sweep done or waiting for an operator", Final: true, Check: checkWorkDone},
}

// checkLedger: the double-entry ledger's balance of every account rampway holds the key of
// (the hot wallet, the deposit addresses) equals the chain's, to the wei, at the newest block
// where every movement up to it is recorded (the reconciler's SafeBlock): the reconciler of
// production (chainwork.Reconciler), on the store as the process left it and the chain
// without faults. Accounts with a movement not recorded yet are left for a later step (the
// reconciler skips them); at the end, with everything settled, none is left.
func checkLedger(ctx context.Context, v *View) []string {
	w := v.w
	if w.reconciler == nil || w.reconciled != v.Store { // a new one after each restart, on the new store
		w.reconciler = chainwork.NewReconciler(chainwork.ReconcilerConfig{HotWallets: []common.Address{v.HotWallet}}, v.Store, &w.net, v.Chain,
			w.log, w.clock.Now)
		w.reconciled = v.Store
	}
	block, ok, err := w.reconciler.SafeBlock(ctx)
	if err != nil {
		return []string{"the ledger's safe block: " + err.Error()}
	}
	if !ok {
		return nil
	}
	rec, err := w.reconciler.Reconcile(ctx, block)
	if err != nil {
		return []string{fmt.Sprintf("reconcile the ledger at block %d: %v", block, err)}
	}
	var out []string
	for _, d := range rec.Drifts() {
		out = append(out, fmt.Sprintf("%s holds %s of %s on chain at block %d, the ledger says %s (difference %s)",
			d.Account, d.Chain, d.Asset, d.Block, d.Ledger, d.Diff()))
	}
	return out
}

// checkFiatLedger: each fiat payment's net in the ledger (captures and credits less refunds)
// equals what the provider holds of it, to the minor unit: the fiat reconciler of production
// (fiatwork.Reconciler), at the end, with no grace (nothing is on its way) and looking at
// every payment.
func checkFiatLedger(ctx context.Context, v *View) []string {
	r := fiatwork.NewReconciler(v.Store, map[string]rampway.FiatProvider{providerName: v.w.provider},
		fiatwork.ReconcilerConfig{Grace: -1, Sweep: 1 << 20}, v.w.log, v.w.clock.Now)
	rec, err := r.Reconcile(ctx)
	if err != nil {
		return []string{"reconcile the fiat ledger: " + err.Error()}
	}
	var out []string
	for _, d := range rec.Drifts() {
		out = append(out, fmt.Sprintf("%s: the provider holds %s of %s, the ledger says %s (difference %s)", d.Account, d.Chain, d.Asset, d.Ledger, d.Diff()))
	}
	for _, a := range rec.Skipped {
		out = append(out, a+": not compared (an action under way, or the provider not answering)")
	}
	return out
}

// chainScan is the invariants' reading of the chain, block by block: what rampway's hot wallet
// sent and what the NFT minted, counted per order and per recipient.
type chainScan struct {
	next uint64 // the next block to read
	// calls counts the successful calls mined per order (by the store's ref of the hash).
	calls map[string]int
	// mints counts the NFT tokens minted to each address.
	mints map[common.Address]int
	// unknown are the hot wallet's mined transactions the store has no record of.
	unknown []string
}

// transferTopic is ERC-20 / ERC-721 Transfer(address,address,uint256).
var transferTopic = crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))

// scanChain reads the blocks mined since the last scan.
func (v *View) scanChain(ctx context.Context) error {
	s := &v.w.scan
	if s.calls == nil {
		s.calls, s.mints = map[string]int{}, map[common.Address]int{}
	}
	head, err := v.Chain.BlockNumber(ctx)
	if err != nil {
		return err
	}
	signer := types.LatestSignerForChainID(v.Network.ChainID)
	nft := v.w.chain.Contracts().NFT
	for ; s.next <= head; s.next++ {
		b, err := v.Chain.BlockByNumber(ctx, new(big.Int).SetUint64(s.next))
		if err != nil {
			return err
		}
		for _, tx := range b.Transactions() {
			from, err := types.Sender(signer, tx)
			if err != nil || from != v.HotWallet {
				continue
			}
			rec, err := v.Chain.TransactionReceipt(ctx, tx.Hash())
			if err != nil {
				return err
			}
			for _, l := range rec.Logs {
				if l.Address == nft && len(l.Topics) == 4 && l.Topics[0] == transferTopic && l.Topics[1] == (common.Hash{}) {
					s.mints[common.BytesToAddress(l.Topics[2].Bytes())]++
				}
			}
			var kind, ref string
			err = v.DB.QueryRowContext(ctx, `SELECT kind, ref FROM chain_txs WHERE hash = ?`, tx.Hash().Hex()).Scan(&kind, &ref)
			if err == sql.ErrNoRows {
				status := "succeeded"
				if rec.Status != types.ReceiptStatusSuccessful {
					status = "reverted"
				}
				s.unknown = append(s.unknown, fmt.Sprintf("nonce %d to %s, %s", tx.Nonce(), tx.To().Hex(), status))
				continue
			}
			if err != nil {
				return err
			}
			if kind == string(rampway.TxCall) && rec.Status == types.ReceiptStatusSuccessful {
				s.calls[ref]++
			}
		}
	}
	return nil
}

func checkOneExecution(ctx context.Context, v *View) []string {
	if err := v.scanChain(ctx); err != nil {
		return []string{"read the chain: " + err.Error()}
	}
	s := &v.w.scan
	var out []string
	for _, ref := range slices.Sorted(maps.Keys(s.calls)) {
		if n := s.calls[ref]; n > 1 {
			out = append(out, fmt.Sprintf("order %s: %d calls mined", v.w.label(ref), n))
		}
	}
	for _, to := range slices.SortedFunc(maps.Keys(s.mints), func(a, b common.Address) int { return a.Cmp(b) }) {
		if n := s.mints[to]; n > 1 {
			out = append(out, fmt.Sprintf("order %s: %d tokens minted to its recipient (one ordered)", v.w.labelOfRecipient(to), n))
		}
	}
	for _, u := range s.unknown {
		out = append(out, "hot wallet transaction mined that the store does not know: "+u)
	}
	return out
}

func checkNonces(ctx context.Context, v *View) []string {
	wallet := v.HotWallet.Hex()
	var next sql.NullInt64
	if err := v.DB.QueryRowContext(ctx, `SELECT next FROM wallet_nonces WHERE network = ? AND wallet = ?`, v.Network.Name, wallet).Scan(&next); err != nil && err != sql.ErrNoRows {
		return []string{"read wallet_nonces: " + err.Error()}
	}
	rows, err := v.DB.QueryContext(ctx, `SELECT DISTINCT nonce FROM chain_txs WHERE network = ? AND wallet = ? ORDER BY nonce`, v.Network.Name, wallet)
	if err != nil {
		return []string{"read chain_txs: " + err.Error()}
	}
	defer rows.Close()
	var out []string
	want := int64(0)
	for rows.Next() {
		var n int64
		if err := rows.Scan(&n); err != nil {
			return []string{err.Error()}
		}
		if n != want {
			out = append(out, fmt.Sprintf("stored nonces skip %d..%d", want, n-1))
		}
		want = n + 1
	}
	if err := rows.Err(); err != nil {
		return []string{err.Error()}
	}
	if next.Valid && next.Int64 != want {
		out = append(out, fmt.Sprintf("next nonce stored %d, transactions stored up to nonce %d", next.Int64, want-1))
	}
	mined, err := v.Chain.NonceAt(ctx, v.HotWallet, nil)
	if err != nil {
		return []string{"read the chain's nonce: " + err.Error()}
	}
	if int64(mined) > want {
		out = append(out, fmt.Sprintf("the chain has mined nonces up to %d, the store has transactions up to %d", mined-1, want-1))
	}
	return out
}

func checkNoRedelivery(_ context.Context, v *View) []string {
	r := v.w.receiver
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	if r.badSigs > 0 {
		out = append(out, fmt.Sprintf("%d deliveries with a bad signature", r.badSigs))
	}
	for _, id := range slices.Sorted(maps.Keys(r.events)) {
		if e := r.events[id]; e.AfterAck > 0 {
			out = append(out, fmt.Sprintf("event %s of order %s delivered %d more time(s) after a 2xx", e.Name, v.w.label(e.OrderID), e.AfterAck))
		}
	}
	return out
}

func checkAllDelivered(ctx context.Context, v *View) []string {
	rows, err := v.DB.QueryContext(ctx, `SELECT e.id, e.name, e.order_id, COALESCE(d.status, '') FROM order_events e LEFT JOIN webhook_deliveries d ON d.event_id = e.id ORDER BY e.seq`)
	if err != nil {
		return []string{err.Error()}
	}
	defer rows.Close()
	r := v.w.receiver
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for rows.Next() {
		var id, name, order, status string
		if err := rows.Scan(&id, &name, &order, &status); err != nil {
			return []string{err.Error()}
		}
		if status == "" {
			continue // an event without a delivery (no webhook URL): none is owed
		}
		if e := r.events[id]; e == nil || !e.Acked {
			out = append(out, fmt.Sprintf("event %s of order %s not delivered (delivery %s)", name, v.w.label(order), status))
		}
	}
	return append(out, errString(rows.Err())...)
}

func errString(err error) []string {
	if err == nil {
		return nil
	}
	return []string{err.Error()}
}

func checkNothingPending(ctx context.Context, v *View) []string {
	var out []string
	rows, err := v.DB.QueryContext(ctx, `SELECT kind, ref, nonce FROM chain_txs WHERE status = 'pending' ORDER BY wallet, nonce`)
	if err != nil {
		return []string{err.Error()}
	}
	defer rows.Close()
	for rows.Next() {
		var kind, ref string
		var nonce int64
		if err := rows.Scan(&kind, &ref, &nonce); err != nil {
			return []string{err.Error()}
		}
		out = append(out, fmt.Sprintf("%s transaction of %s (nonce %d) still pending", kind, v.w.label(ref), nonce))
	}
	out = append(out, errString(rows.Err())...)
	var next sql.NullInt64
	_ = v.DB.QueryRowContext(ctx, `SELECT next FROM wallet_nonces WHERE network = ? AND wallet = ?`, v.Network.Name, v.HotWallet.Hex()).Scan(&next)
	mined, err := v.Chain.NonceAt(ctx, v.HotWallet, nil)
	if err != nil {
		return append(out, err.Error())
	}
	if next.Valid && uint64(next.Int64) != mined {
		out = append(out, fmt.Sprintf("hot wallet: next nonce stored %d, chain's %d", next.Int64, mined))
	}
	return out
}

// checkOrderEnds: an order that was paid (money seen on chain for it, or a fiat payment that
// took money) ends SUCCESS or REFUNDED, or has a refund or fiat action waiting for an operator
// (or a user's refund address) with its reason; one never paid ends EXPIRED or CANCELLED (or
// SUCCESS for a paid one), never in the middle.
func checkOrderEnds(ctx context.Context, v *View) []string {
	var out []string
	for _, o := range v.w.orders {
		ord, err := v.Store.Order(ctx, o.ID)
		if err != nil {
			out = append(out, fmt.Sprintf("order %s: %v", o.Label, err))
			continue
		}
		paid, err := v.paid(ctx, o)
		if err != nil {
			out = append(out, err.Error())
			continue
		}
		// The chain's word: a payment mined is a payment, seen by rampway or not.
		for _, h := range o.PayTxs {
			rec, err := v.Chain.TransactionReceipt(ctx, h)
			if err != nil || rec.Status != types.ReceiptStatusSuccessful {
				continue // not mined (dropped by a reorganisation, say) or reverted
			}
			paid = true
			var seen int
			if err := v.DB.QueryRowContext(ctx, `SELECT COUNT(*) FROM inbound_transfers WHERE tx_hash = ? AND order_id = ?`, h.Hex(), o.ID).Scan(&seen); err != nil {
				return append(out, err.Error())
			}
			if seen == 0 {
				out = append(out, fmt.Sprintf("order %s: payment %s mined in block %d and never recorded", o.Label, h.Hex(), rec.BlockNumber))
			}
		}
		waiting, err := v.waiting(ctx, o.ID)
		if err != nil {
			out = append(out, err.Error())
			continue
		}
		switch ord.Status {
		case rampway.StatusSuccess, rampway.StatusRefunded:
		case rampway.StatusExpired, rampway.StatusCancelled:
			if paid && waiting == "" && !v.refundedAll(ctx, o.ID) {
				out = append(out, fmt.Sprintf("order %s: paid, ended %s, and nothing refunded nor waiting for an operator", o.Label, ord.Status))
			}
		default:
			if waiting == "" {
				out = append(out, fmt.Sprintf("order %s (%s, paid %v) stuck in %s with nothing waiting for an operator", o.Label, o.Kind, paid, ord.Status))
			}
		}
	}
	return out
}

// paid reports whether money arrived for o: a transfer seen to its deposit address, or a
// fiat payment authorised or credited.
func (v *View) paid(ctx context.Context, o *simOrder) (bool, error) {
	var n int
	q := `SELECT COUNT(*) FROM inbound_transfers WHERE order_id = ?`
	if !strings.HasPrefix(o.Kind, "A") {
		q = `SELECT COUNT(*) FROM fiat_payments WHERE order_id = ? AND status IN ('authorized', 'succeeded', 'refunded', 'voided')`
	}
	if err := v.DB.QueryRowContext(ctx, q, o.ID).Scan(&n); err != nil {
		return false, fmt.Errorf("order %s: %w", o.Label, err)
	}
	return n > 0, nil
}

// waiting returns why an order's money waits for someone (a refund or fiat action that needs
// an operator, a refund address or an approval), "" when nothing does.
func (v *View) waiting(ctx context.Context, orderID string) (string, error) {
	var why string
	err := v.DB.QueryRowContext(ctx, `SELECT status || ': ' || COALESCE(reason, '') FROM refunds WHERE order_id = ? AND status IN ('awaiting_address', 'awaiting_approval', 'failed', 'dust') LIMIT 1`, orderID).Scan(&why)
	if err == nil {
		return why, nil
	}
	if err != sql.ErrNoRows {
		return "", err
	}
	err = v.DB.QueryRowContext(ctx, `SELECT kind || ': ' || last_error FROM fiat_actions WHERE order_id = ? AND status IN ('needs_operator', 'failed') LIMIT 1`, orderID).Scan(&why)
	if err == sql.ErrNoRows {
		return "", nil
	}
	return why, err
}

// refundedAll reports whether an order's refunds are all done (or it has its fiat voided or
// refunded by actions done).
func (v *View) refundedAll(ctx context.Context, orderID string) bool {
	var open, done int
	_ = v.DB.QueryRowContext(ctx, `SELECT COUNT(*) FILTER (WHERE status NOT IN ('done')), COUNT(*) FILTER (WHERE status = 'done') FROM refunds WHERE order_id = ?`, orderID).Scan(&open, &done)
	var actOpen, actDone int
	_ = v.DB.QueryRowContext(ctx, `SELECT COUNT(*) FILTER (WHERE status NOT IN ('done', 'resolved')), COUNT(*) FILTER (WHERE status IN ('done', 'resolved')) FROM fiat_actions WHERE order_id = ? AND kind IN ('void', 'refund')`, orderID).Scan(&actOpen, &actDone)
	return open == 0 && actOpen == 0 && done+actDone > 0
}

// label is the trace's name of an order id (the id itself when it is not an order's).
func (w *World) label(id string) string {
	for _, o := range w.orders {
		if o.ID == id {
			return o.Label
		}
	}
	return id
}

func (w *World) labelOfRecipient(a common.Address) string {
	for _, o := range w.orders {
		if o.Recipient == a {
			return o.Label
		}
	}
	return a.Hex()
}

// checkWorkDone: once quiesced, no refund is on its way (pending, sent), no fiat action waits
// to be done, no sweep is in flight: each is done, or waits for an operator (or a user).
func checkWorkDone(ctx context.Context, v *View) []string {
	var out []string
	for _, q := range []struct{ what, query string }{
		{"refund", `SELECT order_id, status FROM refunds WHERE status IN ('pending', 'sent') ORDER BY created_at, id`},
		{"fiat action", `SELECT order_id, kind || ' ' || status FROM fiat_actions WHERE status = 'pending' ORDER BY created_at, id`},
		{"sweep", `SELECT address, status FROM sweeps WHERE status IN ('funding', 'funded', 'sent') ORDER BY created_at, id`},
	} {
		rows, err := v.DB.QueryContext(ctx, q.query)
		if err != nil {
			return append(out, err.Error())
		}
		for rows.Next() {
			var ref, status string
			if err := rows.Scan(&ref, &status); err != nil {
				rows.Close()
				return append(out, err.Error())
			}
			out = append(out, fmt.Sprintf("%s of %s still %s", q.what, v.w.label(ref), status))
		}
		out = append(out, errString(rows.Err())...)
		rows.Close()
	}
	return out
}
