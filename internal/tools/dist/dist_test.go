package dist

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
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
)

var epoch = time.Unix(1700000000, 0).UTC()

var sample = []file{
	{name: "claude-agent-acp", data: []byte("\x7fELF binary"), exec: true},
	{name: "README.md", data: []byte("# readme\n")},
	{name: "LICENSE", data: []byte("license\n")},
}

// entry is an archive entry as read back.
type entry struct {
	name  string
	mode  os.FileMode
	mtime time.Time
	owner string
	data  string
}

func readTarGz(t *testing.T, data []byte) []entry {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if !zr.ModTime.IsZero() || zr.Name != "" {
		t.Errorf("gzip header keeps time %v, name %q", zr.ModTime, zr.Name)
	}
	tr := tar.NewReader(zr)
	var out []entry
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(tr)
		owner := fmt.Sprintf("%s/%s/%d/%d", h.Uname, h.Gname, h.Uid, h.Gid)
		out = append(out, entry{h.Name, h.FileInfo().Mode(), h.ModTime.UTC(), owner, string(b)})
	}
}

func readZip(t *testing.T, data []byte) []entry {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var out []entry
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		out = append(out, entry{f.Name, f.Mode(), f.Modified.UTC(), "", string(b)})
	}
	return out
}

// TestArchivesAreDeterministic: the same files give the same bytes, in the
// given order, with fixed time, owner and modes.
func TestArchivesAreDeterministic(t *testing.T) {
	t.Parallel()
	for _, kind := range []struct {
		name string
		make func([]file, time.Time) ([]byte, error)
		read func(*testing.T, []byte) []entry
	}{{"tar.gz", tarGz, readTarGz}, {"zip", zipArchive, readZip}} {
		a, err := kind.make(sample, epoch)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := kind.make(sample, epoch)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: two runs differ", kind.name)
		}
		got := kind.read(t, a)
		if len(got) != len(sample) {
			t.Fatalf("%s: %d entries", kind.name, len(got))
		}
		for i, e := range got {
			wantMode := os.FileMode(0o644)
			if sample[i].exec {
				wantMode = 0o755
			}
			if e.name != sample[i].name || e.data != string(sample[i].data) || e.mode.Perm() != wantMode || !e.mtime.Equal(epoch) {
				t.Errorf("%s entry %d: %+v", kind.name, i, e)
			}
			if kind.name == "tar.gz" && e.owner != "//0/0" {
				t.Errorf("tar entry %s owner %q", e.name, e.owner)
			}
		}
	}
}

