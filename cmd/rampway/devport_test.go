package main

import (
	"io"
	"net"
	"strings"
	"testing"
)

// TestDevPortInUse: a port in use names the flag that picks another, for the API's and the
// embedded chain's addresses alike.
func TestDevPortInUse(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	addr := busy.Addr().String()
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"--addr", addr, "--rpc-addr", "127.0.0.1:0"}, "--addr"},
		{[]string{"--addr", "127.0.0.1:0", "--rpc-addr", addr}, "--rpc-addr"},
	} {
		args := append([]string{"dev", "--data-dir", t.TempDir()}, c.args...)
		err := run(t.Context(), args, func(string) string { return "" }, io.Discard)
		if err == nil {
			t.Fatalf("%v: started on a port in use", c.args)
		}
		if msg := err.Error(); !strings.Contains(msg, addr+" is in use") || !strings.Contains(msg, "pick another address with "+c.flag) {
			t.Errorf("%v: %q does not say the port is in use and name %s", c.args, msg, c.flag)
		}
	}
}
