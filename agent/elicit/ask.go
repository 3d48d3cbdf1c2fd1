package elicit

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/agent/internal/airmeta"
)

// A Question is one question of an AskUserQuestion call, as the tool's
// input has it.
type Question struct {
	Question    string   `json:"question"`
	Header      string   `json:"header,omitempty"`
	Options     []Option `json:"options"`
	MultiSelect bool     `json:"multiSelect,omitempty"`
}

// An Option is one choice of a question. Preview is content the CLI's own
// dialog shows while the option is focused (a mockup, a snippet).
type Option struct {
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
	Preview     string `json:"preview,omitempty"`
}

// ErrNoQuestions is the error of an AskUserQuestion input with nothing to
// ask: no question with a text and an option.
var ErrNoQuestions = errors.New("AskUserQuestion was called without a question to ask (each needs a question text and options)")

// Questions reads the questions of an AskUserQuestion input. Malformed
// entries (no text, no option with a label) are left out, so that one bad
// question does not hide the others; with none left it is ErrNoQuestions.
func Questions(input json.RawMessage) ([]Question, error) {
	var in struct {
		Questions []json.RawMessage `json:"questions"`
	}
	if json.Unmarshal(input, &in) != nil {
		return nil, ErrNoQuestions
	}
	var out []Question
	for _, raw := range in.Questions {
		var q Question
		if json.Unmarshal(raw, &q) != nil || strings.TrimSpace(q.Question) == "" {
			continue
		}
		opts := q.Options[:0]
		for _, o := range q.Options {
			if o.Label != "" {
				opts = append(opts, o)
			}
		}
		if q.Options = opts; len(opts) == 0 {
			continue
		}
		out = append(out, q)
	}
	if len(out) == 0 {
		return nil, ErrNoQuestions
	}
	return out, nil
}

// FieldKey is the form field of question i, and CustomKey its free-text
// "Other" companion: short stable keys, so that the question text appears
// once (its field's description) and sorts in question order.
func FieldKey(i int) string  { return "question_" + strconv.Itoa(i) }
func CustomKey(i int) string { return FieldKey(i) + "_custom" }

// OptionMetaKey carries an option's preview in its _meta: ACP's EnumOption
// has no field for it (the reference adapter's key).
const OptionMetaKey = "_claude/askUserQuestionOption"

// customAnswerKey marks, for AIR clients, the "Other" field of a question
// (under _meta.jetbrains.air and, for released AIR versions, at the root
// of _meta under legacyCustomAnswerKey).
const (
	customAnswerKey       = "customAnswer"
	legacyCustomAnswerKey = "_askUserQuestionCustomAnswer"
)

// AskForm is the form of an AskUserQuestion call: one field per question
// with its options, each followed by an optional free-text "Other" field.
// Nothing is required: as in the CLI's own dialog, the user may skip a
// question. The form is tied to the call's tool card (toolCallID). air
// adds the AIR custom-answer marker to the "Other" fields.
func AskForm(qs []Question, sessionID, toolCallID string, air bool) *acp.CreateElicitationRequest {
	props := make(map[string]acp.ElicitationPropertySchema, 2*len(qs))
	for i, q := range qs {
		opts := make([]acp.EnumOption, len(q.Options))
		for j, o := range q.Options {
			opts[j] = acp.EnumOption{Const: o.Label, Title: o.Label}
			if o.Description != "" {
				opts[j].Description = acp.Some(o.Description)
			}
			if o.Preview != "" {
				opts[j].Meta = map[string]json.RawMessage{OptionMetaKey: mustJSON(map[string]string{"preview": o.Preview})}
			}
		}
		var title, desc acp.Opt[string]
		if q.Header != "" {
			title = acp.Some(q.Header)
		}
		if len(qs) > 1 {
			// One question's text is the form's message; several each
			// carry their own.
			desc = acp.Some(q.Question)
		}
		if q.MultiSelect {
			props[FieldKey(i)] = acp.ElicitationPropertySchema{Array: &acp.MultiSelectPropertySchema{
				Title: title, Description: desc,
				Items: acp.MultiSelectItems{Titled: &acp.TitledMultiSelectItems{AnyOf: opts}},
			}}
		} else {
			props[FieldKey(i)] = acp.ElicitationPropertySchema{String: &acp.StringPropertySchema{
				Title: title, Description: desc, OneOf: acp.Some(opts),
			}}
		}
		other := &acp.StringPropertySchema{Title: acp.Some("Other")}
		if q.MultiSelect {
			other.Description = acp.Some("Type your own answer to add to your selection above (optional).")
		} else {
			other.Description = acp.Some("Type your own answer, or add a note to the option you chose above (optional).")
		}
		if air {
			marker := mustJSON(map[string]any{"questionId": FieldKey(i), "isCustomAnswer": true})
			other.Meta = airmeta.Set(map[string]json.RawMessage{legacyCustomAnswerKey: marker}, customAnswerKey, marker)
		}
		props[CustomKey(i)] = acp.ElicitationPropertySchema{String: other}
	}
	message := "Please answer the following questions."
	if len(qs) == 1 {
		message = qs[0].Question
	}
	scope := &acp.ElicitationSessionScope{SessionID: acp.SessionID(sessionID)}
	if toolCallID != "" {
		scope.ToolCallID = acp.Some(acp.ToolCallID(toolCallID))
	}
	return &acp.CreateElicitationRequest{
		Message: message,
		Form: &acp.ElicitationFormMode{
			RequestedSchema: acp.ElicitationSchema{Type: acp.ElicitationSchemaTypeObject, Properties: props},
			Session:         scope,
		},
	}
}

