package deploy

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rampway/rampway/config"
)

// unitSettings are deploy/rampway.service's settings, by key (a key given twice keeps each
// value, in order).
func unitSettings(t *testing.T) map[string][]string {
	t.Helper()
	b, err := os.ReadFile("rampway.service")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for line := range strings.SplitSeq(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "[") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			t.Fatalf("rampway.service: %q is not KEY=VALUE", line)
		}
		out[k] = append(out[k], v)
	}
	return out
}

// The unit stops rampway as rampway stops: SIGTERM, and time for the drain of http's
// shutdown_timeout and the workers' end before systemd kills it; it runs unprivileged and
// hardened, in its state directory. (That ExecStart's flags are serve's is checked in
// cmd/rampway, through its flag set; the proxy tests run it.)
func TestSystemdUnit(t *testing.T) {
	t.Parallel()
	u := unitSettings(t)
	one := func(k string) string {
		t.Helper()
		if len(u[k]) != 1 {
			t.Fatalf("rampway.service: %s is set %d times, want once", k, len(u[k]))
		}
		return u[k][0]
	}
	stop, err := time.ParseDuration(one("TimeoutStopSec"))
	if err != nil {
		t.Fatalf("TimeoutStopSec: %v", err)
	}
	if drain := config.Default().HTTP.ShutdownTimeout; stop < drain+10*time.Second {
		t.Errorf("TimeoutStopSec %v leaves too little beyond http.shutdown_timeout's default %v", stop, drain)
	}
	for k, want := range map[string]string{
		"KillSignal": "SIGTERM", "KillMode": "mixed", "User": "rampway", "StateDirectory": "rampway",
		"WorkingDirectory": "/var/lib/rampway", "NoNewPrivileges": "yes", "ProtectSystem": "strict", "ProtectHome": "yes",
		"PrivateTmp": "yes", "CapabilityBoundingSet": "", "EnvironmentFile": "/etc/rampway/rampway.env", "Restart": "on-failure",
	} {
		if got := one(k); got != want {
			t.Errorf("rampway.service: %s=%s, want %s", k, got, want)
		}
	}
	if args := execStart(t); len(args) < 2 || args[0] != unitBinary || args[1] != "serve" {
		t.Errorf("ExecStart %q: want %s serve …", args, unitBinary)
	}
}

// systemd-analyze verify finds nothing to say about the unit (unknown keys, bad values, a
// binary that is not there), with ExecStart's binary replaced by a real one. Without
// systemd-analyze (CI has none) this part skips, even under CI=true.
func TestSystemdAnalyzeVerify(t *testing.T) {
	t.Parallel()
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("no systemd-analyze")
	}
	b, err := os.ReadFile("rampway.service")
	if err != nil {
		t.Fatal(err)
	}
	unit := filepath.Join(t.TempDir(), "rampway.service")
	if err := os.WriteFile(unit, []byte(strings.ReplaceAll(string(b), unitBinary, "/bin/true")), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(analyze, "verify", unit).CombinedOutput()
	if err != nil || len(strings.TrimSpace(string(out))) > 0 {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
}
