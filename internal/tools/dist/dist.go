// Package dist makes the release artefacts (`make dist`, see
// docs/distribution.md): one archive per platform with the binary, README
// and LICENSE; SHA256SUMS; agent.json, the ACP Registry manifest; and the
// npm packages under npm/. The same commit, version and Go toolchain give
// the same bytes: builds are -trimpath without VCS stamping, and archives
// have fixed entry order, times, owners and modes.
package dist

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Names of what is released. The npm name and the registry id carry "-go"
// so that they cannot be taken for the TypeScript reference adapter
// (@agentclientprotocol/claude-agent-acp).
const (
	BinaryName = "claude-agent-acp"
	NpmName    = "claude-agent-acp-go"
	RegistryID = "claude-agent-acp-go"
	License    = "Apache-2.0"
)

// Config says what to build and where.
type Config struct {
	Root    string    // the repository root (holds go.mod, VERSION, README.md, LICENSE)
	Out     string    // the output directory; its previous content is removed
	Version string    // "" derives it (see Version)
	BaseURL string    // where the archives are downloaded from; "" means the GitHub release; "{version}" is replaced
	MTime   time.Time // archive entry time; zero derives it (see MTime)
	Go      string    // the go command; "" means "go"
	Log     io.Writer // progress; nil discards it
}

// Result is what Build wrote.
type Result struct {
	Version string
	Files   []string // relative to Out, sorted as written
	Timings map[string]time.Duration
}

const mainPackage = "./cmd/claude-agent-acp"

