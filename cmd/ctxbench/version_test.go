package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
)

func TestBuildVersion(t *testing.T) {
	vcs := []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "4b911071ddc3a46cc0f00948aa6dfeef82986275"},
		{Key: "vcs.time", Value: "2026-11-29T13:26:24Z"}, {Key: "vcs.modified", Value: "true"}}
	check := func(v, c, d string, bi *debug.BuildInfo, want string) {
		t.Helper()
		defer func(v, c, d string, m bool) { version, commit, date, modified = v, c, d, m }(version, commit, date, modified)
		version, commit, date, modified = buildVersion(v, c, d, bi)
		if got := versionLine(); got != want {
			t.Errorf("buildVersion(%q, %q, %q, …): %q, want %q", v, c, d, got, want)
		}
	}
	check("", "", "", nil, "ctxbench dev")
	check("", "", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "ctxbench dev")
	check("", "", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.2.0"}}, "ctxbench v0.2.0") // go install …@v0.2.0
	check("", "", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261129132624-4b911071ddc3+dirty"}, Settings: vcs},
		"ctxbench v0.0.0-20261129132624-4b911071ddc3+dirty (commit 4b911071ddc3, 2026-11-29T13:26:24Z, modified)")
	check("v0.2.0", "0123456789abcdef", "2026-12-01T00:00:00Z", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs},
		"ctxbench v0.2.0 (commit 0123456789ab, 2026-12-01T00:00:00Z)") // the stamp wins, vcs.modified too
	check("v0.2.0", "", "", &debug.BuildInfo{Settings: vcs[:3]}, "ctxbench v0.2.0 (commit 4b911071ddc3, 2026-11-29T13:26:24Z)")
	check("v0.2.0", "abc", "", nil, "ctxbench v0.2.0 (commit abc)")
}

var built sync.Map // ldflags → binary path, or the error

// buildCtxbench builds the command with ldflags into a folder that lives
// as long as the test process (once per ldflags).
func buildCtxbench(t *testing.T, ldflags string) string {
	t.Helper()
	type result struct {
		path string
		err  error
	}
	r, _ := built.LoadOrStore(ldflags, sync.OnceValue(func() result {
		dir, err := os.MkdirTemp("", "ctxbench-build")
		if err != nil {
			return result{err: err}
		}
		path := filepath.Join(dir, "ctxbench")
		cmd := exec.Command("go", "build", "-trimpath", "-pgo=off", "-buildvcs=auto", "-ldflags="+ldflags, "-o", path, ".")
		if out, err := cmd.CombinedOutput(); err != nil {
			return result{err: fmt.Errorf("%v\n%s", err, out)}
		}
		return result{path: path}
	}))
	res := r.(func() result)()
	if res.err != nil {
		t.Fatalf("go build -ldflags=%q: %v", ldflags, res.err)
	}
	return res.path
}

// TestVersionBuilt: a build stamped with -ldflags, as a release is, prints
// the stamp; one not stamped prints what the go command recorded of the
// module and its tree (go version -m): in a clone, the pseudo-version,
// the commit and its time.
func TestVersionBuilt(t *testing.T) {
	run := func(bin string) string {
		t.Helper()
		out, err := exec.Command(bin, "--version").Output()
		if err != nil {
			t.Fatalf("%s --version: %v", bin, err)
		}
		return strings.TrimSuffix(string(out), "\n")
	}
	stamped := buildCtxbench(t, "-X main.version=v9.8.7 -X main.commit=0123456789abcdef0123 -X main.date=2026-01-02T03:04:05Z")
	if got, want := run(stamped), "ctxbench v9.8.7 (commit 0123456789ab, 2026-01-02T03:04:05Z)"; got != want {
		t.Errorf("stamped: %q, want %q", got, want)
	}
	plain := buildCtxbench(t, "")
	m, err := exec.Command("go", "version", "-m", plain).Output()
	if err != nil {
		t.Fatal(err)
	}
	mod, info := "(devel)", map[string]string{}
	for line := range strings.Lines(string(m)) {
		f := strings.Split(strings.TrimSpace(line), "\t")
		switch {
		case len(f) >= 3 && f[0] == "mod":
			mod = f[2]
		case len(f) == 2 && f[0] == "build":
			k, v, _ := strings.Cut(f[1], "=")
			info[k] = v
		}
	}
	want := "ctxbench " + mod
	if mod == "(devel)" {
		want = "ctxbench dev"
	}
	if rev := info["vcs.revision"]; rev != "" {
		want += " (commit " + rev[:12] + ", " + info["vcs.time"]
		if info["vcs.modified"] == "true" {
			want += ", modified"
		}
		want += ")"
	}
	if got := run(plain); got != want {
		t.Errorf("not stamped: %q, want %q (go version -m:\n%s)", got, want, m)
	}
	t.Logf("not stamped: %s", want)
}
