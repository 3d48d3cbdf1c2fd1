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
)

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
		a := New(Config{Executable: "/nonexistent/claude", Env: []string{"HOME=" + dir}, Logger: slog.New(panics)}).newConnection()
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		served := make(chan error, 1)
		go func() {
			served <- a.serve(context.Background(), inR, outW)
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
