package claude

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// fixture is one real CLI frame from testdata/cli-frames.jsonl, which was
// copied from the shared claude-cli-examples.json (trim markers such as
// "…(+3)" removed from arrays of objects).
type fixture struct {
	Name  string          `json:"name"`
	Frame json.RawMessage `json:"frame"`
}

func loadFixtures(tb testing.TB) []fixture {
	tb.Helper()
	f, err := os.Open("testdata/cli-frames.jsonl")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []fixture
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var fx fixture
		if err := json.Unmarshal(sc.Bytes(), &fx); err != nil {
			tb.Fatal(err)
		}
		out = append(out, fx)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// TestDecodeRealFrames decodes every real frame: known kinds get a typed
// Body without decode errors, unknown kinds keep their raw bytes, and Raw is
// always the input, byte for byte.
func TestDecodeRealFrames(t *testing.T) {
	fixtures := loadFixtures(t)
	if len(fixtures) < 200 {
		t.Fatalf("only %d fixtures", len(fixtures))
	}
	typed := 0
	for _, fx := range fixtures {
		line := append([]byte(nil), fx.Frame...)
		m, err := DecodeMessage(line)
		if err != nil {
			t.Errorf("%s: %v", fx.Name, err)
			continue
		}
		if !bytes.Equal(m.Raw, fx.Frame) {
			t.Errorf("%s: Raw differs from input", fx.Name)
		}
		if m.DecodeErr != nil {
			t.Errorf("%s: %v", fx.Name, m.DecodeErr)
		}
		var env struct {
			Type    string `json:"type"`
			Subtype string `json:"subtype"`
		}
		if err := json.Unmarshal(fx.Frame, &env); err != nil {
			t.Fatal(err)
		}
		if m.Type != env.Type {
			t.Errorf("%s: Type %q, want %q", fx.Name, m.Type, env.Type)
		}
		if m.Type != "stream_event" && m.Subtype != env.Subtype {
			t.Errorf("%s: Subtype %q, want %q", fx.Name, m.Subtype, env.Subtype)
		}
		switch m.Type {
		case "control_request", "control_response", "control_cancel_request":
			if m.Body != nil {
				t.Errorf("%s: control frame has a body", fx.Name)
			}
		case "system":
			// task_* and friends are typed; every system subtype in the
			// fixtures is one this package models.
			if m.Body == nil {
				t.Errorf("%s: system/%s has no typed body", fx.Name, m.Subtype)
			}
		default:
			if m.Body == nil {
				t.Errorf("%s: %s has no typed body", fx.Name, m.Type)
			}
		}
		if m.Body != nil {
			typed++
		}
	}
	t.Logf("%d frames, %d typed", len(fixtures), typed)
}

func findFixture(t *testing.T, name string) Message {
	t.Helper()
	for _, fx := range loadFixtures(t) {
		if fx.Name == name {
			m, err := DecodeMessage(fx.Frame)
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
	}
	t.Fatalf("no fixture %q", name)
	return Message{}
}

// TestDecodeTypedFields spot-checks the fields an adapter relies on.
func TestDecodeTypedFields(t *testing.T) {
	t.Run("synthetic 429", func(t *testing.T) {
		a := findFixture(t, "synthetic_429#0").Body.(*AssistantMessage)
		if !a.IsSynthetic() || a.Error != "rate_limit" || a.APIErrorStatus == nil || *a.APIErrorStatus != 429 {
			t.Errorf("got %+v", a)
		}
		if !strings.Contains(a.Message.Content.Text(), "429") {
			t.Errorf("text %q", a.Message.Content.Text())
		}
	})
	t.Run("result 429", func(t *testing.T) {
		r := findFixture(t, "result_429#0").Body.(*ResultMessage)
		if r.Subtype != ResultSuccess || !r.IsError || r.TerminalReason != "api_error" || *r.APIErrorStatus != 429 || r.APIErrorType != "rate_limit_error" {
			t.Errorf("got %+v", r)
		}
	})
	t.Run("result success", func(t *testing.T) {
		r := findFixture(t, "result_success#0").Body.(*ResultMessage)
		mu := r.ModelUsage["claude-opus-5-5"]
		if r.IsError || r.StopReason != "end_turn" || r.Result != "Hello from the fake API." || mu.ContextWindow != 1000000 || r.TotalCostUSD == 0 || r.Usage.OutputTokens != 5 {
			t.Errorf("got %+v", r)
		}
	})
	t.Run("resume missing", func(t *testing.T) {
		r := findFixture(t, "resume_missing#0").Body.(*ResultMessage)
		if r.Subtype != ResultErrorDuringExecution || len(r.Errors) != 1 || !strings.HasPrefix(r.Errors[0], "No conversation found") {
			t.Errorf("got %+v", r)
		}
	})
	t.Run("tool use", func(t *testing.T) {
		a := findFixture(t, "assistant_tool#0").Body.(*AssistantMessage)
		b := a.Message.Content[0]
		if b.Type != "tool_use" || b.Name != "Bash" || !json.Valid(b.Input) {
			t.Errorf("got %+v", b)
		}
	})
	t.Run("stream delta", func(t *testing.T) {
		m := findFixture(t, "stream_events_text#2")
		ev := m.Body.(*StreamEvent)
		if m.Subtype != "content_block_delta" || ev.Event.Delta.Type != "text_delta" || ev.Event.Delta.Text != "Hello " {
			t.Errorf("got %+v", ev.Event)
		}
	})
	t.Run("tool result", func(t *testing.T) {
		u := findFixture(t, "tool_results#0").Body.(*UserFrame)
		b := u.Message.Content[0]
		c, err := b.ResultContent()
		if err != nil || b.Type != "tool_result" || c.Text() != "hi" {
			t.Errorf("got %+v %v", b, err)
		}
	})
}

// TestDecodeUnknownAndGarbage checks that unknown kinds pass through raw and
// that non-JSON is rejected.
func TestDecodeUnknownAndGarbage(t *testing.T) {
	for _, line := range []string{
		`{"type":"brand_new","x":[1,{"y":"}"}]}`,
		`{"subtype":"future","type":"system","weird":true}`,
		`{"type":"assistant","message":{"content":"not blocks but a string"}}`,
	} {
		m, err := DecodeMessage([]byte(line))
		if err != nil {
			t.Errorf("%s: %v", line, err)
			continue
		}
		if string(m.Raw) != line {
			t.Errorf("raw changed")
		}
	}
	for _, line := range []string{``, `hello`, `{"type":"x"`, `{"type":"assistant",}`, `[1,2]`, `{"type":"result","a":tru}`, `{"type":"bogus" "x":1}`} {
		if _, err := DecodeMessage([]byte(line)); err == nil {
			t.Errorf("%q: decoded", line)
		}
	}
	m, err := DecodeMessage([]byte(`{"type":"assistant","message":{"content":[{"type":"text","text":1}]}}`))
	if err != nil || m.DecodeErr == nil || m.Body == nil {
		t.Errorf("type mismatch: %v %v %v", err, m.DecodeErr, m.Body)
	}
	m, err = DecodeMessage([]byte(`{"type":"sys\u0074em","subtype":"init"}`))
	if err != nil || m.Type != "system" {
		t.Errorf("escaped type: %v %q", err, m.Type)
	}
}

// FuzzDecodeMessage checks that no input panics and that accepted input is
// valid JSON whose Raw is the input.
func FuzzDecodeMessage(f *testing.F) {
	for _, fx := range loadFixtures(f) {
		f.Add([]byte(fx.Frame))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		m, err := DecodeMessage(line)
		if err != nil {
			return
		}
		if !json.Valid(line) {
			t.Fatalf("accepted invalid JSON %q", line)
		}
		if !bytes.Equal(m.Raw, line) {
			t.Fatal("raw differs")
		}
	})
}

// TestUserFrameStringContent: the CLI writes some user frames with a plain
// string as content; they decode to one text block, and a second bad field
// is still reported.
func TestUserFrameStringContent(t *testing.T) {
	m, err := DecodeMessage([]byte(`{"type":"user","message":{"role":"user","content":"<local-command-stdout>Set model</local-command-stdout>"},"isReplay":true,"uuid":"u1"}`))
	if err != nil || m.DecodeErr != nil {
		t.Fatal(err, m.DecodeErr)
	}
	u := m.Body.(*UserFrame)
	if !u.IsReplay || u.UUID != "u1" || u.Message.Role != "user" || u.Message.Content.Text() != "<local-command-stdout>Set model</local-command-stdout>" {
		t.Errorf("got %+v", u)
	}
	m, _ = DecodeMessage([]byte(`{"type":"user","message":{"role":"user","content":"x"},"isReplay":"yes"}`))
	if m.DecodeErr == nil || !strings.Contains(m.DecodeErr.Error(), "isReplay") {
		t.Errorf("DecodeErr = %v", m.DecodeErr)
	}
}
