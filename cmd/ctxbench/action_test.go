package main

import (
	"bufio"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// A runner runs action.yml's steps as GitHub's runner does, on a
// workspace that is a clone of an origin holding the base branch main:
// each step's run with bash -eo pipefail and the runner's variables, its
// env and with expanded, GITHUB_OUTPUT, GITHUB_PATH and
// GITHUB_STEP_SUMMARY read after it, the next steps skipped once one
// fails; actions/setup-go is taken as done (go is on PATH) and
// actions/upload-artifact records the folder it would upload. gh is
// testdata/action/gh, a fake that records its calls.
type runner struct {
	t                 *testing.T
	root, origin, ws  string // the action's checkout (this repository), the remote, the workspace
	gh, bin           string // the fake gh's state, the folder it is on PATH from
	event, base, head string // pull_request or push; its base branch, its head
}

// A run is what one run of the action left.
type actionRun struct {
	code        int    // the job's exit status: the failing step's
	log         string // every step's output, in order
	summary     string // the steps' GITHUB_STEP_SUMMARY
	annotations []string
	uploaded    map[string]string // artefact name → folder
}

func newRunner(t *testing.T) *runner {
	t.Helper()
	for _, tool := range []string{"bash", "git", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("the action needs %s on PATH (GitHub's runners have it): %v", tool, err)
		}
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	r := &runner{t: t, root: root, origin: filepath.Join(dir, "origin.git"), ws: filepath.Join(dir, "ws"),
		gh: filepath.Join(dir, "gh"), bin: filepath.Join(dir, "bin"), event: "pull_request", base: "main", head: "feature"}
	for _, d := range []string{r.gh, r.bin} {
		os.MkdirAll(d, 0o755)
	}
	if err := os.Symlink(filepath.Join(root, "cmd/ctxbench/testdata/action/gh"), filepath.Join(r.bin, "gh")); err != nil {
		t.Fatal(err)
	}
	r.git(dir, "init", "--quiet", "--bare", "--initial-branch=main", r.origin)
	r.git(dir, "clone", "--quiet", r.origin, r.ws)
	r.git(r.ws, "symbolic-ref", "HEAD", "refs/heads/main")
	return r
}

// git runs git in dir as a user with no configuration of their own.
func (r *runner) git(dir string, args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// commit writes files (path → content; "" removes it) into the
// workspace and commits them on its branch; push sends it to origin.
func (r *runner) commit(push bool, files map[string]string) {
	r.t.Helper()
	for path, content := range files {
		p := filepath.Join(r.ws, path)
		if content == "" {
			os.Remove(p)
			continue
		}
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
	r.git(r.ws, "add", "-A")
	r.git(r.ws, "commit", "--quiet", "--allow-empty", "-m", "change")
	if push {
		r.git(r.ws, "push", "--quiet", "origin", "HEAD")
	}
}

var (
	expr   = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)
	ifExpr = regexp.MustCompile(`^inputs\.([a-z-]+) == '([^']*)'$`)
)

// A step is one of action.yml's steps.
type step struct {
	ID, Name, If, Uses, Run, Shell string
	Env, With                      map[string]string
}

// A job is one run of the action: the runner's variables, the inputs,
// the steps' outputs and the folders they put on PATH so far.
type job struct {
	t       *testing.T
	r       *runner
	temp    string // RUNNER_TEMP
	env, in map[string]string
	outputs map[string]map[string]string
	path    []string
	res     actionRun
}

// readAction reads action.yml as the runner does.
func readAction(t *testing.T, root string) (inputs map[string]string, steps []step) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a struct {
		Inputs map[string]struct{ Default string }
		Runs   struct {
			Using string
			Steps []step
		}
	}
	if err := yaml.Unmarshal(b, &a); err != nil {
		t.Fatal(err)
	}
	if a.Runs.Using != "composite" {
		t.Fatalf("action.yml runs %q", a.Runs.Using)
	}
	inputs = map[string]string{}
	for k, v := range a.Inputs {
		inputs[k] = v.Default
	}
	return inputs, a.Runs.Steps
}

// run runs the action with inputs; the earlier runs' comments, artefacts
// and releases stay in the fake gh.
func (r *runner) run(inputs map[string]string) actionRun {
	r.t.Helper()
	in, steps := readAction(r.t, r.root)
	j := &job{t: r.t, r: r, temp: r.t.TempDir(), env: r.environment(), in: in, outputs: map[string]map[string]string{},
		res: actionRun{uploaded: map[string]string{}}}
	for k, v := range inputs {
		if _, ok := in[k]; !ok {
			r.t.Fatalf("action.yml has no input %s", k)
		}
		in[k] = v
	}
	for k, v := range in {
		in[k] = j.expand(v)
	}
	for i, st := range steps {
		if j.skip(i, st) || j.uses(i, st) {
			continue
		}
		if code := j.step(i, st); code != 0 {
			j.res.code = code
			break
		}
	}
	return j.res
}

// environment returns the runner's variables for the event.
func (r *runner) environment() map[string]string {
	temp := r.t.TempDir()
	env := map[string]string{
		"CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_ACTION_PATH": r.root, "GITHUB_WORKSPACE": r.ws,
		"GITHUB_REPOSITORY": "acme/agent", "GITHUB_SERVER_URL": "https://github.com", "GITHUB_RUN_ID": "4242",
		"GITHUB_EVENT_NAME": r.event, "GITHUB_EVENT_PATH": filepath.Join(temp, "event.json"),
		"RUNNER_OS": "Linux", "RUNNER_ARCH": map[string]string{"amd64": "X64", "arm64": "ARM64"}[runtime.GOARCH], "RUNNER_TEMP": temp, "FAKE_GH_DIR": r.gh,
		"HOME": filepath.Join(temp, "home"), "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1",
		// The build of the action's checkout, from the module cache: no
		// network, and the cache the tests' other builds use.
		"GOFLAGS": "-pgo=off", "GOPROXY": "off", "GOTOOLCHAIN": "local",
	}
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
		out, err := exec.Command("go", "env", k).Output()
		if err != nil {
			r.t.Fatal(err)
		}
		env[k] = strings.TrimSpace(string(out))
	}
	event := `{"ref": "refs/heads/main"}`
	env["GITHUB_REF"], env["GITHUB_REF_NAME"] = "refs/heads/"+r.base, r.base
	if r.event == "pull_request" {
		env["GITHUB_BASE_REF"], env["GITHUB_HEAD_REF"] = r.base, r.head
		env["GITHUB_REF"], env["GITHUB_REF_NAME"] = "refs/pull/7/merge", "7/merge"
		event = `{"action": "synchronize", "number": 7, "pull_request": {"number": 7, "base": {"ref": "main"}}}`
	}
	env["GITHUB_WORKFLOW_REF"] = "acme/agent/.github/workflows/ctxbench.yml@" + env["GITHUB_REF"]
	os.WriteFile(env["GITHUB_EVENT_PATH"], []byte(event), 0o644)
	return env
}

