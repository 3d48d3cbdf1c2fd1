package translate

import (
	"encoding/json"
	"slices"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/jsonfast"
)

// Plans. Claude keeps its to-do list either with TodoWrite (the whole
// list in every call) or with the Task* tools (one task per call). Both
// become ACP plan updates carrying the full list every time, as the
// protocol asks; these calls are not shown as tool calls (unless Claude
// asks permission for one). An in-progress entry shows its activeForm
// ("Running tests"), as Claude Code's own spinner does.

// planState is the session's to-do list as Claude last described it.
type planState struct {
	tasks []*planTask // Task* tools, in creation order
	sent  string      // JSON of the entries last sent (planKey), to skip repeats
}

type planTask struct {
	id, subject, activeForm, status string
}

// planFromInput publishes a TodoWrite list as soon as its input is whole.
func (tr *Translator) planFromInput(ts *toolState) {
	if ts.name != "TodoWrite" {
		return
	}
	todos, ok := todoListFast(ts.raw)
	if !ok {
		var in struct {
			Todos []todo `json:"todos"`
		}
		if json.Unmarshal(ts.raw, &in) != nil {
			return
		}
		todos = in.Todos
	}
	entries := make([]acp.PlanEntry, 0, len(todos))
	for _, t := range todos {
		entries = append(entries, planEntry(t.Content, t.ActiveForm, t.Status))
	}
	tr.sendPlan(entries)
}

// todo is one entry of a TodoWrite input.
type todo struct {
	Content    string `json:"content"`
	Status     string `json:"status"`
	ActiveForm string `json:"activeForm"`
}

var todoInputNames, todoNames = []string{"todos"}, []string{"content", "status", "activeForm"}

// todoListFast decodes a TodoWrite input {"todos":[{...}]} without
// reflection; ok is false when encoding/json must decide (anything but
// that shape of strings, or what Members calls odd), so that both agree.
func todoListFast(raw []byte) (todos []todo, ok bool) {
	var d jsonfast.Dec
	d.Reset(raw)
	shape := d.ObjectMembers(todoInputNames, func(int) {
		todos = []todo{}
		if !d.Elems(func() {
			var t todo
			if !d.ObjectMembers(todoNames, func(i int) {
				if d.Kind() != '"' {
					d.Skip()
					d.SetOdd() // not a string: encoding/json decides
					return
				}
				s, _ := d.Str()
				switch i {
				case 0:
					t.Content = s
				case 1:
					t.Status = s
				case 2:
					t.ActiveForm = s
				}
			}) {
				d.SetOdd()
			}
			todos = append(todos, t)
		}) {
			d.SetOdd()
		}
	})
	if !shape || !d.End() || d.Odd() {
		return nil, false
	}
	return todos, true
}

// planResult applies a Task* call once Claude Code has run it, using the
// structured result (task ids are assigned by Claude Code).
func (tr *Translator) planResult(ts *toolState, isError bool, structured json.RawMessage) {
	if isError || ts.name == "TodoWrite" {
		return
	}
	p := &tr.plan
	switch ts.name {
	case "TaskCreate":
		var r struct {
			Task struct {
				ID      string `json:"id"`
				Subject string `json:"subject"`
			} `json:"task"`
		}
		if json.Unmarshal(structured, &r) != nil || r.Task.ID == "" {
			return
		}
		p.tasks = append(p.tasks, &planTask{
			id: r.Task.ID, subject: firstNonEmpty(r.Task.Subject, str(ts.in, "subject")),
			activeForm: str(ts.in, "activeForm"), status: "pending",
		})
	case "TaskUpdate":
		var r struct {
			Success bool `json:"success"`
		}
		_ = json.Unmarshal(structured, &r)
		id := str(ts.in, "taskId")
		i := slices.IndexFunc(p.tasks, func(t *planTask) bool { return t.id == id })
		if !r.Success || i < 0 {
			return
		}
		t := p.tasks[i]
		if st := str(ts.in, "status"); st == "deleted" {
			p.tasks = slices.Delete(p.tasks, i, i+1)
		} else if st != "" {
			t.status = st
		}
		t.subject = firstNonEmpty(str(ts.in, "subject"), t.subject)
		t.activeForm = firstNonEmpty(str(ts.in, "activeForm"), t.activeForm)
	case "TaskList":
		// The list is authoritative (it also repairs a resumed session).
		var r struct {
			Tasks []struct {
				ID      string `json:"id"`
				Subject string `json:"subject"`
				Status  string `json:"status"`
			} `json:"tasks"`
		}
		if json.Unmarshal(structured, &r) != nil || r.Tasks == nil {
			return
		}
		old := p.tasks
		p.tasks = nil
		for _, t := range r.Tasks {
			nt := &planTask{id: t.ID, subject: t.Subject, status: t.Status}
			if i := slices.IndexFunc(old, func(o *planTask) bool { return o.id == t.ID }); i >= 0 {
				nt.activeForm = old[i].activeForm
			}
			p.tasks = append(p.tasks, nt)
		}
	case "TaskGet":
		var r struct {
			Task struct {
				ID      string `json:"id"`
				Subject string `json:"subject"`
				Status  string `json:"status"`
			} `json:"task"`
		}
		if json.Unmarshal(structured, &r) != nil || r.Task.ID == "" {
			return
		}
		if i := slices.IndexFunc(p.tasks, func(t *planTask) bool { return t.id == r.Task.ID }); i >= 0 {
			p.tasks[i].subject, p.tasks[i].status = r.Task.Subject, r.Task.Status
		} else {
			p.tasks = append(p.tasks, &planTask{id: r.Task.ID, subject: r.Task.Subject, status: r.Task.Status})
		}
	default:
		return
	}
	entries := make([]acp.PlanEntry, 0, len(p.tasks))
	for _, t := range p.tasks {
		entries = append(entries, planEntry(t.subject, t.activeForm, t.status))
	}
	tr.sendPlan(entries)
}

func planEntry(content, activeForm, status string) acp.PlanEntry {
	st := acp.PlanEntryStatusPending
	switch status {
	case "in_progress":
		st = acp.PlanEntryStatusInProgress
		content = firstNonEmpty(activeForm, content)
	case "completed":
		st = acp.PlanEntryStatusCompleted
	}
	return acp.PlanEntry{Content: content, Status: st, Priority: acp.PlanEntryPriorityMedium}
}

// sendPlan publishes the full list unless it is what the client has.
func (tr *Translator) sendPlan(entries []acp.PlanEntry) {
	j := planKey(entries)
	if j == tr.plan.sent {
		return
	}
	tr.plan.sent = j
	tr.notify(tr.id, acp.SessionUpdate{Plan: &acp.Plan{Entries: entries}})
}

// planKey is the JSON of entries, written by acp's encoder (without
// encoding/json's reflection and its re-validation of each entry's JSON).
func planKey(entries []acp.PlanEntry) string {
	b, err := acp.AppendJSON(nil, &entries)
	if err != nil {
		return string(mustJSON(entries))
	}
	return string(b)
}
