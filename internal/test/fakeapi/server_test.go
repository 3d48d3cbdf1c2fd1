package fakeapi

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestHTTPErrorWithHeaders checks an error step: status, extra headers, and the body's
// request_id matching the request-id header.
func TestHTTPErrorWithHeaders(t *testing.T) {
	s := New(t)
	c := client(t)
	st := HTTPError(429, "", "")
	st.Headers = map[string]string{"retry-after": "3"}
	s.Script(st)
	resp := post(t, c, s, msgBody{Stream: true})
	defer resp.Body.Close()
	if resp.StatusCode != 429 || resp.Header.Get("retry-after") != "3" {
		t.Fatalf("status %d, retry-after %q", resp.StatusCode, resp.Header.Get("retry-after"))
	}
	m := decodeJSON(t, resp.Body)
	want := map[string]any{"type": "error", "request_id": resp.Header.Get("request-id"),
		"error": map[string]any{"type": "rate_limit_error", "message": "fake rate_limit_error"}}
	if diff := cmp.Diff(want, m); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
}

// TestSSEErrorThenNonStream checks the overloaded stream and the non-stream fallback.
func TestSSEErrorThenNonStream(t *testing.T) {
	s := New(t)
	c := client(t)
	s.Script(SSEError(0))
	for range 2 {
		resp := post(t, c, s, msgBody{Stream: true})
		evs := readSSE(t, resp.Body)
		resp.Body.Close()
		if diff := cmp.Diff([]string{"message_start", "error"}, names(evs)); diff != "" {
			t.Fatalf("events (-want +got):\n%s", diff)
		}
		want := map[string]any{"type": "error", "error": map[string]any{"type": "overloaded_error", "message": "Overloaded"}}
		if diff := cmp.Diff(want, evs[1].Data); diff != "" {
			t.Errorf("error event (-want +got):\n%s", diff)
		}
	}
	resp := post(t, c, s, msgBody{})
	defer resp.Body.Close()
	if resp.StatusCode != 529 {
		t.Fatalf("non-stream status %d, want 529", resp.StatusCode)
	}
	if m := decodeJSON(t, resp.Body); m["error"].(map[string]any)["type"] != "overloaded_error" {
		t.Errorf("body = %v", m)
	}
}

// openHang starts a hanging stream and reads up to its first text delta.
func openHang(t *testing.T, ctx context.Context, c *http.Client, s *Server, st Step) (*http.Response, *bufio.Reader) {
	t.Helper()
	s.Script(st)
	resp := postCtx(t, ctx, c, s, msgBody{Stream: true})
	br := bufio.NewReader(resp.Body)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("reading hang stream: %v", err)
		}
		if strings.Contains(line, "text_delta") {
			return resp, br
		}
	}
}

// waitIdle waits until no handler is running. The deadline only keeps a broken fake from
// hanging the suite; it is not a speed assertion.
func waitIdle(t *testing.T, s *Server) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for s.active.Load() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("handler still running after the client left")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestHangEndsOnClientDisconnect checks that a hang without a time limit returns as soon
// as the client goes away, without waiting for Close.
func TestHangEndsOnClientDisconnect(t *testing.T) {
	s := New(t)
	c := client(t)
	ctx, cancel := context.WithCancel(context.Background())
	resp, _ := openHang(t, ctx, c, s, Hang(0))
	if s.active.Load() != 1 {
		t.Fatalf("active handlers = %d, want 1", s.active.Load())
	}
	cancel()
	resp.Body.Close()
	waitIdle(t, s)
}

// TestHangEndsOnClose checks that Close ends a hanging stream and the client sees the end.
func TestHangEndsOnClose(t *testing.T) {
	s := New(t)
	c := client(t)
	resp, br := openHang(t, context.Background(), c, s, Hang(0))
	defer resp.Body.Close()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(br)
	if strings.Contains(string(rest), "message_stop") {
		t.Errorf("a closed hang should not finish the message: %q", rest)
	}
}

