package agent_test

import (
	"context"
	"encoding/json"
	"testing"
	"testing/synctest"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/acp"
	"github.com/claude-agent-acp/claude-agent-acp/acp/acpv2"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clifake"
)

// TestNothingOfATurnRunsAfterCloseSim is TestNothingOfATurnRunsAfterClose
// (close_e2e_test.go) on the in-memory fake CLI, every case: a session is
// closed (session/close, or the editor's stdin EOF) while its turn waits
// for a model reply that calls a tool, on v1 and v2 connections, in
// bypassPermissions (the tool would run at once) and in default mode (the
// client would allow it). The reply would come after the close: the tool
// never runs, no second model request is made, the prompt ends cancelled,
// and no CLI is left. Fake time runs past the moment the reply would have
// come, so "never" is checked, not waited for.
func TestNothingOfATurnRunsAfterCloseSim(t *testing.T) {
	t.Parallel()
	for _, proto := range []string{"v1", "v2"} {
		for _, how := range []string{"close", "eof"} {
			for _, mode := range []string{"bypassPermissions", "default"} {
				t.Run(proto+"/"+how+"/"+mode, func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) { closeMidTurnSim(t, proto, how, mode) })
				})
			}
		}
	}
}

func closeMidTurnSim(t *testing.T, proto, how, mode string) {
	w := &clifake.World{Model: func(r clifake.Request) clifake.Reply {
		if r.FollowUp {
			return clifake.Reply{Chunks: []string{"done"}}
		}
		return clifake.Reply{Delay: replyDelay, Tool: "touch marker", ToolID: "toolu_marker"}
	}}
	s := newSim(t, w, nil)
	var sid string
	var answered <-chan simAnswer
	if proto == "v1" {
		s.initialize()
		sid = s.newSession()
		if mode != "default" {
			if err := s.client.Call(context.Background(), acp.MethodSessionSetMode, &acp.SetSessionModeRequest{SessionID: acp.SessionID(sid), ModeID: acp.SessionModeID(mode)}, &acp.SetSessionModeResponse{}); err != nil {
				t.Fatalf("set_mode: %v", err)
			}
		}
		answered = s.promptAsync(sid, "mark the file")
	} else {
		sid = s.newSessionV2()
		if mode != "default" {
			var r json.RawMessage
			if err := s.client.Call(context.Background(), acpv2.MethodSessionSetConfigOption, json.RawMessage(`{"sessionId":"`+sid+`","configId":"mode","type":"id","value":"`+mode+`"}`), &r); err != nil {
				t.Fatalf("set mode: %v", err)
			}
		}
		s.promptV2(sid, "mark the file")
	}
	s.until("the model request", func() bool { return len(s.requests()) == 1 })
	if s.live() != 1 {
		t.Fatalf("%d CLIs before the close", s.live())
	}
	if how == "eof" {
		s.eof()
	} else {
		var err error
		if proto == "v1" {
			err = s.close(sid)
		} else {
			var r json.RawMessage
			err = s.client.Call(context.Background(), acpv2.MethodSessionClose, json.RawMessage(`{"sessionId":"`+sid+`"}`), &r)
		}
		if err != nil {
			t.Fatalf("close: %v", err)
		}
	}
	synctest.Wait()
	if n := s.live(); n != 0 {
		t.Fatalf("%d CLIs live after the %s", n, how)
	}
	switch {
	case proto == "v1":
		if a := <-answered; a.err != nil || a.r.StopReason != acp.StopReasonCancelled {
			t.Errorf("the prompt ended %+v %v, want cancelled", a.r, a.err)
		}
	case how == "close": // (a v2 prompt was answered at insertion; after EOF nobody is told)
		if got := s.stopReasonsV2(sid); len(got) != 1 || got[0] != "cancelled" {
			t.Errorf("the turn ended %q, want cancelled", got)
		}
	}
	s.advance(replyDelay + time.Minute) // past the moment the reply would have come
	for _, e := range w.Events() {
		if e.Kind == "tool" {
			t.Errorf("the tool ran after the %s", how)
		}
	}
	if n := len(s.requests()); n != 1 {
		t.Errorf("%d model requests, want 1 (none after the %s)", n, how)
	}
	if how == "close" {
		s.eof()
	}
}
