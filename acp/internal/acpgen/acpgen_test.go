package main

import (
	"bytes"
	"os"
	"strings"
	"sync"
	"testing"
)

const (
	stablePath   = "../../../internal/test/acptest/testdata/schema.json"
	unstablePath = "../../../internal/test/acptest/testdata/schema.unstable.json"
	outputPath   = "../../types_gen.go"

	v2StablePath   = "../../../internal/test/acptest/testdata/v2/schema.json"
	v2UnstablePath = "../../../internal/test/acptest/testdata/v2/schema.unstable.json"
	v2OutputPath   = "../../acpv2/types_gen.go"
)

// generated runs the generator once for all tests; it is slow under -race.
var generated = sync.OnceValues(func() (result, error) {
	src, m, err := generate(defaultConfig, stablePath, unstablePath)
	return result{src, m}, err
})

// generatedV2 is generated for the v2 profile (package acpv2).
var generatedV2 = sync.OnceValues(func() (result, error) {
	src, m, err := generate(v2Config, v2StablePath, v2UnstablePath)
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
	checkCurrent(t, generated, outputPath, "go generate ./acp")
}

// TestGeneratedV2FileIsCurrent is the same for acp/acpv2/types_gen.go.
func TestGeneratedV2FileIsCurrent(t *testing.T) {
	checkCurrent(t, generatedV2, v2OutputPath, "go generate ./acp/acpv2")
}

func checkCurrent(t *testing.T, gen func() (result, error), path, fix string) {
	t.Helper()
	r, err := gen()
	if err != nil {
		t.Fatal(err)
	}
	want := r.src
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(gl) && i < len(wl); i++ {
			if gl[i] != wl[i] {
				t.Fatalf("%s is stale (first difference at line %d:\n have %q\n want %q); run: %s", path, i+1, gl[i], wl[i], fix)
			}
		}
		t.Fatalf("%s is stale (%d lines, want %d); run: %s", path, len(gl), len(wl), fix)
	}
}

// TestGenerateIsDeterministic guards against map-order leaks into the output.
func TestGenerateIsDeterministic(t *testing.T) {
	for _, c := range []struct {
		gen             func() (result, error)
		cfg             config
		stable, unstble string
	}{
		{generated, defaultConfig, stablePath, unstablePath},
		{generatedV2, v2Config, v2StablePath, v2UnstablePath},
	} {
		a, err := c.gen()
		if err != nil {
			t.Fatal(err)
		}
		b, _, err := generate(c.cfg, c.stable, c.unstble)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.src, b) {
			t.Fatalf("%s: two runs produced different output", c.cfg.pkg)
		}
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

// TestV2ModelShapes checks the v2 constructs the v1 schema does not have:
// nested unions, a union whose discriminator may be null, the open integer
// ErrorCode, explicit "type" on every MCP server and auth method, and open
// string enums.
func TestV2ModelShapes(t *testing.T) {
	r, err := generatedV2()
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
	if ty := check("SessionUpdate", kindUnion); ty.Tag != "sessionUpdate" || len(ty.Variants) != 19 || ty.Nested {
		t.Errorf("SessionUpdate: tag %q, %d variants, nested %v", ty.Tag, len(ty.Variants), ty.Nested)
	}
	if ty := check("StateUpdate", kindUnion); ty.Tag != "state" || !ty.Nested || len(ty.Variants) != 3 {
		t.Errorf("StateUpdate: tag %q, nested %v, %d variants", ty.Tag, ty.Nested, len(ty.Variants))
	}
	idle := check("IdleStateUpdate", kindUnion)
	if idle.Tag != "stopReason" || !idle.Nested || !idle.NullTag || !idle.HasOther || idle.Default == nil || idle.Default.Field != "None" {
		t.Errorf("IdleStateUpdate: %+v", idle)
	}
	if len(idle.Fields) != 3 || idle.Fields[0].JSON != "usage" || !idle.Fields[0].Unstable {
		t.Errorf("IdleStateUpdate shared members: %v", idle.Fields)
	}
	if ty := check("ErrorCode", kindEnum); ty.Under != "int32" || !ty.Open || len(ty.Values) != 9 {
		t.Errorf("ErrorCode: %+v", ty)
	}
	check("Error", kindStruct)
	check("ErrorData", kindValueUnion)
	for _, name := range []string{"MCPServer", "AuthMethod"} {
		if ty := check(name, kindUnion); ty.Default != nil {
			t.Errorf("%s: v2 requires a type, but %s is the default", name, ty.Default.Field)
		}
	}
	for _, name := range []string{"ToolKind", "ToolCallStatus", "PlanEntryStatus", "Role", "DiffFileType"} {
		if ty := check(name, kindEnum); !ty.Open {
			t.Errorf("%s should be an open enum", name)
		}
	}
	if ty := check("DiffChange", kindUnion); ty.Tag != "operation" || len(ty.Fields) != 3 {
		t.Errorf("DiffChange: tag %q, %d shared members", ty.Tag, len(ty.Fields))
	}
	for _, f := range check("ToolCallUpdate", kindStruct).Fields {
		if f.JSON == "capabilities" && (f.Ptr || !f.Nullable) {
			t.Errorf("ToolCallUpdate.capabilities must be Opt (null clears it): %+v", f)
		}
	}
	if ty := check("ForkSessionRequest", kindStruct); !ty.Unstable {
		t.Error("ForkSessionRequest is not unstable")
	}
	var names []string
	for _, m := range r.m.Methods {
		names = append(names, m.Name)
	}
	want := "$/cancel_request auth/login auth/logout elicitation/complete elicitation/create initialize session/cancel session/close session/delete session/fork session/list session/new session/prompt session/request_permission session/resume session/set_config_option session/update terminal/cancel tool_call/cancel"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("v2 methods:\n got %s\nwant %s", got, want)
	}
	// The v1 output never takes the v2-only paths.
	v1, err := generated()
	if err != nil {
		t.Fatal(err)
	}
	for _, ty := range v1.m.Types {
		if ty.Nested || ty.NullTag || (ty.Kind == kindEnum && ty.Under != "string") {
			t.Errorf("v1 type %s uses a v2-only construct", ty.Name)
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
