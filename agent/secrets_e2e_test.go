package agent_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clifake"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

// Issue 35: the secrets the agent holds, whatever their shape, and the
// credentials of every recognisable shape, never reach the client or the
// log, by any path; and no credential is on any child's command line.

// The agent's own credentials, in no recognisable shape: a gateway that
// echoes them back shows them as they are.
const (
	envAPIKey    = "gwkeyQz7v2K9x4LmTT"  // ANTHROPIC_API_KEY
	envAuthToken = "gwtokHf8P3wRk0NnXy"  // ANTHROPIC_AUTH_TOKEN
	envDBPass    = "pg8812OpaquePw"      // the password of a URL in the environment
	mcpBearer    = "mcpB3arerKq77Zz"     // an MCP server's Authorization: Bearer header
	mcpHeaderKey = "mcpHdrKey55Xx"       // an MCP server's X-Api-Key header
	mcpEnvValue  = "mcpEnvWw91Opaque"    // an MCP server's environment value, any name
	patternPass  = "Pr0xyPassw0rd"       // user:pass@host without a scheme
	lowerAPIKey  = "lowk3yAbc99"         // api_key= in lower case
	lowerPass    = "lowPa55word"         // password=
	lowerToken   = "lowT0k3nZz"          // token=
	basicCred    = "dXNlcjpwYXNzd29yZA"  // Authorization: Basic …
	jsonBasic    = "YWxpY2U6c2VjcmV0MTI" // Basic … inside JSON
	awsKeyID     = "AKIAIOSFODNN7EXAMPLE"
	awsSecret    = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	antKey       = "sk-ant-api03-Pt7Pt7Pt7Pt7Pt7Pt7Pt7-leak"
)

// everySecret is what must never be seen.
var everySecret = []string{envAPIKey, envAuthToken, envDBPass, mcpBearer, mcpHeaderKey, mcpEnvValue,
	patternPass, lowerAPIKey, lowerPass, lowerToken, basicCred, jsonBasic, awsKeyID, awsSecret, antKey}

// knownLeak repeats the values the agent holds, in no recognisable shape:
// they go wherever they appear, model text and tool output included.
var knownLeak = "gateway rejected key " + envAPIKey + " and token " + envAuthToken +
	" for postgres://app:" + envDBPass + "@db.internal/x; upstream mcp said " + mcpBearer +
	" " + mcpHeaderKey + " " + mcpEnvValue + "."

// leakyText is what a hostile gateway repeats in an error: the values
// the agent holds and credentials of every recognisable shape, which go
// from errors, titles, details and the log (in Claude's answer and in tool
// output they are the user's own material, and stay).
var leakyText = knownLeak + " Proxy alice:" + patternPass + "@proxy.corp refused; query api_key=" +
	lowerAPIKey + " password=" + lowerPass + " token=" + lowerToken + "; Authorization: Basic " + basicCred +
	`==; headers {"Authorization":"Basic ` + jsonBasic + `"}; aws ` + awsKeyID + " " + awsSecret + "; legacy " + antKey + "."

// secretEnv is the agent's environment: its credentials for the CLI.
func secretEnv() []string {
	return []string{"ANTHROPIC_API_KEY=" + envAPIKey, "ANTHROPIC_AUTH_TOKEN=" + envAuthToken,
		"DATABASE_URL=postgres://app:" + envDBPass + "@db.internal/x"}
}

// secretSession starts an agent with secrets in its environment, an MCP
// server over HTTP with credential headers and one over stdio with a
// credential in its environment, and its log at debug level; it returns
// the harness, the session and the log. The HTTP server records the
// Authorization header it was sent.
func secretSession(t *testing.T, caps acp.ClientCapabilities, opts ...func(*agent.Config)) (*agenttest.Harness, string, *syncBuffer, *headerLog) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	seen := &headerLog{}
	mcpURL := serveMCPWith(t, seen)
	logBuf := &syncBuffer{}
	h := agenttest.Start(t, agenttest.Options{
		Env: secretEnv(),
		Config: func(c *agent.Config) {
			c.Logger = slog.New(slog.NewTextHandler(logBuf, &slog.HandlerOptions{Level: slog.LevelDebug}))
			for _, o := range opts {
				o(c)
			}
		},
	})
	t.Cleanup(h.Close) // before the HTTP server stops
	h.Initialize(caps)
	sid, err := newSessionWith(t, h, map[string]any{
		"cwd": h.Sandbox.WorkDir,
		"mcpServers": []map[string]any{
			{"name": "local", "command": exe, "args": []string{},
				"env": []map[string]string{{"name": mcpServerEnv, "value": "stdio"}, {"name": "SERVICE_CONFIG", "value": mcpEnvValue}}},
			{"type": "http", "name": "web", "url": mcpURL, "headers": []map[string]string{
				{"name": "Authorization", "value": "Bearer " + mcpBearer}, {"name": "X-Api-Key", "value": mcpHeaderKey}}},
		},
	})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	return h, sid, logBuf, seen
}

