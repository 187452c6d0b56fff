package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/rampway/rampway"
)

// The ledger's writes happen inside the transactions that record the movements themselves
// (ConfirmTransfer, settleTx, the fiat actions and credits): a movement is never committed
// without its transfers, and a transfer's id makes it once.

// addLedgerTransfers records ts inside tx, each once (by id); a held side's balance moves with
// it, and what the held accounts hold in all of an asset (ledger_held, by asset in order, so
// that two transactions never wait for each other's rows). Transfers of nothing are left out.
func (s *Store) addLedgerTransfers(ctx context.Context, tx *sql.Tx, ts ...rampway.LedgerTransfer) error {
	held := map[string]*big.Int{}
	for _, t := range ts {
		if t.Amount == nil || t.Amount.Sign() == 0 {
			continue
		}
		if t.Amount.Sign() < 0 {
			return fmt.Errorf("ledger transfer %s: negative amount %s", t.ID, t.Amount)
		}
		res, err := tx.ExecContext(ctx, s.q(`INSERT INTO ledger_transfers (id, network, asset, debit, credit, amount, block_number, kind, ref, note, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (id) DO NOTHING`),
			t.ID, t.Network, t.Asset, t.Debit, t.Credit, t.Amount.String(), int64(t.Block), t.Kind, t.Ref, t.Note, s.t(t.CreatedAt))
		if err != nil {
			return fmt.Errorf("ledger transfer %s: %w", t.ID, err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return fmt.Errorf("ledger transfer %s: %w", t.ID, err)
		} else if n == 0 {
			continue // recorded before
		}
		if rampway.AccountKind(t.Debit).Held() {
			if err := s.moveBalance(ctx, tx, t.Network, t.Debit, t.Asset, new(big.Int).Neg(t.Amount)); err != nil {
				return err
			}
		}
		if rampway.AccountKind(t.Credit).Held() {
			if err := s.moveBalance(ctx, tx, t.Network, t.Credit, t.Asset, t.Amount); err != nil {
				return err
			}
		}
		if d := heldDelta(t); d.Sign() != 0 {
			if held[t.Asset] == nil {
				held[t.Asset] = new(big.Int)
			}
			held[t.Asset].Add(held[t.Asset], d)
		}
	}
	for _, asset := range slices.Sorted(maps.Keys(held)) {
		d := held[asset]
		if d.Sign() == 0 {
			continue
		}
		var text string
		err := tx.QueryRowContext(ctx, s.q(`SELECT balance FROM ledger_held WHERE asset = $1`+s.d.ForUpdate), asset).Scan(&text)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			_, err = tx.ExecContext(ctx, s.q(`INSERT INTO ledger_held (asset, balance) VALUES ($1, $2)`), asset, d.String())
		case err != nil:
		default:
			var v *big.Int
			if v, err = parseBig(text, "balance"); err != nil {
				return err
			}
			_, err = tx.ExecContext(ctx, s.q(`UPDATE ledger_held SET balance = $1 WHERE asset = $2`), v.Add(v, d).String(), asset)
		}
		if err != nil {
			return fmt.Errorf("ledger held of %s: %w", asset, err)
		}
	}
	return nil
}

// heldDelta is what a transfer changes of what the held accounts hold in all.
func heldDelta(t rampway.LedgerTransfer) *big.Int {
	dh, ch := rampway.AccountKind(t.Debit).Held(), rampway.AccountKind(t.Credit).Held()
	switch {
	case ch && !dh:
		return new(big.Int).Set(t.Amount)
	case dh && !ch:
		return new(big.Int).Neg(t.Amount)
	}
	return new(big.Int)
}

// moveBalance adds delta to a held account's balance of asset and counts the move.
func (s *Store) moveBalance(ctx context.Context, tx *sql.Tx, network, account, asset string, delta *big.Int) error {
	var text string
	err := tx.QueryRowContext(ctx, s.q(`SELECT balance FROM ledger_balances WHERE account = $1 AND asset = $2`+s.d.ForUpdate), account, asset).Scan(&text)
	bal := new(big.Int)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		_, err = tx.ExecContext(ctx, s.q(`INSERT INTO ledger_balances (account, asset, network, balance, moves, checked_moves) VALUES ($1, $2, $3, $4, 1, 0)`),
			account, asset, network, delta.String())
	case err != nil:
	default:
		if bal, err = parseBig(text, "balance"); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, s.q(`UPDATE ledger_balances SET balance = $1, moves = moves + 1 WHERE account = $2 AND asset = $3`),
			bal.Add(bal, delta).String(), account, asset)
	}
	if err != nil {
		return fmt.Errorf("ledger balance of %s: %w", account, err)
	}
	return nil
}

