package quickstart

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"go/format"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rampway/rampway/internal/devtest"
)

// The commands of the page's sh blocks that the tests do, in the page's words. A sh line that
// runs rampway must be one of these (or dev pay, whose order id the server prints).
var (
	shDev      = "go run ./cmd/rampway dev"
	shListen   = "go run ./cmd/rampway listen --forward-to http://127.0.0.1:3000/hooks"
	shRequired = []string{
		shDev,
		"mkdir shop && cd shop",
		"go mod init shop",
		"go mod edit -replace github.com/rampway/rampway=../rampway",
		"go get github.com/rampway/rampway/client",
		"go run .",
		shListen,
		"(cd rampway/sdk/js && npm ci && npm run build)",
		"mkdir shop-ts && cd shop-ts",
		"npm init -y && npm pkg set type=module",
		"npm install ../rampway/sdk/js",
	}
	devPayLine = regexp.MustCompile(`^go run ./cmd/rampway dev pay ord_\S+$`)
)

func readDoc(t *testing.T) []Block {
	t.Helper()
	doc, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := Blocks(string(doc))
	if err != nil {
		t.Fatalf("docs/quickstart.md: %v", err)
	}
	return blocks
}

// Every Go and TypeScript block of the page is run: a whole file (`// quickstart: FILE` on its
// first line) or a one-line change to main.go or main.ts, which the rampway listen run makes.
// The Go is gofmt-formatted, and the shell commands are the ones the tests do.
func TestSnippets(t *testing.T) {
	blocks := readDoc(t)
	for _, lang := range []string{"go", "ts"} {
		files, err := Files(blocks, lang)
		if err != nil {
			t.Fatal(err)
		}
		if files["main."+lang] == "" {
			t.Errorf("no %s block marked // quickstart: main.%s", lang, lang)
		}
		if _, err := applyEdits(files["main."+lang], edits(blocks, lang)); err != nil {
			t.Errorf("%s: %v", lang, err)
		}
	}
	files, _ := Files(blocks, "go")
	for name, src := range files {
		if got, err := format.Source([]byte(src)); err != nil {
			t.Errorf("%s: %v", name, err)
		} else if string(got) != src {
			t.Errorf("%s is not gofmt-formatted; formatted, it is:\n%s", name, got)
		}
	}

	var sh []string
	for _, b := range blocks {
		if b.Lang == "sh" {
			sh = append(sh, strings.Split(strings.TrimSpace(b.Text), "\n")...)
		}
	}
	for _, want := range shRequired {
		if !slices.Contains(sh, want) {
			t.Errorf("no sh line %q: the tests do it", want)
		}
	}
	for _, line := range sh {
		if strings.HasPrefix(line, "go run ./cmd/rampway") && line != shDev && line != shListen && !devPayLine.MatchString(line) {
			t.Errorf("sh line %q: the tests do not run it", line)
		}
	}
}

// edits are the page's unmarked blocks of lang: one-line changes to its main file.
func edits(blocks []Block, lang string) []string {
	var out []string
	for _, b := range blocks {
		if b.Lang == lang && b.File == "" {
			out = append(out, b.Text)
		}
	}
	return out
}

// applyEdits replaces, for each edit, the one line of src that assigns the same name
// (`webhookURL := ...`, `const webhookUrl = ...`).
func applyEdits(src string, edits []string) (string, error) {
	if len(edits) == 0 {
		return "", fmt.Errorf("no one-line change for the rampway listen run")
	}
	lines := strings.SplitAfter(src, "\n")
	for _, e := range edits {
		e = strings.TrimSpace(e)
		lhs, _, ok := strings.Cut(e, "=")
		if !ok || strings.Contains(e, "\n") {
			return "", fmt.Errorf("the change %q is not one assignment", e)
		}
		var at []int
		for i, l := range lines {
			if strings.HasPrefix(strings.TrimSpace(l), lhs+"=") {
				at = append(at, i)
			}
		}
		if len(at) != 1 {
			return "", fmt.Errorf("the change %q: %d lines assign %s, want 1", e, len(at), strings.TrimSuffix(strings.TrimSpace(lhs), " :"))
		}
		indent := lines[at[0]][:len(lines[at[0]])-len(strings.TrimLeft(lines[at[0]], " \t"))]
		lines[at[0]] = indent + e + "\n"
	}
	return strings.Join(lines, ""), nil
}

