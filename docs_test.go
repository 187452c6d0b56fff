package rampway_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// docPages are the documents a newcomer reads: the README, the map and every page of docs/.
func docPages(t *testing.T) []string {
	t.Helper()
	pages := []string{"README.md", "ARCHITECTURE.md"}
	for _, glob := range []string{"docs/*.md", "docs/spec/*.md"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, m...)
	}
	if len(pages) < 10 {
		t.Fatalf("found %d pages: run the test from the repository's root", len(pages))
	}
	return pages
}

// prose returns a page without its fenced code blocks (a link or a heading in a code block is
// none), blanked line for line so that line numbers stay right.
func prose(doc string) []string {
	lines := strings.Split(doc, "\n")
	in := false
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			in = !in
			lines[i] = ""
			continue
		}
		if in {
			lines[i] = ""
		}
	}
	return lines
}

// anchors returns the anchors GitHub gives a page's headings.
func anchors(doc string) map[string]bool {
	out := map[string]bool{}
	for _, l := range prose(doc) {
		if !strings.HasPrefix(l, "#") {
			continue
		}
		h := strings.TrimSpace(strings.TrimLeft(l, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(h) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		for n := 1; out[a]; n++ { // a repeated heading gets -1, -2, ...
			a = fmt.Sprintf("%s-%d", b.String(), n)
		}
		out[a] = true
	}
	return out
}

// TestDocLinks: every relative link of the pages reaches a file of the repository, and every
// anchor a heading of its page.
func TestDocLinks(t *testing.T) {
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, page := range docPages(t) {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range prose(string(b)) {
			for _, m := range link.FindAllStringSubmatch(l, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				file, anchor, _ := strings.Cut(target, "#")
				path := page
				if file != "" {
					path = filepath.Join(filepath.Dir(page), filepath.FromSlash(file))
				}
				rel, err := filepath.Rel(".", path)
				if err != nil || strings.HasPrefix(rel, "..") {
					t.Errorf("%s:%d: %s leads out of the repository", page, i+1, target)
					continue
				}
				doc, err := os.ReadFile(path)
				if err != nil {
					if _, serr := os.Stat(path); serr != nil {
						t.Errorf("%s:%d: %s does not exist", page, i+1, target)
					}
					continue // a directory
				}
				if anchor != "" && strings.HasSuffix(path, ".md") && !anchors(string(doc))[anchor] {
					t.Errorf("%s:%d: %s has no heading for #%s", page, i+1, filepath.ToSlash(rel), anchor)
				}
			}
		}
	}
}

// TestReadme: the README stays an entry (under 400 lines) whose two commands are the ones
// that work: the dev environment, and the test command CI's .ci/run calls.
func TestReadme(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	if n := strings.Count(readme, "\n"); n >= 400 {
		t.Errorf("README.md has %d lines: keep it under 400, move the reference to docs/", n)
	}
	for _, cmd := range []string{"go run ./cmd/rampway dev", "make test"} {
		if !strings.Contains(readme, "```sh\n"+cmd+"\n```") {
			t.Errorf("README.md does not give %q as a command of its own", cmd)
		}
	}
	ci, err := os.Open(filepath.Join(".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	defer ci.Close()
	found := false
	for sc := bufio.NewScanner(ci); sc.Scan(); {
		found = found || strings.TrimSpace(sc.Text()) == "make test"
	}
	if !found {
		t.Error(".ci/run no longer runs `make test`, the README's test command: change one or the other")
	}
}

// TestDocsSelfContained: the pages name no document a reader of the repository does not
// have, and no issue of the project's tracker; the contract's endpoint names (A1, B3, ...)
// are used only on pages that link to their explanation.
func TestDocsSelfContained(t *testing.T) {
	outside := regexp.MustCompile(`DESIGN(\.md|'s)|\.\./shared|(?i:\bissues? #?[0-9]+)`)
	code := regexp.MustCompile(`\b[ABC][1-3]\b`)
	for _, page := range docPages(t) {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		doc := string(b)
		for i, l := range strings.Split(doc, "\n") {
			if m := outside.FindString(l); m != "" {
				t.Errorf("%s:%d: %q: a reader of the repository cannot follow that", page, i+1, m)
			}
		}
		explained := slices.Contains([]string{"docs/api.md", "docs/spec/merchant-api.md"}, filepath.ToSlash(page)) ||
			strings.Contains(doc, "api.md#endpoint-names)")
		if m := code.FindString(doc); m != "" && !explained {
			t.Errorf("%s uses the endpoint name %s without linking to docs/api.md#endpoint-names", page, m)
		}
	}
}