// ensureLedgerAccount makes a held account of network known, opened or not (an account known
// already keeps its state).
func (s *Store) ensureLedgerAccount(ctx context.Context, q querier, network, account string, address common.Address, opened bool) error {
	_, err := q.ExecContext(ctx, s.q(`INSERT INTO ledger_accounts (account, network, kind, address, opened, opened_block) VALUES ($1, $2, $3, $4, $5, 0)
		ON CONFLICT (account) DO NOTHING`), account, network, string(rampway.AccountKind(account)), address.Hex(), opened)
	if err != nil {
		return fmt.Errorf("ledger account %s: %w", account, err)
	}
	return nil
}

// ledgerAccountOf is the held account of address on network, or the network's external
// account when rampway holds no key for it.
func (s *Store) ledgerAccountOf(ctx context.Context, tx *sql.Tx, network string, address common.Address) (string, error) {
	var account string
	err := tx.QueryRowContext(ctx, s.q(`SELECT account FROM ledger_accounts WHERE network = $1 AND address = $2`), network, address.Hex()).Scan(&account)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return rampway.ExternalAccount(network), nil
	case err != nil:
		return "", fmt.Errorf("ledger account of %s: %w", address.Hex(), err)
	}
	return account, nil
}

// ledgerCredit records a payment credited to a deposit address: from the world.
func (s *Store) ledgerCredit(ctx context.Context, tx *sql.Tx, t *rampway.InboundTransfer, at time.Time) error {
	account := rampway.DepositAccount(t.Network, t.To)
	// A deposit address is new: its ledger starts with its first payment.
	if err := s.ensureLedgerAccount(ctx, tx, t.Network, account, t.To, true); err != nil {
		return err
	}
	return s.addLedgerTransfers(ctx, tx, rampway.LedgerTransfer{
		ID: fmt.Sprintf("deposit:%s:%s:%d", t.Network, t.TxHash.Hex(), t.LogIndex), Network: t.Network, Asset: rampway.ChainAsset(t.Network, t.Token),
		Debit: rampway.ExternalAccount(t.Network), Credit: account, Amount: t.Amount, Block: t.BlockNumber, Kind: "deposit", Ref: t.OrderID, CreatedAt: at})
}

// ledgerSettle records what a transaction rampway signed moved, mined as m: its fee from the
// sender, its value and its token transfers from and to the accounts they name. The sender
// of a sweep is a deposit address, of anything else a hot wallet; a gas top-up's recipient
// is a deposit address.
func (s *Store) ledgerSettle(ctx context.Context, tx *sql.Tx, network string, wallet common.Address, kind rampway.TxKind, ref string,
	m rampway.MinedTx, at time.Time) error {
	sender := rampway.HotAccount(network, wallet)
	if kind == rampway.TxSweep {
		sender = rampway.DepositAccount(network, wallet)
	}
	if err := s.ensureLedgerAccount(ctx, tx, network, sender, wallet, false); err != nil {
		return err
	}
	id := "tx:" + network + ":" + m.Hash.Hex() + ":"
	native := rampway.NativeAsset(network)
	ts := []rampway.LedgerTransfer{{ID: id + "fee", Network: network, Asset: native, Debit: sender, Credit: rampway.FeesAccount(network),
		Amount: m.Fee, Block: m.Block, Kind: "fee", Ref: ref, CreatedAt: at}}
	account := func(a common.Address) (string, error) {
		if a == wallet {
			return sender, nil
		}
		if kind == rampway.TxGas && a == m.To {
			acc := rampway.DepositAccount(network, a)
			return acc, s.ensureLedgerAccount(ctx, tx, network, acc, a, false)
		}
		return s.ledgerAccountOf(ctx, tx, network, a)
	}
	if m.OK && m.Value != nil && m.Value.Sign() > 0 {
		to, err := account(m.To)
		if err != nil {
			return err
		}
		ts = append(ts, rampway.LedgerTransfer{ID: id + "value", Network: network, Asset: native, Debit: sender, Credit: to, Amount: m.Value,
			Block: m.Block, Kind: string(kind), Ref: ref, CreatedAt: at})
	}
	for _, l := range m.Tokens {
		if !m.OK {
			break
		}
		from, err := account(l.From)
		if err != nil {
			return err
		}
		to, err := account(l.To)
		if err != nil {
			return err
		}
		ts = append(ts, rampway.LedgerTransfer{ID: id + "log:" + strconv.FormatUint(uint64(l.LogIndex), 10), Network: network,
			Asset: rampway.TokenAsset(network, l.Token), Debit: from, Credit: to, Amount: l.Amount, Block: m.Block, Kind: string(kind), Ref: ref, CreatedAt: at})
	}
	return s.addLedgerTransfers(ctx, tx, ts...)
}

