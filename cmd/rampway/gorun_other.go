//go:build !linux

package main

// stopWithGoRun does nothing outside Linux, which alone has a parent-death signal: there,
// stop rampway with Ctrl-C (which reaches go run and rampway alike) or run the binary.
func stopWithGoRun() {}
