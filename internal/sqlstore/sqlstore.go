// Package sqlstore implements rampway's stores once, over database/sql, for the SQL databases
// rampway runs on. The sqlite and postgres packages open the database, apply their own
// migrations and hand sqlstore a Dialect for the few places where the two differ.
package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/internal/groupcommit"
	"github.com/rampway/rampway/internal/secretbox"
)

// Dialect is what differs between the SQL databases.
type Dialect struct {
	// Name is "sqlite" or "postgres".
	Name string
	// NumberedQuestion rewrites $1-style placeholders to ?1 (SQLite's numbered form).
	NumberedQuestion bool
	// TimesAsMicros stores times as integer microseconds since the epoch (SQLite has no time
	// type that sorts correctly as text); otherwise times are passed as time.Time.
	TimesAsMicros bool
	// IsUniqueViolation reports whether err is a unique-constraint violation.
	IsUniqueViolation func(error) bool
	// ForUpdate is appended to a SELECT that reads a row the transaction will change
	// (" FOR UPDATE" on PostgreSQL; SQLite's immediate transactions already lock).
	ForUpdate string
	// SkipLocked is appended to a SELECT that claims work rows other transactions may hold
	// (" FOR UPDATE SKIP LOCKED" on PostgreSQL, so instances claim different rows at once).
	SkipLocked string
	// OneWriter runs the store's transactions one at a time in this process (SQLite has one
	// writer: waiting on a Go mutex beats its busy handler's sleeps of 1, 2, 5, 10... ms).
	OneWriter bool
	// IndexedBy says the planner takes a named index (SQLite's INDEXED BY): where its planner,
	// without statistics, would walk another index and sort, a query names the one made for it
	// (indexed): the webhook claim's merchant-due index, the executor poll's paid orders, the
	// status index of the expiry, the watcher and the fiat worker's claim.
	IndexedBy bool
	// NextIndexSQL, when set, is the expression that hands out the next HD derivation index
	// instead of the counter row (PostgreSQL: a sequence, which no transaction waits on); n
	// indexes are reserved with SELECT <it> FROM generate_series(1, n).
	NextIndexSQL string
	// PeekIndexSQL is the next index NextIndexSQL will hand out, and AdvanceIndexSQL moves it
	// to that plus $1, returning the new next index (AdvanceDepositIndex).
	PeekIndexSQL, AdvanceIndexSQL string
	// WritableCTE says INSERTs may be written in a WITH (PostgreSQL): without OneWriter, new
	// orders, their events and their webhook deliveries go in one statement, one round trip.
	WritableCTE bool
	// OrderWriters is how many statements of new orders may be written at once when the
	// dialect has not OneWriter (which writes them in its one writer's transactions): the
	// first goes as soon as an order comes, the others only when orderBatchFill orders wait
	// (submitOrder).
	OrderWriters int
	// IsStatementError reports whether err is the database's refusal of a statement (so that
	// nothing of it was written), rather than a failure to reach the database or to hear its
	// answer: a refused statement of several orders is retried order by order. Nil: none is.
	IsStatementError func(error) bool
	// Maintain, when set, runs beside the store from New until Close (SQLite: the WAL
	// checkpoints); it returns when ctx ends. writerTurn runs fn while no transaction of the
	// store's runs (on a OneWriter dialect; elsewhere it just runs fn). It reports how each
	// round went: Ping fails with the last error until a round reports nil.
	Maintain func(ctx context.Context, db *sql.DB, writerTurn func(fn func() error) error, report func(error))
}

// Store implements rampway.Store.
type Store struct {
	db  *sql.DB
	d   Dialect
	box *secretbox.Box

	mu      sync.Mutex
	queries map[string]string // $n query -> dialect query
	writer  sync.Mutex        // held by each transaction when Dialect.OneWriter
	waiting atomic.Int32      // writes waiting for the writer or the batch loop (yield)
	// yieldFor is maxYield, and yielding is called when background work starts to yield
	// (both changed by tests only).
	yieldFor time.Duration
	yielding func()

	// Batched writes: group commit (one-writer dialects), new orders (all).
	startBatches  sync.Once
	jobs          chan *writeJob
	orders        groupcommit.Queue[*writeJob] // new orders waiting for a statement, without OneWriter (submitOrder)
	quit          chan struct{}
	closeOnce     sync.Once
	batches       atomic.Int64
	batchedWrites atomic.Int64

	// Listeners of the causes applied (Listen), and the outcomes of each transaction not yet
	// committed, told to them once it is.
	hooksMu    sync.RWMutex
	hooks      []*rampway.Hooks
	outcomesMu sync.Mutex
	outcomes   map[*sql.Tx][]*rampway.Outcome

	stopMaintain context.CancelFunc
	maintained   sync.WaitGroup
	maintainErr  atomic.Pointer[error] // the last round's error, nil when it went well
}

