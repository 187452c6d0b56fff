package app

import (
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rampway/rampway"
)

// newRuleMissingCounter counts the facts the rule table had no rule for, by area, state and
// cause: each is a gap in the table (a bug), never a race. Alert on any.
func newRuleMissingCounter() *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rampway_rule_missing_total",
		Help: "Causes (payments, receipts, provider notifications, refund progress) an order's state had no rule for: a gap in the rule table, the order left unchanged. Alert on any."},
		[]string{"area", "status", "cause"})
}

// workerWakes wake the workers: each network's executor (by network), the fiat worker and the
// webhook dispatcher (nil when not running).
type workerWakes struct {
	executors map[string]func()
	fiat      func()
	webhooks  func()
}

// storeHooks are the one place where what the store's causes did reaches the workers and the
// operator: a paid order wakes its network's executor, a capture, void or refund to ask the fiat
// worker, new events the webhook dispatcher (each would otherwise find its work at its next
// poll); a fact without a rule is logged and counted.
func storeHooks(log *slog.Logger, missing *prometheus.CounterVec, wakes workerWakes) rampway.Hooks {
	return rampway.Hooks{
		Applied: func(o *rampway.Order, out *rampway.Outcome) {
			if wake, ok := wakes.executors[o.Network]; ok && out.WakeExecute {
				wake()
			}
			if wakes.fiat != nil && len(out.FiatActions) > 0 {
				wakes.fiat()
			}
			if wakes.webhooks != nil && len(out.Events) > 0 {
				wakes.webhooks()
			}
		},
		RuleMissing: func(err *rampway.RuleMissing) {
			missing.WithLabelValues(string(err.Area), string(err.Status), string(err.Cause)).Inc()
			log.Error("no rule for a cause: the rule table has a gap, the order is left as it is", "order_id", err.OrderID,
				"area", err.Area, "status", err.Status, "cause", err.Cause, "to", err.To)
		},
	}
}
