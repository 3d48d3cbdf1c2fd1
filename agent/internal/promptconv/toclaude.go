package promptconv

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"mime"
	"net/url"
	"path"
	"strings"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// ToClaude turns ACP prompt content into the content of one Claude
// user message. @-mentions become markdown links the model can follow (no
// file is read); embedded text resources become <context> blocks placed
// after everything else; images and binary resources become image or
// document blocks. Content the agent did not advertise (audio) is refused
// with -32602 before anything reaches Claude.
func ToClaude(prompt []acp.ContentBlock) ([]claude.ContentBlock, error) {
	if len(prompt) == 0 {
		return nil, acp.NewInvalidParams("prompt", "the prompt is empty")
	}
	var out, context []claude.ContentBlock
	for i, b := range prompt {
		field := fmt.Sprintf("prompt[%d]", i)
		switch {
		case b.Text != nil:
			out = append(out, claude.TextBlock(b.Text.Text))
		case b.ResourceLink != nil:
			out = append(out, claude.TextBlock(linkText(b.ResourceLink.URI, b.ResourceLink.Name)))
		case b.Image != nil:
			img, ok := imageBlock(b.Image)
			if ok {
				out = append(out, img)
			}
		case b.Resource != nil:
			blocks, ctx, err := resourceBlocks(b.Resource, field)
			if err != nil {
				return nil, err
			}
			out = append(out, blocks...)
			context = append(context, ctx...)
		case b.Audio != nil:
			return nil, acp.NewInvalidParams(field, "content blocks of type audio are not supported")
		default:
			return nil, acp.NewInvalidParams(field+".type", "unknown content block type")
		}
	}
	out = append(out, context...)
	if len(out) == 0 {
		return nil, acp.NewInvalidParams("prompt", "the prompt has no content Claude can read")
	}
	return out, nil
}

// linkText renders an @-mention: [@name](uri) for files (and editor
// URIs), the bare URI otherwise.
func linkText(uri, name string) string {
	u, err := url.Parse(uri)
	if err != nil || (u.Scheme != "file" && u.Scheme != "zed") {
		return uri
	}
	if name == "" {
		name = path.Base(u.Path)
	}
	return "[@" + name + "](" + uri + ")"
}

func imageBlock(img *acp.ImageContent) (claude.ContentBlock, bool) {
	if img.Data != "" {
		return claude.ImageBlock(normalizeMIME(img.MimeType), img.Data), true
	}
	if uri, ok := img.URI.Get(); ok && strings.HasPrefix(uri, "http") {
		return claude.ContentBlock{Type: "image", Source: marshal(map[string]string{"type": "url", "url": uri})}, true
	}
	return claude.ContentBlock{}, false
}

// resourceBlocks maps an embedded resource: the mention stays in place
// and the content goes to the end of the message as context.
func resourceBlocks(r *acp.EmbeddedResource, field string) (inline, context []claude.ContentBlock, err error) {
	switch {
	case r.Resource.TextResourceContents != nil:
		t := r.Resource.TextResourceContents
		return []claude.ContentBlock{claude.TextBlock(linkText(t.URI, ""))},
			[]claude.ContentBlock{contextBlock(t.URI, t.Text)}, nil
	case r.Resource.BlobResourceContents != nil:
		b := r.Resource.BlobResourceContents
		mt, _ := b.MimeType.Get()
		base, params, _ := mime.ParseMediaType(mt)
		base = normalizeMIME(base)
		link := claude.TextBlock(linkText(b.URI, ""))
		switch {
		case base == "image/png" || base == "image/jpeg" || base == "image/gif" || base == "image/webp":
			return []claude.ContentBlock{link, claude.ImageBlock(base, b.Blob)}, nil, nil
		case base == "application/pdf":
			return []claude.ContentBlock{link, {Type: "document", Source: marshal(map[string]string{
				"type": "base64", "media_type": base, "data": b.Blob})}}, nil, nil
		case isTextMIME(base):
			data, derr := base64.StdEncoding.DecodeString(b.Blob)
			if derr != nil {
				return nil, nil, acp.NewInvalidParams(field+".resource.blob", "not valid base64")
			}
			text := strings.TrimPrefix(string(data), "\ufeff")
			_ = params // charset other than UTF-8 is rare from editors; sent as is
			return []claude.ContentBlock{link}, []claude.ContentBlock{contextBlock(b.URI, text)}, nil
		}
		// A binary Claude cannot read (an archive, say): keep the mention so
		// nothing the user wrote is lost.
		return []claude.ContentBlock{link}, nil, nil
	}
	return nil, nil, acp.NewInvalidParams(field+".resource", "a resource needs text or blob")
}

func contextBlock(uri, text string) claude.ContentBlock {
	return claude.TextBlock("\n<context ref=\"" + uri + "\">\n" + text + "\n</context>")
}

func normalizeMIME(m string) string {
	m = strings.ToLower(strings.TrimSpace(m))
	if m == "image/jpg" {
		return "image/jpeg"
	}
	return m
}

func isTextMIME(m string) bool {
	switch {
	case strings.HasPrefix(m, "text/"), strings.HasSuffix(m, "+json"), strings.HasSuffix(m, "+xml"):
		return true
	}
	switch m {
	case "application/json", "application/xml", "application/javascript", "application/typescript",
		"application/x-yaml", "application/yaml", "application/toml", "application/x-sh",
		"application/sql", "application/graphql":
		return true
	}
	return false
}

func marshal(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}
