package app

import (
	"context"
	"fmt"
	"log/slog"
	"math/big"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rampway/rampway"
	"github.com/rampway/rampway/internal/sqlstore"
)

// reconcilePoll is how often each network's reconciler looks for a new block to compare at.
const reconcilePoll = time.Second

// fiatReconcileEvery is how often the fiat payments are compared with their providers' records
// (each round asks a provider about the payments that moved and a rolling 20 others).
const fiatReconcileEvery = time.Minute

// ledgerCollector exports the ledger's drifts on each scrape: how many accounts' assets differ
// from the chain per network, each difference (chain - ledger, in base units), and the last
// block reconciled.
type ledgerCollector struct {
	store    *sqlstore.Store
	networks []string
	log      *slog.Logger
	count    *prometheus.Desc
	diff     *prometheus.Desc
	block    *prometheus.Desc
}

func newLedgerCollector(store *sqlstore.Store, networks []string, log *slog.Logger) *ledgerCollector {
	return &ledgerCollector{store: store, networks: networks, log: log,
		count: prometheus.NewDesc("rampway_ledger_drifts", "Accounts' assets whose chain balance differs from the ledger's: alert on any (rampway admin ledger drifts, docs/ledger.md).",
			[]string{"network"}, nil),
		diff: prometheus.NewDesc("rampway_ledger_drift_amount", "A drift's difference, the chain's balance less the ledger's, in the asset's base units (wei, token units).",
			[]string{"network", "account", "asset"}, nil),
		block: prometheus.NewDesc("rampway_ledger_reconciled_block", "The last block at which the ledger was compared with the chain.", []string{"network"}, nil),
	}
}

func (c *ledgerCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.count
	ch <- c.diff
	ch <- c.block
}

func (c *ledgerCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	drifts, err := c.store.LedgerDrifts(ctx, "")
	if err != nil {
		c.log.Warn("metrics: ledger drifts", "error", err)
		return
	}
	count := map[string]float64{}
	for _, n := range c.networks {
		count[n] = 0
		if n == rampway.LedgerFiat {
			continue // compared payment by payment, at no block
		}
		if b, _, ok, err := c.store.Reconciled(ctx, n); err == nil && ok {
			ch <- prometheus.MustNewConstMetric(c.block, prometheus.GaugeValue, float64(b), n)
		}
	}
	for _, d := range drifts {
		count[d.Network]++
		v, _ := new(big.Float).SetInt(d.Diff()).Float64() // a metric: alerting, not accounting
		ch <- prometheus.MustNewConstMetric(c.diff, prometheus.GaugeValue, v, d.Network, d.Account, d.Asset)
	}
	for n, v := range count {
		ch <- prometheus.MustNewConstMetric(c.count, prometheus.GaugeValue, v, n)
	}
}

// ledgerNetworks are the reconciliations' networks: the chains', and the fiat side's when a
// payment provider is configured.
func ledgerNetworks(ns []*rampway.Network, fiat bool) []string {
	out := networkNames(ns)
	if fiat {
		out = append(out, rampway.LedgerFiat)
	}
	return out
}

// ledgerWarner lists the ledger's drifts on /readyz, which stays ready: the money is not
// where the ledger says, but serving orders goes on while an operator looks.
type ledgerWarner struct{ store *sqlstore.Store }

func (w ledgerWarner) Warnings(ctx context.Context) []string {
	drifts, err := w.store.LedgerDrifts(ctx, "")
	if err != nil {
		return []string{"The ledger's drifts cannot be read: " + err.Error()}
	}
	var out []string
	for _, d := range drifts {
		if provider, _, payment, ok := rampway.SplitProviderPaymentAccount(d.Account); ok && d.Network == rampway.LedgerFiat {
			out = append(out, fmt.Sprintf("Ledger drift at payment provider %s: payment %s: the provider holds %s of %s, the ledger says %s (difference %s, since %s); see rampway admin ledger drifts",
				provider, payment, d.Chain, d.Asset, d.Ledger, d.Diff(), d.FirstSeen.UTC().Format(time.RFC3339)))
			continue
		}
		out = append(out, fmt.Sprintf("Ledger drift on %s: %s holds %s of %s on chain at block %d, the ledger says %s (difference %s, since %s); see rampway admin ledger drifts",
			d.Network, d.Account, d.Chain, d.Asset, d.Block, d.Ledger, d.Diff(), d.FirstSeen.UTC().Format(time.RFC3339)))
	}
	return out
}
