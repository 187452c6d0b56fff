package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rampway/rampway/dashboard"
)

// `rampway admin users add` makes dashboard users (a password made up and printed once when
// none is given), `users list` lists them without any password or hash.
func TestAdminCLIUsers(t *testing.T) {
	t.Parallel()
	cfgPath := writeConfig(t, filepath.Join(t.TempDir(), "prod.db"))
	cli := func(args ...string) (map[string]any, string, error) {
		t.Helper()
		var out, errOut bytes.Buffer
		err := runAdmin(t.Context(), append([]string{"--config", cfgPath}, args...), noEnv, &out, &errOut)
		var v map[string]any
		if err == nil {
			if jerr := json.Unmarshal(out.Bytes(), &v); jerr != nil {
				t.Fatalf("admin %v: stdout is not one JSON object: %v\n%s", args, jerr, out.String())
			}
		}
		return v, out.String(), err
	}
	m, _, err := cli("merchants", "create", "--name", "Acme")
	if err != nil {
		t.Fatal(err)
	}
	mid := m["merchant_id"].(string)

	owner, _, err := cli("users", "add", "--merchant", mid, "--email", "Owner@Acme.example", "--role", "owner")
	if err != nil {
		t.Fatal(err)
	}
	pw, _ := owner["password"].(string)
	if owner["email"] != "owner@acme.example" || owner["role"] != "owner" || owner["merchant_id"] != mid ||
		!strings.HasPrefix(owner["user_id"].(string), "usr_") || len(pw) < dashboard.MinPasswordLength {
		t.Fatalf("users add: %v", owner)
	}
	given, raw, err := cli("users", "add", "--merchant", mid, "--email", "dev@acme.example", "--role", "developer", "--password", "a given password")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := given["password"]; ok || strings.Contains(raw, "a given password") {
		t.Fatalf("a given password is printed: %s", raw)
	}
	op, _, err := cli("users", "add", "--email", "ops@rampway.example", "--role", "operator")
	if err != nil || op["merchant_id"] != "" || op["role"] != "operator" {
		t.Fatalf("operator: %v, %v", op, err)
	}

	for _, bad := range [][]string{
		{"users", "add", "--email", "x@acme.example", "--role", "viewer"},                      // no merchant
		{"users", "add", "--merchant", mid, "--email", "x@acme.example", "--role", "operator"}, // an operator has none
		{"users", "add", "--merchant", mid, "--email", "x@acme.example", "--role", "admin"},    // no such role
		{"users", "add", "--merchant", mid, "--email", "x@acme.example", "--role", "viewer", "--password", "short"},
		{"users", "add", "--merchant", "mch_nope", "--email", "x@acme.example", "--role", "viewer"},
		{"users", "add", "--merchant", mid, "--email", "owner@acme.example", "--role", "viewer"}, // taken
		{"users", "remove"},
	} {
		if _, _, err := cli(bad...); err == nil {
			t.Errorf("admin %v: no error", bad)
		}
	}

	list, raw, err := cli("users", "list", "--merchant", mid)
	if err != nil {
		t.Fatal(err)
	}
	data := list["data"].([]any)
	if len(data) != 2 || data[0].(map[string]any)["email"] != "dev@acme.example" || data[1].(map[string]any)["email"] != "owner@acme.example" {
		t.Fatalf("users list --merchant: %s", raw)
	}
	if strings.Contains(raw, "argon2id") || strings.Contains(raw, pw) || strings.Contains(raw, "password") {
		t.Fatalf("users list shows a password or its hash: %s", raw)
	}
	if all, _, err := cli("users", "list"); err != nil || len(all["data"].([]any)) != 3 {
		t.Fatalf("users list: %v, %v", all, err)
	}
}
