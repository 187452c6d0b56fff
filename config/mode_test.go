package config

import (
	"strings"
	"testing"

	_ "github.com/rampway/rampway/provider/all" // the provider modules the configuration names
)

// Payment providers are per mode: the sandbox serves test mode only, Stripe the mode of its
// keys; a mode may have several (a payment takes the first that takes its currency and method);
// production has none unless configured (never the sandbox by default), and a mode without one
// offers no fiat methods.
func TestProviderModes(t *testing.T) {
	stripeEnv := func(mode string) map[string]string {
		return map[string]string{"RAMPWAY_STRIPE_SECRET_KEY": "sk_" + mode + "_abc", "RAMPWAY_STRIPE_PUBLISHABLE_KEY": "pk_" + mode + "_abc", "RAMPWAY_STRIPE_WEBHOOK_SECRET": "whsec_abc"}
	}
	for _, c := range []struct {
		name       string
		mode, fiat string
		env        map[string]string
		test, live string // the providers of each mode
		err        string
	}{
		{"production default: none", "production", "", nil, "", "", ""},
		{"dev default: the sandbox", "dev", "", nil, "sandbox", "", ""},
		{"sandbox in production: test mode only", "production", "fiat: {provider: sandbox}", nil, "sandbox", "", ""},
		{"stripe live keys: live mode", "production", "fiat: {provider: stripe}", stripeEnv("live"), "", "stripe", ""},
		{"stripe test keys: test mode", "production", "fiat: {provider: stripe}", stripeEnv("test"), "stripe", "", ""},
		{"sandbox for test, stripe for live", "production", "fiat: {providers: [sandbox, stripe]}", stripeEnv("live"), "sandbox", "stripe", ""},
		{"two test providers", "production", "fiat: {providers: [sandbox, stripe]}", stripeEnv("test"), "sandbox,stripe", "", ""},
		{"the sandbox under two names", "dev", "fiat: {providers: [sandbox, {name: sandbox-eu, module: sandbox, currencies: [EUR]}]}", nil, "sandbox,sandbox-eu", "", ""},
		{"one name twice", "dev", "fiat: {providers: [sandbox, {name: sandbox, module: sandbox}]}", nil, "", "", "fiat.providers[1].name: sandbox is used twice"},
		{"a method the module does not take", "dev", "fiat: {providers: [{name: sb, module: sandbox, methods: [sepa_debit]}]}", nil, "", "", `fiat.providers[0].methods[0]: sandbox does not take "sepa_debit"`},
		{"a field misspelt", "dev", "fiat: {providers: [{name: sb, module: sandbox, currency: [EUR]}]}", nil, "", "", "field currency not found in a provider"},
		{"an option the module does not take", "dev", "fiat: {providers: [{name: sb, module: sandbox, options: {color: red}}]}", nil, "", "", `fiat.providers[0].options.color: sandbox takes no option "color"`},
		{"a currency not configured", "dev", "fiat: {providers: [{name: sb, module: sandbox, currencies: [JPY]}]}", nil, "", "", `fiat.providers[0].currencies[0]: "JPY" is not among fiat.currencies`},
		{"both forms", "production", "fiat: {provider: sandbox, providers: [sandbox]}", nil, "", "", "fiat.provider: and fiat.providers are both set"},
		{"unknown", "production", "fiat: {providers: [adyen]}", nil, "", "", `fiat.providers[0]: must be among [sandbox stripe], not "adyen"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc := "mode: " + c.mode + "\nhttp: {public_url: \"https://pay.example.com\"}\nadmin: {token: 0123456789abcdef0123456789abcdef-admin}\n" +
				"secrets: {hash_secret: 0123456789abcdef0123456789abcdef-hash}\n" + c.fiat + "\n"
			if c.mode == "dev" {
				doc = strings.Replace(doc, "0123456789abcdef0123456789abcdef-admin", "dev_0123456789abcdef0123456789abcdef", 1)
			}
			cfg, err := Parse(strings.NewReader(doc), func(k string) string { return c.env[k] })
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(cfg.ModeProviders(false), ","); got != c.test {
				t.Fatalf("test mode's providers %q, want %q", got, c.test)
			}
			if got := strings.Join(cfg.ModeProviders(true), ","); got != c.live {
				t.Fatalf("live mode's providers %q, want %q", got, c.live)
			}
			for _, live := range []bool{false, true} {
				if n := len(cfg.FiatCurrencies(live)); (n > 0) != (len(cfg.ModeProviders(live)) > 0) {
					t.Fatalf("live %v: %d currencies with providers %v", live, n, cfg.ModeProviders(live))
				}
			}
		})
	}
}

// Dev mode is test mode throughout: its networks default to test and cannot be live.
func TestDevNetworksAreTest(t *testing.T) {
	doc := `mode: dev
http: {public_url: "http://127.0.0.1:8080"}
admin: {token: dev_0123456789abcdef0123456789abcdef}
secrets: {hash_secret: 0123456789abcdef0123456789abcdef-hash}
checkout:
  deposit_xpub: xpub6DyUKdwoLWmUJ4Tn9Bbsdtx7B5Ws18mEN19e5HT52ikE53FiUheSQXrZUNPovqfyKmw4579A1Mm3GXXKM39N64uooBfJ4tNAzFsEbodRTx4
  hot_wallet_address: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
networks:
  - {name: devnet, chain_id: 9999, rpc_urls: ["http://127.0.0.1:8545"], native: {symbol: ETH}}
`
	cfg, err := Parse(strings.NewReader(doc), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if nets := cfg.DomainNetworks(); nets[0].Livemode {
		t.Fatal("a dev network without a mode is live")
	}
	_, err = Parse(strings.NewReader(strings.Replace(doc, "{name: devnet,", "{name: devnet, mode: live,", 1)), noEnv)
	if err == nil || !strings.Contains(err.Error(), "networks[0].mode: must be test in dev mode") {
		t.Fatalf("a live network in dev mode: %v", err)
	}
}
