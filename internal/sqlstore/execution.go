package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
)

const executionColumns = `order_id, network, wallet, nonce, tx_hash, status, created_at, updated_at`

func scanExecution(row interface{ Scan(...any) error }) (*rampway.Execution, error) {
	var (
		e                rampway.Execution
		wallet, th       string
		nonce            int64
		created, updated dbTime
	)
	if err := row.Scan(&e.OrderID, &e.Network, &wallet, &nonce, &th, &e.Status, &created, &updated); err != nil {
		return nil, err
	}
	e.Wallet, e.Nonce, e.TxHash = common.HexToAddress(wallet), uint64(nonce), common.HexToHash(th)
	e.CreatedAt, e.UpdatedAt = created.T, updated.T
	return &e, nil
}

const chainTxColumns = `hash, network, wallet, nonce, kind, ref, raw, sent_block, status, created_at`

func scanChainTx(row interface{ Scan(...any) error }) (*rampway.ChainTx, error) {
	var (
		t             rampway.ChainTx
		hash, wallet  string
		nonce, sentAt int64
		created       dbTime
	)
	if err := row.Scan(&hash, &t.Network, &wallet, &nonce, &t.Kind, &t.Ref, &t.Raw, &sentAt, &t.Status, &created); err != nil {
		return nil, err
	}
	t.Hash, t.Wallet, t.Nonce, t.SentBlock, t.CreatedAt = common.HexToHash(hash), common.HexToAddress(wallet), uint64(nonce), uint64(sentAt), created.T
	return &t, nil
}

func (s *Store) insertChainTx(ctx context.Context, tx *sql.Tx, t *rampway.ChainTx) error {
	_, err := tx.ExecContext(ctx, s.q(`INSERT INTO chain_txs (`+chainTxColumns+`, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)`),
		t.Hash.Hex(), t.Network, t.Wallet.Hex(), int64(t.Nonce), t.Kind, t.Ref, t.Raw, int64(t.SentBlock), t.Status, s.t(t.CreatedAt))
	if err != nil {
		if s.d.IsUniqueViolation(err) {
			return rampway.Errorf(rampway.ECONFLICT, "transaction %s is already stored", t.Hash.Hex())
		}
		return fmt.Errorf("insert chain tx: %w", err)
	}
	return nil
}

func (s *Store) queryChainTxs(ctx context.Context, q querier, what, query string, args ...any) ([]*rampway.ChainTx, error) {
	return collect(ctx, q, what, s.q(query), scanChainTx, args...)
}

// errNonceMoved is a claim's answer when the nonce its transactions were signed with is no
// longer the wallet's next (another instance took it meanwhile): they are signed again.
var errNonceMoved = errors.New("the wallet's next nonce moved")

// signTries bounds how often a signature is made again because its nonce moved.
const signTries = 8

// signThenClaim is how every transaction rampway signs gets its nonces without a signer ever
// signing inside a database transaction (a remote signer must not hold the nonce row's lock
// across a network call), and without a gap: it reads the wallet's next nonce (no lock, never
// below chainNonce), has sign sign from it outside any transaction (sign returns how many
// consecutive nonces it used), then in one transaction claims those nonces, only while they
// are still the wallet's next, and has write store what was signed. The counter moves only in
// the transaction that stores the signed transactions, so a crash anywhere leaves no nonce
// reserved and unused. A nonce taken meanwhile makes it sign again.
func (s *Store) signThenClaim(ctx context.Context, network string, wallet common.Address, chainNonce uint64,
	sign func(first uint64) (int, error), write func(tx *sql.Tx) error) error {
	for try := 1; ; try++ {
		first, err := s.nextNonce(ctx, network, wallet, chainNonce)
		if err != nil {
			return err
		}
		n, err := sign(first)
		if err != nil {
			return err
		}
		err = s.tx(ctx, func(tx *sql.Tx) error {
			if err := s.claimNonces(ctx, tx, network, wallet, chainNonce, first, n); err != nil {
				return err
			}
			return write(tx)
		})
		if !errors.Is(err, errNonceMoved) {
			return err
		}
		if try == signTries {
			return rampway.Errorf(rampway.ECONFLICT, "the next nonce of %s on %s kept moving while signing", wallet.Hex(), network)
		}
	}
}

