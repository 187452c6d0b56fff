// Package groupcommit groups work that arrives at the same time into batches: group commit, as
// databases do it for transactions. rampway batches the order path's eth_calls into JSON-RPC
// batches (chain.CallBatcher) and new orders into shared statements (internal/sqlstore).
package groupcommit

import "sync"

// Queue hands items to Run in batches. An item goes at once, alone, while fewer than Eager
// batches are being run; otherwise it waits, and the items that waited go together as soon as
// a batch ends, or at once when Fill of them wait while fewer than MaxInFlight batches are
// being run. An idle queue makes nothing wait; a busy one runs fewer, larger batches.
//
// Run owns the outcome of each item (it answers the item's caller); it runs on a goroutine of
// the queue's and goes on with the items that waited meanwhile until none wait.
type Queue[T comparable] struct {
	Eager       int // batches started as soon as an item comes (at least 1)
	Fill        int // waiting items that start one more batch, up to MaxInFlight
	MaxInFlight int // batches run at once (at least Eager)
	MaxBatch    int // items in one batch
	Run         func(batch []T)

	mu       sync.Mutex
	waiting  []T
	inFlight int
}

// Add hands x to the queue: it is run in a batch soon, by Run.
func (q *Queue[T]) Add(x T) {
	maxInFlight := max(q.MaxInFlight, 1)
	var batch []T
	q.mu.Lock()
	switch {
	case q.inFlight < min(max(q.Eager, 1), maxInFlight):
		batch = []T{x}
	case len(q.waiting)+1 >= q.Fill && q.inFlight < maxInFlight:
		q.waiting = append(q.waiting, x)
		batch = q.take()
	default:
		q.waiting = append(q.waiting, x)
	}
	if batch != nil {
		q.inFlight++
	}
	q.mu.Unlock()
	if batch != nil {
		go q.run(batch)
	}
}

// run runs batch, then the items that waited meanwhile, until none wait.
func (q *Queue[T]) run(batch []T) {
	for {
		q.Run(batch)
		q.mu.Lock()
		if len(q.waiting) == 0 {
			q.inFlight--
			q.mu.Unlock()
			return
		}
		batch = q.take()
		q.mu.Unlock()
	}
}

// take removes and returns up to MaxBatch of the waiting items, the oldest first (q.mu held).
func (q *Queue[T]) take() []T {
	n := min(len(q.waiting), max(q.MaxBatch, 1))
	batch := q.waiting[:n:n]
	q.waiting = q.waiting[n:]
	if len(q.waiting) == 0 {
		q.waiting = nil // let the backing array go, rather than grow it forever
	}
	return batch
}

// Remove takes x out of the queue if it still waits for a batch, and says whether it did: an
// item removed is never run (its caller may give up on it); one that is not is being run or
// has been.
func (q *Queue[T]) Remove(x T) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	for i, w := range q.waiting {
		if w == x {
			q.waiting = append(q.waiting[:i:i], q.waiting[i+1:]...)
			if len(q.waiting) == 0 {
				q.waiting = nil
			}
			return true
		}
	}
	return false
}

// Waiting returns how many items wait for a batch and how many batches are being run.
func (q *Queue[T]) Waiting() (items, inFlight int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.waiting), q.inFlight
}
