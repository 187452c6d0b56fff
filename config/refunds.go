package config

import (
	"fmt"
	"math/big"

	"github.com/rampway/rampway"
)

// Refunds configures how area A's refunds are paid back on chain, from the hot wallet.
type Refunds struct {
	// Assets are the policies per asset; an asset without one is refunded automatically
	// whatever the amount, and only a refund that does not cover its network fee is dust.
	Assets []RefundAsset `yaml:"assets"`
}

// RefundAsset is the refund policy of one asset of one network.
type RefundAsset struct {
	Network string `yaml:"network"`
	Symbol  string `yaml:"symbol"`
	// AutoMax is the largest refund paid without an operator's approval, in whole units
	// ("0.5"); above it a refund waits for `rampway admin refunds approve`. "" is no limit;
	// "0" makes every refund wait.
	AutoMax string `yaml:"auto_max"`
	// Dust: a refund that would send at most this much after its network fee is not sent
	// (whole units; default "0": only one that does not cover its fee).
	Dust string `yaml:"dust"`
}

func defaultRefunds() Refunds { return Refunds{} }

// validateRefunds checks the refunds section against the networks.
func (c *Config) validateRefunds(bad func(field, format string, args ...any)) {
	seen := map[string]bool{}
	for i, a := range c.Refunds.Assets {
		p := fmt.Sprintf("refunds.assets[%d]", i)
		asset, ok := c.findAsset(a.Network, a.Symbol)
		if !ok {
			bad(p+".symbol", "%s on network %q is not a configured asset", a.Symbol, a.Network)
			continue
		}
		key := a.Network + "/" + a.Symbol
		if seen[key] {
			bad(p, "%s on %s has a policy already", a.Symbol, a.Network)
		}
		seen[key] = true
		dec := uint8(assetDecimals(asset))
		if a.AutoMax != "" {
			if v, err := rampway.ParseUnits(a.AutoMax, dec); err != nil || v.Sign() < 0 {
				bad(p+".auto_max", "must be a non-negative amount of %s with at most %d decimals (\"\" for no limit), not %q", a.Symbol, dec, a.AutoMax)
			}
		}
		if a.Dust != "" {
			if v, err := rampway.ParseUnits(a.Dust, dec); err != nil || v.Sign() < 0 {
				bad(p+".dust", "must be a non-negative amount of %s with at most %d decimals, not %q", a.Symbol, dec, a.Dust)
			}
		}
	}
}

// findAsset returns the configured asset symbol of network.
func (c *Config) findAsset(network, symbol string) (Asset, bool) {
	for _, n := range c.Networks {
		if n.Name != network {
			continue
		}
		if n.Native.Symbol == symbol {
			return n.Native, true
		}
		for _, t := range n.Tokens {
			if t.Symbol == symbol {
				return t, true
			}
		}
	}
	return Asset{}, false
}

// RefundPolicies returns the refund policy of each configured asset by "network/symbol" (the
// config must be valid); an asset without one gets the default (no limit, no dust threshold).
func (c *Config) RefundPolicies() map[string]rampway.RefundPolicy {
	out := map[string]rampway.RefundPolicy{}
	for _, a := range c.Refunds.Assets {
		asset, _ := c.findAsset(a.Network, a.Symbol)
		dec := uint8(assetDecimals(asset))
		var p rampway.RefundPolicy
		if a.AutoMax != "" {
			p.AutoMax, _ = rampway.ParseUnits(a.AutoMax, dec)
		}
		if a.Dust != "" {
			p.Dust, _ = rampway.ParseUnits(a.Dust, dec)
		}
		if p.Dust == nil {
			p.Dust = new(big.Int)
		}
		out[a.Network+"/"+a.Symbol] = p
	}
	return out
}
