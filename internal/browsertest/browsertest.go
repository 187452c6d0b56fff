// Package browsertest drives rampway's pages in a real headless Chromium for tests, through the
// DevTools protocol (github.com/chromedp/chromedp).
//
// New finds the browser (RAMPWAY_CHROMIUM, then chromium, chromium-browser, google-chrome on
// PATH), skipping the test when there is none, except under CI=true, where a missing browser
// fails it (.ci/run installs Debian's chromium). Each call starts one browser with a fresh
// profile; it stops when the test ends.
//
// Screenshot saves full-page PNGs for people to look at (see ScreenshotDir for where), and
// CheckAccessibility runs an accessibility check inside the page (names, labels, alt texts,
// document structure, text contrast).
package browsertest

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/rampway/rampway/internal/devtest"
)

// EnvChromium names the variable that overrides the browser's path.
const EnvChromium = "RAMPWAY_CHROMIUM"

// EnvScreenshots names the variable holding the directory screenshots go to (one
// subdirectory per test).
const EnvScreenshots = "RAMPWAY_SCREENSHOTS"

// Timeout bounds each browser step of the helpers here (a navigation, an evaluation, a
// screenshot), so a stuck browser fails the test instead of hanging it. It is a bound for a
// stuck test, not a margin: a step returns as soon as it is done.
const Timeout = time.Minute

// candidates are the browser names looked up on PATH, in order.
var candidates = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// Chromium returns the path of the browser to run. Without one it skips the test, or fails
// it when CI=true.
func Chromium(tb testing.TB) string {
	tb.Helper()
	if p := os.Getenv(EnvChromium); p != "" {
		path, err := exec.LookPath(p)
		if err != nil {
			tb.Fatalf("%s=%s: %v", EnvChromium, p, err)
		}
		return path
	}
	for _, name := range candidates {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	for _, path := range []string{"/usr/bin/chromium", "/usr/bin/chromium-browser"} { // when PATH lacks /usr/bin
		if fi, err := os.Stat(path); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return path
		}
	}
	if os.Getenv("CI") == "true" {
		tb.Fatalf("no Chromium (%s, or set %s): browser tests must run in CI; install it with `apt-get install -y chromium`",
			strings.Join(candidates, ", "), EnvChromium)
	}
	tb.Skipf("no Chromium (%s, or set %s); skipping browser test", strings.Join(candidates, ", "), EnvChromium)
	return ""
}

// New starts a headless Chromium for the test and returns the context of its tab, for
// chromedp calls. The browser and its profile go away when the test ends; if the test failed,
// the page's console messages and the browser's output are logged. An uncaught exception in a
// page, or anything its Content-Security-Policy blocked, fails the test.
func New(tb testing.TB) context.Context {
	tb.Helper()
	exe := Chromium(tb)
	profile := tb.TempDir() // removed after the browser has stopped: cleanups run last-in first-out
	out := &devtest.LockedBuffer{}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.UserDataDir(profile),
		chromedp.Headless,
		chromedp.NoSandbox, // root in containers has no user namespaces for the sandbox
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(1280, 900),
		chromedp.CombinedOutput(out),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	con := &console{}
	tb.Cleanup(func() {
		cancel()
		cancelAlloc() // waits for the process to exit
		con.mu.Lock()
		defer con.mu.Unlock()
		if len(con.exceptions) > 0 {
			tb.Errorf("uncaught exceptions or CSP violations in the page:\n  %s", strings.Join(con.exceptions, "\n  "))
		}
		if tb.Failed() {
			if len(con.lines) > 0 {
				tb.Logf("page console:\n  %s", strings.Join(con.lines, "\n  "))
			}
			tb.Logf("%s output (without D-Bus noise):\n%s", filepath.Base(exe), withoutDBus(out.String()))
		}
	})
	start := time.Now()
	// The first call starts the browser and ties it to its context: it gets ctx itself, and a
	// watchdog for the timeout.
	watchdog := time.AfterFunc(Timeout, cancel)
	err := chromedp.Do(ctx)
	watchdog.Stop()
	if err != nil {
		tb.Fatalf("start %s: %v\n%s", exe, err, withoutDBus(out.String()))
	}
	tb.Logf("%s started in %s", exe, time.Since(start).Round(time.Millisecond))
	msgs := chromedp.Console(ctx)
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			con.add(m)
		}
	}()
	return ctx
}

type console struct {
	mu         sync.Mutex
	lines      []string
	exceptions []string
}

func (c *console) add(m chromedp.ConsoleMessage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	line := fmt.Sprintf("%s %s: %s", m.Type, m.URL, m.Text)
	c.lines = append(c.lines, line)
	if m.IsException() || strings.Contains(m.Text, "Content Security Policy") {
		c.exceptions = append(c.exceptions, line)
	}
}

