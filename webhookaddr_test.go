package rampway

import (
	"net/netip"
	"testing"
)

// One policy for webhook addresses, at registration and at every connection: public only in
// production; loopback and private too in dev mode, never link-local (metadata) or special.
func TestWebhookIPAllowed(t *testing.T) {
	for addr, want := range map[string][2]bool{ // {production, dev}
		"93.184.216.34": {true, true}, "2606:2800:220:1:248:1893:25c8:1946": {true, true}, "8.8.8.8": {true, true},
		"127.0.0.1": {false, true}, "::1": {false, true}, "10.1.2.3": {false, true}, "172.16.0.1": {false, true},
		"192.168.1.1": {false, true}, "fd00::1": {false, true}, "::ffff:10.0.0.1": {false, true}, "::ffff:127.0.0.1": {false, true},
		"169.254.169.254": {false, false}, "fe80::1": {false, false}, "0.0.0.0": {false, false}, "::": {false, false},
		"100.64.0.1": {false, false}, "64:ff9b::a00:1": {false, false}, "224.0.0.1": {false, false}, "198.18.0.1": {false, false},
		"240.0.0.1": {false, false}, "192.0.0.8": {false, false},
	} {
		ip := netip.MustParseAddr(addr)
		if got := PublicIP(ip); got != want[0] {
			t.Errorf("PublicIP(%s) = %v", addr, got)
		}
		for i, dev := range []bool{false, true} {
			if got := WebhookIPAllowed(ip, dev); got != want[i] {
				t.Errorf("WebhookIPAllowed(%s, dev %v) = %v", addr, dev, got)
			}
		}
	}
	for host, want := range map[string][2]bool{
		"shop.example": {true, true}, "localhost": {false, true}, "api.localhost": {false, true}, "LOCALHOST.": {false, true},
		"100.64.0.1": {false, false}, "[64:ff9b::a00:1]": {false, false}, "169.254.169.254": {false, false}, "[::1]": {false, true},
	} {
		for i, dev := range []bool{false, true} {
			if got := WebhookHostAllowed(host, dev); got != want[i] {
				t.Errorf("WebhookHostAllowed(%s, dev %v) = %v", host, dev, got)
			}
		}
	}
}
