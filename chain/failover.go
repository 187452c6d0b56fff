package chain

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Failover is an HTTP transport for JSON-RPC over several URLs of one network's nodes: each
// request goes to the first healthy node in the configured order, and a node that does not
// answer, answers 429 or 5xx, or lags behind the others in head (Check) is left for the next,
// then tried again after a cool-down. A request is tried again, with backoff, on another node
// (or the same when it is the only one) when its node failed it; rampway's calls may all be
// repeated: reads, and broadcasts of signed transactions (a node that has one answers
// "already known" or "nonce too low", which the executor takes as sent).
type Failover struct {
	urls []*url.URL
	base http.RoundTripper
	cfg  FailoverConfig

	mu    sync.Mutex
	nodes []nodeHealth
	now   func() time.Time
}

// FailoverConfig tunes a Failover; zero values take the defaults.
type FailoverConfig struct {
	// Attempts bounds the tries of one request, across nodes; default 4.
	Attempts int
	// Backoff is the first wait between tries, doubling; default 100ms. A 429's Retry-After
	// is honoured up to MaxWait.
	Backoff time.Duration
	// MaxWait bounds one wait; default 5s.
	MaxWait time.Duration
	// CoolDown is how long a failed or lagging node is left before it is tried again;
	// default 30s.
	CoolDown time.Duration
	// MaxLag is how many blocks a node may be behind the highest head before it is left;
	// default 3.
	MaxLag uint64
	// CallTimeout bounds one try of a request on one node, its answer read in full: a node
	// that accepts the connection and then hangs is left like one that does not answer;
	// default 10s.
	CallTimeout time.Duration
	// Log, when set, gets a warning each time a node in use is left (with why) and a line
	// when a left node is used again: the operator's view of failovers.
	Log *slog.Logger
}

type nodeHealth struct {
	downUntil time.Time
	reason    string
	head      uint64
}

// NewFailover returns a transport over urls (at least one, all http or https), sending with
// base (http.DefaultTransport when nil).
func NewFailover(urls []string, base http.RoundTripper, cfg FailoverConfig) (*Failover, error) {
	if len(urls) == 0 {
		return nil, errors.New("failover: no URL")
	}
	f := &Failover{base: base, cfg: cfg, now: time.Now}
	if f.base == nil {
		f.base = http.DefaultTransport
	}
	for _, s := range urls {
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
			return nil, fmt.Errorf("failover: %s is not an http(s) URL", Redact(s))
		}
		f.urls = append(f.urls, u)
	}
	f.nodes = make([]nodeHealth, len(urls))
	if f.cfg.Attempts <= 0 {
		f.cfg.Attempts = 4
	}
	if f.cfg.Backoff <= 0 {
		f.cfg.Backoff = 100 * time.Millisecond
	}
	if f.cfg.MaxWait <= 0 {
		f.cfg.MaxWait = 5 * time.Second
	}
	if f.cfg.CoolDown <= 0 {
		f.cfg.CoolDown = 30 * time.Second
	}
	if f.cfg.MaxLag == 0 {
		f.cfg.MaxLag = 3
	}
	if f.cfg.CallTimeout <= 0 {
		f.cfg.CallTimeout = 10 * time.Second
	}
	return f, nil
}

// pick returns the node a request goes to: the first healthy one after skip nodes tried,
// else (all down) the one whose cool-down ends first.
func (f *Failover) pick(tried map[int]bool) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.now()
	best := -1
	for i, n := range f.nodes {
		if tried[i] && len(tried) < len(f.nodes) {
			continue
		}
		if !now.Before(n.downUntil) {
			return i
		}
		if best < 0 || n.downUntil.Before(f.nodes[best].downUntil) {
			best = i
		}
	}
	if best < 0 {
		best = 0
	}
	return best
}

// down leaves node i for the cool-down, saying why.
func (f *Failover) down(i int, why string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.leave(i, why)
}

// leave marks node i left for the cool-down; f.mu is held.
func (f *Failover) leave(i int, why string) {
	if f.cfg.Log != nil && !f.now().Before(f.nodes[i].downUntil) {
		f.cfg.Log.Warn("RPC node left for the next", "node", Redact(f.urls[i].String()), "why", why, "for", f.cfg.CoolDown.String())
	}
	f.nodes[i].downUntil = f.now().Add(f.cfg.CoolDown)
	f.nodes[i].reason = why
}

// Healthy reports each node's state: "" when healthy, else why it is left.
func (f *Failover) Healthy() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]string, len(f.nodes))
	for i, n := range f.nodes {
		if f.now().Before(n.downUntil) {
			out[i] = n.reason
		}
	}
	return out
}

