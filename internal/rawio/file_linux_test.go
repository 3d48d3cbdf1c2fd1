package rawio

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestFileReaderAt reads a cached file through raw calls, and answers as
// os.File.ReadAt does: whole reads, reads across and past the end (a
// short count with io.EOF), and reads of a closed file.
func TestFileReaderAt(t *testing.T) {
	data := make([]byte, 300<<10)
	for i := range data {
		data[i] = byte(i*7 + i>>9)
	}
	path := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	ra := NewFileReaderAt(f)
	if _, ok := ra.(*fileReaderAt); !ok {
		t.Skip("RWF_NOWAIT reads are not available here")
	}
	before := rawReads.Load()
	cases := []struct {
		off  int64
		n    int
		want int
		eof  bool
	}{
		{0, len(data), len(data), false},
		{1000, 256 << 10, 256 << 10, false},
		{int64(len(data)) - 10, 10, 10, false},
		{int64(len(data)) - 10, 20, 10, true},
		{int64(len(data)), 5, 0, true},
		{int64(len(data)) + 100, 5, 0, true},
		{5, 0, 0, false},
	}
	for _, c := range cases {
		b := make([]byte, c.n)
		n, err := ra.ReadAt(b, c.off)
		if n != c.want || (err != nil) != c.eof || (c.eof && !errors.Is(err, io.EOF)) {
			t.Errorf("ReadAt(%d bytes at %d) = %d, %v; want %d, eof %v", c.n, c.off, n, err, c.want, c.eof)
		}
		if n > 0 && !bytes.Equal(b[:n], data[c.off:c.off+int64(n)]) {
			t.Errorf("ReadAt(%d bytes at %d): wrong bytes", c.n, c.off)
		}
	}
	if got := rawReads.Load() - before; got == 0 {
		t.Error("no byte was read by a raw call: the file was just written and is cached")
	}
	f.Close()
	if n, err := ra.ReadAt(make([]byte, 4), 0); n != 0 || !errors.Is(err, os.ErrClosed) {
		t.Errorf("ReadAt after Close = %d, %v; want 0, %v", n, err, os.ErrClosed)
	}
}
