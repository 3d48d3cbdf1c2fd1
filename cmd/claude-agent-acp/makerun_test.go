package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMakeRunStdoutIsACP: `make run`, the README's first command, writes
// nothing but ACP on stdout: the build's echo and output go to stderr.
// (make -C <dir> prints "Entering directory" on stdout itself, before it
// reads the Makefile; the README says to add --no-print-directory.)
func TestMakeRunStdoutIsACP(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("make", "run", "BIN="+filepath.Join(t.TempDir(), "claude-agent-acp"))
	cmd.Dir = root
	// As a user types it: not inside another make. Under make test the
	// environment says it is (MAKELEVEL, MAKEFLAGS), and a nested make
	// prints "Entering directory" on stdout before any recipe runs.
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); name != "MAKELEVEL" && name != "MAKEFLAGS" && name != "MFLAGS" {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}` + "\n")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(5 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("make run did not end after its stdin did\nstderr:\n%s", stderr.String())
	}
	if err != nil {
		t.Fatalf("make run: %v\nstderr:\n%s", err, stderr.String())
	}
	sc := bufio.NewScanner(&stdout)
	n := 0
	for sc.Scan() {
		n++
		var msg struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil || msg.JSONRPC != "2.0" {
			t.Errorf("stdout line %d is not a JSON-RPC message: %q", n, sc.Text())
		}
		if n == 1 && string(msg.ID) != "1" {
			t.Errorf("the first line on stdout is not the initialize answer: %q", sc.Text())
		}
	}
	if n == 0 {
		t.Errorf("nothing on stdout; stderr:\n%s", stderr.String())
	}
	if !strings.Contains(stderr.String(), "go build") {
		t.Errorf("the build command is not echoed on stderr:\n%s", stderr.String())
	}
}
