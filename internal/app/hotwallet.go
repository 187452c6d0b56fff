package app

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/chainwork"
)

// hotWallets are the networks' executors (nil for a network without a hot wallet), asked what
// keeps the hot wallet from paying: a payment it cannot afford (chainwork.Shortfall) and the
// store's refusal to assign its nonces (chainwork.Executor.NonceRefusal). /readyz lists each as
// a warning (it stays ready: orders are still taken, and paid ones wait) and /metrics exports
// them. Each executor runs on the one instance holding its lease: that instance reports them.
type hotWallets []*chainwork.Executor

func (h hotWallets) each(fn func(x *chainwork.Executor)) {
	for _, x := range h {
		if x != nil {
			fn(x)
		}
	}
}

// Warnings implements httpapi.Warner.
func (h hotWallets) Warnings(context.Context) []string {
	var out []string
	h.each(func(x *chainwork.Executor) {
		if err := x.NonceRefusal(); err != nil {
			out = append(out, fmt.Sprintf("Hot wallet %s on %s signs nothing: %v", x.Wallet().Hex(), x.Network(), err))
		}
		s := x.Shortfall()
		if s == nil {
			return
		}
		unit := func(v *big.Int) string { return rampway.FormatUnits(v, s.Asset.Decimals) + " " + s.Asset.Symbol }
		what := "order " + s.For
		if strings.HasPrefix(s.For, rampway.PrefixRefund+"_") {
			what = "refund " + s.For
		}
		out = append(out, fmt.Sprintf("Hot wallet %s on %s cannot pay for %s: it needs %s and can spend %s (waiting for funds since %s); fund it",
			s.Wallet.Hex(), s.Network, what, unit(s.Need), unit(s.Have), s.Since.UTC().Format(time.RFC3339)))
	})
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
		waited: prometheus.NewDesc("rampway_hot_wallet_short_seconds", "How long the hot wallet has been unable to pay for an order's execution or a refund (they wait for funds): alert on any. Reported by the instance running the network's executor.",
			labels, nil),
		missing: prometheus.NewDesc("rampway_hot_wallet_shortfall_amount", "What the hot wallet lacks for the first payment it cannot make, in the asset's base units (wei, token units).",
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
	c.wallets.each(func(x *chainwork.Executor) {
		if x.NonceRefusal() != nil {
			ch <- prometheus.MustNewConstMetric(c.refused, prometheus.GaugeValue, 1, x.Network(), x.Wallet().Hex())
		}
		s := x.Shortfall()
		if s == nil {
			return
		}
		labels := []string{s.Network, s.Wallet.Hex(), s.Asset.Symbol}
		ch <- prometheus.MustNewConstMetric(c.waited, prometheus.GaugeValue, time.Since(s.Since).Seconds(), labels...)
		v, _ := new(big.Float).SetInt(new(big.Int).Sub(s.Need, s.Have)).Float64() // a metric: alerting, not accounting
		ch <- prometheus.MustNewConstMetric(c.missing, prometheus.GaugeValue, v, labels...)
	})
}
