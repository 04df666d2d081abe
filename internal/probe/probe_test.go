package probe

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxbench/ctxbench/transcript"
)

func msg(role transcript.Role, blocks ...transcript.Block) transcript.Message {
	return transcript.Message{Role: role, Blocks: blocks}
}

func text(s string) transcript.Block { return transcript.Block{Type: transcript.BlockText, Text: s} }

func use(id, name, input string) transcript.Block {
	return transcript.Block{Type: transcript.BlockToolUse, ID: id, Name: name, Input: json.RawMessage(input)}
}

func result(id, s string, failed bool) transcript.Block {
	return transcript.Block{Type: transcript.BlockToolResult, ID: id, Text: s, IsError: failed}
}

// session is a hand-built history whose probes are known.
func session() *transcript.Transcript {
	return &transcript.Transcript{ID: "s", Messages: []transcript.Message{
		msg(transcript.RoleUser, text("Fix the flaky test in `pkg/clock`. Never change the public API. The timeout is 250 ms.")),
		msg(transcript.RoleAssistant, text("I'll run the tests first."), use("c1", "Bash", `{"command":"go test ./pkg/clock"}`)),
		msg(transcript.RoleTool, result("c1", "--- FAIL: TestTick (0.25s)\n    clock_test.go:40: deadline exceeded\nFAIL\nexit status 1", true)),
		msg(transcript.RoleAssistant, text("I'll use a fake clock instead of time.Sleep."), use("c2", "Read", `{"file_path":"pkg/clock/clock.go"}`)),
		msg(transcript.RoleTool, result("c2", "package clock", false)),
		msg(transcript.RoleAssistant, use("c3", "Edit", `{"file_path":"pkg/clock/clock.go","old_string":"a","new_string":"b"}`)),
		msg(transcript.RoleTool, result("c3", "ok", false)),
		msg(transcript.RoleUser, text("Now run the race detector.")),
	}}
}

func TestOfKnownHistory(t *testing.T) {
	got := Of(session(), []int{0, 1, 2, 3, 4, 5, 6}, 7)
	want := []Probe{
		{Kind: Artifact, Question: "What was last done to pkg/clock/clock.go?", Answer: "Edit pkg/clock/clock.go", Keys: []string{"pkg/clock/clock.go"}, Message: 5},
		{Kind: Artifact, Question: "What happened when the agent ran `go test ./pkg/clock`?", Answer: "failed: --- FAIL: TestTick (0.25s)",
			Keys: []string{"go test ./pkg/clock", "--- FAIL: TestTick (0.25s)"}, Message: 1},
		{Kind: Recall, Question: "What name did the user give?", Answer: "pkg/clock", Keys: []string{"pkg/clock"}, Message: 0},
		{Kind: Recall, Question: "What number did the user give?", Answer: "250", Keys: []string{"250"}, Message: 0},
		{Kind: Recall, Question: "What error did a tool report?", Answer: "--- FAIL: TestTick (0.25s)", Keys: []string{"--- FAIL: TestTick (0.25s)"}, Message: 2},
		{Kind: Recall, Question: "What exit code did a command end with?", Answer: "exit status 1", Keys: []string{"exit status 1"}, Message: 2},
		{Kind: Decision, Question: "What constraint did the user set?", Answer: "Never change the public API.", Keys: []string{"Never change the public API."}, Message: 0},
		{Kind: Decision, Question: "What did the assistant decide?", Answer: "I'll use a fake clock instead of time.", Keys: []string{"I'll use a fake clock instead of time."}, Message: 3},
		{Kind: Continuation, Question: "What did the user ask for next?", Answer: "Now run the race detector.", Keys: []string{"Now run the race detector."}, Message: 7},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("probes (-want +got):\n%s", diff)
	}
}

// TestExactJudge: a context that kept the paths and the user's rule in
// a summary keeps those probes, not the error it paraphrased.
func TestExactJudge(t *testing.T) {
	probes := Of(session(), []int{0, 1, 2, 3, 4, 5, 6}, 7)
	summary := &transcript.Message{Role: transcript.RoleUser, Blocks: []transcript.Block{text(
		"Summary: the user asked to fix a flaky test in pkg/clock and said: never change the  public API. The test timed out; " +
			"pkg/clock/clock.go was edited to use a fake clock.")}}
	c := NewContext([]*transcript.Message{summary})
	var s Score
	var kept []string
	for _, p := range probes {
		k := c.Keeps(p)
		s.Add(p, k)
		if k {
			kept = append(kept, p.Answer)
		}
	}
	want := []string{"Edit pkg/clock/clock.go", "pkg/clock", "Never change the public API."}
	if diff := cmp.Diff(want, kept); diff != "" {
		t.Errorf("kept (-want +got):\n%s", diff)
	}
	if share, ok := s.Share(Recall); !ok || share != 0.25 {
		t.Errorf("recall kept %v (%v), want 1 of 4", share, ok)
	}
	if all, _ := s.Overall(); all != 3.0/9 {
		t.Errorf("overall %v, want 3/9", all)
	}
	// The whole history keeps every probe but the continuation, whose
	// answer is in the future.
	var hist []*transcript.Message
	for i := range session().Messages[:7] {
		hist = append(hist, &session().Messages[i])
	}
	full := NewContext(hist)
	for _, p := range probes {
		if full.Keeps(p) != (p.Kind != Continuation) {
			t.Errorf("the whole history: %s %q kept %v", p.Kind, p.Answer, full.Keeps(p))
		}
	}
}

