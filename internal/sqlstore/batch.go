package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"runtime"
)

// maxBatch bounds the writes one shared transaction takes.
const maxBatch = 64

// errClosed answers a write submitted after Close.
var errClosed = errors.New("store closed")

// writeJob is one write waiting for a shared transaction or statement: fn, or a new order.
type writeJob struct {
	ctx   context.Context
	fn    func(tx *sql.Tx) error
	order *newOrder
	done  chan error
}

// batched runs fn in a transaction it may share with other writes (group commit), when the
// dialect has one writer (SQLite): writes that arrive while a transaction runs wait for it and
// then go together in the next one, so that they share its begin, its commit and the pages it
// writes. A write alone goes at once, waiting for nobody. Each write succeeds or fails on its
// own: when one fails, the others are run again, each in its own transaction. fn may therefore
// run more than once, each time in a transaction that is rolled back but the last, and must
// use only tx (another write of the store from inside it would wait for this very batch).
// Other dialects run fn in its own transaction (their writers do not wait on each other).
func (s *Store) batched(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if !s.d.OneWriter {
		return s.tx(ctx, fn)
	}
	return s.submit(&writeJob{ctx: ctx, fn: fn})
}

// batchedOrder writes a new order with the others submitted meanwhile: on a one-writer
// dialect in the group commit's next transaction, elsewhere in one statement shared with
// them (createOrdersStatement, submitOrder). An order alone goes at
// once; under load the orders that arrive while the writers are busy go together, so that
// the database parses, plans, commits and flushes once for all of them. Each order succeeds
// or fails on its own, as with batched.
func (s *Store) batchedOrder(ctx context.Context, o *newOrder) error {
	return s.submit(&writeJob{ctx: ctx, order: o})
}

// submit hands j to the batch loop (or, without OneWriter, to submitOrder) and waits for its
// outcome.
func (s *Store) submit(j *writeJob) error {
	if !s.d.OneWriter {
		return s.submitOrder(j)
	}
	s.startBatches.Do(func() { go s.batchLoop() })
	j.done = make(chan error, 1)
	s.yield(j.ctx)
	s.waiting.Add(1) // until the batch loop takes it
	select {
	case s.jobs <- j:
	case <-s.quit:
		s.waiting.Add(-1)
		return errClosed
	case <-j.ctx.Done():
		s.waiting.Add(-1)
		return j.ctx.Err()
	}
	return <-j.done // the job runs to its end: its outcome is known before the caller returns
}

// batchLoop runs the submitted writes until the store is closed (one-writer dialects).
func (s *Store) batchLoop() {
	for {
		var batch []*writeJob
		select {
		case j := <-s.jobs:
			batch = append(batch, j)
		case <-s.quit:
			return
		}
		// Let the writes that are ready to be submitted (their goroutines runnable, often
		// just woken by the last batch's end) reach the channel before the batch is closed:
		// batches twice as large under load (10.8 writes against 5.8 in BenchmarkCreateOrders),
		// and nothing to wait for when the process is idle.
		runtime.Gosched()
	fill:
		for len(batch) < maxBatch {
			select {
			case j := <-s.jobs:
				batch = append(batch, j)
			default:
				break fill
			}
		}
		s.waiting.Add(-int32(len(batch)))
		s.runBatch(batch)
	}
}

// orderBatchFill is how many new orders must wait for a statement before a second one (up to
// Dialect.OrderWriters) is written beside the one under way. Fewer wait for it to end and go
// together in the next: larger statements, which cost the database less CPU an order. B1 on
// PostgreSQL (rampway-bench orders --api b1 --stub-node, 16 clients, 2026-11-25): two writers
// taking turns wrote 4.0 orders a statement, PostgreSQL at 0.51 cores, 7,100-8,000 orders/s;
// a second writer at 8 waiting, 4.9 orders a statement, 0.50 cores, 7,550-9,080/s; at 16
// waiting, 6.5, 0.41 cores, 8,900-8,950/s (the same orders for a fifth less of the
// database's CPU). A second writer on demand keeps a slow statement (a checkpoint's flush, a
// lock) from holding up a crowd of orders.
const orderBatchFill = 16

