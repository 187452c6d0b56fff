package devtest

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
)

// FreePort gives ports below the ephemeral range, each once, that a server can listen on.
func TestFreePort(t *testing.T) {
	low := 32768
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		low, _ = strconv.Atoi(strings.Fields(string(b))[0])
	}
	seen := map[int]bool{}
	for range 50 {
		p := FreePort(t)
		if p < portsFloor || p >= low {
			t.Fatalf("port %d, want one in [%d, %d)", p, portsFloor, low)
		}
		if seen[p] {
			t.Fatalf("port %d given twice", p)
		}
		seen[p] = true
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err != nil {
			t.Fatalf("port %d: %v", p, err)
		}
		ln.Close()
	}
}