var (
	_ rampway.Store    = (*Store)(nil)
	_ rampway.Listener = (*Store)(nil)
)

// New returns a Store over db. box seals webhook secrets at rest; nil keeps them in clear.
func New(db *sql.DB, d Dialect, box *secretbox.Box) *Store {
	s := &Store{db: db, d: d, box: box, queries: make(map[string]string), jobs: make(chan *writeJob), quit: make(chan struct{})}
	s.orders = groupcommit.Queue[*writeJob]{Eager: 1, Fill: orderBatchFill, MaxInFlight: d.OrderWriters, MaxBatch: maxBatch, Run: s.runBatch}
	ctx, cancel := context.WithCancel(context.Background())
	s.stopMaintain = cancel
	if d.Maintain != nil {
		s.maintained.Go(func() {
			d.Maintain(ctx, db, s.writerTurn, func(err error) {
				if err == nil {
					s.maintainErr.Store(nil)
				} else {
					s.maintainErr.Store(&err)
				}
			})
		})
	}
	return s
}

// DB returns the underlying database handle.
func (s *Store) DB() *sql.DB { return s.db }

// Ping checks that the database answers and that its upkeep (Dialect.Maintain) last went
// well.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.db.PingContext(ctx); err != nil {
		return fmt.Errorf("ping %s: %w", s.d.Name, err)
	}
	if err := s.maintainErr.Load(); err != nil {
		return fmt.Errorf("%s upkeep: %w", s.d.Name, *err)
	}
	return nil
}

// Close closes the database.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		close(s.quit)
		s.stopMaintain()
		s.maintained.Wait()
	})
	return s.db.Close()
}

var placeholder = regexp.MustCompile(`\$(\d+)`)

// boundLimit is a LIMIT or OFFSET given by a parameter. SQLite reads a bound LIMIT's value
// when it plans the statement and marks the statement to be prepared again whenever that
// parameter is bound, whatever its value: each run of a cached statement with LIMIT ?2 was
// parsed and planned anew (60 µs more on a two-row table; the webhook claim's statement spent
// most of its time there). As an expression, (?2 + 0), it is only evaluated when run.
var boundLimit = regexp.MustCompile(`(?i)\b(LIMIT|OFFSET)\s+(\$\d+)`)

// onQuery, when set (RecordQueries), sees every statement text the store runs, as written.
var onQuery atomic.Pointer[func(query string)]

// RecordQueries has f see every statement text the stores run (before the dialect's rewrite)
// until the returned func is called: for the tests that read each statement's plan.
func RecordQueries(f func(query string)) (stop func()) {
	onQuery.Store(&f)
	return func() { onQuery.Store(nil) }
}

// indexed names the index a query of a table should walk, where the dialect takes one (SQLite's
// planner, without statistics, takes an equality on a column shared by many rows over a range
// of the index made for the query): " INDEXED BY name", or nothing.
func (s *Store) indexed(name string) string {
	if !s.d.IndexedBy {
		return ""
	}
	return " INDEXED BY " + name
}

