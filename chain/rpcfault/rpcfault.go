// Package rpcfault is a JSON-RPC proxy that injects the faults of real networks between
// rampway and a node, for tests (issue 19): a reply dropped after the node acted on the
// request, a delay, 429 Too Many Requests with Retry-After, a 5xx, a stale head (the node
// answers a head some blocks behind), and a batch's answers reordered. Each fault is a Rule
// that matches requests by JSON-RPC method and fires on every Nth match, at most Times times.
package rpcfault

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"
)

// Fault is what a rule does to a request it matches.
type Fault string

// The faults.
const (
	// Drop forwards the request to the node, then drops the reply: the client's connection is
	// closed with nothing written, after the node acted (a broadcast did happen).
	Drop Fault = "drop"
	// Delay waits Rule.Delay before forwarding.
	Delay Fault = "delay"
	// TooMany answers 429 with Retry-After Rule.RetryAfter (whole seconds), not forwarded.
	TooMany Fault = "429"
	// ServerError answers Rule.Status (default 503), not forwarded.
	ServerError Fault = "5xx"
	// StaleHead forwards, then makes the answers of eth_blockNumber and of eth_getBlockByNumber
	// "latest" Rule.Blocks blocks older (a node that lags behind the others).
	StaleHead Fault = "stale_head"
	// Reorder forwards a batch and answers its replies in reverse order (JSON-RPC allows any
	// order; clients must match them by id).
	Reorder Fault = "reorder"
)

// Rule is one fault and the requests it applies to.
type Rule struct {
	Fault Fault
	// Method matches requests calling it (in a batch: any of its calls); "" matches all.
	Method string
	// Every fires the rule on every Every-th matching request (1 or 0: each one).
	Every int
	// Times bounds how often it fires (0: no bound).
	Times int
	// Delay (Delay), RetryAfter (TooMany), Status (ServerError) and Blocks (StaleHead).
	Delay      time.Duration
	RetryAfter time.Duration
	Status     int
	Blocks     uint64
}

// Proxy forwards JSON-RPC over HTTP to a node, injecting the faults of its rules.
type Proxy struct {
	target string
	client *http.Client

	mu    sync.Mutex
	rules []*rule
	fired map[Fault]int
	calls map[string]int // by method, forwarded to the node
}

type rule struct {
	Rule
	seen, fired int
}

// New returns a proxy to the node at target (an http URL) without rules.
func New(target string) *Proxy {
	return &Proxy{target: target, client: &http.Client{Timeout: time.Minute}, fired: map[Fault]int{}, calls: map[string]int{}}
}

// Set replaces the rules (none: a plain proxy).
func (p *Proxy) Set(rules ...Rule) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rules = p.rules[:0]
	for _, r := range rules {
		p.rules = append(p.rules, &rule{Rule: r})
	}
}

// Fired returns how often each fault fired.
func (p *Proxy) Fired() map[Fault]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[Fault]int{}
	for k, v := range p.fired {
		out[k] = v
	}
	return out
}

// Calls returns how many calls of method reached the node.
func (p *Proxy) Calls(method string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls[method]
}

// request is one JSON-RPC call of a body.
type request struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// parse reads a body: one call or a batch.
func parse(body []byte) (calls []request, batch bool, err error) {
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		err = json.Unmarshal(body, &calls)
		return calls, true, err
	}
	var c request
	err = json.Unmarshal(body, &c)
	return []request{c}, false, err
}

// match returns the rules that fire for calls, counting them.
func (p *Proxy) match(calls []request) []*rule {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []*rule
	for _, r := range p.rules {
		if r.Method != "" && !slices.ContainsFunc(calls, func(c request) bool { return c.Method == r.Method }) {
			continue
		}
		r.seen++
		if (r.Every > 1 && r.seen%r.Every != 0) || (r.Times > 0 && r.fired >= r.Times) {
			continue
		}
		r.fired++
		p.fired[r.Fault]++
		out = append(out, r)
	}
	return out
}

