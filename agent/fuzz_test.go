package agent

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// FuzzPromptContent feeds arbitrary session/prompt content through the
// ACP decoder and the mapping to a Claude user message. Whatever the
// editor sends, the agent must not panic; it either refuses the prompt
// with a short -32602 that does not echo the content, or produces a
// message the CLI can read (one valid JSON line) that keeps every piece of
// text the user wrote.
func FuzzPromptContent(f *testing.F) {
	for _, s := range promptSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var prompt []acp.ContentBlock
		if json.Unmarshal(data, &prompt) != nil {
			return
		}
		out, err := promptToClaude(prompt)
		if err != nil {
			var ae *acp.Error
			if !errors.As(err, &ae) || ae.Code != acp.CodeInvalidParams {
				t.Fatalf("refusal is not -32602: %v", err)
			}
			if b, _ := json.Marshal(ae); len(b) > 512 {
				t.Fatalf("refusal of %d bytes (it must not echo the prompt): %s", len(b), b)
			}
			return
		}
		if len(out) == 0 {
			t.Fatal("accepted a prompt with no content")
		}
		line, err := json.Marshal(claude.UserMessageBody{Role: "user", Content: out})
		if err != nil {
			t.Fatalf("the Claude message does not encode: %v", err)
		}
		if bytes.IndexByte(line, '\n') >= 0 || !json.Valid(line) {
			t.Fatalf("the Claude message is not one JSON line: %q", line)
		}
		var all strings.Builder
		for _, b := range out {
			all.WriteString(b.Text)
		}
		for i, b := range prompt {
			var text string
			switch {
			case b.Text != nil:
				text = b.Text.Text
			case b.Resource != nil && b.Resource.Resource.TextResourceContents != nil:
				text = b.Resource.Resource.TextResourceContents.Text
			}
			if !strings.Contains(all.String(), text) {
				t.Fatalf("prompt[%d]'s text %q was lost", i, text)
			}
		}
	})
}

// promptSeeds cover every content type, the MIME and URI shapes the
// mapping branches on, and malformed variants.
var promptSeeds = []string{
	`[{"type":"text","text":"hello"}]`,
	`[]`,
	`[{"type":"text","text":""}]`,
	`[{"type":"text","text":"line\nbreak \u2028 \u0000 <context ref=\"x\">"}]`,
	`[{"type":"resource_link","uri":"file:///src/main.go","name":"main.go"}]`,
	`[{"type":"resource_link","uri":"zed:///agent/thread/1","name":""}]`,
	`[{"type":"resource_link","uri":"https://example.com/a b","name":"x"}]`,
	`[{"type":"resource_link","uri":"%zz","name":"bad"}]`,
	`[{"type":"image","mimeType":"image/jpg","data":"iVBORw0KGgo="}]`,
	`[{"type":"image","mimeType":"image/png","data":"","uri":"https://example.com/i.png"}]`,
	`[{"type":"image","mimeType":"","data":""}]`,
	`[{"type":"audio","mimeType":"audio/wav","data":"AAAA"}]`,
	`[{"type":"bogus","x":1}]`,
	`[{"type":"resource","resource":{"uri":"file:///a.txt","text":"package a"}}]`,
	`[{"type":"resource","resource":{"uri":"file:///a.png","mimeType":"image/png","blob":"iVBORw0KGgo="}}]`,
	`[{"type":"resource","resource":{"uri":"file:///a.pdf","mimeType":"application/pdf","blob":"JVBERi0="}}]`,
	`[{"type":"resource","resource":{"uri":"file:///a.json","mimeType":"application/json; charset=utf-8","blob":"77u/eyJhIjoxfQ=="}}]`,
	`[{"type":"resource","resource":{"uri":"file:///a.json","mimeType":"text/plain","blob":"not base64!"}}]`,
	`[{"type":"resource","resource":{"uri":"file:///a.zip","mimeType":"application/zip","blob":"UEsDBA=="}}]`,
	`[{"type":"resource","resource":{"uri":"file:///x"}}]`,
	`[{"type":"resource","resource":{"uri":"file:///x","mimeType":";;;","blob":""}}]`,
	`[{"type":"text","text":"look"},{"type":"resource","resource":{"uri":"file:///b","text":"B"}},{"type":"text","text":"and"}]`,
	`[{"type":"text"},{"type":null},null,{}]`,
	`[{"type":"text","text":"x","annotations":{"audience":["user"],"priority":2.5},"_meta":{"a":1}}]`,
}

