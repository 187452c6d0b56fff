package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/rampway/rampway"
)

const sweepColumns = `id, network, address, deposit_index, token, amount, status, created_at, updated_at`

func scanSweep(row interface{ Scan(...any) error }) (*rampway.Sweep, error) {
	var (
		w                   rampway.Sweep
		addr, token, amount string
		index               int64
		created, updated    dbTime
	)
	if err := row.Scan(&w.ID, &w.Network, &addr, &index, &token, &amount, &w.Status, &created, &updated); err != nil {
		return nil, err
	}
	w.Address, w.Index, w.Token, w.CreatedAt, w.UpdatedAt = common.HexToAddress(addr), uint32(index), addressOrZero(token), created.T, updated.T
	var err error
	w.Amount, err = parseBig(amount, "amount")
	return &w, err
}

func tokenText(a common.Address) string {
	if a == (common.Address{}) {
		return ""
	}
	return a.Hex()
}

func (s *Store) querySweeps(ctx context.Context, what, query string, args ...any) ([]*rampway.Sweep, error) {
	return collect(ctx, s.db, what, s.q(query), scanSweep, args...)
}

// SweepCandidates implements rampway.SweepStore. An address with a sweep in flight (funding,
// funded, sent) is no candidate until that sweep is over: a sweep is priced on the address's
// balance, which still holds what the sweep in flight sends (and the gas a token sweep was
// sent), so a second one would spend money that is leaving, and its transaction could never
// be mined (found by package sim). Nor is the address of an order still waiting for the rest
// of its payment (UNDERPAID): the payer's wallet estimates the rest's token transfer while the
// address holds the first part, and a sweep mined between the estimate and the transfer
// empties the balance slot the transfer then writes again (+17,100 gas: out of gas at a
// wallet's usual margin; seen in TestBrowserUnderpaid); one sweep once it is paid costs less.
func (s *Store) SweepCandidates(ctx context.Context, network string, limit int) ([]*rampway.Sweep, error) {
	return collect(ctx, s.db, "sweep candidates", s.q(`SELECT DISTINCT t.to_address, o.deposit_index, t.token FROM inbound_transfers t
		JOIN orders o ON o.id = t.order_id
		WHERE t.network = $1 AND t.status = 'confirmed' AND t.sweep_id = '' AND o.status != 'UNDERPAID'
		AND NOT EXISTS (SELECT 1 FROM sweeps w WHERE w.network = t.network AND w.address = t.to_address AND w.status IN ('funding', 'funded', 'sent'))
		ORDER BY t.to_address, t.token LIMIT $2`),
		func(row interface{ Scan(...any) error }) (*rampway.Sweep, error) {
			var (
				addr, token string
				index       int64
			)
			err := row.Scan(&addr, &index, &token)
			return &rampway.Sweep{Network: network, Address: common.HexToAddress(addr), Index: uint32(index), Token: addressOrZero(token)}, err
		}, network, limit)
}

// signOne has sign sign one transaction of wallet outside any database transaction, then
// claims its nonce and, in the claim's transaction, has write do its part and stores the
// transaction for ref (signThenClaim).
func (s *Store) signOne(ctx context.Context, network string, wallet common.Address, chainNonce uint64, kind rampway.TxKind, ref string,
	sign func(uint64) (*rampway.ChainTx, error), write func(tx *sql.Tx) error, at time.Time) error {
	var signed *rampway.ChainTx
	return s.signThenClaim(ctx, network, wallet, chainNonce, func(first uint64) (int, error) {
		var err error
		if signed, err = sign(first); err != nil {
			return 0, err
		}
		if signed.Nonce != first || signed.Wallet != wallet || signed.Network != network {
			return 0, fmt.Errorf("sweep: the transaction is not nonce %d of %s on %s", first, wallet.Hex(), network)
		}
		return 1, nil
	}, func(tx *sql.Tx) error {
		if err := write(tx); err != nil {
			return err
		}
		signed.Kind, signed.Ref, signed.Status, signed.CreatedAt = kind, ref, rampway.TxPending, at
		return s.insertChainTx(ctx, tx, signed)
	})
}

