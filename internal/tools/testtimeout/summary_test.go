package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestSummary runs the filter over a real timeout (testdata/hang.txt: a
// test blocked on a channel receive in a helper, `go test -timeout 2s`).
func TestSummary(t *testing.T) {
	in, err := os.ReadFile("testdata/hang.txt")
	if err != nil {
		t.Fatal(err)
	}
	var saved []string
	var out bytes.Buffer
	failed, err := filter(bytes.NewReader(in), &out, func(pkg string, dump []string) (string, error) {
		saved = dump
		return "/tmp/dump.txt", nil
	})
	if err != nil || !failed {
		t.Fatalf("filter: failed %v, err %v", failed, err)
	}
	got := out.String()
	for _, want := range []string{
		"=== TIMEOUT in example.com/hang: test timed out after 2s.",
		"    TestWaitsForever (2s)",
		"    TestWaitsForever: /src/hang/hang_test.go:8 in hang.waitForUpdate [chan receive]",
		"Full goroutine dump (41 lines): /tmp/dump.txt",
		"FAIL\texample.com/hang\t",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
	for _, not := range []string{"goroutine 1 [", "testing.tRunner", "runTests", "_testmain.go"} {
		if strings.Contains(got, not) {
			t.Errorf("summary shows %q:\n%s", not, got)
		}
	}
	if len(saved) != 41 || !strings.HasPrefix(saved[0], "panic: test timed out") {
		t.Errorf("saved dump: %d lines, first %q", len(saved), saved[0])
	}
}

// TestPassThrough: output without a timeout is copied unchanged, and the
// exit status follows go test's FAIL lines.
func TestPassThrough(t *testing.T) {
	for _, c := range []struct {
		in     string
		failed bool
	}{
		{"ok  \texample.com/a\t0.1s\n?   \texample.com/b\t[no test files]\n", false},
		{"--- FAIL: TestX (0.00s)\n    x_test.go:3: boom\nFAIL\nFAIL\texample.com/a\t0.1s\nFAIL\n", true},
	} {
		var out bytes.Buffer
		failed, err := filter(strings.NewReader(c.in), &out, nil)
		if err != nil || failed != c.failed || out.String() != c.in {
			t.Errorf("filter(%q) = %q, failed %v, err %v", c.in, out.String(), failed, err)
		}
	}
}