// expand replaces the expressions the action uses.
func (j *job) expand(s string) string {
	return expr.ReplaceAllStringFunc(s, func(m string) string {
		e := expr.FindStringSubmatch(m)[1]
		switch f := strings.Split(e, "."); {
		case len(f) == 2 && f[0] == "inputs":
			return j.in[f[1]]
		case e == "github.action_path":
			return j.r.root
		case e == "github.token":
			return "fake-token"
		case len(f) == 4 && f[0] == "steps" && f[2] == "outputs":
			return j.outputs[f[1]][f[3]]
		}
		j.t.Fatalf("action.yml: the test does not know %s", m)
		return ""
	})
}

// skip reports whether the step's if: is false.
func (j *job) skip(i int, st step) bool {
	if st.If == "" {
		return false
	}
	m := ifExpr.FindStringSubmatch(st.If)
	if m == nil {
		j.t.Fatalf("step %d: the test cannot evaluate if: %s", i, st.If)
	}
	return j.in[m[1]] != m[2]
}

// uses does what the runner's actions would, and reports whether the
// step was one: setup-go is done (go is on PATH), upload-artifact records
// its folder.
func (j *job) uses(i int, st step) bool {
	switch uses, _, _ := strings.Cut(st.Uses, "@"); uses {
	case "actions/setup-go":
		if _, err := os.Stat(j.expand(st.With["go-version-file"])); err != nil {
			j.t.Errorf("setup-go: %v", err)
		}
	case "actions/upload-artifact":
		dir := j.expand(st.With["path"])
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			j.t.Errorf("upload-artifact: path %q is no folder", dir)
		}
		j.res.uploaded[j.expand(st.With["name"])] = dir
	case "":
		return false
	default:
		j.t.Fatalf("step %d uses %s, which the test does not know", i, st.Uses)
	}
	return true
}