// Build writes the release artefacts into cfg.Out.
func Build(cfg Config) (*Result, error) {
	if cfg.Go == "" {
		cfg.Go = "go"
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	root, err := filepath.Abs(cfg.Root)
	if err != nil {
		return nil, err
	}
	out, err := filepath.Abs(cfg.Out)
	if err != nil {
		return nil, err
	}
	if out == root || strings.HasPrefix(root, out+string(filepath.Separator)) {
		return nil, fmt.Errorf("dist: output directory %s would contain the repository", out)
	}
	module, err := modulePath(root)
	if err != nil {
		return nil, err
	}
	repo := ""
	if strings.HasPrefix(module, "github.com/") {
		repo = "https://" + module
	}
	version := cfg.Version
	if version == "" {
		if version, err = Version(root); err != nil {
			return nil, err
		}
	}
	if !semverRE.MatchString(version) {
		return nil, fmt.Errorf("dist: version %q is not semantic (1.2.3, 1.2.3-dev.x)", version)
	}
	base := cfg.BaseURL
	if base == "" {
		if repo == "" {
			return nil, fmt.Errorf("dist: module %s is not on GitHub; set the base URL (DIST_BASE_URL)", module)
		}
		base = repo + "/releases/download/v{version}"
	}
	base = strings.ReplaceAll(base, "{version}", version)
	mtime := cfg.MTime
	if mtime.IsZero() {
		mtime = MTime(root)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		return nil, err
	}
	license, err := os.ReadFile(filepath.Join(root, "LICENSE"))
	if err != nil {
		return nil, err
	}

	res := &Result{Version: version, Timings: map[string]time.Duration{}}
	if err := os.RemoveAll(out); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(out, "npm"), 0o755); err != nil {
		return nil, err
	}
	write := func(name string, data []byte) error {
		res.Files = append(res.Files, name)
		return os.WriteFile(filepath.Join(out, filepath.FromSlash(name)), data, 0o644)
	}

	fmt.Fprintf(cfg.Log, "dist: claude-agent-acp %s for %d platforms\n", version, len(Platforms))
	start := time.Now()
	bins, err := buildAll(cfg, root, version)
	if err != nil {
		return nil, err
	}
	res.Timings["build"] = time.Since(start)

	start = time.Now()
	var sums strings.Builder
	for _, p := range Platforms {
		files := []file{{name: p.Exe(), data: bins[p.Registry], exec: true},
			{name: "README.md", data: readme}, {name: "LICENSE", data: license}}
		var data []byte
		if p.GOOS == "windows" {
			data, err = zipArchive(files, mtime)
		} else {
			data, err = tarGz(files, mtime)
		}
		if err != nil {
			return nil, err
		}
		name := p.Archive(version)
		if err := write(name, data); err != nil {
			return nil, err
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(&sums, "%s  %s\n", hex.EncodeToString(sum[:]), name)
	}
	if err := write("SHA256SUMS", []byte(sums.String())); err != nil {
		return nil, err
	}
	m, err := marshal(manifest(version, base, repo))
	if err != nil {
		return nil, err
	}
	if err := ValidateManifest(m); err != nil {
		return nil, err
	}
	if err := write("agent.json", m); err != nil {
		return nil, err
	}
	pkgs, err := npmPackages(version, repo, bins, readme, license, mtime)
	if err != nil {
		return nil, err
	}
	for _, p := range pkgs {
		if err := write("npm/"+p.file, p.tgz); err != nil {
			return nil, err
		}
	}
	res.Timings["package"] = time.Since(start)
	for _, f := range res.Files {
		fmt.Fprintf(cfg.Log, "  %s\n", f)
	}
	fmt.Fprintf(cfg.Log, "dist: built in %s, packaged in %s\n",
		res.Timings["build"].Round(time.Millisecond), res.Timings["package"].Round(time.Millisecond))
	return res, nil
}

// buildAll cross-compiles the agent for every platform and returns the
// binaries by Registry key.
func buildAll(cfg Config, root, version string) (map[string][]byte, error) {
	tmp, err := os.MkdirTemp("", "claude-agent-acp-dist")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	bins := map[string][]byte{}
	for _, p := range Platforms {
		t0 := time.Now()
		path := filepath.Join(tmp, p.GOOS+"-"+p.GOARCH, p.Exe())
		cmd := exec.Command(cfg.Go, BuildArgs(version, path)...)
		cmd.Dir = root
		cmd.Env = BuildEnv(p)
		if msg, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("dist: go build for %s/%s: %v\n%s", p.GOOS, p.GOARCH, err, msg)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		bins[p.Registry] = data
		fmt.Fprintf(cfg.Log, "  built %s/%s (%.1f MB) in %s\n", p.GOOS, p.GOARCH,
			float64(len(data))/(1<<20), time.Since(t0).Round(time.Millisecond))
	}
	return bins, nil
}

// BuildArgs are the go command's arguments for a release binary: no paths
// of the build machine (-trimpath), no VCS stamp (the version is given
// instead, so a copy of the tree without .git builds the same bytes), no
// symbol table or DWARF.
func BuildArgs(version, out string) []string {
	return []string{"build", "-trimpath", "-buildvcs=false",
		"-ldflags=-s -w -X main.version=" + version, "-o", out, mainPackage}
}

// BuildEnv is the environment of a release build for p: no cgo, and the
// architecture levels pinned to Go's defaults so that the machine's
// settings do not change the code.
func BuildEnv(p Platform) []string {
	env := []string{}
	for _, kv := range os.Environ() {
		switch k, _, _ := strings.Cut(kv, "="); k {
		case "CGO_ENABLED", "GOOS", "GOARCH", "GOFLAGS", "GOAMD64", "GOARM64", "GOEXPERIMENT":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "CGO_ENABLED=0", "GOOS="+p.GOOS, "GOARCH="+p.GOARCH, "GOFLAGS=", "GOAMD64=v1", "GOARM64=v8.0")
}

// semverRE is semantic versioning 2.0.0, which npm and the registry need.
var semverRE = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)` +
	`(-(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(\.(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*)?` +
	`(\+[0-9a-zA-Z-]+(\.[0-9a-zA-Z-]+)*)?$`)

// Version is the release version of the tree at root: the VERSION file's
// version when HEAD carries the tag v<VERSION>, else a pre-release of it
// named after the commit (<VERSION>-dev.g<12 hex digits>), else, outside
// git, <VERSION>-dev.
func Version(root string) (string, error) {
	data, err := os.ReadFile(filepath.Join(root, "VERSION"))
	if err != nil {
		return "", err
	}
	base := strings.TrimSpace(string(data))
	if !semverRE.MatchString(base) || strings.ContainsAny(base, "-+") {
		return "", fmt.Errorf("dist: VERSION %q is not a release version (1.2.3)", base)
	}
	commit, err := git(root, "rev-parse", "HEAD")
	if err != nil {
		return base + "-dev", nil
	}
	tags, _ := git(root, "tag", "--points-at", "HEAD")
	for _, t := range strings.Fields(tags) {
		if t == "v"+base {
			return base, nil
		}
	}
	return base + "-dev.g" + commit[:12], nil
}

// MTime is the time of every archive entry: $SOURCE_DATE_EPOCH when set,
// else the commit time of HEAD, else 1980-01-01 (the earliest a zip can
// hold).
func MTime(root string) time.Time {
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return time.Unix(n, 0).UTC()
		}
	}
	if s, err := git(root, "log", "-1", "--format=%ct", "HEAD"); err == nil {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return time.Unix(n, 0).UTC()
		}
	}
	return time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)
}

func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	s := strings.TrimSpace(string(out))
	if s == "" && args[0] == "rev-parse" {
		return "", errors.New("git rev-parse: no output")
	}
	return s, nil
}

// modulePath reads the module path from root/go.mod.
func modulePath(root string) (string, error) {
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`), nil
		}
	}
	return "", errors.New("dist: no module line in go.mod")
}
