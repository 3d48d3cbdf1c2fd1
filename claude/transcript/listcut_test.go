package transcript

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// cliUserLine is a user record with its members in the CLI's order: the
// message before the cwd, as the CLI writes it (json.Marshal would sort
// the cwd first).
func cliUserLine(id, cwd, text string) string {
	return fmt.Sprintf(`{"parentUuid":null,"isSidechain":false,"promptId":"p1","type":"user","message":{"role":"user","content":[{"text":%q,"type":"text"}]},"uuid":%q,"timestamp":"2026-11-29T12:12:49.155Z","userType":"external","cwd":%q,"sessionId":%q,"version":"2.1.332"}`,
		text, id, cwd, sid)
}

func cliAssistantLine(id, parent, cwd, text string) string {
	return fmt.Sprintf(`{"parentUuid":%q,"isSidechain":false,"message":{"content":[{"text":%q,"type":"text"}],"id":"msg_1","model":"m","role":"assistant","type":"message"},"type":"assistant","uuid":%q,"timestamp":"2026-11-29T12:12:50.155Z","cwd":%q,"sessionId":%q}`,
		parent, text, id, cwd, sid)
}

// TestListSessionWithHugeFirstPrompt: a session whose first prompt is
// longer than the head List reads is listed, with or without a cwd
// filter, with its cwd and a title, whether the cwd is near the end of the
// file or only far before it, and whether a last-prompt record titles it
// or only the cut prompt can.
func TestListSessionWithHugeFirstPrompt(t *testing.T) {
	const cwd = "/home/me/work/big"
	huge := "Summarise this: " + strings.Repeat("lorem ipsum ", 100<<10/12) // 100 KiB
	lastPrompt := `{"type":"last-prompt","lastPrompt":"Summarise this: lorem ipsum…","sessionId":"` + sid + `"}`
	blob := `{"type":"api-request-blob","sessionId":"` + sid + `","blob":"` + strings.Repeat("x", 200<<10) + `"}`
	for _, tc := range []struct {
		name  string
		lines []string
	}{
		{"cwd in the tail", []string{`{"type":"queue-operation","operation":"enqueue","sessionId":"` + sid + `"}`,
			cliUserLine(uid(1), cwd, huge), cliAssistantLine(uid(2), uid(1), cwd, "ok"), lastPrompt}},
		{"cwd only far back", []string{cliUserLine(uid(1), cwd, huge), cliAssistantLine(uid(2), uid(1), cwd, "ok"), blob, lastPrompt}},
		{"title from the cut prompt", []string{cliUserLine(uid(1), cwd, huge), blob}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := t.TempDir()
			session(t, cfg, cwd, sid, time.Now(), tc.lines...)
			for _, f := range []Filter{{}, {Cwd: cwd}} {
				p, err := List(cfg, f)
				if err != nil {
					t.Fatal(err)
				}
				if len(p.Sessions) != 1 {
					t.Fatalf("filter %+v: %d sessions listed, want 1", f, len(p.Sessions))
				}
				if s := p.Sessions[0]; s.Cwd != cwd || !strings.HasPrefix(s.Title, "Summarise this: lorem ipsum") {
					t.Errorf("filter %+v: row %+v", f, s)
				}
			}
		})
	}
}

func TestJSONStringPrefix(t *testing.T) {
	for in, want := range map[string]string{
		`"whole"`:         "whole",
		`"cut here`:       "cut here",
		`"escape cut \`:   "escape cut ",
		`"unicode \u00e`:  "unicode ",
		`"two \\`:         `two \`,
		`"nl \n and more`: "nl \n and more",
	} {
		if got, ok := jsonStringPrefix([]byte(in)); !ok || got != want {
			t.Errorf("jsonStringPrefix(%s) = %q, %v; want %q", in, got, ok, want)
		}
	}
}
