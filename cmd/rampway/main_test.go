package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rampway/rampway/internal/devtest"
)

// lockedBuffer collects a running command's output.
type lockedBuffer = devtest.LockedBuffer

func noEnv(string) string { return "" }

// startDev runs `rampway dev` in-process on a free port and waits for dev.json.
func startDev(t *testing.T, dir string) (devJSON, func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	out := &lockedBuffer{}
	go func() {
		done <- run(ctx, []string{"dev", "--addr", "127.0.0.1:0", "--rpc-addr", "127.0.0.1:0", "--data-dir", dir}, noEnv, out)
	}()
	dj := waitDevJSON(t, dir, done, out)
	var once sync.Once
	var stopErr error
	stop := func() error {
		once.Do(func() {
			cancel()
			select {
			case stopErr = <-done:
			case <-time.After(30 * time.Second):
				stopErr = errors.New("dev did not stop within 30s")
			}
		})
		return stopErr
	}
	t.Cleanup(func() { _ = stop() })
	t.Cleanup(func() { logProblems(t, out) }) // runs first: the server is still up
	return dj, stop
}

// logProblems logs, for a test that failed, the last warnings and errors the dev server
// logged: what the API or a worker said went wrong (a page test otherwise sees only a status).
func logProblems(t *testing.T, out fmt.Stringer) {
	if !t.Failed() {
		return
	}
	var lines []string
	for l := range strings.Lines(out.String()) {
		if strings.Contains(l, "level=ERROR") || strings.Contains(l, "level=WARN") ||
			strings.Contains(l, `"level":"ERROR"`) || strings.Contains(l, `"level":"WARN"`) {
			lines = append(lines, l)
		}
	}
	if len(lines) > 40 {
		lines = lines[len(lines)-40:]
	}
	t.Logf("the dev server's last %d warnings and errors:\n%s", len(lines), strings.Join(lines, ""))
}

func waitDevJSON(t *testing.T, dir string, done <-chan error, out fmt.Stringer) devJSON {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-done:
			t.Fatalf("dev exited early: %v\n%s", err, out)
		default:
		}
		data, err := os.ReadFile(filepath.Join(dir, devJSONFile))
		if err == nil {
			var dj devJSON
			if err := json.Unmarshal(data, &dj); err != nil {
				t.Fatalf("dev.json: %v\n%s", err, data)
			}
			return dj
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no dev.json after 60s\n%s", out)
	return devJSON{}
}

func post(t *testing.T, url, key string, body string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("X-API-KEY", key)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var v map[string]any
	data, _ := io.ReadAll(res.Body)
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	return res.StatusCode, v
}

func TestDevModeContractAndRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dj, stop := startDev(t, dir)
	if !strings.HasPrefix(dj.API.MintBaseURL, "http://127.0.0.1:") || !strings.HasSuffix(dj.API.MintBaseURL, "/mint") ||
		!strings.HasSuffix(dj.API.NFTRampBaseURL, "/nft-ramp") || !strings.HasSuffix(dj.API.DepositBaseURL, "/deposit") ||
		!strings.HasSuffix(dj.API.AdminBaseURL, "/admin") || dj.AdminToken == "" || dj.Merchant.MerchantID == "" ||
		!strings.HasPrefix(dj.Merchant.APIKey, "rw_test_") || !strings.HasPrefix(dj.Merchant.WebhookSecret, "whsec_") {
		t.Fatalf("dev.json %+v", dj)
	}
	// The exact keys of the contract's parts that this version writes.
	raw, _ := os.ReadFile(filepath.Join(dir, devJSONFile))
	var generic map[string]json.RawMessage
	_ = json.Unmarshal(raw, &generic)
	for _, k := range []string{"api", "admin_token", "merchant", "chain", "assets", "contracts", "smart_contract_functions", "fiat"} {
		if _, ok := generic[k]; !ok {
			t.Fatalf("dev.json lacks %q: %s", k, raw)
		}
	}
	var fiat struct {
		TestCards map[string]string `json:"test_cards"`
	}
	_ = json.Unmarshal(generic["fiat"], &fiat)
	if len(fiat.TestCards) != 3 || fiat.TestCards["success"] == "" || fiat.TestCards["decline"] == "" || fiat.TestCards["three_ds"] == "" {
		t.Fatalf("dev.json fiat: %s", generic["fiat"])
	}
	// The dashboard part, added later: exactly url, email, password; its login works.
	var dash map[string]string
	if err := json.Unmarshal(generic["dashboard"], &dash); err != nil || len(dash) != 3 {
		t.Fatalf("dev.json dashboard: %s (%v)", generic["dashboard"], err)
	}
	devDashboardLogin(t, dj)
	order := dj.API.NFTRampBaseURL + "/merchant/hosted/nftCheckout/order"
	body := `{"merchant_id":"` + dj.Merchant.MerchantID + `"}`
	// Past the key check, B1 refuses this body for what it lacks (400), not for the key.
	if code, v := post(t, order, dj.Merchant.APIKey, body); code != 400 || v["message"] != "contractExecution is required" {
		t.Fatalf("the dev key was refused: %d %v", code, v)
	}
	if code, v := post(t, order, "rw_test_"+strings.Repeat("b", 32), body); code != 401 || v["message"] != "Unauthorized" {
		t.Fatalf("wrong key: %d %v", code, v)
	}
	// Onboard a second merchant through the admin API, then restart: nothing is lost.
	req, _ := http.NewRequest(http.MethodPost, dj.API.AdminBaseURL+"/merchants", strings.NewReader(`{"name":"Second"}`))
	req.Header.Set("Authorization", "Bearer "+dj.AdminToken)
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != 201 {
		t.Fatalf("admin create: %v %v", res, err)
	}
	var second map[string]any
	_ = json.NewDecoder(res.Body).Decode(&second)
	res.Body.Close()

	// No rate limit in dev mode: more requests at once than serve's default burst (200).
	for i := range 250 {
		req, _ := http.NewRequest(http.MethodGet, dj.API.MintBaseURL+"/merchant/hosted/nftCheckout/orders?limit=1", nil)
		req.Header.Set("X-API-KEY", dj.Merchant.APIKey)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Fatalf("request %d: %d, want 200 (no rate limit in dev mode)", i, res.StatusCode)
		}
	}
	// A paid order is executed; a second dev process on the directory is refused.
	payExample(t, dj)
	if err := run(t.Context(), []string{"dev", "--addr", "127.0.0.1:0", "--rpc-addr", "127.0.0.1:0", "--data-dir", dir}, noEnv, io.Discard); err == nil ||
		!strings.Contains(err.Error(), "in use by another rampway dev") {
		t.Fatalf("a second dev on the directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, devJSONFile)); err != nil {
		t.Fatalf("the refused second dev touched dev.json: %v", err)
	}

	if err := stop(); err != nil {
		t.Fatalf("dev did not stop cleanly: %v", err)
	}
	dj2, _ := startDev(t, dir)
	// The chain went on from where it was: the hot wallet's nonces, the watcher's cursor and
	// the orders still match it, so orders paid after the restart are executed too.
	if dj2.Chain.RPCURL == "" {
		t.Fatal("no chain after restart")
	}
	payExample(t, dj2)
	payExample(t, dj2)
	if !reflect.DeepEqual(dj2.Merchant, dj.Merchant) || dj2.AdminToken != dj.AdminToken { // deposit addresses included
		t.Fatalf("restart changed the merchant or keys:\n%+v\n%+v", dj.Merchant, dj2.Merchant)
	}
	if dj2.Dashboard == nil || dj2.Dashboard.Email != dj.Dashboard.Email || dj2.Dashboard.Password != dj.Dashboard.Password {
		t.Fatalf("restart changed the dashboard login: %+v, was %+v", dj2.Dashboard, dj.Dashboard)
	}
	devDashboardLogin(t, dj2)
	if dj2.Contracts != dj.Contracts || len(dj2.SmartContractFunctions) != 3 {
		t.Fatalf("restart moved the contracts or lost functions: %+v %+v", dj.Contracts, dj2.SmartContractFunctions)
	}
	for i, f := range dj2.SmartContractFunctions {
		if f.ID != dj.SmartContractFunctions[i].ID {
			t.Fatalf("restart registered function %d again: %s, was %s", i, f.ID, dj.SmartContractFunctions[i].ID)
		}
	}
	// The demo merchant's logo and its functions' picture moved with the server (another port),
	// and the functions kept their display names.
	base2, admin2 := strings.TrimSuffix(dj2.API.AdminBaseURL, "/admin"), "Bearer "+dj2.AdminToken
	if base2 == strings.TrimSuffix(dj.API.AdminBaseURL, "/admin") {
		t.Fatalf("the restart kept the port %s: this check needs another", base2)
	}
	if m := call(t, "GET", dj2.API.AdminBaseURL+"/merchants/"+dj2.Merchant.MerchantID, admin2, nil); m["logo_url"] != base2+"/demo/assets/logo.svg" {
		t.Fatalf("demo merchant after restart: %v", m)
	}
	for _, f := range dj2.SmartContractFunctions {
		g := call(t, "GET", dj2.API.AdminBaseURL+"/merchants/"+dj2.Merchant.MerchantID+"/contract-functions/"+f.ID, admin2, nil)
		if g["image_url"] != base2+"/demo/assets/nft.svg" || !strings.HasPrefix(g["display_name"].(string), "Demo NFT") {
			t.Fatalf("demo function after restart: %v", g)
		}
	}
	order2 := dj2.API.NFTRampBaseURL + "/merchant/hosted/nftCheckout/order"
	if code, _ := post(t, order2, dj.Merchant.APIKey, body); code != 400 {
		t.Fatalf("key lost across restart: %d", code)
	}
	var out bytes.Buffer
	if err := run(t.Context(), []string{"admin", "--data-dir", dir, "merchants", "get", second["merchant_id"].(string)}, noEnv, &out); err != nil {
		t.Fatalf("admin get after restart: %v", err)
	}
	if !strings.Contains(out.String(), `"name": "Second"`) {
		t.Fatalf("merchant lost across restart: %s", out.String())
	}
}