// step runs a run: step and returns its exit status.
func (j *job) step(i int, st step) int {
	t := j.t
	if st.Shell != "bash" {
		t.Fatalf("step %d: shell %q", i, st.Shell)
	}
	vars := map[string]string{"PATH": strings.Join(append(append(j.path, j.r.bin), os.Getenv("PATH")), string(os.PathListSeparator))}
	maps.Copy(vars, j.env)
	for _, k := range []string{"GITHUB_OUTPUT", "GITHUB_PATH", "GITHUB_STEP_SUMMARY", "GITHUB_ENV"} {
		vars[k] = filepath.Join(j.temp, fmt.Sprintf("%s-%d", k, i))
		os.WriteFile(vars[k], nil, 0o644)
	}
	for k, v := range st.Env {
		vars[k] = j.expand(v)
	}
	script := filepath.Join(j.temp, "step.sh")
	os.WriteFile(script, []byte(j.expand(st.Run)), 0o644)
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
	cmd.Dir = j.r.ws
	for k, v := range vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, err := cmd.CombinedOutput()
	j.res.log += string(out)
	for line := range strings.Lines(string(out)) {
		if strings.HasPrefix(line, "::") {
			j.res.annotations = append(j.res.annotations, strings.TrimSuffix(line, "\n"))
		}
	}
	if st.ID != "" {
		j.outputs[st.ID] = readOutputs(t, vars["GITHUB_OUTPUT"])
	}
	if p, _ := os.ReadFile(vars["GITHUB_PATH"]); len(p) > 0 {
		j.path = append(strings.Fields(string(p)), j.path...)
	}
	s, _ := os.ReadFile(vars["GITHUB_STEP_SUMMARY"])
	j.res.summary += string(s)
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0
}

// readOutputs reads a GITHUB_OUTPUT file: name=value lines, and
// name<<DELIMITER blocks.
func readOutputs(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, delim, ok := strings.Cut(sc.Text(), "<<"); ok {
			var v []string
			for sc.Scan() && sc.Text() != delim {
				v = append(v, sc.Text())
			}
			out[k] = strings.Join(v, "\n")
		} else if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			out[k] = v
		}
	}
	return out
}

