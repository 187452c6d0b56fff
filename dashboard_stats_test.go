package rampway

import (
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	ds := []time.Duration{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for p, want := range map[int]time.Duration{50: 5, 95: 10, 90: 9, 100: 10, 1: 1} {
		if got := Percentile(ds, p); got != want {
			t.Errorf("p%d = %d, want %d", p, got, want)
		}
	}
	if Percentile(nil, 50) != 0 {
		t.Error("p50 of nothing")
	}
}

func TestCheckStatsPeriod(t *testing.T) {
	day := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	if err := CheckStatsPeriod(day, day.AddDate(0, 0, 90)); err != nil {
		t.Error(err)
	}
	for _, p := range [][2]time.Time{{day, day}, {day.Add(time.Hour), day.AddDate(0, 0, 1)}, {day, day.AddDate(0, 0, MaxStatsDays+1)}} {
		if ErrorCode(CheckStatsPeriod(p[0], p[1])) != EINVALID {
			t.Errorf("%v to %v accepted", p[0], p[1])
		}
	}
}
