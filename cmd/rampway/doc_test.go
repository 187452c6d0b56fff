package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestCommandsDocumented holds docs/cli.md to the usage texts: every command of `rampway`
// and every command of `rampway admin` has its line there.
func TestCommandsDocumented(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "cli.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	top := regexp.MustCompile(`(?m)^  (rampway [a-z]+(?: [a-z]+)?)`)
	n := 0
	for _, m := range top.FindAllStringSubmatch(usage, -1) {
		n++
		if !strings.Contains(doc, "`"+m[1]) {
			t.Errorf("docs/cli.md does not document %q", m[1])
		}
	}
	admin := regexp.MustCompile(`(?m)^  ([a-z-]+ [a-z-]+)`)
	for _, m := range admin.FindAllStringSubmatch(adminUsage, -1) {
		n++
		if !strings.Contains(doc, "`"+m[1]) && !strings.Contains(doc, ", `"+m[1]) {
			t.Errorf("docs/cli.md does not document `rampway admin %s`", m[1])
		}
	}
	if n < 20 {
		t.Errorf("found %d commands in the usage texts; their format changed?", n)
	}
}
