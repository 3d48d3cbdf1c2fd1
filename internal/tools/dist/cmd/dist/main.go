// Command dist writes the release artefacts: `make dist` runs it. See
// docs/distribution.md.
//
//	go run ./internal/tools/dist/cmd/dist [-out dist] [-version 1.2.3] [-base-url URL]
//
// -version defaults to $DIST_VERSION, else VERSION (and git: see
// dist.Version); -base-url to $DIST_BASE_URL, else the GitHub release of
// the module's repository ("{version}" in it is replaced).
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/claude-agent-acp/claude-agent-acp/internal/tools/dist"
)

func main() {
	root := flag.String("root", "", "the repository root (default: the nearest directory with go.mod)")
	out := flag.String("out", "", "the output directory (default: dist under the root)")
	version := flag.String("version", os.Getenv("DIST_VERSION"), "the release version")
	baseURL := flag.String("base-url", os.Getenv("DIST_BASE_URL"), "the URL the archives are downloaded from")
	flag.Parse()
	if err := run(*root, *out, *version, *baseURL); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(root, out, version, baseURL string) error {
	if root == "" {
		var err error
		if root, err = findRoot(); err != nil {
			return err
		}
	}
	if out == "" {
		out = filepath.Join(root, "dist")
	}
	goCmd := os.Getenv("GO")
	_, err := dist.Build(dist.Config{Root: root, Out: out, Version: version, BaseURL: baseURL, Go: goCmd, Log: os.Stderr})
	return err
}

func findRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("dist: no go.mod above the working directory")
		}
		dir = parent
	}
}
