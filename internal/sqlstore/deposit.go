package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
)

const transferColumns = `network, tx_hash, log_index, order_id, token, from_address, to_address, amount, block_number, block_hash, status, created_at`

func scanTransfer(row interface{ Scan(...any) error }) (*rampway.InboundTransfer, error) {
	var (
		t                               rampway.InboundTransfer
		txHash, token, from, to, amount string
		blkHash                         string
		blk                             int64
		created                         dbTime
	)
	if err := row.Scan(&t.Network, &txHash, &t.LogIndex, &t.OrderID, &token, &from, &to, &amount, &blk, &blkHash, &t.Status, &created); err != nil {
		return nil, err
	}
	t.TxHash, t.BlockHash = common.HexToHash(txHash), common.HexToHash(blkHash)
	if token != "" {
		t.Token = common.HexToAddress(token)
	}
	t.From, t.To = addressOrZero(from), common.HexToAddress(to)
	var err error
	if t.Amount, err = parseBig(amount, "amount"); err != nil {
		return nil, err
	}
	t.BlockNumber, t.CreatedAt = uint64(blk), created.T
	return &t, nil
}

// WatchCursor implements rampway.DepositStore.
func (s *Store) WatchCursor(ctx context.Context, network string) (uint64, common.Hash, bool, error) {
	var n int64
	var h string
	err := s.db.QueryRowContext(ctx, s.q(`SELECT block_number, block_hash FROM watch_cursors WHERE network = $1`), network).Scan(&n, &h)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, common.Hash{}, false, nil
	}
	if err != nil {
		return 0, common.Hash{}, false, fmt.Errorf("read watch cursor: %w", err)
	}
	return uint64(n), common.HexToHash(h), true, nil
}

// SetWatchCursor implements rampway.DepositStore.
func (s *Store) SetWatchCursor(ctx context.Context, network string, number uint64, hash common.Hash, at time.Time) error {
	_, err := s.exec(ctx, s.q(`INSERT INTO watch_cursors (network, block_number, block_hash, updated_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (network) DO UPDATE SET block_number = excluded.block_number, block_hash = excluded.block_hash, updated_at = excluded.updated_at`),
		network, int64(number), hash.Hex(), s.t(at))
	if err != nil {
		return fmt.Errorf("set watch cursor: %w", err)
	}
	return nil
}

// RecordTransfer implements rampway.DepositStore.
func (s *Store) RecordTransfer(ctx context.Context, t *rampway.InboundTransfer, at time.Time) (bool, error) {
	recorded := false
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var status rampway.TransferStatus
		err := tx.QueryRowContext(ctx, s.q(`SELECT status FROM inbound_transfers WHERE network = $1 AND tx_hash = $2 AND log_index = $3`+s.d.ForUpdate),
			t.Network, t.TxHash.Hex(), t.LogIndex).Scan(&status)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			token := ""
			if t.Token != (common.Address{}) {
				token = t.Token.Hex()
			}
			_, err = tx.ExecContext(ctx, s.q(`INSERT INTO inbound_transfers (`+transferColumns+`, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'seen', $11, $11)`),
				t.Network, t.TxHash.Hex(), t.LogIndex, t.OrderID, token, t.From.Hex(), t.To.Hex(), bigText(t.Amount), int64(t.BlockNumber), t.BlockHash.Hex(), s.t(at))
		case err != nil:
		case status == rampway.TransferDropped:
			_, err = tx.ExecContext(ctx, s.q(`UPDATE inbound_transfers SET status = 'seen', block_number = $1, block_hash = $2, updated_at = $3
				WHERE network = $4 AND tx_hash = $5 AND log_index = $6`), int64(t.BlockNumber), t.BlockHash.Hex(), s.t(at), t.Network, t.TxHash.Hex(), t.LogIndex)
		default:
			return nil // already known
		}
		if err != nil {
			return fmt.Errorf("record transfer: %w", err)
		}
		recorded = true
		o, err := s.lockOrder(ctx, tx, t.OrderID)
		if err != nil {
			return err
		}
		_, err = s.applyTx(ctx, tx, o, rampway.PaymentSeen{Transfer: t}, at)
		return err
	})
	return recorded, err
}

