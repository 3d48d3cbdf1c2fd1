package dist

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// agentSchema is the ACP Registry's manifest schema (agent.schema.json of
// github.com/agentclientprotocol/registry, Apache-2.0, unmodified).
//
//go:embed agent.schema.json
var agentSchema []byte

// Manifest is an ACP Registry agent.json.
type Manifest struct {
	ID           string       `json:"id"`
	Name         string       `json:"name"`
	Version      string       `json:"version"`
	Description  string       `json:"description"`
	Repository   string       `json:"repository,omitempty"`
	Authors      []string     `json:"authors,omitempty"`
	License      string       `json:"license,omitempty"`
	Distribution Distribution `json:"distribution"`
}

// Distribution is how a client installs the agent.
type Distribution struct {
	Binary map[string]BinaryTarget `json:"binary,omitempty"`
	Npx    *PackageTarget          `json:"npx,omitempty"`
}

// BinaryTarget is one platform's archive and the command inside it.
type BinaryTarget struct {
	Archive string   `json:"archive"`
	Cmd     string   `json:"cmd"`
	Args    []string `json:"args,omitempty"`
}

// PackageTarget is an npm package run with npx.
type PackageTarget struct {
	Package string   `json:"package"`
	Args    []string `json:"args,omitempty"`
}

// manifest describes the release of version whose archives are under
// baseURL.
func manifest(version, baseURL, repo string) Manifest {
	m := Manifest{
		ID:          RegistryID,
		Name:        "Claude Code (Go)",
		Version:     version,
		Description: "Claude Code over ACP as one static Go binary: drives the Claude Code CLI (prompts, tool calls with permissions, edit diffs, plans, modes, MCP servers)",
		Repository:  repo,
		Authors:     []string{"claude-agent-acp contributors"},
		License:     License,
		Distribution: Distribution{
			Binary: map[string]BinaryTarget{},
			Npx:    &PackageTarget{Package: NpmName + "@" + version},
		},
	}
	for _, p := range Platforms {
		m.Distribution.Binary[p.Registry] = BinaryTarget{
			Archive: strings.TrimSuffix(baseURL, "/") + "/" + p.Archive(version),
			Cmd:     "./" + p.Exe(),
		}
	}
	return m
}

// ValidateManifest checks an agent.json against the registry's schema,
// formats (the archive URIs) included.
func ValidateManifest(data []byte) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(agentSchema))
	if err != nil {
		return err
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	const url = "https://cdn.agentclientprotocol.com/registry/v1/latest/agent.schema.json"
	if err := c.AddResource(url, doc); err != nil {
		return err
	}
	sch, err := c.Compile(url)
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("agent.json is not JSON: %w", err)
	}
	if err := sch.Validate(inst); err != nil {
		return fmt.Errorf("agent.json does not match the registry schema: %w", err)
	}
	return nil
}

// marshal is json.MarshalIndent with a final newline and without HTML
// escaping (map keys come out sorted, so the bytes are stable).
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