func TestManifestValidates(t *testing.T) {
	t.Parallel()
	m := manifest("1.2.3", "https://example.com/dl/v1.2.3/", "https://github.com/o/r")
	data, err := marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := ValidateManifest(data); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if len(m.Distribution.Binary) != 6 || m.Distribution.Npx.Package != "claude-agent-acp-go@1.2.3" {
		t.Errorf("distribution %+v", m.Distribution)
	}
	if got := m.Distribution.Binary["windows-aarch64"]; got.Cmd != "./claude-agent-acp.exe" ||
		got.Archive != "https://example.com/dl/v1.2.3/claude-agent-acp-1.2.3-windows-arm64.zip" {
		t.Errorf("windows-aarch64 %+v", got)
	}
	// What the schema forbids is caught.
	for name, edit := range map[string]func(map[string]any){
		"unknown platform": func(m map[string]any) {
			m["distribution"].(map[string]any)["binary"].(map[string]any)["freebsd-x86_64"] = map[string]any{"archive": "https://x/y", "cmd": "./a"}
		},
		"no cmd": func(m map[string]any) {
			delete(m["distribution"].(map[string]any)["binary"].(map[string]any)["linux-x86_64"].(map[string]any), "cmd")
		},
		"checksum field": func(m map[string]any) {
			m["distribution"].(map[string]any)["binary"].(map[string]any)["linux-x86_64"].(map[string]any)["sha256"] = "00"
		},
		"bad id":      func(m map[string]any) { m["id"] = "Claude_ACP" },
		"bad version": func(m map[string]any) { m["version"] = "v1" },
		"no distribution": func(m map[string]any) {
			m["distribution"] = map[string]any{}
		},
		"archive not a URI": func(m map[string]any) {
			m["distribution"].(map[string]any)["binary"].(map[string]any)["linux-x86_64"].(map[string]any)["archive"] = "not a uri"
		},
	} {
		var v map[string]any
		_ = json.Unmarshal(data, &v)
		edit(v)
		bad, _ := json.Marshal(v)
		if err := ValidateManifest(bad); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestNpmPackages(t *testing.T) {
	t.Parallel()
	bins := map[string][]byte{}
	for _, p := range Platforms {
		bins[p.Registry] = []byte("bin " + p.Registry)
	}
	pkgs, err := npmPackages("1.2.3", "https://github.com/o/r", bins, []byte("readme"), []byte("license"), epoch)
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) != 7 || pkgs[0].name != "claude-agent-acp-go" || pkgs[0].file != "claude-agent-acp-go-1.2.3.tgz" {
		t.Fatalf("packages %v", pkgs)
	}
	var mainPkg packageJSON
	for i, e := range readTarGz(t, pkgs[0].tgz) {
		if !strings.HasPrefix(e.name, "package/") {
			t.Errorf("entry %s outside package/", e.name)
		}
		if i == 0 {
			if err := json.Unmarshal([]byte(e.data), &mainPkg); err != nil {
				t.Fatal(err)
			}
		}
		if e.name == "package/bin/claude-agent-acp-go.js" && e.mode.Perm() != 0o755 {
			t.Errorf("shim mode %v", e.mode)
		}
	}
	if mainPkg.Bin["claude-agent-acp-go"] != "bin/claude-agent-acp-go.js" || len(mainPkg.OptionalDependencies) != 6 {
		t.Errorf("main package.json %+v", mainPkg)
	}
	for _, p := range pkgs[1:] {
		if mainPkg.OptionalDependencies[p.name] != "1.2.3" {
			t.Errorf("%s is not an optional dependency at 1.2.3", p.name)
		}
		var pj packageJSON
		var sawBin bool
		for _, e := range readTarGz(t, p.tgz) {
			switch {
			case e.name == "package/package.json":
				_ = json.Unmarshal([]byte(e.data), &pj)
			case strings.HasPrefix(e.name, "package/bin/"):
				sawBin = e.mode.Perm() == 0o755 && strings.HasPrefix(e.data, "bin ")
			}
		}
		if pj.Name != p.name || len(pj.OS) != 1 || len(pj.CPU) != 1 || pj.Bin != nil || !sawBin {
			t.Errorf("%s: package.json %+v, binary ok %v", p.name, pj, sawBin)
		}
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	write := func(v string) {
		if err := os.WriteFile(filepath.Join(dir, "VERSION"), []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitc := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write("1.2.3\n")
	// Outside git (the temporary directory is not in a repository).
	if v, err := Version(dir); err != nil || v != "1.2.3-dev" && !strings.HasPrefix(v, "1.2.3-dev.g") {
		t.Errorf("outside git: %q %v", v, err)
	}
	gitc("init", "-q")
	gitc("add", "VERSION")
	gitc("commit", "-qm", "v")
	v, err := Version(dir)
	if err != nil || !strings.HasPrefix(v, "1.2.3-dev.g") || len(v) != len("1.2.3-dev.g")+12 || !semverRE.MatchString(v) {
		t.Errorf("untagged: %q %v", v, err)
	}
	gitc("tag", "v1.2.3")
	if v, err := Version(dir); err != nil || v != "1.2.3" {
		t.Errorf("tagged: %q %v", v, err)
	}
	write("1.2\n")
	if v, err := Version(dir); err == nil {
		t.Errorf("VERSION 1.2 accepted: %q", v)
	}
}

func TestSemver(t *testing.T) {
	t.Parallel()
	for v, ok := range map[string]bool{
		"1.2.3": true, "0.1.0-dev": true, "0.1.0-dev.gabc123": true, "1.0.0-rc.1+build.5": true,
		"1.2": false, "v1.2.3": false, "01.2.3": false, "1.2.3-": false, "1.2.3-01": false,
	} {
		if semverRE.MatchString(v) != ok {
			t.Errorf("%q: %v", v, !ok)
		}
	}
}

// TestShimWithoutPlatformPackage: the main npm package installed alone
// (from its tarball, offline, or with --omit=optional) says which package
// is missing, at which version, and the one command that installs both.
func TestShimWithoutPlatformPackage(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node")
	}
	pkgs, err := npmPackages("1.2.3", "", map[string][]byte{}, nil, nil, epoch)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "node_modules", NpmName)
	for _, e := range readTarGz(t, pkgs[0].tgz) {
		p := filepath.Join(dir, strings.TrimPrefix(e.name, "package/"))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(e.data), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	out, err := exec.Command(node, filepath.Join(dir, "bin", NpmName+".js"), "--version").CombinedOutput()
	if code := exitCode(err); code != 1 {
		t.Fatalf("exit %d, want 1\n%s", code, out)
	}
	key := map[string]string{"linux": "linux", "darwin": "darwin", "windows": "win32"}[runtime.GOOS] + "-" + map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	for _, want := range []string{
		"the package claude-agent-acp-go-" + key + "@1.2.3 is not installed",
		"npm install -g claude-agent-acp-go-" + key + "-1.2.3.tgz claude-agent-acp-go-1.2.3.tgz",
		"npm install -g claude-agent-acp-go@1.2.3",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the hint lacks %q:\n%s", want, out)
		}
	}
}

func exitCode(err error) int {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}