// TestParaphrase: every question the extractor asks is put to the LLM
// judge in other words.
func TestParaphrase(t *testing.T) {
	for _, q := range []string{"What happened when the agent ran `go test ./...`?", "What was last done to src/a.go?",
		"What error did a tool report?", "What exit code did a command end with?", "What constraint did the user set?",
		"What name did the user give?", "What number did the user give?", "What did the assistant decide?",
		"What is the next step?", "What did the user ask for next?"} {
		if p := paraphrase(q); p == q || strings.HasPrefix(p, q[:min(len(q), 12)]) {
			t.Errorf("%q asked as %q", q, p)
		}
	}
	// And every question the extractor asks of the hand-built session.
	for _, p := range allProbes(session()) {
		if paraphrase(p.Question) == p.Question {
			t.Errorf("%s probe %q not paraphrased", p.Kind, p.Question)
		}
	}
}

// TestParseGrade: the grader's reply is read from its first JSON object,
// scores clamped to 0–5; a reply without all six is an error.
func TestParseGrade(t *testing.T) {
	g, err := parseGrade("Here:\n```json\n{\"accuracy\": 7, \"context_awareness\": -1, \"artifact_trail\": 3.6, \"completeness\": 2, \"continuity\": 1, \"instruction_following\": 5}\n```")
	if err != nil || g != (Grade{Accuracy: 5, ArtifactTrail: 3, Completeness: 2, Continuity: 1, InstructionFollowing: 5}) {
		t.Errorf("grade %+v, %v", g, err)
	}
	if g.Mean() != 16.0/6 {
		t.Errorf("mean %v", g.Mean())
	}
	for _, bad := range []string{"no json", `{"accuracy": 3}`, `{"accuracy": "high"}`} {
		if _, err := parseGrade(bad); err == nil {
			t.Errorf("%q read", bad)
		}
	}
}

// TestNormalizeFast: the one-pass normalization of ASCII text is the
// definition's (escapes, then lowercase, then white space joined), on
// texts made of the bytes it treats apart.
func TestNormalizeFast(t *testing.T) {
	def := func(s string) string {
		return strings.Join(strings.Fields(strings.ToLower(jsonEscapes.Replace(s))), " ")
	}
	alphabet := []string{`\`, "n", "t", `"`, "/", " ", "\t", "\n", "\v", "\f", "\r", "A", "z", "Q", "0", "-", "\\\\", "\x00", "é", "K", "\xff", "\u0085", "\u00a0", "İ", "\ufffd", "\xe2\x84"}
	r := rand.New(rand.NewPCG(1, 2))
	n := 200_000
	if testing.Short() {
		n = 20_000
	}
	for range n {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		if s := b.String(); Normalize(s) != def(s) {
			t.Fatalf("Normalize(%q) = %q, the definition %q", s, Normalize(s), def(s))
		}
	}
}

func FuzzNormalize(f *testing.F) {
	f.Add(`a\"b\/c  D\n\te`)
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Normalize(s), strings.Join(strings.Fields(strings.ToLower(jsonEscapes.Replace(s))), " "); got != want {
			t.Fatalf("Normalize(%q) = %q, the definition %q", s, got, want)
		}
	})
}

// jsonEscapes are the escapes [Normalize] reads, as the definition
// replaces them.
var jsonEscapes = strings.NewReplacer(`\n`, " ", `\t`, " ", `\"`, `"`, `\/`, "/")

