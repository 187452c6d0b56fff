package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTicks is USER_HZ, the unit of /proc's CPU times (100 on Linux's usual builds).
const clockTicks = 100

// machineCPU is a reading of where the machine's CPU time went: all of it (busy, from
// /proc/stat), this process's, and PostgreSQL's processes' (their own CPU, not in this
// process's), so that a phase can say how much other work shared the machine with it.
type machineCPU struct {
	at       time.Time
	busy     time.Duration // every CPU's non-idle time since boot
	self     time.Duration
	postgres time.Duration // processes named postgres, alive at the reading
	ok       bool
}

func readMachineCPU() machineCPU {
	m := machineCPU{at: time.Now(), self: cpuTime()}
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return m
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	f := strings.Fields(string(line))
	if len(f) < 9 || f[0] != "cpu" {
		return m
	}
	var ticks int64
	for i, v := range f[1:9] { // user nice system idle iowait irq softirq steal
		if i == 3 || i == 4 {
			continue // idle, iowait
		}
		n, _ := strconv.ParseInt(v, 10, 64)
		ticks += n
	}
	m.busy, m.ok = ticksToDuration(ticks), true
	m.postgres = postgresCPU()
	return m
}

// postgresCPU sums the CPU time of the processes named postgres.
func postgresCPU() time.Duration {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var ticks int64
	for _, d := range dirs {
		comm, err := os.ReadFile(d + "/comm")
		if err != nil || strings.TrimSpace(string(comm)) != "postgres" {
			continue
		}
		stat, err := os.ReadFile(d + "/stat")
		if err != nil {
			continue
		}
		_, rest, ok := bytes.Cut(stat, []byte(") ")) // after "pid (comm) "
		if !ok {
			continue
		}
		f := strings.Fields(string(rest))
		if len(f) < 13 {
			continue
		}
		u, _ := strconv.ParseInt(f[11], 10, 64) // utime, field 14 of stat
		s, _ := strconv.ParseInt(f[12], 10, 64) // stime, field 15
		ticks += u + s
	}
	return ticksToDuration(ticks)
}

func ticksToDuration(t int64) time.Duration { return time.Duration(t) * time.Second / clockTicks }

// machineShare describes the machine's CPU between two readings in cores: all busy, this
// process, PostgreSQL's processes and the rest (other work sharing the machine). PostgreSQL
// backends that started or ended between the readings make its share approximate.
func machineShare(a, b machineCPU) string {
	if !a.ok || !b.ok {
		return "machine CPU unknown"
	}
	wall := b.at.Sub(a.at).Seconds()
	if wall <= 0 {
		return "machine CPU unknown"
	}
	cores := func(d time.Duration) float64 { return d.Seconds() / wall }
	busy, self, pg := cores(b.busy-a.busy), cores(b.self-a.self), cores(max(b.postgres-a.postgres, 0))
	return fmt.Sprintf("machine busy %.2f cores (this process %.2f, postgres %.2f, other work %.2f)", busy, self, pg, max(busy-self-pg, 0))
}
