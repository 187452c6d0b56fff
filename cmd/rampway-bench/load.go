package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// loadSpec is one phase of load on one endpoint.
type loadSpec struct {
	url    string
	header http.Header
	// status is the answer every request must get (201 for an order, 200 for a quote).
	status      int
	concurrency int
	warmup      time.Duration
	duration    time.Duration
	// tag makes merchant_txn_id (and Idempotency-Key) unique across phases and runs.
	tag string
	// body returns the request body for a merchant_txn_id.
	body func(txnID string) []byte
	// get, when set, makes every request a GET of the URL it returns (url and body unused).
	get func() string
	// idempotencyKey sends the merchant_txn_id as Idempotency-Key too.
	idempotencyKey bool
	// onMeasure and onDone are called when the measured window starts and when it ends.
	onMeasure, onDone func()
}

// loadResult is what a phase measured. Requests count those started in the measured window.
type loadResult struct {
	requests      int
	elapsed       time.Duration // from the window's start to the last measured answer
	latencies     []time.Duration
	errors        map[string]int // answers other than the spec's status in the window, by status ("transport" for no answer)
	warmup        int
	warmupErrors  map[string]int
	samples       []string // the first distinct error answers
	connections   int64    // TCP connections the generator opened (keep-alive: the concurrency)
	cpu           time.Duration
	poolWaits     int64
	poolWaitTotal time.Duration
}

func (r *loadResult) rate() float64 {
	if r.elapsed <= 0 {
		return 0
	}
	return float64(r.requests) / r.elapsed.Seconds()
}

// percentile returns the nearest-rank percentile p (0..1) of the sorted latencies.
func (r *loadResult) percentile(p float64) time.Duration {
	if len(r.latencies) == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(len(r.latencies)))) - 1
	return r.latencies[max(0, min(i, len(r.latencies)-1))]
}

func (r *loadResult) errorCount() int {
	n := 0
	for _, c := range r.errors {
		n += c
	}
	return n
}

