package transcript_test

import (
	"fmt"

	"github.com/claude-agent-acp/claude-agent-acp/claude/transcript"
)

// Reading the conversation a Claude Code CLI stored: the records of the
// active branch, in order, as the CLI wrote them.
func Example() {
	r, err := transcript.Open("testdata/cli-2.1.332-resume-at.jsonl", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()
	for rec, err := range r.Records() {
		if err != nil {
			fmt.Println(err)
			return
		}
		if rec.Message == nil {
			continue
		}
		for _, b := range rec.Message.Content {
			if b.Type == "text" {
				fmt.Printf("%s: %s\n", rec.Type, b.Text)
			}
		}
	}
	// Output:
	// user: please say hi
	// assistant: Running it.
	// assistant: It printed hi.
	// user: third prompt
	// assistant: Third answer.
}
