package agenttest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/acp/acpv2"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/acptest"
)

// HarnessV2 is Harness for an ACP v2 client (docs/acp-v2.md): the same
// agent, pipes, CLI sandbox and fake API, with a client that speaks v2.
// Updates and permission requests are kept as sent (raw JSON) and decoded
// into acpv2 types where they decode. At cleanup every line that crossed
// the connection, in both directions, is checked with acptest.ValidateLine
// for the version the connection negotiated (requests the test marks with
// CallOffSchema excepted: their answers are still checked).
//
//	h := agenttest.StartV2(t)
//	h.API().Script(fakeapi.Text("Hello"))
//	sid := h.NewSession(h.Sandbox.WorkDir)
//	id, err := h.Prompt(sid, "say hi") // answered at insertion
//	idle := h.WaitIdle(sid, 1)        // the turn's end
//
// Its Sandbox, Client, Close, API, Ctx, Wire, WaitFor and DumpWire come
// from the link it shares with Harness (wire.go).
type HarnessV2 struct {
	link

	// (these under link's mu)
	version     int // what initialize answered (2 until it answers 1)
	initialized bool
	updates     []UpdateV2
	permissions []PermissionV2
	offSchema   map[string]bool // client request ids sent off the schema on purpose
	calls       agentCalls      // the agent's calls on the wire, by method

	// Permission answers session/request_permission; the default selects
	// the first allow_once option. Set it before prompting.
	Permission func(ctx context.Context, req *acpv2.RequestPermissionRequest) (*acpv2.RequestPermissionResponse, error)
}

// UpdateV2 is one session/update the client received.
type UpdateV2 struct {
	SessionID string
	Kind      string              // its sessionUpdate
	Raw       json.RawMessage     // the update object as sent
	Update    acpv2.SessionUpdate // decoded (zero if it did not decode)
	DecodeErr error
	Wire      int // index of its line in Wire()
	seq       int
	state     string // a state_update's state, read once (StateOf)
}

// PermissionV2 is one session/request_permission the client received.
type PermissionV2 struct {
	Raw     json.RawMessage
	Request acpv2.RequestPermissionRequest
	Wire    int // index of its line in Wire()
	seq     int
}

// StartV2 runs an agent for a v2 client. Nothing is sent yet: call
// Initialize (or NewSession, which initializes with protocol 2).
func StartV2(t testing.TB, opts ...Options) *HarnessV2 {
	t.Helper()
	h := &HarnessV2{version: acp.ProtocolV2, offSchema: map[string]bool{}}
	h.Permission = AllowOnceV2
	m := acp.NewMux()
	acp.OnNotification(m, acpv2.MethodSessionUpdate, func(ctx context.Context, raw *json.RawMessage) error {
		var env struct {
			SessionID string          `json:"sessionId"`
			Update    json.RawMessage `json:"update"`
		}
		_ = json.Unmarshal(*raw, &env)
		var kind struct {
			SessionUpdate string `json:"sessionUpdate"`
			State         string `json:"state"`
		}
		_ = json.Unmarshal(env.Update, &kind)
		u := UpdateV2{SessionID: env.SessionID, Kind: kind.SessionUpdate, Raw: env.Update, state: kind.State}
		u.DecodeErr = json.Unmarshal(env.Update, &u.Update)
		h.mu.Lock()
		u.seq = len(h.updates)
		h.updates = append(h.updates, u)
		h.mu.Unlock()
		h.poke()
		return nil
	})
	acp.On(m, acpv2.MethodSessionRequestPermission, func(ctx context.Context, raw *json.RawMessage) (*acpv2.RequestPermissionResponse, error) {
		p := PermissionV2{Raw: append(json.RawMessage(nil), *raw...)}
		if err := json.Unmarshal(*raw, &p.Request); err != nil {
			return nil, acp.NewInvalidParams("", err.Error())
		}
		h.mu.Lock()
		p.seq = len(h.permissions)
		h.permissions = append(h.permissions, p)
		answer := h.Permission
		h.mu.Unlock()
		h.poke()
		acp.Async(ctx)
		return answer(ctx, &p.Request)
	})
	// The wire is validated whole once the agent has stopped.
	h.start(t, opts, m, h.ValidateWire)
	return h
}

// agentCalls indexes the agent's calls on the wire by method, read up to
// scanned: each line is decoded once, the first time agentLines runs
// after it crossed (WaitFor conditions call it on every poll).
type agentCalls struct {
	scanned int
	lines   map[string][]int
}

