package client_test

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/rampway/rampway/internal/devtest"
)

// The package imports only the standard library, so that a merchant can depend on it alone.
// (Its tests may import more.)
func TestStandardLibraryOnly(t *testing.T) {
	gobin := devtest.GoCommand(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, gobin, "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	if deps := strings.Fields(string(out)); len(deps) != 1 || deps[0] != "github.com/rampway/rampway/client" {
		t.Fatalf("the package depends on %v beyond the standard library", deps)
	}
}
