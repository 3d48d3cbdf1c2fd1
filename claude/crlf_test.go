package claude

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"strings"
	"testing"
)

// A CLI on Windows may end its stdout lines with CRLF; the reader takes
// them like LF lines.

func init() {
	scenarios["crlf"] = func(f *fake) int {
		f.out = bufio.NewWriterSize(crlfWriter{os.Stdout}, 1<<16)
		if !f.handshake() {
			return 1
		}
		return f.serve(echoTurn(f))
	}
}

// crlfWriter writes every "\n" as "\r\n".
type crlfWriter struct{ w io.Writer }

func (c crlfWriter) Write(b []byte) (int, error) {
	if _, err := c.w.Write(bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n"))); err != nil {
		return 0, err
	}
	return len(b), nil
}

func TestCRLFLines(t *testing.T) {
	t.Parallel()
	br := bufio.NewReader(strings.NewReader("{\"a\":1}\r\n\r\n{\"b\":2}\r\n{\"c\":3}"))
	var got []string
	for {
		line, _, err := readLine(br)
		if len(line) > 0 {
			got = append(got, string(line))
		}
		if err != nil {
			break
		}
	}
	if strings.Join(got, "|") != `{"a":1}|{"b":2}|{"c":3}` {
		t.Errorf("lines %q", got)
	}
}

func TestCRLFFromTheCLI(t *testing.T) {
	t.Parallel()
	p := startFake(t, "crlf", Options{})
	if v := p.InitializeResponse().ClaudeCodeVersion; v != "9.9.9-fake" {
		t.Errorf("initialize over CRLF: version %q", v)
	}
	sendText(t, p, "hi")
	got := until(t, p, isType("result"))
	if r := got[len(got)-1].Body.(*ResultMessage); r.Result != "echo: hi" {
		t.Errorf("result %+v", r)
	}
	if err := p.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}
