package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// A table the fill writes, with the columns it gives (the others take their defaults). Values
// are given as int64, string, []byte, bool, time.Time or nil; each writer converts them to what
// its database stores (SQLite: times as microseconds, booleans as 0 and 1, as the store does).
type table struct {
	name string
	cols []string
	// seqCols are the columns holding an order event's sequence number relative to its chunk
	// (patched by the writer, which knows where the chunk's events start).
	seqCols []int
}

func newTable(name, cols string, seqCols ...string) *table {
	t := &table{name: name}
	for c := range strings.SplitSeq(cols, ",") {
		t.cols = append(t.cols, strings.TrimSpace(c))
	}
	for _, s := range seqCols {
		for i, c := range t.cols {
			if c == s {
				t.seqCols = append(t.seqCols, i)
			}
		}
	}
	return t
}

// The tables, in the order a chunk is written (parents before the rows that refer to them).
var (
	tOrders = newTable("orders", `id, merchant_id, area, status, merchant_user_id, merchant_txn_id, merchant_redirect_url,
		merchant_webhook_url, user_info, network, asset_symbol, asset_contract, asset_decimals, crypto_amount, crypto_received,
		function_id, function_args, payment_value, gas_limit, network_fee, service_fee, deposit_address, deposit_index,
		execution_tx_hash, failure_reason, expires_at, created_at, updated_at, fiat_symbol, fiat_method, fiat_amount, fiat_decimals,
		fiat_payment_id, payout_address, method_quotes, livemode`)
	tEvents     = newTable("order_events", `seq, id, order_id, merchant_id, name, from_status, to_status, created_at`, "seq")
	tDeliveries = newTable("webhook_deliveries", `event_id, event_seq, event_name, order_id, merchant_id, url, body, status, attempts,
		next_attempt_at, last_status_code, last_error, created_at, updated_at, delivered_at, held_at, livemode`, "event_seq")
	tAttempts  = newTable("webhook_attempts", `event_id, attempt, started_at, status_code, latency_us, error`)
	tSweeps    = newTable("sweeps", `id, network, address, deposit_index, token, amount, status, created_at, updated_at`)
	tTransfers = newTable("inbound_transfers", `network, tx_hash, log_index, order_id, token, from_address, to_address, amount,
		block_number, block_hash, status, created_at, updated_at, sweep_id`)
	tExecutions = newTable("executions", `order_id, network, wallet, nonce, tx_hash, status, created_at, updated_at`)
	tChainTxs   = newTable("chain_txs", `hash, network, wallet, nonce, kind, ref, raw, sent_block, status, created_at, updated_at`)
	tRefunds    = newTable("refunds", `id, order_id, cause, network, token, to_address, to_source, amount, fee, sent, reason, status,
		status_reason, tx_hash, approved_by, approved_at, created_at, updated_at`)
	tFiatPayments = newTable("fiat_payments", `id, order_id, provider, provider_ref, method, currency, amount, received, decimals,
		status, reference, card_brand, card_last4, next_action, failure_reason, created_at, updated_at`)
	tProviderEvents = newTable("provider_events", `provider, event_id, type, payment_ref, received_at`)
	tFiatActions    = newTable("fiat_actions", `id, order_id, payment_id, kind, amount, currency, cause, reason, status, provider_ref,
		attempts, last_error, next_attempt_at, created_at, updated_at, resolved_note`)
	tSandboxPayments = newTable("sandbox_payments", `id, idem_key, order_id, method, currency, decimals, amount, received, captured,
		refunded, status, reference, card_brand, card_last4, failure_reason, return_url, created_at, updated_at, provider`)
	tSandboxCalls  = newTable("sandbox_calls", `idem_key, payment_id, kind, result, created_at`)
	tSandboxEvents = newTable("sandbox_events", `id, body, attempts, next_attempt_at, delivered_at, created_at, provider`)

	fillTables = []*table{tOrders, tEvents, tDeliveries, tAttempts, tSweeps, tTransfers, tExecutions, tChainTxs, tRefunds,
		tFiatPayments, tProviderEvents, tFiatActions, tSandboxPayments, tSandboxCalls, tSandboxEvents}
)

// chunk is the rows of a run of consecutive orders, by table, with the number of order events
// among them (their seq values are 1 to events, relative to the chunk).
type chunk struct {
	index  int
	rows   map[*table][][]any
	events int64
	// nextHot is the hot wallet's next nonce after the chunk's transactions.
	nextHot uint64
	counts  map[string]int // orders by status
	err     error
}

func newChunk(index int) *chunk {
	return &chunk{index: index, rows: make(map[*table][][]any, len(fillTables)), counts: map[string]int{}}
}

func (c *chunk) add(t *table, row ...any) {
	if len(row) != len(t.cols) {
		panic(fmt.Sprintf("fill: %d values for the %d columns of %s", len(row), len(t.cols), t.name))
	}
	c.rows[t] = append(c.rows[t], row)
}

// rowsWriter writes chunks into a database: each in one transaction (or a few chunks per
// transaction), tables in fillTables order.
type rowsWriter interface {
	write(ctx context.Context, c *chunk, seqBase int64) error
	close() error
}

