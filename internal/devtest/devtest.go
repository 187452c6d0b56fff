// Package devtest holds what tests that drive a real `rampway dev` process share: building the
// binary, opening an order's checkout page and paying its card form as a browser without
// scripts would, a free port for a process that takes a number. (cmd/rampway's own tests run dev in
// their process.)
package devtest

import (
	"context"
	"fmt"
	stdhtml "html"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
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

var (
	cardForm  = regexp.MustCompile(`<form method="post" action="([^"]+)" id="card-form"`)
	startForm = regexp.MustCompile(`(?s)<form method="post" action="([^"]+)" id="start-form">(.*?)</form>`)
	hidden    = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)
)

// PaymentPage opens an order's checkout page (gatewayURL) with browser, as a browser without
// scripts would, and returns the URL and the HTML of the page showing the payment's step: when
// the page asks the person to start the payment (a GET starts nothing), its form is posted and
// the redirect back to the page followed. Any answer but 200 fails the test.
func PaymentPage(t testing.TB, browser *http.Client, gatewayURL string) (string, string) {
	t.Helper()
	res, err := browser.Get(gatewayURL)
	at, html := page(t, res, err)
	m := startForm.FindStringSubmatch(html)
	if m == nil {
		return at, html
	}
	form := url.Values{}
	for _, f := range hidden.FindAllStringSubmatch(m[2], -1) {
		form.Set(f[1], stdhtml.UnescapeString(f[2]))
	}
	res, err = browser.PostForm(Resolve(t, at, m[1]), form)
	return page(t, res, err)
}

// page reads an answer a browser would show: its final URL and its body, or fails the test.
func page(t testing.TB, res *http.Response, err error) (string, string) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("%s %s: %d\n%s", res.Request.Method, res.Request.URL, res.StatusCode, b)
	}
	return res.Request.URL.String(), string(b)
}

// Resolve is a link (HTML-escaped, as a page holds it) of the page at base, made absolute.
func Resolve(t testing.TB, base, link string) string {
	t.Helper()
	b, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u, err := b.Parse(stdhtml.UnescapeString(link))
	if err != nil {
		t.Fatal(err)
	}
	return u.String()
}

// PayCard pays an order's card form on its checkout page (gatewayURL) with the card number, as
// a browser without scripts would (starting the payment first: PaymentPage), and returns the
// page the user lands on.
func PayCard(t testing.TB, gatewayURL, number string) string {
	t.Helper()
	browser := &http.Client{Timeout: 20 * time.Second}
	at, html := PaymentPage(t, browser, gatewayURL)
	m := cardForm.FindStringSubmatch(html)
	if m == nil {
		t.Fatalf("no card form on the checkout page:\n%s", html)
	}
	res, err := browser.PostForm(Resolve(t, at, m[1]), url.Values{"card_number": {number}, "expiry": {"12/34"}, "cvc": {"123"}, "name": {"Ada Lovelace"}})
	_, out := page(t, res, err)
	return out
}

// FreePort returns a port free a moment ago on every address, in TCP and UDP (Caddy's HTTP/3
// listens on UDP), for a server that takes a port number rather than a listener. It is picked
// below the system's ephemeral range (ip_local_port_range), never twice in a process: a port
// from that range, the kernel's usual pick for ":0", is what it hands out to outgoing
// connections and DNS lookups, and one of them can take it between this and the server's
// start (TestCaddy met it under load: "bind: address already in use").
func FreePort(tb testing.TB) int {
	tb.Helper()
	low := 32768
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if n, err := strconv.Atoi(f[0]); err == nil {
				low = n
			}
		}
	}
	portsMu.Lock()
	defer portsMu.Unlock()
	for range 1000 {
		p := portsFloor + rand.IntN(max(low-portsFloor, 1))
		if low <= portsFloor {
			p = 0 // no room below the ephemeral range: the kernel's pick
		}
		if portsGiven[p] {
			continue
		}
		if p, ok := bindable(p); ok {
			portsGiven[p] = true
			return p
		}
	}
	tb.Fatalf("no free port below %d", low)
	return 0
}

// portsFloor is the lowest port FreePort gives.
const portsFloor = 10000

var (
	portsMu    sync.Mutex
	portsGiven = map[int]bool{}
)

// bindable reports whether port (0: one the kernel picks) can be listened on, TCP and UDP, on
// every address, and which it was.
func bindable(port int) (int, bool) {
	ln, err := net.Listen("tcp", fmt.Sprintf(":%d", port))
	if err != nil {
		return 0, false
	}
	defer ln.Close()
	port = ln.Addr().(*net.TCPAddr).Port
	pc, err := net.ListenPacket("udp", fmt.Sprintf(":%d", port))
	if err != nil {
		return 0, false
	}
	pc.Close()
	return port, true
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

// Clock is a worker's clock that moves only when the test moves it: give its Now.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a clock standing at t.
func NewClock(t time.Time) *Clock { return &Clock{t: t} }

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

// Advance moves the clock on by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}
