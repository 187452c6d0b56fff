package app

import "runtime/debug"

// GCPercent is the garbage collector's target (GOGC) a rampway process runs with unless GOGC
// is set in its environment: the heap may grow to 5x what is live before a collection, instead
// of Go's 2x. rampway's live heap is small (tens of MB, the dev chain's caches aside) and an
// order allocates ~50 KB (HTTP, JSON, the driver's messages), so at Go's default the collector
// took ~18 % of the order path's CPU (rampway-bench orders --profile); at 400 it takes about a
// quarter of that. GOMEMLIMIT, when set, still bounds the heap.
const GCPercent = 400

// TuneGC sets the collector's target to GCPercent unless the environment sets GOGC (which the
// runtime has then applied already). cmd/rampway and cmd/rampway-bench call it first thing.
func TuneGC(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(GCPercent)
	}
}
