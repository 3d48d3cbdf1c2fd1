package translate

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"hash/maphash"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/jsonfast"
)

// The JSON a tool result is made of, decoded on the replay's and the live
// turn's hot path: the tool_result content, a call's structured result,
// the rawOutput sent back. Each shape below is decoded by jsonfast when
// the text is plain (an object with the expected member types, no
// duplicate or case-folded names) and by encoding/json otherwise, so the
// outcome is always encoding/json's (TestResultJSONFastPaths,
// FuzzResultJSON). The JSON is a CLI frame's or a transcript record's own
// copy, never changed: decoded strings share its memory
// (jsonfast.ResetShared) instead of copying whole files and command
// outputs.

// jsonString is s as encoding/json's Marshal writes it.
func jsonString(s string) json.RawMessage {
	return jsonfast.AppendString(make([]byte, 0, len(s)+2+len(s)>>6), s)
}

// resultRaw is a tool result's rawOutput: the tool_result content exactly
// as the CLI wrote it when that is one JSON string (the reference
// adapter's rawOutput is that value), else text (what its blocks hold) as
// a JSON string. Reusing the CLI's bytes spares escaping a long output
// (a whole file, a test log) again, on every live result and replayed one.
func resultRaw(content json.RawMessage, text string) json.RawMessage {
	if c := quoted(content); c != nil {
		return c
	}
	return jsonString(text)
}

// stringBytes is the raw bytes between the quotes of content when it is
// one JSON string, else nil.
func stringBytes(content json.RawMessage) []byte {
	if c := quoted(content); c != nil {
		return c[1 : len(c)-1]
	}
	return nil
}

// quoted is content without surrounding space when it is one JSON string
// (a decoded value, so valid), else nil.
func quoted(content json.RawMessage) []byte {
	if c := bytes.TrimSpace(content); len(c) >= 2 && c[0] == '"' {
		return c
	}
	return nil
}

// claudeCodeMeta is the claudeCode object of a tool report's _meta, as
// encoding/json writes the map {"toolName", "parentToolUseId" when set,
// "subagent" when true} (keys in order, strings escaped alike).
func claudeCodeMeta(toolName, parent string, subagent bool) json.RawMessage {
	b := make([]byte, 0, 32+len(toolName)+len(parent))
	b = append(b, '{')
	if parent != "" {
		b = append(b, `"parentToolUseId":`...)
		b = jsonfast.AppendString(b, parent)
		b = append(b, ',')
	}
	if subagent {
		b = append(b, `"subagent":true,`...)
	}
	b = append(b, `"toolName":`...)
	b = jsonfast.AppendString(b, toolName)
	return append(b, '}')
}

// contentBlockNames are the members of a claude.ContentBlock; a
// tool_result's blocks are decoded into it.
var contentBlockNames = []string{"type", "text", "thinking", "signature", "data", "id", "name", "input",
	"tool_use_id", "content", "is_error", "source", "citations"}

// resultTextFast is toolResultText for a JSON string or an array of
// blocks; ok is false when encoding/json must decide.
func resultTextFast(raw []byte) (text string, ok bool) {
	var d jsonfast.Dec
	d.ResetShared(raw)
	switch d.Kind() {
	case '"':
		s, _ := d.Str()
		return s, d.End()
	case '[':
	default:
		return "", false
	}
	d.Array()
	var parts []string
	for more := d.FirstElem(); more; more = d.NextElem() {
		if d.Kind() != '{' {
			return "", false
		}
		d.Object()
		var typ, txt string
		d.Members(contentBlockNames, func(i int) {
			switch i {
			case 0:
				typ, _ = d.Str()
			case 1:
				txt, _ = d.Str()
			case 2, 3, 4, 5, 6, 8:
				d.StrRaw()
			case 10:
				d.Bool()
			default:
				d.Skip()
			}
		})
		if typ == "text" && txt != "" {
			parts = append(parts, txt)
		}
	}
	if !d.End() {
		return "", false
	}
	switch len(parts) {
	case 0:
		return "", true
	case 1:
		return parts[0], true
	}
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	b := make([]byte, 0, n)
	for _, p := range parts {
		b = append(b, p...)
	}
	return string(b), true
}

// readStructured is a Read call's structured result.
type readStructured struct {
	Type string             `json:"type"`
	File readFileStructured `json:"file"`
}

type readFileStructured struct {
	FilePath   string `json:"filePath"`
	Content    string `json:"content"`
	StartLine  int    `json:"startLine"`
	NumLines   int    `json:"numLines"`
	TotalLines int    `json:"totalLines"`
	Base64     string `json:"base64"`
	MediaType  string `json:"type"`
}

var (
	readNames     = []string{"type", "file"}
	readFileNames = []string{"filePath", "content", "startLine", "numLines", "totalLines", "base64", "type"}
)

