package main

import (
	"os"
	"runtime/debug"
	"strings"
	"testing"
)

// TestDevVersionFollowsVERSION: a build from source is named after the
// release being prepared.
func TestDevVersionFollowsVERSION(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../VERSION")
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.TrimSpace(string(b)) + "-dev"; devVersion != want {
		t.Errorf("devVersion = %q; VERSION says %q", devVersion, want)
	}
}

// TestVersionOf: every way of building gives a version that says what it
// is, and a source build gives the same one with and without -buildvcs
// (but for the commit, when it is known).
func TestVersionOf(t *testing.T) {
	t.Parallel()
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	const rev = "0123456789abcdef0123456789abcdef01234567"
	for _, c := range []struct {
		name, stamped string
		bi            *debug.BuildInfo
		want          string
	}{
		{"make dist", "1.2.3", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "1.2.3"},
		{"go install @v1.2.3", devVersion, &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "1.2.3"},
		{"go build in a clean checkout", devVersion, &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20260102150405-0123456789ab"}, Settings: vcs(rev, "false")}, devVersion + ".g0123456789ab"},
		{"go build with changes", devVersion, &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20260102150405-0123456789ab+dirty"}, Settings: vcs(rev, "true")}, devVersion + ".g0123456789ab.dirty"},
		{"go build at a tag, changed", devVersion, &debug.BuildInfo{Main: debug.Module{Version: "v0.1.0+dirty"}, Settings: vcs(rev, "true")}, devVersion + ".g0123456789ab.dirty"},
		{"go build -buildvcs=false", devVersion, &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, devVersion},
		{"go install @commit", devVersion, &debug.BuildInfo{Main: debug.Module{Version: "v0.1.1-0.20260102150405-0123456789ab"}}, devVersion},
		{"no build info", devVersion, nil, devVersion},
	} {
		if got := versionOf(c.stamped, c.bi); got != c.want {
			t.Errorf("%s: versionOf = %q, want %q", c.name, got, c.want)
		}
	}
	for v, want := range map[string]bool{
		"v0.0.0-20260102150405-0123456789ab": true, "v1.2.4-0.20260102150405-0123456789ab": true,
		"v1.2.3-pre.0.20260102150405-0123456789ab+dirty": true, "v1.2.3": false, "v1.2.3-rc.1": false, "v1.2.3-0123456789ab": false,
	} {
		if got := isPseudoVersion(v); got != want {
			t.Errorf("isPseudoVersion(%q) = %v", v, got)
		}
	}
}
