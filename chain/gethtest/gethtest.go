// Package gethtest runs go-ethereum's own node, `geth --dev`, as a separate process for tests:
// the node rampway talks to in production is never in its process. geth is the project's Go
// tool (`go tool geth`, declared in go.mod), so a clean clone has it.
package gethtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/rampway/rampway/internal/devtest"
)

// Node is a running `geth --dev`.
type Node struct {
	// URL is its HTTP JSON-RPC endpoint (eth, net, web3, debug).
	URL string
	// Dev is its developer account: funded, unlocked (eth_sendTransaction from it works).
	Dev common.Address
	cmd *exec.Cmd
	out *devtest.LockedBuffer
}

// Start runs geth --dev (the module's `go tool geth`) with blocks every period (0: a block per transaction), in a
// temporary data directory, until the test ends.
func Start(t testing.TB, period time.Duration) *Node {
	t.Helper()
	if testing.Short() {
		t.Skip("runs geth")
	}
	port := devtest.FreePort(t)
	dir := t.TempDir()
	args := []string{"tool", "geth", "--dev", "--datadir", filepath.Join(dir, "geth"), "--http", "--http.addr", "127.0.0.1",
		"--http.port", strconv.Itoa(port), "--http.api", "eth,net,web3,debug", "--nodiscover", "--maxpeers", "0", "--port", "0",
		"--authrpc.port", "0", "--ipcdisable", "--verbosity", "2"}
	if period > 0 {
		args = append(args, "--dev.period", strconv.Itoa(int(period.Round(time.Second)/time.Second)))
	}
	// `go tool -n geth` builds geth if needed (minutes on a cold cache) and prints its path:
	// the node is that binary, not a child of the go command (signals reach it).
	tool := exec.Command("go", "tool", "-n", "geth")
	tool.Dir = moduleRoot(t)
	bin, err := tool.Output()
	if err != nil {
		t.Fatalf("go tool -n geth: %v", err)
	}
	n := &Node{URL: fmt.Sprintf("http://127.0.0.1:%d", port), out: &devtest.LockedBuffer{}}
	n.cmd = exec.Command(strings.TrimSpace(string(bin)), args[2:]...)
	n.cmd.Stdout, n.cmd.Stderr = n.out, n.out
	if err := n.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Stop() })
	deadline := time.Now().Add(time.Minute)
	for {
		c, err := rpc.Dial(n.URL)
		if err == nil {
			var accounts []common.Address
			err = c.CallContext(context.Background(), &accounts, "eth_accounts")
			c.Close()
			if err == nil && len(accounts) > 0 {
				n.Dev = accounts[0]
				return n
			}
		}
		if n.cmd.ProcessState != nil || time.Now().After(deadline) {
			t.Fatalf("geth --dev did not answer at %s: %v\n%s", n.URL, err, n.out)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// Stop ends the node (SIGINT, then SIGKILL after 10 s).
func (n *Node) Stop() {
	if n.cmd.Process == nil || n.cmd.ProcessState != nil {
		return
	}
	_ = n.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = n.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = n.cmd.Process.Kill()
		<-done
	}
}

// Log is what the node printed.
func (n *Node) Log() string { return n.out.String() }

// moduleRoot is the directory of go.mod, where `go tool geth` resolves.
func moduleRoot(t testing.TB) string {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil || strings.TrimSpace(string(out)) == "" || strings.TrimSpace(string(out)) == os.DevNull {
		t.Fatalf("go env GOMOD: %v %s", err, out)
	}
	return filepath.Dir(strings.TrimSpace(string(out)))
}