// nextNonce reads the next nonce of (network, wallet), at least chainNonce, without a lock.
func (s *Store) nextNonce(ctx context.Context, network string, wallet common.Address, chainNonce uint64) (uint64, error) {
	var next int64
	err := s.db.QueryRowContext(ctx, s.q(`SELECT next FROM wallet_nonces WHERE network = $1 AND wallet = $2`), network, wallet.Hex()).Scan(&next)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return chainNonce, nil
	case err != nil:
		return 0, fmt.Errorf("nonce: %w", err)
	}
	if uint64(next) < chainNonce {
		return 0, nonceAhead(network, wallet, uint64(next), chainNonce)
	}
	return uint64(next), nil
}

// nonceAhead is the refusal to sign while a wallet's nonce on chain is past every nonce this
// database assigned: transactions were sent that it has no record of. Either the wallet was
// used outside rampway, or the database was restored from a backup older than the chain, and
// then orders it holds as paid and not executed may have been executed already: signing their
// calls again would execute them twice. An operator checks, then adopts the chain's nonce.
func nonceAhead(network string, wallet common.Address, next, chainNonce uint64) error {
	return fmt.Errorf("%w: the hot wallet %s on %s is at nonce %d on chain, past the %d this database assigned: "+
		"it was used outside rampway, or the database was restored from a backup older than the chain. Nothing is signed with it "+
		"until an operator has checked the wallet's transactions from nonce %d against the orders and refunds this database holds "+
		"(an order executed meanwhile would be executed again) and runs: rampway admin nonces adopt --network %s --wallet %s --next %d",
		rampway.ErrNonceAhead, wallet.Hex(), network, chainNonce, next, next, network, wallet.Hex(), chainNonce)
}

// AdoptNonce makes next the wallet's next nonce (an operator's, after nonceAhead's check) and
// returns the one before; next must not be below it (nonces are never given twice).
func (s *Store) AdoptNonce(ctx context.Context, network string, wallet common.Address, next uint64) (uint64, error) {
	var before int64
	err := s.tx(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, s.q(`SELECT next FROM wallet_nonces WHERE network = $1 AND wallet = $2`+s.d.ForUpdate), network, wallet.Hex()).Scan(&before)
		if errors.Is(err, sql.ErrNoRows) {
			return rampway.Errorf(rampway.ENOTFOUND, "no nonce is recorded for %s on %s: its first transaction takes the chain's", wallet.Hex(), network)
		}
		if err != nil {
			return fmt.Errorf("adopt nonce: %w", err)
		}
		if next < uint64(before) {
			return rampway.FieldErrorf("next", "next %d is below the %d this database assigned: nonces are never given twice", next, before)
		}
		_, err = tx.ExecContext(ctx, s.q(`UPDATE wallet_nonces SET next = $1 WHERE network = $2 AND wallet = $3`), int64(next), network, wallet.Hex())
		return err
	})
	return uint64(before), err
}

// Nonces returns each wallet's next nonce, by network.
func (s *Store) Nonces(ctx context.Context) ([]rampway.WalletNonce, error) {
	return collect(ctx, s.db, "nonces", s.q(`SELECT network, wallet, next FROM wallet_nonces ORDER BY network, wallet`),
		func(r interface{ Scan(...any) error }) (rampway.WalletNonce, error) {
			var (
				n      rampway.WalletNonce
				wallet string
				next   int64
			)
			err := r.Scan(&n.Network, &wallet, &next)
			n.Wallet, n.Next = common.HexToAddress(wallet), uint64(next)
			return n, err
		})
}

