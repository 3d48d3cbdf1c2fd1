package editorfs_test

// A harness that runs one scripted turn through the real, pinned Claude
// Code CLI twice: once with its built-in file tools, once with this
// package's tools in their place (served over mcp_message, the built-ins
// disallowed and aliased, as the agent does), and records what each call
// gave Claude and what the CLI asked. The tests compare the two.

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/agent/editorfs"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
	"github.com/claude-agent-acp/claude-agent-acp/claude/sdkmcp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clitest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
)

const server = "editor"

// diskFS is an editor whose buffers are the files on disk.
type diskFS struct{}

func (diskFS) ReadTextFile(_ context.Context, path string) (string, error) {
	b, err := os.ReadFile(path)
	return string(b), err
}

func (diskFS) WriteTextFile(_ context.Context, path, content string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(content), 0o644)
}

// outcome is what one tool call came to.
type outcome struct {
	Text       string          // what Claude read
	IsError    bool            //
	Structured json.RawMessage // the built-in's tool_use_result, or ours from _meta
	Asked      *claude.CanUseToolRequest
}

// env is one run's directories, for scripts and settings.
type env struct {
	Work, Home, Config string
}

type runSpec struct {
	mode   string
	ours   bool // this package's tools instead of the built-ins
	decide bool // answer the PreToolUse hook with editorfs.Decide (ours only)
	setup  func(t *testing.T, e env)
	script func(e env) []fakeapi.Step
	// asked, if set, runs when the CLI asks about a call (before allowing).
	asked func(e env, req claude.CanUseToolRequest)
}

type runResult struct {
	env   env
	calls map[string]*outcome
	rules editorfs.Rules
}

// onMain makes a step answer only the main loop (not the auto-mode
// classifier's requests, nor subagents).
func onMain(s fakeapi.Step) fakeapi.Step {
	s.Match = &fakeapi.Match{ToolsInclude: fakeapi.Names{"EnterPlanMode"}}
	return s
}

func use(id, name string, in map[string]any) fakeapi.Step {
	return onMain(fakeapi.ToolUse(id, name, in))
}

