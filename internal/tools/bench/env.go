package bench

import (
	"os"
	"path/filepath"

	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clienv"
)

// hermeticVars are shared with the other harness (see internal/test/clienv).
var hermeticVars = clienv.Hermetic

// sandbox is one run's private world: a fresh HOME with its own Claude
// config directory, a work directory to use as the session cwd, and the
// environment tying them to the fake API and the pinned CLI.
type sandbox struct {
	home, work string
	env        []string
}

// newSandbox makes the directories under root. Nothing of the caller's
// environment is inherited but PATH, so no real key or config can leak in.
func newSandbox(root, apiURL, cli string) (*sandbox, error) {
	home, err := os.MkdirTemp(root, "home")
	if err != nil {
		return nil, err
	}
	config := filepath.Join(home, ".claude")
	work := filepath.Join(home, "work")
	for _, d := range []string{config, work} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, err
		}
	}
	path := os.Getenv("PATH")
	if path == "" {
		path = "/usr/local/bin:/usr/bin:/bin"
	}
	env := append([]string{
		"PATH=" + path,
		"HOME=" + home,
		"CLAUDE_CONFIG_DIR=" + config,
		"ANTHROPIC_BASE_URL=" + apiURL,
		// Both adapters honour it: they run the same pinned CLI.
		"CLAUDE_CODE_EXECUTABLE=" + cli,
	}, hermeticVars...)
	return &sandbox{home: home, work: work, env: env}, nil
}