// withoutDBus drops the lines of a browser's output about D-Bus, which containers lack.
func withoutDBus(s string) string {
	var keep []string
	for line := range strings.Lines(s) {
		if !strings.Contains(line, "dbus") {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "")
}

// Do runs actions in the tab, failing the test on the first error or after Timeout.
func Do(tb testing.TB, ctx context.Context, actions ...chromedp.Action[chromedp.Void]) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		tb.Fatal(err)
	}
}

// Eval evaluates a JavaScript expression in the page and returns its value as T, failing the
// test on an error.
func Eval[T any](tb testing.TB, ctx context.Context, expr string) T {
	tb.Helper()
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		tb.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// WaitFor evaluates expr every 50 ms until ok accepts its value, and returns that value. Errors
// in between (a navigation destroying the page's context, say) are retried; after limit the
// test fails with the last value or error. limit only bounds a stuck test: it is never less
// than Timeout, so that a page merely slow on a loaded machine does not fail it.
func WaitFor[T any](tb testing.TB, ctx context.Context, what, expr string, limit time.Duration, ok func(T) bool) T {
	tb.Helper()
	limit = max(limit, Timeout)
	deadline := time.Now().Add(limit)
	for {
		ectx, cancel := context.WithTimeout(ctx, 5*time.Second)
		v, err := chromedp.Run(ectx, chromedp.Evaluate[T](expr))
		cancel()
		if err == nil && ok(v) {
			return v
		}
		if time.Now().After(deadline) {
			if err != nil {
				tb.Fatalf("waiting %s for %s: %v (%s)", limit, what, err, whereIsPage(ctx))
			}
			tb.Fatalf("waiting %s for %s: last value %v (%s)", limit, what, v, whereIsPage(ctx))
		}
		if ctx.Err() != nil {
			tb.Fatalf("waiting for %s: %v", what, ctx.Err())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// whereIsPage says, for a failure message, which page the browser is on and how far loaded.
func whereIsPage(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	at, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href + " " + document.readyState +
	  [...document.querySelectorAll("[role=alert]")].map(e => e.textContent.trim()).filter(s => s).map(s => ", alert: " + s).join("")`))
	if err != nil {
		return "the page does not answer: " + err.Error()
	}
	return "the page is " + at
}

var (
	dirsMu sync.Mutex
	dirs   = map[string]string{} // test name -> its screenshot directory
)

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// ScreenshotDir returns the directory the test's screenshots go to, creating it:
//
//   - $RAMPWAY_SCREENSHOTS/<test name>/ when that variable is set (.ci/run sets it);
//   - else, under `go test -artifacts [-outputdir DIR]`, the test's artifact directory
//     (DIR/_artifacts/<package>/<test>/...; see go doc testing.T.ArtifactDir);
//   - else $TMPDIR/rampway-screenshots/<test name>/.
//
// All three are kept after the test; the first and the last are emptied when a test starts
// using them, so they hold the latest run. The directory is logged once per test.
func ScreenshotDir(tb testing.TB) string {
	tb.Helper()
	dirsMu.Lock()
	defer dirsMu.Unlock()
	if d, ok := dirs[tb.Name()]; ok {
		return d
	}
	name := unsafeName.ReplaceAllString(strings.ReplaceAll(tb.Name(), "/", "__"), "_")
	dir, fresh := filepath.Join(os.TempDir(), "rampway-screenshots", name), false
	if env := os.Getenv(EnvScreenshots); env != "" {
		dir = filepath.Join(env, name)
	} else if f := flag.Lookup("test.artifacts"); f != nil && f.Value.String() == "true" {
		dir, fresh = tb.ArtifactDir(), true // new and empty
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if !fresh {
		if err := os.RemoveAll(dir); err != nil { // the images of an earlier run
			tb.Fatal(err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	tb.Logf("screenshots in %s", dir)
	dirs[tb.Name()] = dir
	return dir
}

// Screenshot saves a full-page PNG of the tab as ScreenshotDir(tb)/name.png.
func Screenshot(tb testing.TB, ctx context.Context, name string) {
	tb.Helper()
	dir := ScreenshotDir(tb)
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	var png []byte
	for {
		var err error
		png, err = chromedp.Run(ctx, chromedp.FullScreenshot(100)) // 100: PNG
		if err == nil {
			break
		}
		// Right after a navigation the new page may not be laid out yet: Chromium answers
		// "Cannot take screenshot with 0 width". That passes within a frame or two.
		if !strings.Contains(err.Error(), "0 width") || ctx.Err() != nil {
			tb.Fatalf("screenshot %s: %v", name, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		tb.Fatal(err)
	}
}
