// Command testsummary runs `go test -json` (or reads its output on stdin) and prints what a
// person wants from it: each package's result line as go test prints it, the output of what
// failed, and at the end the counts of tests passed, failed and skipped, the skips grouped by
// their reason, and the slowest packages. It exits non-zero when go test did or a test failed.
// `make unit` runs the suite through it:
//
//	go run ./internal/testsummary go test -race -count=1 -json ./...
package main

import (
	"errors"
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

// run summarises the output of the command args (go test with -json), or of stdin without
// args. It returns an error when the command fails, a test or package fails, or the output
// cannot be read.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		s, err := summarise(stdin, stdout, module)
		if err != nil {
			return err
		}
		return verdict(s, nil)
	}
	if !hasJSONFlag(args) {
		return errors.New("the command must be go test with -json")
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stderr = stdin, stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	s, serr := summarise(out, stdout, module)
	if serr != nil {
		_, _ = io.Copy(io.Discard, out) // let the command finish
	}
	werr := cmd.Wait()
	if serr != nil {
		return serr
	}
	return verdict(s, werr)
}

// verdict is the error of a run whose command ended with cmdErr (nil when it succeeded).
func verdict(s Summary, cmdErr error) error {
	switch {
	case !s.OK():
		return fmt.Errorf("%d tests failed, packages failed: %s", s.Failed, strings.Join(s.FailedPackages, " "))
	case cmdErr != nil:
		return fmt.Errorf("go test: %w (no test failed: see its output above)", cmdErr)
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