// devDashboardLogin signs in to the dashboard of a running dev with dev.json's login, over HTTP
// as a browser without scripts would, and fails the test unless it is the demo merchant's
// owner that is signed in.
func devDashboardLogin(t *testing.T, dj devJSON) {
	t.Helper()
	d := dj.Dashboard
	base := strings.TrimSuffix(dj.API.AdminBaseURL, "/admin")
	if d == nil || d.URL != base+"/dashboard/" || d.Email != devDashboardEmail || len(d.Password) < 12 {
		t.Fatalf("dev.json dashboard %+v", d)
	}
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(u string) (*http.Response, string) {
		res, err := c.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, string(b)
	}
	_, page := get(d.URL + "login")
	m := regexp.MustCompile(`name="csrf_token" value="([^"]+)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no sign-in form at %slogin:\n%s", d.URL, page)
	}
	res, err := c.PostForm(d.URL+"login", url.Values{"csrf_token": {m[1]}, "email": {d.Email}, "password": {d.Password}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/dashboard/" {
		t.Fatalf("sign in with dev.json's login: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	res, page = get(d.URL + "users")
	if res.StatusCode != http.StatusOK || !strings.Contains(page, d.Email+" (you)") || !strings.Contains(page, "owner") {
		t.Fatalf("the demo owner's users page: %d\n%s", res.StatusCode, page)
	}
}

// A request in flight when the stop signal comes is answered before the server exits.
func TestShutdownDrainsInFlight(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dj, stop := startDev(t, dir)
	pr, pw := io.Pipe()
	req, _ := http.NewRequest(http.MethodPost, dj.API.NFTRampBaseURL+"/merchant/hosted/nftCheckout/order", pr)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-KEY", dj.Merchant.APIKey)
	// With "Expect: 100-continue" the body goes only once the server says "100 Continue",
	// which it does when the handler first reads the body, and the client waits for that
	// however long it takes: the first write to the body returns once the handler reads it.
	req.Header.Set("Expect", "100-continue")
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.ExpectContinueTimeout = time.Hour
	defer tr.CloseIdleConnections()
	resc := make(chan int, 1)
	go func() {
		res, err := (&http.Client{Transport: tr}).Do(req)
		if err != nil {
			resc <- -1
			return
		}
		res.Body.Close()
		resc <- res.StatusCode
	}()
	if _, err := pw.Write([]byte(`{"merchant_id":`)); err != nil {
		t.Fatal(err)
	}
	// The handler is now reading the body. Stop: the shutdown has begun once the listener is
	// closed (a dial is refused), with the request in flight.
	stopped := make(chan error, 1)
	go func() { stopped <- stop() }()
	u, err := url.Parse(dj.API.NFTRampBaseURL)
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		c, err := net.DialTimeout("tcp", u.Host, 5*time.Second)
		if err != nil {
			break
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatal("still listening 30 s after the stop signal")
		}
	}
	select {
	case err := <-stopped:
		t.Fatalf("server stopped with a request in flight: %v", err)
	default:
	}
	_, _ = pw.Write([]byte(`"` + dj.Merchant.MerchantID + `"}`))
	pw.Close()
	if code := <-resc; code != 400 {
		t.Fatalf("in-flight request got %d, want its answer (400: the body lacks contractExecution)", code)
	}
	if err := <-stopped; err != nil {
		t.Fatalf("stop: %v", err)
	}
}

func TestAdminCLI(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, stop := startDev(t, dir)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	cli := adminCLI(t, dir)
	m, err := cli("merchants", "create", "--name", "CLI Shop", "--webhook-url", "http://127.0.0.1:9999/hook")
	if err != nil || m["name"] != "CLI Shop" {
		t.Fatalf("create: %v %v", m, err)
	}
	id := m["merchant_id"].(string)
	k, err := cli("api-keys", "create", id)
	if err != nil || !strings.HasPrefix(k["api_key"].(string), "rw_test_") {
		t.Fatalf("api-keys create: %v %v", k, err)
	}
	if _, err := cli("api-keys", "revoke", id, k["key_id"].(string)); err != nil {
		t.Fatal(err)
	}
	ws, err := cli("webhook-secret", "rotate", id)
	if err != nil || !strings.HasPrefix(ws["webhook_secret"].(string), "whsec_") {
		t.Fatalf("webhook-secret: %v %v", ws, err)
	}
	u, err := cli("merchants", "update", id, "--status", "disabled")
	if err != nil || u["status"] != "disabled" || u["name"] != "CLI Shop" {
		t.Fatalf("update: %v %v", u, err)
	}
	// The service fee: null (the configured default) until set; "default" goes back to it.
	if fee, ok := m["service_fee_bps"]; !ok || fee != nil {
		t.Fatalf("created without a fee: service_fee_bps %v (present %v), want null", fee, ok)
	}
	for _, step := range []struct {
		args []string
		want any
	}{
		{[]string{"merchants", "create", "--name", "Fee Shop", "--service-fee-bps", "250"}, 250.0},
		{[]string{"merchants", "create", "--name", "Default Shop", "--service-fee-bps", "default"}, nil},
		{[]string{"merchants", "update", id, "--service-fee-bps", "125"}, 125.0},
		{[]string{"merchants", "update", id, "--name", "CLI Shop"}, 125.0},
		{[]string{"merchants", "get", id}, 125.0},
		{[]string{"merchants", "update", id, "--service-fee-bps", "0"}, 0.0},
		{[]string{"merchants", "update", id, "--service-fee-bps", "default"}, nil},
	} {
		v, err := cli(step.args...)
		if fee, ok := v["service_fee_bps"]; err != nil || !ok || fee != step.want {
			t.Fatalf("%v: %v, service_fee_bps %v, want %v", step.args, err, v["service_fee_bps"], step.want)
		}
	}
	var out bytes.Buffer
	if err := run(t.Context(), []string{"admin", "--data-dir", dir, "api-keys", "list", id}, noEnv, &out); err != nil || !strings.Contains(out.String(), `"status": "revoked"`) {
		t.Fatalf("api-keys list: %v %s", err, out.String())
	}
	// Lists print as the HTTP API answers them: a page, and whether more follow.
	for _, args := range [][]string{{"api-keys", "list", id}, {"merchants", "list"}} {
		if page, err := cli(args...); err != nil || len(page["data"].([]any)) == 0 || page["has_more"] != false {
			t.Fatalf("%v: %v %v", args, page, err)
		}
	}
	if page, err := cli("merchants", "list", "--limit", "1"); err != nil || len(page["data"].([]any)) != 1 || page["has_more"] != true {
		t.Fatalf("merchants list --limit 1: %v %v", page, err)
	}
	for _, bad := range [][]string{
		{"merchants", "create", "--name", ""},
		{"merchants", "get", "mch_nope"},
		{"merchants", "get"},
		{"api-keys", "revoke", id, "key_nope"},
		{"merchants", "frobnicate"},
		{"merchants"},
		{"merchants", "update", id, "--status", "paused"},
		{"merchants", "create", "--bogus"},
	} {
		if _, err := cli(bad...); err == nil {
			t.Errorf("admin %v succeeded", bad)
		}
	}
	for _, bad := range []struct {
		args []string
		msg  string
	}{
		{[]string{"merchants", "create", "--name", "x", "--service-fee-bps", "12.5"}, `--service-fee-bps must be an integer between 0 and 10000 or "default", not "12.5"`},
		{[]string{"merchants", "create", "--name", "x", "--service-fee-bps", "10001"}, "service_fee_bps must be between 0 and 10000 (basis points), not 10001"},
		{[]string{"merchants", "update", id, "--service-fee-bps", "-1"}, "service_fee_bps must be between 0 and 10000 (basis points), not -1"},
		{[]string{"merchants", "update", id, "--service-fee-bps", "lots"}, `--service-fee-bps must be an integer`},
		{[]string{"merchants", "update", id, "--service-fee-bps", ""}, `--service-fee-bps must be an integer`},
	} {
		if _, err := cli(bad.args...); err == nil || !strings.Contains(err.Error(), bad.msg) {
			t.Errorf("admin %v: %v, want an error with %q", bad.args, err, bad.msg)
		}
	}
	if v, err := cli("merchants", "get", id); err != nil || v["service_fee_bps"] != nil {
		t.Fatalf("refused fees changed the merchant: %v %v", v, err)
	}
	if err := run(t.Context(), []string{"admin", "merchants", "list"}, noEnv, io.Discard); err == nil {
		t.Error("admin without --config or --data-dir succeeded")
	}
}

func TestAdminCLIContractFunctions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dj, _ := startDev(t, dir)
	cli := func(args ...string) (map[string]any, error) {
		var out bytes.Buffer
		err := run(t.Context(), append([]string{"admin", "--data-dir", dir}, args...), noEnv, &out)
		var v map[string]any
		if err == nil {
			_ = json.Unmarshal(out.Bytes(), &v)
		}
		return v, err
	}
	abiFile := filepath.Join(t.TempDir(), "mint.json")
	if err := os.WriteFile(abiFile, dj.SmartContractFunctions[0].ABI, 0o600); err != nil {
		t.Fatal(err)
	}
	mid := dj.Merchant.MerchantID
	f, err := cli("contract-functions", "register", mid, "--network", "devnet", "--address", dj.Contracts.NFT,
		"--abi", "@"+abiFile, "--gas-limit", "250000", "--payable-symbol", "ETH")
	if err != nil || f["signature"] != "mint(address,uint256)" || f["status"] != "active" {
		t.Fatalf("register: %v %v", f, err)
	}
	id := f["smartContractFunctionId"].(string)
	if _, err := cli("contract-functions", "register", mid, "--network", "devnet", "--address", dj.Contracts.NFT,
		"--abi", string(dj.SmartContractFunctions[0].ABI), "--gas-limit", "250000", "--payable-symbol", "DUSD"); err == nil ||
		!strings.Contains(err.Error(), "must not be payable") {
		t.Fatalf("a token paid to a payable function: %v", err)
	}
	if g, err := cli("contract-functions", "get", mid, id); err != nil || g["smartContractFunctionId"] != id {
		t.Fatalf("get: %v %v", g, err)
	}
	if d, err := cli("contract-functions", "disable", mid, id); err != nil || d["status"] != "disabled" {
		t.Fatalf("disable: %v %v", d, err)
	}
	var out bytes.Buffer
	if err := run(t.Context(), []string{"admin", "--data-dir", dir, "contract-functions", "list", mid}, noEnv, &out); err != nil || strings.Count(out.String(), "smartContractFunctionId") != 4 {
		t.Fatalf("list: %v %s", err, out.String())
	}
	if _, err := cli("contract-functions", "get", mid, "scf_nope"); err == nil {
		t.Fatal("get of an unknown function succeeded")
	}
}

func writeConfig(t *testing.T, dbPath string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "rampway.yaml")
	cfg := fmt.Sprintf(`http:
  addr: 127.0.0.1:0
  public_url: https://pay.example.com
database:
  driver: sqlite
  path: %s
admin:
  token: prod-admin-token-0123456789abcdef0123
secrets:
  hash_secret: prod-hash-secret-0123456789abcdef0123
`, dbPath)
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestServeMigrateAdminWithConfig(t *testing.T) {
	t.Parallel()
	cfgPath := writeConfig(t, filepath.Join(t.TempDir(), "prod.db"))
	var out bytes.Buffer
	files, _ := filepath.Glob("../../sqlite/migrations/*.sql")
	want := fmt.Sprintf("applied %d migration(s)", len(files))
	if err := run(t.Context(), []string{"migrate", "--config", cfgPath}, noEnv, &out); err != nil || len(files) == 0 || !strings.Contains(out.String(), want) {
		t.Fatalf("migrate: %v %s", err, out.String())
	}
	out.Reset()
	if err := run(t.Context(), []string{"migrate", "--config", cfgPath}, noEnv, &out); err != nil || !strings.Contains(out.String(), "applied 0 migration(s)") {
		t.Fatalf("second migrate: %v %s", err, out.String())
	}
	out.Reset()
	if err := run(t.Context(), []string{"admin", "--config", cfgPath, "merchants", "create", "--name", "Prod", "--webhook-url", "http://127.0.0.1/x"}, noEnv, &out); err == nil {
		t.Fatal("production accepted a loopback http webhook URL")
	}
	if err := run(t.Context(), []string{"admin", "--config", cfgPath, "merchants", "create", "--name", "Prod"}, noEnv, &out); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	_ = json.Unmarshal(out.Bytes(), &m)
	out.Reset()
	if err := run(t.Context(), []string{"admin", "--config", cfgPath, "api-keys", "create", m["merchant_id"].(string)}, noEnv, &out); err != nil || !strings.Contains(out.String(), `"api_key": "rw_live_`) {
		t.Fatalf("production key: %v %s", err, out.String())
	}
	if err := run(t.Context(), []string{"serve"}, noEnv, io.Discard); err == nil {
		t.Fatal("serve without --config succeeded")
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("http:\n  public_url: https://x.example\ndatabase:\n  driver: mysql\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := run(t.Context(), []string{"serve", "--config", bad}, noEnv, io.Discard); err == nil || !strings.Contains(err.Error(), "database.driver") {
		t.Fatalf("serve with an invalid config: %v", err)
	}
	// serve starts and, once listening, stops on cancel.
	if _, _, stop := startServe(t, cfgPath, noEnv); stop() != nil {
		t.Fatalf("serve: %v", stop())
	}
}

func TestCommands(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := run(t.Context(), []string{"version"}, noEnv, &out); err != nil || !strings.HasPrefix(out.String(), "rampway ") {
		t.Fatalf("version: %v %q", err, out.String())
	}
	if err := run(t.Context(), []string{"frob"}, noEnv, io.Discard); err == nil {
		t.Fatal("unknown command succeeded")
	}
	if err := run(t.Context(), nil, noEnv, io.Discard); err == nil {
		t.Fatal("no command succeeded")
	}
}

// The real binary: SIGTERM stops `rampway dev` with exit status 0.
func TestBinarySIGTERM(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	dir := t.TempDir()
	cmd := exec.Command(bin, "dev", "--addr", "127.0.0.1:0", "--rpc-addr", "127.0.0.1:0", "--data-dir", dir)
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	waitDevJSON(t, dir, done, out)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v\n%s", err, out)
		}
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("no exit 30s after SIGTERM\n%s", out)
	}
	if !strings.Contains(out.String(), "stopped") {
		t.Fatalf("no clean stop in the log:\n%s", out)
	}
	// Asking for help is not an error: the usage, exit status 0; a wrong flag is one.
	for _, args := range [][]string{{"--help"}, {"dev", "--help"}, {"serve", "-h"}, {"migrate", "--help"}} {
		out, err := exec.Command(bin, args...).CombinedOutput()
		if err != nil || !strings.Contains(strings.ToLower(string(out)), "usage") {
			t.Fatalf("rampway %v: %v\n%s", args, err, out)
		}
	}
	if out, err := exec.Command(bin, "dev", "--frob").CombinedOutput(); err == nil {
		t.Fatalf("rampway dev --frob exited 0:\n%s", out)
	}
}

