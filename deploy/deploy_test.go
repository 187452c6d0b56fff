// Package deploy holds the example deployment files of rampway (a TLS reverse proxy in Caddy
// and in nginx, a systemd unit) and the tests that run them, and the backup and restore of
// both databases, against real processes: the proxy itself, `rampway serve` started by the
// unit's own ExecStart, pg_dump and pg_restore (docs/production.md).
package deploy

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chain/devchain"
	"github.com/rampway/rampway/chain/devchain/devchaintest"
	"github.com/rampway/rampway/chain/hd"
	"github.com/rampway/rampway/contract"
	"github.com/rampway/rampway/internal/devtest"
)

// The secrets of every test's service (production refuses shorter ones and dev ones).
const (
	adminToken    = "deploy-test-admin-token-0123456789abcdef"
	hashSecret    = "deploy-test-hash-secret-0123456789abcdef"
	encryptionKey = "deploy-test-encryption-key-0123456789abcd"
)

// The unit's paths that a test replaces with its own (deploy/rampway.service's header says so).
const (
	unitBinary = "/usr/local/bin/rampway"
	unitConfig = "/etc/rampway/rampway.yaml"
)

var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "rampway-deploy-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// rampwayBin is the rampway binary, built once for the package's tests (or $RAMPWAY_BIN).
func rampwayBin(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("RAMPWAY_BIN"); bin != "" {
		return bin
	}
	gobin := devtest.GoCommand(t)
	root := devtest.ModuleRoot(t)
	buildOnce.Do(func() {
		builtBin = filepath.Join(binDir, "rampway")
		cmd := exec.Command(gobin, "build", "-o", builtBin, "./cmd/rampway")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build ./cmd/rampway: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

// need returns the path of an external program the test runs: without it the test skips,
// except under CI=true, where it fails (.ci/run installs it).
func need(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed: .ci/run installs it", name)
		}
		t.Skipf("%s is not installed", name)
	}
	return p
}

// world is what a test's service runs on: an embedded chain with the demo contracts, the hot
// wallet funded on it, and the deposit seed's xpub.
type world struct {
	chain  *devchain.Chain
	hotKey *ecdsa.PrivateKey
	xpub   string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	hot, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	ether := new(big.Int).Mul(big.NewInt(100), big.NewInt(1e18))
	ch := devchaintest.Start(t, devchain.Funding{Address: crypto.PubkeyToAddress(hot.PublicKey), Wei: ether})
	mnemonic, err := hd.NewMnemonic()
	if err != nil {
		t.Fatal(err)
	}
	seed, err := hd.FromMnemonic(mnemonic, "")
	if err != nil {
		t.Fatal(err)
	}
	xpub, err := seed.XPub()
	if err != nil {
		t.Fatal(err)
	}
	return &world{chain: ch, hotKey: hot, xpub: xpub}
}

// config writes a production configuration: the given http and database sections (YAML flow
// maps), the world's test network, and the dashboard on.
func (w *world) config(t *testing.T, httpSection, databaseSection string) string {
	t.Helper()
	cfg := fmt.Sprintf(`http: %s
database: %s
networks:
  - name: devnet
    mode: test
    chain_id: %d
    rpc_urls: [%q]
    confirmations: 1
    native: {symbol: ETH, min_amount: "0.000001", max_amount: "100"}
checkout:
  deposit_xpub: %s
  hot_wallet_address: %q
  prices: {ETH: "3000"}
dashboard: {enabled: true}
log: {level: info, format: json}
`, httpSection, databaseSection, devchain.ChainID, w.chain.RPCURL(), w.xpub, crypto.PubkeyToAddress(w.hotKey.PublicKey).Hex())
	path := filepath.Join(t.TempDir(), "rampway.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// env is the service's environment: what an operator puts in /etc/rampway/rampway.env.
func (w *world) env() []string {
	return append(cleanEnv(), "RAMPWAY_ADMIN_TOKEN="+adminToken, "RAMPWAY_HASH_SECRET="+hashSecret,
		"RAMPWAY_ENCRYPTION_KEY="+encryptionKey, "RAMPWAY_HOT_WALLET_KEY="+hex.EncodeToString(crypto.FromECDSA(w.hotKey)))
}

// cleanEnv is this process's environment without rampway's own variables.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "RAMPWAY_") {
			env = append(env, kv)
		}
	}
	return env
}

