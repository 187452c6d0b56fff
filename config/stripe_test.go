package config

import (
	"os"
	"strings"
	"testing"
)

// The Stripe keys come from the environment, each of its kind and all of one mode.
func TestStripeKeys(t *testing.T) {
	raw, err := os.ReadFile("testdata/invalid/fiat-stripe-keys.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name          string
		sk, pk, whsec string
		want          string // "" for valid
	}{
		{"test keys", "sk_test_abc", "pk_test_abc", "whsec_abc", ""},
		{"live keys", "sk_live_abc", "pk_live_abc", "whsec_abc", ""},
		{"restricted key", "rk_live_abc", "pk_live_abc", "whsec_abc", ""},
		{"modes mixed", "sk_live_abc", "pk_test_abc", "whsec_abc", "fiat.provider (RAMPWAY_STRIPE_PUBLISHABLE_KEY): and RAMPWAY_STRIPE_SECRET_KEY must both be test keys or both live keys"},
		{"swapped", "pk_test_abc", "sk_test_abc", "whsec_abc", "fiat.provider (RAMPWAY_STRIPE_SECRET_KEY): must start with sk_test_ or sk_live_"},
		{"bad webhook secret", "sk_test_abc", "pk_test_abc", "abc", "fiat.provider (RAMPWAY_STRIPE_WEBHOOK_SECRET): must start with whsec_"},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := map[string]string{"RAMPWAY_STRIPE_SECRET_KEY": c.sk, "RAMPWAY_STRIPE_PUBLISHABLE_KEY": c.pk, "RAMPWAY_STRIPE_WEBHOOK_SECRET": c.whsec,
				EnvDepositXPub: "xpub6EHr8hPN3fQ2Tm4S3ZnsXkvyk9K7a5hUp3eVjUpeGzJ4t7VmERqZYp1fV9eZ6xF7wz1ZxvA2WEaYGrXUa3hLyX7a4K2bHuDqmS8ufzu3fHh"}
			cfg, err := Parse(strings.NewReader(string(raw)), func(k string) string { return env[k] })
			if err == nil {
				err = cfg.Validate()
			}
			got := ""
			if err != nil {
				got = err.Error()
			}
			if c.want == "" && strings.Contains(got, "STRIPE") || c.want != "" && !strings.Contains(got, c.want) {
				t.Fatalf("errors %q, want %q", got, c.want)
			}
		})
	}
}
