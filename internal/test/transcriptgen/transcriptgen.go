// Package transcriptgen writes synthetic Claude Code session transcripts of
// any length, shaped like the ones the CLI 2.1.332 writes, for replay
// benchmarks and tests. The same files serve both adapters: our Go
// benchmark (agent/replay_bench_test.go) replays them in process, and the
// side-by-side harness (internal/tools/bench) can put them in a sandbox's config
// directory with WriteSession and time session/load of this adapter and of
// the TypeScript reference on them; the real CLI resumes them too.
//
// A transcript is a sequence of turns. A full turn is six message lines: the
// prompt (every third one with an @-mention), an assistant message of
// thinking, text and one tool call (Bash, Read, Edit, Write, Grep and
// TodoWrite in turn, with the structured toolUseResult the CLI stores), the
// tool result, and a closing answer; a last-prompt line follows, as the CLI
// writes one. A turn that does not fit in what is left of Options.Messages
// is a prompt and an answer. With RewindEvery set, the turn after every
// N-th starts from before that turn, as after a rewind, leaving a dead
// branch that a reader must skip. Everything is deterministic in Seed.
package transcriptgen

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/claude/transcript"
)

// Options describe a transcript.
type Options struct {
	// SessionID is the session's id; "" derives a UUID from Seed.
	SessionID string
	// Cwd is the session's working directory; "" is /home/user/project.
	Cwd string
	// Messages is how many message lines (user and assistant) to write;
	// the last turn may add up to five more. At least one turn is written.
	Messages int
	// RewindEvery makes every N-th turn a dead branch; 0 never.
	RewindEvery int
	// Seed varies ids and text.
	Seed int64
	// PermissionMode is recorded with every prompt; "" is "default".
	PermissionMode string
	// ToolOutput is about how many characters of output a Bash or Read
	// call returns (stored twice: the tool result and the structured
	// result); 0 is 900. Real sessions read whole files: a few thousand.
	ToolOutput int
	// Code makes the tool outputs and file contents (Bash, Read, Edit,
	// Write) Go source and test logs instead of plain words: tabs,
	// newlines, quotes, backslashes, <, > and &, now and then a non-ASCII
	// character, with Read results numbered as the CLI numbers them
	// ("12\t…"). About 9% of their bytes are escaped in the JSON line, as in
	// real source (this repository's agent/*.go: 8.7%); plain words have
	// none, and escapes are what a JSON string decoder and encoder are
	// slow on.
	Code bool
}

// Stats describe what was written.
type Stats struct {
	SessionID string
	Lines     int   // all lines, including last-prompt lines
	Messages  int   // user and assistant lines
	Bytes     int64 // size of the file
	// Active is the number of messages on the active branch; Turns and
	// ToolCalls count the prompts and tool calls on it, Tools the calls
	// per tool name.
	Active, Turns, ToolCalls int
	Tools                    map[string]int
}

// WriteSession writes a transcript where the CLI keeps the sessions of
// o.Cwd under configDir (see transcript.ProjectDir) and returns its path.
func WriteSession(configDir string, o Options) (path string, st Stats, err error) {
	o = o.withDefaults()
	dir := transcript.ProjectDir(configDir, o.Cwd)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", Stats{}, err
	}
	path = filepath.Join(dir, o.SessionID+".jsonl")
	f, err := os.Create(path)
	if err != nil {
		return "", Stats{}, err
	}
	st, err = Write(f, o)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return path, st, err
}

func (o Options) withDefaults() Options {
	if o.SessionID == "" {
		o.SessionID = fmt.Sprintf("%08x-5e55-4000-8000-%012x", uint32(o.Seed), uint64(o.Seed)&0xffffffffffff)
	}
	if o.Cwd == "" {
		o.Cwd = "/home/user/project"
	}
	if o.PermissionMode == "" {
		o.PermissionMode = "default"
	}
	if o.ToolOutput <= 0 {
		o.ToolOutput = 900
	}
	return o
}

