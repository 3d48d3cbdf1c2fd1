module github.com/claude-agent-acp/claude-agent-acp

go 1.26.8
