package agent

import (
	"strings"
	"testing"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

func optionIDs(opts []acp.SessionConfigOption) string {
	var ids []string
	for _, o := range opts {
		ids = append(ids, string(o.ID))
	}
	return strings.Join(ids, ",")
}

// TestConfigOptions: the options follow what the current model supports.
func TestConfigOptions(t *testing.T) {
	a := New(Config{}).newConnection()
	s := &session{a: a, conf: sessionConfig{modeID: claude.PermissionDefault}}
	if got := optionIDs(s.conf.configOptions(s.a.modelList())); got != "mode" {
		t.Errorf("before the model list is known: %s", got)
	}
	if got := s.conf.modeState(s.a.modelList()); len(got.AvailableModes) != 4 { // no bypass without the flag
		t.Errorf("modes %+v", got.AvailableModes)
	}
	a.models = []claude.ModelInfo{
		{Value: "default", DisplayName: "Default", SupportsEffort: true, SupportedEffortLevels: []string{"low", "medium", "xhigh"}, SupportsAutoMode: true},
		{Value: "old", DisplayName: "Old", SupportsThinkingOff: true},
	}
	opts := s.conf.configOptions(s.a.modelList())
	if got := optionIDs(opts); got != "mode,model,effort" {
		t.Fatalf("options %s", got)
	}
	effort := opts[2].Select
	if effort.CurrentValue != "medium" || len(effort.Options.Ungrouped) != 3 || effort.Options.Ungrouped[2].Name != "Extra high" {
		t.Errorf("effort %+v", effort)
	}
	s.conf.model = "old"
	opts = s.conf.configOptions(s.a.modelList())
	if got := optionIDs(opts); got != "mode,model,thinking" || opts[1].Select.CurrentValue != "old" || opts[2].Select == nil || opts[2].Select.CurrentValue != "on" {
		t.Errorf("old model options %s %+v", got, opts)
	}
	// A client that declared boolean options gets a boolean.
	s.conf.booleans = true
	if opts = s.conf.configOptions(s.a.modelList()); opts[2].Boolean == nil || !opts[2].Boolean.CurrentValue {
		t.Errorf("boolean thinking %+v", opts[2])
	}
	s.conf.booleans = false
	// The old model cannot do auto mode; the current mode is always listed.
	s.conf.modeID = claude.PermissionDontAsk
	var ids []string
	for _, m := range s.conf.modes(s.a.modelList()) {
		ids = append(ids, m.id)
	}
	if strings.Join(ids, ",") != "default,acceptEdits,plan,dontAsk" {
		t.Errorf("modes %v", ids)
	}
}