// ledgerFiatAction records a capture or a refund the provider did: from the payer to the
// provider's balance, or back.
func (s *Store) ledgerFiatAction(ctx context.Context, tx *sql.Tx, a *rampway.FiatAction, at time.Time) error {
	if a.Kind != rampway.ActionCapture && a.Kind != rampway.ActionRefund {
		return nil
	}
	var provider string
	if err := tx.QueryRowContext(ctx, s.q(`SELECT provider FROM fiat_payments WHERE id = $1`), a.PaymentID).Scan(&provider); err != nil {
		return fmt.Errorf("fiat action's payment: %w", notFound(err, "fiat payment"))
	}
	return s.ledgerFiat(ctx, tx, "fiat:action:"+a.ID, provider, a.Currency, a.Amount, a.Kind == rampway.ActionRefund, "fiat_"+string(a.Kind), a.PaymentID, at)
}

// ledgerFiat records fiat money arriving at a provider for rampway (or leaving, back to the
// payer); ref is the fiat payment's id.
func (s *Store) ledgerFiat(ctx context.Context, tx *sql.Tx, id, provider, currency string, amount *big.Int, back bool, kind, ref string, at time.Time) error {
	held := rampway.ProviderAccount(provider, currency)
	if err := s.ensureLedgerAccount(ctx, tx, "", held, common.Address{}, true); err != nil {
		return err
	}
	t := rampway.LedgerTransfer{ID: id, Asset: rampway.FiatAsset(currency), Debit: rampway.CustomersAccount(provider, currency), Credit: held,
		Amount: amount, Kind: kind, Ref: ref, CreatedAt: at}
	if back {
		t.Debit, t.Credit = t.Credit, t.Debit
	}
	return s.addLedgerTransfers(ctx, tx, t)
}

// AddHotWallet implements rampway.LedgerStore.
func (s *Store) AddHotWallet(ctx context.Context, network string, address common.Address) error {
	return s.ensureLedgerAccount(ctx, s.db, network, rampway.HotAccount(network, address), address, false)
}

// LedgerHoldings implements rampway.LedgerStore. Each part of the set is read by its own
// index (the hot wallets, the accounts not opened, the balances moved since they were
// checked, the drifts, the rolling sweep), then the accounts' balances by account and the
// transfers above block, all in one snapshot (a transfer committing meanwhile is in both the
// balances and the transfers above block, or in neither).
func (s *Store) LedgerHoldings(ctx context.Context, network string, block uint64, sweepAfter string, sweep int) (out []*rampway.LedgerHolding, next string, err error) {
	err = s.snapshot(ctx, func(tx *sql.Tx) error {
		out, next, err = s.ledgerHoldings(ctx, tx, network, block, sweepAfter, sweep)
		return err
	})
	return out, next, err
}

// snapshot runs fn in a read transaction that sees one state of the database: PostgreSQL's
// repeatable read; SQLite's transactions (one writer: reads in it see no other's writes).
func (s *Store) snapshot(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if s.d.Name != "postgres" {
		return s.tx(ctx, fn)
	}
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	return fn(tx)
}

