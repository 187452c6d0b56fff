package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"
)

// event is one line of `go test -json` (cmd/test2json), with the build events of Go 1.24 on.
type event struct {
	Action      string
	Package     string
	Test        string
	Elapsed     float64
	Output      string
	ImportPath  string // build-output, build-fail
	FailedBuild string // a package's fail: the import path whose build failed
}

// test is what the summary keeps of one test (or subtest) of a package.
type test struct {
	pkg, name string
	action    string   // its last of run, pass, fail, skip
	elapsed   float64  // seconds
	output    []string // its output lines, in order
	first     int      // the order of its first event, for printing in the order tests ran
}

// pkg is what the summary keeps of one package.
type pkg struct {
	name    string
	action  string // pass, fail or skip once it ended
	elapsed float64
	output  []string // output not of a test: the "ok" line, a panic, a timeout, TestMain's
	tests   map[string]*test
}

// Summary is what a run of `go test -json` came to.
type Summary struct {
	Packages                int
	FailedPackages          []string
	Passed, Failed, Skipped int // leaf tests: a test with subtests counts as its subtests
	// Skips are the skipped tests by reason (the last message each logged before skipping),
	// the most common first.
	Skips []SkipGroup
	// Slowest are the packages that took longest, at most five, of a second or more.
	Slowest []PackageTime
	// Malformed counts stdout lines that were not test events (passed on as they were).
	Malformed int
}

// SkipGroup is the tests that skipped for one reason.
type SkipGroup struct {
	Reason string
	Tests  []string // package-relative: "webhook TestX/postgres"
}

// PackageTime is how long a package's tests took.
type PackageTime struct {
	Package string
	Elapsed time.Duration
}

// OK reports whether nothing failed.
func (s Summary) OK() bool { return s.Failed == 0 && len(s.FailedPackages) == 0 }

// summarise reads `go test -json` from r and writes what a person wants to read to w as it
// goes: each package's result line as `go test` prints it, and for a failed package the output
// of its failed tests (and of those that never ended: a timeout, a panic) and its own. Then it
// writes the summary (Summary.Write) and returns it. module is the import path prefix dropped
// from the names in the summary.
func summarise(r io.Reader, w io.Writer, module string) (Summary, error) {
	var s Summary
	pkgs := map[string]*pkg{}
	var order int
	get := func(name string) *pkg {
		p := pkgs[name]
		if p == nil {
			p = &pkg{name: name, tests: map[string]*test{}}
			pkgs[name] = p
		}
		return p
	}
	builds := map[string][]string{} // import path -> its build output
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var ev event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &ev) != nil {
			s.Malformed++
			fmt.Fprintf(w, "%s\n", line)
			continue
		}
		switch ev.Action {
		case "build-output":
			builds[ev.ImportPath] = append(builds[ev.ImportPath], ev.Output)
			continue
		case "build-fail":
			continue // its package's fail event says so, and prints the output
		}
		if ev.Package == "" {
			continue
		}
		p := get(ev.Package)
		if ev.Test == "" {
			switch ev.Action {
			case "output":
				p.output = append(p.output, ev.Output)
			case "pass", "fail", "skip":
				// A package may come in several runs (make unit runs a few tests without the
				// race detector too): its result is the worst, its time the sum.
				if p.action != "fail" && (p.action != "pass" || ev.Action == "fail") {
					p.action = ev.Action
				}
				p.elapsed += ev.Elapsed
				if ev.FailedBuild != "" {
					p.output = append(builds[ev.FailedBuild], p.output...)
				}
				writePackage(w, p, ev.Action)
				p.output = nil // printed
			}
			continue
		}
		t := p.tests[ev.Test]
		if t == nil {
			order++
			t = &test{pkg: ev.Package, name: ev.Test, action: "run", first: order}
			p.tests[ev.Test] = t
		}
		switch ev.Action {
		case "output":
			t.output = append(t.output, ev.Output)
		case "pass", "fail", "skip":
			t.action, t.elapsed = ev.Action, ev.Elapsed
		}
	}
	if err := sc.Err(); err != nil {
		return s, fmt.Errorf("read go test's output: %w", err)
	}

	skips := map[string][]string{}
	var times []PackageTime
	for _, p := range pkgs {
		s.Packages++
		switch p.action {
		case "fail":
			s.FailedPackages = append(s.FailedPackages, p.name)
		case "":
			// No end: go test was stopped, or the package's binary never reported one.
			s.FailedPackages = append(s.FailedPackages, p.name)
			p.action = "fail"
			writePackage(w, p, "fail")
		}
		short := shortName(p.name, module)
		times = append(times, PackageTime{Package: short, Elapsed: time.Duration(p.elapsed * float64(time.Second))})
		for name, t := range p.tests {
			if hasSubtests(p, name) {
				continue
			}
			switch t.action {
			case "pass":
				s.Passed++
			case "skip":
				s.Skipped++
				reason := skipReason(t.output)
				skips[reason] = append(skips[reason], short+" "+name)
			default: // fail, or never ended
				s.Failed++
			}
		}
	}
	slices.Sort(s.FailedPackages)
	for reason, tests := range skips {
		slices.Sort(tests)
		s.Skips = append(s.Skips, SkipGroup{Reason: reason, Tests: tests})
	}
	slices.SortFunc(s.Skips, func(a, b SkipGroup) int {
		return cmp.Or(cmp.Compare(len(b.Tests), len(a.Tests)), cmp.Compare(a.Reason, b.Reason))
	})
	slices.SortFunc(times, func(a, b PackageTime) int {
		return cmp.Or(cmp.Compare(b.Elapsed, a.Elapsed), cmp.Compare(a.Package, b.Package))
	})
	for _, t := range times[:min(len(times), 5)] {
		if t.Elapsed >= time.Second {
			s.Slowest = append(s.Slowest, t)
		}
	}
	s.Write(w)
	return s, nil
}