// RoundTrip implements http.RoundTripper.
func (f *Failover) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		var err error
		if body, err = io.ReadAll(req.Body); err != nil {
			return nil, err
		}
		req.Body.Close()
	}
	tried := map[int]bool{}
	wait := f.cfg.Backoff
	var lastErr error
	for attempt := 0; attempt < f.cfg.Attempts; attempt++ {
		i := f.pick(tried)
		tried[i] = true
		ctx, cancel := context.WithTimeoutCause(req.Context(), f.cfg.CallTimeout, errCallTimeout)
		r := req.Clone(ctx)
		u := *f.urls[i]
		r.URL, r.Host = &u, u.Host
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		res, err := f.base.RoundTrip(r)
		if err == nil && res.StatusCode < 500 && res.StatusCode != http.StatusTooManyRequests {
			// The answer: read in full within the try's time, so that a node that stalls
			// mid-answer is left too.
			data, rerr := io.ReadAll(res.Body)
			res.Body.Close()
			if rerr == nil {
				cancel()
				res.Body = io.NopCloser(bytes.NewReader(data))
				res.ContentLength = int64(len(data))
				return res, nil
			}
			err = rerr
		}
		retryAfter := time.Duration(0)
		switch {
		case err != nil:
			if req.Context().Err() != nil {
				cancel()
				return nil, err
			}
			why := "no answer: " + redactErr(err, u.String())
			if context.Cause(ctx) == errCallTimeout {
				why = fmt.Sprintf("no answer within %v", f.cfg.CallTimeout)
				err = fmt.Errorf("node %s: %s", Redact(u.String()), why)
			}
			f.down(i, why)
			lastErr = err
		case res.StatusCode == http.StatusTooManyRequests || res.StatusCode >= 500:
			if s, err := strconv.Atoi(res.Header.Get("Retry-After")); err == nil && s > 0 {
				retryAfter = time.Duration(s) * time.Second
			}
			f.down(i, res.Status)
			_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
			res.Body.Close()
			lastErr = fmt.Errorf("node %s answered %s", Redact(u.String()), res.Status)
		}
		cancel()
		if attempt == f.cfg.Attempts-1 {
			break
		}
		// Another healthy node is tried at once; the same one (or all down) after a wait.
		if i2 := f.pick(tried); i2 == i || tried[i2] {
			d := max(wait, retryAfter)
			if d > f.cfg.MaxWait {
				d = f.cfg.MaxWait
			}
			select {
			case <-time.After(d):
			case <-req.Context().Done():
				return nil, req.Context().Err()
			}
			wait *= 2
			if len(tried) == len(f.nodes) {
				clear(tried)
			}
		}
	}
	return nil, fmt.Errorf("no node answered after %d tries: %w", f.cfg.Attempts, lastErr)
}

// errCallTimeout is the cause of a try that ran past CallTimeout.
var errCallTimeout = errors.New("call timeout")

func redactErr(err error, u string) string {
	return strings.ReplaceAll(err.Error(), u, Redact(u))
}

// Check asks every node its head (eth_blockNumber) and leaves those that do not answer or lag
// more than MaxLag blocks behind the highest; a node back within it is used again.
func (f *Failover) Check(ctx context.Context) error {
	heads := make([]uint64, len(f.urls))
	errs := make([]error, len(f.urls))
	var wg sync.WaitGroup
	for i, u := range f.urls {
		wg.Go(func() { heads[i], errs[i] = f.head(ctx, u) })
	}
	wg.Wait()
	var top uint64
	for i := range heads {
		if errs[i] == nil {
			top = max(top, heads[i])
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	ok := 0
	for i := range f.nodes {
		f.nodes[i].head = heads[i]
		switch {
		case errs[i] != nil:
			f.leave(i, "head: "+redactErr(errs[i], f.urls[i].String()))
		case top-heads[i] > f.cfg.MaxLag:
			f.leave(i, fmt.Sprintf("lags: head %d, %d blocks behind", heads[i], top-heads[i]))
		default:
			if f.cfg.Log != nil && f.now().Before(f.nodes[i].downUntil) {
				f.cfg.Log.Info("RPC node in use again", "node", Redact(f.urls[i].String()), "head", heads[i])
			}
			f.nodes[i].downUntil, f.nodes[i].reason = time.Time{}, ""
			ok++
		}
	}
	if ok == 0 {
		return errors.New("no node of the network answers with a current head")
	}
	return nil
}

// Run checks the nodes every interval until ctx ends.
func (f *Failover) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		_ = f.Check(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// head asks one node eth_blockNumber, directly (not through the failover).
func (f *Failover) head(ctx context.Context, u *url.URL) (uint64, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := f.base.RoundTrip(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("answered %s", res.Status)
	}
	var a struct {
		Result string `json:"result"`
	}
	if err := json.NewDecoder(io.LimitReader(res.Body, 1<<20)).Decode(&a); err != nil {
		return 0, err
	}
	return strconv.ParseUint(strings.TrimPrefix(a.Result, "0x"), 16, 64)
}
