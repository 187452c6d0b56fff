// Package chain connects rampway to EVM networks over JSON-RPC: it dials the configured
// networks, checks them against the configuration, and answers the questions the rest of the
// service asks of a chain.
package chain

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/rampway/rampway"
)

// dialTimeout bounds the checks of one network at start.
const dialTimeout = 15 * time.Second

// decimalsSelector is ERC-20 decimals().
var decimalsSelector = []byte{0x31, 0x3c, 0xe5, 0x67}

// Networks are the connected, checked networks.
type Networks struct {
	list    []*rampway.Network
	byName  map[string]*rampway.Network
	clients map[string]*ethclient.Client
	batched map[string]*BatchingClient
	shared  map[string]bool // clients given by InProcess: not Networks' to close
	// failover holds each network's failover transport (http(s) nodes); stopChecks ends
	// their health checks.
	failover   map[string]*Failover
	stopChecks context.CancelFunc
}

// Ping fails, for /readyz, while none of the network's nodes is used (each failed, is
// rate-limited or lags), naming why; nil while one is, or for a network without a failover
// (in process, WebSocket).
func (n *Networks) Ping(network string) error {
	h := n.Health(network)
	if len(h) == 0 {
		return nil
	}
	for _, why := range h {
		if why == "" {
			return nil
		}
	}
	return rampway.Errorf(rampway.EUNAVAILABLE, "Network %s: no node is usable (%s)", network, strings.Join(h, "; "))
}

// healthEvery is how often a network's nodes are asked their head (Failover.Check).
const healthEvery = 15 * time.Second

// Health says, for each of the network's rpc_urls in order, "" when the node is used and
// otherwise why it is left (no answer, 429, 5xx, lagging); nil for a network reached in process
// or over a WebSocket.
func (n *Networks) Health(network string) []string {
	if f := n.failover[network]; f != nil {
		return f.Healthy()
	}
	return nil
}

// DialOption changes how Dial reaches a network.
type DialOption func(*dialConfig)

type dialConfig struct {
	inProc map[string]*rpc.Client
	log    *slog.Logger
}

// WithLog makes the networks' failover transports log each node left and used again.
func WithLog(log *slog.Logger) DialOption {
	return func(c *dialConfig) { c.log = log }
}

// InProcess makes Dial reach the network whose first RPC URL is url through rc, an in-process
// client of a chain running in this process (the dev chain: devchain.Chain.RPC), instead of
// over HTTP to itself: no socket, no HTTP on either end. Close leaves rc open.
func InProcess(url string, rc *rpc.Client) DialOption {
	return func(c *dialConfig) { c.inProc[url] = rc }
}

// Dial connects to every network's first RPC URL and checks that its chain id and every
// token's decimals (and that the token has code) match the configuration. Any mismatch or an
// unreachable endpoint is an error naming the network and what differs; nothing stays open.
func Dial(ctx context.Context, nets []rampway.Network, opts ...DialOption) (_ *Networks, err error) {
	dc := dialConfig{inProc: map[string]*rpc.Client{}}
	for _, o := range opts {
		o(&dc)
	}
	n := &Networks{byName: map[string]*rampway.Network{}, clients: map[string]*ethclient.Client{}, batched: map[string]*BatchingClient{},
		shared: map[string]bool{}, failover: map[string]*Failover{}}
	checks, stopChecks := context.WithCancel(context.WithoutCancel(ctx))
	n.stopChecks = stopChecks
	defer func() {
		if err != nil {
			n.Close()
		}
	}()
	for i := range nets {
		net := nets[i]
		if _, dup := n.byName[net.Name]; dup {
			return nil, fmt.Errorf("network %s is configured twice", net.Name)
		}
		if len(net.RPCURLs) == 0 {
			return nil, fmt.Errorf("network %s has no RPC URL", net.Name)
		}
		rc, inProc := dc.inProc[net.RPCURLs[0]]
		if !inProc {
			var opts []rpc.ClientOption
			if strings.HasPrefix(net.RPCURLs[0], "http") {
				// Every http(s) URL of the network, through one failover transport: a node
				// that fails or lags is left for the next, and calls are tried again.
				hc := rpcHTTPClient(isLoopback(net.RPCURLs[0]))
				f, ferr := NewFailover(net.RPCURLs, hc.Transport, FailoverConfig{CallTimeout: net.RPCTimeout, Log: nodeLog(dc.log, net.Name)})
				if ferr != nil {
					return nil, fmt.Errorf("network %s: %w", net.Name, ferr)
				}
				hc.Transport = f
				n.failover[net.Name] = f
				if len(net.RPCURLs) > 1 {
					go f.Run(checks, healthEvery)
				}
				opts = append(opts, rpc.WithHTTPClient(hc))
			}
			rc, err = rpc.DialOptions(ctx, net.RPCURLs[0], opts...)
		}
		c := ethclient.NewClient(rc)
		if err != nil {
			return nil, fmt.Errorf("network %s: dial %s: %s", net.Name, Redact(net.RPCURLs[0]), strings.ReplaceAll(err.Error(), net.RPCURLs[0], Redact(net.RPCURLs[0])))
		}
		n.list = append(n.list, &net)
		n.byName[net.Name] = &net
		n.clients[net.Name] = c
		n.shared[net.Name] = inProc
		inFlight := BatchesInFlightRemote
		if inProc || isLoopback(net.RPCURLs[0]) {
			inFlight = BatchesInFlightLoopback
		}
		n.batched[net.Name] = NewBatchingClient(c, inFlight)
		if err := check(ctx, c, &net); err != nil {
			// Transport errors quote the whole URL, key and all: keep only its host.
			msg := strings.ReplaceAll(err.Error(), net.RPCURLs[0], Redact(net.RPCURLs[0]))
			return nil, fmt.Errorf("network %s (%s): %s", net.Name, Redact(net.RPCURLs[0]), msg)
		}
	}
	return n, nil
}

