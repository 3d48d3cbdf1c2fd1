package acp

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

// TestOutputFilterSeesEveryFrame: notifications, requests, results and
// error answers, held or not, all pass through Options.OutputFilter before
// they are written, and what it returns is what the peer reads.
func TestOutputFilterSeesEveryFrame(t *testing.T) {
	inR, inW := io.Pipe()
	w := &writeLog{}
	c := NewConn(inR, w, Options{
		Handler: HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
			if req.Method == "fail" {
				return nil, NewInternalError("failed with SECRET-1")
			}
			return map[string]string{"echo": "SECRET-1 in a result"}, nil
		}),
		OutputFilter: func(frame []byte) []byte { return bytes.ReplaceAll(frame, []byte("SECRET-1"), []byte("[gone]")) },
	})
	t.Cleanup(func() {
		inW.Close()
		c.Close()
		c.Wait()
	})
	if err := c.Notify(context.Background(), "n", map[string]string{"t": "SECRET-1 in a notification"}); err != nil {
		t.Fatal(err)
	}
	release := c.Hold()
	_ = c.Notify(context.Background(), "n", map[string]string{"t": "SECRET-1 held"})
	release()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_ = c.Call(ctx, "ask", map[string]string{"t": "SECRET-1 in a request"}, nil) // never answered
	io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"ok"}`+"\n"+`{"jsonrpc":"2.0","id":2,"method":"fail"}`+"\n")
	deadline := time.Now().Add(5 * time.Second)
	for w.count() < 6 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	out := strings.Join(w.lines(), "")
	for _, want := range []string{"[gone] in a notification", "[gone] held", "[gone] in a request", "[gone] in a result", "failed with [gone]"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "SECRET-1") {
		t.Errorf("a frame was not filtered:\n%s", out)
	}
}
