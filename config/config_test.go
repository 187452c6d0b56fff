package config

import (
	"fmt"
	"github.com/rampway/rampway/chain/hd"

	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func noEnv(string) string { return "" }

func TestValidConfigs(t *testing.T) {
	files, _ := filepath.Glob("testdata/valid/*.yaml")
	if len(files) == 0 {
		t.Fatal("no valid fixtures")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			if _, err := Load(f, noEnv); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// Each invalid fixture's first line says "# want: <text>", a part of the error it must give.
func TestInvalidConfigs(t *testing.T) {
	files, _ := filepath.Glob("testdata/invalid/*.yaml")
	if len(files) == 0 {
		t.Fatal("no invalid fixtures")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			want := wantLine(t, f)
			_, err := Load(f, noEnv)
			if err == nil {
				t.Fatalf("accepted; want an error containing %q", want)
			}
			if !strings.Contains(err.Error(), want) {
				t.Fatalf("error %q does not contain %q", err, want)
			}
		})
	}
}

func wantLine(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan()
	want, ok := strings.CutPrefix(sc.Text(), "# want: ")
	if !ok {
		t.Fatalf("%s: first line must be '# want: ...'", path)
	}
	return want
}

func TestDefaultsAndValues(t *testing.T) {
	c, err := Load("testdata/valid/minimal.yaml", noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if c.Mode != ModeProduction || c.HTTP.Addr != ":8080" || c.HTTP.MaxBodyBytes != 1<<20 ||
		c.HTTP.BasePaths != (BasePaths{"/mint", "/nft-ramp", "/deposit", "/admin"}) || c.Database.Driver != "sqlite" {
		t.Fatalf("defaults not applied: %+v", c)
	}
	if w := c.Webhooks; w.Workers != 128 || w.PerMerchant != 16 || w.SlowAfter != 250*time.Millisecond || w.Timeout != 10*time.Second {
		t.Fatalf("webhook defaults not applied: %+v", w)
	}
	if c.HTTP.RateLimit != (RateLimit{RequestsPerSecond: 100, Burst: 200}) {
		t.Fatalf("rate limit defaults not applied: %+v", c.HTTP.RateLimit)
	}
	c, err = Load("testdata/valid/postgres.yaml", noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if c.HTTP.ShutdownTimeout != time.Minute || c.HTTP.ReadTimeout != 15*time.Second || c.HTTP.WriteTimeout != 60*time.Second ||
		c.HTTP.BasePaths.Admin != "/ops/admin" || c.Database.MaxOpenConns != 40 {
		t.Fatalf("values not read: %+v", c)
	}
}

func TestRateLimit(t *testing.T) {
	minimal, err := os.ReadFile("testdata/valid/minimal.yaml")
	if err != nil {
		t.Fatal(err)
	}
	with := func(rateLimit string) string {
		return strings.Replace(string(minimal), "http:\n", "http:\n  rate_limit: "+rateLimit+"\n", 1)
	}
	for _, tc := range []struct {
		yaml string
		want RateLimit
	}{
		{"{requests_per_second: 2.5, burst: 5}", RateLimit{2.5, 5}},
		{"{requests_per_second: 0}", RateLimit{0, 200}}, // off
		{"{requests_per_second: 0, burst: 0}", RateLimit{0, 0}},
		{"{burst: 1000}", RateLimit{100, 1000}},
	} {
		c, err := Parse(strings.NewReader(with(tc.yaml)), noEnv)
		if err != nil {
			t.Fatalf("%s: %v", tc.yaml, err)
		}
		if c.HTTP.RateLimit != tc.want {
			t.Fatalf("%s: read %+v, want %+v", tc.yaml, c.HTTP.RateLimit, tc.want)
		}
	}
	for _, tc := range []struct{ yaml, want string }{
		{"{requests_per_second: -1}", "http.rate_limit.requests_per_second: must be 0 (no limit) or between 0.01 and 1000000, not -1"},
		{"{requests_per_second: .nan}", "http.rate_limit.requests_per_second: must be 0 (no limit) or between 0.01 and 1000000, not NaN"},
		{"{requests_per_second: .inf}", "http.rate_limit.requests_per_second:"},
		{"{requests_per_second: 0.001}", "http.rate_limit.requests_per_second:"},
		{"{burst: -3}", "http.rate_limit.burst: must be between 1 and 1000000 (requests_per_second: 0 turns the limit off), not -3"},
		{"{requests_per_second: 0, burst: -3}", "http.rate_limit.burst:"},
		{"{burst: 0}", "http.rate_limit.burst:"},
		{"{burst: 2000000}", "http.rate_limit.burst:"},
		{"{requests: 5}", "field requests not found"},
	} {
		if _, err := Parse(strings.NewReader(with(tc.yaml)), noEnv); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", tc.yaml, err, tc.want)
		}
	}
}

func TestEnvironmentOverrides(t *testing.T) {
	env := map[string]string{
		EnvAdminToken:    "env-admin-token-0123456789abcdef0123",
		EnvHashSecret:    "env-hash-secret-0123456789abcdef0123",
		EnvEncryptionKey: "env-encryption-key-0123456789abcdef",
		EnvDatabaseDSN:   "postgres://env@localhost/db",
	}
	c, err := Load("testdata/valid/postgres.yaml", func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if c.Admin.Token != env[EnvAdminToken] || c.Secrets.HashSecret != env[EnvHashSecret] ||
		c.Secrets.EncryptionKey != env[EnvEncryptionKey] || c.Database.DSN != env[EnvDatabaseDSN] {
		t.Fatalf("environment not applied: %+v", c)
	}
	// Secrets may live only in the environment.
	if _, err := Load("testdata/invalid/admin-token-missing.yaml", func(k string) string { return env[k] }); err != nil {
		t.Fatalf("admin token from the environment refused: %v", err)
	}
}

func TestAllErrorsReported(t *testing.T) {
	c := Default()
	c.Mode = "x"
	c.Database.Driver = "x"
	err := c.Validate()
	for _, field := range []string{"mode:", "http.public_url:", "database.driver:", "admin.token:", "secrets.hash_secret:"} {
		if err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("error %v does not name %s", err, field)
		}
	}
}

func TestMissingFile(t *testing.T) {
	if _, err := Load("testdata/none.yaml", noEnv); err == nil {
		t.Fatal("missing file accepted")
	}
}

func TestNetworks(t *testing.T) {
	c, err := Load("testdata/valid/networks.yaml", func(k string) string {
		if k == "RPC_KEY" {
			return "secret-key"
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	if c.Networks[0].RPCURLs[0] != "https://rpc.example/secret-key" {
		t.Fatalf("RPC URL not expanded: %q", c.Networks[0].RPCURLs[0])
	}
	nets := c.DomainNetworks()
	if len(nets) != 2 {
		t.Fatalf("%d networks", len(nets))
	}
	if c.Networks[0].InternalMode() != InternalTransfersBalance || c.Networks[0].Multicall3 != "0xcA11bde05977b3631167028862bE2a173976CA11" ||
		c.Networks[1].InternalMode() != InternalTransfersTrace {
		t.Fatalf("internal transfers %q %q, %q", c.Networks[0].InternalTransfers, c.Networks[0].Multicall3, c.Networks[1].InternalTransfers)
	}
	if (Network{}).InternalMode() != InternalTransfersOff {
		t.Fatal("internal_transfers is not off by default")
	}
	sep := nets[0]
	if sep.Name != "sepolia" || sep.ChainID.Uint64() != 11155111 || sep.Confirmations != 3 || sep.ExplorerURL == "" ||
		sep.RPCTimeout != 5*time.Second || nets[1].RPCTimeout != 0 {
		t.Fatalf("network %+v", sep)
	}
	eth, ok := sep.Asset("ETH")
	if !ok || !eth.IsNative() || eth.Decimals != 18 || eth.Min.String() != "1000000000000000" || eth.Max.String() != "10000000000000000000" || eth.Network != "sepolia" {
		t.Fatalf("native %+v", eth)
	}
	usdc, ok := sep.Asset("USDC")
	if !ok || usdc.IsNative() || usdc.Decimals != 6 || usdc.Min.String() != "1000000" || usdc.Contract.Hex() != "0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238" {
		t.Fatalf("token %+v", usdc)
	}
	if usdc.ApproveReset {
		t.Fatal("USDC approves without a reset")
	}
	if usdt, ok := sep.Asset("USDT"); !ok || !usdt.ApproveReset || usdt.Decimals != 6 {
		t.Fatalf("token %+v, want approve_reset", usdt)
	}
	if _, ok := sep.Asset("DAI"); ok {
		t.Fatal("unknown symbol found")
	}
	if dev, _ := nets[1].Asset("ETH"); dev.Min != nil || dev.Max != nil {
		t.Fatalf("unbounded asset got bounds: %+v", dev)
	}
}

func TestHotWalletKeyFromEnvironmentOnly(t *testing.T) {
	const fixture = "testdata/invalid/checkout-reprice.yaml" // valid but for the reprice blocks
	data, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	valid := strings.Replace(string(data), "executor_reprice_blocks: 0", "executor_reprice_blocks: 5", 1)
	// The fixture's hot_wallet_address is 0x1c7D...; this key belongs to another address.
	const otherKey = "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
	for _, tc := range []struct {
		name, key, want string
	}{
		{"not a key", "0x1234", "secrets.hot_wallet_key: (RAMPWAY_HOT_WALLET_KEY) is not a 32-byte hex private key"},
		{"another wallet's key", otherKey, "checkout.hot_wallet_address: is 0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238 but RAMPWAY_HOT_WALLET_KEY is the key of 0x2c7536E3605D9C16a7a3D7b1898e529396a65c23"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(valid), func(k string) string {
				if k == EnvHotWalletKey {
					return tc.key
				}
				return ""
			})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
			if strings.Contains(err.Error(), strings.TrimPrefix(tc.key, "0x")) {
				t.Fatalf("the error shows the key: %v", err)
			}
		})
	}
	// A key in the file is not read: hot_wallet_key is not a file field.
	inFile := strings.Replace(valid, "secrets:\n", "secrets:\n  hot_wallet_key: "+otherKey+"\n", 1)
	if _, err := Parse(strings.NewReader(inFile), func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), "hot_wallet_key") {
		t.Fatalf("a hot wallet key in the file: got %v, want it refused", err)
	}
}

func TestDepositXPrvMustMatchXPub(t *testing.T) {
	data, err := os.ReadFile("testdata/invalid/checkout-reprice.yaml")
	if err != nil {
		t.Fatal(err)
	}
	valid := strings.Replace(string(data), "executor_reprice_blocks: 0", "executor_reprice_blocks: 5", 1)
	m, _ := hd.NewMnemonic() // the fixture's xpub is of the "test ... junk" seed
	other, _ := hd.FromMnemonic(m, "")
	for _, tc := range []struct{ name, yaml, xprv, want string }{
		{"not an xprv", valid, "xprv-nope", "secrets.deposit_xprv: (RAMPWAY_DEPOSIT_XPRV) is not an extended private key"},
		{"no treasury", valid, other.XPrv(), "checkout.treasury_address: is required to sweep"},
		{"another seed", strings.Replace(valid, "checkout:\n", "checkout:\n  treasury_address: \"0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238\"\n", 1), other.XPrv(),
			"secrets.deposit_xprv: (RAMPWAY_DEPOSIT_XPRV) is not the private key of checkout.deposit_xpub"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tc.yaml), func(k string) string {
				if k == EnvDepositXPrv {
					return tc.xprv
				}
				return ""
			})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "xprv9") {
				t.Fatalf("the error shows the key: %v", err)
			}
		})
	}
}