// submitOrder writes j, a new order, on a dialect with many writers: at once when no
// statement of orders is under way; otherwise with the orders that wait, in the statement
// that follows the one under way or, when orderBatchFill of them wait and fewer than
// Dialect.OrderWriters statements are under way, in one of its own at once.
func (s *Store) submitOrder(j *writeJob) error {
	select {
	case <-s.quit:
		return errClosed
	default:
	}
	if err := j.ctx.Err(); err != nil {
		return err
	}
	j.done = make(chan error, 1)
	s.orders.Add(j)
	select {
	case err := <-j.done:
		return err
	case <-j.ctx.Done():
		// A caller that gives up (its request ended, the database hangs) leaves at once if
		// its order still waits: it is then never written. Once in a statement it runs to its
		// end, and its outcome is known before the caller returns.
		if s.orders.Remove(j) {
			return j.ctx.Err()
		}
		return <-j.done
	}
}

// BatchStats says how many batches the store has written and how many writes (new orders
// among them) they held, since it was opened.
func (s *Store) BatchStats() (batches, writes int64) {
	return s.batches.Load(), s.batchedWrites.Load()
}

func (s *Store) runBatch(batch []*writeJob) {
	s.batches.Add(1)
	s.batchedWrites.Add(int64(len(batch)))
	live := batch[:0]
	for _, j := range batch {
		if err := j.ctx.Err(); err != nil {
			j.done <- err // its caller gave up before it ran
			continue
		}
		live = append(live, j)
	}
	if len(live) == 0 {
		return
	}
	var orders []*newOrder
	replies := false
	for _, j := range live {
		if j.order != nil {
			orders = append(orders, j.order)
			replies = replies || j.order.reply != nil
		}
	}
	var err error
	refused := false // the writes (not the commit) failed: nothing of them is stored
	// An order with an Idempotency-Key reply needs a transaction: its reply is stored only
	// under a claim still its own, and the order with it or not at all (createOrders).
	if s.d.OneWriter || !s.d.WritableCTE || replies {
		err = s.tx(context.Background(), func(tx *sql.Tx) error {
			for _, j := range live {
				if j.fn != nil {
					if err := j.fn(tx); err != nil {
						refused = true
						return err
					}
				}
			}
			if len(orders) > 0 {
				if err := s.createOrders(context.Background(), tx, orders); err != nil {
					refused = true
					return err
				}
			}
			return nil
		})
	} else {
		// Only orders come here (without OneWriter, batched gives the other writes their own
		// transactions): one statement.
		err = s.createOrdersStatement(context.Background(), orders)
		refused = err != nil && s.d.IsStatementError != nil && s.d.IsStatementError(err)
	}
	switch {
	case err == nil:
		for _, j := range live {
			j.done <- nil
		}
	case refused && len(live) > 1:
		// One write failed and took the others with it: each on its own now.
		for _, j := range live {
			j.done <- s.runAlone(j)
		}
	default:
		// The commit failed (none of them is stored), or the database could not be told or
		// could not answer (as for a write of its own, each caller learns it does not know).
		for _, j := range live {
			j.done <- err
		}
	}
}

// runAlone runs j without the others of its batch.
func (s *Store) runAlone(j *writeJob) error {
	switch {
	case j.order == nil:
		return s.tx(j.ctx, j.fn)
	case s.d.WritableCTE && !s.d.OneWriter && j.order.reply == nil:
		return s.createOrdersStatement(j.ctx, []*newOrder{j.order})
	default:
		return s.tx(j.ctx, func(tx *sql.Tx) error { return s.createOrders(j.ctx, tx, []*newOrder{j.order}) })
	}
}

// exec runs one write statement: on a one-writer dialect through the group commit (a
// statement straight on the pool would race the store's transactions for SQLite's write lock
// and sleep in its busy handler), elsewhere on the pool.
func (s *Store) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if !s.d.OneWriter {
		return s.db.ExecContext(ctx, query, args...)
	}
	var res sql.Result
	err := s.batched(ctx, func(tx *sql.Tx) error {
		var err error
		res, err = tx.ExecContext(ctx, query, args...)
		return err
	})
	return res, err
}
