package dist

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"io/fs"
	"time"
)

// A file is one entry of an archive. Entries are written in the order
// given, with the archive's fixed time, owner root (0/0, no names) and only
// two modes: 0755 for executables, 0644 for the rest. Nothing of the build
// machine (time, user, umask, file order) reaches the bytes.
type file struct {
	name string
	data []byte
	exec bool
}

func (f file) mode() fs.FileMode {
	if f.exec {
		return 0o755
	}
	return 0o644
}

// tarGz returns a gzip-compressed ustar archive of files.
func tarGz(files []file, mtime time.Time) ([]byte, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.DefaultCompression)
	if err != nil {
		return nil, err
	}
	// The gzip header keeps no name and no time (ModTime zero is written
	// as 0); its OS byte is always "unknown".
	tw := tar.NewWriter(zw)
	for _, f := range files {
		hdr := &tar.Header{
			Typeflag: tar.TypeReg,
			Name:     f.name,
			Size:     int64(len(f.data)),
			Mode:     int64(f.mode()),
			ModTime:  mtime.UTC().Truncate(time.Second),
			Format:   tar.FormatUSTAR,
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// zipArchive returns a zip archive of files (deflated, with Unix modes so
// that unzip on macOS or Linux keeps the binary executable).
func zipArchive(files []file, mtime time.Time) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		hdr := &zip.FileHeader{Name: f.name, Method: zip.Deflate, Modified: mtime.UTC().Truncate(2 * time.Second)}
		hdr.SetMode(f.mode())
		w, err := zw.CreateHeader(hdr)
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
