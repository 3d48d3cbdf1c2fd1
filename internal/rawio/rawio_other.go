//go:build !linux

package rawio

import (
	"io"
	"os"
	"time"
)

// NewReader returns f: only Linux reads with raw system calls.
func NewReader(f *os.File) io.Reader { return f }

// NewStdout returns f: only Linux writes with raw system calls.
func NewStdout(f *os.File) (w io.Writer, restore func()) { return f, func() {} }

// NewStdin returns f: only Linux reads with raw system calls.
func NewStdin(f *os.File) (r io.Reader, restore func()) { return f, func() {} }

// NewFileReaderAt returns f: only Linux reads with raw system calls.
func NewFileReaderAt(f *os.File) io.ReaderAt { return f }

// Pipe returns os.Pipe's ends: only Linux pauses a pipe's reader.
func Pipe() (r *PipeReader, w *os.File, err error) {
	rf, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	return &PipeReader{f: rf}, w, nil
}

// A PipeReader is the read end of a [Pipe].
type PipeReader struct{ f *os.File }

// Pause does nothing: only Linux pauses a pipe's reader.
func (r *PipeReader) Pause(time.Duration) {}

// Read reads the pipe.
func (r *PipeReader) Read(b []byte) (int, error) { return r.f.Read(b) }

// SetReadDeadline sets the deadline of Read.
func (r *PipeReader) SetReadDeadline(t time.Time) error { return r.f.SetReadDeadline(t) }

// Close closes the read end.
func (r *PipeReader) Close() error { return r.f.Close() }
