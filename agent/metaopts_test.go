package agent

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

func TestMetaOptions(t *testing.T) {
	t.Parallel()
	meta := map[string]json.RawMessage{
		"systemPrompt":        json.RawMessage(`{"append":"Be brief."}`),
		"disableBuiltInTools": json.RawMessage(`true`),
		"claudeCode": json.RawMessage(`{"options":{"model":"opus","maxTurns":3,"disallowedTools":["WebFetch"],
			"env":{"B":"2","A":"1","N":5},"settings":{"x":1},"additionalDirectories":["/extra"],"unknownKey":true}}`),
	}
	m, err := parseMetaOptions(meta)
	if err != nil {
		t.Fatal(err)
	}
	o := claude.Options{DisallowedTools: []string{"AskUserQuestion"}, Env: []string{"HOME=/h"}}
	m.apply(&o)
	if o.AppendSystemPrompt != "Be brief." || o.Tools == nil || len(o.Tools) != 0 || o.Model != "opus" || o.MaxTurns != 3 ||
		!slices.Equal(o.DisallowedTools, []string{"AskUserQuestion", "WebFetch"}) || !slices.Equal(o.Env, []string{"HOME=/h", "A=1", "B=2"}) ||
		o.Settings != `{"x":1}` || !slices.Equal(o.AddDirs, []string{"/extra"}) {
		t.Errorf("options %+v", o)
	}
	// Equal options in another order have one key.
	m2, _ := parseMetaOptions(map[string]json.RawMessage{
		"claudeCode":          json.RawMessage(`{"options":{"env":{"A":"1","B":"2"},"additionalDirectories":["/extra"],"settings":{"x":1},"disallowedTools":["WebFetch"],"maxTurns":3,"model":"opus"}}`),
		"disableBuiltInTools": json.RawMessage(`true`),
		"systemPrompt":        json.RawMessage(`{"append":"Be brief."}`),
	})
	if m.key() != m2.key() {
		t.Errorf("keys differ:\n%s\n%s", m.key(), m2.key())
	}
	var none metaOptions
	if none.key() == m.key() {
		t.Error("no options and some options have one key")
	}
	for _, bad := range []map[string]json.RawMessage{
		{"systemPrompt": json.RawMessage(`7`)},
		{"disableBuiltInTools": json.RawMessage(`"yes"`)},
		{"claudeCode": json.RawMessage(`{"options":{"maxTurns":"many"}}`)},
	} {
		var ae *acp.Error
		if _, err := parseMetaOptions(bad); !errors.As(err, &ae) || ae.Code != acp.CodeInvalidParams {
			t.Errorf("%s: %v", bad, err)
		}
	}
}
