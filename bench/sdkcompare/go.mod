// Module sdkcompare benchmarks our acp package beside the community Go SDK
// (github.com/coder/acp-go-sdk) on the same work, in one run. It is a
// separate module so the main module never depends on that SDK.
module github.com/claude-agent-acp/claude-agent-acp/bench/sdkcompare

go 1.26.8

require github.com/claude-agent-acp/claude-agent-acp v0.0.0

require github.com/coder/acp-go-sdk v0.13.0

replace github.com/claude-agent-acp/claude-agent-acp => ../..
