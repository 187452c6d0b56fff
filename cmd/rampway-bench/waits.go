package main

import (
	"fmt"
	"io"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"
)

// waitSampler is a wall-clock profile of the request handlers: every interval it looks at the
// goroutines serving a request and counts where each one is (the innermost rampway function on
// its stack and the frame it is stopped in). A CPU profile shows where the processors go; this
// shows where a request's time goes, waits on the chain, the database and locks included.
type waitSampler struct {
	stop chan struct{}
	done chan struct{}

	mu      sync.Mutex
	samples int // goroutine observations
	by      map[string]int
}

func startWaitSampler(interval time.Duration) *waitSampler {
	w := &waitSampler{stop: make(chan struct{}), done: make(chan struct{}), by: map[string]int{}}
	go func() {
		defer close(w.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		records := make([]runtime.StackRecord, 512)
		for {
			select {
			case <-w.stop:
				return
			case <-t.C:
			}
			n, ok := runtime.GoroutineProfile(records)
			if !ok {
				records = make([]runtime.StackRecord, n+128)
				continue
			}
			w.add(records[:n])
		}
	}()
	return w
}

// Stop ends the sampling.
func (w *waitSampler) Stop() {
	close(w.stop)
	<-w.done
}

func (w *waitSampler) add(records []runtime.StackRecord) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, r := range records {
		if key, ok := classify(r.Stack()); ok {
			w.samples++
			w.by[key]++
		}
	}
}

// classify names where a request goroutine is: "<innermost rampway or baseline function> in
// <what it waits on>"; ok is false for other goroutines.
func classify(stack []uintptr) (string, bool) {
	frames := runtime.CallersFrames(stack)
	var names []string
	for {
		f, more := frames.Next()
		names = append(names, f.Function)
		if !more {
			break
		}
	}
	request := false
	for _, n := range names {
		if strings.Contains(n, "handleCreateMintOrder") || strings.Contains(n, "(*baseline).ServeHTTP") ||
			strings.Contains(n, "(*Server).merchantAuth") {
			request = true
			break
		}
	}
	if !request {
		return "", false
	}
	ours := ""
	for _, n := range names {
		if strings.HasPrefix(n, "github.com/rampway/rampway/") && !strings.Contains(n, "/httpapi.") || strings.HasPrefix(n, "main.(*baseline)") {
			ours = short(n)
			break
		}
	}
	if ours == "" {
		for _, n := range names {
			if strings.HasPrefix(n, "github.com/rampway/rampway/httpapi.") {
				ours = short(n)
				break
			}
		}
	}
	return ours + " in " + waitingOn(names), true
}

// waitingOn describes the innermost frames: what the goroutine waits on, or "running".
func waitingOn(names []string) string {
	has := func(s string) bool {
		for _, n := range names {
			if strings.Contains(n, s) {
				return true
			}
		}
		return false
	}
	top := names[0]
	switch {
	case has("(*persistConn).roundTrip"):
		return "an answer of the chain node (HTTP)"
	case has("(*Transport).getConn") || has("(*Transport).dialConn"):
		return "a connection to the chain node"
	case has("(*DB).conn") && (strings.HasPrefix(top, "runtime.") || has("runtime.selectgo")):
		return "a connection from the database pool"
	case has("Xnanosleep") || has("Xusleep"):
		return "a sleep in SQLite's busy handler (database locked)"
	case has("pgconn") && (has("netpoll") || has("runtime_pollWait")):
		return "PostgreSQL's answer"
	case has("modernc.org/sqlite"):
		for _, n := range names {
			if strings.HasPrefix(n, "modernc.org/libc.X") || strings.HasPrefix(n, "syscall.") {
				return "SQLite (" + short(n) + ")"
			}
		}
		return "SQLite (running)"
	case strings.HasPrefix(top, "runtime.") && (has("sync.(*Mutex)") || has("sync.(*RWMutex)")):
		return "a mutex"
	default:
		return "running (" + short(top) + ")"
	}
}

// short drops the import path of a function name.
func short(fn string) string {
	if i := strings.LastIndex(fn, "/"); i >= 0 {
		fn = fn[i+1:]
	}
	return fn
}

// top returns the n most frequent places with their share of the samples.
func (w *waitSampler) top(n int) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	type kv struct {
		k string
		v int
	}
	var all []kv
	for k, v := range w.by {
		all = append(all, kv{k, v})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].v > all[j].v || all[i].v == all[j].v && all[i].k < all[j].k })
	var out []string
	for i, e := range all {
		if i == n {
			break
		}
		out = append(out, fmt.Sprintf("%4.1f%% %s", 100*float64(e.v)/float64(max(w.samples, 1)), e.k))
	}
	return out
}

// write writes every place with its share.
func (w *waitSampler) write(out io.Writer) {
	fmt.Fprintf(out, "request goroutines observed: %d\n", w.samples)
	for _, l := range w.top(len(w.by)) {
		fmt.Fprintln(out, l)
	}
}
