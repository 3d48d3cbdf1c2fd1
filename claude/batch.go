package claude

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// On Windows `claude` on PATH is usually claude.cmd, the shim npm writes
// for a global install. Run as it is, a batch file goes through cmd.exe,
// which parses the command line again: the JSON of --mcp-config and
// --settings would be mangled (quotes, ^, &, %). So a batch file is run
// through what it starts: the shim's target, directly or with node. Only a
// batch file that is not a shim we can read goes through cmd.exe, with every
// argument escaped for it. The functions here are portable so that their
// tests run everywhere; sys_windows.go applies them.

// isBatch reports whether path names a batch file (.cmd or .bat).
func isBatch(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	return ext == ".cmd" || ext == ".bat"
}

// shimTargetRE matches the paths npm's, pnpm's and yarn's cmd shims run,
// written relative to the shim's own directory: "%dp0%\…" or "%~dp0\…".
var shimTargetRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`"%(?:dp0%|~dp0)\\?([^"%]+)"`)
})

// maxShimSize bounds the batch file read in search of a shim target; real
// shims are under 1 KiB.
const maxShimSize = 64 << 10

// batchCommand returns how to run the batch file path with args: argv to run
// directly when path is a shim whose target is known, or else cmd.exe's
// full command line (comspec is cmd.exe) with everything escaped for it.
// lookNode finds node when the shim runs a script and has no node.exe
// beside it.
func batchCommand(path string, args []string, comspec string, lookNode func() (string, error)) (argv []string, cmdLine string) {
	if argv, ok := shimArgv(path, lookNode); ok {
		return append(argv, args...), ""
	}
	return nil, cmdExeLine(comspec, path, args)
}

// shimArgv reads the shim at path and returns the program and leading
// arguments it runs, with the shim's directory filled in.
func shimArgv(path string, lookNode func() (string, error)) ([]string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	buf := make([]byte, maxShimSize)
	n, _ := f.Read(buf)
	script := buf[:n]
	dir := filepath.Dir(path)
	var target string
	for _, m := range shimTargetRE().FindAllSubmatch(script, -1) {
		rel := filepath.FromSlash(strings.ReplaceAll(string(m[1]), `\`, "/"))
		if strings.EqualFold(filepath.Base(rel), "node.exe") {
			continue // the IF EXIST "%dp0%\node.exe" probe
		}
		target = filepath.Join(dir, rel)
	}
	if target == "" {
		return nil, false
	}
	if _, err := os.Stat(target); err != nil {
		return nil, false
	}
	ext := strings.ToLower(filepath.Ext(target))
	viaNode := bytes.Contains(script, []byte("_prog")) || ext == ".js" || ext == ".cjs" || ext == ".mjs"
	if !viaNode {
		if isBatch(target) {
			return nil, false
		}
		return []string{target}, true
	}
	node := filepath.Join(dir, "node.exe")
	if _, err := os.Stat(node); err != nil {
		if node, err = lookNode(); err != nil {
			return nil, false
		}
	}
	return []string{node, target}, true
}

// cmdMeta are the characters cmd.exe gives a meaning to; each is escaped
// with ^ (the escaping of the cross-spawn npm package, which npm itself
// relies on).
var cmdMeta = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("([()\\][%!^\"`<>&|;, *?])")
})

// cmdExeLine is the command line that runs the batch file path with args
// through cmd.exe such that a program the batch file passes %* to gets args
// exactly. cmd.exe parses the arguments twice, once for /c and once more
// when the batch file's line with %* runs, so each argument is escaped
// twice (every quote too, which keeps cmd.exe's quote state from toggling);
// this is what cross-spawn does for npm's shims. A "%" may still be
// expanded by the batch file; the shims npm writes never get here.
func cmdExeLine(comspec, path string, args []string) string {
	var b strings.Builder
	b.WriteString(cmdMeta().ReplaceAllString(path, "^$1"))
	for _, a := range args {
		b.WriteByte(' ')
		b.WriteString(cmdEscape(cmdEscape(quoteArg(a))))
	}
	return `"` + comspec + `" /d /s /c "` + b.String() + `"`
}

func cmdEscape(s string) string { return cmdMeta().ReplaceAllString(s, "^$1") }

// quoteArg quotes a for the C runtime's argument parser: inside double
// quotes, a quote is written \" and the backslashes before a quote or the
// closing quote are doubled.
func quoteArg(a string) string {
	var b strings.Builder
	b.WriteByte('"')
	slashes := 0
	for i := 0; i < len(a); i++ {
		c := a[i]
		switch c {
		case '\\':
			slashes++
			continue
		case '"':
			b.WriteString(strings.Repeat(`\`, 2*slashes+1))
		default:
			b.WriteString(strings.Repeat(`\`, slashes))
		}
		slashes = 0
		b.WriteByte(c)
	}
	b.WriteString(strings.Repeat(`\`, 2*slashes))
	b.WriteByte('"')
	return b.String()
}
