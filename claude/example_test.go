package claude_test

import (
	"context"
	"fmt"

	"github.com/claude-agent-acp/claude-agent-acp/claude"
)

// One turn with the Claude Code CLI: start it, send a prompt, print the
// streamed text until the turn's result. (Not run by go test: it needs
// the CLI and an account; the package's e2e tests run the same against a
// fake API.)
func Example() {
	ctx := context.Background()
	p, err := claude.Start(ctx, claude.Options{Dir: ".", IncludePartialMessages: true})
	if err != nil {
		fmt.Println("Claude Code did not start:", err)
		return
	}
	defer p.Close()
	if err := p.Send(ctx, claude.Text("Say hello in five words.")); err != nil {
		fmt.Println(err)
		return
	}
	for m := range p.Messages() {
		switch b := m.Body.(type) {
		case *claude.StreamEvent:
			if d := b.Event.Delta; d != nil && d.Type == "text_delta" {
				fmt.Print(d.Text)
			}
		case *claude.ResultMessage:
			fmt.Println("\nturn ended:", b.Subtype, b.StopReason)
			return
		}
	}
	fmt.Println("the CLI ended:", p.Err())
}

// Answering Claude Code's permission requests: allow reads, deny the rest.
func ExampleOptions_canUseTool() {
	opts := claude.Options{
		CanUseTool: func(ctx context.Context, req claude.CanUseToolRequest) (claude.PermissionResult, error) {
			if req.ToolName == "Read" {
				return claude.PermissionResult{Behavior: "allow", UpdatedInput: req.Input}, nil
			}
			return claude.Deny("Only reading is allowed here."), nil
		},
	}
	_ = opts
}
