package httpapi

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// clientAddr gives the request the address of the client behind trusted proxies: when the
// peer is one of them, r.RemoteAddr becomes the right-most address of X-Forwarded-For that
// is not a trusted proxy (each proxy appends the address it got the request from, so what is
// left of the last untrusted hop may be made up by the client). Everything after it (the
// request log, the dashboard's sign-in throttle per address) sees that address. With no
// trusted proxies, or from any other peer, the header is ignored: a client cannot choose the
// address it is counted under.
func clientAddr(trusted []netip.Prefix, next http.Handler) http.Handler {
	if len(trusted) == 0 {
		return next
	}
	isTrusted := func(a netip.Addr) bool {
		a = a.Unmap()
		for _, p := range trusted {
			if p.Contains(a) {
				return true
			}
		}
		return false
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		peer, err := netip.ParseAddrPort(r.RemoteAddr)
		if err != nil || !isTrusted(peer.Addr()) {
			next.ServeHTTP(w, r)
			return
		}
		hops := r.Header.Values("X-Forwarded-For")
		client := netip.Addr{}
	walk:
		for i := len(hops) - 1; i >= 0; i-- {
			parts := strings.Split(hops[i], ",")
			for j := len(parts) - 1; j >= 0; j-- {
				a, err := netip.ParseAddr(strings.TrimSpace(parts[j]))
				if err != nil || a.Zone() != "" {
					break walk // a malformed hop: nothing left of it can be believed
				}
				client = a.Unmap()
				if !isTrusted(client) {
					break walk
				}
			}
		}
		if client.IsValid() {
			r2 := *r
			r2.RemoteAddr = net.JoinHostPort(client.String(), fmt.Sprint(peer.Port()))
			r = &r2
		}
		next.ServeHTTP(w, r)
	})
}
