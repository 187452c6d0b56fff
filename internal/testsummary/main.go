// Command testsummary runs `go test -json` (or reads its output on stdin) and prints what a
// person wants from it: each package's result line as go test prints it, the output of what
// failed, and at the end the counts of tests passed, failed and skipped, the skips grouped by
// their reason, and the slowest packages. It exits non-zero when go test did or a test failed.
// Several commands, separated by an argument ";", run one after the other into one summary.
// `make unit` runs the suite through it:
//
//	go run ./internal/testsummary go test -race -count=1 -json ./... \; go test -count=1 -json -run X .
package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// module is the import path dropped from package names in the summary.
const module = "github.com/rampway/rampway"

func main() {
	if err := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		os.Exit(1)
	}
}

// run summarises the output of the commands args (go test with -json; several separated by
// ";"), run one after the other, or of stdin without args. It returns an error when a command
// fails, a test or package fails, or the output cannot be read.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		s, err := summarise(stdin, stdout, module)
		if err != nil {
			return err
		}
		return verdict(s, nil)
	}
	cmds := [][]string{nil}
	for _, a := range args {
		if a == ";" {
			cmds = append(cmds, nil)
		} else {
			cmds[len(cmds)-1] = append(cmds[len(cmds)-1], a)
		}
	}
	for _, c := range cmds {
		if !hasJSONFlag(c) {
			return fmt.Errorf("%q: each command must be go test with -json", strings.Join(c, " "))
		}
	}
	r, w := io.Pipe()
	errs := make(chan error, 1)
	go func() {
		var failed error
		for _, c := range cmds {
			cmd := exec.Command(c[0], c[1:]...)
			cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, w, stderr
			if err := cmd.Run(); err != nil && failed == nil {
				failed = fmt.Errorf("%s: %w", strings.Join(c, " "), err)
			}
		}
		w.Close()
		errs <- failed
	}()
	s, serr := summarise(r, stdout, module)
	if serr != nil {
		r.CloseWithError(serr) // the commands' writes fail: they end
	}
	cerr := <-errs
	if serr != nil {
		return serr
	}
	return verdict(s, cerr)
}

// verdict is the error of a run whose command ended with cmdErr (nil when it succeeded).
func verdict(s Summary, cmdErr error) error {
	switch {
	case !s.OK():
		return fmt.Errorf("%d tests failed, packages failed: %s", s.Failed, strings.Join(s.FailedPackages, " "))
	case cmdErr != nil:
		return fmt.Errorf("%w (no test failed: see its output above)", cmdErr)
	}
	return nil
}

// hasJSONFlag reports whether args ask go test for -json.
func hasJSONFlag(args []string) bool {
	for _, a := range args {
		if a == "-json" || a == "--json" || a == "-json=true" {
			return true
		}
	}
	return false
}