// TestHangFinishes checks that a hang with hang_s pings and then completes the message.
func TestHangFinishes(t *testing.T) {
	s := New(t)
	c := client(t)
	s.Script(Step{Kind: KindHang, HangS: 0.6, Text: "wait"})
	resp := post(t, c, s, msgBody{Stream: true})
	defer resp.Body.Close()
	evs := readSSE(t, resp.Body)
	want := []string{"message_start", "content_block_start", "delta*", "ping", "content_block_stop", "message_delta", "message_stop"}
	if diff := cmp.Diff(want, names(evs)); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if got := joinDeltas(evs, 0, "text"); got != "wait" {
		t.Errorf("text = %q", got)
	}
}

// TestDelayEndsOnClientDisconnect checks that a long delay_ms does not outlive its client.
func TestDelayEndsOnClientDisconnect(t *testing.T) {
	s := New(t)
	c := client(t)
	s.Script(Step{Kind: KindText, Text: "late", DelayMS: 600_000})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL()+"/v1/messages", strings.NewReader(string(msgBody{}.json())))
		resp, err := c.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	for s.active.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-errc; err == nil {
		t.Error("request succeeded despite the cancel")
	}
	waitIdle(t, s)
}

// TestMatchRules checks each match condition: a step is used only by matching requests,
// and other requests fall through to later steps or the default reply.
func TestMatchRules(t *testing.T) {
	main := msgBody{Stream: true, Tools: []string{"Bash", "AskUserQuestion"}, System: "You are Claude Code",
		Messages: []map[string]any{userText("<system-reminder>ctx</system-reminder>"), userText("please refactor"),
			{"role": "system", "content": "# Environment"}}}
	sub := msgBody{Stream: true, Tools: []string{"Bash"}, Model: "claude-opus-4-8"}
	probe := msgBody{Model: "claude-sonnet-4-5"}
	tests := []struct {
		name  string
		match Match
		hit   []msgBody
		miss  []msgBody
	}{
		{"has_tools true", Match{HasTools: Bool(true)}, []msgBody{main, sub}, []msgBody{probe}},
		{"has_tools false", Match{HasTools: Bool(false)}, []msgBody{probe}, []msgBody{main}},
		{"model_contains", Match{ModelContains: "opus-4-8"}, []msgBody{sub}, []msgBody{main, probe}},
		{"tools_include", Match{ToolsInclude: Names{"AskUserQuestion", "Bash"}}, []msgBody{main}, []msgBody{sub}},
		{"tools_exclude", Match{ToolsExclude: Names{"AskUserQuestion"}}, []msgBody{sub, probe}, []msgBody{main}},
		{"system_contains", Match{SystemContains: "Claude Code"}, []msgBody{main}, []msgBody{sub}},
		{"last_user_contains", Match{LastUserContains: "refactor"}, []msgBody{main}, []msgBody{sub}},
		{"stream", Match{Stream: Bool(false)}, []msgBody{probe}, []msgBody{main}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(t)
			c := client(t)
			ask := func(b msgBody) string {
				resp := post(t, c, s, b)
				defer resp.Body.Close()
				if !b.Stream {
					return decodeJSON(t, resp.Body)["content"].([]any)[0].(map[string]any)["text"].(string)
				}
				return joinDeltas(readSSE(t, resp.Body), 0, "text")
			}
			for _, b := range tt.miss {
				s.Script(Text("matched").When(tt.match))
				if got := ask(b); got != defaultText {
					t.Errorf("non-matching request got %q", got)
				}
				if s.Pending() != 1 {
					t.Errorf("non-matching request consumed the step")
				}
			}
			for _, b := range tt.hit {
				s.Script(Text("matched").When(tt.match))
				if got := ask(b); got != "matched" {
					t.Errorf("matching request got %q", got)
				}
			}
		})
	}
}

