//go:build !linux

package rawio

import (
	"io"
	"os"
)

// NewReader returns f: only Linux reads with raw system calls.
func NewReader(f *os.File) io.Reader { return f }

// NewStdout returns f: only Linux writes with raw system calls.
func NewStdout(f *os.File) (w io.Writer, restore func()) { return f, func() {} }

// NewStdin returns f: only Linux reads with raw system calls.
func NewStdin(f *os.File) (r io.Reader, restore func()) { return f, func() {} }

// NewFileReaderAt returns f: only Linux reads with raw system calls.
func NewFileReaderAt(f *os.File) io.ReaderAt { return f }