// Write writes a transcript to w.
//
// The same options always give the same transcript, so one generated for
// other options that differ only in Cwd is reused with the directory
// substituted: tests that give each run its own directory (a sandbox per
// subtest) generate a long transcript once per process, not once per run.
// Under the race detector a 20,000-message transcript takes about a second
// of CPU to generate.
func Write(w io.Writer, o Options) (Stats, error) {
	o = o.withDefaults()
	data, st, err := generated(o)
	if err != nil {
		return Stats{}, err
	}
	n, err := w.Write(data)
	st.Bytes = int64(n)
	return st, err
}

// cwdPlaceholder stands for Options.Cwd in a cached transcript. It needs
// no JSON escaping and occurs nowhere else.
const cwdPlaceholder = "/transcriptgen-cwd-3f1c9e"

// cacheLimit bounds the transcripts kept: bigger ones are generated anew
// each time (benchmarks' hundreds of MB are not worth holding).
const cacheLimit = 32 << 20

var cache sync.Map // Options with Cwd = cwdPlaceholder → *cachedTranscript

type cachedTranscript struct {
	once sync.Once
	data []byte
	st   Stats
	err  error
}

// generated returns the transcript for o, from the cache when it can.
func generated(o Options) ([]byte, Stats, error) {
	key := o
	key.Cwd = cwdPlaceholder
	v, _ := cache.LoadOrStore(key, &cachedTranscript{})
	c := v.(*cachedTranscript)
	c.once.Do(func() {
		var buf bytes.Buffer
		c.st, c.err = generate(&buf, key)
		c.st.Tools = maps.Clone(c.st.Tools)
		c.data = buf.Bytes()
	})
	if c.err != nil || len(c.data) > cacheLimit {
		cache.Delete(key)
		if c.err != nil {
			return nil, Stats{}, c.err
		}
	}
	st := c.st
	st.Tools = maps.Clone(c.st.Tools)
	if o.Cwd == cwdPlaceholder {
		return c.data, st, nil
	}
	return bytes.ReplaceAll(c.data, []byte(cwdPlaceholder), jsonEscaped(o.Cwd)), st, nil
}

// jsonEscaped is s as it appears inside a JSON string written by Write.
func jsonEscaped(s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	return b[1 : len(b)-1]
}

// generate writes the transcript for o (with its defaults) to w.
func generate(w io.Writer, o Options) (Stats, error) {
	g := &gen{o: o, w: bufio.NewWriterSize(w, 64<<10), st: Stats{SessionID: o.SessionID, Tools: map[string]int{}}, rnd: uint64(o.Seed)*2654435761 + 1}
	g.t = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	g.enc = json.NewEncoder(&g.line)
	g.enc.SetEscapeHTML(false) // as the CLI's JSON.stringify
	parent := ""
	for turn := 0; turn == 0 || g.st.Messages < o.Messages; turn++ {
		start, startActive := parent, g.st.Active
		startTurns, startTools, startByName := g.st.Turns, g.st.ToolCalls, maps.Clone(g.st.Tools)
		if o.Messages-g.st.Messages >= 6 {
			parent = g.fullTurn(turn, parent)
		} else {
			parent = g.shortTurn(turn, parent)
		}
		if o.RewindEvery > 0 && turn%o.RewindEvery == o.RewindEvery-1 && g.st.Messages < o.Messages {
			// The user rewinds this turn: the next one continues from its
			// start, and this one is a dead branch.
			parent = start
			g.st.Active, g.st.Turns, g.st.ToolCalls, g.st.Tools = startActive, startTurns, startTools, startByName
		}
	}
	if g.err == nil {
		g.err = g.w.Flush()
	}
	return g.st, g.err
}

type gen struct {
	o    Options
	w    *bufio.Writer
	st   Stats
	err  error
	n    int // ids handed out
	rnd  uint64
	t    time.Time
	line bytes.Buffer
	enc  *json.Encoder // writes to line
}

type obj = map[string]any

