package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestGeneratedFilesAreCurrent regenerates every shapes_gen.go of the
// module in memory and fails when one differs: run go generate in its
// package.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (d.Name()[0] == '.' || d.Name() == "node_modules" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.Name() != outputName {
			return nil
		}
		found++
		dir := filepath.Dir(path)
		want, err := generate(dir)
		if err != nil {
			t.Errorf("%s: %v", dir, err)
			return nil
		}
		got, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if !bytes.Equal(got, want) {
			rel, _ := filepath.Rel(root, dir)
			t.Errorf("%s is stale: run go generate ./%s", filepath.Join(rel, outputName), rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found == 0 {
		t.Fatal("no shapes_gen.go found")
	}
}

func TestGoName(t *testing.T) {
	for in, want := range map[string]string{
		"type": "Type", "session_id": "SessionID", "parent_tool_use_id": "ParentToolUseID", "parentUuid": "ParentUUID",
		"isApiErrorMessage": "IsAPIErrorMessage", "sourceToolAssistantUUID": "SourceToolAssistantUUID",
		"user_message_uuids": "UserMessageUUIDs", "ttft_ms": "TTFTMS", "cwd": "CWD", "partial_json": "PartialJSON",
	} {
		if got := goName(in); got != want {
			t.Errorf("goName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestScanRejects(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"twice.go": "package p\n\n//jsonfast:shape s a b a\n",
		"clash.go": "package p\n\n//jsonfast:shape s a_b aB\n",
		"empty.go": "package p\n\n//jsonfast:shape s\n",
	} {
		sub := filepath.Join(dir, name[:len(name)-3])
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sub, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := generate(sub); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