// shortName is a package's import path without the module's ("." for the module's root).
func shortName(pkg, module string) string {
	if pkg == module {
		return "."
	}
	return strings.TrimPrefix(pkg, module+"/")
}

// hasSubtests reports whether test name of p has subtests.
func hasSubtests(p *pkg, name string) bool {
	for other := range p.tests {
		if strings.HasPrefix(other, name+"/") {
			return true
		}
	}
	return false
}

// logLine is a line a test logged: indented, "file.go:123: message".
var logLine = regexp.MustCompile(`^\s+[\w.-]+\.go:\d+: (.*)$`)

// skipReason is why a test skipped: the last message it logged before its "--- SKIP" line
// (t.Skip's), else "no reason given".
func skipReason(output []string) string {
	reason := ""
	for _, l := range output {
		l = strings.TrimRight(l, "\n")
		if strings.Contains(l, "--- SKIP") {
			break
		}
		if m := logLine.FindStringSubmatch(l); m != nil {
			reason = m[1]
		}
	}
	if reason == "" {
		return "no reason given"
	}
	return reason
}

// writePackage writes the result line of p's run that ended with action, as go test prints
// it and, when it failed, the output of its failed tests and of those that never ended, then
// its own.
func writePackage(w io.Writer, p *pkg, action string) {
	if action != "fail" {
		for _, l := range p.output {
			if strings.HasPrefix(l, "ok  ") || strings.HasPrefix(l, "?   ") {
				io.WriteString(w, l)
			}
		}
		return
	}
	var failed []*test
	for name, t := range p.tests {
		if t.action == "fail" || t.action == "run" && !hasSubtests(p, name) {
			failed = append(failed, t)
		}
	}
	slices.SortFunc(failed, func(a, b *test) int { return cmp.Compare(a.first, b.first) })
	for _, t := range failed {
		if t.action == "run" {
			fmt.Fprintf(w, "--- NOT ENDED: %s (still running when its package ended)\n", t.name)
		}
		for _, l := range t.output {
			if !strings.HasPrefix(l, "=== ") {
				io.WriteString(w, l)
			}
		}
	}
	for _, l := range p.output {
		if l != "PASS\n" && !strings.HasPrefix(l, "=== ") {
			io.WriteString(w, l)
		}
	}
	if n := len(p.output); n == 0 || !strings.HasPrefix(p.output[n-1], "FAIL") {
		fmt.Fprintf(w, "FAIL\t%s\n", p.name) // a package cut short prints no result line
	}
}

// Write writes the summary: the counts, the failed packages, the skips by reason (with the
// first tests of each) and the slowest packages.
func (s Summary) Write(w io.Writer) {
	fmt.Fprintf(w, "\n== tests: %d passed, %d failed, %d skipped, in %d packages\n", s.Passed, s.Failed, s.Skipped, s.Packages)
	if len(s.FailedPackages) > 0 {
		fmt.Fprintf(w, "FAILED packages: %s\n", strings.Join(s.FailedPackages, " "))
	}
	if len(s.Skips) == 0 {
		fmt.Fprintln(w, "skipped: none")
	} else {
		fmt.Fprintln(w, "skipped, by reason:")
		for _, g := range s.Skips {
			fmt.Fprintf(w, "%5d  %s\n", len(g.Tests), g.Reason)
			const shown = 4
			names := g.Tests[:min(len(g.Tests), shown)]
			more := ""
			if n := len(g.Tests) - shown; n > 0 {
				more = fmt.Sprintf(" and %d more", n)
			}
			fmt.Fprintf(w, "       %s%s\n", strings.Join(names, ", "), more)
		}
	}
	if len(s.Slowest) > 0 {
		var parts []string
		for _, p := range s.Slowest {
			parts = append(parts, fmt.Sprintf("%s %s", p.Package, p.Elapsed.Round(time.Second)))
		}
		fmt.Fprintf(w, "slowest packages: %s\n", strings.Join(parts, ", "))
	}
}