// StartSweep implements rampway.SweepStore: a transaction to sign is signed outside any
// database transaction (signOne), the sweep written with it.
func (s *Store) StartSweep(ctx context.Context, w *rampway.Sweep, wallet common.Address, chainNonce uint64, kind rampway.TxKind,
	sign func(uint64) (*rampway.ChainTx, error), at time.Time) error {
	w.ID, w.CreatedAt, w.UpdatedAt = rampway.NewID(rampway.PrefixSweep, at), at, at
	switch {
	case sign == nil:
		w.Status = rampway.SweepSkipped
	case kind == rampway.TxGas:
		w.Status = rampway.SweepFunding
	default:
		w.Status = rampway.SweepSent
	}
	if w.Amount == nil {
		w.Amount = new(big.Int)
	}
	write := func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO sweeps (`+sweepColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)`),
			w.ID, w.Network, w.Address.Hex(), int64(w.Index), tokenText(w.Token), bigText(w.Amount), w.Status, s.t(at)); err != nil {
			return fmt.Errorf("insert sweep: %w", err)
		}
		res, err := tx.ExecContext(ctx, s.q(`UPDATE inbound_transfers SET sweep_id = $1, updated_at = $2
			WHERE network = $3 AND to_address = $4 AND token = $5 AND status = 'confirmed' AND sweep_id = ''`),
			w.ID, s.t(at), w.Network, w.Address.Hex(), tokenText(w.Token))
		if err != nil {
			return fmt.Errorf("claim transfers: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return rampway.Errorf(rampway.ECONFLICT, "nothing left to sweep at %s", w.Address.Hex())
		}
		return nil
	}
	if sign == nil {
		return s.tx(ctx, write)
	}
	return s.signOne(ctx, w.Network, wallet, chainNonce, kind, w.ID, sign, write, at)
}

// FundedSweeps implements rampway.SweepStore.
func (s *Store) FundedSweeps(ctx context.Context, network string) ([]*rampway.Sweep, error) {
	return s.querySweeps(ctx, "funded sweeps", `SELECT `+sweepColumns+` FROM sweeps WHERE network = $1 AND status = 'funded' ORDER BY created_at, id`, network)
}

// Sweeps implements rampway.SweepStore.
func (s *Store) Sweeps(ctx context.Context, network string, address common.Address) ([]*rampway.Sweep, error) {
	return s.querySweeps(ctx, "sweeps", `SELECT `+sweepColumns+` FROM sweeps WHERE network = $1 AND address = $2 ORDER BY created_at, id`, network, address.Hex())
}

func (s *Store) lockSweep(ctx context.Context, tx *sql.Tx, id string) (*rampway.Sweep, error) {
	w, err := scanSweep(tx.QueryRowContext(ctx, s.q(`SELECT `+sweepColumns+` FROM sweeps WHERE id = $1`+s.d.ForUpdate), id))
	if err != nil {
		return nil, notFound(err, "sweep")
	}
	return w, nil
}

func (s *Store) setSweep(ctx context.Context, tx *sql.Tx, w *rampway.Sweep, status rampway.SweepStatus, at time.Time) error {
	if _, err := tx.ExecContext(ctx, s.q(`UPDATE sweeps SET status = $1, amount = $2, updated_at = $3 WHERE id = $4`),
		status, bigText(w.Amount), s.t(at), w.ID); err != nil {
		return fmt.Errorf("update sweep: %w", err)
	}
	return nil
}

// SendSweep implements rampway.SweepStore: the sweep's transaction is signed outside any
// database transaction (signOne).
func (s *Store) SendSweep(ctx context.Context, id string, amount *big.Int, chainNonce uint64, sign func(uint64) (*rampway.ChainTx, error), at time.Time) error {
	return s.signFunded(ctx, id, common.Address{}, chainNonce, rampway.TxSweep, sign, func(w *rampway.Sweep) rampway.SweepStatus {
		w.Amount = amount
		return rampway.SweepSent
	}, at)
}

