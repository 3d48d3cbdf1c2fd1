package scrub

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

func TestAddEnv(t *testing.T) {
	var s Secrets
	s.AddEnv([]string{
		"ANTHROPIC_AUTH_TOKEN=gw7f3a9c2e11",               // no recognisable prefix
		"HTTPS_PROXY=http://bob:hunter2pw@proxy:3128",     // a proxy password
		"ANTHROPIC_CUSTOM_HEADERS=X-Gw-Key: gwkey-000111", // a header the CLI sends
		"CLAUDE_CODE_MAX_OUTPUT_TOKENS=32000",             // not a credential
		"API_TIMEOUT_KEY=600000",                          // a number
		"HOME=/home/alice",
		"SHORT_TOKEN=abc", // too short to redact safely
	})
	in := "gateway said gw7f3a9c2e11 via bob:hunter2pw and gwkey-000111; home /home/alice, 32000 tokens, 600000 ms, abc"
	want := "gateway said [redacted] via [redacted] and [redacted]; home /home/alice, 32000 tokens, 600000 ms, abc"
	if got := s.Redact(in); got != want {
		t.Errorf("Redact:\n got %q\nwant %q", got, want)
	}
}

func TestAddHeaderAndServerEnv(t *testing.T) {
	var s Secrets
	s.AddHeader("Authorization", "Bearer mcp-tok-998877")
	s.AddHeader("X-Custom", "plain-header-secret")
	s.AddHeader("Content-Type", "application/json")
	s.AddServerEnv("SERVICE_CONFIG", "k9Xz2-opaque-credential") // any name: a client's value
	s.AddServerEnv("DATA_DIR", "/var/lib/mcp")
	s.AddServerEnv("ENDPOINT", "https://mcp.example/api")
	s.AddServerEnv("VERBOSE", "true")
	in := "sent mcp-tok-998877 and plain-header-secret as application/json; k9Xz2-opaque-credential from /var/lib/mcp to https://mcp.example/api"
	want := "sent [redacted] and [redacted] as application/json; [redacted] from /var/lib/mcp to https://mcp.example/api"
	if got := s.Redact(in); got != want {
		t.Errorf("Redact:\n got %q\nwant %q", got, want)
	}
}

// TestRedactJSON: known secrets go from inside JSON strings, in every
// form the encoders write them, and the frame stays valid; a frame
// without one is returned as it is.
func TestRedactJSON(t *testing.T) {
	var s Secrets
	secrets := []string{"nSecretStartsWithN1", `quote"and\backslash`, "html<&>chars99"}
	s.Add(secrets...)
	for _, text := range []string{
		"plain nSecretStartsWithN1 here",
		"after a newline\nnSecretStartsWithN1",
		"escaped " + `quote"and\backslash`,
		"markup html<&>chars99 end",
		`a backslash then \nSecretStartsWithN1`,
	} {
		frame, _ := json.Marshal(map[string]string{"text": text})
		frame = append(frame, '\n')
		out := s.RedactJSON(frame)
		var got map[string]string
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%q: not JSON after redaction: %s", text, out)
		}
		for _, sec := range secrets {
			if strings.Contains(got["text"], sec) {
				t.Errorf("%q: secret survived: %q", text, got["text"])
			}
		}
	}
	// "\n" followed by "SecretStartsWithN1" is not the secret.
	frame := []byte(`{"text":"a\nSecretStartsWithN1"}`)
	if out := s.RedactJSON(frame); string(out) != string(frame) {
		t.Errorf("an escape sequence was taken for a secret: %s", out)
	}
	clean := []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"text":"nothing to see"}}`)
	if out := s.RedactJSON(clean); &out[0] != &clean[0] {
		t.Error("a clean frame was copied")
	}
}

func FuzzRedactJSON(f *testing.F) {
	f.Add("some text with the secret inside", "secret inside")
	f.Add("\\nabcdef", "nabcdef")
	f.Add("x\"y\\z", "\"y\\z\"")
	f.Fuzz(func(t *testing.T, text, secret string) {
		var s Secrets
		s.Add(secret)
		frame, err := json.Marshal(map[string]string{"text": text})
		if err != nil {
			return
		}
		out := s.RedactJSON(frame)
		var got map[string]string
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("not JSON after redaction: %s (from %s)", out, frame)
		}
		// Markers stand apart, so that one cannot join text into a secret.
		if secretValue(secret) && strings.Contains(strings.ReplaceAll(got["text"], Redacted, "\x00"), secret) {
			t.Errorf("secret %q survived in %q", secret, got["text"])
		}
	})
}

// TestStreamSplitSecrets: a known secret split across streamed pieces at
// any points never reaches the output: at most its first holdMin-1
// characters go out before it is recognised, and the rest is redacted.
func TestStreamSplitSecrets(t *testing.T) {
	const secret = "zq-stream-secret-4411"
	Known.Add(secret)
	text := "Your token is " + secret + ", keep it safe."
	want := regexp.MustCompile(`^Your token is (z|zq|zq-)?\[redacted\], keep it safe\.$`)
	for cut := 0; cut <= len(text); cut++ {
		for cut2 := cut; cut2 <= len(text); cut2++ {
			for cut3 := cut2; cut3 <= len(text); cut3 += 5 {
				var st Stream
				var out []string
				for _, piece := range []string{text[:cut], text[cut:cut2], text[cut2:cut3], text[cut3:]} {
					out = append(out, st.Next(piece))
				}
				out = append(out, st.Flush())
				if joined := strings.Join(out, ""); !want.MatchString(joined) {
					t.Fatalf("cuts %d,%d,%d: %q", cut, cut2, cut3, out)
				}
			}
		}
	}
}

// TestStreamHoldsOnlyWhatCouldBeASecret: text that cannot start a known
// secret goes out at once, the first piece included; an end that could
// is held for one piece.
func TestStreamHoldsOnlyWhatCouldBeASecret(t *testing.T) {
	Known.Add("zq-stream-secret-4411")
	var st Stream
	if got := st.Next("Hello, world. "); got != "Hello, world. " || st.Holding() {
		t.Errorf("first piece: %q (holding %v)", got, st.Holding())
	}
	if got := st.Next("The prefix zq"); got != "The prefix zq" || st.Holding() {
		t.Errorf("piece ending in a secret's first characters: %q (holding %v)", got, st.Holding())
	}
	if got := st.Next("-s"); got != "" || !st.Holding() {
		t.Errorf("piece ending in a secret's start: %q (holding %v)", got, st.Holding())
	}
	if got := st.Next("uiet is not it"); got != "-suiet is not it" || st.Holding() {
		t.Errorf("next piece: %q (holding %v)", got, st.Holding())
	}
}

// BenchmarkStream is the cost of a streamed delta with secrets known.
func BenchmarkStream(b *testing.B) {
	Known.Add("zq-stream-secret-4411", "sk-ant-api03-benchmarkkey", "hunter2-proxy")
	piece := "some streamed words of an answer, "
	var st Stream
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = st.Next(piece)
	}
}

// BenchmarkRedactJSON is the cost of the connection's filter for a
// streamed chunk's frame with secrets known.
func BenchmarkRedactJSON(b *testing.B) {
	var s Secrets
	s.Add("zq-stream-secret-4411", "sk-ant-api03-benchmarkkey", "hunter2-proxy")
	frame := []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"0b6f6a8e-5c1f-4b7e-9d55-3c1b7a0b9e11","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"some streamed words of an answer, and some more of them"},"messageId":"msg_01XFDUDYJgAACzvnptvVoYEL"}}}` + "\n")
	b.SetBytes(int64(len(frame)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = s.RedactJSON(frame)
	}
}