// decode leaves r as encoding/json's Unmarshal of b would (its error is
// not wanted).
func (r *readStructured) decode(b []byte) {
	var d jsonfast.Dec
	d.ResetShared(b)
	if d.Kind() == '{' {
		var f readStructured
		d.Object()
		d.Members(readNames, func(i int) {
			if i == 0 {
				f.Type, _ = d.Str()
				return
			}
			if !d.Object() {
				return
			}
			d.Members(readFileNames, func(i int) {
				fl := &f.File
				switch i {
				case 0:
					fl.FilePath, _ = d.Str()
				case 1:
					fl.Content, _ = d.Str()
				case 2:
					fl.StartLine = intOf(&d)
				case 3:
					fl.NumLines = intOf(&d)
				case 4:
					fl.TotalLines = intOf(&d)
				case 5:
					fl.Base64, _ = d.Str()
				case 6:
					fl.MediaType, _ = d.Str()
				}
			})
		})
		if d.End() {
			*r = f
			return
		}
	}
	*r = readStructured{}
	_ = json.Unmarshal(b, r)
}

// intOf decodes a number into an int as encoding/json does (null is 0;
// anything it would refuse sets Odd).
func intOf(d *jsonfast.Dec) int {
	n, ok := d.Int()
	if ok && int64(int(n)) != n {
		d.SetOdd()
	}
	return int(n)
}

// editStructured is an edit's structured result.
type editStructured struct {
	Type            string          `json:"type"`
	FilePath        string          `json:"filePath"`
	Content         string          `json:"content"`
	StructuredPatch json.RawMessage `json:"structuredPatch"`
}

var editNames = []string{"type", "filePath", "content", "structuredPatch"}

// decode reports whether encoding/json's Unmarshal of b into r succeeds,
// leaving r as it would. StructuredPatch is b's own bytes.
func (r *editStructured) decode(b []byte) bool {
	var d jsonfast.Dec
	d.ResetShared(b)
	if d.Kind() == '{' {
		var f editStructured
		d.Object()
		d.Members(editNames, func(i int) {
			switch i {
			case 0:
				f.Type, _ = d.Str()
			case 1:
				f.FilePath, _ = d.Str()
			case 2:
				f.Content, _ = d.Str()
			case 3:
				f.StructuredPatch = d.Raw()
			}
		})
		if d.End() {
			*r = f
			return true
		}
	}
	*r = editStructured{}
	return json.Unmarshal(b, r) == nil
}

// contentKey is viewKey for a call's content, without encoding the plain
// variants: text content, diffs and terminals with no annotations, meta
// or extra members are hashed field by field (each string with its
// length, each variant with its own tag), any other item by its JSON.
// Equal content gives equal keys, as with viewKey; the content of a
// result is often a whole file or a long command output, which its
// notification encodes anyway.
func (tr *Translator) contentKey(c []acp.ToolCallContent) uint64 {
	if c == nil {
		return 0
	}
	var h maphash.Hash
	h.SetSeed(viewKeySeed)
	var n [8]byte
	str := func(tag byte, s string) {
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		h.WriteByte(tag)
		h.Write(n[:])
		h.WriteString(s)
	}
	h.WriteByte('[')
	for i := range c {
		it := &c[i]
		switch {
		case it.Content != nil && it.Diff == nil && it.Terminal == nil && it.Unknown == nil && plainText(it.Content):
			str('t', it.Content.Content.Text.Text)
		case it.Diff != nil && it.Content == nil && it.Terminal == nil && it.Unknown == nil &&
			it.Diff.Meta == nil && len(it.Diff.Extra) == 0 && !it.Diff.OldText.IsNull():
			str('d', it.Diff.Path)
			if old, ok := it.Diff.OldText.Get(); ok {
				str('o', old)
			}
			str('n', it.Diff.NewText)
		case it.Terminal != nil && it.Content == nil && it.Diff == nil && it.Unknown == nil &&
			it.Terminal.Meta == nil && len(it.Terminal.Extra) == 0:
			str('x', string(it.Terminal.TerminalID))
		default:
			b, err := acp.AppendJSON(tr.keyBuf[:0], it)
			if err != nil {
				b = mustJSON(it)
			}
			tr.keyBuf = b
			str('j', string(b))
		}
	}
	return h.Sum64() | 1 // never the key of nil
}

// plainText reports content that is a text block and nothing more.
func plainText(c *acp.Content) bool {
	b := &c.Content
	return c.Meta == nil && len(c.Extra) == 0 && b.Text != nil && b.Text.Annotations == nil &&
		b.Text.Meta == nil && len(b.Text.Extra) == 0 && b.Image == nil && b.Audio == nil &&
		b.ResourceLink == nil && b.Resource == nil && b.Unknown == nil
}
