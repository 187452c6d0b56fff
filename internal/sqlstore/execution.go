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

const executionColumns = `order_id, network, wallet, nonce, approve_tx_hash, approve_raw, tx_hash, raw_tx, status, created_at, updated_at`

func scanExecution(row interface{ Scan(...any) error }) (*rampway.Execution, error) {
	var (
		e                       rampway.Execution
		wallet, approveHash, th string
		approveRaw              []byte
		nonce                   int64
		created, updated        dbTime
	)
	if err := row.Scan(&e.OrderID, &e.Network, &wallet, &nonce, &approveHash, &approveRaw, &th, &e.Call.Raw, &e.Status, &created, &updated); err != nil {
		return nil, err
	}
	e.Wallet, e.Nonce, e.Call.Hash = common.HexToAddress(wallet), uint64(nonce), common.HexToHash(th)
	if approveHash != "" {
		e.Approve = &rampway.SignedTx{Hash: common.HexToHash(approveHash), Raw: approveRaw}
	}
	e.CreatedAt, e.UpdatedAt = created.T, updated.T
	return &e, nil
}

// StartExecution implements rampway.ExecutionStore.
func (s *Store) StartExecution(ctx context.Context, orderID, network string, wallet common.Address, n int, chainNonce uint64,
	sign func(uint64) (*rampway.SignedTx, rampway.SignedTx, error), at time.Time) (*rampway.Execution, error) {
	var out *rampway.Execution
	err := s.tx(ctx, func(tx *sql.Tx) error {
		o, err := s.lockOrder(ctx, tx, orderID)
		if err != nil {
			return err
		}
		if o.Status != rampway.StatusDepositSuccess {
			return rampway.Errorf(rampway.ECONFLICT, "order %s is %s, not DEPOSIT_SUCCESS", orderID, o.Status)
		}
		var next int64
		err = tx.QueryRowContext(ctx, s.q(`SELECT next FROM wallet_nonces WHERE network = $1 AND wallet = $2`+s.d.ForUpdate), network, wallet.Hex()).Scan(&next)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			next = int64(chainNonce)
			_, err = tx.ExecContext(ctx, s.q(`INSERT INTO wallet_nonces (network, wallet, next) VALUES ($1, $2, $3)`), network, wallet.Hex(), next)
		case err == nil && uint64(next) < chainNonce:
			next = int64(chainNonce) // the wallet was used outside rampway
		}
		if err != nil {
			return fmt.Errorf("nonce: %w", err)
		}
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE wallet_nonces SET next = $1 WHERE network = $2 AND wallet = $3`), next+int64(n), network, wallet.Hex()); err != nil {
			return fmt.Errorf("nonce: %w", err)
		}
		approve, call, err := sign(uint64(next))
		if err != nil {
			return err
		}
		e := &rampway.Execution{OrderID: orderID, Network: network, Wallet: wallet, Nonce: uint64(next) + uint64(n) - 1, Approve: approve,
			Call: call, Status: rampway.ExecutionSent, CreatedAt: at, UpdatedAt: at}
		var ah string
		var ar []byte
		if approve != nil {
			ah, ar = approve.Hash.Hex(), approve.Raw
		}
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO executions (`+executionColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)`),
			orderID, network, wallet.Hex(), int64(e.Nonce), ah, ar, call.Hash.Hex(), call.Raw, e.Status, s.t(at)); err != nil {
			if s.d.IsUniqueViolation(err) {
				return rampway.Errorf(rampway.ECONFLICT, "order %s is already executed", orderID)
			}
			return fmt.Errorf("insert execution: %w", err)
		}
		if _, err := s.transitionTx(ctx, tx, o, rampway.StatusSmartContractProcessing, at, func(o *rampway.Order) { o.ExecutionTxHash = call.Hash.Hex() }); err != nil {
			return err
		}
		out = e
		return nil
	})
	return out, err
}

// SentExecutions implements rampway.ExecutionStore.
func (s *Store) SentExecutions(ctx context.Context, network string) ([]*rampway.Execution, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT `+executionColumns+` FROM executions WHERE network = $1 AND status = 'sent' ORDER BY nonce`), network)
	if err != nil {
		return nil, fmt.Errorf("sent executions: %w", err)
	}
	defer rows.Close()
	var out []*rampway.Execution
	for rows.Next() {
		e, err := scanExecution(rows)
		if err != nil {
			return nil, fmt.Errorf("sent executions: %w", err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// FinishExecution implements rampway.ExecutionStore.
func (s *Store) FinishExecution(ctx context.Context, orderID string, ok bool, reason string, at time.Time) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		e, err := scanExecution(tx.QueryRowContext(ctx, s.q(`SELECT `+executionColumns+` FROM executions WHERE order_id = $1`+s.d.ForUpdate), orderID))
		if err != nil {
			return notFound(err, "execution")
		}
		if e.Status != rampway.ExecutionSent {
			return nil
		}
		status, to := rampway.ExecutionSucceeded, rampway.StatusSuccess
		if !ok {
			status, to = rampway.ExecutionFailed, rampway.StatusFailed
		}
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE executions SET status = $1, updated_at = $2 WHERE order_id = $3`), status, s.t(at), orderID); err != nil {
			return fmt.Errorf("finish execution: %w", err)
		}
		o, err := s.lockOrder(ctx, tx, orderID)
		if err != nil {
			return err
		}
		_, err = s.transitionTx(ctx, tx, o, to, at, func(o *rampway.Order) {
			if !ok {
				o.FailureReason = reason
			}
		})
		return err
	})
}
