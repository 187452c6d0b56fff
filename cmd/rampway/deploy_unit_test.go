package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// deploy/rampway.service starts `rampway serve` with flags serve's own flag set takes, and a
// configuration path that does not depend on the working directory.
func TestSystemdExecStartFlags(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "..", "deploy", "rampway.service"))
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "ExecStart="); ok {
			args = strings.Fields(v)
		}
	}
	if len(args) < 2 || filepath.Base(args[0]) != "rampway" || !filepath.IsAbs(args[0]) || args[1] != "serve" {
		t.Fatalf("ExecStart %q: want /…/rampway serve …", args)
	}
	path, err := serveFlags(args[2:], noEnv, io.Discard)
	if err != nil {
		t.Fatalf("serve does not take ExecStart's arguments %q: %v", args[2:], err)
	}
	if !filepath.IsAbs(path) {
		t.Fatalf("ExecStart's configuration %q is not an absolute path", path)
	}
	// The check can fail: a flag serve does not have is refused.
	if _, err := serveFlags(append(args[2:], "--listen", ":80"), noEnv, io.Discard); err == nil {
		t.Fatal("serveFlags took a flag serve does not have")
	}
}