// errorSummary lists the errors by status, e.g. "500×3, transport×1", or "0".
func errorSummary(m map[string]int) string {
	if len(m) == 0 {
		return "0"
	}
	var parts []string
	for k, n := range m {
		parts = append(parts, fmt.Sprintf("%s×%d", k, n))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// workerResult is one worker's share, merged at the end (no locks on the hot path).
type workerResult struct {
	latencies    []time.Duration
	errors       map[string]int
	warmup       int
	warmupErrors map[string]int
	lastDone     time.Time
	samples      []string
}

// runLoad sends POSTs from spec.concurrency workers over keep-alive connections for
// warmup + duration and measures the requests started after the warm-up. Each worker owns
// its connection and writes each request and reads each answer itself with net/http's own
// serializer and parser, as wrk does, without http.Transport and its two goroutines per
// connection: the same CPU a request (11-13 us, mostly its two syscalls), but no hand-offs
// between goroutines in each request's time. (With http.Transport the baseline on SQLite,
// whose inserts wait on each other, measured ~10,400 requests/s instead of ~12,200.)
func runLoad(ctx context.Context, spec loadSpec) (*loadResult, error) {
	var dials atomic.Int64
	u, err := url.Parse(spec.url)
	if err != nil {
		return nil, err
	}
	dialer := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	want := strconv.Itoa(spec.status)

	begin := time.Now()
	measureFrom := begin.Add(spec.warmup)
	end := measureFrom.Add(spec.duration)
	results := make([]workerResult, spec.concurrency)
	var wg sync.WaitGroup
	for w := range spec.concurrency {
		res := &results[w]
		res.errors, res.warmupErrors = map[string]int{}, map[string]int{}
		res.latencies = make([]time.Duration, 0, 1<<14)
		wg.Go(func() {
			c := &loadConn{dial: func() (net.Conn, error) {
				dials.Add(1)
				return dialer.DialContext(ctx, "tcp", u.Host)
			}}
			defer c.close()
			for seq := 0; ; seq++ {
				start := time.Now()
				if !start.Before(end) || ctx.Err() != nil {
					return
				}
				txn := spec.tag + "-" + strconv.Itoa(w) + "-" + strconv.Itoa(seq)
				status, sample := c.post(ctx, spec, txn)
				done := time.Now()
				measured := !start.Before(measureFrom)
				errs := res.warmupErrors
				if measured {
					errs = res.errors
					res.latencies = append(res.latencies, done.Sub(start))
					res.lastDone = done
				} else {
					res.warmup++
				}
				if status != want {
					if ctx.Err() != nil {
						return // interrupted: not an answer of the server
					}
					errs[status]++
					if len(res.samples) < 3 {
						res.samples = append(res.samples, status+": "+sample)
					}
				}
			}
		})
	}
	// The measured window's hooks, on time.
	hooks := make(chan struct{})
	go func() {
		defer close(hooks)
		select {
		case <-time.After(time.Until(measureFrom)):
		case <-ctx.Done():
			return
		}
		if spec.onMeasure != nil {
			spec.onMeasure()
		}
		select {
		case <-time.After(time.Until(end)):
		case <-ctx.Done():
		}
		if spec.onDone != nil {
			spec.onDone()
		}
	}()
	wg.Wait()
	<-hooks
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	out := &loadResult{errors: map[string]int{}, warmupErrors: map[string]int{}, connections: dials.Load()}
	var last time.Time
	for _, r := range results {
		out.latencies = append(out.latencies, r.latencies...)
		out.warmup += r.warmup
		for k, n := range r.errors {
			out.errors[k] += n
		}
		for k, n := range r.warmupErrors {
			out.warmupErrors[k] += n
		}
		if r.lastDone.After(last) {
			last = r.lastDone
		}
		for _, s := range r.samples {
			if len(out.samples) < 5 && !slices.Contains(out.samples, s) {
				out.samples = append(out.samples, s)
			}
		}
	}
	slices.Sort(out.latencies)
	out.requests = len(out.latencies)
	if out.requests > 0 {
		out.elapsed = last.Sub(measureFrom)
	}
	return out, nil
}

// loadConn is a worker's keep-alive connection, dialled again when the server closes it.
type loadConn struct {
	dial func() (net.Conn, error)
	conn net.Conn
	br   *bufio.Reader
	bw   *bufio.Writer
	stop func() bool // unregisters the close on the run's end
}

func (c *loadConn) close() {
	if c.conn != nil {
		c.stop()
		c.conn.Close()
		c.conn = nil
	}
}

// post sends one request and returns its status ("transport" when none came) and, for a
// status other than the spec's, the start of the answer.
func (c *loadConn) post(ctx context.Context, spec loadSpec, txn string) (string, string) {
	status, sample, err := c.try(ctx, spec, txn)
	if err != nil {
		c.close()
		return "transport", err.Error()
	}
	return status, sample
}

func (c *loadConn) try(ctx context.Context, spec loadSpec, txn string) (string, string, error) {
	if c.conn == nil {
		conn, err := c.dial()
		if err != nil {
			return "", "", err
		}
		c.conn, c.br, c.bw = conn, bufio.NewReader(conn), bufio.NewWriter(conn)
		c.stop = context.AfterFunc(ctx, func() { conn.Close() }) // an interrupted run stops waiting at once
	}
	var req *http.Request
	var err error
	if spec.get != nil {
		req, err = http.NewRequestWithContext(ctx, http.MethodGet, spec.get(), nil)
	} else {
		req, err = http.NewRequestWithContext(ctx, http.MethodPost, spec.url, bytes.NewReader(spec.body(txn)))
	}
	if err != nil {
		return "", "", err
	}
	for k, v := range spec.header {
		req.Header[k] = v
	}
	if spec.idempotencyKey {
		req.Header.Set("Idempotency-Key", txn)
	}
	if err := c.conn.SetDeadline(time.Now().Add(60 * time.Second)); err != nil {
		return "", "", err
	}
	if err := req.Write(c.bw); err != nil {
		return "", "", err
	}
	if err := c.bw.Flush(); err != nil {
		return "", "", err
	}
	resp, err := http.ReadResponse(c.br, req)
	if err != nil {
		return "", "", err
	}
	defer resp.Body.Close()
	sample := ""
	if resp.StatusCode != spec.status {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
		sample = strings.TrimSpace(string(b))
	}
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return "", "", err
	}
	if resp.Close {
		c.close() // the server said so: the next request dials again
	}
	return strconv.Itoa(resp.StatusCode), sample, nil
}