// RefuelSweep implements rampway.SweepStore: the gas is signed outside any database transaction
// (signOne).
func (s *Store) RefuelSweep(ctx context.Context, id string, wallet common.Address, chainNonce uint64, sign func(uint64) (*rampway.ChainTx, error), at time.Time) error {
	return s.signFunded(ctx, id, wallet, chainNonce, rampway.TxGas, sign, func(*rampway.Sweep) rampway.SweepStatus { return rampway.SweepFunding }, at)
}

// signFunded stores a funded sweep's next transaction, of wallet (the zero address: the deposit
// address), signed outside any database transaction (signOne), and moves the sweep to the
// status next gives; ECONFLICT when the sweep is not funded (looked at again under its lock).
func (s *Store) signFunded(ctx context.Context, id string, wallet common.Address, chainNonce uint64, kind rampway.TxKind,
	sign func(uint64) (*rampway.ChainTx, error), next func(*rampway.Sweep) rampway.SweepStatus, at time.Time) error {
	w, err := scanSweep(s.db.QueryRowContext(ctx, s.q(`SELECT `+sweepColumns+` FROM sweeps WHERE id = $1`), id))
	if err != nil {
		return notFound(err, "sweep")
	}
	if w.Status != rampway.SweepFunded { // nothing signed for it
		return rampway.Errorf(rampway.ECONFLICT, "sweep %s is %s, not funded", id, w.Status)
	}
	if wallet == (common.Address{}) {
		wallet = w.Address
	}
	return s.signOne(ctx, w.Network, wallet, chainNonce, kind, w.ID, sign, func(tx *sql.Tx) error {
		w, err := s.lockSweep(ctx, tx, id)
		if err != nil {
			return err
		}
		if w.Status != rampway.SweepFunded {
			return rampway.Errorf(rampway.ECONFLICT, "sweep %s is %s, not funded", id, w.Status)
		}
		return s.setSweep(ctx, tx, w, next(w), at)
	}, at)
}

// FinishSweepTx implements rampway.SweepStore.
func (s *Store) FinishSweepTx(ctx context.Context, network string, m rampway.MinedTx, at time.Time) error {
	hash, ok := m.Hash, m.OK
	return s.tx(ctx, func(tx *sql.Tx) error {
		var (
			kind rampway.TxKind
			ref  string
			raw  []byte
		)
		err := tx.QueryRowContext(ctx, s.q(`SELECT kind, ref, raw FROM chain_txs WHERE network = $1 AND hash = $2`), network, hash.Hex()).Scan(&kind, &ref, &raw)
		if errors.Is(err, sql.ErrNoRows) {
			return rampway.Errorf(rampway.ENOTFOUND, "transaction %s not found", hash.Hex())
		}
		if err != nil {
			return fmt.Errorf("sweep tx: %w", err)
		}
		if err := s.settleTx(ctx, tx, network, m, at); err != nil {
			return err
		}
		w, err := s.lockSweep(ctx, tx, ref)
		if err != nil {
			return err
		}
		switch {
		case kind == rampway.TxGas && w.Status == rampway.SweepFunding && ok:
			return s.setSweep(ctx, tx, w, rampway.SweepFunded, at)
		case kind == rampway.TxSweep && w.Status == rampway.SweepSent && ok:
			if w.Token == (common.Address{}) {
				// A native sweep's amount is what its mined transaction sent: a re-priced one
				// sends less than the first (its higher fee comes off the value).
				var mined types.Transaction
				if err := mined.UnmarshalBinary(raw); err != nil {
					return fmt.Errorf("sweep tx %s: %w", hash.Hex(), err)
				}
				w.Amount = mined.Value()
			}
			return s.setSweep(ctx, tx, w, rampway.SweepDone, at)
		case !ok && (w.Status == rampway.SweepFunding || w.Status == rampway.SweepSent):
			// Its transfers go back to the candidates, to be swept again.
			if _, err := tx.ExecContext(ctx, s.q(`UPDATE inbound_transfers SET sweep_id = '', updated_at = $1 WHERE sweep_id = $2 AND sweep_id != ''`), s.t(at), w.ID); err != nil {
				return fmt.Errorf("release transfers: %w", err)
			}
			return s.setSweep(ctx, tx, w, rampway.SweepFailed, at)
		}
		return nil // already settled
	})
}
