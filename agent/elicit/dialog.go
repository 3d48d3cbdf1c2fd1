package elicit

import (
	"encoding/json"
	"slices"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
)

// RefusalDialogKind is the request_user_dialog kind of the CLI's
// refusal-fallback consent: a model declined the request and another one
// could retry it, if the user agrees. The CLI asks only a host that
// declared the kind in initialize's supportedDialogKinds, and without one
// keeps the refusal.
const RefusalDialogKind = "refusal_fallback_prompt"

// A RefusalPrompt is the payload of a refusal-fallback dialog.
type RefusalPrompt struct {
	OriginalModel string `json:"originalModel"`
	FallbackModel string `json:"fallbackModel"`
	Category      string `json:"apiRefusalCategory,omitempty"`
	Guidance      string `json:"guidanceText,omitempty"`
}

// ParseRefusal reads a refusal-fallback payload; false when the models
// are missing (a reshaped payload is not rendered half right: the dialog
// is cancelled and the CLI keeps the refusal).
func ParseRefusal(payload json.RawMessage) (RefusalPrompt, bool) {
	var raw struct {
		OriginalModel *string `json:"originalModel"`
		FallbackModel *string `json:"fallbackModel"`
		Category      any     `json:"apiRefusalCategory"`
		Guidance      any     `json:"guidanceText"`
	}
	if json.Unmarshal(payload, &raw) != nil || raw.OriginalModel == nil || raw.FallbackModel == nil {
		return RefusalPrompt{}, false
	}
	p := RefusalPrompt{OriginalModel: *raw.OriginalModel, FallbackModel: *raw.FallbackModel}
	p.Category, _ = raw.Category.(string)
	p.Guidance, _ = raw.Guidance.(string)
	return p, true
}

// The dialog's result values (the CLI's): retry on the fallback model, or
// keep the refusal. The CLI's third choice, edit_prompt, fills its own
// input box with the refused prompt; ACP has no such box, and the user can
// edit and send again anyway.
const (
	refusalChoiceKey = "choice"
	RetryFallback    = "retry_fallback"
	KeepRefusal      = "cancelled"
)

// RefusalForm asks whether to retry on the fallback model: one single
// select whose values are the dialog's own result values.
func RefusalForm(p RefusalPrompt, sessionID string) *acp.CreateElicitationRequest {
	msg := p.OriginalModel + " declined this request"
	if p.Category != "" {
		msg += " (" + p.Category + ")"
	}
	msg += ". Retry with " + p.FallbackModel + "?"
	if p.Guidance != "" {
		msg += "\n\n" + p.Guidance
	}
	return &acp.CreateElicitationRequest{
		Message: msg,
		Form: &acp.ElicitationFormMode{
			Session: &acp.ElicitationSessionScope{SessionID: acp.SessionID(sessionID)},
			RequestedSchema: acp.ElicitationSchema{Type: acp.ElicitationSchemaTypeObject, Properties: map[string]acp.ElicitationPropertySchema{
				refusalChoiceKey: {String: &acp.StringPropertySchema{OneOf: acp.Some([]acp.EnumOption{
					{Const: RetryFallback, Title: "Retry with " + p.FallbackModel, Description: acp.Some("The session continues on " + p.FallbackModel + ".")},
					{Const: KeepRefusal, Title: "Keep the refusal", Description: acp.Some("You can send a new message.")},
				})}},
			}},
		},
	}
}

// RefusalResult is the CLI's answer to the dialog. Only an accepted form
// that picked the retry switches models; a decline, a dismissal, a blank
// or unknown choice keep the refusal, the dialog's own default.
func RefusalResult(resp *acp.CreateElicitationResponse) map[string]any {
	if resp != nil && resp.Accept != nil {
		content, _ := resp.Accept.Content.Get()
		if c := content[refusalChoiceKey].String; c != nil && *c == RetryFallback {
			return map[string]any{"behavior": "completed", "result": RetryFallback}
		}
	}
	return map[string]any{"behavior": "completed", "result": KeepRefusal}
}

// DialogCancelled is the answer to a dialog that was not shown (a kind
// this package does not render, a malformed payload, a withdrawn or
// failed request): the CLI applies the dialog's default.
func DialogCancelled() map[string]any { return map[string]any{"behavior": "cancelled"} }

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
