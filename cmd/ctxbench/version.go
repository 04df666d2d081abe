package main

import (
	"cmp"
	"runtime/debug"
	"strings"
)

// A release build stamps the version, the commit and the date
// (.goreleaser.yaml; make install stamps them from git):
//
//	go build -ldflags "-X main.version=v1.2.3 -X main.commit=… -X main.date=…" ./cmd/ctxbench
//
// An unstamped build takes them from the build information the go command
// records: the module's version (go install …@v1.2.3; a pseudo-version
// for a build in a clone), and in a clone the commit, its time and whether
// the tree was modified. A build with neither (go run, a test) is "dev".
var version, commit, date string

// modified reports that the build's tree had uncommitted changes.
var modified bool

func init() {
	bi, _ := debug.ReadBuildInfo()
	version, commit, date, modified = buildVersion(version, commit, date, bi)
}

// buildVersion returns the stamped version, commit and date, each filled
// from bi where not stamped, and whether the tree was modified; a stamped
// commit is the build's whole account of its tree.
func buildVersion(v, c, d string, bi *debug.BuildInfo) (string, string, string, bool) {
	if bi == nil {
		bi = &debug.BuildInfo{}
	}
	if v == "" && bi.Main.Version != "(devel)" {
		v = bi.Main.Version
	}
	stamped, dirty := c != "", false
	for _, s := range bi.Settings {
		switch {
		case stamped:
		case s.Key == "vcs.revision":
			c = s.Value
		case s.Key == "vcs.time":
			d = cmp.Or(d, s.Value)
		case s.Key == "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	return cmp.Or(v, "dev"), c, d, dirty
}

// versionLine is what --version prints: "ctxbench v1.2.3 (commit
// 0123456789ab, 2026-11-29T13:26:24Z)", with ", modified" for a tree with
// changes, or just "ctxbench v1.2.3" when there is no commit to name.
func versionLine() string {
	var more []string
	if commit != "" {
		more = append(more, "commit "+commit[:min(12, len(commit))])
	}
	if date != "" {
		more = append(more, date)
	}
	if modified {
		more = append(more, "modified")
	}
	if len(more) == 0 {
		return "ctxbench " + version
	}
	return "ctxbench " + version + " (" + strings.Join(more, ", ") + ")"
}