// PendingTransfers implements rampway.DepositStore.
func (s *Store) PendingTransfers(ctx context.Context, network string) ([]*rampway.InboundTransfer, error) {
	return s.queryTransfers(ctx, "pending transfers", `SELECT `+transferColumns+` FROM inbound_transfers WHERE network = $1 AND status = 'seen'
		ORDER BY block_number, tx_hash, log_index`, network)
}

func (s *Store) queryTransfers(ctx context.Context, what, query string, args ...any) ([]*rampway.InboundTransfer, error) {
	return collect(ctx, s.db, what, s.q(query), scanTransfer, args...)
}

// lockSeenTransfer reads a transfer for update; ok is false unless it is "seen".
func (s *Store) lockSeenTransfer(ctx context.Context, tx *sql.Tx, network string, txHash common.Hash, logIndex int64) (*rampway.InboundTransfer, bool, error) {
	t, err := scanTransfer(tx.QueryRowContext(ctx, s.q(`SELECT `+transferColumns+` FROM inbound_transfers WHERE network = $1 AND tx_hash = $2 AND log_index = $3`+s.d.ForUpdate),
		network, txHash.Hex(), logIndex))
	if err != nil {
		return nil, false, notFound(err, "transfer")
	}
	return t, t.Status == rampway.TransferSeen, nil
}

func (s *Store) setTransferStatus(ctx context.Context, tx *sql.Tx, t *rampway.InboundTransfer, status rampway.TransferStatus, at time.Time) error {
	_, err := tx.ExecContext(ctx, s.q(`UPDATE inbound_transfers SET status = $1, updated_at = $2 WHERE network = $3 AND tx_hash = $4 AND log_index = $5`),
		status, s.t(at), t.Network, t.TxHash.Hex(), t.LogIndex)
	if err != nil {
		return fmt.Errorf("set transfer status: %w", err)
	}
	return nil
}

// ConfirmTransfer implements rampway.DepositStore.
func (s *Store) ConfirmTransfer(ctx context.Context, network string, txHash common.Hash, logIndex int64, at time.Time) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		t, seen, err := s.lockSeenTransfer(ctx, tx, network, txHash, logIndex)
		if err != nil || !seen {
			return err
		}
		if err := s.setTransferStatus(ctx, tx, t, rampway.TransferConfirmed, at); err != nil {
			return err
		}
		o, err := s.lockOrder(ctx, tx, t.OrderID)
		if err != nil {
			return err
		}
		if err := s.ledgerCredit(ctx, tx, t, at); err != nil {
			return err
		}
		_, err = s.applyTx(ctx, tx, o, rampway.PaymentConfirmed{Transfer: t}, at)
		return err
	})
}

// DropTransfer implements rampway.DepositStore.
func (s *Store) DropTransfer(ctx context.Context, network string, txHash common.Hash, logIndex int64, at time.Time) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		t, seen, err := s.lockSeenTransfer(ctx, tx, network, txHash, logIndex)
		if err != nil || !seen {
			return err
		}
		if err := s.setTransferStatus(ctx, tx, t, rampway.TransferDropped, at); err != nil {
			return err
		}
		o, err := s.lockOrder(ctx, tx, t.OrderID)
		if err != nil {
			return err
		}
		_, err = s.applyTx(ctx, tx, o, rampway.PaymentDropped{Transfer: t}, at)
		return err
	})
}

// watching are the states of an order whose deposit address is watched whatever its expiry
// (rampway.WatchesDeposits: CREATED, UNDERPAID, DEPOSIT_PROCESSING), as SQL.
var watching = sqlStatuses(rampway.WatchesDeposits())

// notWatching are the other states, whose deposit address is watched until a while after
// the order's expiry.
var notWatching = sqlStatuses(slices.DeleteFunc(slices.Clone(rampway.OrderStatuses), func(st rampway.OrderStatus) bool {
	return slices.Contains(rampway.WatchesDeposits(), st)
}))

