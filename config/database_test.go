package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// LoadDatabase reads the database section alone: a file whose other sections would not
// validate (no secrets, here) still gives its database; the DSN variable overrides the file's;
// a bad database section is refused, naming the field.
func TestLoadDatabase(t *testing.T) {
	write := func(yaml string) string {
		p := filepath.Join(t.TempDir(), "rampway.yaml")
		if err := os.WriteFile(p, []byte(yaml), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	path := write("http: {public_url: https://pay.example.com}\ndatabase: {driver: sqlite, path: /var/lib/rampway/rampway.db}\n")
	if _, err := Load(path, noEnv); err == nil {
		t.Fatal("Load took a file without secrets")
	}
	db, err := LoadDatabase(path, noEnv)
	if err != nil || db.Driver != "sqlite" || db.Path != "/var/lib/rampway/rampway.db" {
		t.Fatalf("LoadDatabase: %+v %v", db, err)
	}
	pg := write("database: {driver: postgres, dsn: postgres://file@db/rampway}\n")
	env := func(k string) string {
		if k == EnvDatabaseDSN {
			return "postgres://env@db/rampway"
		}
		return ""
	}
	if db, err := LoadDatabase(pg, env); err != nil || db.DSN != "postgres://env@db/rampway" {
		t.Fatalf("LoadDatabase with %s: %+v %v", EnvDatabaseDSN, db, err)
	}
	if db, err := LoadDatabase(write("mode: production\n"), noEnv); err != nil || db != Default().Database {
		t.Fatalf("LoadDatabase without a database section: %+v %v, want the default", db, err)
	}
	for yaml, field := range map[string]string{
		"database: {driver: mysql}\n":                      "database.driver",
		"database: {driver: postgres}\n":                   "database.dsn",
		"database: {driver: sqlite, path: ''}\n":           "database.path",
		"database: {driver: sqlite, max_open_conns: -1}\n": "database.max_open_conns",
		"database: [not, a, map]\n":                        "parse",
	} {
		if _, err := LoadDatabase(write(yaml), noEnv); err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("LoadDatabase(%q): %v, want an error naming %s", yaml, err, field)
		}
	}
	if _, err := LoadDatabase(filepath.Join(t.TempDir(), "missing.yaml"), noEnv); err == nil {
		t.Error("LoadDatabase of a missing file succeeded")
	}
}