// execStart is deploy/rampway.service's ExecStart command line, split into words.
func execStart(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("rampway.service")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "ExecStart="); ok {
			return strings.Fields(v)
		}
	}
	t.Fatal("rampway.service has no ExecStart")
	return nil
}

// server is a running `rampway serve` process.
type server struct {
	cmd  *exec.Cmd
	out  *devtest.LockedBuffer
	base string // http://127.0.0.1:PORT, the address it listens on
	done chan struct{}
}

var listening = regexp.MustCompile(`"msg":"listening","addr":"([^"]+)"`)

// serve starts rampway as deploy/rampway.service does, with its binary and configuration path
// replaced by the test's, and waits until it listens. It is stopped (SIGTERM) when the test ends.
func serve(t *testing.T, cfgPath string, env []string) *server {
	t.Helper()
	args := execStart(t)
	var replaced int
	for i, a := range args {
		switch a {
		case unitBinary:
			args[i] = rampwayBin(t)
			replaced++
		case unitConfig:
			args[i] = cfgPath
			replaced++
		}
	}
	if replaced != 2 {
		t.Fatalf("rampway.service's ExecStart %q does not name %s and %s: change the test with it", execStart(t), unitBinary, unitConfig)
	}
	s := &server{cmd: exec.Command(args[0], args[1:]...), out: &devtest.LockedBuffer{}, done: make(chan struct{})}
	s.cmd.Env = env
	s.cmd.Stdout, s.cmd.Stderr = s.out, s.out
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.cmd.Wait(); close(s.done) }()
	t.Cleanup(func() { s.stop(t) })
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if m := listening.FindStringSubmatch(s.out.String()); m != nil {
			s.base = "http://" + m[1]
			return s
		}
		select {
		case <-s.done:
			t.Fatalf("rampway serve exited at start:\n%s", s.out)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("rampway serve is not listening after 60 s:\n%s", s.out)
		}
	}
}

// stop sends SIGTERM, as systemd does, and waits for a clean exit (status 0); it returns how
// long the stop took.
func (s *server) stop(t *testing.T) time.Duration {
	t.Helper()
	select {
	case <-s.done:
		return 0
	default:
	}
	start := time.Now()
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(60 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
		t.Errorf("rampway serve did not stop within 60 s of SIGTERM:\n%s", s.out)
	}
	took := time.Since(start)
	if code := s.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("rampway serve exited with status %d after SIGTERM:\n%s", code, s.out)
	}
	return took
}

// api sends a request with a JSON body (nil: none) and auth (an API key, or "Bearer " and the
// admin token), and returns the status and the decoded answer.
func api(t *testing.T, c *http.Client, method, url, auth string, body any) (int, map[string]any) {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		r = strings.NewReader(string(b))
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if strings.HasPrefix(auth, "Bearer ") {
		req.Header.Set("Authorization", auth)
	} else if auth != "" {
		req.Header.Set("X-API-KEY", auth)
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s %s: %d %s", method, url, res.StatusCode, data)
	}
	return res.StatusCode, v
}

// must is api for a request that must succeed.
func must(t *testing.T, c *http.Client, method, url, auth string, body any) map[string]any {
	t.Helper()
	status, v := api(t, c, method, url, auth, body)
	if status >= 300 {
		t.Fatalf("%s %s: %d %v", method, url, status, v)
	}
	return v
}

// shop is a merchant with a test-mode API key and the demo NFT's mint registered.
type shop struct {
	id, key string
	order   map[string]any // the body of an A1 order of one mint, paid in ETH
}

