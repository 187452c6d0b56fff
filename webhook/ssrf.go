package webhook

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// ErrNotPublic is the error of a connection to an address a webhook must not reach.
var ErrNotPublic = errors.New("webhook address is not public")

// special are the ranges beyond what netip classifies that never belong to a merchant's public
// server: "this network", shared address space (carrier NAT), IETF protocol assignments,
// benchmarking, reserved, and the NAT64 prefix (which maps onto IPv4, private ones included).
var special = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b::/96"),
}

// PublicIP reports whether a webhook may be sent to ip: not loopback, private, link-local
// (169.254.169.254, the cloud metadata address, among them), multicast, unspecified or special.
func PublicIP(ip netip.Addr) bool {
	ip = ip.Unmap()
	if !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() {
		return false
	}
	for _, p := range special {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

// NewHTTPClient returns the client deliveries are sent with: each request bounded by timeout,
// no proxy from the environment, no redirect followed (a 3xx is an answer like any non-2xx),
// and, unless allowPrivate (dev mode), every connection checked at dial time against the
// address it actually reaches, so a name that resolves (or re-resolves) to a private address
// is refused.
func NewHTTPClient(timeout time.Duration, allowPrivate bool) *http.Client {
	dialer := &net.Dialer{Timeout: min(timeout, 5*time.Second), KeepAlive: 30 * time.Second}
	if !allowPrivate {
		dialer.Control = func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("%w: %s", ErrNotPublic, address)
			}
			if !PublicIP(ap.Addr()) {
				return fmt.Errorf("%w: %s", ErrNotPublic, ap.Addr())
			}
			return nil
		}
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