// TestRepeat checks that repeat N answers N requests and -1 answers forever, and that a
// later step waits its turn.
func TestRepeat(t *testing.T) {
	s := New(t)
	c := client(t)
	s.Script(HTTPError(500, "", "").Times(2), Text("after"))
	var got []int
	for range 3 {
		resp := post(t, c, s, msgBody{})
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		got = append(got, resp.StatusCode)
	}
	if diff := cmp.Diff([]int{500, 500, 200}, got); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	s.Script(HTTPError(401, "", "").Times(-1))
	for range 5 {
		resp := post(t, c, s, msgBody{})
		resp.Body.Close()
		if resp.StatusCode != 401 {
			t.Fatalf("forever step answered %d", resp.StatusCode)
		}
	}
	if s.Pending() != 1 {
		t.Errorf("forever step left the queue")
	}
}

// TestOtherEndpoints checks count_tokens, unknown paths, HEAD, and that they are logged.
func TestOtherEndpoints(t *testing.T) {
	s := New(t)
	c := client(t)
	resp, err := c.Post(s.URL()+"/v1/messages/count_tokens?beta=true", "application/json", strings.NewReader(string(msgBody{}.json())))
	if err != nil {
		t.Fatal(err)
	}
	if n := decodeJSON(t, resp.Body)["input_tokens"].(float64); n < 1 {
		t.Errorf("input_tokens = %v", n)
	}
	resp.Body.Close()
	for _, m := range []string{http.MethodGet, http.MethodPost} {
		req, _ := http.NewRequest(m, s.URL()+"/api/oauth/whatever", nil)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(body) != "{}" {
			t.Errorf("%s other path: %d %q", m, resp.StatusCode, body)
		}
	}
	resp, err = c.Head(s.URL() + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("HEAD: %d", resp.StatusCode)
	}
	var paths []string
	for _, r := range s.Requests() {
		paths = append(paths, r.Method+" "+r.Path)
	}
	want := []string{"POST /v1/messages/count_tokens", "GET /api/oauth/whatever", "POST /api/oauth/whatever", "HEAD /"}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Errorf("log (-want +got):\n%s", diff)
	}
	if len(s.MainRequests()) != 0 {
		t.Errorf("side requests counted as main requests")
	}
}