// newShop onboards a merchant through the admin API at base.
func newShop(t *testing.T, c *http.Client, base string, w *world) *shop {
	t.Helper()
	admin := "Bearer " + adminToken
	id := must(t, c, "POST", base+"/admin/merchants", admin, map[string]any{"name": "Deploy Shop"})["merchant_id"].(string)
	key := must(t, c, "POST", base+"/admin/merchants/"+id+"/api-keys", admin, map[string]any{"mode": "test"})["api_key"].(string)
	frag, err := contract.FunctionFragment(devchain.NFTABI(), "mint")
	if err != nil {
		t.Fatal(err)
	}
	f := must(t, c, "POST", base+"/admin/merchants/"+id+"/contract-functions", admin, map[string]any{"network": "devnet",
		"contract_address": w.chain.Contracts().NFT.Hex(), "abi": json.RawMessage(frag), "default_gas_limit": 200000, "payable_symbol": "ETH"})
	to := common.BigToAddress(big.NewInt(0xDE9107))
	return &shop{id: id, key: key, order: map[string]any{"merchant_id": id, "crypto_symbol": "ETH", "crypto_network": "devnet",
		"merchant_user_id": "u1", "merchant_redirect_url": "https://shop.example/done",
		"contractExecution": map[string]any{"smartContractFunctionId": f["smartContractFunctionId"],
			"function_args":  map[string]any{"to": to.Hex(), "quantity": "1"},
			"payment":        map[string]any{"payableCryptoSymbol": "ETH", "totalValue": rampway.FormatUnits(big.NewInt(devchain.NFTPriceWei), 18)},
			"network_params": map[string]any{"networkName": "devnet"}}}}
}

// createOrder creates an order of s through base and returns its answer.
func (s *shop) createOrder(t *testing.T, c *http.Client, base, txn string) map[string]any {
	t.Helper()
	body := map[string]any{"merchant_txn_id": txn}
	for k, v := range s.order {
		body[k] = v
	}
	return must(t, c, "POST", base+"/mint/merchant/hosted/nftCheckout/order", s.key, body)
}

// publicHost is the host name of the tests' public URL: a name, not an address, as in
// production (the client resolves it to 127.0.0.1 itself).
const publicHost = "pay.rampway.test"

// selfSigned writes a self-signed certificate of publicHost and its key into dir.
func selfSigned(t *testing.T, dir string) (cert *x509.Certificate, certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: publicHost}, DNSNames: []string{publicHost},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	if cert, err = x509.ParseCertificate(der); err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	return cert, certFile, keyFile
}

// browser is an HTTPS client that trusts cert, resolves publicHost to 127.0.0.1, keeps
// cookies and does not follow redirects (the tests look at them).
func browser(t *testing.T, cert *x509.Certificate) *http.Client { return browserFrom(t, cert, "") }

// browserFrom is browser, connecting from the loopback address local (127.0.0.2, say: all of
// 127/8 is the loopback interface's), so that a proxy sees clients with addresses of their own.
func browserFrom(t *testing.T, cert *x509.Certificate, local string) *http.Client {
	t.Helper()
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	var d net.Dialer
	if local != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(local)}
	}
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{
		TLSClientConfig:   &tls.Config{RootCAs: pool},
		ForceAttemptHTTP2: true,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if host, port, err := net.SplitHostPort(addr); err == nil && host == publicHost {
				addr = net.JoinHostPort("127.0.0.1", port)
			}
			return d.DialContext(ctx, network, addr)
		},
	}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// waitHTTPS waits until url answers over HTTPS (the proxy is up), or the process ends.
func waitHTTPS(t *testing.T, c *http.Client, url string, done <-chan struct{}, log func() string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		res, err := c.Get(url)
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case <-done:
			t.Fatalf("the proxy exited at start:\n%s", log())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: no answer within 30 s (%v):\n%s", url, err, log())
		}
	}
}

// firstEvent reads the server-sent events at url until the first "status" event and returns
// its data.
func firstEvent(t *testing.T, c *http.Client, url string) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("GET %s: %d %s", url, res.StatusCode, res.Header.Get("Content-Type"))
	}
	sc := bufio.NewScanner(res.Body)
	event := ""
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "event: "); ok {
			event = v
		}
		if v, ok := strings.CutPrefix(line, "data: "); ok && event == "status" {
			var data map[string]any
			if err := json.Unmarshal([]byte(v), &data); err != nil {
				t.Fatalf("status event %q: %v", v, err)
			}
			return data
		}
	}
	t.Fatalf("GET %s: no status event (%v)", url, sc.Err())
	return nil
}
