package webhook

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"

	"github.com/rampway/rampway"
)

// ErrNotPublic is the error of a connection to an address a webhook must not reach.
var ErrNotPublic = errors.New("webhook address is not public")

// NewHTTPClient returns the client deliveries are sent with: each request bounded by timeout,
// no proxy from the environment, no redirect followed (a 3xx is an answer like any non-2xx),
// and every connection checked at dial time against the address it actually reaches
// (rampway.WebhookIPAllowed), so a name that resolves (or re-resolves) to an address a webhook
// must not reach is refused. devMode (allowed loopback and private addresses) never lets a
// delivery reach a link-local address (the cloud metadata one) or the special ranges.
func NewHTTPClient(timeout time.Duration, devMode bool) *http.Client {
	dialer := &net.Dialer{Timeout: min(timeout, 5*time.Second), KeepAlive: 30 * time.Second}
	dialer.Control = func(network, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("%w: %s", ErrNotPublic, address)
		}
		if !rampway.WebhookIPAllowed(ap.Addr(), devMode) {
			return fmt.Errorf("%w: %s", ErrNotPublic, ap.Addr())
		}
		return nil
	}
	t := &http.Transport{
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          256,
		MaxIdleConnsPerHost:   16,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   min(timeout, 5*time.Second),
		ResponseHeaderTimeout: timeout,
	}
	return &http.Client{
		Transport:     t,
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