// TestControlEndpoints drives the queue over HTTP, as the fakeapi command's users do.
func TestControlEndpoints(t *testing.T) {
	s := New(t)
	c := client(t)
	postJSON := func(path, body string) int {
		resp, err := c.Post(s.URL()+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := postJSON("/__script", `[{"kind":"text","text":"one","match":{"tools_exclude":"AskUserQuestion"}}]`); code != 200 {
		t.Fatalf("/__script: %d", code)
	}
	if code := postJSON("/__append", `[{"kind":"error","status":529,"repeat":-1}]`); code != 200 {
		t.Fatalf("/__append: %d", code)
	}
	if code := postJSON("/__append", `[{"kind":"bogus"}]`); code != 400 {
		t.Errorf("bad kind accepted: %d", code)
	}
	resp, err := c.Get(s.URL() + "/__queue")
	if err != nil {
		t.Fatal(err)
	}
	var q []struct {
		Step Step `json:"step"`
		Left int  `json:"left"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&q); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if len(q) != 2 || q[0].Step.Match == nil || q[0].Step.Match.ToolsExclude[0] != "AskUserQuestion" || q[1].Left != -1 {
		t.Errorf("queue = %+v", q)
	}
	r := post(t, c, s, msgBody{})
	r.Body.Close()
	resp, err = c.Get(s.URL() + "/__log")
	if err != nil {
		t.Fatal(err)
	}
	var log []map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&log); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if len(log) != 1 || log[0]["last_user_text"] != "hi" || log[0]["answer"] != "text" {
		t.Errorf("log = %v", log)
	}
	if code := postJSON("/__reset", ``); code != 200 || s.Pending() != 0 || len(s.Requests()) != 0 {
		t.Errorf("/__reset: %d, %d pending, %d logged", code, s.Pending(), len(s.Requests()))
	}
}

// TestRequestLog checks what is recorded: headers, tools, system, the summarised messages
// (text, tool_use, tool_result with is_error, role system), and LastUserText skipping
// system reminders and tool results.
func TestRequestLog(t *testing.T) {
	s := New(t)
	c := client(t)
	msgs := []map[string]any{
		{"role": "user", "content": []map[string]any{
			{"type": "text", "text": "<system-reminder>\nnoise\n</system-reminder>"},
			{"type": "text", "text": "say hi", "cache_control": map[string]any{"type": "ephemeral"}}}},
		{"role": "assistant", "content": []map[string]any{
			{"type": "thinking", "thinking": "hmm", "signature": "s"},
			{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": map[string]any{"command": "false"}}}},
		{"role": "user", "content": []map[string]any{
			{"type": "tool_result", "tool_use_id": "toolu_1", "is_error": true, "content": "exit 1"}}},
		{"role": "system", "content": "# Environment"},
	}
	r := post(t, c, s, msgBody{Stream: true, Tools: []string{"Bash", "Read"}, System: "sys prompt", Messages: msgs})
	_, _ = io.Copy(io.Discard, r.Body)
	r.Body.Close()
	r = post(t, c, s, msgBody{Messages: []map[string]any{{"role": "user", "content": "Hi"}}})
	r.Body.Close()

	all := s.Requests()
	main := s.MainRequests()
	if len(all) != 2 || len(main) != 1 {
		t.Fatalf("%d requests, %d main", len(all), len(main))
	}
	got := main[0]
	if got.LastUserText != "say hi" || all[1].LastUserText != "Hi" {
		t.Errorf("LastUserText = %q, %q", got.LastUserText, all[1].LastUserText)
	}
	if got.APIKey != "sk-fake" || got.Beta != "claude-code-20250219" || got.UserAgent != "claude-cli/test" ||
		got.SessionID != "sess-1" || got.RetryCount != "0" || got.Query != "beta=true" {
		t.Errorf("headers = %+v", got)
	}
	if !got.Stream || got.MaxTokens != 1000 || got.Model != "claude-opus-5-5" || got.SystemLen != len("sys prompt") ||
		!got.HasTool("Read") || got.Answer != "default" {
		t.Errorf("fields = %+v", got)
	}
	if diff := cmp.Diff([]string{"user", "assistant", "user", "system"}, roles(got.Messages)); diff != "" {
		t.Errorf("roles (-want +got):\n%s", diff)
	}
	tu := got.Messages[1].Blocks[1]
	if tu.Type != "tool_use" || tu.ID != "toolu_1" || tu.Name != "Bash" || string(tu.Input) != `{"command":"false"}` {
		t.Errorf("tool_use summary = %+v", tu)
	}
	want := []BlockSummary{{Type: "tool_result", ToolUseID: "toolu_1", IsError: true, Text: "exit 1"}}
	if diff := cmp.Diff(want, got.ToolResults()); diff != "" {
		t.Errorf("ToolResults (-want +got):\n%s", diff)
	}
	if got.Messages[3].Text != "# Environment" {
		t.Errorf("system message text = %q", got.Messages[3].Text)
	}
}

func roles(ms []MessageSummary) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Role)
	}
	return out
}

// TestBadRequestBody checks that an unreadable body is answered 400 and still logged.
func TestBadRequestBody(t *testing.T) {
	s := New(t)
	c := client(t)
	resp, err := c.Post(s.URL()+"/v1/messages", "application/json", strings.NewReader("{not json"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Errorf("status %d", resp.StatusCode)
	}
	if l := s.Requests(); len(l) != 1 || l[0].Answer != "bad_request" {
		t.Errorf("log = %+v", l)
	}
}
