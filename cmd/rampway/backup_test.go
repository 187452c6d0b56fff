package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rampway backup's command line: a dev data directory's database is backed up; what it
// cannot do is refused with a reason. (deploy/backup_test.go backs up a running serve and
// restores it.)
func TestBackupCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfgPath := writeConfig(t, filepath.Join(dir, devDBFile))
	if err := run(t.Context(), []string{"migrate", "--config", cfgPath}, noEnv, io.Discard); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	to := filepath.Join(t.TempDir(), "dev-backup.db")
	if err := run(t.Context(), []string{"backup", "--data-dir", dir, "--to", to}, noEnv, &out); err != nil ||
		!strings.HasPrefix(out.String(), "backed up "+filepath.Join(dir, devDBFile)+" to "+to+": 0 orders, schema version ") {
		t.Fatalf("backup --data-dir: %v %q", err, out.String())
	}
	pg := filepath.Join(t.TempDir(), "pg.yaml")
	if err := os.WriteFile(pg, []byte("database: {driver: postgres, dsn: postgres://db/rampway}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"backup", "--config", cfgPath}, "--to FILE is required"},
		{[]string{"backup", "--to", "x.db"}, "--config FILE or --data-dir DIR is required"},
		{[]string{"backup", "--config", cfgPath, "x.db"}, "unexpected argument"},
		{[]string{"backup", "--config", pg, "--to", "x.db"}, "back it up with pg_dump"},
		{[]string{"backup", "--data-dir", t.TempDir(), "--to", "x.db"}, "no database at"},
		{[]string{"backup", "--data-dir", dir, "--to", to}, "exists"},
	} {
		if err := run(t.Context(), c.args, noEnv, io.Discard); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error saying %q", c.args, err, c.want)
		}
	}
}