// patchSeq makes the chunk-relative event sequence numbers of row absolute.
func patchSeq(t *table, row []any, base int64) {
	for _, i := range t.seqCols {
		row[i] = row[i].(int64) + base
	}
}

// sqliteWriter writes with multi-row INSERTs prepared once per table, on one connection, in
// one transaction per chunk (the fill is the database's only writer: synchronous=OFF while
// it runs). The transaction is the connection's own BEGIN and COMMIT: database/sql's Tx would
// prepare each statement again.
type sqliteWriter struct {
	conn  *sql.Conn
	stmts map[*table]*sql.Stmt // for sqliteRows(t) rows
}

// sqliteRows is how many rows one INSERT of t takes (SQLite allows 32,766 variables).
func sqliteRows(t *table) int { return min(256, 30000/len(t.cols)) }

func insertSQL(t *table, n int) string {
	var b strings.Builder
	b.WriteString("INSERT INTO " + t.name + " (" + strings.Join(t.cols, ", ") + ") VALUES ")
	row := "(" + strings.Repeat("?, ", len(t.cols)-1) + "?)"
	for r := range n {
		if r > 0 {
			b.WriteString(", ")
		}
		b.WriteString(row)
	}
	return b.String()
}

func newSQLiteWriter(ctx context.Context, db *sql.DB) (*sqliteWriter, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	for _, p := range []string{"PRAGMA synchronous=OFF", "PRAGMA cache_size=-524288", "PRAGMA temp_store=MEMORY", "PRAGMA wal_autocheckpoint=0"} {
		if _, err := conn.ExecContext(ctx, p); err != nil {
			conn.Close()
			return nil, fmt.Errorf("%s: %w", p, err)
		}
	}
	return &sqliteWriter{conn: conn, stmts: map[*table]*sql.Stmt{}}, nil
}

func sqliteValue(v any) any {
	switch x := v.(type) {
	case time.Time:
		return x.UnixMicro()
	case bool:
		if x {
			return int64(1)
		}
		return int64(0)
	}
	return v
}

func (w *sqliteWriter) write(ctx context.Context, c *chunk, seqBase int64) error {
	if _, err := w.conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return err
	}
	if err := w.insert(ctx, c, seqBase); err != nil {
		_, _ = w.conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		return err
	}
	if _, err := w.conn.ExecContext(ctx, "COMMIT"); err != nil {
		return err
	}
	// The WAL is copied back after each chunk (the store's connections do not checkpoint).
	_, err := w.conn.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
	return err
}

func (w *sqliteWriter) insert(ctx context.Context, c *chunk, seqBase int64) error {
	for _, t := range fillTables {
		rows := c.rows[t]
		per := sqliteRows(t)
		args := make([]any, 0, per*len(t.cols))
		for len(rows) > 0 {
			n := min(per, len(rows))
			args = args[:0]
			for _, r := range rows[:n] {
				patchSeq(t, r, seqBase)
				for _, v := range r {
					args = append(args, sqliteValue(v))
				}
			}
			var err error
			if n == per {
				st := w.stmts[t]
				if st == nil {
					if st, err = w.conn.PrepareContext(ctx, insertSQL(t, per)); err != nil {
						return fmt.Errorf("prepare %s: %w", t.name, err)
					}
					w.stmts[t] = st
				}
				_, err = st.ExecContext(ctx, args...)
			} else {
				_, err = w.conn.ExecContext(ctx, insertSQL(t, n), args...)
			}
			if err != nil {
				return fmt.Errorf("insert %d rows into %s: %w", n, t.name, err)
			}
			rows = rows[n:]
		}
	}
	return nil
}

func (w *sqliteWriter) close() error {
	for _, st := range w.stmts {
		st.Close()
	}
	_, _ = w.conn.ExecContext(context.Background(), "PRAGMA synchronous=NORMAL")
	return w.conn.Close()
}

// droppedIndexes are the secondary indexes of the fill's tables, dropped while the rows go in
// (made once at the end, an index costs a fraction of what keeping it up row by row does).
// Their definitions wait in a table of their own until they are made again, so that a fill
// killed half way has them made by the next one.
type droppedIndexes struct {
	db      *sql.DB
	dialect string
	defs    map[string]string
}

const fillIndexTable = "rampway_bench_fill_indexes"

