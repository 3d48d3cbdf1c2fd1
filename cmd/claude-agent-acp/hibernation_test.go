package main

import (
	"log/slog"
	"testing"
	"time"
)

// TestHibernationSettings: unset is the default, 0 turns a setting off, a
// value that does not parse keeps the default.
func TestHibernationSettings(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	for _, tc := range []struct {
		max, idle string
		wantMax   int
		wantIdle  time.Duration
	}{
		{"", "", defaultMaxLiveSessions, defaultIdleTimeout},
		{"0", "0", 0, 0},
		{"3", "15m", 3, 15 * time.Minute},
		{"lots", "soon", defaultMaxLiveSessions, defaultIdleTimeout},
		{"-1", "-5m", defaultMaxLiveSessions, defaultIdleTimeout},
	} {
		t.Setenv("CLAUDE_AGENT_ACP_MAX_LIVE_SESSIONS", tc.max)
		t.Setenv("CLAUDE_AGENT_ACP_IDLE_TIMEOUT", tc.idle)
		if m, d := hibernation(log); m != tc.wantMax || d != tc.wantIdle {
			t.Errorf("%q %q: got %d %v, want %d %v", tc.max, tc.idle, m, d, tc.wantMax, tc.wantIdle)
		}
	}
}
