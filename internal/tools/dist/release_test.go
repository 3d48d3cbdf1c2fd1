package dist_test

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/claude-agent-acp/claude-agent-acp/internal/test/clitest"
	"github.com/claude-agent-acp/claude-agent-acp/internal/test/fakeapi"
	"github.com/claude-agent-acp/claude-agent-acp/internal/tools/dist"
)

// TestRelease is the one heavy test of the release: `make dist` in a
// temporary copy of the repository (every platform cross-built), then the
// artefacts checked the way their users use them. It runs once per `make
// test`; -short skips it.
const (
	releaseVersion = "0.9.1-test.1"
	releaseEpoch   = "1700000000"
)

func TestRelease(t *testing.T) {
	if testing.Short() {
		t.Skip("the release test builds six binaries; skipped with -short")
	}
	root, err := clitest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	copyDir := copyRepo(t, root)

	start := time.Now()
	cmd := exec.Command("make", "dist", "DIST_VERSION="+releaseVersion)
	cmd.Dir = copyDir
	cmd.Env = append(os.Environ(), "SOURCE_DATE_EPOCH="+releaseEpoch, "MAKEFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make dist: %v\n%s", err, out)
	} else {
		t.Logf("make dist in a copy of the tree: %s\n%s", time.Since(start).Round(time.Millisecond), out)
	}
	out := filepath.Join(copyDir, "dist")

	t.Run("reproducible", func(t *testing.T) {
		// The same version and time from another directory (the real
		// tree, with .git) give the same bytes.
		again := filepath.Join(t.TempDir(), "dist")
		start := time.Now()
		t.Setenv("SOURCE_DATE_EPOCH", releaseEpoch)
		if _, err := dist.Build(dist.Config{Root: root, Out: again, Version: releaseVersion}); err != nil {
			t.Fatal(err)
		}
		t.Logf("second dist (build cache warm): %s", time.Since(start).Round(time.Millisecond))
		a, b := treeHashes(t, out), treeHashes(t, again)
		if len(a) != 15 {
			t.Errorf("dist has %d files: %v", len(a), a)
		}
		for name, h := range a {
			if b[name] != h {
				t.Errorf("%s differs between the two builds", name)
			}
		}
	})

	m := checkManifest(t, out)
	t.Run("archives", func(t *testing.T) { checkArchives(t, root, out, m) })
	t.Run("initialize", func(t *testing.T) { initializeLinuxBinary(t, out) })
	t.Run("npm", func(t *testing.T) { npmInstallAndPrompt(t, out) })
	t.Run("go install", func(t *testing.T) { goInstallFromModuleProxy(t, copyDir) })
}

