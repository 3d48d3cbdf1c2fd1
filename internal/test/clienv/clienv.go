// Package clienv holds the settings that make the Claude Code CLI hermetic
// against the fake Messages API. The test harness (clitest) and the
// benchmark harness (bench) share them, so both measure and test the same
// CLI behaviour.
package clienv

// Hermetic are the fixed settings of every sandboxed CLI: API-key auth
// against the fake, no retries, no side traffic (telemetry, update checks),
// deterministic refusals, all tools in the request.
var Hermetic = []string{
	"ANTHROPIC_API_KEY=sk-fake",
	"CLAUDE_CODE_MAX_RETRIES=0",
	"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
	"DISABLE_TELEMETRY=1",
	"DISABLE_AUTOUPDATER=1",
	"DISABLE_ERROR_REPORTING=1",
	"CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS=1",
	"CLAUDE_CODE_DISABLE_REFUSAL_RETRY=1",
	"CLAUDE_CODE_DISABLE_REFUSAL_FALLBACK=1",
	"IS_SANDBOX=1",
	"TERM=dumb",
}
