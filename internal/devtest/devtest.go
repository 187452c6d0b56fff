// Package devtest holds what tests that drive a real `rampway dev` process share: building the
// binary, paying an order's card form on its checkout page as a browser without scripts
// would, a free port for a process that takes a number. (cmd/rampway's own tests run dev in
// their process.)
package devtest

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// GoCommand returns the go command's path. Without one the test skips, except in CI
// (CI=true), where it fails: the tests it guards must run there.
func GoCommand(t testing.TB) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no go command: %v", err)
		}
		t.Skip("no go command")
	}
	return gobin
}

// ModuleRoot is the directory of the module's go.mod.
func ModuleRoot(t testing.TB) string {
	t.Helper()
	out, err := exec.Command(GoCommand(t), "env", "GOMOD").Output()
	gomod := strings.TrimSpace(string(out))
	if err != nil || gomod == "" || gomod == os.DevNull {
		t.Fatalf("go env GOMOD: %v %s", err, out)
	}
	return filepath.Dir(gomod)
}

// BuildRampway builds cmd/rampway into a temporary directory (or takes $RAMPWAY_BIN) and
// returns the binary's path. With a warm build cache it is a link; a cold one takes minutes.
func BuildRampway(t testing.TB) string {
	t.Helper()
	if bin := os.Getenv("RAMPWAY_BIN"); bin != "" {
		return bin
	}
	bin := filepath.Join(t.TempDir(), "rampway")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, GoCommand(t), "build", "-o", bin, "./cmd/rampway")
	cmd.Dir = ModuleRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/rampway: %v\n%s", err, out)
	}
	return bin
}

var cardForm = regexp.MustCompile(`<form method="post" action="([^"]+)" id="card-form"`)

// PayCard pays an order's card form on its checkout page (gatewayURL) with the card number, as
// a browser without scripts would, and returns the page the user lands on.
func PayCard(t testing.TB, gatewayURL, number string) string {
	t.Helper()
	browser := &http.Client{Timeout: 20 * time.Second}
	page := func(res *http.Response, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("%s %s: %d\n%s", res.Request.Method, res.Request.URL, res.StatusCode, b)
		}
		return string(b)
	}
	html := page(browser.Get(gatewayURL))
	m := cardForm.FindStringSubmatch(html)
	if m == nil {
		t.Fatalf("no card form on the checkout page:\n%s", html)
	}
	base, err := url.Parse(gatewayURL)
	if err != nil {
		t.Fatal(err)
	}
	action, err := base.Parse(strings.ReplaceAll(m[1], "&amp;", "&"))
	if err != nil {
		t.Fatal(err)
	}
	return page(browser.PostForm(action.String(), url.Values{"card_number": {number}, "expiry": {"12/34"}, "cvc": {"123"}, "name": {"Ada Lovelace"}}))
}

// FreePort returns a loopback TCP port that was free a moment ago, for a server that takes a
// port number rather than a listener.
func FreePort(tb testing.TB) int {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("pick a free port: %v", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// LockedBuffer collects what a running process or a logger writes, safe for concurrent
// writes and reads.
type LockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *LockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *LockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