func (g *gen) id() string {
	g.n++
	return fmt.Sprintf("%08x-0000-4000-8000-%012x", uint32(g.o.Seed), g.n)
}

var vocabulary = strings.Fields(`the test handler returns error when config file is missing so we
read parse value session request client server build module package function method struct field
check update fix change add remove rename log trace cache index query buffer stream line output`)

// next returns a pseudo-random number below n.
func (g *gen) next(n int) int {
	g.rnd = g.rnd*6364136223846793005 + 1442695040888963407
	return int((g.rnd >> 33) % uint64(n))
}

func (g *gen) word() string { return vocabulary[g.next(len(vocabulary))] }

// codeLines are the shapes of the source lines code writes; each %s is a
// word. Indentation is tabs, as gofmt writes it.
var codeLines = []string{
	"func (s *%s) %s(ctx context.Context, req *Request) (*Response, error) {",
	"\tif err := s.%s(ctx, \"%s\"); err != nil {",
	"\t\treturn nil, fmt.Errorf(\"%s %s: %%w\", err)",
	"\t}",
	"\tfor i, v := range s.%s {",
	"\t\tif v == nil || len(v.%s) == 0 && i > 0 {",
	"\t\t\tcontinue",
	"\t\t}",
	"\t\tlines := strings.Split(v.%s, \"\\n\")",
	"\t\tout <- fmt.Sprintf(\"%%s\\t%%q\", lines[0], v.%s)",
	"\t// %s the %s before it is read: see %s.go",
	"\t%s := map[string]any{\"%s\": true, \"path\": `C:\\Users\\%s`}",
	"\treturn &Response{Value: %s}, nil // “%s” → %s",
	"}",
	"",
}

// code returns about n characters of Go source.
func (g *gen) code(n int) string {
	var sb strings.Builder
	for sb.Len() < n {
		shape := codeLines[g.next(len(codeLines))]
		args := make([]any, strings.Count(shape, "%s"))
		for i := range args {
			args[i] = g.word()
		}
		fmt.Fprintf(&sb, shape, args...)
		sb.WriteByte('\n')
	}
	return sb.String()
}

// testLog returns about n characters of `go test -v` output.
func (g *gen) testLog(n int) string {
	var sb strings.Builder
	for sb.Len() < n {
		w := g.word()
		name := "Test" + strings.ToUpper(w[:1]) + w[1:]
		fmt.Fprintf(&sb, "=== RUN   %s\n", name)
		if g.next(4) == 0 {
			fmt.Fprintf(&sb, "    %s_test.go:%d: got \"%s\", want \"%s\" (<nil> && ok)\n", g.word(), 10+g.next(400), g.word(), g.word())
			fmt.Fprintf(&sb, "--- FAIL: %s (0.%02ds)\n", name, g.next(100))
		} else {
			fmt.Fprintf(&sb, "--- PASS: %s (0.%02ds)\n", name, g.next(100))
		}
	}
	sb.WriteString("FAIL\nFAIL\tgithub.com/acme/project/pkg\t0.412s\n")
	return sb.String()
}

// numbered is a file's text as the CLI's Read returns it: each line
// after its number and a tab.
func numbered(text string) string {
	var sb strings.Builder
	for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		fmt.Fprintf(&sb, "%d\t%s\n", i+1, line)
	}
	return strings.TrimSuffix(sb.String(), "\n")
}

// words returns about n characters of text.
func (g *gen) words(n int) string {
	var sb strings.Builder
	for sb.Len() < n {
		sb.WriteString(g.word())
		sb.WriteByte(' ')
	}
	return strings.TrimSpace(sb.String())
}

// put writes one line as the CLI does (JSON.stringify): <, > and & are
// not escaped.
func (g *gen) put(m obj) {
	if g.err != nil {
		return
	}
	g.line.Reset()
	if err := g.enc.Encode(m); err != nil { // Encode ends the line with \n
		g.err = err
		return
	}
	n, err := g.w.Write(g.line.Bytes())
	g.st.Bytes += int64(n)
	g.st.Lines++
	g.err = err
}

