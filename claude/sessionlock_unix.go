//go:build unix

package claude

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
)

// lockSession takes the lock of path, without waiting: ErrSessionLocked if
// another holder has it. It returns the function that releases it (nil,
// nil when path is "" or the lock cannot be taken for another reason).
//
// The file is removed on release, while the lock is held; a taker that
// locked a file removed meanwhile finds that its path no longer names the
// file it holds, and tries again with a new one.
func lockSession(path string) (release func(), err error) {
	if path == "" {
		return nil, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, nil // no lock where none can be made
	}
	for try := 0; try < 10; try++ {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600) // close-on-exec: the CLI does not inherit it
		if err != nil {
			return nil, nil
		}
		if err := flock(f); err != nil {
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, ErrSessionLocked
			}
			return nil, nil
		}
		held, err1 := f.Stat()
		named, err2 := os.Stat(path)
		if err1 == nil && err2 == nil && os.SameFile(held, named) {
			return func() {
				_ = os.Remove(path)
				_ = f.Close()
			}, nil
		}
		f.Close() // removed by a releaser meanwhile: take the new one
	}
	return nil, nil
}

func flock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}