// An open checkout page (its server-sent-events stream) does not hold the shutdown: the
// stream ends when the stop signal comes and the server exits cleanly, without waiting out
// its shutdown timeout.
func TestShutdownEndsCheckoutStreams(t *testing.T) {
	t.Parallel()
	dj, stop := startDev(t, t.TempDir())
	o := createExample(t, dj)
	events := strings.Replace(o["gateway_url"].(string), "/checkout?", "/checkout/events?", 1)
	res, err := http.Get(events)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("events: %v %v", res, err)
	}
	defer res.Body.Close()
	first, err := bufio.NewReader(res.Body).ReadString('\n')
	if err != nil || first != "event: status\n" {
		t.Fatalf("stream began %q, %v", first, err)
	}
	if err := stop(); err != nil {
		t.Fatalf("stop with a stream open: %v", err)
	}
}

// A first start that fails (here: the API port in use, found before the chain starts) says
// why, with no panic, and leaves a directory the next start opens.
func TestDevFailedFirstStart(t *testing.T) {
	t.Parallel()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	dir := t.TempDir()
	err = run(t.Context(), []string{"dev", "--addr", busy.Addr().String(), "--rpc-addr", "127.0.0.1:0", "--data-dir", dir}, noEnv, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "listen on") {
		t.Fatalf("dev on a busy port: %v", err)
	}
	dj, _ := startDev(t, dir)
	payExample(t, dj)
}

