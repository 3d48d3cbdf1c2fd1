package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/agenttest"
)

var soak = flag.Duration("soak", 0, "run TestSoak for this long (by default a few seconds, as in CI)")

// TestSoak: 16 sessions prompt, queue and cancel at random (session/cancel
// and $/cancel_request) against the fake CLI. Every prompt gets exactly one
// answer, end_turn or cancelled (cancelled only if it was cancelled), and
// no output of a turn follows its answer. Run it long with
//
//	go test -race ./agent -run TestSoak -soak=1m
func TestSoak(t *testing.T) {
	t.Parallel()
	d := *soak
	if d == 0 {
		d = 3 * time.Second
	}
	const sessions = 16
	h, _ := startFake(t, nil)
	sids := make([]string, sessions)
	for i := range sids {
		sids[i] = h.NewSession(h.Sandbox.WorkDir)
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	var prompts sync.Map // tag → whether it may end cancelled
	for i, sid := range sids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, uint64(i)))
			for n := 0; time.Now().Before(deadline); n++ {
				tag := fmt.Sprintf("s%dn%d", i, n)
				soakRound(t, h, sid, tag, rng, &prompts)
			}
		}()
	}
	wg.Wait()
	// A prompt the client gave up on is still answered, a moment later.
	h.WaitFor("an answer to every prompt", 30*time.Second, func() bool {
		n, answers := 0, 0
		prompts.Range(func(any, any) bool { n++; return true })
		for _, l := range h.Wire() {
			if l.FromAgent && strings.Contains(l.Line, `"stopReason"`) {
				answers++
			}
		}
		return answers >= n
	})
	checkSoakWire(t, h, &prompts)
}

// soakRound runs one random scenario in one session.
func soakRound(t *testing.T, h *agenttest.Harness, sid, tag string, rng *rand.Rand, prompts *sync.Map) {
	run := func(ctx context.Context, tag string, cancellable bool) <-chan promptResult {
		prompts.Store(tag, cancellable)
		text := fmt.Sprintf("slow %d %s", rng.IntN(60), tag)
		ch := make(chan promptResult, 1)
		go func() {
			r, err := h.PromptBlocks(ctx, sid, acp.ContentBlock{Text: &acp.TextContent{Text: text}})
			ch <- promptResult{r, err}
		}()
		return ch
	}
	pause := func() { time.Sleep(time.Duration(rng.IntN(30)) * time.Millisecond) }
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	switch rng.IntN(4) {
	case 0: // a plain turn
		checkSoakAnswer(t, tag, <-run(ctx, tag, false), false)
	case 1: // Stop during the turn (or just after it)
		ch := run(ctx, tag, true)
		pause()
		h.Cancel(sid)
		checkSoakAnswer(t, tag, <-ch, false)
	case 2: // the client gives up on the request ($/cancel_request)
		cctx, ccancel := context.WithCancel(ctx)
		ch := run(cctx, tag, true)
		pause()
		ccancel()
		checkSoakAnswer(t, tag, <-ch, true)
	case 3: // a queued second prompt, then Stop
		a, b := run(ctx, tag+"a", true), run(ctx, tag+"b", true)
		pause()
		h.Cancel(sid)
		checkSoakAnswer(t, tag+"a", <-a, false)
		checkSoakAnswer(t, tag+"b", <-b, false)
	}
}

func checkSoakAnswer(t *testing.T, tag string, r promptResult, gaveUp bool) {
	switch {
	case gaveUp && errors.Is(r.err, context.Canceled):
		// The answer still goes out on the wire; checkSoakWire checks it.
	case r.err != nil:
		t.Errorf("%s: %v", tag, r.err)
	case r.resp.StopReason != acp.StopReasonEndTurn && r.resp.StopReason != acp.StopReasonCancelled:
		t.Errorf("%s: stop reason %q", tag, r.resp.StopReason)
	}
}

// checkSoakWire reads the whole conversation: each prompt answered exactly
// once, cancelled only when it was cancelled, and none of a turn's output
// after its answer.
func checkSoakWire(t *testing.T, h *agenttest.Harness, prompts *sync.Map) {
	type line struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Prompt []struct {
				Text string `json:"text"`
			} `json:"prompt"`
			Update struct {
				SessionUpdate string `json:"sessionUpdate"`
				Content       struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"update"`
		} `json:"params"`
		Result *struct {
			StopReason string `json:"stopReason"`
		} `json:"result"`
		Error json.RawMessage `json:"error"`
	}
	tagOf := map[string]string{}  // request id → tag
	answers := map[string]int{}   // tag → answers seen
	answered := map[string]bool{} // tags answered so far, in wire order
	for _, wl := range h.Wire() {
		var l line
		if json.Unmarshal([]byte(wl.Line), &l) != nil {
			t.Fatalf("not JSON: %.200q", wl.Line)
		}
		switch {
		case !wl.FromAgent && l.Method == acp.MethodSessionPrompt && len(l.Params.Prompt) == 1:
			f := strings.Fields(l.Params.Prompt[0].Text)
			tagOf[string(l.ID)] = f[len(f)-1]
		case wl.FromAgent && l.Method == "" && tagOf[string(l.ID)] != "":
			tag := tagOf[string(l.ID)]
			answers[tag]++
			answered[tag] = true
			if l.Error != nil {
				t.Errorf("%s answered with an error: %s", tag, l.Error)
			} else if cancellable, _ := prompts.Load(tag); l.Result.StopReason == "cancelled" && cancellable != true {
				t.Errorf("%s was never cancelled but answered cancelled", tag)
			}
		case wl.FromAgent && l.Params.Update.SessionUpdate == "agent_message_chunk":
			if tag := l.Params.Update.Content.Text; answered[tag] {
				t.Errorf("output of %s after its answer", tag)
			}
		}
	}
	n := 0
	prompts.Range(func(k, _ any) bool {
		n++
		if got := answers[k.(string)]; got != 1 {
			t.Errorf("%s got %d answers", k, got)
		}
		return true
	})
	t.Logf("%d prompts, each answered once", n)
}