func dropIndexes(ctx context.Context, db *sql.DB, dialect string) (*droppedIndexes, error) {
	d := &droppedIndexes{db: db, dialect: dialect, defs: map[string]string{}}
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS `+fillIndexTable+` (name TEXT PRIMARY KEY, def TEXT NOT NULL)`); err != nil {
		return nil, err
	}
	// Those an earlier fill did not make again first.
	if err := d.load(ctx, `SELECT name, def FROM `+fillIndexTable); err != nil {
		return nil, err
	}
	if err := d.restore(ctx, 2); err != nil {
		return nil, err
	}
	var names []string
	for _, t := range fillTables {
		names = append(names, "'"+t.name+"'")
	}
	list := strings.Join(names, ", ")
	q := `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN (` + list + `)`
	if dialect == "postgres" {
		// Not those of a constraint (primary keys, UNIQUE): the rows' checks stay.
		q = `SELECT i.relname, pg_get_indexdef(i.oid) FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
			JOIN pg_namespace n ON n.oid = t.relnamespace WHERE n.nspname = current_schema() AND t.relname IN (` + list + `)
			AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid)`
	}
	if err := d.load(ctx, q); err != nil {
		return nil, err
	}
	for name, def := range d.defs {
		ph := "?, ?"
		if dialect == "postgres" {
			ph = "$1, $2"
		}
		if _, err := db.ExecContext(ctx, `INSERT INTO `+fillIndexTable+` (name, def) VALUES (`+ph+`)`, name, def); err != nil {
			return nil, err
		}
		if _, err := db.ExecContext(ctx, "DROP INDEX "+name); err != nil {
			return nil, fmt.Errorf("drop index %s: %w", name, err)
		}
	}
	return d, nil
}

// restoreLeftIndexes makes the indexes an earlier fill killed half way left dropped.
func restoreLeftIndexes(ctx context.Context, db *sql.DB, dialect string) error {
	d := &droppedIndexes{db: db, dialect: dialect, defs: map[string]string{}}
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS `+fillIndexTable+` (name TEXT PRIMARY KEY, def TEXT NOT NULL)`); err != nil {
		return err
	}
	if err := d.load(ctx, `SELECT name, def FROM `+fillIndexTable); err != nil {
		return err
	}
	return d.restore(ctx, 2)
}

func (d *droppedIndexes) load(ctx context.Context, q string) error {
	rows, err := d.db.QueryContext(ctx, q)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var name, def string
		if err := rows.Scan(&name, &def); err != nil {
			return err
		}
		d.defs[name] = def
	}
	return rows.Err()
}

// restore makes the dropped indexes again, on workers connections at once (PostgreSQL: each
// index build may use parallel workers of its own too).
func (d *droppedIndexes) restore(ctx context.Context, workers int) error {
	if d == nil || len(d.defs) == 0 {
		return nil
	}
	ctx = context.WithoutCancel(ctx)
	if d.dialect != "postgres" {
		workers = 1
	}
	names := make(chan string, len(d.defs))
	for name := range d.defs {
		names <- name
	}
	close(names)
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
	)
	fail := func(err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
	}
	for range max(1, workers) {
		wg.Go(func() {
			conn, err := d.db.Conn(ctx)
			if err != nil {
				fail(err)
				return
			}
			defer conn.Close()
			if d.dialect == "postgres" {
				_, _ = conn.ExecContext(ctx, "SET maintenance_work_mem = '512MB'")
			}
			for name := range names {
				if _, err := conn.ExecContext(ctx, d.defs[name]); err != nil {
					fail(fmt.Errorf("make index %s again: %w", name, err))
					continue
				}
				if _, err := conn.ExecContext(ctx, `DELETE FROM `+fillIndexTable+` WHERE name = '`+name+`'`); err != nil {
					fail(err)
				}
			}
		})
	}
	wg.Wait()
	if len(errs) == 0 {
		d.defs = map[string]string{}
	}
	return errors.Join(errs...)
}

// pgWriter writes with COPY (pgx's CopyFrom, the binary protocol) on one connection, one
// transaction per chunk.
type pgWriter struct {
	conn *sql.Conn
}

func newPGWriter(ctx context.Context, db *sql.DB) (*pgWriter, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	// The fill is the database's only writer: a commit need not wait for the disk.
	if _, err := conn.ExecContext(ctx, "SET synchronous_commit = off"); err != nil {
		conn.Close()
		return nil, err
	}
	// The rows refer to rows of their own chunk, written in the same transaction, parents
	// first: their foreign keys are not checked row by row (a superuser's setting; without
	// it, they are).
	_, _ = conn.ExecContext(ctx, "SET session_replication_role = replica")
	return &pgWriter{conn: conn}, nil
}

func (w *pgWriter) write(ctx context.Context, c *chunk, seqBase int64) error {
	return w.conn.Raw(func(dc any) error {
		pc := dc.(*stdlib.Conn).Conn()
		tx, err := pc.Begin(ctx)
		if err != nil {
			return err
		}
		defer func() { _ = tx.Rollback(ctx) }()
		for _, t := range fillTables {
			rows := c.rows[t]
			if len(rows) == 0 {
				continue
			}
			for _, r := range rows {
				patchSeq(t, r, seqBase)
			}
			if _, err := tx.CopyFrom(ctx, pgx.Identifier{t.name}, t.cols, pgx.CopyFromRows(rows)); err != nil {
				return fmt.Errorf("copy %d rows into %s: %w", len(rows), t.name, err)
			}
		}
		return tx.Commit(ctx)
	})
}

func (w *pgWriter) close() error {
	_, _ = w.conn.ExecContext(context.Background(), "SET session_replication_role = DEFAULT")
	return w.conn.Close()
}