// claimNonces moves the counter of (network, wallet) past first+n-1, inside tx, if first is
// still its next nonce (at least chainNonce); errNonceMoved otherwise. The row stays locked
// until tx ends.
func (s *Store) claimNonces(ctx context.Context, tx *sql.Tx, network string, wallet common.Address, chainNonce, first uint64, n int) error {
	// The first use of a wallet inserts its row; a racing first use waits for it (PostgreSQL's
	// ON CONFLICT waits for the other insert to commit), so both then lock the same row.
	if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO wallet_nonces (network, wallet, next) VALUES ($1, $2, $3) ON CONFLICT (network, wallet) DO NOTHING`),
		network, wallet.Hex(), int64(chainNonce)); err != nil {
		return fmt.Errorf("nonce: %w", err)
	}
	var next int64
	if err := tx.QueryRowContext(ctx, s.q(`SELECT next FROM wallet_nonces WHERE network = $1 AND wallet = $2`+s.d.ForUpdate), network, wallet.Hex()).Scan(&next); err != nil {
		return fmt.Errorf("nonce: %w", err)
	}
	if max(uint64(next), chainNonce) != first {
		return errNonceMoved
	}
	if _, err := tx.ExecContext(ctx, s.q(`UPDATE wallet_nonces SET next = $1 WHERE network = $2 AND wallet = $3`), int64(first)+int64(n), network, wallet.Hex()); err != nil {
		return fmt.Errorf("nonce: %w", err)
	}
	return nil
}

// StartExecution implements rampway.ExecutionStore: its transactions are signed outside any
// database transaction (signThenClaim).
func (s *Store) StartExecution(ctx context.Context, orderID, network string, wallet common.Address, chainNonce uint64,
	sign func(uint64) ([]*rampway.ChainTx, error), at time.Time) (*rampway.Execution, error) {
	// Nothing is signed for an order that takes no execution (a cheap look first; the claim's
	// transaction looks again under the order's lock).
	o, err := s.Order(ctx, orderID)
	if err != nil {
		return nil, err
	}
	if !rampway.Takes(o, rampway.CauseExecutionStarted) {
		return nil, rampway.Errorf(rampway.ECONFLICT, "order %s is %s: it takes no execution", orderID, o.Status)
	}
	var (
		txs []*rampway.ChainTx
		out *rampway.Execution
	)
	err = s.signThenClaim(ctx, network, wallet, chainNonce, func(first uint64) (int, error) {
		var err error
		if txs, err = sign(first); err != nil {
			return 0, err
		}
		if len(txs) == 0 {
			return 0, errors.New("start execution: nothing signed")
		}
		for i, t := range txs {
			if t.Nonce != first+uint64(i) || t.Wallet != wallet || t.Network != network {
				return 0, fmt.Errorf("start execution: transaction %d is not nonce %d of %s on %s", i, first+uint64(i), wallet.Hex(), network)
			}
		}
		return len(txs), nil
	}, func(tx *sql.Tx) error {
		o, err := s.lockOrder(ctx, tx, orderID)
		if err != nil {
			return err
		}
		if !rampway.Takes(o, rampway.CauseExecutionStarted) {
			return rampway.Errorf(rampway.ECONFLICT, "order %s is %s: it takes no execution", orderID, o.Status)
		}
		call := txs[len(txs)-1]
		e := &rampway.Execution{OrderID: orderID, Network: network, Wallet: wallet, Nonce: call.Nonce, TxHash: call.Hash,
			Status: rampway.ExecutionSent, CreatedAt: at, UpdatedAt: at}
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO executions (`+executionColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`),
			orderID, network, wallet.Hex(), int64(e.Nonce), e.TxHash.Hex(), e.Status, s.t(at)); err != nil {
			if s.d.IsUniqueViolation(err) {
				return rampway.Errorf(rampway.ECONFLICT, "order %s is already executed", orderID)
			}
			return fmt.Errorf("insert execution: %w", err)
		}
		for _, t := range txs {
			t.Ref, t.Status, t.CreatedAt = orderID, rampway.TxPending, at
			if err := s.insertChainTx(ctx, tx, t); err != nil {
				return err
			}
		}
		if _, err := s.applyTx(ctx, tx, o, rampway.ExecutionStarted{TxHash: call.Hash}, at); err != nil {
			return err
		}
		out = e
		return nil
	})
	return out, err
}

// Execution implements rampway.ExecutionStore.
func (s *Store) Execution(ctx context.Context, orderID string) (*rampway.Execution, []*rampway.ChainTx, error) {
	e, err := scanExecution(s.db.QueryRowContext(ctx, s.q(`SELECT `+executionColumns+` FROM executions WHERE order_id = $1`), orderID))
	if err != nil {
		return nil, nil, notFound(err, "execution")
	}
	txs, err := s.queryChainTxs(ctx, s.db, "execution txs", `SELECT `+chainTxColumns+` FROM chain_txs WHERE ref = $1 ORDER BY nonce, created_at, hash`, orderID)
	return e, txs, err
}

// FinishExecution implements rampway.ExecutionStore.
func (s *Store) FinishExecution(ctx context.Context, orderID string, m rampway.MinedTx, reason string, at time.Time) error {
	ok, callHash := m.OK, m.Hash
	return s.tx(ctx, func(tx *sql.Tx) error {
		e, err := scanExecution(tx.QueryRowContext(ctx, s.q(`SELECT `+executionColumns+` FROM executions WHERE order_id = $1`+s.d.ForUpdate), orderID))
		if err != nil {
			return notFound(err, "execution")
		}
		if e.Status != rampway.ExecutionSent {
			return nil
		}
		status := rampway.ExecutionSucceeded
		if !ok {
			status = rampway.ExecutionFailed
		}
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE executions SET status = $1, tx_hash = $2, updated_at = $3 WHERE order_id = $4`),
			status, callHash.Hex(), s.t(at), orderID); err != nil {
			return fmt.Errorf("finish execution: %w", err)
		}
		if err := s.settleTx(ctx, tx, e.Network, m, at); err != nil {
			return err
		}
		o, err := s.lockOrder(ctx, tx, orderID)
		if err != nil {
			return err
		}
		var c rampway.Cause = rampway.ExecutionMined{TxHash: callHash}
		if !ok {
			c = rampway.ExecutionReverted{TxHash: callHash, Reason: reason}
		}
		_, err = s.applyTx(ctx, tx, o, c, at)
		return err
	})
}

