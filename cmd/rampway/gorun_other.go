//go:build !linux

package main

import "time"

// stopWithGoRun does nothing outside Linux, which alone has a parent-death signal: there,
// stop rampway with Ctrl-C (which reaches go run and rampway alike) or run the binary.
func stopWithGoRun() {}

// sinceStart is how long ago main's package was initialised.
func sinceStart() time.Duration { return time.Since(processStart) }

// goRunBuild is not known outside Linux.
func goRunBuild() (time.Duration, bool) { return 0, false }
