package agent

import (
	"encoding/json"

	"github.com/claude-agent-acp/claude-agent-acp/internal/jsonfast"
)

// The JSON a tool result is made of, decoded on the replay's and the live
// turn's hot path: the tool_result content, a call's structured result,
// the rawOutput sent back. Each shape below is decoded by jsonfast when
// the text is plain (an object with the expected member types, no
// duplicate or case-folded names) and by encoding/json otherwise, so the
// outcome is always encoding/json's (TestResultJSONFastPaths,
// FuzzResultJSON).

// jsonString is s as encoding/json's Marshal writes it.
func jsonString(s string) json.RawMessage {
	return jsonfast.AppendString(make([]byte, 0, len(s)+2+len(s)>>6), s)
}

// contentBlockNames are the members of a claude.ContentBlock; a
// tool_result's blocks are decoded into it.
var contentBlockNames = []string{"type", "text", "thinking", "signature", "data", "id", "name", "input",
	"tool_use_id", "content", "is_error", "source", "citations"}

// resultTextFast is toolResultText for a JSON string or an array of
// blocks; ok is false when encoding/json must decide.
func resultTextFast(raw []byte) (text string, ok bool) {
	var d jsonfast.Dec
	d.Reset(raw)
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
	d.Reset(b)
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
	d.Reset(b)
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

var backgroundNames = []string{"backgroundTaskId"}

// backgroundTaskID is the backgroundTaskId of a Bash call's structured
// result, as encoding/json decodes it ("" when there is none).
func backgroundTaskID(b []byte) string {
	var d jsonfast.Dec
	d.Reset(b)
	if d.Kind() == '{' {
		var id string
		d.Object()
		d.Members(backgroundNames, func(int) { id, _ = d.Str() })
		if d.End() {
			return id
		}
	}
	var r struct {
		BackgroundTaskID string `json:"backgroundTaskId"`
	}
	_ = json.Unmarshal(b, &r)
	return r.BackgroundTaskID
}
