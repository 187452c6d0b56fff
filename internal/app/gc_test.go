package app

import (
	"runtime/debug"
	"testing"
)

func TestTuneGC(t *testing.T) {
	was := debug.SetGCPercent(100)
	defer debug.SetGCPercent(was)

	TuneGC(func(string) string { return "" })
	if got := debug.SetGCPercent(100); got != GCPercent {
		t.Fatalf("GOGC unset: GC percent %d, want %d", got, GCPercent)
	}
	TuneGC(func(k string) string {
		if k == "GOGC" {
			return "150"
		}
		return ""
	})
	if got := debug.SetGCPercent(100); got != 100 {
		t.Fatalf("GOGC set: GC percent changed to %d, want it left to the runtime (100 here)", got)
	}
}
