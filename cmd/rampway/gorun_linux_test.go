package main

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestStopsWithGoRun: a rampway dev whose parent is go run stops when go run is killed, and
// frees its ports. The parent here is a shell script named go (the kernel names a script's
// process after its file), which starts the real binary as its child as go run does and is
// then killed with SIGKILL: nothing of it can pass a signal on.
func TestStopsWithGoRun(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	dir := t.TempDir()
	goRun := filepath.Join(t.TempDir(), "go")
	if err := os.WriteFile(goRun, []byte("#!/bin/sh\n\"$@\" &\necho \"child $!\"\nwait\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out := &lockedBuffer{}
	cmd := exec.Command(goRun, bin, "dev", "--addr", "127.0.0.1:0", "--rpc-addr", "127.0.0.1:0", "--data-dir", dir)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait returns once the script has exited and every holder of its output pipe, rampway
	// too, has closed it: once rampway has ended.
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var child int
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		if child > 0 {
			_ = syscall.Kill(child, syscall.SIGKILL)
		}
	})
	dj := waitDevJSON(t, dir, done, out)
	for _, l := range strings.Split(out.String(), "\n") {
		if pid, ok := strings.CutPrefix(l, "child "); ok {
			child, _ = strconv.Atoi(pid)
		}
	}
	if child == 0 {
		t.Fatalf("the script printed no child pid:\n%s", out)
	}
	// What the first run's wait was: the start, and go run's build before it.
	if !regexp.MustCompile(`(?m)^  started:   in [0-9.]+m?s, after [0-9hms]+ of go run building it$`).MatchString(out.String()) {
		t.Errorf("the banner does not say how long the start and go run's build took:\n%s", out)
	}
	api := strings.TrimPrefix(strings.TrimSuffix(dj.API.MintBaseURL, "/mint"), "http://")

	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(2 * time.Minute): // a hang guard: rampway stops within a second or two
		t.Fatalf("rampway dev (pid %d) still runs after its go run was killed:\n%s", child, out)
	}
	// A clean shutdown (SIGTERM, as from Ctrl-C) removes dev.json; a killed process leaves it.
	if _, err := os.Stat(filepath.Join(dir, devJSONFile)); !os.IsNotExist(err) {
		t.Errorf("dev.json is still there (%v): rampway dev did not shut down cleanly after its go run was killed:\n%s", err, out)
	}
	if c, err := net.Dial("tcp", api); err == nil {
		c.Close()
		t.Errorf("the API's address %s still accepts connections", api)
	}
}