// calls returns the fake gh's calls so far, one a line.
func (r *runner) calls() []string {
	b, _ := os.ReadFile(filepath.Join(r.gh, "calls"))
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// comments returns the pull request's comments, by id.
func (r *runner) comments() map[string]string {
	out := map[string]string{}
	es, _ := os.ReadDir(filepath.Join(r.gh, "comments"))
	for _, e := range es {
		b, _ := os.ReadFile(filepath.Join(r.gh, "comments", e.Name()))
		out[e.Name()] = string(b)
	}
	return out
}

// suiteFiles is a suite of two real sessions and two policies, with the
// aidf window at maxMessages.
func suiteFiles(t *testing.T, maxMessages string) map[string]string {
	t.Helper()
	files := map[string]string{
		"ctxbench.yaml": "transcripts: [sessions/*.jsonl]\npolicies:\n  - none\n  - aidf:max_messages=" + maxMessages + ",preserve_last_n=4\n",
	}
	for _, s := range []string{"tool_heavy.jsonl", "subagent.jsonl"} {
		b, err := os.ReadFile(corpus + "spotter/" + s)
		if err != nil {
			t.Fatal(err)
		}
		files["sessions/"+s] = string(b)
	}
	return files
}

// recordBaseline returns the baseline of the workspace's suite as it is.
func (r *runner) recordBaseline() string {
	r.t.Helper()
	path := filepath.Join(r.t.TempDir(), "baseline.json")
	if _, stderr, code := ctxbench("", "check", "--config", filepath.Join(r.ws, "ctxbench.yaml"), "--baseline", path, "--update", "--accept"); code != 0 {
		r.t.Fatalf("recording the baseline: exit %d\n%s", code, stderr)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		r.t.Fatal(err)
	}
	return string(b)
}

// withBaseline commits the suite at maxMessages on main, with its
// baseline, and returns the runner on branch feature.
func withBaseline(t *testing.T, maxMessages string) *runner {
	r := newRunner(t)
	r.commit(false, suiteFiles(t, maxMessages))
	r.commit(true, map[string]string{"ctxbench.baseline.json": r.recordBaseline()})
	r.git(r.ws, "checkout", "--quiet", "-b", "feature")
	return r
}

func lines(ss []string, prefix string) []string {
	var out []string
	for _, s := range ss {
		if strings.HasPrefix(s, prefix) {
			out = append(out, s)
		}
	}
	return out
}

// marker opens the action's comment on the suite ctxbench.yaml. The
// TestAction tests run action.yml's steps as the runner does, with a fake
// gh (testdata/action/gh), on a repository whose main holds the suite.
const marker = "<!-- ctxbench check: ctxbench.yaml -->"

// TestActionPass: a pull request that changes nothing of the suite passes,
// with a comment and the report; comment: false and report: false do
// neither.
func TestActionPass(t *testing.T) {
	r := withBaseline(t, "30")
	r.commit(false, map[string]string{"README.md": "an agent\n"})
	res := r.run(nil)
	if res.code != 0 || len(lines(res.annotations, "::error")) > 0 {
		t.Fatalf("exit %d, annotations %q\n%s", res.code, res.annotations, res.log)
	}
	c := r.comments()
	if len(c) != 1 {
		t.Fatalf("%d comments", len(c))
	}
	for _, body := range c {
		if !ordered(body, marker+"\n## ctxbench check: 4 transcript × policy cases pass", "Baseline: ctxbench.baseline.json as main commits it. [The run](https://github.com/acme/agent/actions/runs/4242), its report artefact `ctxbench`.") {
			t.Errorf("comment:\n%s", body)
		}
		if strings.Contains(body, "Settings changed") || !strings.Contains(res.summary, body) {
			t.Errorf("comment:\n%s\nthe job's summary:\n%s", body, res.summary)
		}
	}
	dir := res.uploaded["ctxbench"]
	for _, f := range []string{"summary.md", "junit.xml", "results.json", "comment.md", "ctxbench.baseline.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("the report artefact: %v", err)
		}
	}
	n := len(r.calls())
	if res = r.run(map[string]string{"comment": "false", "report": "false"}); res.code != 0 || len(r.calls()) != n || len(res.uploaded) != 0 {
		t.Errorf("comment: false, report: false: exit %d, gh called %d times more, uploaded %v", res.code, len(r.calls())-n, res.uploaded)
	}

}

