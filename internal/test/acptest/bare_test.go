package acptest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clitest"
)

// TestBareEnvelopesKeepTheVerdict: checking a call's params (or a
// response's result) against the method's definition and the rest of the
// message against the envelope without them (bareEnvelope) accepts and
// rejects exactly what checking the whole envelope too does. The lines are
// the agent's golden transcripts, v1 and v2, each also mutated (members
// dropped or given other values) so that most variants are invalid, each
// checked as sent and as an answer to other methods.
func TestBareEnvelopesKeepTheVerdict(t *testing.T) {
	root, err := clitest.RepoRoot()
	if err != nil {
		t.Skip(err)
	}
	files, _ := filepath.Glob(filepath.Join(root, "agent", "testdata", "golden", "*.jsonl"))
	v2, _ := filepath.Glob(filepath.Join(root, "agent", "testdata", "golden", "v2", "*.jsonl"))
	if len(files) == 0 || len(v2) == 0 {
		t.Fatal("no golden transcripts under agent/testdata/golden")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	checks, rejected, bare := 0, 0, 0
	for _, path := range append(files, v2...) {
		version := 1
		if strings.Contains(path, string(filepath.Separator)+"v2"+string(filepath.Separator)) {
			version = 2
		}
		methods := map[string]string{} // sender/id → method
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			text := sc.Text()
			fromAgent := strings.HasPrefix(text, "< ")
			if !fromAgent && !strings.HasPrefix(text, "> ") {
				continue
			}
			line := text[2:]
			var msg map[string]any
			if err := json.Unmarshal([]byte(line), &msg); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			key := func(fromAgent bool) string { return fmt.Sprint(fromAgent, "/", msg["id"]) }
			answers := ""
			if m, ok := msg["method"].(string); ok {
				methods[key(fromAgent)] = m
			} else {
				answers = methods[key(!fromAgent)]
			}
			lines := []string{line}
			for range 2 {
				b, _ := json.Marshal(mutate(rng, msg))
				lines = append(lines, string(b))
			}
			for _, line := range lines {
				for _, method := range []string{answers, "session/prompt"} {
					l := Line{Version: version, FromAgent: fromAgent, Method: method}
					full := l
					full.full = true
					got, want := validateLine(l, []byte(line), true), validateLine(full, []byte(line), true)
					checks++
					if want != nil {
						rejected++
					}
					if (got == nil) != (want == nil) {
						t.Errorf("v%d fromAgent=%v answers %q: bare envelope says %v, whole envelope %v\n%s",
							version, fromAgent, method, got, want, line)
					}
				}
			}
		}
		f.Close()
	}
	for _, v := range []int{1, 2} {
		ss, _ := setsFor(v)
		for _, s := range ss {
			bare += len(s.bare)
		}
	}
	if bare == 0 {
		t.Error("no bare envelopes: every message checks its params twice")
	}
	t.Logf("%d checks, %d rejected", checks, rejected)
}

// mutate returns a copy of v with one change somewhere inside: a member
// dropped or set to another value, an element changed, a string altered.
func mutate(rng *rand.Rand, v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		keys := make([]string, 0, len(x))
		for k, e := range x {
			out[k] = e
			keys = append(keys, k)
		}
		if len(keys) == 0 {
			out["x"] = 1
			return out
		}
		k := keys[rng.IntN(len(keys))]
		switch rng.IntN(5) {
		case 0:
			delete(out, k)
		case 1:
			out[k] = "zz"
		case 2:
			out[k] = 7
		case 3:
			out[k] = nil
		default:
			out[k] = mutate(rng, x[k])
		}
		return out
	case []any:
		if len(x) == 0 {
			return []any{1}
		}
		out := append([]any(nil), x...)
		i := rng.IntN(len(x))
		out[i] = mutate(rng, x[i])
		return out
	case string:
		return x + "_x"
	}
	return "q"
}