// message writes a user or assistant line and returns its uuid.
func (g *gen) message(typ, parent string, m obj) string {
	id := g.id()
	g.t = g.t.Add(1500 * time.Millisecond)
	var p any
	if parent != "" {
		p = parent
	}
	m["type"], m["uuid"], m["parentUuid"], m["isSidechain"] = typ, id, p, false
	m["timestamp"] = g.t.Format("2006-01-02T15:04:05.000Z")
	m["userType"], m["entrypoint"], m["cwd"], m["sessionId"] = "external", "sdk-ts", g.o.Cwd, g.o.SessionID
	m["version"], m["gitBranch"] = "2.1.332", "main"
	g.put(m)
	g.st.Messages++
	g.st.Active++
	return id
}

func (g *gen) prompt(turn int, parent string) string {
	content := []any{obj{"type": "text", "text": fmt.Sprintf("Turn %d: %s", turn, g.words(240))}}
	if turn%3 == 2 {
		content = append(content, obj{"type": "text", "text": "[@main.go](file://" + g.o.Cwd + "/main.go)"})
	}
	g.st.Turns++
	return g.message("user", parent, obj{
		"message": obj{"role": "user", "content": content}, "permissionMode": g.o.PermissionMode, "promptId": g.id(),
	})
}

func (g *gen) assistant(parent, msgID, stop string, block obj) string {
	return g.message("assistant", parent, obj{
		"message": obj{
			"id": msgID, "type": "message", "role": "assistant", "model": "claude-opus-5-5",
			"content": []any{block}, "stop_reason": stop, "stop_sequence": nil,
			"usage": obj{"input_tokens": 1200, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 300},
		},
		"requestId": "req_" + msgID[4:], "madeBy": "model",
	})
}

func (g *gen) lastPrompt(leaf string) {
	g.put(obj{"type": "last-prompt", "lastPrompt": "Turn", "leafUuid": leaf, "sessionId": g.o.SessionID})
}

func (g *gen) shortTurn(turn int, parent string) string {
	p := g.prompt(turn, parent)
	a := g.assistant(p, fmt.Sprintf("msg_%08x%06x", uint32(g.o.Seed), g.n), "end_turn", obj{"type": "text", "text": g.words(300)})
	g.lastPrompt(a)
	return a
}

func (g *gen) fullTurn(turn int, parent string) string {
	p := g.prompt(turn, parent)
	msg := fmt.Sprintf("msg_%08x%06x", uint32(g.o.Seed), g.n)
	a := g.assistant(p, msg, "tool_use", obj{"type": "thinking", "thinking": g.words(500), "signature": strings.Repeat("c2ln", 40)})
	a = g.assistant(a, msg, "tool_use", obj{"type": "text", "text": g.words(200)})
	toolID := fmt.Sprintf("toolu_%08x%06x", uint32(g.o.Seed), g.n)
	name, input, result, structured := g.tool(turn)
	a = g.assistant(a, msg, "tool_use", obj{"type": "tool_use", "id": toolID, "name": name, "input": input})
	g.st.ToolCalls++
	g.st.Tools[name]++
	r := g.message("user", a, obj{
		"message": obj{"role": "user", "content": []any{
			obj{"type": "tool_result", "tool_use_id": toolID, "content": result, "is_error": false}}},
		"toolUseResult": structured, "sourceToolAssistantUUID": a, "promptId": g.id(),
	})
	end := g.assistant(r, fmt.Sprintf("msg_%08x%06x", uint32(g.o.Seed), g.n), "end_turn", obj{"type": "text", "text": g.words(300)})
	g.lastPrompt(end)
	return end
}

