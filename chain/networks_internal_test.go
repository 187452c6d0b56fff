package chain

import "testing"

func TestIsLoopback(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]bool{
		"http://127.0.0.1:8545": true, "http://localhost:8545": true, "http://[::1]:8545/rpc": true, "http://127.1.2.3": true,
		"https://sepolia.example/v3/key": false, "http://10.0.0.1:8545": false, "ws://127.0.0.1:8546": true, "%%": false,
	} {
		if got := isLoopback(raw); got != want {
			t.Errorf("isLoopback(%q) = %v, want %v", raw, got, want)
		}
	}
}
