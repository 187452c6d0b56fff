package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rampway/rampway/internal/lease"
	"github.com/rampway/rampway/internal/sqlstore"
)

// queueCollector exports the work queues on each scrape: webhook deliveries pending and failed
// and the age of the oldest pending one, paid orders awaiting execution, transactions in
// flight, refunds owed.
type queueCollector struct {
	store *sqlstore.Store
	log   *slog.Logger
	descs map[string]*prometheus.Desc
}

func newQueueCollector(store *sqlstore.Store, log *slog.Logger) *queueCollector {
	d := func(name, help string) *prometheus.Desc { return prometheus.NewDesc("rampway_"+name, help, nil, nil) }
	return &queueCollector{store: store, log: log, descs: map[string]*prometheus.Desc{
		"pending":  d("webhook_deliveries_pending", "Webhook deliveries waiting to be sent (or retried), not counting held ones."),
		"held":     d("webhook_deliveries_held", "Webhook deliveries held while their merchant is disabled (sent when it is enabled again)."),
		"failed":   d("webhook_deliveries_failed", "Webhook deliveries that ran out of retries (resend from the log)."),
		"oldest":   d("webhook_oldest_pending_seconds", "Age of the oldest pending webhook delivery (held ones left out)."),
		"awaiting": d("orders_awaiting_execution", "Paid orders whose smart-contract call (A, B) or transfer to the merchant (C) is not sent yet."),
		"waited":   d("orders_awaiting_execution_oldest_seconds", "How long the longest-waiting paid order has waited for its execution: alert on it (the hot wallet cannot pay, or its node refuses)."),
		"fiat":     d("fiat_actions_pending", "Captures, voids and refunds not yet done by the payment provider."),
		"fiatop":   d("fiat_actions_needing_operator", "Captures, voids and refunds the payment provider kept refusing past fiat.action_give_up_after: alert on it (rampway admin fiat-actions list, then retry or resolve)."),
		"txs":      d("chain_txs_pending", "Signed transactions not yet mined at the confirmation depth."),
		"refunds":  d("refunds_pending", "Refunds on their way to the payer (to be sent, or sent and not yet mined deep enough)."),
		"approval": d("refunds_awaiting_approval", "Refunds above their asset's automatic limit, waiting for an operator (rampway admin refunds approve)."),
		"address":  d("refunds_awaiting_address", "Refunds whose payer is a contract or unknown, waiting for the user, the merchant or an operator to give an address."),
		"rfailed":  d("refunds_failed", "Refunds rampway owes on its own whose transaction reverted: alert on it (set another address, or approve sending again). A merchant's failed refund is not counted: the merchant was told, and asks for another."),
	}}
}

func (c *queueCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs {
		ch <- d
	}
}

func (c *queueCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st, err := c.store.Stats(ctx, time.Now())
	if err != nil {
		c.log.Warn("metrics: queue sizes", "error", err)
		return
	}
	for k, v := range map[string]float64{"pending": float64(st.DeliveriesPending), "held": float64(st.DeliveriesHeld), "failed": float64(st.DeliveriesFailed),
		"oldest": st.OldestPendingDelivery.Seconds(), "awaiting": float64(st.AwaitingExecution), "txs": float64(st.TxsPending),
		"refunds": float64(st.RefundsPending), "approval": float64(st.RefundsAwaitingApproval), "address": float64(st.RefundsAwaitingAddress),
		"rfailed": float64(st.RefundsFailed), "waited": st.OldestAwaitingExecution.Seconds(), "fiat": float64(st.FiatActionsPending),
		"fiatop": float64(st.FiatActionsNeedOperator)} {
		ch <- prometheus.MustNewConstMetric(c.descs[k], prometheus.GaugeValue, v)
	}
}

// leaseCollector exports which chain workers' leases this instance holds: one series per
// lease (watcher/<network>, executor/<network>/<wallet>, sweeper/<network>), 1 while held.
// Summed over the instances, each lease is 1 (0 for the seconds after its holder died).
type leaseCollector struct {
	leases *lease.Runner
	desc   *prometheus.Desc
}

func newLeaseCollector(l *lease.Runner) *leaseCollector {
	return &leaseCollector{leases: l, desc: prometheus.NewDesc("rampway_worker_lease_held",
		"1 while this instance holds the lease of a chain worker (and runs it), else 0.", []string{"lease"}, nil)}
}

func (c *leaseCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *leaseCollector) Collect(ch chan<- prometheus.Metric) {
	for name, held := range c.leases.Leases() {
		v := 0.0
		if held {
			v = 1
		}
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, v, name)
	}
}
