package editorfs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ReadInput is the built-in Read's input.
type ReadInput struct {
	FilePath   string `json:"file_path"`
	Offset     int    `json:"offset,omitempty"`
	Limit      int    `json:"limit,omitempty"`
	Pages      string `json:"pages,omitempty"`
	AllowLarge bool   `json:"allow_large,omitempty"`
}

// maxReadBytes is Claude Code's limit on what Read returns without
// allow_large.
const maxReadBytes = 256 << 10

// imageTypes are read from the disk and given to Claude as images.
var imageTypes = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp",
}

// binaryExts are files Read refuses, as Claude Code does (a sample of its
// list: archives, executables, media, databases).
var binaryExts = map[string]bool{
	".dat": true, ".bin": true, ".exe": true, ".dll": true, ".so": true, ".dylib": true, ".o": true, ".a": true,
	".class": true, ".jar": true, ".pyc": true, ".wasm": true, ".zip": true, ".gz": true, ".tgz": true, ".bz2": true,
	".xz": true, ".7z": true, ".rar": true, ".tar": true, ".mp3": true, ".mp4": true, ".wav": true, ".mov": true,
	".avi": true, ".mkv": true, ".flac": true, ".ogg": true, ".ico": true, ".bmp": true, ".tiff": true, ".psd": true,
	".ttf": true, ".otf": true, ".woff": true, ".woff2": true, ".sqlite": true, ".db": true, ".doc": true,
	".docx": true, ".xls": true, ".xlsx": true, ".ppt": true, ".pptx": true,
}

// Read reads a file for Claude: text from the editor, numbered; images,
// PDFs and notebooks as Claude Code gives them; directories and binary
// files refused with Claude Code's words.
func (t *Tools) Read(ctx context.Context, in ReadInput) (Result, error) {
	if in.FilePath == "" {
		return toolError("InputValidationError: Read failed due to the following issue:\nThe required parameter `file_path` is missing"), nil
	}
	path := t.Path(in.FilePath)
	fi, statErr := os.Stat(path)
	if statErr == nil && fi.IsDir() {
		return failed("EISDIR: illegal operation on a directory, read '%s'", path), nil
	}
	ext := strings.ToLower(filepath.Ext(path))
	switch {
	case imageTypes[ext] != "":
		return t.readImage(path, imageTypes[ext])
	case ext == ".pdf":
		return t.readPDF(path, in.FilePath)
	case ext == ".ipynb":
		return t.readNotebook(ctx, path, in.FilePath)
	case binaryExts[ext] || statErr == nil && fi.Mode().IsRegular() && hasNUL(path):
		return toolError("This tool cannot read binary files. The file appears to be a binary %s file. Use a skill for this file type if one is available, or a shell command or script that can read the format.", ext), nil
	}
	ranged := in.Offset > 0 || in.Limit > 0
	if statErr == nil && !in.AllowLarge && !ranged && fi.Size() > maxReadBytes {
		// Refused before asking the editor for a text it would refuse.
		return tooLarge(fi.Size()), nil
	}
	text, err := t.current(ctx, path)
	switch {
	case errors.Is(err, errMissing):
		return t.missing(), nil
	case ctx.Err() != nil:
		return Result{}, ctx.Err()
	case err != nil:
		return editorFailed("read", path, err), nil
	}
	t.saw(path, text)
	return readText(in, strings.ReplaceAll(text, "\r\n", "\n")), nil
}

// readText cuts the requested lines out of text and numbers them.
func readText(in ReadInput, text string) Result {
	if !in.AllowLarge && in.Offset == 0 && in.Limit == 0 && len(text) > maxReadBytes {
		return tooLarge(int64(len(text)))
	}
	lines := strings.Split(text, "\n")
	start := max(in.Offset, 1)
	file := map[string]any{"filePath": in.FilePath, "content": "", "numLines": 0, "startLine": start, "totalLines": len(lines)}
	structured := map[string]any{"type": "text", "file": file}
	if text == "" {
		file["numLines"] = 1
		return Result{Text: "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>", Structured: structured}
	}
	if start > len(lines) {
		return Result{Text: fmt.Sprintf("<system-reminder>Warning: the file exists but is shorter than the provided offset (%d). The file has %d lines.</system-reminder>", in.Offset, len(lines)), Structured: structured}
	}
	end := len(lines)
	if in.Limit > 0 {
		end = min(start-1+in.Limit, end)
	}
	sel := lines[start-1 : end]
	content := strings.Join(sel, "\n")
	if !in.AllowLarge && len(content) > maxReadBytes {
		return tooLarge(int64(len(content)))
	}
	var b strings.Builder
	b.Grow(len(content) + 8*len(sel))
	for i, l := range sel {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(strconv.Itoa(start + i))
		b.WriteByte('\t')
		b.WriteString(l)
	}
	file["content"], file["numLines"] = content, len(sel)
	return Result{Text: b.String(), Structured: structured}
}

func tooLarge(size int64) Result {
	return failed("File content (%dKB) exceeds maximum allowed size (%dKB). Use offset and limit parameters to read specific portions of the file, or search for specific content instead of reading the whole file. To read it anyway, up to what still fits in your context, call Read again with allow_large: true — only if you genuinely need all of it or the user asked for the whole file.",
		int64(math.Round(float64(size)/1024)), maxReadBytes>>10)
}

// readImage reads an image from the disk: the editor's text API has no
// way to give one.
func (t *Tools) readImage(path, mimeType string) (Result, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return t.missing(), nil
	}
	if err != nil {
		return failed("%v", err), nil
	}
	return Result{
		Image: &Image{Data: data, MIMEType: mimeType},
		Structured: map[string]any{"type": "image", "file": map[string]any{
			"type": mimeType, "originalSize": len(data),
		}},
	}, nil
}

// readPDF reads a PDF from the disk. Claude Code's MCP channel carries no
// documents: the CLI saves the PDF and tells Claude where.
func (t *Tools) readPDF(path, given string) (Result, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return t.missing(), nil
	}
	if err != nil {
		return failed("%v", err), nil
	}
	return Result{
		Text: fmt.Sprintf("PDF file read: %s (%d bytes)", path, len(data)),
		PDF:  data,
		Structured: map[string]any{"type": "pdf", "file": map[string]any{
			"filePath": given, "originalSize": len(data),
		}},
	}, nil
}

// hasNUL reports a file whose first 8 KB hold a NUL byte: not text.
func hasNUL(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, 8<<10)
	n, _ := f.Read(buf)
	return bytes.IndexByte(buf[:n], 0) >= 0
}