// TestDecisionCues: every text the constraint and choice patterns match
// holds one of their cues (so a sentence without one is not matched),
// on texts made of the patterns' pieces, folds and boundaries.
func TestDecisionCues(t *testing.T) {
	pieces := []string{"don", "'t", "do", " not", "nev", "er", "alw", "ays", "mu", "st", "n't", "shou", "ld", "only", " use", "ma", "ke", " sure",
		"i", "'ll", " will", " go with", "cho", "se", "deci", "ded", "'ve", "inst", "ead", " of", "rat", "her", " than", "let", "'s", "we", "'m going to",
		"\u017f", "\u212a", "S", "K", " ", "_", "É", "."}
	folded := []string{"You mu\u017ft.", "ma\u212ae \u017fure", "I'll u\u017fe it", "I cho\u017fe it"}
	r := rand.New(rand.NewPCG(7, 8))
	for n := range 200_000 {
		var b strings.Builder
		for range r.IntN(10) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		if n < len(folded) {
			s = folded[n]
			if !constraint.MatchString(s) && !choice.MatchString(s) {
				t.Fatalf("%q: no pattern matches it", s)
			}
		}
		if constraint.MatchString(s) && !mayMatchFold(s, constraintCues...) {
			t.Fatalf("%q: a constraint its cues miss", s)
		}
		if choice.MatchString(s) && !mayMatchFold(s, choiceCues...) {
			t.Fatalf("%q: a choice its cues miss", s)
		}
	}
	// The test can fail: a cue list without "must" misses a constraint.
	if mayMatchFold("You must.", "don't", "never") {
		t.Fatal("a text without the cues passes")
	}
}

// TestErrorPrefilter: the words looked for before a text's lines are
// matched leave out no line the pattern finds, nor any exit code, on
// texts made of the words' pieces, folds and boundaries.
func TestErrorPrefilter(t *testing.T) {
	pieces := []string{"err", "or", "s", "exc", "eption", "trace", "bac", "k", "\u212a", "fai", "l", "ed", "ure", "fat", "al", "pan", "ic", "EX", "it", " code ", "status=", "1", " ", "\n", "_", "É", "\u017f"}
	r := rand.New(rand.NewPCG(3, 4))
	for range 50_000 {
		var b strings.Builder
		for range r.IntN(8) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		want := ""
		for line := range strings.SplitSeq(s, "\n") {
			if line = strings.TrimSpace(line); len(line) >= 8 && errorWords.MatchString(line) {
				want = line
				break
			}
		}
		if got := firstErrorLine(s); got != want {
			t.Fatalf("firstErrorLine(%q) = %q, the pattern %q", s, got, want)
		}
		if exitCode.MatchString(s) && !hasWordFold(s, "exit") {
			t.Fatalf("%q holds an exit code the prefilter misses", s)
		}
	}
}

// TestInjectedCaveatIsNotTheUsers: Claude Code's local-command caveat, in
// the user's turn, is the agent's text: no constraint of the user's, and
// not the next request, which is the user's own message after it.
func TestInjectedCaveatIsNotTheUsers(t *testing.T) {
	caveat := "<local-command-caveat>Caveat: The messages below were generated by the user while running local commands. DO NOT respond to these messages or otherwise consider them in your response unless the user explicitly asks you to.</local-command-caveat>"
	tr := &transcript.Transcript{ID: "s", Messages: []transcript.Message{
		msg(transcript.RoleUser, text("Fix the build.")),
		msg(transcript.RoleAssistant, text("Done.")),
		msg(transcript.RoleUser, text(caveat)),
		msg(transcript.RoleUser, text("Now tag the release.")),
	}}
	for _, p := range Of(tr, []int{0, 1, 2}, 2) {
		if strings.Contains(p.Answer, "DO NOT") || strings.Contains(p.Answer, "Caveat") {
			t.Errorf("a %s probe of the caveat: %+v", p.Kind, p)
		}
		if p.Kind == Continuation && p.Answer != "Now tag the release." {
			t.Errorf("the next request is %q", p.Answer)
		}
	}
}

// TestEveryKindOfARealSession: the 139-call Claude Code session
// 4d5611e5 of fixtures/compactions, whose assistant states its changes
// as "I need to rename `load_transcript` to …", holds probes of every
// kind: before, it held no decision probe (the choices were only "I'll
// use", "instead of", …).
func TestEveryKindOfARealSession(t *testing.T) {
	ts, err := transcript.ReadFile("../../fixtures/compactions/spotter/4d5611e5-241a-462a-8d15-5122611a9569.jsonl.gz", transcript.Options{})
	if err != nil || len(ts) == 0 {
		t.Fatalf("%v, %d transcripts", err, len(ts))
	}
	got := NewExtractor(ts[0]).Session()
	for _, k := range Kinds() {
		if got[k] == 0 {
			t.Errorf("no %s probe: %v", k, got)
		}
	}
}

// allProbes returns the probes of t's whole history (no continuation).
func allProbes(t *transcript.Transcript) []Probe {
	idx := make([]int, len(t.Messages))
	for i := range idx {
		idx[i] = i
	}
	return Of(t, idx, -1)
}
