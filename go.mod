module github.com/claude-agent-acp/claude-agent-acp

go 1.26.8

require (
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	go.uber.org/goleak v1.3.0 // indirect
	golang.org/x/text v0.14.0 // indirect
	golang.org/x/tools v0.52.0 // indirect
)
