package app

import (
	"bytes"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/rampway/rampway"
)

// A fact without a rule is counted (rampway_rule_missing_total, by area, state and cause) and
// logged as an error naming the order; a paid order wakes its own network's executor only.
func TestStoreHooks(t *testing.T) {
	var logs bytes.Buffer
	missing := newRuleMissingCounter()
	var woken, other, fiat, hooks atomic.Int32
	h := storeHooks(slog.New(slog.NewTextHandler(&logs, nil)), missing, workerWakes{executors: map[string]func(){
		"devnet": func() { woken.Add(1) }, "othernet": func() { other.Add(1) }}, fiat: func() { fiat.Add(1) }, webhooks: func() { hooks.Add(1) }})

	gap := &rampway.RuleMissing{OrderID: "ord_1", Area: rampway.AreaNFTRamp, Status: rampway.StatusSuccess, Cause: rampway.CauseFiatCredited,
		To: rampway.StatusSuccess}
	h.RuleMissing(gap)
	h.RuleMissing(gap)
	reg := prometheus.NewRegistry()
	reg.MustRegister(missing)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	if len(families) != 1 || families[0].GetName() != "rampway_rule_missing_total" || len(families[0].GetMetric()) != 1 ||
		families[0].GetMetric()[0].GetCounter().GetValue() != 2 || !sameLabels(families[0].GetMetric()[0].GetLabel(),
		map[string]string{"area": "nft_ramp", "status": "SUCCESS", "cause": "fiat_credited"}) {
		t.Fatalf("gathered %v, want rampway_rule_missing_total{area=nft_ramp,status=SUCCESS,cause=fiat_credited} 2", families)
	}
	line := logs.String()
	for _, want := range []string{"level=ERROR", "no rule for a cause", "order_id=ord_1", "status=SUCCESS", "cause=fiat_credited"} {
		if !strings.Contains(line, want) {
			t.Fatalf("log %q lacks %q", line, want)
		}
	}

	paid := &rampway.Order{ID: "ord_2", Network: "devnet", Status: rampway.StatusDepositSuccess}
	h.Applied(paid, &rampway.Outcome{Order: paid, WakeExecute: true})
	h.Applied(paid, &rampway.Outcome{Order: paid})
	nowhere := &rampway.Order{ID: "ord_3", Network: "unknown"}
	h.Applied(nowhere, &rampway.Outcome{Order: nowhere, WakeExecute: true})
	if woken.Load() != 1 || other.Load() != 0 {
		t.Fatalf("woken %d, other %d; want 1, 0", woken.Load(), other.Load())
	}
	// A capture to ask wakes the fiat worker; events to deliver, the dispatcher; nothing, neither.
	if fiat.Load() != 0 || hooks.Load() != 0 {
		t.Fatalf("fiat worker woken %d times, dispatcher %d, for outcomes with neither", fiat.Load(), hooks.Load())
	}
	h.Applied(paid, &rampway.Outcome{Order: paid, FiatActions: []*rampway.FiatAction{{Kind: rampway.ActionCapture}}})
	h.Applied(paid, &rampway.Outcome{Order: paid, Events: []*rampway.RenderedEvent{{}}})
	if fiat.Load() != 1 || hooks.Load() != 1 {
		t.Fatalf("fiat worker woken %d times, dispatcher %d; want 1, 1", fiat.Load(), hooks.Load())
	}
}

func sameLabels(ls []*dto.LabelPair, want map[string]string) bool {
	if len(ls) != len(want) {
		return false
	}
	for _, l := range ls {
		if want[l.GetName()] != l.GetValue() {
			return false
		}
	}
	return true
}
