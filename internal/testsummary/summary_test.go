package main

import (
	"bytes"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// testdata/sample.json is `go test -json -timeout 3s ./...` of the module in testdata/sample:
// passing, failing, skipping tests and subtests, a package that does not build, one whose
// test panics, one cut short by the timeout, one without tests.
func sample(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/sample.json")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestSummarise(t *testing.T) {
	var out bytes.Buffer
	s, err := summarise(bytes.NewReader(sample(t)), &out, "sample")
	if err != nil {
		t.Fatal(err)
	}
	if s.Passed != 5 || s.Failed != 4 || s.Skipped != 5 || s.Packages != 6 || s.OK() || s.Malformed != 0 {
		t.Errorf("summary %+v: want 5 passed, 4 failed (TestHangs never ended), 5 skipped, in 6 packages", s)
	}
	if want := []string{"sample/broken", "sample/crash", "sample/mixed", "sample/slow"}; !reflect.DeepEqual(s.FailedPackages, want) {
		t.Errorf("failed packages %v, want %v", s.FailedPackages, want)
	}
	wantSkips := []SkipGroup{
		{"RAMPWAY_TEST_POSTGRES_DSN not set", []string{"mixed TestNeedsPostgres", "mixed TestNeedsPostgresToo"}},
		{"no Chromium", []string{"mixed TestSubtests/needs_chromium", "quiet TestTwo"}},
		{"no reason given", []string{"mixed TestSkipNow"}},
	}
	if !reflect.DeepEqual(s.Skips, wantSkips) {
		t.Errorf("skips %+v, want %+v", s.Skips, wantSkips)
	}
	if len(s.Slowest) != 1 || s.Slowest[0].Package != "slow" {
		t.Errorf("slowest %+v, want slow alone (3 s; the others took no second)", s.Slowest)
	}
	text := out.String()
	for _, want := range []string{
		"?   \tsample/notests\t[no test files]\n", "ok  \tsample/quiet\t",
		"broken_test.go:5:33: undefined: undefined\n", "FAIL\tsample/broken [build failed]\n",
		"panic: a panic in a test", "FAIL\tsample/crash\t",
		"mixed_test.go:8: the details\n", "mixed_test.go:9: boom\n", "--- FAIL: TestFail", "mixed_test.go:24: sub boom\n", "--- FAIL: TestSubtests/fails",
		"--- NOT ENDED: TestHangs", "slow_test.go:11: waiting for something that never comes\n", "panic: test timed out after 3s\n",
		"\n== tests: 5 passed, 4 failed, 5 skipped, in 6 packages\n",
		"FAILED packages: sample/broken sample/crash sample/mixed sample/slow\n",
		"skipped, by reason:\n    2  RAMPWAY_TEST_POSTGRES_DSN not set\n       mixed TestNeedsPostgres, mixed TestNeedsPostgresToo\n",
		"    1  no reason given\n", "slowest packages: slow 3s\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the output lacks %q:\n%s", want, text)
		}
	}
	// What passed stays quiet: no test's lines, no "=== RUN".
	for _, not := range []string{"=== RUN", "--- PASS", "TestQuick", "looking for a server", "--- SKIP"} {
		if strings.Contains(text, not) {
			t.Errorf("the output has %q:\n%s", not, text)
		}
	}
	// Packages come in the order they ended, the summary last.
	if i, j := strings.Index(text, "sample/notests"), strings.Index(text, "== tests"); i < 0 || i > j {
		t.Errorf("the package lines are not before the summary:\n%s", text)
	}
}

// A run where every test passes or skips: OK, each skip reason counted, "skipped: none" when
// none did.
func TestSummariseAllPassed(t *testing.T) {
	var lines []string
	for l := range strings.SplitSeq(string(sample(t)), "\n") {
		if strings.Contains(l, `"Package":"sample/quiet"`) || strings.Contains(l, `"Package":"sample/notests"`) {
			lines = append(lines, l)
		}
	}
	var out bytes.Buffer
	s, err := summarise(strings.NewReader(strings.Join(lines, "\n")), &out, "sample")
	if err != nil || !s.OK() || s.Passed != 1 || s.Skipped != 1 || verdict(s, nil) != nil {
		t.Fatalf("%+v %v\n%s", s, err, out.String())
	}
	lines = slicesWithout(lines, "TestTwo")
	out.Reset()
	s, _ = summarise(strings.NewReader(strings.Join(lines, "\n")), &out, "sample")
	if s.Skipped != 0 || !strings.Contains(out.String(), "skipped: none\n") {
		t.Fatalf("%+v\n%s", s, out.String())
	}
}

func slicesWithout(lines []string, s string) []string {
	var out []string
	for _, l := range lines {
		if !strings.Contains(l, s) {
			out = append(out, l)
		}
	}
	return out
}

