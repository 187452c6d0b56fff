package rampway

import (
	"net/netip"
	"strings"
)

// specialRanges are the ranges beyond what net/netip classifies that never belong to a
// merchant's public server: "this network", shared address space (carrier NAT), IETF protocol
// assignments, benchmarking, reserved, and the NAT64 prefix (which maps onto IPv4, private
// ones included).
var specialRanges = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b::/96"),
}

// PublicIP reports whether ip is a public unicast address: not loopback, private,
// link-local (169.254.169.254, the cloud metadata address, among them), multicast,
// unspecified or one of the special ranges above.
func PublicIP(ip netip.Addr) bool {
	ip = ip.Unmap()
	if !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() {
		return false
	}
	for _, p := range specialRanges {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

// WebhookIPAllowed is the one policy of where a webhook may be delivered, checked when a URL
// is registered (a literal address) and again at every connection (what a name resolves to):
// a public address; in dev mode also loopback and private ones (a merchant's store on the
// developer's machine or network), never link-local (the cloud metadata address) or the
// special ranges.
func WebhookIPAllowed(ip netip.Addr, devMode bool) bool {
	ip = ip.Unmap()
	return PublicIP(ip) || devMode && (ip.IsLoopback() || ip.IsPrivate())
}

// WebhookHostAllowed applies WebhookIPAllowed to a URL's host: a literal address is checked
// as one; a name is allowed but "localhost" and its subdomains outside dev mode (every other
// name is checked at each connection, against what it resolves to).
func WebhookHostAllowed(host string, devMode bool) bool {
	if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return WebhookIPAllowed(ip, devMode)
	}
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return devMode
	}
	return true
}