func runTurn(t *testing.T, spec runSpec) runResult {
	t.Helper()
	t.Cleanup(func() { clitest.NoOrphans(t) })
	sb := clitest.NewSandbox(t)
	e := env{Work: sb.WorkDir, Home: sb.Home, Config: sb.ConfigDir}
	if spec.setup != nil {
		spec.setup(t, e)
	}
	steps := append(spec.script(e), onMain(fakeapi.Text("done")))
	sb.API.Script(steps...)

	var mu sync.Mutex
	res := runResult{env: e, calls: map[string]*outcome{}}
	call := func(id string) *outcome {
		if res.calls[id] == nil {
			res.calls[id] = &outcome{}
		}
		return res.calls[id]
	}
	var tools *editorfs.Tools
	opts := claude.Options{
		Executable: sb.CLI, Dir: sb.WorkDir, Env: sb.With("IS_SANDBOX=1"),
		PermissionMode: spec.mode, StartupTimeout: time.Minute,
		CanUseTool: func(ctx context.Context, req claude.CanUseToolRequest) (claude.PermissionResult, error) {
			if tools != nil && tools.Refused(req.ToolUseID) {
				return claude.Allow(nil), nil // it fails with the refusal
			}
			if spec.asked != nil {
				spec.asked(e, req)
			}
			mu.Lock()
			r := req
			call(req.ToolUseID).Asked = &r
			mu.Unlock()
			return claude.Allow(nil), nil
		},
	}
	var p *claude.Process
	if spec.ours {
		tools = editorfs.New(diskFS{}, sb.WorkDir)
		b := sdkmcp.New(editorfs.NewServer(server, "test", tools, nil))
		defer b.Close()
		opts.SDKMCPServers = []string{server}
		opts.MCPMessage = func(ctx context.Context, req claude.MCPMessageRequest) (json.RawMessage, error) {
			return b.Handle(ctx, req.Message)
		}
		opts.DisallowedTools = editorfs.BuiltinTools
		opts.InitializeExtra = map[string]any{"toolAliases": editorfs.Aliases(server, editorfs.DefaultTools)}
		if spec.decide {
			opts.Hooks = map[string][]claude.HookMatcher{"PreToolUse": {{Matcher: "mcp__" + server + "__.*", HookCallbackIDs: []string{"editorfs"}}}}
			opts.HookCallback = func(ctx context.Context, req claude.HookCallbackRequest) (any, error) {
				raw, err := p.Request(ctx, "list_permission_rules", nil)
				if err != nil {
					return nil, err
				}
				var lr struct {
					State editorfs.Rules `json:"state"`
				}
				_ = json.Unmarshal(raw, &lr)
				tool := strings.TrimPrefix(req.Hook.ToolName, "mcp__"+server+"__")
				var in struct {
					FilePath     string `json:"file_path"`
					NotebookPath string `json:"notebook_path"`
				}
				_ = json.Unmarshal(req.Hook.ToolInput, &in)
				path := tools.Path(in.FilePath + in.NotebookPath)
				d := editorfs.Decide(req.Hook.PermissionMode, tool, path, lr.State, editorfs.Env{Home: e.Home, ConfigDir: e.Config})
				switch d.Behavior {
				case "":
					return struct{}{}, nil
				case "deny":
					tools.Refuse(req.ToolUseID, d.Reason)
					d.Behavior = "allow"
				}
				return map[string]any{"hookSpecificOutput": map[string]any{
					"hookEventName": "PreToolUse", "permissionDecision": d.Behavior, "permissionDecisionReason": d.Reason,
				}}, nil
			}
		}
	}
	var err error
	p, err = claude.Start(context.Background(), opts)
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	raw, err := p.Request(ctx, "list_permission_rules", nil)
	if err != nil {
		t.Fatalf("list_permission_rules: %v", err)
	}
	var lr struct {
		State editorfs.Rules `json:"state"`
	}
	if err := json.Unmarshal(raw, &lr); err != nil {
		t.Fatalf("list_permission_rules: %v", err)
	}
	res.rules = lr.State
	if err := p.Send(ctx, claude.Text("go")); err != nil {
		t.Fatal(err)
	}
	for {
		var m claude.Message
		select {
		case m = <-p.Messages():
		case <-ctx.Done():
			t.Fatal("the turn did not end")
		}
		if m.Type == "result" {
			break
		}
		if m.Type != "user" {
			continue
		}
		var f struct {
			Message struct {
				Content []struct {
					Type      string          `json:"type"`
					ToolUseID string          `json:"tool_use_id"`
					Content   json.RawMessage `json:"content"`
					IsError   bool            `json:"is_error"`
				} `json:"content"`
			} `json:"message"`
			ToolUseResult json.RawMessage `json:"tool_use_result"`
		}
		if json.Unmarshal(m.Raw, &f) != nil {
			continue
		}
		for _, b := range f.Message.Content {
			if b.Type != "tool_result" {
				continue
			}
			mu.Lock()
			o := call(b.ToolUseID)
			o.Text, o.IsError = blockText(b.Content), b.IsError
			o.Structured = structured(f.ToolUseResult)
			mu.Unlock()
		}
	}
	return res
}

// blockText is a tool result's text: a string, or its text blocks joined.
func blockText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &blocks)
	var parts []string
	for _, b := range blocks {
		switch b.Type {
		case "text":
			parts = append(parts, b.Text)
		default:
			parts = append(parts, "["+b.Type+"]")
		}
	}
	return strings.Join(parts, "\n")
}

// structured is the built-in's tool_use_result, or the one our tool put
// in its result's _meta.
func structured(raw json.RawMessage) json.RawMessage {
	var mcp struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(raw, &mcp) == nil && mcp.Meta[editorfs.ResultMetaKey] != nil {
		return mcp.Meta[editorfs.ResultMetaKey]
	}
	return raw
}
