package acp

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
)

// checkScan compares frameScan on line, fed in pieces of every size in
// sizes, with what encoding/json finds at the top level of the object.
func checkScan(t *testing.T, line []byte, sizes ...int) {
	t.Helper()
	var top map[string]json.RawMessage
	if json.Unmarshal(line, &top) != nil || top == nil {
		return // not an object: nothing to compare
	}
	for _, n := range sizes {
		var s frameScan
		for rest := line; len(rest) > 0; {
			k := min(n, len(rest))
			s.feed(rest[:k])
			rest = rest[k:]
		}
		if !s.isObject {
			t.Fatalf("%q (pieces of %d): not seen as an object", line, n)
		}
		_, hasMethod := top["method"]
		_, hasParams := top["params"]
		_, hasResult := top["result"]
		_, hasError := top["error"]
		rawID, hasID := top["id"]
		if s.hasMethod != hasMethod || s.hasParams != hasParams || s.hasResult != hasResult || s.hasError != hasError || s.hasID != hasID {
			t.Fatalf("%q (pieces of %d): keys method/params/result/error/id %v %v %v %v %v, want %v %v %v %v %v", line, n,
				s.hasMethod, s.hasParams, s.hasResult, s.hasError, s.hasID, hasMethod, hasParams, hasResult, hasError, hasID)
		}
		if !hasID {
			continue
		}
		want, ok := parseID(rawID)
		if !ok || len(rawID) > maxScanID {
			want = nullID
		}
		if got := s.topID(); got.key() != want.key() {
			t.Fatalf("%q (pieces of %d): id %s, want %s", line, n, got, want)
		}
	}
}

func TestFrameScan(t *testing.T) {
	for _, l := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"x"}`,
		"\uFEFF" + `{"id":"a"}`,
		` { "params" : { "id" : 5 , "method" : "m" } , "id" : -7 }`,
		`{"a":"} ] \" \\","b":[{"id":1},"]",{}],"id":"x\"y","result":null}`,
		`{"\u0069d":12,"m\u0065thod":"x"}`,
		`{"id":1,"id":2}`,
		`{"id":{"nested":[1,2]},"error":{}}`,
		`{"id":` + strings.Repeat("9", maxScanID+1) + `}`,
		`{"x":true,"y":false,"z":null,"w":-1.5e10,"id":null}`,
		`{}`,
	} {
		checkScan(t, []byte(l), 1, 2, 3, 7, len(l))
	}
}

// TestOverLimitFrameScannedInConstantMemory: a 100 MiB frame whose id comes
// last is answered on that id, and skipping it allocates next to nothing
// beyond the frame limit.
func TestOverLimitFrameScannedInConstantMemory(t *testing.T) {
	const size = 100 << 20
	head := `{"jsonrpc":"2.0","method":"session/prompt","params":{"prompt":[{"type":"text","text":"`
	tail := `"}]},"id":"last"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"x"}` + "\n"
	r := io.MultiReader(strings.NewReader(head), &repeatReader{b: 'a', n: size}, strings.NewReader(tail))
	lr := newLineReader(r, 1<<20)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := lr.next()
	runtime.ReadMemStats(&after)
	if !errors.Is(err, errFrameTooLarge) {
		t.Fatalf("got %v", err)
	}
	if got := lr.scan.topID(); got != StringID("last") || !lr.scan.hasMethod {
		t.Errorf("id %s, method %v", got, lr.scan.hasMethod)
	}
	if lr.total != int64(len(head)+size+len(`"}]},"id":"last"}`)+1) {
		t.Errorf("size %d", lr.total)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
		t.Errorf("skipping the frame allocated %d MiB", alloc>>20)
	}
	if line, err := lr.next(); err != nil || !bytes.Contains(line, []byte(`"id":2`)) {
		t.Errorf("the next frame: %q, %v", line, err)
	}
}

// repeatReader yields n copies of b.
type repeatReader struct {
	b byte
	n int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	k := min(len(p), r.n)
	for i := range p[:k] {
		p[i] = r.b
	}
	r.n -= k
	return k, nil
}