// rpcHTTPClient is the HTTP client of a network's JSON-RPC: the order path, watchers,
// executors and sweepers call one node concurrently, and Go's default keeps only 2 idle
// connections per host (the others would be opened and closed for every call). A node on
// loopback (the dev chain, a node beside rampway) is not asked for gzip: compressing each
// answer costs both ends CPU and saves no network.
func rpcHTTPClient(loopback bool) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns, t.MaxIdleConnsPerHost = 256, 64
	t.DisableCompression = loopback
	return &http.Client{Transport: t}
}

// isLoopback reports whether an RPC URL names a loopback host.
func isLoopback(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && rampway.IsLoopbackHost(u.Hostname())
}

// check compares what the chain says with the configuration.
func check(ctx context.Context, c *ethclient.Client, net *rampway.Network) error {
	ctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	id, err := c.ChainID(ctx)
	if err != nil {
		return fmt.Errorf("cannot read the chain id: %w", err)
	}
	if id.Cmp(net.ChainID) != 0 {
		return fmt.Errorf("the RPC endpoint serves chain id %s, the configuration says %s", id, net.ChainID)
	}
	for _, t := range net.Tokens {
		code, err := c.CodeAt(ctx, t.Contract, nil)
		if err != nil {
			return fmt.Errorf("token %s: read code at %s: %w", t.Symbol, t.Contract.Hex(), err)
		}
		if len(code) == 0 {
			return fmt.Errorf("token %s: no contract at %s", t.Symbol, t.Contract.Hex())
		}
		out, err := c.CallContract(ctx, ethereum.CallMsg{To: &t.Contract, Data: decimalsSelector}, nil)
		if err != nil {
			return fmt.Errorf("token %s at %s: decimals() failed: %w", t.Symbol, t.Contract.Hex(), err)
		}
		if len(out) != 32 {
			return fmt.Errorf("token %s at %s: decimals() returned %d bytes, not an ERC-20 answer", t.Symbol, t.Contract.Hex(), len(out))
		}
		d := new(big.Int).SetBytes(out)
		if !d.IsUint64() || d.Uint64() != uint64(t.Decimals) {
			return fmt.Errorf("token %s at %s has %s decimals on chain, the configuration says %d", t.Symbol, t.Contract.Hex(), d, t.Decimals)
		}
	}
	return nil
}

// Network returns the named network.
func (n *Networks) Network(name string) (*rampway.Network, bool) {
	net, ok := n.byName[name]
	return net, ok
}

// List returns the networks in configuration order.
func (n *Networks) List() []*rampway.Network { return n.list }

// Client returns the named network's RPC client.
func (n *Networks) Client(name string) (*ethclient.Client, bool) {
	c, ok := n.clients[name]
	return c, ok
}

// Batching returns the named network's RPC client with its eth_calls batched (CallBatcher):
// for the order path's simulations, which many requests make at once.
func (n *Networks) Batching(name string) (*BatchingClient, bool) {
	c, ok := n.batched[name]
	return c, ok
}

// HasCode reports whether a contract is deployed at addr on the named network.
func (n *Networks) HasCode(ctx context.Context, network string, addr common.Address) (bool, error) {
	c, ok := n.clients[network]
	if !ok {
		return false, fmt.Errorf("unknown network %q", network)
	}
	code, err := c.CodeAt(ctx, addr, nil)
	if err != nil {
		return false, fmt.Errorf("network %s: read code at %s: %w", network, addr.Hex(), err)
	}
	return len(code) > 0, nil
}

// Simulate runs calls in order from `from` on the named network's latest state, sending
// nothing: QuoteClient's Simulate on the network's client ("" when every call would succeed,
// else the first failing call's reason; rampway.ErrInsufficientFunds when from cannot pay).
func (n *Networks) Simulate(ctx context.Context, network string, from common.Address, calls []rampway.Call) (string, error) {
	c, ok := n.clients[network]
	if !ok {
		return "", fmt.Errorf("unknown network %q", network)
	}
	reason, err := QuoteClient{Node: c}.Simulate(ctx, from, calls)
	if err != nil && !errors.Is(err, rampway.ErrInsufficientFunds) {
		return "", fmt.Errorf("network %s: simulate: %w", network, err)
	}
	return reason, err
}

// Close closes every client.
func (n *Networks) Close() {
	if n == nil {
		return
	}
	if n.stopChecks != nil {
		n.stopChecks()
	}
	for name, c := range n.clients {
		if !n.shared[name] {
			c.Close()
		}
	}
}

// Redact returns an RPC URL fit for logs: scheme and host only (providers put keys in paths
// and queries).
func Redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "(invalid URL)"
	}
	return u.Scheme + "://" + u.Host
}

func nodeLog(log *slog.Logger, network string) *slog.Logger {
	if log == nil {
		return nil
	}
	return log.With("network", network)
}