// agentLines are the indexes of the agent's lines calling method, in
// order: the connection handles them in wire order, so the k-th one
// handled is the k-th of these. Call it with h.mu held.
func (h *HarnessV2) agentLines(method string) []int {
	c := &h.calls
	if c.lines == nil {
		c.lines = map[string][]int{}
	}
	for ; c.scanned < len(h.wire); c.scanned++ {
		l := h.wire[c.scanned]
		if !l.FromAgent || !strings.Contains(l.Line, `"method"`) {
			continue
		}
		var env struct {
			Method string `json:"method"`
		}
		if json.Unmarshal([]byte(l.Line), &env) == nil && env.Method != "" {
			c.lines[env.Method] = append(c.lines[env.Method], c.scanned)
		}
	}
	return c.lines[method]
}

// AllowOnceV2 selects the first allow_once option.
func AllowOnceV2(ctx context.Context, req *acpv2.RequestPermissionRequest) (*acpv2.RequestPermissionResponse, error) {
	return ChooseV2("allow_once")(ctx, req)
}

// ChooseV2 answers a permission request with the option whose id or kind
// is optionID, or cancelled if there is none.
func ChooseV2(optionID string) func(context.Context, *acpv2.RequestPermissionRequest) (*acpv2.RequestPermissionResponse, error) {
	return func(ctx context.Context, req *acpv2.RequestPermissionRequest) (*acpv2.RequestPermissionResponse, error) {
		for _, o := range req.Options {
			if string(o.OptionID) == optionID || string(o.Kind) == optionID {
				return &acpv2.RequestPermissionResponse{Outcome: acpv2.RequestPermissionOutcome{
					Selected: &acpv2.SelectedPermissionOutcome{OptionID: o.OptionID}}}, nil
			}
		}
		return &acpv2.RequestPermissionResponse{Outcome: acpv2.RequestPermissionOutcome{
			Cancelled: &acpv2.CancelledPermissionOutcome{}}}, nil
	}
}

// Call sends a request and decodes its result.
func (h *HarnessV2) Call(method string, params, result any) error {
	return h.Client.Call(h.Ctx(), method, params, result)
}

// CallOffSchema sends a request the test knows is not a v2 message (a v1
// method, say): its line is not validated, its answer is.
func (h *HarnessV2) CallOffSchema(method string, params, result any) error {
	h.mu.Lock()
	// The next id the client uses is not known here; mark by method and
	// params instead, matched when the wire is validated.
	b, _ := json.Marshal(params)
	h.offSchema[method+" "+string(b)] = true
	h.mu.Unlock()
	return h.Client.Call(h.Ctx(), method, params, result)
}

// Initialize sends initialize asking for version with the given client
// capabilities, and returns the answer. The wire is validated against the
// version the agent answered.
func (h *HarnessV2) Initialize(version int, caps acpv2.ClientCapabilities) (*acpv2.InitializeResponse, error) {
	var resp acpv2.InitializeResponse
	err := h.Call(acp.MethodInitialize, &acpv2.InitializeRequest{
		ProtocolVersion: acpv2.ProtocolVersion(version),
		Info:            acpv2.Implementation{Name: "agenttest", Version: "1.0.0"},
		Capabilities:    caps,
	}, &resp)
	if err == nil {
		h.mu.Lock()
		h.initialized = true
		h.version = int(resp.ProtocolVersion)
		h.mu.Unlock()
	}
	return &resp, err
}

// SetVersion sets the version the wire is validated against (Initialize
// does it from the answer).
func (h *HarnessV2) SetVersion(v int) {
	h.mu.Lock()
	h.version = v
	h.initialized = true
	h.mu.Unlock()
}

// NewSession initializes (protocol 2, if not done) and opens a session.
func (h *HarnessV2) NewSession(dir string) string {
	h.t.Helper()
	r, err := h.NewSessionResponse(dir)
	if err != nil {
		h.t.Fatalf("session/new: %v", err)
	}
	return string(r.SessionID)
}

// NewSessionResponse is NewSession returning the whole answer.
func (h *HarnessV2) NewSessionResponse(dir string) (*acpv2.NewSessionResponse, error) {
	h.t.Helper()
	h.mu.Lock()
	initialized := h.initialized
	h.mu.Unlock()
	if !initialized {
		if _, err := h.Initialize(acp.ProtocolV2, acpv2.ClientCapabilities{}); err != nil {
			h.t.Fatalf("initialize: %v", err)
		}
	}
	var resp acpv2.NewSessionResponse
	err := h.Call(acpv2.MethodSessionNew, &acpv2.NewSessionRequest{Cwd: acpv2.AbsolutePath(dir)}, &resp)
	return &resp, err
}

// Prompt sends a text prompt; it returns the message id once the agent
// has inserted the prompt (not when the turn ends: see WaitIdle).
func (h *HarnessV2) Prompt(sid, text string) (string, error) {
	return h.PromptCtx(h.Ctx(), sid, text)
}

