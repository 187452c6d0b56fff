package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// stopWithGoRun makes a rampway started by `go run` stop when go run does. go run starts the
// program as its child and passes no signal on to it: Ctrl-C in a terminal reaches both (the
// terminal signals the whole process group), but a `kill` of go run's process alone, as a
// script or an IDE's stop button does, left rampway running, holding its ports. Under go run
// (the parent process is named go), the kernel now sends rampway SIGTERM when go run ends,
// which shuts it down as a Ctrl-C would. Any other parent (a shell, make, systemd) is left
// alone: a supervisor decides itself.
func stopWithGoRun() {
	ppid := os.Getppid()
	comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", ppid))
	if err != nil || strings.TrimSpace(string(comm)) != "go" {
		return
	}
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(syscall.SIGTERM), 0, 0, 0); err != nil {
		return
	}
	if os.Getppid() != ppid { // go run ended before the prctl: nobody would send the signal
		_ = syscall.Kill(os.Getpid(), syscall.SIGTERM)
	}
}

// userHZ is the unit of the start times in /proc/PID/stat: clock ticks, which Linux reports to
// user space at 100 a second on every architecture.
const userHZ = 100

// startTicks is the start time of process pid (self for this one), in ticks since boot.
func startTicks(pid string) (int64, bool) {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0, false
	}
	// The name, field 2, is in parentheses and may hold spaces: the fields after its ")" are
	// the state (field 3) onwards, so the start time (field 22) is the 20th.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return 0, false
	}
	n, err := strconv.ParseInt(f[19], 10, 64)
	return n, err == nil
}

// sinceStart is how long ago this process started (the kernel's count, so it includes the
// Go runtime's and the packages' initialisation).
func sinceStart() time.Duration {
	self, ok := startTicks("self")
	b, err := os.ReadFile("/proc/uptime")
	if !ok || err != nil {
		return time.Since(processStart)
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return time.Since(processStart)
	}
	up, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return time.Since(processStart)
	}
	return time.Duration((up - float64(self)/userHZ) * float64(time.Second)).Round(10 * time.Millisecond)
}

// goRunBuild is, when go run started this process, how long go run ran before it: the
// download and build of a first run, a cache check on the next.
func goRunBuild() (time.Duration, bool) {
	ppid := strconv.Itoa(os.Getppid())
	comm, err := os.ReadFile("/proc/" + ppid + "/comm")
	if err != nil || strings.TrimSpace(string(comm)) != "go" {
		return 0, false
	}
	parent, ok1 := startTicks(ppid)
	self, ok2 := startTicks("self")
	if !ok1 || !ok2 || self < parent {
		return 0, false
	}
	return time.Duration(self-parent) * time.Second / userHZ, true
}
