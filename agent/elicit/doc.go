// Package elicit maps what Claude Code asks the user to ACP form
// elicitations (elicitation/create) and the client's answers back to what
// the CLI expects. It is pure translation: it sends nothing, tracks no
// request and never settles a turn; package agent asks the client and
// answers the CLI.
//
// Three things become forms:
//
//   - Claude's AskUserQuestion tool (a can_use_tool with
//     requires_user_interaction): one field per question, question_<i>,
//     a single select (oneOf) or a multi-select (array of anyOf) of the
//     options with their descriptions and the header as its title, and
//     beside it question_<i>_custom, a free-text "Other" answer. The
//     answer goes back as the tool's updatedInput with answers keyed by the
//     question text, in the CLI's own shape (AskAnswer).
//   - An MCP server's elicitation, which the CLI forwards as an
//     `elicitation` control request: its schema is passed on as the server
//     wrote it (MCPForm), and the answer goes back as MCP's
//     {action, content} (MCPResult).
//   - The CLI's refusal-fallback consent dialog (request_user_dialog of
//     kind refusal_fallback_prompt): retry on the fallback model or keep
//     the refusal (RefusalForm, RefusalResult).
//
// The shapes follow the reference adapter (@agentclientprotocol/
// claude-agent-acp 0.101.0, src/elicitation.ts) where clients rely on
// them: the field keys, the "Other" companion field, the option preview
// under _meta["_claude/askUserQuestionOption"], and the AIR custom-answer
// marker. They differ where the reference loses the user's intent: a
// declined or dismissed question form is a clear refusal Claude is told
// about (AskOutcome), not an empty answer.
package elicit
