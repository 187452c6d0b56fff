package deploy

import (
	"crypto/x509"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rampway/rampway/dashboard"
	"github.com/rampway/rampway/internal/devtest"
)

// proxy is a running reverse proxy.
type proxy struct {
	cmd  *exec.Cmd
	out  *devtest.LockedBuffer
	done chan struct{}
}

// proxyPorts are what a test gives the proxy: its ports, the upstream (rampway's host:port)
// and the certificate's files.
type proxyPorts struct {
	https, http       int
	upstream          string
	certFile, keyFile string
	dir               string
}

// run starts the proxy's command and stops it (SIGTERM) when the test ends.
func runProxy(t *testing.T, cmd *exec.Cmd) *proxy {
	t.Helper()
	p := &proxy{cmd: cmd, out: &devtest.LockedBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.out, p.out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-p.done
		}
		if t.Failed() {
			t.Logf("proxy output:\n%s", p.out)
		}
	})
	return p
}

// deploy/Caddyfile, as it is: the test sets only the environment variables its header names.
func TestCaddy(t *testing.T) {
	t.Parallel()
	caddy := need(t, "caddy")
	testProxy(t, func(t *testing.T, p proxyPorts) *proxy {
		cmd := exec.Command(caddy, "run", "--config", "Caddyfile", "--adapter", "caddyfile")
		home := filepath.Join(p.dir, "caddy-home") // Caddy's storage and autosave, not the machine's
		cmd.Env = append(cleanEnv(), "HOME="+home, "XDG_DATA_HOME="+filepath.Join(home, "data"), "XDG_CONFIG_HOME="+filepath.Join(home, "config"),
			fmt.Sprintf("RAMPWAY_DOMAIN=%s:%d", publicHost, p.https),
			"RAMPWAY_TLS="+p.certFile+" "+p.keyFile,
			"RAMPWAY_UPSTREAM="+p.upstream,
			fmt.Sprintf("CADDY_HTTPS_PORT=%d", p.https),
			fmt.Sprintf("CADDY_HTTP_PORT=%d", p.http),
			fmt.Sprintf("CADDY_ADMIN=127.0.0.1:%d", devtest.FreePort(t)))
		return runProxy(t, cmd)
	}, true)
}

