package config

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
	c := &Session{ModeID: claude.PermissionDefault}
	var models []claude.ModelInfo
	if got := optionIDs(c.Options(models)); got != "mode" {
		t.Errorf("before the model list is known: %s", got)
	}
	if got := c.ModeState(models); len(got.AvailableModes) != 4 { // no bypass without the flag
		t.Errorf("modes %+v", got.AvailableModes)
	}
	models = []claude.ModelInfo{
		{Value: "default", DisplayName: "Default", SupportsEffort: true, SupportedEffortLevels: []string{"low", "medium", "xhigh"}, SupportsAutoMode: true},
		{Value: "old", DisplayName: "Old", SupportsThinkingOff: true},
	}
	opts := c.Options(models)
	if got := optionIDs(opts); got != "mode,model,effort" {
		t.Fatalf("options %s", got)
	}
	effort := opts[2].Select
	if effort.CurrentValue != "medium" || len(effort.Options.Ungrouped) != 3 || effort.Options.Ungrouped[2].Name != "Extra high" {
		t.Errorf("effort %+v", effort)
	}
	c.model = "old"
	opts = c.Options(models)
	if got := optionIDs(opts); got != "mode,model,thinking" || opts[1].Select.CurrentValue != "old" || opts[2].Select == nil || opts[2].Select.CurrentValue != "on" {
		t.Errorf("old model options %s %+v", got, opts)
	}
	// A client that declared boolean options gets a boolean.
	c.Booleans = true
	if opts = c.Options(models); opts[2].Boolean == nil || !opts[2].Boolean.CurrentValue {
		t.Errorf("boolean thinking %+v", opts[2])
	}
	c.Booleans = false
	// The old model cannot do auto mode; the current mode is always listed.
	c.ModeID = claude.PermissionDontAsk
	var ids []string
	for _, m := range c.Modes(models) {
		ids = append(ids, m.ID)
	}
	if strings.Join(ids, ",") != "default,acceptEdits,plan,dontAsk" {
		t.Errorf("modes %v", ids)
	}
}
