package agent

import "testing"

// TestTurnPhases: the phase changes a turn can make, and that any other is
// refused without changing the phase.
func TestTurnPhases(t *testing.T) {
	t.Parallel()
	all := []turnPhase{turnQueued, turnSent, turnWithdrawing, turnRunning}
	allowed := map[[2]turnPhase]bool{
		{turnQueued, turnSent}:         true,
		{turnSent, turnRunning}:        true,
		{turnSent, turnWithdrawing}:    true,
		{turnSent, turnQueued}:         true,
		{turnWithdrawing, turnQueued}:  true,
		{turnWithdrawing, turnSent}:    true,
		{turnWithdrawing, turnRunning}: true,
	}
	for _, from := range all {
		for _, to := range all {
			tr := &turn{phase: from}
			ok := tr.moveTo(to)
			want := from == to || allowed[[2]turnPhase{from, to}]
			if ok != want {
				t.Errorf("%s → %s: moveTo says %v, want %v", from, to, ok, want)
			}
			if ok && tr.phase != to || !ok && tr.phase != from {
				t.Errorf("%s → %s: phase is %s", from, to, tr.phase)
			}
		}
	}
	// Running is for good: nothing takes a started turn back.
	for _, to := range all[:3] {
		if (&turn{phase: turnRunning}).moveTo(to) {
			t.Errorf("running → %s allowed", to)
		}
	}
}

// TestTurnLifecycle walks the paths a prompt takes through the phases.
func TestTurnLifecycle(t *testing.T) {
	t.Parallel()
	for _, path := range [][]turnPhase{
		{turnSent, turnRunning}, // sent and run
		{turnSent, turnWithdrawing, turnQueued, turnSent, turnRunning}, // taken back by an interrupt, sent again
		{turnSent, turnWithdrawing, turnSent, turnRunning},             // could not be taken back
		{turnSent, turnWithdrawing, turnRunning},                       // started while being taken back
	} {
		tr := &turn{}
		for _, p := range path {
			if !tr.moveTo(p) {
				t.Fatalf("path %v: stuck at %s → %s", path, tr.phase, p)
			}
		}
		if tr.inCLI() {
			t.Errorf("path %v: a running turn counts as waiting in the CLI", path)
		}
	}
}

// closedMailbox is the inbox of a session without a goroutine (tests that
// drive a session's methods themselves): do and post report it ended.
func closedMailbox() *mailbox {
	b := newMailbox()
	b.close(nil)
	return b
}