// A stream cut short (go test killed) leaves packages without an end: they are failed, with
// their output; a line that is no event is passed on as it is.
func TestSummariseCutShort(t *testing.T) {
	data := sample(t)
	cut := data[:bytes.Index(data, []byte(`"Action":"fail","Package":"sample/mixed","Test":"TestSubtests"`))]
	cut = cut[:bytes.LastIndexByte(cut, '\n')+1]
	cut = append([]byte("go: downloading example.com/x v1.0.0\n"), cut...)
	var out bytes.Buffer
	s, err := summarise(bytes.NewReader(cut), &out, "sample")
	if err != nil || s.OK() || s.Malformed != 1 {
		t.Fatalf("%+v %v", s, err)
	}
	if !strings.Contains(out.String(), "go: downloading example.com/x v1.0.0\n") || !strings.Contains(out.String(), "FAIL\tsample/mixed\n") {
		t.Fatalf("output:\n%s", out.String())
	}
}

// run with a command: the summary of its output; an error when it exits non-zero even if no
// test failed (a vet failure, a build error before any JSON), or when a test failed even if it
// exits 0. The command here is this test binary, printing JSON and exiting as told.
func TestRunCommand(t *testing.T) {
	passing := `{"Action":"run","Package":"p","Test":"TestA"}` + "\n" + `{"Action":"pass","Package":"p","Test":"TestA"}` + "\n" +
		`{"Action":"output","Package":"p","Output":"ok  \tp\t0.1s\n"}` + "\n" + `{"Action":"pass","Package":"p","Elapsed":0.1}` + "\n"
	failing := `{"Action":"run","Package":"p","Test":"TestA"}` + "\n" + `{"Action":"fail","Package":"p","Test":"TestA"}` + "\n" +
		`{"Action":"fail","Package":"p","Elapsed":0.1}` + "\n"
	for _, tc := range []struct {
		name, json string
		exit       string
		ok         bool
	}{
		{"passed", passing, "0", true},
		{"go test failed without a failed test", passing, "2", false},
		{"a test failed, go test exited 0", failing, "0", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("TESTSUMMARY_FAKE_JSON", tc.json)
			t.Setenv("TESTSUMMARY_FAKE_EXIT", tc.exit)
			var out, errs bytes.Buffer
			err := run([]string{os.Args[0], "-test.run=^$", "-json"}, nil, &out, &errs)
			if (err == nil) != tc.ok {
				t.Fatalf("run: %v, want ok %v\n%s%s", err, tc.ok, out.String(), errs.String())
			}
			if !strings.Contains(out.String(), "\n== tests: ") {
				t.Fatalf("no summary:\n%s", out.String())
			}
		})
	}
	// Two commands, one after the other, into one summary: package p failed in the first and
	// passed in the second (another test): failed, with the tests of both.
	t.Setenv("TESTSUMMARY_FAKE_EXIT", "0")
	t.Setenv("TESTSUMMARY_FAKE_JSON", failing)
	t.Setenv("TESTSUMMARY_FAKE_JSON_SECOND", strings.ReplaceAll(passing, "TestA", "TestB"))
	var out bytes.Buffer
	fake := []string{os.Args[0], "-test.run=^$", "-json"}
	err := run(append(append(slices.Clone(fake), ";"), append(fake, "second")...), nil, &out, &bytes.Buffer{})
	if err == nil || !strings.Contains(out.String(), "== tests: 1 passed, 1 failed, 0 skipped, in 1 packages\nFAILED packages: p\n") {
		t.Fatalf("two commands: %v\n%s", err, out.String())
	}
	if err := run(append(slices.Clone(fake), ";"), nil, &bytes.Buffer{}, &bytes.Buffer{}); err == nil {
		t.Fatal("an empty command after a ';' was accepted")
	}
	if err := run([]string{"go", "test", "./..."}, nil, &bytes.Buffer{}, &bytes.Buffer{}); err == nil {
		t.Fatal("a command without -json was run")
	}
	if err := run([]string{"/nonexistent/go", "test", "-json"}, nil, &bytes.Buffer{}, &bytes.Buffer{}); err == nil {
		t.Fatal("a command that cannot start: no error")
	}
}

// TestMain is also the fake go test of TestRunCommand.
func TestMain(m *testing.M) {
	if j, ok := os.LookupEnv("TESTSUMMARY_FAKE_JSON"); ok {
		if slices.Contains(os.Args, "second") {
			j = os.Getenv("TESTSUMMARY_FAKE_JSON_SECOND")
		}
		os.Stdout.WriteString(j)
		if os.Getenv("TESTSUMMARY_FAKE_EXIT") != "0" {
			os.Exit(2)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
