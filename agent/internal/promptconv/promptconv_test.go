package promptconv

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
	"github.com/claude-agent-acp/claude-agent-acp/claude/transcript"
)

// FuzzPromptContent feeds arbitrary session/prompt content through the
// ACP decoder and the mapping to a Claude user message. Whatever the
// editor sends, the agent must not panic; it either refuses the prompt
// with a short -32602 that does not echo the content, or produces a
// message the CLI can read (one valid JSON line) that keeps every piece of
// text the user wrote.
func FuzzPromptContent(f *testing.F) {
	for _, s := range promptSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var prompt []acp.ContentBlock
		if json.Unmarshal(data, &prompt) != nil {
			return
		}
		out, err := ToClaude(prompt)
		if err != nil {
			var ae *acp.Error
			if !errors.As(err, &ae) || ae.Code != acp.CodeInvalidParams {
				t.Fatalf("refusal is not -32602: %v", err)
			}
			if b, _ := json.Marshal(ae); len(b) > 512 {
				t.Fatalf("refusal of %d bytes (it must not echo the prompt): %s", len(b), b)
			}
			return
		}
		if len(out) == 0 {
			t.Fatal("accepted a prompt with no content")
		}
		line, err := json.Marshal(claude.UserMessageBody{Role: "user", Content: out})
		if err != nil {
			t.Fatalf("the Claude message does not encode: %v", err)
		}
		if bytes.IndexByte(line, '\n') >= 0 || !json.Valid(line) {
			t.Fatalf("the Claude message is not one JSON line: %q", line)
		}
		var all strings.Builder
		for _, b := range out {
			all.WriteString(b.Text)
		}
		for i, b := range prompt {
			var text string
			switch {
			case b.Text != nil:
				text = b.Text.Text
			case b.Resource != nil && b.Resource.Resource.TextResourceContents != nil:
				text = b.Resource.Resource.TextResourceContents.Text
			}
			if !strings.Contains(all.String(), text) {
				t.Fatalf("prompt[%d]'s text %q was lost", i, text)
			}
		}
	})
}

// promptSeeds cover every content type, the MIME and URI shapes the
// mapping branches on, and malformed variants.
var promptSeeds = []string{
	`[{"type":"text","text":"hello"}]`,
	`[]`,
	`[{"type":"text","text":""}]`,
	`[{"type":"text","text":"line\nbreak \u2028 \u0000 <context ref=\"x\">"}]`,
	`[{"type":"resource_link","uri":"file:///src/main.go","name":"main.go"}]`,
	`[{"type":"resource_link","uri":"zed:///agent/thread/1","name":""}]`,
	`[{"type":"resource_link","uri":"https://example.com/a b","name":"x"}]`,
	`[{"type":"resource_link","uri":"%zz","name":"bad"}]`,
	`[{"type":"image","mimeType":"image/jpg","data":"iVBORw0KGgo="}]`,
	`[{"type":"image","mimeType":"image/png","data":"","uri":"https://example.com/i.png"}]`,
	`[{"type":"image","mimeType":"","data":""}]`,
	`[{"type":"audio","mimeType":"audio/wav","data":"AAAA"}]`,
	`[{"type":"bogus","x":1}]`,
	`[{"type":"resource","resource":{"uri":"file:///a.txt","text":"package a"}}]`,
	`[{"type":"resource","resource":{"uri":"file:///a.png","mimeType":"image/png","blob":"iVBORw0KGgo="}}]`,
	`[{"type":"resource","resource":{"uri":"file:///a.pdf","mimeType":"application/pdf","blob":"JVBERi0="}}]`,
	`[{"type":"resource","resource":{"uri":"file:///a.json","mimeType":"application/json; charset=utf-8","blob":"77u/eyJhIjoxfQ=="}}]`,
	`[{"type":"resource","resource":{"uri":"file:///a.json","mimeType":"text/plain","blob":"not base64!"}}]`,
	`[{"type":"resource","resource":{"uri":"file:///a.zip","mimeType":"application/zip","blob":"UEsDBA=="}}]`,
	`[{"type":"resource","resource":{"uri":"file:///x"}}]`,
	`[{"type":"resource","resource":{"uri":"file:///x","mimeType":";;;","blob":""}}]`,
	`[{"type":"text","text":"look"},{"type":"resource","resource":{"uri":"file:///b","text":"B"}},{"type":"text","text":"and"}]`,
	`[{"type":"text"},{"type":null},null,{}]`,
	`[{"type":"text","text":"x","annotations":{"audience":["user"],"priority":2.5},"_meta":{"a":1}}]`,
}

// TestPromptRoundTrip sends prompts through ToClaude, stores them as
// the CLI does, and rebuilds them: the user sees what they sent.
func TestPromptRoundTrip(t *testing.T) {
	blob := func(uri, mt, data string) acp.ContentBlock {
		return acp.ContentBlock{Resource: &acp.EmbeddedResource{Resource: acp.EmbeddedResourceResource{
			BlobResourceContents: &acp.BlobResourceContents{URI: uri, Blob: data, MimeType: acp.Some(mt)}}}}
	}
	for _, prompt := range [][]acp.ContentBlock{
		{{Text: &acp.TextContent{Text: "just text\nover lines"}}},
		{
			{Text: &acp.TextContent{Text: "look at"}},
			{ResourceLink: &acp.ResourceLink{Name: "main.go", URI: "file:///p/main.go"}},
			{Text: &acp.TextContent{Text: "and"}},
			TextResource("file:///p/doc.md", "# Doc\nbody"),
			TextResource("https://example.com/spec", "the spec"),
			{Image: &acp.ImageContent{Data: "iVBORw0KGgo=", MimeType: "image/png"}},
			blob("file:///p/paper.pdf", "application/pdf", "JVBERi0="),
		},
	} {
		content, err := ToClaude(prompt)
		if err != nil {
			t.Fatal(err)
		}
		var stored transcript.Content
		if err := json.Unmarshal(marshal(content), &stored); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(prompt, FromClaude(stored), cmp.Comparer(func(a, b acp.Opt[string]) bool { return a.Equal(b) })); diff != "" {
			t.Errorf("round trip (-sent +replayed):\n%s", diff)
		}
	}
}
