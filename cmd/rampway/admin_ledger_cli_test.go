package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// `rampway admin ledger` reads the ledger as the admin API does (the drifts and the acceptance
// of one are tested through the running service in internal/app): here, the command's own
// arguments and answers on a database with nothing recorded.
func TestAdminCLILedger(t *testing.T) {
	t.Parallel()
	cfgPath := writeConfig(t, filepath.Join(t.TempDir(), "prod.db"))
	cli := func(args ...string) (string, error) {
		var out bytes.Buffer
		err := run(t.Context(), append([]string{"admin", "--config", cfgPath, "ledger"}, args...), noEnv, &out)
		return out.String(), err
	}
	out, err := cli("drifts")
	var d struct {
		Drifts []any `json:"drifts"`
	}
	if err != nil || json.Unmarshal([]byte(out), &d) != nil || d.Drifts == nil || len(d.Drifts) != 0 {
		t.Fatalf("drifts: %v %s", err, out)
	}
	out, err = cli("report", "--from", "2026-01-01", "--to", "2026-01-03")
	var r struct {
		From, To string
		Days     []any
	}
	if err != nil || json.Unmarshal([]byte(out), &r) != nil || r.From != "2026-01-01" || r.To != "2026-01-03" || r.Days == nil || len(r.Days) != 0 {
		t.Fatalf("report: %v %s", err, out)
	}
	out, err = cli("report") // the last 30 days, to today
	if err != nil || json.Unmarshal([]byte(out), &r) != nil || r.To != time.Now().UTC().Add(24*time.Hour).Format(time.DateOnly) {
		t.Fatalf("report of the last days: %v %s", err, out)
	}
	out, err = cli("transfers", "ord_00000000000000000000000000")
	var tr struct {
		Transfers []any `json:"transfers"`
	}
	if err != nil || json.Unmarshal([]byte(out), &tr) != nil || tr.Transfers == nil || len(tr.Transfers) != 0 {
		t.Fatalf("transfers: %v %s", err, out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report", "--from", "yesterday"}, "from must be a date"},
		{[]string{"report", "--from", "2026-01-03", "--to", "2026-01-01"}, "from must be before to"},
		{[]string{"transfers"}, "expects REF"},
		{[]string{"accept", "hot/devnet/0x00000000000000000000000000000000000000aa", "devnet/native", "--note", "funded"}, "no drift"},
		{[]string{"accept", "hot/devnet/0x00000000000000000000000000000000000000aa", "devnet/native"}, "note is required"},
		{[]string{"balance"}, "unknown sub-command"},
		{nil, "needs a sub-command"},
	} {
		if _, err := cli(c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%v: %v, want an error saying %q", c.args, err, c.want)
		}
	}
}