// WatchedDeposits implements rampway.DepositStore.
func (s *Store) WatchedDeposits(ctx context.Context, network string, expiredSince time.Time) ([]rampway.WatchedDeposit, error) {
	// By status and expiry (orders_status), each part: what is watched is read, not every order
	// the network ever had.
	return collect(ctx, s.db, "watched deposits", s.q(`SELECT id, deposit_address, asset_contract FROM orders`+s.indexed("orders_status")+`
		WHERE status IN (`+watching+`) AND network = $1 AND deposit_address IS NOT NULL
		UNION ALL SELECT id, deposit_address, asset_contract FROM orders`+s.indexed("orders_status")+`
		WHERE status IN (`+notWatching+`) AND expires_at >= $2 AND network = $1 AND deposit_address IS NOT NULL`),
		scanWatchedDeposit, network, s.t(expiredSince))
}

// scanWatchedDeposit reads an order's id, deposit address and asset contract.
func scanWatchedDeposit(row interface{ Scan(...any) error }) (rampway.WatchedDeposit, error) {
	var (
		d              rampway.WatchedDeposit
		addr, contract string
	)
	if err := row.Scan(&d.OrderID, &addr, &contract); err != nil {
		return d, err
	}
	d.Address = common.HexToAddress(addr)
	if contract != "" {
		d.Token = common.HexToAddress(contract)
	}
	return d, nil
}

// arrivalsChunk bounds the order ids of one NativeArrivals query (bind variables).
const arrivalsChunk = 500

// NativeArrivals implements rampway.DepositStore. A block range alone reads the pending
// index (network, status, block_number); named orders go by the order index, in chunks.
func (s *Store) NativeArrivals(ctx context.Context, network string, from, to uint64, orderIDs []string) (map[string]*big.Int, error) {
	out := map[string]*big.Int{}
	query := `SELECT order_id, amount FROM inbound_transfers WHERE network = $1 AND status IN ('seen', 'confirmed') AND token = ''
		AND block_number >= $2 AND block_number <= $3`
	add := func(q string, args ...any) error {
		rows, err := s.db.QueryContext(ctx, s.q(q), args...)
		if err != nil {
			return fmt.Errorf("native arrivals: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var id, amount string
			if err := rows.Scan(&id, &amount); err != nil {
				return fmt.Errorf("native arrivals: %w", err)
			}
			v, err := parseBig(amount, "amount")
			if err != nil {
				return err
			}
			if sum, ok := out[id]; ok {
				sum.Add(sum, v)
			} else {
				out[id] = v
			}
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("native arrivals: %w", err)
		}
		return nil
	}
	if orderIDs == nil {
		if err := add(query, network, int64(from), int64(to)); err != nil {
			return nil, err
		}
		return out, nil
	}
	for len(orderIDs) > 0 {
		chunk := orderIDs[:min(len(orderIDs), arrivalsChunk)]
		orderIDs = orderIDs[len(chunk):]
		args := []any{network, int64(from), int64(to)}
		var in strings.Builder
		for i, id := range chunk {
			if i > 0 {
				in.WriteString(", ")
			}
			fmt.Fprintf(&in, "$%d", len(args)+1)
			args = append(args, id)
		}
		if err := add(query+` AND order_id IN (`+in.String()+`)`, args...); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// OrderTransfers implements rampway.DepositStore.
func (s *Store) OrderTransfers(ctx context.Context, orderID string) ([]*rampway.InboundTransfer, error) {
	return s.queryTransfers(ctx, "order transfers", `SELECT `+transferColumns+` FROM inbound_transfers WHERE order_id = $1
		ORDER BY block_number, tx_hash, log_index`, orderID)
}

// DepositsCreatedSince implements rampway.DepositStore.
func (s *Store) DepositsCreatedSince(ctx context.Context, network string, since time.Time) ([]rampway.WatchedDeposit, error) {
	return collect(ctx, s.db, "deposits created since", s.q(`SELECT id, deposit_address, asset_contract FROM orders
		WHERE network = $1 AND created_at >= $2 AND deposit_address IS NOT NULL`), scanWatchedDeposit, network, s.t(since))
}
