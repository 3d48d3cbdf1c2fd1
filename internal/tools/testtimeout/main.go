// Command testtimeout passes `go test` output through, except a test
// binary's timeout panic: that it replaces with what a person needs to act
// on it, and saves the full goroutine dump to a file.
//
//	go test -timeout 30m ./... 2>&1 | go run ./internal/tools/testtimeout
//
// A timeout panic names the tests that were running and then dumps every
// goroutine: thousands of lines of runtime, testing and library frames in
// which the one line that matters, where the test waits, is hard to find.
// The summary gives, per running test, how long it had run and the line
// of this module's code it was blocked on (with the goroutine's state and
// how long it had been in it), the machine's load average (a loaded
// machine is the common cause of a slow test; a hung one is the other),
// and where the full dump is.
//
// It exits with the status `go test` reports in its output (FAIL lines),
// so `set -o pipefail` is not needed for a failed run to fail.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	failed, err := filter(os.Stdin, os.Stdout, dumpFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testtimeout:", err)
		os.Exit(2)
	}
	if failed {
		os.Exit(1)
	}
}

// dumpFile saves a full timeout dump and returns its path.
func dumpFile(pkg string, dump []string) (string, error) {
	name := "timeout-" + strings.NewReplacer("/", "_", ".", "_").Replace(pkg) + "-*.txt"
	f, err := os.CreateTemp("", name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	_, err = io.WriteString(f, strings.Join(dump, "\n")+"\n")
	return f.Name(), err
}

// filter copies in to out, replacing each timeout panic up to its
// package's FAIL line with a summary. It reports whether any package
// failed.
func filter(in io.Reader, out io.Writer, save func(pkg string, dump []string) (string, error)) (failed bool, err error) {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	var dump []string
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "FAIL") {
			failed = true
		}
		switch {
		case dump == nil && strings.HasPrefix(line, "panic: test timed out after "):
			dump = []string{line}
		case dump != nil && isPackageResult(line):
			pkg := strings.Fields(line)[1]
			path, err := save(pkg, dump)
			if err != nil {
				path = "(not saved: " + err.Error() + ")"
			}
			fmt.Fprint(out, summarize(pkg, dump, path, loadAverage()))
			fmt.Fprintln(out, line)
			dump = nil
		case dump != nil:
			dump = append(dump, line)
		default:
			fmt.Fprintln(out, line)
		}
	}
	if dump != nil { // the output ended inside a dump: show it as it came
		fmt.Fprintln(out, strings.Join(dump, "\n"))
		failed = true
	}
	return failed, sc.Err()
}

// isPackageResult matches go test's line for a package: "FAIL\tpkg\t12.3s"
// or "ok  \tpkg\t...".
func isPackageResult(line string) bool {
	f := strings.Fields(line)
	return len(f) >= 2 && (f[0] == "FAIL" || f[0] == "ok") && strings.Contains(line, "\t")
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}