// deploy/nginx.conf inside an http block of the test's own, with the strings its header names
// replaced.
func TestNginx(t *testing.T) {
	t.Parallel()
	nginx := need(t, "nginx")
	testProxy(t, func(t *testing.T, p proxyPorts) *proxy {
		b, err := os.ReadFile("nginx.conf")
		if err != nil {
			t.Fatal(err)
		}
		site := string(b)
		for _, r := range []struct{ old, new string }{
			{"listen 443 ", fmt.Sprintf("listen 127.0.0.1:%d ", p.https)},
			{"listen [::]:443 ", fmt.Sprintf("listen [::1]:%d ", p.https)},
			{"listen 80;", fmt.Sprintf("listen 127.0.0.1:%d;", p.http)},
			{"listen [::]:80;", fmt.Sprintf("listen [::1]:%d;", p.http)},
			{"pay.example.com", publicHost},
			{"/etc/letsencrypt/live/" + publicHost + "/fullchain.pem", p.certFile},
			{"/etc/letsencrypt/live/" + publicHost + "/privkey.pem", p.keyFile},
			{"127.0.0.1:8080", p.upstream},
		} {
			if !strings.Contains(site, r.old) {
				t.Fatalf("nginx.conf has no %q: change the test with it", r.old)
			}
			site = strings.ReplaceAll(site, r.old, r.new)
		}
		sitePath := filepath.Join(p.dir, "rampway.conf")
		user := ""
		if os.Geteuid() == 0 {
			user = "user root;" // the workers write the test's temporary directories
		}
		main := fmt.Sprintf(`%s
daemon off;
pid %[2]s/nginx.pid;
error_log stderr info;
worker_processes 1;
events { worker_connections 256; }
http {
    access_log %[2]s/access.log;
    client_body_temp_path %[2]s/body;
    proxy_temp_path %[2]s/proxy;
    fastcgi_temp_path %[2]s/fastcgi;
    uwsgi_temp_path %[2]s/uwsgi;
    scgi_temp_path %[2]s/scgi;
    include %[3]s;
}
`, user, p.dir, sitePath)
		mainPath := filepath.Join(p.dir, "nginx.conf")
		if err := os.WriteFile(sitePath, []byte(site), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(mainPath, []byte(main), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(nginx, "-t", "-q", "-e", "stderr", "-p", p.dir, "-c", mainPath).CombinedOutput(); err != nil {
			t.Fatalf("nginx -t: %v\n%s", err, out)
		}
		return runProxy(t, exec.Command(nginx, "-e", "stderr", "-p", p.dir, "-c", mainPath))
	}, false)
}

var (
	csrfField      = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)
	invitationLink = regexp.MustCompile(`<code id="invitation-link">([^<]+)</code>`)
)

// testProxy runs a production `rampway serve` (started by the unit's ExecStart) behind the
// proxy that start runs, and goes through the proxy over HTTPS as merchants, users and
// operators do: the admin API onboards a merchant, the merchant API makes and looks up an
// order, its checkout page and its server-sent events answer, the dashboard signs in and makes
// an invitation link. Where rampway builds URLs they are the public https ones: gateway_url
// from http.public_url, the dashboard's links and Secure cookies from the Host the proxy
// passed on (keepsPort: the proxy passes the port too; nginx's $host has none, which on 443
// is the same). Plain HTTP is redirected to HTTPS, and HSTS is set.
func testProxy(t *testing.T, start func(*testing.T, proxyPorts) *proxy, keepsPort bool) {
	began := time.Now()
	w := newWorld(t)
	dir := t.TempDir()
	ports := proxyPorts{https: devtest.FreePort(t), http: devtest.FreePort(t), dir: dir}
	public := fmt.Sprintf("https://%s:%d", publicHost, ports.https)
	cfgPath := w.config(t, fmt.Sprintf(`{addr: "127.0.0.1:0", public_url: %q, trusted_proxies: [127.0.0.1]}`, public),
		fmt.Sprintf(`{driver: sqlite, path: %q}`, filepath.Join(dir, "rampway.db")))
	srv := serve(t, cfgPath, w.env())
	ports.upstream = strings.TrimPrefix(srv.base, "http://")
	cert, certFile, keyFile := selfSigned(t, dir)
	ports.certFile, ports.keyFile = certFile, keyFile
	p := start(t, ports)
	c := browser(t, cert)
	waitHTTPS(t, c, public+"/healthz", p.done, p.out.String)

	// HTTPS with HSTS; plain HTTP redirected to HTTPS.
	res, err := c.Get(public + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Strict-Transport-Security"), "max-age=") {
		t.Fatalf("GET /readyz through the proxy: %d, Strict-Transport-Security %q", res.StatusCode, res.Header.Get("Strict-Transport-Security"))
	}
	res, err = c.Get(fmt.Sprintf("http://%s:%d/healthz?x=1", publicHost, ports.http))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if loc := res.Header.Get("Location"); res.StatusCode/100 != 3 || !strings.HasPrefix(loc, "https://"+publicHost) || !strings.HasSuffix(loc, "/healthz?x=1") {
		t.Fatalf("plain HTTP: %d, Location %q; want a redirect to https://%s…/healthz?x=1", res.StatusCode, loc, publicHost)
	}

	// The admin API and the merchant API, through the proxy.
	s := newShop(t, c, public, w)
	o := s.createOrder(t, c, public, "txn-proxy")
	id, gateway := o["order_id"].(string), o["gateway_url"].(string)
	if !strings.HasPrefix(gateway, public+"/checkout?order_id="+id+"&hash=") {
		t.Fatalf("gateway_url %q is not under the public URL %s", gateway, public)
	}
	got := must(t, c, "GET", public+"/mint/merchant/hosted/nftCheckout/order/"+id, s.key, nil)
	if got["order_id"] != id || got["gateway_url"] != gateway || got["status"] != "CREATED" {
		t.Fatalf("order lookup through the proxy: %v", got)
	}

	// The checkout page and its events.
	res, err = c.Get(gateway)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") ||
		!strings.Contains(res.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'") || !strings.Contains(string(page), id) {
		t.Fatalf("checkout page through the proxy: %d %v\n%.2000s", res.StatusCode, res.Header, page)
	}
	t.Logf("checkout page over %s", res.Proto)
	u, err := url.Parse(gateway)
	if err != nil {
		t.Fatal(err)
	}
	if ev := firstEvent(t, c, public+"/checkout/events?"+u.RawQuery); ev["status"] != "CREATED" {
		t.Fatalf("first status event through the proxy: %v", ev)
	}

	// The dashboard: its cookies are Secure through the proxy (and not on plain http to the
	// loopback upstream, as for rampway dev: the check tells the two apart), and its
	// invitation link is the public https address.
	cookie := func(base string) string {
		res, err := c.Get(base + "/dashboard/login")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.Header.Get("Set-Cookie")
	}
	if sc := cookie(srv.base); sc == "" || strings.Contains(sc, "Secure") {
		t.Fatalf("the upstream's own cookie on plain http to loopback: %q; want one, not Secure", sc)
	}
	if sc := cookie(public); !strings.Contains(sc, "rampway_dashboard_login=") || !strings.Contains(sc, "Secure") {
		t.Fatalf("the dashboard's cookie through the proxy: %q; want it Secure", sc)
	}
	const email, password = "owner@shop.example", "deploy-test-password-1"
	add := exec.Command(rampwayBin(t), "admin", "--config", cfgPath, "users", "add", "--email", email, "--role", "owner", "--merchant", s.id, "--password", password)
	add.Env = w.env()
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("rampway admin users add: %v\n%s", err, out)
	}
	token := formToken(t, c, public+"/dashboard/login")
	res, err = c.PostForm(public+"/dashboard/login", url.Values{"email": {email}, "password": {password}, "csrf_token": {token}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("dashboard sign-in through the proxy: %d", res.StatusCode)
	}
	token = formToken(t, c, public+"/dashboard/users")
	res, err = c.PostForm(public+"/dashboard/users/invite", url.Values{"email": {"dev@shop.example"}, "role": {"developer"}, "csrf_token": {token}})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	m := invitationLink.FindSubmatch(body)
	if res.StatusCode != 200 || m == nil {
		t.Fatalf("invitation through the proxy: %d\n%.3000s", res.StatusCode, body)
	}
	wantBase := "https://" + publicHost
	if keepsPort {
		wantBase = public
	}
	if link := html.UnescapeString(string(m[1])); !strings.HasPrefix(link, wantBase+"/dashboard/invite/") {
		t.Fatalf("invitation link %q; want it under %s", link, wantBase)
	}
	signInThrottlePerClient(t, cert, public, email, password)
	t.Logf("through the proxy in %s (rampway, chain and proxy started)", time.Since(began).Round(time.Millisecond))
}

// signInThrottlePerClient: behind the proxy (http.trusted_proxies: its address), the
// dashboard's sign-in throttle counts each client apart. Five failed sign-ins from one client
// (127.0.0.2), each to another account and each with a forged X-Forwarded-For, lock that
// client out, even with the right password; another client (127.0.0.3) signs in. Without the
// setting every client has the proxy's address, and the second would be locked out too.
func signInThrottlePerClient(t *testing.T, cert *x509.Certificate, public, email, password string) {
	t.Helper()
	signIn := func(c *http.Client, email, password, forged string) int {
		token := formToken(t, c, public+"/dashboard/login")
		req, err := http.NewRequest("POST", public+"/dashboard/login", strings.NewReader(url.Values{"email": {email}, "password": {password}, "csrf_token": {token}}.Encode()))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if forged != "" {
			req.Header.Set("X-Forwarded-For", forged)
		}
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	mallory, alice := browserFrom(t, cert, "127.0.0.2"), browserFrom(t, cert, "127.0.0.3")
	for i := range dashboard.DefaultMaxFailures {
		if code := signIn(mallory, fmt.Sprintf("nobody-%d@shop.example", i), "wrong-password-123", fmt.Sprintf("127.0.0.%d", 10+i)); code != http.StatusUnauthorized {
			t.Fatalf("failed sign-in %d through the proxy: %d, want 401", i+1, code)
		}
	}
	if code := signIn(mallory, email, password, "127.0.0.3"); code != http.StatusTooManyRequests {
		t.Fatalf("the client with %d failures signs in: %d, want 429", dashboard.DefaultMaxFailures, code)
	}
	if code := signIn(alice, email, password, ""); code != http.StatusSeeOther {
		t.Fatalf("another client behind the same proxy: %d, want 303 (signed in): the throttle counted the proxy's address", code)
	}
}

// formToken is the CSRF token of the page's form.
func formToken(t *testing.T, c *http.Client, url string) string {
	t.Helper()
	res, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	m := csrfField.FindSubmatch(b)
	if res.StatusCode != 200 || m == nil {
		t.Fatalf("GET %s: %d, no csrf_token\n%.2000s", url, res.StatusCode, b)
	}
	return html.UnescapeString(string(m[1]))
}
