// Package stripetest runs stripe-mock (github.com/stripe/stripe-mock, the version .ci/run
// installs) for tests of the Stripe provider.
package stripetest

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Version is the stripe-mock the tests run (.ci/run installs it).
const Version = "v0.203.0"

// mockBinary finds stripe-mock (`go install github.com/stripe/stripe-mock@v0.203.0`, which
// .ci/run does): on PATH or in GOPATH/bin. Without it the test skips, except under CI=true.
func mockBinary(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath("stripe-mock"); err == nil {
		return p
	}
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		p := filepath.Join(strings.TrimSpace(string(out)), "bin", "stripe-mock")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("stripe-mock is not installed (go install github.com/stripe/stripe-mock@v0.203.0)")
	}
	t.Skip("stripe-mock is not installed (go install github.com/stripe/stripe-mock@v0.203.0)")
	return ""
}

var listening = regexp.MustCompile(`Listening for HTTP at address: (\S+)`)

// StartMock runs stripe-mock on a free loopback port until the test ends and returns its URL.
func StartMock(t testing.TB) string {
	t.Helper()
	cmd := exec.Command(mockBinary(t), "-http-addr", "127.0.0.1:", "-https-addr", "127.0.0.1:")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
	}()
	select {
	case a := <-addr:
		return "http://" + a
	case <-time.After(30 * time.Second):
		t.Fatal("stripe-mock did not listen within 30 s")
	}
	return ""
}
