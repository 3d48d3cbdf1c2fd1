package clifake

// Tools other than Bash: a Reply with ToolName (and ToolInput) makes the
// model call that tool instead, announced, asked for (can_use_tool, in the
// modes that ask) and answered as the Bash call is, so that tests of the
// agent's handling of a tool's permission request (AskUserQuestion as a
// form, say) need not start the real CLI. What the tool does is not
// played: an allowed call "runs" as a Bash call does (ToolOutput, else
// "ran " and Tool), a denied one tells the model the denial.

// toolCall is the name and input of the reply's tool call.
func (r Reply) toolCall() (string, map[string]any) {
	if r.ToolName == "" {
		return "Bash", map[string]any{"command": r.Tool, "description": "run it"}
	}
	input := r.ToolInput
	if input == nil {
		input = map[string]any{}
	}
	return r.ToolName, input
}

// canUseTool is the CLI's permission request for a call; an
// AskUserQuestion call says that it needs the user
// (requires_user_interaction), as the real CLI's does
// (claude-cli-protocol.md, "AskUserQuestion").
func canUseTool(name, id string, input map[string]any) map[string]any {
	req := map[string]any{"subtype": "can_use_tool", "tool_name": name, "display_name": name, "input": input,
		"tool_use_id": id, "permission_suggestions": []any{}}
	if name == "AskUserQuestion" {
		req["requires_user_interaction"] = true
	}
	return req
}