// PromptCtx is Prompt with a context ($/cancel_request when it ends).
func (h *HarnessV2) PromptCtx(ctx context.Context, sid, text string) (string, error) {
	var resp acpv2.PromptResponse
	err := h.Client.Call(ctx, acpv2.MethodSessionPrompt, &acpv2.PromptRequest{
		SessionID: acpv2.SessionID(sid),
		Prompt:    []acpv2.ContentBlock{{Text: &acpv2.TextContent{Text: text}}},
	}, &resp)
	return string(resp.MessageID), err
}

// Cancel sends session/cancel.
func (h *HarnessV2) Cancel(sid string) {
	if err := h.Client.Notify(context.Background(), acpv2.MethodSessionCancel, &acpv2.CancelSessionNotification{SessionID: acpv2.SessionID(sid)}); err != nil {
		h.t.Fatalf("session/cancel: %v", err)
	}
}

// Updates returns the session/update notifications seen for sid.
func (h *HarnessV2) Updates(sid string) []UpdateV2 {
	h.mu.Lock()
	defer h.mu.Unlock()
	lines := h.agentLines(acpv2.MethodSessionUpdate)
	var out []UpdateV2
	for _, u := range h.updates {
		if u.SessionID == sid {
			u.Wire = -1
			if u.seq < len(lines) {
				u.Wire = lines[u.seq]
			}
			out = append(out, u)
		}
	}
	return out
}

// Idles returns the idle state updates of sid, in order.
func (h *HarnessV2) Idles(sid string) []UpdateV2 {
	var out []UpdateV2
	for _, u := range h.Updates(sid) {
		if u.Kind == "state_update" && StateOf(u) == "idle" {
			out = append(out, u)
		}
	}
	return out
}

// WaitIdle waits for the n-th idle state update of sid and returns it.
func (h *HarnessV2) WaitIdle(sid string, n int) UpdateV2 {
	h.t.Helper()
	h.WaitFor(fmt.Sprintf("idle state update #%d", n), 60*time.Second, func() bool { return len(h.Idles(sid)) >= n })
	return h.Idles(sid)[n-1]
}

// Permissions returns the permission requests the client received.
func (h *HarnessV2) Permissions() []PermissionV2 {
	h.mu.Lock()
	defer h.mu.Unlock()
	lines := h.agentLines(acpv2.MethodSessionRequestPermission)
	out := append([]PermissionV2(nil), h.permissions...)
	for i := range out {
		out[i].Wire = -1
		if out[i].seq < len(lines) {
			out[i].Wire = lines[out[i].seq]
		}
	}
	return out
}

// WireIndex is the index of the first line from the given side at or
// after from that contains every substring, or -1.
func (h *HarnessV2) WireIndex(fromAgent bool, from int, subs ...string) int {
	w := h.Wire()
	for i := max(from, 0); i < len(w); i++ {
		if w[i].FromAgent != fromAgent {
			continue
		}
		all := true
		for _, s := range subs {
			all = all && strings.Contains(w[i].Line, s)
		}
		if all {
			return i
		}
	}
	return -1
}

// AgentText joins the text of sid's agent_message_chunk updates.
func (h *HarnessV2) AgentText(sid string) string {
	var sb strings.Builder
	for _, u := range h.Updates(sid) {
		if c := u.Update.AgentMessageChunk; c != nil && c.Content.Text != nil {
			sb.WriteString(c.Content.Text.Text)
		}
	}
	return sb.String()
}

// StateOf is a state_update's state ("" for other updates).
func StateOf(u UpdateV2) string {
	var s struct {
		State string `json:"state"`
	}
	if u.Kind != "state_update" {
		return ""
	}
	if u.state != "" { // read when it came (Idles runs on every WaitIdle poll)
		return u.state
	}
	if json.Unmarshal(u.Raw, &s) != nil {
		return ""
	}
	return s.State
}

// StopReasonOf is an idle state update's stopReason.
func StopReasonOf(u UpdateV2) string {
	var s struct {
		StopReason string `json:"stopReason"`
	}
	_ = json.Unmarshal(u.Raw, &s)
	return s.StopReason
}

// ValidateWire checks every line so far as an acptest.Conversation: the
// sender known, and for each response the method it answers. It runs at
// cleanup; tests may call it earlier too.
func (h *HarnessV2) ValidateWire() {
	h.t.Helper()
	h.DumpWire()
	h.mu.Lock()
	version := h.version
	off := h.offSchema
	h.mu.Unlock()
	c := acptest.Conversation{Version: version, OffSchema: func(method string, params json.RawMessage) bool {
		var compact bytes.Buffer
		_ = json.Compact(&compact, params)
		return off[method+" "+compact.String()]
	}}
	for _, l := range h.Wire() {
		c.Check(h.t, l.FromAgent, []byte(l.Line))
	}
}
