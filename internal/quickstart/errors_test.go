package quickstart

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the error table of docs/quickstart.md")

const (
	repoRoot = "../.."
	docPath  = "../../docs/quickstart.md"
)

// docs/quickstart.md's error table is the code's: rendered from error.go and
// httpapi/respond.go between its markers; -update rewrites it.
func TestErrorCatalogue(t *testing.T) {
	codes, err := ReadErrorCodes(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	want := RenderErrorCatalogue(codes)
	doc, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReplaceBetween(doc, CatalogueBegin, CatalogueEnd, want)
	if err != nil {
		t.Fatalf("docs/quickstart.md: %v", err)
	}
	if string(got) == string(doc) {
		return
	}
	if *update {
		if err := os.WriteFile(docPath, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("docs/quickstart.md's error table is not the code's; regenerate it with\n"+
		"\tgo test ./internal/quickstart -run TestErrorCatalogue -update\nwhich writes:\n%s", want)
}

// The catalogue reads the tables it is made of as they are.
func TestReadErrorCodes(t *testing.T) {
	codes, err := ReadErrorCodes(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]ErrorCode{}
	for _, c := range codes {
		byName[c.Name] = c
	}
	for _, tc := range []struct {
		name              string
		status, body      int
		retryable         string
		value, meaningHas string
	}{
		{"EINVALID", 400, 400, "no", "invalid", "bad input"},
		{"EFUNCARGS", 400, 403, "no", "function_args", "function arguments"},
		{"EUNAUTHORIZED", 401, 401, "no", "unauthorized", "credentials"},
		{"ECONFLICT", 409, 409, "with `Retry-After`", "conflict", "in flight"},
		{"EUNPROCESSABLE", 422, 422, "no", "unprocessable", "idempotency key"},
		{"ERATELIMIT", 429, 429, "yes", "rate_limited", "too many"},
		{"EINTERNAL", 500, 500, "yes", "internal", "anything else"},
		{"EUNAVAILABLE", 503, 503, "yes", "unavailable", "down"},
	} {
		c, ok := byName[tc.name]
		if !ok {
			t.Errorf("no %s", tc.name)
			continue
		}
		if c.Status != tc.status || c.BodyStatus != tc.body || c.Retryable != tc.retryable || c.Value != tc.value ||
			!strings.Contains(c.Meaning, tc.meaningHas) || strings.Contains(c.Meaning, ": ") {
			t.Errorf("%s: %+v", tc.name, c)
		}
	}
	if codes[0].Name != "EINVALID" || codes[len(codes)-1].Name != "EINTERNAL" {
		t.Errorf("not in error.go's order: %s ... %s", codes[0].Name, codes[len(codes)-1].Name)
	}
}

func TestHTTPStatusNames(t *testing.T) {
	for name, want := range map[string]int{"StatusBadRequest": 400, "StatusRequestEntityTooLarge": 413,
		"StatusUnsupportedMediaType": 415, "StatusTooManyRequests": 429, "StatusServiceUnavailable": 503} {
		if got := httpStatus[name]; got != want {
			t.Errorf("%s = %d, want %d", name, got, want)
		}
	}
}
