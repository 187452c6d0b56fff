package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// `rampway admin fiat-actions` lists, retries and resolves through the same use cases as the
// admin API (tested there with an action a provider refused); here, the command's own
// arguments and answers on a database without any.
func TestAdminCLIFiatActions(t *testing.T) {
	t.Parallel()
	cfgPath := writeConfig(t, filepath.Join(t.TempDir(), "prod.db"))
	cli := func(args ...string) (string, error) {
		var out bytes.Buffer
		err := run(t.Context(), append([]string{"admin", "--config", cfgPath, "fiat-actions"}, args...), noEnv, &out)
		return out.String(), err
	}
	out, err := cli("list")
	var l struct {
		Data    []any `json:"data"`
		HasMore bool  `json:"has_more"`
	}
	if err != nil || json.Unmarshal([]byte(out), &l) != nil || l.Data == nil || len(l.Data) != 0 || l.HasMore {
		t.Fatalf("list: %v %s", err, out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"list", "--status", "stuck"}, "status must be one of"},
		{[]string{"list", "--limit", "0"}, "--limit must be between 1 and 1000"},
		{[]string{"retry", "fac_00000000000000000000000000"}, "not found"},
		{[]string{"resolve", "fac_00000000000000000000000000"}, "note is required"},
		{[]string{"retry"}, "ACTION_ID"},
	} {
		if _, err := cli(c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%v: %v, want an error saying %q", c.args, err, c.want)
		}
	}
}
