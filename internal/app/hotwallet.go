package app

import (
	"context"
	"fmt"
	"math/big"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chainwork"
)

// hotWallets are the networks' executors and sweepers (nil for a network without them),
// asked what keeps the hot wallet from paying: a payment it cannot afford (chainwork.Shortfall:
// an order's, a refund's, the gas of token sweeps) and the store's refusal to assign its nonces
// (chainwork.Executor.NonceRefusal). /readyz lists each as a warning (it stays ready: orders
// are still taken, and paid ones wait) and /metrics exports them. Each worker runs on the one
// instance holding its lease: that instance reports them.
type hotWallets struct {
	executors []*chainwork.Executor
	sweepers  []*chainwork.Sweeper
}

// refusal is an executor's standing nonce refusal.
type refusal struct {
	x   *chainwork.Executor
	err error
}

// refusals are the executors' standing nonce refusals.
func (h hotWallets) refusals() []refusal {
	var out []refusal
	for _, x := range h.executors {
		if x == nil {
			continue
		}
		if err := x.NonceRefusal(); err != nil {
			out = append(out, refusal{x, err})
		}
	}
	return out
}

// shortfalls are the workers' shortfalls: the executors', then the sweepers'.
func (h hotWallets) shortfalls() []*chainwork.Shortfall {
	var out []*chainwork.Shortfall
	add := func(s *chainwork.Shortfall) {
		if s != nil {
			out = append(out, s)
		}
	}
	for _, x := range h.executors {
		if x != nil {
			add(x.Shortfall())
		}
	}
	for _, w := range h.sweepers {
		if w != nil {
			add(w.Shortfall())
		}
	}
	return out
}

// Warnings implements httpapi.Warner.
func (h hotWallets) Warnings(context.Context) []string {
	var out []string
	for _, r := range h.refusals() {
		out = append(out, fmt.Sprintf("Hot wallet %s on %s signs nothing: %v", r.x.Wallet().Hex(), r.x.Network(), r.err))
	}
	for _, s := range h.shortfalls() {
		unit := func(v *big.Int) string { return rampway.FormatUnits(v, s.Asset.Decimals) + " " + s.Asset.Symbol }
		out = append(out, fmt.Sprintf("Hot wallet %s on %s cannot pay for %s: it needs %s and can spend %s (waiting for funds since %s); fund it",
			s.Wallet.Hex(), s.Network, s.For, unit(s.Need), unit(s.Have), s.Since.UTC().Format(time.RFC3339)))
	}
	return out
}

// hotWalletCollector exports the hot wallets' shortfalls and nonce refusals on each scrape.
type hotWalletCollector struct {
	wallets hotWallets
	waited  *prometheus.Desc
	missing *prometheus.Desc
	refused *prometheus.Desc
}

func newHotWalletCollector(w hotWallets) *hotWalletCollector {
	labels := []string{"network", "wallet", "asset"}
	return &hotWalletCollector{wallets: w,
		waited: prometheus.NewDesc("rampway_hot_wallet_short_seconds", "How long the hot wallet has been unable to pay for an order's execution, a refund or the gas of token sweeps (they wait for funds): alert on any. Reported by the instance running the network's executor or sweeper.",
			labels, nil),
		missing: prometheus.NewDesc("rampway_hot_wallet_shortfall_amount", "What the hot wallet lacks for the first payment it cannot make (of the executor's, or the sweeper's when larger), in the asset's base units (wei, token units).",
			labels, nil),
		refused: prometheus.NewDesc("rampway_hot_wallet_nonce_refused", "1 while nothing is signed with the hot wallet: its nonce on chain is past every nonce the database assigned (see /readyz, then rampway admin nonces adopt): alert on any. Reported by the instance running the network's executor.",
			[]string{"network", "wallet"}, nil),
	}
}

func (c *hotWalletCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.waited
	ch <- c.missing
	ch <- c.refused
}

func (c *hotWalletCollector) Collect(ch chan<- prometheus.Metric) {
	for _, r := range c.wallets.refusals() {
		ch <- prometheus.MustNewConstMetric(c.refused, prometheus.GaugeValue, 1, r.x.Network(), r.x.Wallet().Hex())
	}
	// The executor and the sweeper of a network may both be short of one asset: one series,
	// the longer wait and the larger lack.
	type key struct{ network, wallet, asset string }
	waited, missing := map[key]float64{}, map[key]float64{}
	for _, s := range c.wallets.shortfalls() {
		k := key{s.Network, s.Wallet.Hex(), s.Asset.Symbol}
		v, _ := new(big.Float).SetInt(new(big.Int).Sub(s.Need, s.Have)).Float64() // a metric: alerting, not accounting
		waited[k], missing[k] = max(waited[k], time.Since(s.Since).Seconds()), max(missing[k], v)
	}
	for k := range waited {
		ch <- prometheus.MustNewConstMetric(c.waited, prometheus.GaugeValue, waited[k], k.network, k.wallet, k.asset)
		ch <- prometheus.MustNewConstMetric(c.missing, prometheus.GaugeValue, missing[k], k.network, k.wallet, k.asset)
	}
}
