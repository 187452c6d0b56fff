package main

import (
	"fmt"
	"os"
	"strings"
	"syscall"

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
