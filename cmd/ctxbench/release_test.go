package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// platforms are the release's: .goreleaser.yaml's goos × goarch.
var platforms = []string{"linux_amd64", "linux_arm64", "darwin_amd64", "darwin_arm64", "windows_amd64", "windows_arm64"}

// A dist is goreleaser's output folder, as make snapshot leaves it
// (CTXBENCH_DIST names it).
type dist struct {
	dir     string
	tag     string            // the tag the release is of (v0.0.0 for a snapshot of no tag)
	version string            // metadata.json's, without the v
	commit  string            // the commit built
	sums    map[string]string // checksums.txt: file → sha256
}

func openDist(t *testing.T) *dist {
	t.Helper()
	dir := os.Getenv("CTXBENCH_DIST")
	if dir == "" {
		t.Skip("no snapshot: make snapshot (in make long) builds one and sets CTXBENCH_DIST")
	}
	var meta struct{ Tag, Version, Commit string }
	readJSON(t, filepath.Join(dir, "metadata.json"), &meta)
	d := &dist{dir: dir, tag: meta.Tag, version: meta.Version, commit: meta.Commit, sums: map[string]string{}}
	b, err := os.ReadFile(filepath.Join(dir, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		sum, file, ok := strings.Cut(strings.TrimSpace(line), "  ")
		if !ok {
			t.Fatalf("checksums.txt: %q", line)
		}
		d.sums[file] = sum
	}
	return d
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// archive returns the name of a platform's archive.
func (d *dist) archive(platform string) string {
	ext := ".tar.gz"
	if strings.HasPrefix(platform, "windows") {
		ext = ".zip"
	}
	return "ctxbench_" + d.version + "_" + platform + ext
}

// binary extracts the command from a platform's archive into dir, checked
// against checksums.txt, and returns its path.
func (d *dist) binary(t *testing.T, platform, dir string) string {
	t.Helper()
	name := d.archive(platform)
	b, err := os.ReadFile(filepath.Join(d.dir, name))
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(b); d.sums[name] != hex.EncodeToString(sum[:]) {
		t.Errorf("%s: sha256 %x, checksums.txt says %q", name, sum, d.sums[name])
	}
	exe := "ctxbench"
	if strings.HasPrefix(platform, "windows") {
		exe += ".exe"
	}
	var bin []byte
	var names []string
	if strings.HasSuffix(name, ".zip") {
		zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range zr.File {
			names = append(names, f.Name)
			if f.Name == exe {
				rc, _ := f.Open()
				bin, err = io.ReadAll(rc)
				rc.Close()
				if err != nil {
					t.Fatal(err)
				}
			}
		}
	} else {
		names, bin = untar(t, gzipped(t, b), exe)
	}
	if bin == nil || !slices.Contains(names, "README.md") || !slices.Contains(names, "docs/check.md") {
		t.Fatalf("%s holds %q, no %s, README.md and docs/check.md", name, names, exe)
	}
	path := filepath.Join(dir, platform+"-"+exe)
	if err := os.WriteFile(path, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func gzipped(t *testing.T, b []byte) io.Reader {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return zr
}

// untar returns the names of a tar's files and the content of the one
// named want (nil if none is).
func untar(t *testing.T, r io.Reader, want string) ([]string, []byte) {
	t.Helper()
	var names []string
	var content []byte
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return names, content
		}
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(h.Name, "/")
		names = append(names, name)
		if name == want {
			if content, err = io.ReadAll(tr); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// platform returns the GOOS_GOARCH a binary was built for (go version -m).
func platform(t *testing.T, bin string) string {
	t.Helper()
	out, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil {
		t.Fatalf("go version -m %s: %v", bin, err)
	}
	build := map[string]string{}
	for line := range strings.Lines(string(out)) {
		if f := strings.SplitN(strings.TrimSpace(line), "\t", 2); len(f) == 2 && f[0] == "build" {
			k, v, _ := strings.Cut(f[1], "=")
			build[k] = v
		}
	}
	return build["GOOS"] + "_" + build["GOARCH"]
}

// stamp returns what the snapshot's builds are stamped with, by
// variable (main.version, main.commit, main.date): its version, its
// commit and the commit's time, as .goreleaser.yaml's ldflags say.
func (d *dist) stamp(t *testing.T) map[string]string {
	t.Helper()
	date := time.Time{}
	if d.commit != "none" { // a snapshot with no git information
		out, err := exec.Command("git", "-C", d.dir, "show", "-s", "--format=%ct", d.commit).Output()
		if err != nil {
			t.Fatalf("the snapshot's commit %s: %v", d.commit, err)
		}
		sec, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		date = time.Unix(sec, 0)
	}
	return map[string]string{"main.version": "v" + d.version, "main.commit": d.commit, "main.date": date.UTC().Format(time.RFC3339)}
}

// ordered reports whether s holds each of subs, in that order.
func ordered(s string, subs ...string) bool {
	for _, sub := range subs {
		i := strings.Index(s, sub)
		if i < 0 {
			return false
		}
		s = s[i+len(sub):]
	}
	return true
}

// stampedLine is what --version prints for a build stamped x.
func stampedLine(x map[string]string) string {
	return fmt.Sprintf("ctxbench %s (commit %s, %s)", x["main.version"], x["main.commit"][:min(12, len(x["main.commit"]))], x["main.date"])
}

func versionOf(t *testing.T, bin string) string {
	t.Helper()
	out, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("%s --version: %v\n%s", bin, err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestRelease opens what make snapshot built: an archive per platform,
// each in checksums.txt and holding a binary of that platform stamped
// with the version, the commit and its date (this machine's run, and
// prints them); an SBOM per binary; the Homebrew formula, naming each
// archive of macOS and Linux with its checksum (and parsed by ruby -c
// where Ruby is installed); the image's tarball, whose binary runs
// --version and report --samples.
func TestRelease(t *testing.T) {
	d := openDist(t)
	tmp := t.TempDir()
	if len(d.sums) != len(platforms)+len(platforms) { // an archive and an SBOM each
		t.Errorf("checksums.txt: %d files: %v", len(d.sums), d.sums)
	}
	x, ran := d.stamp(t), false
	for _, p := range platforms {
		bin := d.binary(t, p, tmp)
		if got := platform(t, bin); got != p {
			t.Errorf("%s's binary is built for %s", p, got)
		}
		b, err := os.ReadFile(bin)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range x { // -s -w and -trimpath leave no ldflags to read but the strings
			if !bytes.Contains(b, []byte(v)) {
				t.Errorf("%s's binary does not hold %q: not stamped %v", p, v, x)
			}
		}
		if p == runtime.GOOS+"_"+runtime.GOARCH {
			ran = true
			if got, want := versionOf(t, bin), stampedLine(x); got != want {
				t.Errorf("%s --version: %q, want %q", p, got, want)
			}
		}
		var sbom struct {
			BOMFormat string
			Metadata  struct {
				Component struct{ Name, Version string }
			}
			Components []struct{ Name, Version string }
		}
		readJSON(t, filepath.Join(d.dir, "ctxbench_"+d.version+"_"+p+".cdx.json"), &sbom)
		if sbom.BOMFormat != "CycloneDX" || sbom.Metadata.Component.Version != d.version ||
			!slices.ContainsFunc(sbom.Components, func(c struct{ Name, Version string }) bool {
				return c.Name == "github.com/alecthomas/kong" && c.Version == "v1.17.0"
			}) {
			t.Errorf("%s's SBOM: %s %+v, %d components", p, sbom.BOMFormat, sbom.Metadata.Component, len(sbom.Components))
		}
	}
	if !ran {
		t.Errorf("no archive for this machine, %s/%s", runtime.GOOS, runtime.GOARCH)
	}

	t.Run("formula", func(t *testing.T) {
		path := filepath.Join(d.dir, "homebrew", "Formula", "ctxbench.rb")
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rb := string(b)
		for _, want := range []string{"class Ctxbench < Formula", `version "` + d.version + `"`, `bin.install "ctxbench"`, "ctxbench --version"} {
			if !strings.Contains(rb, want) {
				t.Errorf("the formula has no %q:\n%s", want, rb)
			}
		}
		for _, p := range platforms[:4] {
			url := "https://github.com/ctxbench/ctxbench/releases/download/" + d.tag + "/" + d.archive(p)
			if !ordered(rb, url, `sha256 "`+d.sums[d.archive(p)]+`"`) {
				t.Errorf("the formula has no %s with its sha256:\n%s", url, rb)
			}
		}
		if _, err := exec.LookPath("ruby"); err != nil {
			t.Skip("no ruby on PATH: the formula's syntax is not checked (.ci/run installs Debian's ruby)")
		}
		if out, err := exec.Command("ruby", "-c", path).CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != "Syntax OK" {
			t.Errorf("ruby -c %s: %v\n%s", path, err, out)
		}
	})

	t.Run("image", func(t *testing.T) {
		image(t, filepath.Join(d.dir, "ctxbench-image.tar"), stampedLine(x))
	})

	t.Run("go install", func(t *testing.T) {
		goInstallTagged(t)
	})
}

// image opens a container image's tarball as ko --tarball writes it (a
// docker save: manifest.json, the config, the layers): the entry point is
// ko's /ko-app/ctxbench, which is in a layer; it runs --version, which
// prints version, report --samples and cost of a folder.
func image(t *testing.T, path, version string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	files := map[string][]byte{}
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if files[h.Name], err = io.ReadAll(tr); err != nil {
			t.Fatal(err)
		}
	}
	var manifest []struct {
		Config   string
		RepoTags []string
		Layers   []string
	}
	if err := json.Unmarshal(files["manifest.json"], &manifest); err != nil || len(manifest) != 1 {
		t.Fatalf("manifest.json: %v %s", err, files["manifest.json"])
	}
	m := manifest[0]
	var config struct {
		OS, Architecture string
		Config           struct{ Entrypoint []string }
	}
	if err := json.Unmarshal(files[m.Config], &config); err != nil {
		t.Fatal(err)
	}
	if config.OS != "linux" || config.Architecture != runtime.GOARCH || !slices.Equal(config.Config.Entrypoint, []string{"/ko-app/ctxbench"}) {
		t.Fatalf("the image's config: %+v", config)
	}
	var bin []byte
	for _, l := range m.Layers {
		r := io.Reader(bytes.NewReader(files[l]))
		if zr, err := gzip.NewReader(r); err == nil {
			r = zr
		} else {
			r = bytes.NewReader(files[l])
		}
		if _, b := untar(t, r, "ko-app/ctxbench"); b != nil {
			bin = b
		}
	}
	if bin == nil {
		t.Fatalf("no layer of %s holds ko-app/ctxbench", path)
	}
	dir := t.TempDir()
	exe := filepath.Join(dir, "ctxbench")
	if err := os.WriteFile(exe, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := versionOf(t, exe); got != version {
		t.Errorf("the image's ctxbench --version: %q, want %q", got, version)
	}
	cmd := exec.Command(exe, "report", "--samples", "--out", filepath.Join(dir, "report"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the image's ctxbench report --samples: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "report", "index.html")); err != nil {
		t.Error(err)
	}
	sessions, err := filepath.Abs(corpus + "spotter")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(exe, "cost", sessions).CombinedOutput(); err != nil { // the README's docker run
		t.Errorf("the image's ctxbench cost %s: %v\n%s", sessions, err, out)
	}
	t.Logf("%s: %s, %.1f MB, the binary %.1f MB (tags %v)", path, m.Config, float64(fi.Size())/1e6, float64(len(bin))/1e6, m.RepoTags)
}

// goInstallTagged installs the command as a user would after a release,
// go install github.com/ctxbench/ctxbench/cmd/ctxbench@VERSION, from a
// module proxy on disk serving this repository's HEAD as that version,
// the other modules from the module cache; the command prints the version.
func goInstallTagged(t *testing.T) {
	root := repoRoot(t)
	const version = "v0.0.1-snapshot"
	proxy := t.TempDir()
	at := filepath.Join(proxy, "github.com", "ctxbench", "ctxbench", "@v")
	os.MkdirAll(at, 0o755)
	args := []string{"archive", "--format=zip", "--prefix=github.com/ctxbench/ctxbench@" + version + "/", "-o", filepath.Join(at, version+".zip"), "HEAD", "--", "."}
	out, err := exec.Command("git", "-C", root, "ls-files", "*/go.mod").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, mod := range strings.Fields(string(out)) { // other modules are not in this one's zip
		args = append(args, ":(exclude)"+filepath.Dir(mod))
	}
	if out, err := exec.Command("git", append([]string{"-C", root}, args...)...).CombinedOutput(); err != nil {
		t.Fatalf("git archive: %v\n%s", err, out)
	}
	mod, err := exec.Command("git", "-C", root, "show", "HEAD:go.mod").Output()
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(at, version+".mod"), mod, 0o644)
	os.WriteFile(filepath.Join(at, version+".info"), []byte(`{"Version":"`+version+`","Time":"2026-12-01T00:00:00Z"}`), 0o644)
	os.WriteFile(filepath.Join(at, "list"), []byte(version+"\n"), 0o644)
	gobin := t.TempDir()
	cmd := exec.Command("go", "install", "github.com/ctxbench/ctxbench/cmd/ctxbench@"+version)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "GOBIN="+gobin, "GOPROXY=file://"+filepath.ToSlash(proxy), "GOSUMDB=off", // not reachable here; go.sum has every module
		"GOFLAGS=-trimpath", "CGO_ENABLED=0", "GOTOOLCHAIN=local") // the snapshot's linux build's cache
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install …@%s: %v\n%s", version, err, out)
	}
	if got := versionOf(t, filepath.Join(gobin, "ctxbench")); got != "ctxbench "+version {
		t.Errorf("go install …@%s: --version %q", version, got)
	}
}

// repoRoot returns the repository's root, or skips when the tests do
// not run in a git clone.
func repoRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skipf("not a git clone: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// TestInstallFromClone follows the README's install from a clone: git
// clone, then go install ./cmd/ctxbench in it; the command built names
// the commit it was built from.
func TestInstallFromClone(t *testing.T) {
	root := repoRoot(t)
	head, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	clone := filepath.Join(dir, "ctxbench")
	if out, err := exec.Command("git", "clone", "--quiet", root, clone).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	gobin := filepath.Join(dir, "bin")
	cmd := exec.Command("go", "install", "./cmd/ctxbench")
	cmd.Dir = clone
	// -trimpath and -pgo=off share the build cache with the other tests'
	// builds; -buildvcs=auto as go's default, whatever go env says.
	cmd.Env = append(os.Environ(), "GOBIN="+gobin, "GOFLAGS=-trimpath -pgo=off -buildvcs=auto", "GOPROXY=off", "GOTOOLCHAIN=local")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install ./cmd/ctxbench: %v\n%s", err, out)
	}
	got := versionOf(t, filepath.Join(gobin, "ctxbench"))
	// The module's version is a pseudo-version of the commit, or its tag.
	want := regexp.MustCompile(`^ctxbench v\d+\.\d+\.\d+\S* \(commit ` + string(head[:12]) + `, \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\)$`)
	if !want.MatchString(got) {
		t.Errorf("--version: %q, want %s", got, want)
	}
}
