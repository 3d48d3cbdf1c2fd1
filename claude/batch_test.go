package claude

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// npm's cmd-shim output (v6+) for a native target and for a node script,
// with CRLF line endings as written on Windows.
const (
	shimNative = "@ECHO off\r\nGOTO start\r\n:find_dp0\r\nSET dp0=%~dp0\r\nEXIT /b\r\n:start\r\nSETLOCAL\r\nCALL :find_dp0\r\n" +
		`"%dp0%\node_modules\@anthropic-ai\claude-code\bin\claude.exe"   %*` + "\r\n"
	shimNode = "@ECHO off\r\nGOTO start\r\n:find_dp0\r\nSET dp0=%~dp0\r\nEXIT /b\r\n:start\r\nSETLOCAL\r\nCALL :find_dp0\r\n\r\n" +
		"IF EXIST \"%dp0%\\node.exe\" (\r\n  SET \"_prog=%dp0%\\node.exe\"\r\n) ELSE (\r\n  SET \"_prog=node\"\r\n  SET PATHEXT=%PATHEXT:;.JS;=;%\r\n)\r\n\r\n" +
		`endLocal & goto #_undefined_# 2>NUL || title %COMSPEC% & "%_prog%"  "%dp0%\node_modules\@anthropic-ai\claude-code\cli.js" %*` + "\r\n"
	// An older shim form (npm 6) that names %~dp0 directly.
	shimOld = "@IF EXIST \"%~dp0\\node.exe\" (\r\n  \"%~dp0\\node.exe\"  \"%~dp0\\..\\lib\\cli.js\" %*\r\n) ELSE (\r\n  @SETLOCAL\r\n  node  \"%~dp0\\..\\lib\\cli.js\" %*\r\n)\r\n"
)

func writeFile(t *testing.T, path, body string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestBatchCommandResolvesShims(t *testing.T) {
	t.Parallel()
	dir := tempDir(t)
	bin := filepath.Join(dir, "npm")
	exe := writeFile(t, filepath.Join(bin, "node_modules", "@anthropic-ai", "claude-code", "bin", "claude.exe"), "")
	js := writeFile(t, filepath.Join(bin, "node_modules", "@anthropic-ai", "claude-code", "cli.js"), "")
	oldJS := writeFile(t, filepath.Join(dir, "lib", "cli.js"), "")
	native := writeFile(t, filepath.Join(bin, "claude.cmd"), shimNative)
	viaNode := writeFile(t, filepath.Join(bin, "claude-js.cmd"), shimNode)
	old := writeFile(t, filepath.Join(dir, "old", "claude.cmd"), shimOld)
	broken := writeFile(t, filepath.Join(dir, "gone", "claude.cmd"), shimNative) // target missing
	plain := writeFile(t, filepath.Join(dir, "plain.bat"), "@echo %*\r\n")
	noNode := func() (string, error) { return "", errors.New("no node") }
	pathNode := func() (string, error) { return "/usr/bin/node", nil }
	args := []string{"--mcp-config", `{"mcpServers":{"a":{"command":"x & y"}}}`}

	for _, tt := range []struct {
		name     string
		path     string
		look     func() (string, error)
		nodeExe  bool // a node.exe beside the shim
		wantArgv []string
	}{
		{name: "native target", path: native, look: noNode, wantArgv: append([]string{exe}, args...)},
		{name: "node on PATH", path: viaNode, look: pathNode, wantArgv: append([]string{"/usr/bin/node", js}, args...)},
		{name: "node beside the shim", path: viaNode, look: noNode, nodeExe: true,
			wantArgv: append([]string{filepath.Join(bin, "node.exe"), js}, args...)},
		{name: "old shim", path: old, look: pathNode, wantArgv: append([]string{"/usr/bin/node", oldJS}, args...)},
		{name: "no node: cmd.exe", path: viaNode, look: noNode},
		{name: "missing target: cmd.exe", path: broken, look: pathNode},
		{name: "not a shim: cmd.exe", path: plain, look: pathNode},
	} {
		// Not parallel: the subtests share the node.exe beside the shim.
		t.Run(tt.name, func(t *testing.T) {
			node := filepath.Join(bin, "node.exe")
			if tt.nodeExe {
				writeFile(t, node, "")
				defer os.Remove(node)
			}
			argv, line := batchCommand(tt.path, args, `C:\Windows\System32\cmd.exe`, tt.look)
			if diff := cmp.Diff(tt.wantArgv, argv); diff != "" {
				t.Errorf("argv (-want +got):\n%s", diff)
			}
			if tt.wantArgv == nil && !strings.HasPrefix(line, `"C:\Windows\System32\cmd.exe" /d /s /c "`) {
				t.Errorf("command line %q", line)
			}
			if tt.wantArgv != nil && line != "" {
				t.Errorf("command line %q beside argv", line)
			}
		})
	}
}

func TestCmdExeLine(t *testing.T) {
	t.Parallel()
	got := cmdExeLine(`C:\cmd.exe`, `C:\Program Files\x.bat`, []string{`a b`, `{"k":"v&w"}`, `100%`, `tail\`, ``})
	want := `"C:\cmd.exe" /d /s /c "C:\Program^ Files\x.bat ^^^"a^^^ b^^^" ^^^"{\^^^"k\^^^":\^^^"v^^^&w\^^^"}^^^" ^^^"100^^^%^^^" ^^^"tail\\^^^" ^^^"^^^""`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestQuoteArg(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		``:         `""`,
		`plain`:    `"plain"`,
		`a"b`:      `"a\"b"`,
		`a\"b`:     `"a\\\"b"`,
		`dir\`:     `"dir\\"`,
		`C:\x\y`:   `"C:\x\y"`,
		`{"a":1}`:  `"{\"a\":1}"`,
		`two\\"q"`: `"two\\\\\"q\""`,
	} {
		if got := quoteArg(in); got != want {
			t.Errorf("quoteArg(%q) = %s, want %s", in, got, want)
		}
	}
}
