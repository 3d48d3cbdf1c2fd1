package dist

import (
	_ "embed"
	"fmt"
	"strings"
	"time"
)

// shimJS is the main npm package's bin: it runs the platform package's
// binary.
//
//go:embed npm/claude-agent-acp-go.js
var shimJS []byte

// packageJSON is the part of an npm package.json we write.
type packageJSON struct {
	Name                 string            `json:"name"`
	Version              string            `json:"version"`
	Description          string            `json:"description"`
	License              string            `json:"license"`
	Homepage             string            `json:"homepage,omitempty"`
	Repository           *npmRepository    `json:"repository,omitempty"`
	Bin                  map[string]string `json:"bin,omitempty"`
	OS                   []string          `json:"os,omitempty"`
	CPU                  []string          `json:"cpu,omitempty"`
	Engines              map[string]string `json:"engines,omitempty"`
	OptionalDependencies map[string]string `json:"optionalDependencies,omitempty"`
	PreferUnplugged      bool              `json:"preferUnplugged,omitempty"`
}

type npmRepository struct {
	Type string `json:"type"`
	URL  string `json:"url"`
}

// npmPackage is one npm package: its name and the .tgz npm pack would
// write for it.
type npmPackage struct {
	name, file string
	tgz        []byte
}

// npmPackages returns the main package and one package per platform, as
// tarballs: the main package's shim picks the platform package npm
// installed (see npm/claude-agent-acp-go.js). bins maps each platform's
// Registry key to its binary.
func npmPackages(version, repo string, bins map[string][]byte, readme, license []byte, mtime time.Time) ([]npmPackage, error) {
	var repository *npmRepository
	if repo != "" {
		repository = &npmRepository{Type: "git", URL: "git+" + repo + ".git"}
	}
	main := packageJSON{
		Name:                 NpmName,
		Version:              version,
		Description:          "Claude Code over the Agent Client Protocol (ACP): the claude-agent-acp Go binary for editors such as Zed and JetBrains IDEs",
		License:              License,
		Homepage:             repo,
		Repository:           repository,
		Bin:                  map[string]string{NpmName: "bin/" + NpmName + ".js"},
		Engines:              map[string]string{"node": ">=16"},
		OptionalDependencies: map[string]string{},
	}
	var pkgs []npmPackage
	for _, p := range Platforms {
		main.OptionalDependencies[p.NpmPackage()] = version
		pj := packageJSON{
			Name:            p.NpmPackage(),
			Version:         version,
			Description:     fmt.Sprintf("The %s %s binary of %s (install %s, not this)", p.NpmOS, p.NpmCPU, NpmName, NpmName),
			License:         License,
			Homepage:        repo,
			Repository:      repository,
			OS:              []string{p.NpmOS},
			CPU:             []string{p.NpmCPU},
			PreferUnplugged: true,
		}
		pjData, err := marshal(pj)
		if err != nil {
			return nil, err
		}
		note := fmt.Sprintf("# %s\n\nThe %s/%s binary of [%s](https://www.npmjs.com/package/%s), which installs it as an\noptional dependency on this platform. Install `%s`, not this package.\n",
			p.NpmPackage(), p.NpmOS, p.NpmCPU, NpmName, NpmName, NpmName)
		pkg, err := npmTarball(p.NpmPackage(), version, []file{
			{name: "package.json", data: pjData},
			{name: "README.md", data: []byte(note)},
			{name: "LICENSE", data: license},
			{name: "bin/" + p.Exe(), data: bins[p.Registry], exec: true},
		}, mtime)
		if err != nil {
			return nil, err
		}
		pkgs = append(pkgs, pkg)
	}
	mainData, err := marshal(main)
	if err != nil {
		return nil, err
	}
	pkg, err := npmTarball(NpmName, version, []file{
		{name: "package.json", data: mainData},
		{name: "README.md", data: readme},
		{name: "LICENSE", data: license},
		{name: "bin/" + NpmName + ".js", data: shimJS, exec: true},
	}, mtime)
	if err != nil {
		return nil, err
	}
	return append([]npmPackage{pkg}, pkgs...), nil
}

// npmTarball packs files under package/, as npm pack does, into the file
// name npm pack would choose.
func npmTarball(name, version string, files []file, mtime time.Time) (npmPackage, error) {
	entries := make([]file, len(files))
	for i, f := range files {
		f.name = "package/" + f.name
		entries[i] = f
	}
	tgz, err := tarGz(entries, mtime)
	if err != nil {
		return npmPackage{}, err
	}
	file := strings.ReplaceAll(strings.TrimPrefix(name, "@"), "/", "-") + "-" + version + ".tgz"
	return npmPackage{name: name, file: file, tgz: tgz}, nil
}
