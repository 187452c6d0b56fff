package groupcommit

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// recorder runs batches, holding each until released, and records them.
type recorder struct {
	mu      sync.Mutex
	batches [][]int
	started chan []int
	release chan struct{}
}

func newRecorder() *recorder {
	return &recorder{started: make(chan []int, 100), release: make(chan struct{}, 100)}
}

func (r *recorder) run(batch []int) {
	r.mu.Lock()
	r.batches = append(r.batches, append([]int(nil), batch...))
	r.mu.Unlock()
	r.started <- batch
	<-r.release
}

func (r *recorder) next(t *testing.T) []int {
	t.Helper()
	select {
	case b := <-r.started:
		return b
	case <-time.After(time.Minute):
		t.Fatal("no batch started")
		return nil
	}
}

// waitFor waits until the queue holds items waiting and inFlight batches running.
func waitFor(t *testing.T, q *Queue[int], items, inFlight int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		i, f := q.Waiting()
		if i == items && f == inFlight {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("queue: %d waiting, %d in flight; want %d, %d", i, f, items, inFlight)
		}
		time.Sleep(time.Millisecond)
	}
}

func same(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// One batch at a time: an item alone goes at once; those that come while it runs wait and go
// together, in order, as soon as it ends.
func TestEagerOneThenTogether(t *testing.T) {
	r := newRecorder()
	q := &Queue[int]{Eager: 1, Fill: 100, MaxInFlight: 2, MaxBatch: 10, Run: r.run}
	q.Add(1)
	if b := r.next(t); !same(b, []int{1}) {
		t.Fatalf("first batch %v", b)
	}
	q.Add(2)
	q.Add(3)
	q.Add(4)
	waitFor(t, q, 3, 1)
	r.release <- struct{}{}
	if b := r.next(t); !same(b, []int{2, 3, 4}) {
		t.Fatalf("second batch %v, want the three that waited", b)
	}
	r.release <- struct{}{}
	waitFor(t, q, 0, 0)
}

// Fill waiting items start one more batch, up to MaxInFlight; past it they wait.
func TestFillStartsAnotherBatch(t *testing.T) {
	r := newRecorder()
	q := &Queue[int]{Eager: 1, Fill: 3, MaxInFlight: 2, MaxBatch: 10, Run: r.run}
	q.Add(1)
	r.next(t)
	q.Add(2)
	q.Add(3)
	waitFor(t, q, 2, 1)
	q.Add(4) // the third waiting: a second batch at once
	if b := r.next(t); !same(b, []int{2, 3, 4}) {
		t.Fatalf("second batch %v", b)
	}
	for i := 5; i <= 8; i++ {
		q.Add(i) // two in flight: these wait, however many
	}
	waitFor(t, q, 4, 2)
	r.release <- struct{}{}
	if b := r.next(t); !same(b, []int{5, 6, 7, 8}) {
		t.Fatalf("third batch %v", b)
	}
	r.release <- struct{}{}
	r.release <- struct{}{}
	waitFor(t, q, 0, 0)
}

// Eager batches go at once without waiting for Fill; MaxBatch bounds a batch.
func TestEagerAndMaxBatch(t *testing.T) {
	r := newRecorder()
	q := &Queue[int]{Eager: 2, Fill: 100, MaxInFlight: 2, MaxBatch: 2, Run: r.run}
	q.Add(1)
	q.Add(2)
	got := [][]int{r.next(t), r.next(t)}
	if len(got[0]) != 1 || len(got[1]) != 1 {
		t.Fatalf("two eager batches of one: %v", got)
	}
	for i := 3; i <= 7; i++ {
		q.Add(i)
	}
	waitFor(t, q, 5, 2)
	r.release <- struct{}{}
	r.release <- struct{}{}
	var rest [][]int
	for range 3 {
		rest = append(rest, r.next(t))
		r.release <- struct{}{}
	}
	n := 0
	for _, b := range rest {
		if len(b) > 2 {
			t.Fatalf("batch %v past MaxBatch 2", b)
		}
		n += len(b)
	}
	if n != 5 {
		t.Fatalf("batches %v: %d items, want 5", rest, n)
	}
	waitFor(t, q, 0, 0)
}

// Items added from many goroutines are each run exactly once.
func TestEveryItemOnce(t *testing.T) {
	var runs atomic.Int64
	seen := make([]atomic.Int32, 2000)
	q := &Queue[int]{Eager: 1, Fill: 16, MaxInFlight: 2, MaxBatch: 64, Run: func(b []int) {
		runs.Add(1)
		for _, i := range b {
			seen[i].Add(1)
		}
		time.Sleep(50 * time.Microsecond)
	}}
	var wg sync.WaitGroup
	for g := range 20 {
		wg.Go(func() {
			for i := g * 100; i < (g+1)*100; i++ {
				q.Add(i)
			}
		})
	}
	wg.Wait()
	waitFor(t, q, 0, 0)
	for i := range seen {
		if n := seen[i].Load(); n != 1 {
			t.Fatalf("item %d run %d times", i, n)
		}
	}
	if runs.Load() >= 2000 {
		t.Fatalf("%d batches for 2000 items: nothing grouped", runs.Load())
	}
}

// An item removed while it waits is never run; one already in a batch cannot be removed.
func TestRemove(t *testing.T) {
	r := newRecorder()
	q := &Queue[int]{Eager: 1, Fill: 100, MaxInFlight: 1, MaxBatch: 10, Run: r.run}
	q.Add(1)
	r.next(t)
	q.Add(2)
	q.Add(3)
	q.Add(4)
	waitFor(t, q, 3, 1)
	if q.Remove(1) {
		t.Fatal("removed an item being run")
	}
	if !q.Remove(3) || q.Remove(3) {
		t.Fatal("Remove(3): want true once, then false")
	}
	r.release <- struct{}{}
	if b := r.next(t); !same(b, []int{2, 4}) {
		t.Fatalf("batch after removing 3: %v", b)
	}
	r.release <- struct{}{}
	waitFor(t, q, 0, 0)
}