// checkNoSecrets fails for every secret found in what the agent sent the
// client or wrote to its log.
func checkNoSecrets(t *testing.T, h *agenttest.Harness, logBuf *syncBuffer) {
	t.Helper()
	var sent strings.Builder
	for _, l := range h.Wire() {
		if l.FromAgent {
			sent.WriteString(l.Line)
		}
	}
	for name, text := range map[string]string{"the client": sent.String(), "the debug log": logBuf.String()} {
		for _, s := range everySecret {
			if i := strings.Index(text, s); i >= 0 {
				t.Errorf("%s got %q: …%s…", name, s, text[max(0, i-100):min(len(text), i+len(s)+40)])
			}
		}
	}
}

// TestNoSecretReachesTheClient feeds every secret form the agent knows
// through every path to the client: streamed model text (the values the
// agent holds, split across deltas), tool input and output (a command
// that prints them and the whole environment), the JSON-RPC error and the
// agent text of a failed turn (a gateway error that echoes them and
// credentials of every recognisable shape), a typed failure's title and
// details, and the log at debug level. None survives anywhere.
//
// The legacy variant runs the real CLI: it proves what the CLI itself
// sends of them (its streamed text, a tool's input and output, its error
// for a gateway's 400, its stdout and stderr when it dies) and the agent's
// redaction of each. The typed-failures variant is the agent's rendering
// of an error as a typed failure for a client of the session-failure
// extension: it plays the frames the real CLI wrote for its gateway error
// (recording api_500_secrets) over the fake CLI, without starting one.
func TestNoSecretReachesTheClient(t *testing.T) {
	t.Parallel()
	t.Run("legacy", func(t *testing.T) {
		// The real CLI, behind a wrapper that repeats every secret on its
		// stdout (a line that is not JSON: the debug log shows it) and its
		// stderr (a crash report shows it).
		h, sid, logBuf, _ := secretSession(t, acp.ClientCapabilities{}, func(c *agent.Config) {
			c.Executable = leakyCLI(t, c.Executable)
		})
		// Model text, streamed in 7-byte deltas: every secret is split.
		h.API().Script(fakeapi.Step{Kind: fakeapi.KindText, Text: "Here is what I found: " + knownLeak, ChunkSize: 7})
		if resp, err := h.Prompt(sid, "what is in the environment?"); err != nil || resp.StopReason != acp.StopReasonEndTurn {
			t.Fatalf("streamed text: %+v %v", resp, err)
		}
		// Each delta holds a fragment at most; the text they make up must
		// not hold the secret either.
		text := h.AgentText(sid)
		if !strings.Contains(text, "Here is what I found") {
			t.Errorf("agent text: %q", text)
		}
		for _, s := range everySecret {
			if strings.Contains(text, s) {
				t.Errorf("the streamed text shows %q: %q", s, text)
			}
		}
		// A command that prints them (its input shows them too) and the
		// environment the CLI gave it.
		h.API().Script(
			toolUse("toolu_env", "Bash", map[string]any{"command": "echo '" + knownLeak + "'; env", "description": "print"}),
			fakeapi.Text("Done."))
		if resp, err := h.Prompt(sid, "run it"); err != nil || resp.StopReason != acp.StopReasonEndTurn {
			t.Fatalf("tool: %+v %v", resp, err)
		}
		calls, _ := toolCalls(t, h, sid)
		if c := calls["toolu_env"]; c == nil || c.status != acp.ToolCallStatusCompleted || !strings.Contains(contentText(c.content), "ANTHROPIC_API_KEY=") {
			t.Fatalf("the command did not print the environment: %+v", c)
		}
		// A gateway error that echoes them: the JSON-RPC error and Claude's
		// error text as agent text.
		e := fakeapi.HTTPError(400, "invalid_request_error", leakyText)
		h.API().Script(e)
		if _, err := h.Prompt(sid, "again"); err == nil {
			t.Fatal("want the gateway's error")
		}
		// The CLI dies mid-turn: its stderr is the error's explanation.
		h.API().Script(toolUse("toolu_kill", "Bash", map[string]any{"command": "kill -9 $PPID", "description": "stop"}))
		if _, err := h.Prompt(sid, "crash"); err == nil || !strings.Contains(err.Error(), "exited") {
			t.Fatalf("want the CLI's exit, got %v", err)
		}
		if !strings.Contains(logBuf.String(), "skipping non-JSON stdout line") || !strings.Contains(logBuf.String(), "exited during a turn") {
			t.Errorf("the log did not get the CLI's output:\n%s", logBuf.String())
		}
		checkNoSecrets(t, h, logBuf)
	})
	t.Run("typed failures", func(t *testing.T) {
		// The real CLI's frames for a gateway's HTTP 500 api_error whose
		// message is leakyText, "\n\n", "More context. " 30 times and
		// leakyText again (long enough for a title and details), played
		// by the fake CLI (recording api_500_secrets): the typed failure
		// is the agent's rendering of them.
		w := fakeFailureWorld(map[string]clifake.Reply{"hi": realFrames("api_500_secrets")})
		h, sid, logBuf, _ := secretSession(t, airCaps(airOn), func(c *agent.Config) { c.Launch = w.Launch })
		resp, err := h.Prompt(sid, "hi")
		if err != nil || resp.Meta == nil {
			t.Fatalf("want a typed failure: %+v %v", resp, err)
		}
		if m := string(resp.Meta["jetbrains"]); !strings.Contains(m, `"details"`) || !strings.Contains(m, "[redacted]") {
			t.Errorf("failure record: %s", m)
		}
		checkNoSecrets(t, h, logBuf)
	})
}