func (s *Store) ledgerHoldings(ctx context.Context, tx *sql.Tx, network string, block uint64, sweepAfter string, sweep int) ([]*rampway.LedgerHolding, string, error) {
	swept, err := collect(ctx, tx, "ledger sweep", s.q(`SELECT DISTINCT account FROM ledger_balances
		WHERE network = $1 AND balance != '0' AND account > $2 ORDER BY account LIMIT $3`), scanValue[string], network, sweepAfter, max(sweep, 1))
	if err != nil {
		return nil, "", err
	}
	next := ""
	if len(swept) >= sweep && len(swept) > 0 {
		next = swept[len(swept)-1]
	}
	wanted := map[string]bool{}
	for _, a := range swept {
		wanted[a] = true
	}
	for _, q := range []string{
		`SELECT account FROM ledger_accounts WHERE network = $1 AND kind = 'hot'`,
		`SELECT account FROM ledger_accounts WHERE network = $1 AND NOT opened`,
		`SELECT DISTINCT account FROM ledger_balances WHERE network = $1 AND moves != checked_moves`,
		`SELECT account FROM ledger_drifts WHERE network = $1`,
	} {
		accounts, err := collect(ctx, tx, "ledger holdings", s.q(q), scanValue[string], network)
		if err != nil {
			return nil, "", err
		}
		for _, a := range accounts {
			wanted[a] = true
		}
	}
	type row struct {
		account, kind, address string
		opened                 bool
		asset, balance         sql.NullString
		moves                  sql.NullInt64
	}
	var out []*rampway.LedgerHolding
	rest := slices.Sorted(maps.Keys(wanted))
	for len(rest) > 0 {
		chunk := rest[:min(len(rest), arrivalsChunk)]
		rest = rest[len(chunk):]
		args := []any{}
		in := make([]string, len(chunk))
		for i, a := range chunk {
			args = append(args, a)
			in[i] = fmt.Sprintf("$%d", i+1)
		}
		rows, err := collect(ctx, tx, "ledger holdings", s.q(`SELECT a.account, a.kind, a.address, a.opened, b.asset, b.balance, b.moves
			FROM ledger_accounts a LEFT JOIN ledger_balances b ON b.account = a.account WHERE a.account IN (`+strings.Join(in, ", ")+`)
			ORDER BY a.account, b.asset`), func(r interface{ Scan(...any) error }) (row, error) {
			var x row
			err := r.Scan(&x.account, &x.kind, &x.address, &x.opened, &x.asset, &x.balance, &x.moves)
			return x, err
		}, args...)
		if err != nil {
			return nil, "", err
		}
		var h *rampway.LedgerHolding
		for _, x := range rows {
			if h == nil || h.Account != x.account {
				h = &rampway.LedgerHolding{Account: x.account, Kind: rampway.LedgerAccountKind(x.kind), Address: common.HexToAddress(x.address),
					Opened: x.opened, Balances: map[string]*big.Int{}, Moves: map[string]int64{}}
				out = append(out, h)
			}
			if x.asset.Valid {
				v, err := parseBig(x.balance.String, "balance")
				if err != nil {
					return nil, "", err
				}
				h.Balances[x.asset.String], h.Moves[x.asset.String] = v, x.moves.Int64
			}
		}
	}
	names := make([]string, len(out))
	for i, h := range out {
		names[i] = h.Account
	}
	after, err := s.ledgerAfter(ctx, tx, network, names, block)
	if err != nil {
		return nil, "", err
	}
	for _, h := range out {
		for asset, v := range after[h.Account] {
			if h.Balances[asset] == nil {
				h.Balances[asset] = new(big.Int)
			}
			h.Balances[asset].Sub(h.Balances[asset], v)
		}
	}
	return out, next, nil
}

// ledgerAfter returns, for each account given, the net of its transfers above block by asset.
func (s *Store) ledgerAfter(ctx context.Context, q querier, network string, accounts []string, block uint64) (map[string]map[string]*big.Int, error) {
	want := map[string]bool{}
	for _, a := range accounts {
		want[a] = true
	}
	type leg struct{ debit, credit, asset, amount string }
	legs, err := collect(ctx, q, "ledger after block", s.q(`SELECT debit, credit, asset, amount FROM ledger_transfers WHERE network = $1 AND block_number > $2`),
		func(r interface{ Scan(...any) error }) (leg, error) {
			var l leg
			err := r.Scan(&l.debit, &l.credit, &l.asset, &l.amount)
			return l, err
		}, network, int64(block))
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]*big.Int{}
	add := func(account, asset string, v *big.Int) {
		if !want[account] {
			return
		}
		m := out[account]
		if m == nil {
			m = map[string]*big.Int{}
			out[account] = m
		}
		if m[asset] == nil {
			m[asset] = new(big.Int)
		}
		m[asset].Add(m[asset], v)
	}
	for _, l := range legs {
		v, err := parseBig(l.amount, "amount")
		if err != nil {
			return nil, err
		}
		add(l.credit, l.asset, v)
		add(l.debit, l.asset, new(big.Int).Neg(v))
	}
	return out, nil
}