// copyRepo copies the tracked and untracked-but-not-ignored files of root
// (no .git, no .deps, no dist) into a temporary directory.
func copyRepo(t *testing.T, root string) string {
	t.Helper()
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = root
	list, err := cmd.Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	dst := filepath.Join(t.TempDir(), "repo")
	for _, rel := range strings.Split(strings.TrimRight(string(list), "\x00"), "\x00") {
		src := filepath.Join(root, rel)
		st, err := os.Lstat(src)
		if err != nil || !st.Mode().IsRegular() {
			continue // deleted in the work tree, or a symlink
		}
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, st.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func treeHashes(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		sum := sha256.Sum256(data)
		out[filepath.ToSlash(rel)] = hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkManifest validates agent.json against the registry schema and
// returns it.
func checkManifest(t *testing.T, out string) dist.Manifest {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(out, "agent.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := dist.ValidateManifest(data); err != nil {
		t.Fatal(err)
	}
	var m dist.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if m.Version != releaseVersion || m.ID != dist.RegistryID || m.Distribution.Npx == nil ||
		m.Distribution.Npx.Package != dist.NpmName+"@"+releaseVersion || len(m.Distribution.Binary) != 6 {
		t.Fatalf("manifest %+v", m)
	}
	return m
}

// checkArchives checks each archive against SHA256SUMS and the manifest:
// the URL names it, it holds exactly the binary (the manifest's cmd,
// executable, built for its platform), README.md and LICENSE, all with the
// fixed time.
func checkArchives(t *testing.T, root, out string, m dist.Manifest) {
	sums, err := os.ReadFile(filepath.Join(out, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(sums)), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok {
			t.Fatalf("SHA256SUMS line %q", line)
		}
		listed[name] = sum
	}
	readme, _ := os.ReadFile(filepath.Join(root, "README.md"))
	license, _ := os.ReadFile(filepath.Join(root, "LICENSE"))
	wantTime := time.Unix(1700000000, 0).UTC()
	for _, p := range dist.Platforms {
		name := p.Archive(releaseVersion)
		data, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		if listed[name] != hex.EncodeToString(sum[:]) {
			t.Errorf("%s: SHA256SUMS says %q", name, listed[name])
		}
		target := m.Distribution.Binary[p.Registry]
		wantURL := "https://github.com/claude-agent-acp/claude-agent-acp/releases/download/v" + releaseVersion + "/" + name
		if target.Archive != wantURL {
			t.Errorf("%s: archive URL %s, want %s", p.Registry, target.Archive, wantURL)
		}
		entries := readArchive(t, name, data)
		exe := strings.TrimPrefix(target.Cmd, "./")
		if len(entries) != 3 || entries[exe] == nil || string(entries["README.md"].data) != string(readme) ||
			string(entries["LICENSE"].data) != string(license) {
			t.Errorf("%s: entries %v", name, keys(entries))
			continue
		}
		for n, e := range entries {
			if !e.mtime.Equal(wantTime) {
				t.Errorf("%s/%s: time %v", name, n, e.mtime)
			}
		}
		if entries[exe].mode.Perm() != 0o755 {
			t.Errorf("%s: %s mode %v", name, exe, entries[exe].mode)
		}
		if got := binaryPlatform(entries[exe].data); got != p.GOOS+"/"+p.GOARCH {
			t.Errorf("%s: the binary is for %s", name, got)
		}
	}
	if len(listed) != len(dist.Platforms) {
		t.Errorf("SHA256SUMS lists %d files", len(listed))
	}
}

type archived struct {
	data  []byte
	mode  os.FileMode
	mtime time.Time
}

func readArchive(t *testing.T, name string, data []byte) map[string]*archived {
	t.Helper()
	out := map[string]*archived{}
	if strings.HasSuffix(name, ".zip") {
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range zr.File {
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(rc)
			rc.Close()
			out[f.Name] = &archived{b, f.Mode(), f.Modified.UTC()}
		}
		return out
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(tr)
		out[h.Name] = &archived{b, h.FileInfo().Mode(), h.ModTime.UTC()}
	}
}

func keys(m map[string]*archived) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// binaryPlatform reads the GOOS/GOARCH an executable was built for.
func binaryPlatform(b []byte) string {
	r := bytes.NewReader(b)
	if f, err := elf.NewFile(r); err == nil {
		switch f.Machine {
		case elf.EM_X86_64:
			return "linux/amd64"
		case elf.EM_AARCH64:
			return "linux/arm64"
		}
	}
	if f, err := macho.NewFile(r); err == nil {
		switch f.Cpu {
		case macho.CpuAmd64:
			return "darwin/amd64"
		case macho.CpuArm64:
			return "darwin/arm64"
		}
	}
	if f, err := pe.NewFile(r); err == nil {
		switch f.Machine {
		case pe.IMAGE_FILE_MACHINE_AMD64:
			return "windows/amd64"
		case pe.IMAGE_FILE_MACHINE_ARM64:
			return "windows/arm64"
		}
	}
	return "unknown"
}

// extractBinary writes this machine's Linux binary from its archive.
func extractBinary(t *testing.T, out string) string {
	t.Helper()
	if runtime.GOOS != "linux" || (runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64") {
		t.Skipf("no release binary for %s/%s to run", runtime.GOOS, runtime.GOARCH)
	}
	p := dist.Platform{GOOS: "linux", GOARCH: runtime.GOARCH}
	name := p.Archive(releaseVersion)
	data, err := os.ReadFile(filepath.Join(out, name))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "claude-agent-acp")
	if err := os.WriteFile(bin, readArchive(t, name, data)["claude-agent-acp"].data, 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// initializeLinuxBinary runs the archive's binary: --version is the
// manifest's version, and it answers initialize with a terminal login.
func initializeLinuxBinary(t *testing.T, out string) {
	bin := extractBinary(t, out)
	v, err := exec.Command(bin, "--version").Output()
	if err != nil || strings.TrimSpace(string(v)) != "claude-agent-acp "+releaseVersion {
		t.Fatalf("--version: %q %v", v, err)
	}
	resp := initialize(t, exec.Command(bin))
	if resp.Result.AgentInfo.Version != releaseVersion || len(resp.Result.AuthMethods) == 0 ||
		resp.Result.AuthMethods[0].Type != "terminal" {
		t.Errorf("initialize result %+v", resp.Result)
	}
}

type initializeResponse struct {
	Result struct {
		AgentInfo struct {
			Name, Version string
		} `json:"agentInfo"`
		AuthMethods []struct {
			Type, ID string
			Args     []string
		} `json:"authMethods"`
	} `json:"result"`
}

// initialize sends initialize to the agent cmd and returns its answer.
func initialize(t *testing.T, cmd *exec.Cmd) initializeResponse {
	t.Helper()
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	line, err := bufio.NewReader(stdout).ReadBytes('\n')
	if err != nil {
		t.Fatalf("no answer to initialize: %v\n%s", err, stderr.String())
	}
	var resp initializeResponse
	if err := json.Unmarshal(line, &resp); err != nil {
		t.Fatalf("%v: %s", err, line)
	}
	return resp
}

// npmInstallAndPrompt installs the npm tarballs offline into a scratch
// prefix (the main package and this platform's, as npm would pick it) and
// has acpx run a prompt turn through the installed command, against the
// real CLI and the fake Messages API.
func npmInstallAndPrompt(t *testing.T, out string) {
	npm, err := exec.LookPath("npm")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("npm not found")
		}
		t.Skip("npm not found")
	}
	acpx := clitest.Dep(t, "acpx", filepath.Join("node_modules", ".bin", "acpx"))
	if runtime.GOOS != "linux" {
		t.Skip("the npm packages are checked on Linux")
	}
	cpu := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	prefix := filepath.Join(t.TempDir(), "prefix")
	tgz := func(name string) string { return filepath.Join(out, "npm", name+"-"+releaseVersion+".tgz") }
	cmd := exec.Command(npm, "install", "--offline", "--no-audit", "--no-fund", "--loglevel=error",
		"--prefix", prefix, tgz(dist.NpmName), tgz(dist.NpmName+"-linux-"+cpu))
	cmd.Env = append(os.Environ(), "npm_config_cache="+filepath.Join(t.TempDir(), "npm-cache"))
	start := time.Now()
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm install --offline: %v\n%s", err, msg)
	}
	t.Logf("npm install --offline: %s", time.Since(start).Round(time.Millisecond))
	bin := filepath.Join(prefix, "node_modules", ".bin", dist.NpmName)
	if v, err := exec.Command(bin, "--version").Output(); err != nil || strings.TrimSpace(string(v)) != "claude-agent-acp "+releaseVersion {
		t.Fatalf("%s --version: %q %v", dist.NpmName, v, err)
	}

	sb := clitest.NewSandbox(t)
	t.Cleanup(func() { clitest.NoOrphans(t) })
	sb.API.Script(fakeapi.Text("Hello from the npm package."))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	run := exec.CommandContext(ctx, acpx, "--agent", bin, "--approve-all", "--cwd", sb.WorkDir,
		"--format", "json", "--timeout", "90", "exec", "say hello")
	run.Dir = sb.WorkDir
	run.Env = sb.With("CLAUDE_CODE_EXECUTABLE=" + sb.CLI)
	start = time.Now()
	msg, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("acpx through the npm package: %v\n%s", err, msg)
	}
	t.Logf("acpx prompt turn: %s", time.Since(start).Round(time.Millisecond))
	// acpx's JSON output is the ACP conversation: the streamed answer and
	// the end of the turn.
	var text strings.Builder
	for _, line := range strings.Split(string(msg), "\n") {
		var m struct {
			Params struct {
				Update struct {
					SessionUpdate string `json:"sessionUpdate"`
					Content       struct{ Text string }
				}
			}
		}
		if json.Unmarshal([]byte(line), &m) == nil && m.Params.Update.SessionUpdate == "agent_message_chunk" {
			text.WriteString(m.Params.Update.Content.Text)
		}
	}
	if text.String() != "Hello from the npm package." || !strings.Contains(string(msg), `"stopReason":"end_turn"`) {
		t.Errorf("acpx output lacks the answer (got %q):\n%s", text.String(), msg)
	}
	if n := len(sb.API.MainRequests()); n != 1 {
		t.Errorf("%d model requests", n)
	}
}

