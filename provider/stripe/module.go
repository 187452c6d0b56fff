package stripe

import (
	"context"
	_ "embed"
	"strings"
	"time"

	"github.com/rampway/rampway/provider"
)

// The environment variables of an instance (provider.Settings.Env): RAMPWAY_STRIPE_SECRET_KEY
// and so on for an instance named stripe. Secrets come from the environment only.
const (
	EnvSecretKey      = "SECRET_KEY"
	EnvPublishableKey = "PUBLISHABLE_KEY"
	EnvWebhookSecret  = "WEBHOOK_SECRET"
	// EnvAPIURL points the instance at another API (stripe-mock), in dev mode only: tests run
	// journeys against it.
	EnvAPIURL = "API_URL"
)

var (
	//go:embed widget/element.html
	widgetTemplate string
	//go:embed widget/element.js
	widgetScript []byte
)

// Stripe.js's origins, named in the CSP of a page that mounts the Element.
const (
	stripeJS    = "https://js.stripe.com"
	stripeHooks = "https://hooks.stripe.com"
	stripeAPI   = "https://api.stripe.com"
)

func init() {
	provider.Register(provider.Module{
		Name:    Name,
		Methods: Methods,
		Check:   check,
		Livemode: func(s provider.Settings) bool {
			k := s.Env(EnvSecretKey)
			return strings.HasPrefix(k, "sk_live_") || strings.HasPrefix(k, "rk_live_")
		},
		New: func(ctx context.Context, s provider.Settings, _ provider.Deps) (provider.Instance, error) {
			cfg := Config{Name: s.Name, SecretKey: s.Env(EnvSecretKey), PublishableKey: s.Env(EnvPublishableKey), WebhookSecret: s.Env(EnvWebhookSecret)}
			if s.Dev {
				cfg.APIURL = s.Env(EnvAPIURL)
			}
			p, err := New(cfg)
			if err != nil {
				return nil, err
			}
			ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			if err := p.Check(ctx); err != nil {
				return nil, err
			}
			return p, nil
		},
		Widget: &provider.Widget{
			Kind: NextKind, Template: widgetTemplate, Script: widgetScript,
			Scripts: []string{stripeJS + "/v3/"},
			CSP:     provider.CSP{Script: []string{stripeJS}, Connect: []string{stripeAPI}, Frame: []string{stripeJS, stripeHooks}},
		},
	})
}

// check validates an instance's keys, which come from the environment only: each present, of
// its kind, and all of one mode (test or live).
func check(s provider.Settings, bad func(setting, format string, args ...any)) {
	modes := map[string]bool{}
	for _, k := range []struct {
		key      string
		prefixes []string
	}{{EnvSecretKey, []string{"sk_", "rk_"}}, {EnvPublishableKey, []string{"pk_"}}} {
		v, env := s.Env(k.key), s.EnvName(k.key)
		ok := false
		for _, pre := range k.prefixes {
			for _, mode := range []string{"test", "live"} {
				if strings.HasPrefix(v, pre+mode+"_") {
					ok, modes[mode] = true, true
				}
			}
		}
		switch {
		case v == "":
			bad(env, "is required: set it in the environment (never in the file)")
		case !ok:
			bad(env, "must start with %s_test_ or %s_live_", k.prefixes[0][:2], k.prefixes[0][:2])
		}
	}
	if len(modes) > 1 {
		bad(s.EnvName(EnvPublishableKey), "and %s must both be test keys or both live keys", s.EnvName(EnvSecretKey))
	}
	switch w := s.Env(EnvWebhookSecret); {
	case w == "":
		bad(s.EnvName(EnvWebhookSecret), "is required: the signing secret of the webhook endpoint %s/providers/%s/webhook (never in the file)",
			strings.TrimRight(s.PublicURL, "/"), s.Name)
	case !strings.HasPrefix(w, "whsec_"):
		bad(s.EnvName(EnvWebhookSecret), "must start with whsec_")
	}
}