// q returns query in the dialect's placeholder form (queries are written with $1, $2...).
func (s *Store) q(query string) string {
	if f := onQuery.Load(); f != nil {
		(*f)(query)
	}
	if !s.d.NumberedQuestion {
		return query
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.queries[query]; ok {
		return r
	}
	form := "?$1"
	if inOrder(query) {
		// Plain ?s when $1...$n each appear once, in order: the driver looks each numbered
		// parameter's name up in a list, a cost that grows with the square of their number
		// (a 28-column multi-row INSERT).
		form = "?"
	}
	r := placeholder.ReplaceAllString(boundLimit.ReplaceAllString(query, "$1 ($2 + 0)"), form)
	s.queries[query] = r
	return r
}

// inOrder reports whether query's placeholders are $1, $2, ... $n, each once and in order.
func inOrder(query string) bool {
	for i, m := range placeholder.FindAllStringSubmatch(query, -1) {
		if m[1] != strconv.Itoa(i+1) {
			return false
		}
	}
	return true
}

// querier is what *sql.DB and *sql.Tx have in common.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// scanValue scans a one-column row, for collect.
func scanValue[T any](row interface{ Scan(...any) error }) (T, error) {
	var v T
	return v, row.Scan(&v)
}

// collect runs a (dialect-ready) query on q and scans every row with scan; what names the
// query in errors. Every list the store returns is read through it.
func collect[T any](ctx context.Context, q querier, what, query string, scan func(interface{ Scan(...any) error }) (T, error), args ...any) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// writerTurn runs fn while no transaction of the store runs (one-writer dialects).
func (s *Store) writerTurn(fn func() error) error {
	if s.d.OneWriter {
		s.waiting.Add(1)
		s.writer.Lock()
		s.waiting.Add(-1)
		defer s.writer.Unlock()
	}
	return fn()
}

// maxYield bounds how long background work lets others' transactions go first: under
// writes that never stop it still takes a turn at least this often.
const maxYield = 50 * time.Millisecond

// yield waits, for background work (rampway.Background) on a one-writer dialect, until no
// other write is waiting for the writer (a transaction, or a write submitted to the batch
// loop), or maxYield has passed.
func (s *Store) yield(ctx context.Context) {
	if !s.d.OneWriter || !rampway.IsBackground(ctx) || s.waiting.Load() == 0 {
		return
	}
	if s.yielding != nil {
		s.yielding()
	}
	deadline := time.Now().Add(cmp.Or(s.yieldFor, maxYield))
	for s.waiting.Load() > 0 && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(time.Millisecond)
	}
}

// tx runs fn in a transaction, committing when fn returns nil. Background work first lets
// the transactions already waiting go (yield).
func (s *Store) tx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	s.yield(ctx)
	return s.writerTurn(func() error { return s.txNow(ctx, fn) })
}

func (s *Store) txNow(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		s.committed(tx, false)
		return err
	}
	if err := tx.Commit(); err != nil {
		s.committed(tx, false)
		return fmt.Errorf("commit: %w", err)
	}
	s.committed(tx, true)
	return nil
}

// t converts a time to the dialect's column value.
func (s *Store) t(t time.Time) any {
	if s.d.TimesAsMicros {
		return t.UnixMicro()
	}
	return t.UTC()
}

// tp converts an optional time.
func (s *Store) tp(t *time.Time) any {
	if t == nil {
		return nil
	}
	return s.t(*t)
}

// dbTime scans a time column stored either way (microseconds or a native time).
type dbTime struct {
	T     time.Time
	Valid bool
}

func (d *dbTime) Scan(v any) error {
	switch x := v.(type) {
	case nil:
		d.Valid = false
	case int64:
		d.T, d.Valid = time.UnixMicro(x).UTC(), true
	case time.Time:
		d.T, d.Valid = x.UTC(), true
	default:
		return fmt.Errorf("scan time from %T", v)
	}
	return nil
}

func (d dbTime) ptr() *time.Time {
	if !d.Valid {
		return nil
	}
	t := d.T
	return &t
}

// notFound maps sql.ErrNoRows to an ENOTFOUND error.
func notFound(err error, what string) error {
	if errors.Is(err, sql.ErrNoRows) {
		return rampway.Errorf(rampway.ENOTFOUND, "%s not found", what)
	}
	return err
}

// limit bounds a page size.
func limit(n int) int {
	if n <= 0 || n > 1000 {
		return 100
	}
	return n
}

// The store as a payment provider's books (provider.Books): a provider module that keeps its
// own tables in rampway's database (its migrations are rampway's) writes its queries with $1
// placeholders and times as the dialect stores them.

// WriteTx runs fn in a transaction, in the writer's turn on a one-writer dialect.
func (s *Store) WriteTx(ctx context.Context, fn func(tx *sql.Tx) error) error { return s.tx(ctx, fn) }

// Write runs one write statement (through the group commit on a one-writer dialect).
func (s *Store) Write(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return s.exec(ctx, query, args...)
}

// Q rewrites a query's placeholders for the dialect.
func (s *Store) Q(query string) string { return s.q(query) }

// Time is a time as the dialect stores it.
func (s *Store) Time(t time.Time) any { return s.t(t) }

// ScanTime scans a stored time into t.
func (s *Store) ScanTime(t *time.Time) sql.Scanner { return &timeInto{t: t} }

// IsUniqueViolation reports whether err is a unique constraint's refusal.
func (s *Store) IsUniqueViolation(err error) bool { return s.d.IsUniqueViolation(err) }

type timeInto struct{ t *time.Time }

func (x *timeInto) Scan(v any) error {
	var d dbTime
	if err := d.Scan(v); err != nil {
		return err
	}
	*x.t = d.T
	return nil
}