// PendingTxs implements rampway.ExecutionStore.
func (s *Store) PendingTxs(ctx context.Context, network string) ([]*rampway.ChainTx, error) {
	return s.queryChainTxs(ctx, s.db, "pending txs", `SELECT `+chainTxColumns+` FROM chain_txs WHERE network = $1 AND status = 'pending'
		ORDER BY wallet, nonce, created_at, hash`, network)
}

// AddTx implements rampway.ExecutionStore.
func (s *Store) AddTx(ctx context.Context, t *rampway.ChainTx) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM chain_txs WHERE network = $1 AND wallet = $2 AND nonce = $3 AND status = 'pending'`),
			t.Network, t.Wallet.Hex(), int64(t.Nonce)).Scan(&n); err != nil {
			return fmt.Errorf("add tx: %w", err)
		}
		if n == 0 {
			return rampway.Errorf(rampway.ECONFLICT, "nonce %d of %s on %s is not pending", t.Nonce, t.Wallet.Hex(), t.Network)
		}
		t.Status = rampway.TxPending
		return s.insertChainTx(ctx, tx, t)
	})
}

// SettleTx implements rampway.ExecutionStore.
func (s *Store) SettleTx(ctx context.Context, network string, m rampway.MinedTx, at time.Time) error {
	return s.tx(ctx, func(tx *sql.Tx) error { return s.settleTx(ctx, tx, network, m, at) })
}

// settleTx marks m mined and the other pending transactions of its nonce replaced, and
// records in the ledger what it moved (ledgerSettle).
func (s *Store) settleTx(ctx context.Context, tx *sql.Tx, network string, m rampway.MinedTx, at time.Time) error {
	var (
		wallet, ref string
		kind        rampway.TxKind
		nonce       int64
	)
	hash := m.Hash
	err := tx.QueryRowContext(ctx, s.q(`SELECT wallet, nonce, kind, ref FROM chain_txs WHERE network = $1 AND hash = $2`), network, hash.Hex()).Scan(&wallet, &nonce, &kind, &ref)
	if err != nil {
		return notFound(err, "transaction")
	}
	if err := s.ledgerSettle(ctx, tx, network, common.HexToAddress(wallet), kind, ref, m, at); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, s.q(`UPDATE chain_txs SET status = CASE WHEN hash = $1 THEN 'mined' ELSE 'replaced' END, updated_at = $2
		WHERE network = $3 AND wallet = $4 AND nonce = $5 AND (status = 'pending' OR hash = $1)`), hash.Hex(), s.t(at), network, wallet, nonce); err != nil {
		return fmt.Errorf("settle tx: %w", err)
	}
	return nil
}