// The dashboard is served in dev mode, and in production only when the configuration says so.
func TestDashboardEnabled(t *testing.T) {
	yes, no := true, false
	for _, c := range []struct {
		mode    string
		enabled *bool
		want    bool
	}{{ModeDev, nil, true}, {ModeProduction, nil, false}, {ModeProduction, &yes, true}, {ModeDev, &no, false}} {
		if got := (Config{Mode: c.mode, Dashboard: Dashboard{Enabled: c.enabled}}).DashboardEnabled(); got != c.want {
			t.Errorf("mode %s, enabled %v: %v, want %v", c.mode, c.enabled, got, c.want)
		}
	}
}

func TestTrustedProxies(t *testing.T) {
	minimal, err := os.ReadFile("testdata/valid/minimal.yaml")
	if err != nil {
		t.Fatal(err)
	}
	with := func(list string) string {
		return strings.Replace(string(minimal), "http:\n", "http:\n  trusted_proxies: "+list+"\n", 1)
	}
	c, err := Parse(strings.NewReader(with(`[127.0.0.1, "::1", 10.0.0.0/8, 192.168.1.7/16]`)), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.HTTP.TrustedProxyPrefixes()
	if err != nil {
		t.Fatal(err)
	}
	if want := "[127.0.0.1/32 ::1/128 10.0.0.0/8 192.168.0.0/16]"; fmt.Sprint(got) != want {
		t.Fatalf("read %v, want %s", got, want)
	}
	if c, err := Parse(strings.NewReader(string(minimal)), noEnv); err != nil || len(c.HTTP.TrustedProxies) != 0 {
		t.Fatalf("default: %v %v, want none trusted", c.HTTP.TrustedProxies, err)
	}
	for _, bad := range []string{`[localhost]`, `[10.0.0.0/33]`, `["fe80::1%eth0"]`, `[""]`} {
		if _, err := Parse(strings.NewReader(with(bad)), noEnv); err == nil || !strings.Contains(err.Error(), "http.trusted_proxies: ") {
			t.Errorf("%s: got %v, want an http.trusted_proxies error", bad, err)
		}
	}
}
