package acp

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the expected output of conformance files")

// TestConformance runs every testdata/conformance/*.txtar file: raw lines
// in, raw lines out, over real pipes. A file's comment may set options:
//
//	gate: true        the connection requires initialize first
//	maxframe: N       the inbound frame limit
//	grace: 50ms       the cancel grace period
//	ordered: true     output order matters (otherwise compared as a set)
//
// Sections: "in" holds the lines the peer writes; "out" the lines the
// connection must write, exactly, and nothing more. In "in", a line
// "@await N" waits until the connection has written N lines in all before
// the next line is sent (to answer a call the connection made), and see
// expandLine for compact forms of unusual lines.
func TestConformance(t *testing.T) {
	files, _ := filepath.Glob("testdata/conformance/*.txtar")
	if len(files) == 0 {
		t.Fatal("no conformance files")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			t.Parallel()
			runConformance(t, file)
		})
	}
}

func runConformance(t *testing.T, file string) {
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{CancelGrace: time.Second}
	ordered := false
	for _, line := range strings.Split(string(ar.Comment), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch strings.TrimSpace(k) {
		case "gate":
			opts.InitializeMethod = "initialize"
		case "maxframe":
			opts.MaxFrameSize, _ = strconv.Atoi(v)
		case "grace":
			opts.CancelGrace, _ = time.ParseDuration(v)
		case "ordered":
			ordered = v == "true"
		}
	}
	var in, want []string
	var outIdx int
	for i, f := range ar.Files {
		switch f.Name {
		case "in":
			in = lines(f.Data)
		case "out":
			want = lines(f.Data)
			outIdx = i
		}
	}
	var conn *Conn
	opts.Handler = testHandler(func() *Conn { return conn })
	peer := newTestPeer(t, opts)
	conn = peer.conn
	var got []string
	for _, l := range in {
		if n, ok := strings.CutPrefix(l, "@await "); ok {
			count, _ := strconv.Atoi(n)
			for len(got) < count {
				got = append(got, normalize(t, peer.recv(5*time.Second)))
			}
			continue
		}
		peer.send(expandLine(l))
	}
	if *update {
		for {
			select {
			case l := <-peer.got:
				got = append(got, normalize(t, l))
				continue
			case <-time.After(1500 * time.Millisecond):
			}
			break
		}
	} else {
		for len(got) < len(want) {
			got = append(got, normalize(t, peer.recv(5*time.Second)))
		}
	}
	if *update {
		ar.Files[outIdx].Data = []byte(strings.Join(got, "\n") + "\n")
		if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	peer.quiet(150 * time.Millisecond)
	for i := range want {
		want[i] = normalize(t, want[i])
	}
	if !ordered {
		sortStrings(got)
		sortStrings(want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d:\n got: %s\nwant: %s", i, got[i], want[i])
		}
	}
}

// expandLine lets a file write unusual lines plainly: "@big N LINE" is
// LINE with its word BIG replaced by N bytes of "x"; "@bom LINE" is LINE
// after a UTF-8 byte-order mark.
func expandLine(l string) string {
	if rest, ok := strings.CutPrefix(l, "@bom "); ok {
		return "\uFEFF" + expandLine(rest)
	}
	if rest, ok := strings.CutPrefix(l, "@big "); ok {
		n, body, _ := strings.Cut(rest, " ")
		size, _ := strconv.Atoi(n)
		return strings.Replace(body, "BIG", strings.Repeat("x", size), 1)
	}
	return l
}

func lines(b []byte) []string {
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(l) != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out
}

// normalize re-encodes a JSON line with sorted keys, keeping numbers
// exactly as written.
func normalize(t *testing.T, l string) string {
	dec := json.NewDecoder(strings.NewReader(l))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("output is not JSON: %q", l)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSpace(buf.String())
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}
