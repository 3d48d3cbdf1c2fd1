package acp

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"
)

// FuzzDecode feeds arbitrary lines to the inbound decoder. It must never
// panic, must classify every line, and whatever it decides to answer must
// encode to valid JSON-RPC.
func FuzzDecode(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/conformance/*.txtar")
	for _, s := range seeds {
		data, _ := os.ReadFile(s)
		for _, l := range bytes.Split(data, []byte("\n")) {
			f.Add(l)
		}
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		// The streaming scan used for over-limit frames sees the same top
		// level as the decoder, however the bytes are split.
		if utf8.Valid(line) {
			checkScan(t, bytes.TrimPrefix(line, utf8BOM), 1, 5, len(line)+1)
		}
		in := classify(line)
		var buf bytes.Buffer
		switch in.kind {
		case kindInvalid:
			encodeError(&buf, in.id, in.err)
		case kindRequest:
			if in.id.IsZero() || in.method == "" && !bytes.Contains(line, []byte(`"method"`)) {
				t.Fatalf("request without id or method: %q", line)
			}
			encodeError(&buf, in.id, NewMethodNotFound(in.method))
			if err := encodeResult(&buf, in.id, in.params); err != nil && in.params != nil {
				t.Fatalf("params from a valid line do not re-encode: %v", err)
			}
		case kindResponse, kindNotification, kindIgnore:
			return
		}
		for _, out := range bytes.Split(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), []byte("\n")) {
			if !json.Valid(out) {
				t.Fatalf("invalid JSON out for %q: %s", line, out)
			}
		}
	})
}

// FuzzFraming splits arbitrary byte streams into frames under a small
// limit: no panic, no frame over the limit, and every byte accounted for.
func FuzzFraming(f *testing.F) {
	f.Add([]byte("{\"a\":1}\n\n{\"b\":2}\r\n"), 8)
	f.Add(bytes.Repeat([]byte("x"), 300), 16)
	f.Fuzz(func(t *testing.T, data []byte, max int) {
		if max < 1 || max > 1<<16 {
			max = 64
		}
		lr := newLineReader(bytes.NewReader(data), max)
		for i := 0; i < len(data)+2; i++ {
			line, err := lr.next()
			if errors.Is(err, errFrameTooLarge) {
				_ = lr.scan.topID()
				continue
			}
			if err == io.EOF {
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(line) > max {
				t.Fatalf("frame of %d bytes passed a limit of %d", len(line), max)
			}
		}
	})
}
