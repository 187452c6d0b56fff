package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"
)

// `rampway admin deposit-index show` and `advance --by N` (the step after a restore): the
// counter moves on by N, and nonsense is refused without moving it.
func TestAdminCLIDepositIndex(t *testing.T) {
	t.Parallel()
	cfgPath := writeConfig(t, filepath.Join(t.TempDir(), "prod.db"))
	cli := func(args ...string) (DepositIndexView, error) {
		t.Helper()
		var out, errOut bytes.Buffer
		err := runAdmin(t.Context(), append([]string{"--config", cfgPath, "deposit-index"}, args...), noEnv, &out, &errOut)
		var v DepositIndexView
		if err == nil {
			if jerr := json.Unmarshal(out.Bytes(), &v); jerr != nil {
				t.Fatalf("deposit-index %v: stdout is not one JSON object: %v\n%s", args, jerr, out.String())
			}
		}
		return v, err
	}
	start, err := cli("show")
	if err != nil {
		t.Fatal(err)
	}
	moved, err := cli("advance", "--by", "100000")
	if err != nil {
		t.Fatal(err)
	}
	if moved.Before == nil || *moved.Before != start.Next || moved.Next != start.Next+100000 {
		t.Fatalf("from %d, advance --by 100000: %+v", start.Next, moved)
	}
	for _, bad := range [][]string{{}, {"frob"}, {"advance"}, {"advance", "--by", "0"}, {"advance", "--by", "-4"},
		{"advance", "--by", "ten"}, {"advance", "--by", "2147483648"}, {"show", "--by", "3"}, {"advance", "--by", "5", "extra"}} {
		if _, err := cli(bad...); err == nil {
			t.Errorf("deposit-index %q: no error", bad)
		}
	}
	if now, err := cli("show"); err != nil || now.Next != moved.Next {
		t.Fatalf("after the refused commands the next index is %d (%v), want %d", now.Next, err, moved.Next)
	}
}