// OpenLedgerAccount implements rampway.LedgerStore.
func (s *Store) OpenLedgerAccount(ctx context.Context, network, account string, block uint64, opening map[string]*big.Int, at time.Time) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		var opened bool
		err := tx.QueryRowContext(ctx, s.q(`SELECT opened FROM ledger_accounts WHERE account = $1`+s.d.ForUpdate), account).Scan(&opened)
		if err != nil {
			return notFound(err, "ledger account")
		}
		if opened {
			return nil
		}
		var ts []rampway.LedgerTransfer
		for _, asset := range slices.Sorted(maps.Keys(opening)) {
			v := opening[asset]
			t := rampway.LedgerTransfer{ID: "opening:" + account + ":" + asset, Network: network, Asset: asset, Debit: rampway.ExternalAccount(network),
				Credit: account, Amount: new(big.Int).Abs(v), Block: block, Kind: "opening", Ref: account, CreatedAt: at}
			if v.Sign() < 0 {
				t.Debit, t.Credit = t.Credit, t.Debit
			}
			ts = append(ts, t)
		}
		if err := s.addLedgerTransfers(ctx, tx, ts...); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.q(`UPDATE ledger_accounts SET opened = $1, opened_block = $2 WHERE account = $3`), true, int64(block), account); err != nil {
			return fmt.Errorf("open ledger account: %w", err)
		}
		return nil
	})
}

// RecordReconciliation implements rampway.LedgerStore.
func (s *Store) RecordReconciliation(ctx context.Context, r *rampway.Reconciliation) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		for _, c := range r.Checked {
			var err error
			if c.Diff().Sign() == 0 {
				_, err = tx.ExecContext(ctx, s.q(`DELETE FROM ledger_drifts WHERE account = $1 AND asset = $2`), c.Account, c.Asset)
			} else {
				_, err = tx.ExecContext(ctx, s.q(`INSERT INTO ledger_drifts (account, asset, network, address, block_number, ledger, chain, first_seen, last_seen)
					VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) ON CONFLICT (account, asset) DO UPDATE SET block_number = excluded.block_number,
					ledger = excluded.ledger, chain = excluded.chain, last_seen = excluded.last_seen`),
					c.Account, c.Asset, c.Network, c.Address.Hex(), int64(c.Block), c.Ledger.String(), c.Chain.String(), s.t(r.At))
			}
			if err != nil {
				return fmt.Errorf("record reconciliation: %w", err)
			}
		}
		for account, assets := range r.Moves {
			for asset, moves := range assets {
				if _, err := tx.ExecContext(ctx, s.q(`UPDATE ledger_balances SET checked_moves = $1 WHERE account = $2 AND asset = $3`), moves, account, asset); err != nil {
					return fmt.Errorf("record reconciliation: %w", err)
				}
			}
		}
		_, err := tx.ExecContext(ctx, s.q(`INSERT INTO ledger_reconciled (network, block_number, checked_at) VALUES ($1, $2, $3)
			ON CONFLICT (network) DO UPDATE SET block_number = excluded.block_number, checked_at = excluded.checked_at`), r.Network, int64(r.Block), s.t(r.At))
		if err != nil {
			return fmt.Errorf("record reconciliation: %w", err)
		}
		return nil
	})
}

