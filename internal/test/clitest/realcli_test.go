package clitest

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// testTimeout bounds every real-CLI test so that a wedged CLI fails instead of hanging.
const testTimeout = 2 * time.Minute

// newRealSandbox is NewSandbox plus the orphan check, registered first so it runs last.
func newRealSandbox(t *testing.T) (*Sandbox, context.Context) {
	t.Cleanup(func() { NoOrphans(t) })
	sb := NewSandbox(t)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return sb, ctx
}

// checkOneMainRequest asserts the fake saw exactly one main-loop request for prompt,
// authenticated with the fake key.
func checkOneMainRequest(t *testing.T, api *fakeapi.Server, prompt string) {
	t.Helper()
	main := api.MainRequests()
	if len(main) != 1 {
		t.Fatalf("%d main requests, want 1 (all requests: %d)", len(main), len(api.Requests()))
	}
	if got := main[0].LastUserText; got != prompt {
		t.Errorf("LastUserText = %q, want %q", got, prompt)
	}
	if main[0].APIKey != "sk-fake" || !main[0].Stream {
		t.Errorf("request: x-api-key %q, stream %v", main[0].APIKey, main[0].Stream)
	}
}

// TestRealCLIPrintMode runs `claude -p "say hi"` against the fake and checks that the
// scripted text comes back as the result.
func TestRealCLIPrintMode(t *testing.T) {
	sb, ctx := newRealSandbox(t)
	sb.API.Script(fakeapi.Text("Hi from the script."))
	cmd := sb.Command(ctx, t, "-p", "say hi", "--output-format", "stream-json", "--verbose")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("claude -p: %v; stderr: %s", err, stderr.String())
	}
	var result map[string]any
	for _, line := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("non-JSON stdout line %q", line)
		}
		if m["type"] == "result" {
			result = m
		}
	}
	if result == nil {
		t.Fatalf("no result line in:\n%s", out)
	}
	if result["result"] != "Hi from the script." || result["is_error"] != false {
		t.Errorf("result = %v, is_error = %v", result["result"], result["is_error"])
	}
	checkOneMainRequest(t, sb.API, "say hi")
}

// TestRealCLIStreamJSON drives one turn in bidirectional stream-json mode: a user line on
// stdin, frames up to the result, then stdin closed and a clean exit.
func TestRealCLIStreamJSON(t *testing.T) {
	sb, ctx := newRealSandbox(t)
	sb.API.Script(fakeapi.Text("Hello over stream-json."))
	p := sb.StartStreamJSON(ctx, t)
	if err := p.SendUser("say hi"); err != nil {
		t.Fatal(err)
	}
	frames, err := p.ReadUntil(ctx, "result")
	if err != nil {
		t.Fatal(err)
	}
	var sawInit, sawAssistant bool
	for _, f := range frames {
		sawInit = sawInit || (f.Type == "system" && f.Subtype == "init")
		sawAssistant = sawAssistant || f.Type == "assistant"
	}
	if !sawInit || !sawAssistant {
		t.Errorf("init frame %v, assistant frame %v", sawInit, sawAssistant)
	}
	res := frames[len(frames)-1].Fields
	if res["result"] != "Hello over stream-json." || res["is_error"] != false || res["subtype"] != "success" {
		t.Errorf("result = %v", string(frames[len(frames)-1].Raw))
	}
	if err := p.Close(); err != nil || p.ExitCode() != 0 {
		t.Errorf("exit: %v (code %d); stderr: %s", err, p.ExitCode(), p.Stderr())
	}
	checkOneMainRequest(t, sb.API, "say hi")
}

// TestRealCLI429 checks that a scripted 429 with no retries becomes an error result with
// api_error_status 429 after exactly one request, and that the CLI then exits 1.
func TestRealCLI429(t *testing.T) {
	sb, ctx := newRealSandbox(t)
	sb.API.Script(fakeapi.HTTPError(429, "rate_limit_error", "").Times(-1))
	p := sb.StartStreamJSON(ctx, t)
	if err := p.SendUser("say hi"); err != nil {
		t.Fatal(err)
	}
	frames, err := p.ReadUntil(ctx, "result")
	if err != nil {
		t.Fatal(err)
	}
	res := frames[len(frames)-1].Fields
	if res["is_error"] != true || res["api_error_status"] != 429.0 {
		t.Errorf("result = %s", frames[len(frames)-1].Raw)
	}
	if err := p.Close(); p.ExitCode() != 1 {
		t.Errorf("exit: %v (code %d), want code 1 after an error result", err, p.ExitCode())
	}
	checkOneMainRequest(t, sb.API, "say hi")
}

// TestNoOrphansSeesLiveCLI checks that the orphan scan finds a running CLI of this test
// and stops reporting it once it has been shut down.
func TestNoOrphansSeesLiveCLI(t *testing.T) {
	sb, ctx := newRealSandbox(t)
	p := sb.StartStreamJSON(ctx, t)
	pid := p.Cmd.Process.Pid
	found := false
	for _, o := range orphans(sb.CLI, ownerMark(t), os.Getpid()) {
		found = found || o.pid == pid
	}
	if !found {
		t.Errorf("running CLI %d not reported", pid)
	}
	if other := orphans(sb.CLI, "someone-else", os.Getpid()); len(other) != 0 {
		t.Errorf("a marked CLI was attributed to another test: %v", other)
	}
	_ = p.Close()
	if left := orphans(sb.CLI, ownerMark(t), os.Getpid()); len(left) != 0 {
		t.Errorf("still reported after Close: %v", left)
	}
}

// TestRealCLIInterruptHang checks the interrupt recipe: a hanging stream, an interrupt
// control request once the first delta arrived, and an aborted_streaming result.
func TestRealCLIInterruptHang(t *testing.T) {
	sb, ctx := newRealSandbox(t)
	sb.API.Script(fakeapi.Hang(0))
	p := sb.StartStreamJSON(ctx, t, "--include-partial-messages")
	if err := p.SendUser("wait forever"); err != nil {
		t.Fatal(err)
	}
	for {
		f, err := p.Next(ctx)
		if err != nil {
			t.Fatalf("waiting for the first delta: %v; stderr: %s", err, p.Stderr())
		}
		if ev, _ := f.Fields["event"].(map[string]any); f.Type == "stream_event" && ev["type"] == "content_block_delta" {
			break
		}
	}
	if err := p.Send(map[string]any{"type": "control_request", "request_id": "int-1",
		"request": map[string]any{"subtype": "interrupt"}}); err != nil {
		t.Fatal(err)
	}
	frames, err := p.ReadUntil(ctx, "result")
	if err != nil {
		t.Fatal(err)
	}
	res := frames[len(frames)-1].Fields
	if res["subtype"] != "error_during_execution" || res["terminal_reason"] != "aborted_streaming" {
		t.Errorf("result = %s", frames[len(frames)-1].Raw)
	}
	checkOneMainRequest(t, sb.API, "wait forever")
}
