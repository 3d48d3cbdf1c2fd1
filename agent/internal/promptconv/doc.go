// Package promptconv converts prompt content between ACP and Claude: an
// editor's prompt into the content of one Claude user message (ToClaude),
// and a stored Claude user message back into what the user sent
// (FromClaude), which is how session/load shows the user's own turns.
// The two are inverses on everything ToClaude produces.
package promptconv