// TestNoSecretOnAnyCommandLine: the credentials of the client's MCP
// servers (HTTP headers, a stdio server's environment) and the agent's own
// reach the CLI and the servers, but no process the agent started (the
// reaper, the CLI, the MCP servers, tools) has them on its command line,
// which every local user can read.
func TestNoSecretOnAnyCommandLine(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("needs /proc")
	}
	h, sid, _, seen := secretSession(t, acp.ClientCapabilities{})
	// A tool call through each server: both run, and the CLI with them.
	h.API().Script(
		toolUse("toolu_local", "mcp__local__shout", map[string]any{"text": "hi"}),
		toolUse("toolu_web", "mcp__web__shout", map[string]any{"text": "hi"}),
		fakeapi.Text("Shouted."))
	if resp, err := h.Prompt(sid, "shout"); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", resp, err)
	}
	if got := seen.get(); got != "Bearer "+mcpBearer {
		t.Fatalf("the HTTP MCP server got Authorization %q: the header did not reach it", got)
	}
	calls, _ := toolCalls(t, h, sid)
	if c := calls["toolu_local"]; c == nil || c.status != acp.ToolCallStatusCompleted {
		t.Fatalf("the stdio MCP server did not answer: %+v", c)
	}
	children := descendants(os.Getpid())
	if len(children) < 3 { // reaper, CLI, stdio MCP server at least
		t.Fatalf("found only %d processes under the test: %v", len(children), children)
	}
	for _, pid := range children {
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil {
			continue // gone meanwhile
		}
		for _, s := range everySecret {
			if bytes.Contains(cmdline, []byte(s)) {
				t.Errorf("process %d has %q on its command line: %q", pid, s, bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '}))
			}
		}
	}
}

// leakyCLI writes a wrapper of the CLI that prints leakyText on its stdout
// and stderr first.
func leakyCLI(t *testing.T, cli string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "claude")
	script := "#!/bin/sh\necho 'note: " + leakyText + "'\necho 'warning: " + leakyText + "' >&2\nexec '" + cli + "' \"$@\"\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// descendants lists the processes below pid, from /proc.
func descendants(pid int) []int {
	parent := map[int]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces and parentheses.
		rest := stat[bytes.LastIndexByte(stat, ')')+1:]
		fields := strings.Fields(string(rest))
		if len(fields) > 1 {
			parent[p], _ = strconv.Atoi(fields[1])
		}
	}
	var out []int
	for p := range parent {
		for q := parent[p]; q > 1; q = parent[q] {
			if q == pid {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// headerLog records the Authorization header an HTTP MCP server was sent.
type headerLog struct {
	mu   sync.Mutex
	auth string
}

func (l *headerLog) get() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.auth
}

// serveMCPWith is serveMCP (streamable HTTP) recording the Authorization
// header of each request.
func serveMCPWith(t *testing.T, l *headerLog) string {
	t.Helper()
	srv := newMCPServer("http")
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a := r.Header.Get("Authorization"); a != "" {
			l.mu.Lock()
			l.auth = a
			l.mu.Unlock()
		}
		mcpHandler.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		for ss := range srv.Sessions() {
			_ = ss.Close()
		}
		ts.CloseClientConnections()
		ts.Close()
	})
	return ts.URL
}

// syncBuffer is a bytes.Buffer safe for the logger's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