// TestActionRegression: a pull request that changes a setting fails, with
// an annotation per case and a comment that names the setting and then
// the metrics it moved, edited, not posted again, on the next run.
func TestActionRegression(t *testing.T) {
	r := withBaseline(t, "30")
	r.commit(false, map[string]string{"ctxbench.yaml": suiteFiles(t, "6")["ctxbench.yaml"]})
	res := r.run(nil)
	errs := lines(res.annotations, "::error ")
	if res.code != 1 || len(errs) == 0 {
		t.Fatalf("exit %d, annotations %q\n%s", res.code, res.annotations, res.log)
	}
	for _, a := range errs {
		if !regexp.MustCompile(`^::error file=sessions/(tool_heavy|subagent)\.jsonl,(line=\d+,)?title=ctxbench aidf%3Amax_messages=6%2Cpreserve_last_n=4%3A (regression|violations)::`).MatchString(a) {
			t.Errorf("annotation %q", a)
		}
	}
	// The cause first: the setting changed, as a notice, then what it moved.
	if len(res.annotations) == 0 || !strings.HasPrefix(res.annotations[0], "::notice file=sessions/") || !strings.HasSuffix(res.annotations[0], "%3A parameter::max_messages changed 30 → 6") {
		t.Errorf("first annotation %q, want the parameter changed", res.annotations[:min(len(res.annotations), 1)])
	}
	c := r.comments()
	if len(c) != 1 {
		t.Fatalf("%d comments", len(c))
	}
	first := ""
	for _, body := range c {
		first = body
	}
	t.Logf("the comment:\n%s", first)
	if !ordered(first, marker+"\n## ctxbench check: 2 of 4 transcript × policy cases fail",
		"**Settings changed**", "- `aidf:max_messages=6,preserve_last_n=4`: `max_messages` 30 → 6 (", "**Metrics moved**", "- `aidf:max_messages=6,preserve_last_n=4` evictions, ↓ worse: tool_heavy.jsonl 0 → 7 (new); subagent.jsonl 1 → 25 (+2400.0%)",
		"<details><summary>Every change</summary>", "| transcript | policy |", "</details>") {
		t.Errorf("comment:\n%s", first)
	}
	// The next push: the one comment, edited.
	r.commit(false, map[string]string{"ctxbench.yaml": suiteFiles(t, "8")["ctxbench.yaml"]})
	if res = r.run(nil); res.code != 1 {
		t.Fatalf("second run: exit %d\n%s", res.code, res.log)
	}
	c = r.comments()
	if len(c) != 1 {
		t.Fatalf("second run: %d comments", len(c))
	}
	for id, body := range c {
		if body == first || !strings.Contains(body, "`max_messages` 30 → 8 (") {
			t.Errorf("second run: comment %s:\n%s", id, body)
		}
	}
	post, patch := lines(r.calls(), "api --method POST"), lines(r.calls(), "api --method PATCH repos/acme/agent/issues/comments/1001")
	if len(post) != 1 || len(patch) != 1 {
		t.Errorf("gh calls:\n%s", strings.Join(r.calls(), "\n"))
	}

}

// TestActionAccepted: a pull request that also commits the baseline it
// moved to passes, with warnings, and says what it accepts.
func TestActionAccepted(t *testing.T) {
	r := withBaseline(t, "30")
	r.commit(false, map[string]string{"ctxbench.yaml": suiteFiles(t, "6")["ctxbench.yaml"]})
	r.commit(false, map[string]string{"ctxbench.baseline.json": r.recordBaseline()})
	res := r.run(nil)
	if res.code != 0 || len(lines(res.annotations, "::error")) > 0 || len(lines(res.annotations, "::warning file=sessions/")) == 0 {
		t.Fatalf("exit %d, annotations %q\n%s", res.code, res.annotations, res.log)
	}
	for _, body := range r.comments() {
		if !ordered(body, "fail", "This pull request changes `ctxbench.baseline.json` and accepts what moved", "`max_messages` 30 → 6") {
			t.Errorf("comment:\n%s", body)
		}
	}

}

// TestActionMissing: with no baseline on either branch the check cannot
// run: exit 2, the error and its hint as the annotation and the comment,
// and the report holds the baseline to commit.
func TestActionMissing(t *testing.T) {
	r := newRunner(t)
	r.commit(true, suiteFiles(t, "30"))
	r.git(r.ws, "checkout", "--quiet", "-b", "feature")
	r.commit(false, map[string]string{"README.md": "an agent\n"})
	res := r.run(nil)
	want := "::error title=ctxbench check::error: no baseline at ctxbench.baseline.json%0Ahint: run 'ctxbench check --update' once to record it, and commit it"
	if res.code != 2 || len(res.annotations) != 1 || res.annotations[0] != want {
		t.Fatalf("exit %d, annotations %q, want %q\n%s", res.code, res.annotations, want, res.log)
	}
	for _, body := range r.comments() {
		if !ordered(body, marker+"\n## ctxbench check could not run", "ctxbench: error: no baseline at ctxbench.baseline.json", "ctxbench: hint: run 'ctxbench check --update'") {
			t.Errorf("comment:\n%s", body)
		}
	}
	if _, err := os.Stat(filepath.Join(res.uploaded["ctxbench"], "ctxbench.baseline.json")); err != nil {
		t.Errorf("the report has no baseline to commit: %v", err)
	}

}