// TestQuickstartGo does what the page says, in Go: rampway dev started in a directory named
// rampway, the module shop next to it with the page's files (its replace directive names this
// checkout), and the server run for each area, paid as the page says, to SUCCESS and its
// verified order.success; then once more with the page's change for rampway listen, whose
// forwarded deliveries are all it gets.
func TestQuickstartGo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs rampway dev and the quickstart's server")
	}
	blocks := readDoc(t)
	files, err := Files(blocks, "go")
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	rampwayDir := filepath.Join(work, "rampway")
	bin := devtest.BuildRampway(t)
	startDev(t, bin, rampwayDir)

	shop := buildShop(t, root, filepath.Join(work, "shop"), files)
	listenFiles := map[string]string{}
	for name, src := range files {
		listenFiles[name] = src
	}
	listenFiles["main.go"], err = applyEdits(files["main.go"], edits(blocks, "go"))
	if err != nil {
		t.Fatal(err)
	}
	shopListen := buildShop(t, root, filepath.Join(work, "shop-listen"), listenFiles)

	for _, area := range []string{"A", "B", "C"} {
		t.Run("area "+area, func(t *testing.T) {
			t.Parallel()
			runJourney(t, bin, rampwayDir, area, devtest.FreePort(t), func(port int) *proc {
				return start(t, filepath.Dir(shop), shop, "-area", area, "-port", strconv.Itoa(port))
			})
		})
	}
	t.Run("rampway listen", func(t *testing.T) {
		t.Parallel()
		port := devtest.FreePort(t)
		args := strings.Fields(strings.TrimPrefix(strings.Replace(shListen, ":3000/", fmt.Sprintf(":%d/", port), 1), "go run ./cmd/rampway "))
		listen := start(t, rampwayDir, bin, args...)
		listen.waitLine(t, regexp.MustCompile(`ready: forwarding`), 30*time.Second)
		orderID := runJourney(t, bin, rampwayDir, "A", port, func(port int) *proc {
			return start(t, filepath.Dir(shopListen), shopListen, "-port", strconv.Itoa(port))
		})
		listen.waitLine(t, regexp.MustCompile(`order\.success\s+`+orderID+`\s+evt_\S+\s+-> 200 OK`), 30*time.Second)
	})
}

// runJourney runs the quickstart's server for area on port, pays its order as the page says
// (area A with rampway dev pay, B and C with the test card on the checkout page), and waits
// until the server says it is SUCCESS after the area's events, verified. It returns the order
// id.
func runJourney(t *testing.T, rampwayBin, rampwayDir, area string, port int, run func(port int) *proc) string {
	t.Helper()
	shop := run(port)
	m := shop.waitLine(t, regexp.MustCompile(`^order (ord_\S+) created; its checkout page: (\S+)$`), 60*time.Second)
	orderID, gateway := m[1], m[2]
	if area == "A" {
		open(t, gateway) // the page says: open it in a browser to watch
		cmd := shop.waitLine(t, regexp.MustCompile(`^pay it, in the rampway directory: (go run ./cmd/rampway dev pay ord_\S+)$`), time.Minute)[1]
		if !devPayLine.MatchString(cmd) || !strings.HasSuffix(cmd, " "+orderID) {
			t.Fatalf("the server asks to pay with %q", cmd)
		}
		args := strings.Fields(strings.TrimPrefix(cmd, "go run ./cmd/rampway "))
		pay := exec.CommandContext(t.Context(), rampwayBin, args...)
		pay.Dir = rampwayDir
		if out, err := pay.CombinedOutput(); err != nil {
			t.Fatalf("rampway %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	} else {
		shop.waitLine(t, regexp.MustCompile(`^pay it there with the test card 4242 4242 4242 4242, expiry 12/34, security code 123$`), time.Minute)
		devtest.PayCard(t, gateway, "4242424242424242")
	}
	shop.waitLine(t, regexp.MustCompile(`^order `+orderID+` is SUCCESS: execution tx 0x[0-9a-f]{64}$`), 90*time.Second)
	// The user back on the merchant's /thanks page, as the checkout page sends them: the server
	// says done and exits, freeing its port for the next area's run.
	back := fmt.Sprintf("http://127.0.0.1:%d/thanks?order_id=%s&status=SUCCESS", port, orderID)
	if page := open(t, back); !strings.Contains(page, "Thank you! Order "+orderID+" is SUCCESS.") {
		t.Errorf("GET %s: %q", back, page)
	}
	shop.waitLine(t, regexp.MustCompile(`^done$`), 30*time.Second)
	shop.waitExit(t, 30*time.Second)

	var got []string
	event := regexp.MustCompile(`^webhook (\S+): order ` + orderID + ` \(cart-[0-9-]+\) is [A-Z_]+$`)
	for _, l := range shop.output() {
		if m := event.FindStringSubmatch(l); m != nil {
			got = append(got, m[1])
		}
	}
	want := map[string][]string{
		"A": {"order.created", "user.widget.open", "order.deposit.processing", "order.deposit.success",
			"order.smartcontract.processing", "order.smartcontract.success", "order.success"},
		"B": {"order.created", "user.widget.open", "order.onramp.processing", "order.onramp.success",
			"order.smartcontract.processing", "order.smartcontract.success", "order.success"},
		"C": {"order.created", "user.widget.open", "order.onramp.processing", "order.onramp.success",
			"order.deposit.processing", "order.deposit.success", "order.success"},
	}[area]
	if !slices.Equal(got, want) {
		t.Errorf("the server received and verified %v, want %v", got, want)
	}
	return orderID
}

// buildShop makes the page's module shop in dir, as the page does (go mod init, the replace
// directive, go get, then its files), with root for ../rampway, and vets and builds it. Offline: rampway's go.sum is
// copied in, and modules come from the module cache alone.
func buildShop(t *testing.T, root, dir string, files map[string]string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off"}
	goCmd(t, dir, env, "mod", "init", "shop")
	goCmd(t, dir, env, "mod", "edit", "-replace", "github.com/rampway/rampway="+root)
	goCmd(t, dir, env, "get", "github.com/rampway/rampway/client")
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	goCmd(t, dir, env, "vet", ".")
	goCmd(t, dir, env, "build", "-o", "shop", ".")
	return filepath.Join(dir, "shop")
}

func goCmd(t *testing.T, dir string, env []string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute) // a cold build cache takes minutes
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s (in %s): %v\n%s", strings.Join(args, " "), dir, err, out)
	}
}