// tool returns one of six tool calls with its result text and the
// structured result the CLI stores next to it.
func (g *gen) tool(turn int) (name string, input obj, result string, structured obj) {
	file := fmt.Sprintf("%s/pkg/file%d.go", g.o.Cwd, turn%17)
	if g.o.Code {
		if name, input, result, structured, ok := g.codeTool(turn, file); ok {
			return name, input, result, structured
		}
	}
	switch turn % 6 {
	case 0:
		out := g.words(g.o.ToolOutput)
		return "Bash", obj{"command": "go test ./...", "description": "Run the tests"}, out,
			obj{"stdout": out, "stderr": "", "interrupted": false, "isImage": false}
	case 1:
		lines := g.words(g.o.ToolOutput)
		return "Read", obj{"file_path": file}, "     1\t" + strings.ReplaceAll(lines, " the ", "\n     2\t"),
			obj{"type": "text", "file": obj{"filePath": file, "content": lines, "numLines": 20, "startLine": 1, "totalLines": 20}}
	case 2:
		oldS, newS := g.words(80), g.words(90)
		return "Edit", obj{"file_path": file, "old_string": oldS, "new_string": newS},
			"The file " + file + " has been updated successfully.",
			obj{"filePath": file, "oldString": oldS, "newString": newS, "originalFile": oldS + "\n" + g.words(400),
				"structuredPatch": []any{obj{"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1,
					"lines": []any{"-" + oldS, "+" + newS}}}, "userModified": false, "replaceAll": false}
	case 3:
		content := g.words(700)
		return "Write", obj{"file_path": file, "content": content},
			"File created successfully at: " + file,
			obj{"type": "create", "filePath": file, "content": content, "structuredPatch": []any{}, "originalFile": nil}
	case 4:
		return "Grep", obj{"pattern": "func Test", "path": g.o.Cwd, "output_mode": "files_with_matches"},
			"Found 3 files\n" + file + "\n" + g.o.Cwd + "/a_test.go\n" + g.o.Cwd + "/b_test.go",
			obj{"mode": "files_with_matches", "filenames": []any{file, "a_test.go", "b_test.go"}, "numFiles": 3}
	default:
		todos := []any{
			obj{"content": "Fix the handler", "status": "completed", "activeForm": "Fixing the handler"},
			obj{"content": "Run the tests", "status": "in_progress", "activeForm": "Running the tests"},
			obj{"content": "Update the docs", "status": "pending", "activeForm": "Updating the docs"},
		}
		return "TodoWrite", obj{"todos": todos},
			"Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress.",
			obj{"oldTodos": []any{}, "newTodos": todos}
	}
}

// codeTool is tool for Options.Code: Bash, Read, Edit and Write on source
// code and test logs (ok false for the others, which are the same either
// way).
func (g *gen) codeTool(turn int, file string) (name string, input obj, result string, structured obj, ok bool) {
	switch turn % 6 {
	case 0:
		out := g.testLog(g.o.ToolOutput)
		return "Bash", obj{"command": "go test ./...", "description": "Run the tests"}, out,
			obj{"stdout": out, "stderr": "", "interrupted": false, "isImage": false, "noOutputExpected": false}, true
	case 1:
		content := g.code(g.o.ToolOutput)
		lines := strings.Count(content, "\n") + 1
		return "Read", obj{"file_path": file}, numbered(content),
			obj{"type": "text", "file": obj{"filePath": file, "content": content, "numLines": lines, "startLine": 1, "totalLines": lines}}, true
	case 2:
		oldS, newS := g.code(80), g.code(90)
		return "Edit", obj{"file_path": file, "old_string": oldS, "new_string": newS},
			"The file " + file + " has been updated successfully.",
			obj{"filePath": file, "oldString": oldS, "newString": newS, "originalFile": oldS + g.code(400),
				"structuredPatch": []any{obj{"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1,
					"lines": []any{"-" + oldS, "+" + newS}}}, "userModified": false, "replaceAll": false}, true
	case 3:
		content := g.code(700)
		return "Write", obj{"file_path": file, "content": content},
			"File created successfully at: " + file,
			obj{"type": "create", "filePath": file, "content": content, "structuredPatch": []any{}, "originalFile": nil}, true
	}
	return "", nil, "", nil, false
}