// TestActionArtifact: baseline: artifact:NAME records the first baseline
// on a push to main, and a pull request is compared with it.
func TestActionArtifact(t *testing.T) {
	r := newRunner(t)
	r.commit(true, suiteFiles(t, "30"))
	r.event = "push"
	res := r.run(map[string]string{"baseline": "artifact:ctxbench"})
	if res.code != 0 || len(res.annotations) != 1 || !strings.HasPrefix(res.annotations[0], "::notice title=ctxbench check::no artefact ctxbench of a successful run on main: this run records the first baseline") {
		t.Fatalf("push: exit %d, annotations %q\n%s", res.code, res.annotations, res.log)
	}
	if len(r.comments()) != 0 {
		t.Errorf("a push commented")
	}
	// The run's artefact, as GitHub keeps it.
	keep := filepath.Join(r.gh, "runs", "101", "ctxbench")
	os.MkdirAll(keep, 0o755)
	if out, err := exec.Command("cp", "-R", res.uploaded["ctxbench"]+"/.", keep).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	r.event = "pull_request"
	r.git(r.ws, "checkout", "--quiet", "-b", "feature")
	r.commit(false, map[string]string{"ctxbench.yaml": suiteFiles(t, "6")["ctxbench.yaml"]})
	res = r.run(map[string]string{"baseline": "artifact:ctxbench"})
	if res.code != 1 || len(lines(res.annotations, "::error file=")) == 0 {
		t.Fatalf("pull request: exit %d, annotations %q\n%s", res.code, res.annotations, res.log)
	}
	if len(lines(r.calls(), "run list --repo acme/agent --workflow ctxbench.yml --branch main --status success")) != 2 ||
		len(lines(r.calls(), "run download 101 --repo acme/agent --name ctxbench")) != 1 {
		t.Errorf("gh calls:\n%s", strings.Join(r.calls(), "\n"))
	}
	for _, body := range r.comments() {
		if !ordered(body, "`max_messages` 30 → 6", "Baseline: the baseline that run 101 on main recorded (artefact ctxbench)") {
			t.Errorf("comment:\n%s", body)
		}
	}

}

// TestActionRelease: version: vX.Y.Z installs the release's binary for
// the runner, checked against the release's checksums.txt: the snapshot
// make snapshot built, served as that release by the fake gh.
func TestActionRelease(t *testing.T) {
	d := openDist(t)
	r := withBaseline(t, "30")
	tag := "v" + d.version
	rel := filepath.Join(r.gh, "releases", tag)
	os.MkdirAll(rel, 0o755)
	archive := d.archive(runtime.GOOS + "_" + runtime.GOARCH)
	for _, f := range []string{archive, "checksums.txt"} {
		copyFile(t, filepath.Join(d.dir, f), filepath.Join(rel, f))
	}
	x := d.stamp(t)
	r.commit(false, map[string]string{"README.md": "an agent\n"})
	res := r.run(map[string]string{"version": tag})
	if res.code != 0 || !strings.Contains(res.log, stampedLine(x)+"\n") {
		t.Fatalf("exit %d, want the log to say %q\n%s", res.code, stampedLine(x), res.log)
	}
	if want := "release download " + tag + " --repo ctxbench/ctxbench --pattern " + archive + " --pattern checksums.txt"; len(lines(r.calls(), want)) != 1 {
		t.Errorf("gh calls, want %q:\n%s", want, strings.Join(r.calls(), "\n"))
	}
}