// AcceptLedgerDrift implements rampway.LedgerStore.
func (s *Store) AcceptLedgerDrift(ctx context.Context, account, asset, note string, at time.Time) (*rampway.LedgerTransfer, error) {
	if strings.TrimSpace(note) == "" {
		return nil, rampway.FieldErrorf("note", "note is required: what was found (a hot wallet funded by hand, say)")
	}
	var out *rampway.LedgerTransfer
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var (
			network, led, chn string
			blk               int64
		)
		err := tx.QueryRowContext(ctx, s.q(`SELECT network, block_number, ledger, chain FROM ledger_drifts WHERE account = $1 AND asset = $2`+s.d.ForUpdate),
			account, asset).Scan(&network, &blk, &led, &chn)
		if errors.Is(err, sql.ErrNoRows) {
			return rampway.Errorf(rampway.ENOTFOUND, "no drift of %s on %s", asset, account)
		}
		if err != nil {
			return fmt.Errorf("accept ledger drift: %w", err)
		}
		l, err := parseBig(led, "ledger")
		if err != nil {
			return err
		}
		c, err := parseBig(chn, "chain")
		if err != nil {
			return err
		}
		d := new(big.Int).Sub(c, l)
		t := rampway.LedgerTransfer{ID: fmt.Sprintf("adjust:%s:%s:%d:%d", account, asset, blk, at.UnixMicro()), Network: network, Asset: asset,
			Debit: rampway.ExternalAccount(network), Credit: account, Amount: new(big.Int).Abs(d), Block: uint64(blk), Kind: "adjustment", Ref: account,
			Note: note, CreatedAt: at}
		if provider, currency, payment, ok := rampway.SplitProviderPaymentAccount(account); ok && network == rampway.LedgerFiat {
			// A payment's difference with its provider's records: between the provider's
			// customers and its balance, as the payment's own transfer (its net moves by it).
			t.Network, t.Debit, t.Credit, t.Ref = "", rampway.CustomersAccount(provider, currency), rampway.ProviderAccount(provider, currency), payment
			if err := s.ensureLedgerAccount(ctx, tx, "", t.Credit, common.Address{}, true); err != nil {
				return err
			}
		}
		if d.Sign() < 0 {
			t.Debit, t.Credit = t.Credit, t.Debit
		}
		if err := s.addLedgerTransfers(ctx, tx, t); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM ledger_drifts WHERE account = $1 AND asset = $2`), account, asset); err != nil {
			return fmt.Errorf("accept ledger drift: %w", err)
		}
		out = &t
		return nil
	})
	return out, err
}

// LedgerDrifts implements rampway.LedgerStore.
func (s *Store) LedgerDrifts(ctx context.Context, network string) ([]rampway.LedgerDrift, error) {
	return collect(ctx, s.db, "ledger drifts", s.q(`SELECT account, asset, network, address, block_number, ledger, chain, first_seen, last_seen
		FROM ledger_drifts WHERE network = $1 OR $1 = '' ORDER BY network, account, asset`), func(r interface{ Scan(...any) error }) (rampway.LedgerDrift, error) {
		var (
			d               rampway.LedgerDrift
			addr, led, chn  string
			blk             int64
			first, lastSeen dbTime
		)
		if err := r.Scan(&d.Account, &d.Asset, &d.Network, &addr, &blk, &led, &chn, &first, &lastSeen); err != nil {
			return d, err
		}
		d.Address, d.Block, d.FirstSeen, d.LastSeen = common.HexToAddress(addr), uint64(blk), first.T, lastSeen.T
		var err error
		if d.Ledger, err = parseBig(led, "ledger"); err != nil {
			return d, err
		}
		d.Chain, err = parseBig(chn, "chain")
		return d, err
	}, network)
}

const ledgerTransferColumns = `id, network, asset, debit, credit, amount, block_number, kind, ref, note, created_at`

func scanLedgerTransfer(r interface{ Scan(...any) error }) (rampway.LedgerTransfer, error) {
	var (
		t      rampway.LedgerTransfer
		amount string
		blk    int64
		at     dbTime
	)
	if err := r.Scan(&t.ID, &t.Network, &t.Asset, &t.Debit, &t.Credit, &amount, &blk, &t.Kind, &t.Ref, &t.Note, &at); err != nil {
		return t, err
	}
	t.Block, t.CreatedAt = uint64(blk), at.T
	var err error
	t.Amount, err = parseBig(amount, "amount")
	return t, err
}

// LedgerTransfers implements rampway.LedgerStore.
func (s *Store) LedgerTransfers(ctx context.Context, ref string) ([]rampway.LedgerTransfer, error) {
	if kind, _, ok := strings.Cut(ref, "/"); ok && kind != "" {
		return collect(ctx, s.db, "ledger transfers", s.q(`SELECT `+ledgerTransferColumns+` FROM ledger_transfers WHERE debit = $1
			UNION ALL SELECT `+ledgerTransferColumns+` FROM ledger_transfers WHERE credit = $1 ORDER BY created_at, id`), scanLedgerTransfer, ref)
	}
	return collect(ctx, s.db, "ledger transfers", s.q(`SELECT `+ledgerTransferColumns+` FROM ledger_transfers WHERE ref = $1 ORDER BY created_at, id`),
		scanLedgerTransfer, ref)
}

// LedgerReport implements rampway.LedgerStore: the transfers recorded since from, read once,
// give each day's flows and, walked back from the balances now, what was held at its end.
func (s *Store) LedgerReport(ctx context.Context, from, to time.Time) ([]rampway.LedgerDay, error) {
	from, to = from.UTC().Truncate(24*time.Hour), to.UTC()
	held, err := collect(ctx, s.db, "ledger held", s.q(`SELECT asset, balance FROM ledger_held`), func(r interface{ Scan(...any) error }) ([2]string, error) {
		var x [2]string
		err := r.Scan(&x[0], &x[1])
		return x, err
	})
	if err != nil {
		return nil, err
	}
	holding := map[string]*big.Int{} // by asset: what the held accounts hold now
	for _, x := range held {
		v, err := parseBig(x[1], "balance")
		if err != nil {
			return nil, err
		}
		holding[x[0]] = v
	}
	ts, err := collect(ctx, s.db, "ledger report", s.q(`SELECT `+ledgerTransferColumns+` FROM ledger_transfers WHERE created_at >= $1 ORDER BY created_at DESC, id DESC`),
		scanLedgerTransfer, s.t(from))
	if err != nil {
		return nil, err
	}
	type key struct{ day, asset string }
	days := map[key]*rampway.LedgerDay{}
	line := func(day, asset string) *rampway.LedgerDay {
		k := key{day, asset}
		if days[k] == nil {
			days[k] = &rampway.LedgerDay{Day: day, Asset: asset, In: new(big.Int), Out: new(big.Int), Fees: new(big.Int)}
		}
		return days[k]
	}
	// Walking back in time: a day's held is what is held after its last transfer.
	assets := map[string]bool{}
	for a := range holding {
		assets[a] = true
	}
	for _, t := range ts {
		assets[t.Asset] = true
	}
	for d := from; d.Before(to); d = d.Add(24 * time.Hour) {
		for a := range assets {
			line(d.Format(time.DateOnly), a)
		}
	}
	end := map[string]*big.Int{}
	for a, v := range holding {
		end[a] = new(big.Int).Set(v)
	}
	i := 0
	for d := to.Truncate(24 * time.Hour); !d.Before(from); d = d.Add(-24 * time.Hour) {
		dayEnd := d.Add(24 * time.Hour)
		// Undo the transfers after this day's end.
		for ; i < len(ts) && !ts[i].CreatedAt.Before(dayEnd); i++ {
			undoHeld(end, ts[i])
		}
		if d.Before(to) {
			for a := range assets {
				v := end[a]
				if v == nil {
					v = new(big.Int)
				}
				line(d.Format(time.DateOnly), a).Held = new(big.Int).Set(v)
			}
		}
	}
	for _, t := range ts {
		if t.CreatedAt.Before(from) || !t.CreatedAt.Before(to) {
			continue
		}
		l := line(t.CreatedAt.UTC().Format(time.DateOnly), t.Asset)
		dh, ch := rampway.AccountKind(t.Debit).Held(), rampway.AccountKind(t.Credit).Held()
		switch {
		case rampway.AccountKind(t.Credit) == rampway.AccountFees:
			l.Fees.Add(l.Fees, t.Amount)
		case ch && !dh:
			l.In.Add(l.In, t.Amount)
		case dh && !ch:
			l.Out.Add(l.Out, t.Amount)
		}
	}
	out := make([]rampway.LedgerDay, 0, len(days))
	for _, l := range days {
		if l.Held == nil {
			l.Held = new(big.Int)
		}
		if l.In.Sign() == 0 && l.Out.Sign() == 0 && l.Fees.Sign() == 0 && l.Held.Sign() == 0 {
			continue
		}
		out = append(out, *l)
	}
	slices.SortFunc(out, func(a, b rampway.LedgerDay) int { return strings.Compare(a.Day+" "+a.Asset, b.Day+" "+b.Asset) })
	return out, nil
}

// undoHeld takes a transfer's effect on the held accounts back out of held.
func undoHeld(held map[string]*big.Int, t rampway.LedgerTransfer) {
	if held[t.Asset] == nil {
		held[t.Asset] = new(big.Int)
	}
	held[t.Asset].Sub(held[t.Asset], heldDelta(t))
}

// Reconciled implements rampway.LedgerStore.
func (s *Store) Reconciled(ctx context.Context, network string) (uint64, time.Time, bool, error) {
	var (
		blk int64
		at  dbTime
	)
	err := s.db.QueryRowContext(ctx, s.q(`SELECT block_number, checked_at FROM ledger_reconciled WHERE network = $1`), network).Scan(&blk, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, time.Time{}, false, nil
	}
	if err != nil {
		return 0, time.Time{}, false, fmt.Errorf("reconciled: %w", err)
	}
	return uint64(blk), at.T, true, nil
}

// FiatLedgerPayments implements rampway.LedgerStore. Each part of the set is read by an index
// (the transfers by their creation time, the drifts by network, the payments by id, a
// payment's transfers by ref, its pending actions by the due index), in one snapshot.
func (s *Store) FiatLedgerPayments(ctx context.Context, since time.Time, sweepAfter string, sweep int) (out []rampway.FiatLedgerPayment, next string, err error) {
	err = s.snapshot(ctx, func(tx *sql.Tx) error {
		moved, err := collect(ctx, tx, "fiat ledger: moved", s.q(`SELECT ref FROM ledger_transfers
			WHERE created_at >= $1 AND asset LIKE 'fiat/%'`), scanValue[string], s.t(since))
		if err != nil {
			return err
		}
		drifted, err := collect(ctx, tx, "fiat ledger: drifts", s.q(`SELECT account FROM ledger_drifts WHERE network = $1 ORDER BY account`),
			scanValue[string], rampway.LedgerFiat)
		if err != nil {
			return err
		}
		swept, err := collect(ctx, tx, "fiat ledger: sweep", s.q(`SELECT id FROM fiat_payments WHERE id > $1 AND provider_ref != '' ORDER BY id LIMIT $2`),
			scanValue[string], sweepAfter, max(sweep, 1))
		if err != nil {
			return err
		}
		if len(swept) >= sweep && len(swept) > 0 {
			next = swept[len(swept)-1]
		}
		ids := append(moved, swept...)
		for _, account := range drifted {
			if _, _, id, ok := rampway.SplitProviderPaymentAccount(account); ok {
				ids = append(ids, id)
			}
		}
		slices.Sort(ids)
		for _, id := range slices.Compact(ids) {
			p, err := s.fiatLedgerPayment(ctx, tx, id)
			if err != nil {
				return err
			}
			if p != nil {
				out = append(out, *p)
			}
		}
		return nil
	})
	return out, next, err
}

// fiatLedgerPayment reads one payment and its ledger net; nil for an id that is not a payment
// with a provider reference (a ref of another kind).
func (s *Store) fiatLedgerPayment(ctx context.Context, tx *sql.Tx, id string) (*rampway.FiatLedgerPayment, error) {
	p := rampway.FiatLedgerPayment{PaymentID: id, Ledger: new(big.Int)}
	err := tx.QueryRowContext(ctx, s.q(`SELECT order_id, provider, provider_ref, currency FROM fiat_payments WHERE id = $1`), id).
		Scan(&p.OrderID, &p.Provider, &p.ProviderRef, &p.Currency)
	if errors.Is(err, sql.ErrNoRows) || err == nil && p.ProviderRef == "" {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("fiat ledger: payment %s: %w", id, err)
	}
	held := rampway.ProviderAccount(p.Provider, p.Currency)
	type move struct {
		debit, credit, amount string
	}
	moves, err := collect(ctx, tx, "fiat ledger: transfers", s.q(`SELECT debit, credit, amount FROM ledger_transfers WHERE ref = $1 AND asset = $2`),
		func(r interface{ Scan(...any) error }) (move, error) {
			var m move
			return m, r.Scan(&m.debit, &m.credit, &m.amount)
		}, id, rampway.FiatAsset(p.Currency))
	if err != nil {
		return nil, err
	}
	for _, m := range moves {
		v, err := parseBig(m.amount, "amount")
		if err != nil {
			return nil, err
		}
		if m.credit == held {
			p.Ledger.Add(p.Ledger, v)
		}
		if m.debit == held {
			p.Ledger.Sub(p.Ledger, v)
		}
	}
	var busy int
	err = tx.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM fiat_actions WHERE status = 'pending' AND payment_id = $1`), id).Scan(&busy)
	if err != nil {
		return nil, fmt.Errorf("fiat ledger: actions of %s: %w", id, err)
	}
	p.Busy = busy > 0
	return &p, nil
}
