package config

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// configDoc is the page that documents every key of the configuration file.
var configDoc = filepath.Join("..", "docs", "configuration.md")

// TestConfigurationDocumented holds docs/configuration.md to Config: every key of the file is
// in the page's YAML example or named in its text as `a.b.c`, and every key of the example
// is one Load accepts. The environment variables the configuration reads are on a page of
// docs/.
func TestConfigurationDocumented(t *testing.T) {
	b, err := os.ReadFile(configDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	keys, leaves := configKeys(reflect.TypeOf(Config{}), "")
	example := exampleKeys(t, doc)

	for _, k := range keys {
		if !example[k] && !strings.Contains(doc, "`"+k+"`") {
			t.Errorf("configuration key %s is not in docs/configuration.md (its YAML example, or `%s` in the text)", k, k)
		}
	}
	for k := range example {
		if !slices.Contains(keys, k) && !underLeaf(k, leaves) {
			t.Errorf("docs/configuration.md's example has %s, which is no configuration key", k)
		}
	}

	// The environment variables: every RAMPWAY_ name the package reads is documented.
	var pages strings.Builder
	for _, glob := range []string{"../docs/*.md", "../README.md"} {
		files, _ := filepath.Glob(glob)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			pages.Write(b)
		}
	}
	env := regexp.MustCompile(`"(RAMPWAY_[A-Z0-9_]+)"`)
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range env.FindAllStringSubmatch(string(src), -1) {
			if !strings.Contains(pages.String(), m[1]) {
				t.Errorf("%s reads %s, which no page of docs/ mentions", f, m[1])
			}
		}
	}
}

// configKeys returns every key path of t ("networks.tokens.approve_reset": a list's items
// are transparent), and the paths whose values are maps or free-form (their keys are data).
func configKeys(t reflect.Type, prefix string) (keys []string, leaves []string) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		path := name
		if prefix != "" {
			path = prefix + "." + name
		}
		keys = append(keys, path)
		ft := f.Type
		for ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Slice {
			ft = ft.Elem()
		}
		switch ft.Kind() {
		case reflect.Struct:
			if ft.PkgPath() == t.PkgPath() { // ours; time.Duration and the like are values
				k, l := configKeys(ft, path)
				keys, leaves = append(keys, k...), append(leaves, l...)
			}
		case reflect.Map, reflect.Interface:
			leaves = append(leaves, path)
		}
	}
	return keys, leaves
}

// exampleKeys returns the key paths of the page's YAML blocks.
func exampleKeys(t *testing.T, doc string) map[string]bool {
	t.Helper()
	block := regexp.MustCompile("(?s)```yaml\n(.*?)```")
	keys := map[string]bool{}
	blocks := block.FindAllStringSubmatch(doc, -1)
	if len(blocks) == 0 {
		t.Fatal("docs/configuration.md has no ```yaml example")
	}
	for _, m := range blocks {
		var n yaml.Node
		if err := yaml.Unmarshal([]byte(m[1]), &n); err != nil {
			t.Fatalf("docs/configuration.md's example is not YAML: %v", err)
		}
		walkKeys(&n, "", keys)
	}
	return keys
}

func walkKeys(n *yaml.Node, prefix string, keys map[string]bool) {
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for _, c := range n.Content {
			walkKeys(c, prefix, keys)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			path := n.Content[i].Value
			if prefix != "" {
				path = prefix + "." + path
			}
			keys[path] = true
			walkKeys(n.Content[i+1], path, keys)
		}
	}
}

func underLeaf(k string, leaves []string) bool {
	return slices.ContainsFunc(leaves, func(l string) bool { return strings.HasPrefix(k, l+".") })
}
