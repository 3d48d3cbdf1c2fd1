package main

import (
	"bytes"
	"os"
	"strings"
	"sync"
	"testing"
)

const (
	stablePath   = "../acptest/testdata/schema.json"
	unstablePath = "../acptest/testdata/schema.unstable.json"
	outputPath   = "../../acp/types_gen.go"
)

// generated runs the generator once for all tests; it is slow under -race.
var generated = sync.OnceValues(func() (result, error) {
	src, m, err := generate(stablePath, unstablePath)
	return result{src, m}, err
})

type result struct {
	src []byte
	m   *model
}

// TestGeneratedFileIsCurrent regenerates acp/types_gen.go in memory and
// fails when the committed file differs, so a schema or generator change
// cannot land without its output.
func TestGeneratedFileIsCurrent(t *testing.T) {
	r, err := generated()
	if err != nil {
		t.Fatal(err)
	}
	want := r.src
	got, err := os.ReadFile(outputPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(gl) && i < len(wl); i++ {
			if gl[i] != wl[i] {
				t.Fatalf("acp/types_gen.go is stale (first difference at line %d:\n have %q\n want %q); run: go generate ./acp", i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("acp/types_gen.go is stale (%d lines, want %d); run: go generate ./acp", len(gl), len(wl))
	}
}

// TestGenerateIsDeterministic guards against map-order leaks into the output.
func TestGenerateIsDeterministic(t *testing.T) {
	a, err := generated()
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := generate(stablePath, unstablePath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.src, b) {
		t.Fatal("two runs produced different output")
	}
}

func TestModelShapes(t *testing.T) {
	r, err := generated()
	if err != nil {
		t.Fatal(err)
	}
	byGo := map[string]*goType{}
	for _, ty := range r.m.Types {
		byGo[ty.Name] = ty
	}
	check := func(name string, k kind) *goType {
		t.Helper()
		ty := byGo[name]
		if ty == nil {
			t.Fatalf("type %s not generated", name)
		}
		if ty.Kind != k {
			t.Fatalf("%s: kind %d, want %d", name, ty.Kind, k)
		}
		return ty
	}
	if ty := check("MCPServer", kindUnion); ty.Default == nil || ty.Default.Field != "Stdio" || ty.Tag != "type" {
		t.Errorf("MCPServer: default variant %+v", ty.Default)
	}
	if ty := check("AuthMethod", kindUnion); ty.Default == nil || ty.Default.Field != "Agent" {
		t.Errorf("AuthMethod: default variant %+v", ty.Default)
	}
	if ty := check("SessionUpdate", kindUnion); ty.Tag != "sessionUpdate" || len(ty.Variants) != 14 {
		t.Errorf("SessionUpdate: tag %q, %d variants", ty.Tag, len(ty.Variants))
	}
	if ty := check("SessionConfigOption", kindUnion); len(ty.Fields) == 0 {
		t.Error("SessionConfigOption: no shared members")
	}
	check("ElicitationContentValue", kindValueUnion)
	if ty := check("ElicitationFormMode", kindStruct); len(ty.Flat) != 2 {
		t.Errorf("ElicitationFormMode: %d flattened alternatives", len(ty.Flat))
	}
	if ty := check("SessionConfigOptionCategory", kindEnum); !ty.Open {
		t.Error("SessionConfigOptionCategory should be an open enum")
	}
	if ty := check("ToolKind", kindEnum); ty.Open {
		t.Error("ToolKind should be a closed enum")
	}
	if ty := check("ForkSessionRequest", kindStruct); !ty.Unstable || len(ty.Dropped) != 1 {
		t.Errorf("ForkSessionRequest: unstable %v, dropped %v", ty.Unstable, ty.Dropped)
	}
	for _, skipped := range []string{"Error", "ErrorCode", "RequestID"} {
		if byGo[skipped] != nil {
			t.Errorf("%s must not be generated", skipped)
		}
	}
}

func TestGoName(t *testing.T) {
	for in, want := range map[string]string{
		"sessionId":                  "SessionID",
		"McpServerHttp":              "MCPServerHTTP",
		"HTTPHeader":                 "HTTPHeader",
		"resource_link":              "ResourceLink",
		"session/request_permission": "SessionRequestPermission",
		"$/cancel_request":           "CancelRequest",
		"date-time":                  "DateTime",
		"fs/read_text_file":          "FSReadTextFile",
		"_meta":                      "Meta",
		"mimeType":                   "MimeType",
	} {
		if got := goName(in); got != want {
			t.Errorf("goName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDocText(t *testing.T) {
	got := docText("First line [link](https://x).\nSee protocol docs: [X](https://y)\n\n**UNSTABLE**\n\nSecond.", false, typeDoc)
	want := []string{"First line link.", "", "Second.", "", unstableNote}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("docText = %q, want %q", got, want)
	}
}