// startDev runs `rampway dev` in dir as the page does (its data directory .rampway-dev), on
// free ports, until the test ends, and waits for its dev.json.
func startDev(t *testing.T, bin, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	args := append(strings.Fields(strings.TrimPrefix(shDev, "go run ./cmd/rampway ")),
		"--addr", "127.0.0.1:0", "--rpc-addr", "127.0.0.1:0")
	dev := start(t, dir, bin, args...)
	deadline := time.Now().Add(90 * time.Second)
	for {
		raw, err := os.ReadFile(filepath.Join(dir, ".rampway-dev", "dev.json"))
		var dj struct {
			API struct {
				Mint string `json:"mint_base_url"`
			} `json:"api"`
		}
		if err == nil && json.Unmarshal(raw, &dj) == nil && dj.API.Mint != "" {
			return
		}
		if dev.exited() {
			t.Fatalf("rampway dev exited:\n%s", strings.Join(dev.output(), "\n"))
		}
		if time.Now().After(deadline) {
			t.Fatalf("no dev.json after 90 s:\n%s", strings.Join(dev.output(), "\n"))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// proc is a process the test started, with its output lines.
type proc struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}

	mu    sync.Mutex
	lines []string
	cond  chan struct{} // closed and replaced when a line comes or the process ends
}

// start runs name with args in dir until the test ends, when it is interrupted (killed 20 s
// later); its output is logged when the test fails.
func start(t *testing.T, dir, name string, args ...string) *proc {
	t.Helper()
	p := &proc{name: filepath.Base(name) + " " + strings.Join(args, " "), cmd: exec.Command(name, args...),
		done: make(chan struct{}), cond: make(chan struct{})}
	p.cmd.Dir = dir
	r, w := io.Pipe()
	p.cmd.Stdout, p.cmd.Stderr = w, w
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			p.mu.Lock()
			p.lines = append(p.lines, sc.Text())
			close(p.cond)
			p.cond = make(chan struct{})
			p.mu.Unlock()
		}
	}()
	go func() {
		_ = p.cmd.Wait()
		w.Close()
		close(p.done)
		p.mu.Lock()
		close(p.cond)
		p.cond = make(chan struct{})
		p.mu.Unlock()
	}()
	t.Cleanup(func() {
		_ = p.cmd.Process.Signal(os.Interrupt)
		select {
		case <-p.done:
		case <-time.After(time.Minute):
			_ = p.cmd.Process.Kill()
			<-p.done
			t.Errorf("%s did not stop within a minute of an interrupt", p.name)
		}
		if t.Failed() || testing.Verbose() {
			t.Logf("%s:\n%s", p.name, strings.Join(p.output(), "\n"))
		}
	})
	return p
}

func (p *proc) output() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.lines)
}

// waitExit waits for the process to exit on its own, with status 0.
func (p *proc) waitExit(t *testing.T, limit time.Duration) {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(limit):
		t.Fatalf("%s did not exit within %v:\n%s", p.name, limit, strings.Join(p.output(), "\n"))
	}
	if code := p.cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("%s exited with status %d:\n%s", p.name, code, strings.Join(p.output(), "\n"))
	}
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// waitLine waits for a line of output matching re and returns its submatches.
func (p *proc) waitLine(t *testing.T, re *regexp.Regexp, limit time.Duration) []string {
	t.Helper()
	deadline := time.After(limit)
	for {
		p.mu.Lock()
		for _, l := range p.lines {
			if m := re.FindStringSubmatch(l); m != nil {
				p.mu.Unlock()
				return m
			}
		}
		next := p.cond
		p.mu.Unlock()
		if p.exited() {
			// Its last line may have come between the look above and the exit: one more look.
			for _, l := range p.output() {
				if m := re.FindStringSubmatch(l); m != nil {
					return m
				}
			}
			t.Fatalf("%s exited without printing %s:\n%s", p.name, re, strings.Join(p.output(), "\n"))
		}
		select {
		case <-next:
		case <-deadline:
			t.Fatalf("%s did not print %s within %v:\n%s", p.name, re, limit, strings.Join(p.output(), "\n"))
		}
	}
}

// open fetches a page as a browser opening it would.
func open(t *testing.T, page string) string {
	t.Helper()
	res, err := (&http.Client{Timeout: 20 * time.Second}).Get(page)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d\n%s", page, res.StatusCode, b)
	}
	return string(b)
}
