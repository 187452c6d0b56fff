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

// writeJob is one write waiting for a shared transaction.
type writeJob struct {
	ctx  context.Context
	fn   func(tx *sql.Tx) error
	done chan error
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
	s.startBatches.Do(func() { go s.batchLoop() })
	j := &writeJob{ctx: ctx, fn: fn, done: make(chan error, 1)}
	select {
	case s.jobs <- j:
	case <-s.quit:
		return errClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	return <-j.done // the job runs to its end: its outcome is known before the caller returns
}

// batchLoop runs the submitted writes until the store is closed.
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
		s.runBatch(batch)
	}
}

func (s *Store) runBatch(batch []*writeJob) {
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
	var failed *writeJob
	err := s.tx(context.Background(), func(tx *sql.Tx) error {
		for _, j := range live {
			if err := j.fn(tx); err != nil {
				failed = j
				return err
			}
		}
		return nil
	})
	switch {
	case err == nil:
		for _, j := range live {
			j.done <- nil
		}
	case failed != nil && len(live) > 1:
		// One write failed and took the others' transaction with it: each on its own now.
		for _, j := range live {
			j.done <- s.tx(j.ctx, j.fn)
		}
	default:
		for _, j := range live { // the commit failed: none of them is stored
			j.done <- err
		}
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