// ServeHTTP implements http.Handler.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	calls, batch, err := parse(body)
	if err != nil {
		http.Error(w, "rpcfault: not JSON-RPC: "+err.Error(), http.StatusBadRequest)
		return
	}
	fire := p.match(calls)
	has := func(f Fault) *rule {
		for _, r := range fire {
			if r.Fault == f {
				return r
			}
		}
		return nil
	}
	if r := has(Delay); r != nil {
		select {
		case <-time.After(r.Delay):
		case <-req.Context().Done():
			return
		}
	}
	if r := has(TooMany); r != nil {
		w.Header().Set("Retry-After", strconv.Itoa(int(r.RetryAfter.Round(time.Second)/time.Second)))
		http.Error(w, "rpcfault: too many requests", http.StatusTooManyRequests)
		return
	}
	if r := has(ServerError); r != nil {
		status := r.Status
		if status == 0 {
			status = http.StatusServiceUnavailable
		}
		http.Error(w, "rpcfault: server error", status)
		return
	}
	out, status, err := p.forward(req, body, calls)
	if err != nil {
		http.Error(w, "rpcfault: "+err.Error(), http.StatusBadGateway)
		return
	}
	if r := has(Drop); r != nil {
		// The node acted; the client hears nothing.
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				_ = conn.Close()
				return
			}
		}
		panic(http.ErrAbortHandler)
	}
	if r := has(StaleHead); r != nil {
		out = p.staleHead(req, out, calls, batch, r.Blocks)
	}
	if r := has(Reorder); r != nil && batch {
		var answers []json.RawMessage
		if json.Unmarshal(out, &answers) == nil {
			slices.Reverse(answers)
			out, _ = json.Marshal(answers)
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(out)
}

// forward sends body to the node and returns its answer.
func (p *Proxy) forward(req *http.Request, body []byte, calls []request) ([]byte, int, error) {
	fr, err := http.NewRequestWithContext(req.Context(), http.MethodPost, p.target, bytes.NewReader(body))
	if err != nil {
		return nil, 0, err
	}
	fr.Header.Set("Content-Type", "application/json")
	res, err := p.client.Do(fr)
	if err != nil {
		return nil, 0, err
	}
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, 0, err
	}
	p.mu.Lock()
	for _, c := range calls {
		p.calls[c.Method]++
	}
	p.mu.Unlock()
	return out, res.StatusCode, nil
}

// answer is one JSON-RPC reply.
type answer struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

// staleHead rewrites the head answers of out (a reply to calls) to blocks behind: the
// number, and the latest block is the node's block of that number.
func (p *Proxy) staleHead(req *http.Request, out []byte, calls []request, batch bool, blocks uint64) []byte {
	var answers []answer
	if batch {
		if json.Unmarshal(out, &answers) != nil {
			return out
		}
	} else {
		var a answer
		if json.Unmarshal(out, &a) != nil {
			return out
		}
		answers = []answer{a}
	}
	byID := map[string]request{}
	for _, c := range calls {
		byID[string(c.ID)] = c
	}
	for i, a := range answers {
		c, ok := byID[string(a.ID)]
		if !ok || len(a.Result) == 0 {
			continue
		}
		switch {
		case c.Method == "eth_blockNumber":
			var hex string
			if json.Unmarshal(a.Result, &hex) == nil {
				if n, err := strconv.ParseUint(trim0x(hex), 16, 64); err == nil {
					answers[i].Result, _ = json.Marshal(fmt.Sprintf("0x%x", n-min(n, blocks)))
				}
			}
		case c.Method == "eth_getBlockByNumber" && isLatest(c.Params):
			var blk map[string]json.RawMessage
			if json.Unmarshal(a.Result, &blk) != nil {
				continue
			}
			var hex string
			if json.Unmarshal(blk["number"], &hex) != nil {
				continue
			}
			n, err := strconv.ParseUint(trim0x(hex), 16, 64)
			if err != nil {
				continue
			}
			var ps []json.RawMessage
			_ = json.Unmarshal(c.Params, &ps)
			ps[0], _ = json.Marshal(fmt.Sprintf("0x%x", n-min(n, blocks)))
			q, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": c.Method, "params": ps})
			older, _, err := p.forward(req, q, nil)
			var o answer
			if err == nil && json.Unmarshal(older, &o) == nil && len(o.Result) > 0 {
				answers[i].Result = o.Result
			}
		}
	}
	if batch {
		b, _ := json.Marshal(answers)
		return b
	}
	b, _ := json.Marshal(answers[0])
	return b
}

func isLatest(params json.RawMessage) bool {
	var ps []json.RawMessage
	if json.Unmarshal(params, &ps) != nil || len(ps) == 0 {
		return false
	}
	var tag string
	return json.Unmarshal(ps[0], &tag) == nil && tag == "latest"
}

func trim0x(s string) string {
	if len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		return s[2:]
	}
	return s
}