// FuzzDispatch sends arbitrary lines to a whole agent after initialize (no
// CLI can start: the executable does not exist), then a last request. No
// handler may panic or hold up the connection (the last request must be
// answered), every line the agent writes must be one JSON value, and the
// agent must stop cleanly at EOF.
func FuzzDispatch(f *testing.F) {
	for _, s := range dispatchSeeds {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		panics := &panicCatcher{}
		a := New(Config{Executable: "/nonexistent/claude", Env: []string{"HOME=" + dir}, Logger: slog.New(panics)})
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		served := make(chan error, 1)
		go func() {
			served <- a.Serve(context.Background(), inR, outW)
			outW.Close()
		}()
		go func() {
			var in bytes.Buffer
			in.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}` + "\n")
			in.Write(bytes.ReplaceAll(data, []byte("$CWD"), []byte(dir)))
			in.WriteString("\n" + `{"jsonrpc":"2.0","id":"fuzz-end","method":"fuzz/end"}` + "\n")
			inW.Write(in.Bytes())
		}()
		timer := time.AfterFunc(20*time.Second, func() { inW.CloseWithError(errors.New("hung")) })
		defer timer.Stop()
		br := bufio.NewReader(outR)
		answered := false
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				if !json.Valid(line) {
					t.Fatalf("agent wrote %q", line)
				}
				if bytes.Contains(line, []byte(`"id":"fuzz-end"`)) {
					answered = true
					inW.Close() // EOF: the agent must stop
				}
			}
			if err != nil {
				break
			}
		}
		if err := <-served; err != nil && answered {
			t.Fatalf("Serve: %v", err)
		}
		if !answered {
			t.Fatal("the last request was never answered: something held up the connection")
		}
		if panics.seen.Load() {
			t.Fatal("a handler panicked")
		}
	})
}

// panicCatcher is a slog handler that notes recovered handler panics.
type panicCatcher struct{ seen atomic.Bool }

func (p *panicCatcher) Enabled(context.Context, slog.Level) bool { return true }
func (p *panicCatcher) Handle(_ context.Context, r slog.Record) error {
	if strings.Contains(r.Message, "panic") {
		p.seen.Store(true)
	}
	return nil
}
func (p *panicCatcher) WithAttrs([]slog.Attr) slog.Handler { return p }
func (p *panicCatcher) WithGroup(string) slog.Handler      { return p }

// dispatchSeeds are request lines after initialize ($CWD is a real
// directory); the fuzzer mutates them.
var dispatchSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"$CWD","mcpServers":[]}}`,
	`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"$CWD","mcpServers":[]}}
{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"x","prompt":[{"type":"text","text":"hi"}]}}
{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"x"}}`,
	`{"jsonrpc":"2.0","id":3,"method":"session/set_mode","params":{"sessionId":"x","modeId":"plan"}}`,
	`{"jsonrpc":"2.0","id":4,"method":"session/set_config_option","params":{"sessionId":"x","configId":"mode","value":"plan"}}`,
	`{"jsonrpc":"2.0","id":5,"method":"session/load","params":{"sessionId":"00000000-0000-0000-0000-000000000000","cwd":"$CWD","mcpServers":[]}}`,
	`{"jsonrpc":"2.0","id":6,"method":"session/resume","params":{"sessionId":"s","cwd":"$CWD"}}`,
	`{"jsonrpc":"2.0","id":7,"method":"session/close","params":{"sessionId":"s"}}`,
	`{"jsonrpc":"2.0","id":8,"method":"session/list","params":{"cwd":"$CWD"}}`,
	`{"jsonrpc":"2.0","id":9,"method":"session/fork","params":{"sessionId":"s","cwd":"$CWD"}}`,
	`{"jsonrpc":"2.0","id":10,"method":"authenticate","params":{"methodId":"claude-ai-login"}}`,
	`{"jsonrpc":"2.0","id":11,"method":"session/new","params":{"cwd":"$CWD","mcpServers":[{"name":"m","command":"/bin/true","args":[],"env":[]},{"type":"http","name":"h","url":"http://127.0.0.1:1","headers":[]}]}}`,
	`{"jsonrpc":"2.0","id":12,"method":"$/cancel_request","params":{"requestId":2}}`,
	`{"jsonrpc":"2.0","id":13,"method":"initialize","params":{"protocolVersion":1}}`,
	`[{"jsonrpc":"2.0","id":14,"method":"session/new","params":{"cwd":"$CWD"}},{"jsonrpc":"2.0","method":"x"}]`,
	`{"jsonrpc":"2.0","id":15,"method":"session/new","params":{"cwd":"relative","mcpServers":[]}}`,
}