// AskOutcome is what became of a question form.
type AskOutcome int

const (
	// Answered: the user accepted the form (answering some questions, or
	// none).
	Answered AskOutcome = iota
	// Declined: the user refused to answer.
	Declined
	// Dismissed: the form was closed without a choice (the client's
	// "cancel", or an action this package does not know).
	Dismissed
)

// What Claude is told when the user does not answer. The call is denied
// with these words (is_error), so the model cannot mistake the silence for
// an answer; the turn goes on.
const (
	DeclinedMessage  = "The user declined to answer these questions. Do not ask them again; continue without the answers, or stop and wait for the user if you cannot."
	DismissedMessage = "The user closed the questions without answering. Do not ask them again; continue without the answers, or stop and wait for the user if you cannot."
)

// AskAnswer folds an accepted form into the tool's input: answers maps
// each answered question's text to its answer, in the shape the CLI's own
// dialog writes (a multi-select's picks comma-joined, an item that holds
// ", " or a quote JSON-quoted, so that the tool splits it back right). The
// "Other" text of a multi-select joins its picks; of a single select it is
// the answer when nothing was picked, else the pick's note
// (annotations[question].notes, which the CLI shows the model as
// `"Q"="A" notes: …`). A question left blank has no answer. For a
// declined or dismissed form the input is nil.
func AskAnswer(resp *acp.CreateElicitationResponse, input json.RawMessage, qs []Question) (json.RawMessage, AskOutcome) {
	switch {
	case resp.Decline != nil:
		return nil, Declined
	case resp.Accept == nil:
		return nil, Dismissed
	}
	content, _ := resp.Accept.Content.Get()
	answers := map[string]string{}
	annotations := map[string]map[string]string{}
	for i, q := range qs {
		picks := contentStrings(content[FieldKey(i)])
		custom := ""
		if c := content[CustomKey(i)].String; c != nil {
			custom = strings.TrimSpace(*c)
		}
		switch {
		case q.MultiSelect:
			if custom != "" {
				picks = append(picks, custom)
			}
			if len(picks) > 0 {
				answers[q.Question] = joinMultiSelect(picks)
			}
		case len(picks) == 0:
			if custom != "" {
				answers[q.Question] = custom
			}
		default:
			answers[q.Question] = strings.Join(picks, ", ")
			if custom != "" {
				annotations[q.Question] = map[string]string{"notes": custom}
			}
		}
	}
	in := map[string]json.RawMessage{}
	_ = json.Unmarshal(input, &in)
	in["answers"] = mustJSON(answers)
	if len(annotations) > 0 {
		in["annotations"] = mustJSON(annotations)
	}
	return mustJSON(in), Answered
}

// contentStrings are the non-empty picks of a field: a string, a list of
// strings, or a number or boolean a client sent for one.
func contentStrings(v acp.ElicitationContentValue) []string {
	var out []string
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	switch {
	case v.String != nil:
		add(*v.String)
	case v.StringArray != nil:
		for _, s := range v.StringArray {
			add(s)
		}
	case v.Integer != nil:
		add(strconv.FormatInt(*v.Integer, 10))
	case v.Number != nil:
		add(strconv.FormatFloat(*v.Number, 'g', -1, 64))
	case v.Boolean != nil:
		add(strconv.FormatBool(*v.Boolean))
	}
	return out
}

// joinMultiSelect writes picks as the CLI's dialog does: ", "-joined, an
// item holding the separator or a quote JSON-quoted.
func joinMultiSelect(items []string) string {
	parts := make([]string, len(items))
	for i, s := range items {
		if strings.Contains(s, ", ") || strings.Contains(s, `"`) {
			s = string(mustJSON(s))
		}
		parts[i] = s
	}
	return strings.Join(parts, ", ")
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
