package rampway_test

import (
	"errors"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// modulePath is this module's import path.
const modulePath = "github.com/rampway/rampway"

// notYetMerged are packages ARCHITECTURE.md names that do not exist yet, while the work that
// adds them is under way: empty when none is. The test fails for an entry that exists, so that
// it is removed.
var notYetMerged = map[string]bool{}

// importsToGo are imports that break ARCHITECTURE.md's rules today and are being removed by
// work under way: empty when none is. The test fails for an entry no longer there.
var importsToGo = map[string]bool{}

// TestArchitecture holds ARCHITECTURE.md to the code: every package of the module is in its
// table and every package there exists; every file and function it points to exists; and
// every import between the module's packages is one its layer rules allow.
func TestArchitecture(t *testing.T) {
	doc := readArchitecture(t)
	layers, rows := architectureTable(t, doc)
	allowed := importRules(t, doc)
	pkgs := modulePackages(t)

	for p := range rows {
		_, ok := pkgs[p]
		switch {
		case ok && notYetMerged[p]:
			t.Errorf("package %s exists now: remove it from notYetMerged in architecture_test.go", p)
		case !ok && !notYetMerged[p]:
			t.Errorf("ARCHITECTURE.md lists package %s, which does not exist", p)
		}
	}
	for p := range pkgs {
		if _, ok := rows[p]; !ok {
			t.Errorf("package %s is not in ARCHITECTURE.md's table: add its row (layer and role)", p)
		}
	}
	for l := range layers {
		if _, ok := allowed[l]; !ok {
			t.Errorf("layer %q has no import rule in ARCHITECTURE.md", l)
		}
	}

	seen := map[string]bool{}
	for p, imports := range pkgs {
		from, ok := rows[p]
		if !ok {
			continue
		}
		for _, imp := range imports {
			to, ok := rows[imp]
			if !ok {
				continue // reported above
			}
			edge := p + " -> " + imp
			if slices.Contains(allowed[from], to) {
				continue
			}
			if importsToGo[edge] {
				seen[edge] = true
				continue
			}
			t.Errorf("%s (layer %s) imports %s (layer %s): ARCHITECTURE.md lets %s import only %v",
				p, from, imp, to, from, allowed[from])
		}
	}
	for edge := range importsToGo {
		if !seen[edge] {
			t.Errorf("%s is gone: remove it from importsToGo in architecture_test.go", edge)
		}
	}
}

// TestArchitecturePointers: every `file.go` and `file.go:Func` (or `file.go:Type.Method`)
// ARCHITECTURE.md names exists, and the page stays a map (at most 150 lines).
func TestArchitecturePointers(t *testing.T) {
	doc := readArchitecture(t)
	if n := strings.Count(doc, "\n"); n > 150 {
		t.Errorf("ARCHITECTURE.md has %d lines; keep it to 150", n)
	}
	pointer := regexp.MustCompile("`([\\w./-]+\\.go)(?::([\\w.]+))?`")
	found := 0
	for _, m := range pointer.FindAllStringSubmatch(doc, -1) {
		found++
		file, fn := m[1], m[2]
		path := filepath.FromSlash(file)
		if _, err := os.Stat(path); err != nil {
			t.Errorf("ARCHITECTURE.md names %s, which does not exist", file)
			continue
		}
		if fn != "" && !declares(t, path, fn) {
			t.Errorf("ARCHITECTURE.md names %s:%s, which %s does not declare", file, fn, file)
		}
	}
	if found < 20 {
		t.Errorf("ARCHITECTURE.md names %d files or functions; the pattern no longer finds its pointers", found)
	}
}

func readArchitecture(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// architectureTable reads the package table: package (relative to the module, the root as
// "rampway") -> layer, and the set of layers.
func architectureTable(t *testing.T, doc string) (layers map[string]bool, rows map[string]string) {
	t.Helper()
	row := regexp.MustCompile("(?m)^\\| `([\\w/-]+)` \\| ([a-z]+) \\| ")
	layers, rows = map[string]bool{}, map[string]string{}
	for _, m := range row.FindAllStringSubmatch(doc, -1) {
		p := m[1]
		if p == "rampway" {
			p = ""
		}
		if _, dup := rows[p]; dup {
			t.Errorf("ARCHITECTURE.md lists %s twice", m[1])
		}
		rows[p] = m[2]
		layers[m[2]] = true
	}
	if len(rows) < 20 {
		t.Fatalf("ARCHITECTURE.md's package table has %d rows; its format changed?", len(rows))
	}
	return layers, rows
}

// importRules reads the layer table: layer -> the layers it may import.
func importRules(t *testing.T, doc string) map[string][]string {
	t.Helper()
	row := regexp.MustCompile(`(?m)^\| ([a-z]+) \| ([a-z, ]+) \|$`)
	rules := map[string][]string{}
	var all []string
	for _, m := range row.FindAllStringSubmatch(doc, -1) {
		all = append(all, m[1])
	}
	for _, m := range row.FindAllStringSubmatch(doc, -1) {
		switch spec := m[2]; {
		case spec == "nothing of ours":
			rules[m[1]] = nil
		case spec == "every layer":
			rules[m[1]] = all
		case strings.HasPrefix(spec, "every layer but "):
			rules[m[1]] = slices.DeleteFunc(slices.Clone(all), func(l string) bool { return l == strings.TrimPrefix(spec, "every layer but ") })
		default:
			rules[m[1]] = strings.Split(spec, ", ")
		}
	}
	if len(rules) < 5 {
		t.Fatalf("ARCHITECTURE.md's import rules have %d rows; their format changed?", len(rules))
	}
	return rules
}

// modulePackages returns every package of the module (relative path, "" for the root) with
// the packages of the module its non-test files import. A directory with test files only is
// a package too (as go list has it), importing nothing.
func modulePackages(t *testing.T) map[string][]string {
	t.Helper()
	pkgs := map[string][]string{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		name := d.Name()
		if path != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules") {
			return filepath.SkipDir
		}
		if path != "." {
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
		}
		bp, err := build.ImportDir(path, 0)
		var noGo *build.NoGoError
		if errors.As(err, &noGo) {
			return nil
		}
		if err != nil {
			return err
		}
		if len(bp.GoFiles) == 0 && len(bp.TestGoFiles) == 0 && len(bp.XTestGoFiles) == 0 {
			return nil
		}
		rel := filepath.ToSlash(path)
		if rel == "." {
			rel = ""
		}
		var ours []string
		for _, imp := range bp.Imports {
			if imp == modulePath {
				ours = append(ours, "")
			} else if r, ok := strings.CutPrefix(imp, modulePath+"/"); ok {
				ours = append(ours, r)
			}
		}
		pkgs[rel] = ours
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// declares reports whether the Go file declares the function name, or the method
// "Type.Method".
func declares(t *testing.T, path, name string) bool {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	recv, fn, isMethod := strings.Cut(name, ".")
	if !isMethod {
		fn = recv
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Name.Name != fn {
			continue
		}
		if !isMethod {
			return fd.Recv == nil
		}
		if fd.Recv != nil && len(fd.Recv.List) == 1 && receiverType(fd.Recv.List[0].Type) == recv {
			return true
		}
	}
	return false
}

func receiverType(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return receiverType(e.X)
	case *ast.IndexExpr:
		return receiverType(e.X)
	case *ast.Ident:
		return e.Name
	}
	return ""
}