// goInstallFromModuleProxy serves the module from a file:// proxy, as
// proxy.golang.org would, and runs `go install <module>/cmd/claude-agent-acp@<version>`:
// the module path, no replace directives, no cgo and no generated step.
func goInstallFromModuleProxy(t *testing.T, repo string) {
	const module = "github.com/claude-agent-acp/claude-agent-acp"
	const version = "v" + releaseVersion
	gomod, err := os.ReadFile(filepath.Join(repo, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(gomod), "module "+module+"\n") || strings.Contains(string(gomod), "\nreplace") {
		t.Fatalf("go.mod must name %s and have no replace directives", module)
	}
	proxy := t.TempDir()
	dir := filepath.Join(proxy, filepath.FromSlash(module), "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "list"), []byte(version+"\n"), 0o644))
	must(os.WriteFile(filepath.Join(dir, version+".info"), []byte(`{"Version":"`+version+`","Time":"2023-11-14T22:13:20Z"}`), 0o644))
	must(os.WriteFile(filepath.Join(dir, version+".mod"), gomod, 0o644))
	must(os.WriteFile(filepath.Join(dir, version+".zip"), moduleZip(t, repo, module+"@"+version), 0o644))

	gobin := t.TempDir()
	cmd := exec.Command("go", "install", module+"/cmd/claude-agent-acp@"+version)
	cmd.Dir = t.TempDir() // outside any module
	cmd.Env = append(os.Environ(), "GOBIN="+gobin, "GOPROXY=file://"+filepath.ToSlash(proxy), "GOFLAGS=",
		"GONOSUMDB="+module, "GOSUMDB=off", "CGO_ENABLED=0", "GOWORK=off")
	start := time.Now()
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install: %v\n%s", err, msg)
	}
	t.Logf("go install from the module proxy: %s", time.Since(start).Round(time.Millisecond))
	v, err := exec.Command(filepath.Join(gobin, "claude-agent-acp"), "--version").Output()
	if err != nil || strings.TrimSpace(string(v)) != "claude-agent-acp "+releaseVersion {
		t.Errorf("installed binary --version: %q %v", v, err)
	}
}

// moduleZip packs the module at repo the way the go command does: files
// under prefix/, without nested modules.
func moduleZip(t *testing.T, repo, prefix string) []byte {
	t.Helper()
	var nested []string
	_ = filepath.WalkDir(repo, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "go.mod" && filepath.Dir(p) != repo {
			nested = append(nested, filepath.Dir(p)+string(filepath.Separator))
		}
		return nil
	})
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	err := filepath.WalkDir(repo, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repo, p)
		if d.IsDir() {
			if rel == "dist" || rel == ".deps" || rel == "bin" {
				return filepath.SkipDir
			}
			return nil
		}
		for _, n := range nested {
			if strings.HasPrefix(p, n) {
				return nil
			}
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		w, err := zw.Create(prefix + "/" + filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
