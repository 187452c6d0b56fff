package httpapi

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
)

func TestClientAddr(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	for _, c := range []struct {
		name, peer string
		xff        []string
		trusted    []netip.Prefix
		want       string
	}{
		{"no proxies trusted: the header is ignored", "127.0.0.1:5000", []string{"203.0.113.9"}, nil, "127.0.0.1:5000"},
		{"an untrusted peer cannot choose its address", "198.51.100.7:5000", []string{"203.0.113.9"}, trusted, "198.51.100.7:5000"},
		{"one trusted proxy", "127.0.0.1:5000", []string{"203.0.113.9"}, trusted, "203.0.113.9:5000"},
		{"what the client wrote left of its own address is not believed", "127.0.0.1:5000", []string{"192.0.2.1, 203.0.113.9"}, trusted, "203.0.113.9:5000"},
		{"two trusted hops", "127.0.0.1:5000", []string{"203.0.113.9, 10.1.2.3"}, trusted, "203.0.113.9:5000"},
		{"headers repeated count in order", "127.0.0.1:5000", []string{"192.0.2.1", "203.0.113.9,10.1.2.3"}, trusted, "203.0.113.9:5000"},
		{"IPv6 client behind an IPv6 proxy", "[::1]:5000", []string{"2001:db8::7"}, trusted, "[2001:db8::7]:5000"},
		{"an IPv4-mapped peer", "[::ffff:127.0.0.1]:5000", []string{"203.0.113.9"}, trusted, "203.0.113.9:5000"},
		{"no header: the peer", "127.0.0.1:5000", nil, trusted, "127.0.0.1:5000"},
		{"a malformed hop: the peer", "127.0.0.1:5000", []string{"203.0.113.9, not-an-ip"}, trusted, "127.0.0.1:5000"},
		{"a malformed hop beyond a trusted one: that one", "127.0.0.1:5000", []string{"bad, 10.1.2.3"}, trusted, "10.1.2.3:5000"},
		{"only trusted hops: the furthest", "127.0.0.1:5000", []string{"10.9.9.9, 10.1.2.3"}, trusted, "10.9.9.9:5000"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got string
			h := clientAddr(c.trusted, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = r.RemoteAddr }))
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = c.peer
			for _, v := range c.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			h.ServeHTTP(httptest.NewRecorder(), r)
			if got != c.want {
				t.Fatalf("RemoteAddr %q, want %q", got, c.want)
			}
		})
	}
}