// adminCLI runs `rampway admin --data-dir dir [prefix...] args...` in this process and decodes
// its output, one JSON object (the test fails when it is not); an error is the command's.
func adminCLI(t *testing.T, dir string, prefix ...string) func(args ...string) (map[string]any, error) {
	return func(args ...string) (map[string]any, error) {
		t.Helper()
		var out bytes.Buffer
		err := run(t.Context(), append(append([]string{"admin", "--data-dir", dir}, prefix...), args...), noEnv, &out)
		var v map[string]any
		if err == nil {
			if jerr := json.Unmarshal(out.Bytes(), &v); jerr != nil {
				t.Fatalf("%v: output %s is not one JSON object", args, out.String())
			}
		}
		return v, err
	}
}

// TestVersionOf: a release's version as set at build time, else the installed module's, else the
// commit built, else dev.
func TestVersionOf(t *testing.T) {
	info := func(main string, settings ...debug.BuildSetting) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) {
			return &debug.BuildInfo{Main: debug.Module{Path: "github.com/rampway/rampway", Version: main}, Settings: settings}, true
		}
	}
	rev := debug.BuildSetting{Key: "vcs.revision", Value: "1d58bb8f0e2c4a7b9d3e5f60718293a4b5c6d7e8"}
	for _, c := range []struct {
		set  string
		read func() (*debug.BuildInfo, bool)
		want string
	}{
		{"v1.4.0", info("v1.3.0", rev), "v1.4.0"},
		{"", info("v1.3.0", rev), "v1.3.0"},
		{"", info("(devel)", rev), "dev-1d58bb8f0e2c"},
		{"", info("(devel)", rev, debug.BuildSetting{Key: "vcs.modified", Value: "true"}), "dev-1d58bb8f0e2c-dirty"},
		{"", info("(devel)"), "dev"},
		{"", func() (*debug.BuildInfo, bool) { return nil, false }, "dev"},
	} {
		if got := versionOf(c.set, c.read); got != c.want {
			t.Errorf("versionOf(%q, ...) = %q, want %q", c.set, got, c.want)
		}
	}
}
