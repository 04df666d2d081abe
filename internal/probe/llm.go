package probe

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strings"
	"sync"

	"github.com/ctxbench/ctxbench/internal/conversation"
	"github.com/ctxbench/ctxbench/summarize"
	"github.com/ctxbench/ctxbench/transcript"
)

// An LLMJudge asks a model each probe with only the context a call sent,
// then has a model grade the answer against the one the recording holds,
// on the six 0–5 dimensions of Factory's evaluation of context
// compression (accuracy, context awareness, artifact trail, completeness,
// continuity, instruction following; the rubric NousResearch/hermes-agent
// scripts/compression_eval reimplements). Questions are asked
// paraphrased, as Chroma's "Context Rot" shows lexical probes overstate
// what is kept, and each call adds a distractor: a question about a file
// the session never touched, whose right answer is "not in the context".
//
// Model is the summarize package's provider (Anthropic or OpenAI), so a
// judge's calls share its client: the response cache (a re-run makes no
// request), retries, the spend cap and the breaker that stops a run.
type LLMJudge struct {
	Model summarize.Summarizer
}

// A Grade is the rubric's six scores of one answer, each 0 to 5.
type Grade struct {
	Accuracy             int `json:"accuracy"`
	ContextAwareness     int `json:"context_awareness"`
	ArtifactTrail        int `json:"artifact_trail"`
	Completeness         int `json:"completeness"`
	Continuity           int `json:"continuity"`
	InstructionFollowing int `json:"instruction_following"`
}

// Dimensions are the rubric's dimensions, as the grader names them, in
// the order of [Grade]'s fields.
var Dimensions = []string{"accuracy", "context_awareness", "artifact_trail", "completeness", "continuity", "instruction_following"}

// scores returns g's fields in the order of [Dimensions].
func (g *Grade) scores() []*int {
	return []*int{&g.Accuracy, &g.ContextAwareness, &g.ArtifactTrail, &g.Completeness, &g.Continuity, &g.InstructionFollowing}
}

// Mean returns the mean of the six scores.
func (g Grade) Mean() float64 {
	sum := 0
	for _, v := range g.scores() {
		sum += *v
	}
	return float64(sum) / float64(len(Dimensions))
}

// A Verdict is an LLM judge's finding on one question at one call.
type Verdict struct {
	// Asked is the question as it was put to the model (paraphrased).
	Asked string `json:"asked"`
	Given string `json:"given"`
	// Grade is the rubric's scores (none for a distractor, which is right
	// when the model says the context does not hold its answer).
	Grade *Grade `json:"grade,omitempty"`
	// Kept: a probe's answer scored 3 or more for accuracy; a
	// distractor answered "not in the context".
	Kept bool `json:"kept"`
}

// An LLMScore is what an LLM judge found over the calls of a replay.
type LLMScore struct {
	// Score counts the probes kept (accuracy 3 or more), by kind.
	Score
	// MeanGrade is the mean of each dimension over the probes graded.
	MeanGrade map[string]float64 `json:"mean_grade"`
	// Distractors counts the distractor questions asked, DistractorsRight
	// those answered "not in the context".
	Distractors      int `json:"distractors"`
	DistractorsRight int `json:"distractors_right"`
	// Prompts is [PromptsDigest] of the prompts that made the score.
	Prompts string `json:"prompts_sha256"`
	sum     Grade
	graded  int
}

// Add counts the verdict on probe p.
func (s *LLMScore) Add(p Probe, v Verdict) {
	s.Score.Add(p, v.Kept)
	if v.Grade == nil {
		return
	}
	s.graded++
	if s.MeanGrade == nil {
		s.MeanGrade = map[string]float64{}
	}
	sum, g := s.sum.scores(), v.Grade.scores()
	for k, d := range Dimensions {
		*sum[k] += *g[k]
		s.MeanGrade[d] = float64(*sum[k]) / float64(s.graded)
	}
}

// AddDistractor counts a distractor's verdict.
func (s *LLMScore) AddDistractor(v Verdict) {
	s.Distractors++
	if v.Kept {
		s.DistractorsRight++
	}
}

// notInContext is what the answer prompt asks the model to reply when
// the context does not hold the answer.
const notInContext = "NOT IN CONTEXT"

// The pinned prompts: their digest ([PromptsDigest]) goes in the output,
// so that scores made with other prompts are not compared unknowingly.
var (
	answerPrompt = &summarize.Template{Name: "probe-answer", Source: "ctxbench internal/probe",
		System: "You answer questions about a conversation between a user and a coding agent, using only the conversation given. " +
			"Answer in one or two sentences. If the conversation does not contain the answer, reply exactly " + notInContext + ".",
		MaxTokens: 300}
	gradePrompt = &summarize.Template{Name: "probe-grade", Source: "ctxbench internal/probe (Factory's six dimensions)",
		System: "You grade an answer that an agent gave from a compressed context against the answer the full record holds. " +
			"Score each dimension from 0 (wrong or missing) to 5 (fully right): " +
			"accuracy (the facts match the expected answer), " +
			"context_awareness (the answer reflects the state of the conversation at that point), " +
			"artifact_trail (files, commands and outputs are named correctly), " +
			"completeness (every part of the expected answer is present), " +
			"continuity (the answer would let the agent continue the work), " +
			"instruction_following (it answers what was asked, as asked). " +
			`Reply with one JSON object and nothing else: {"accuracy": n, "context_awareness": n, "artifact_trail": n, "completeness": n, "continuity": n, "instruction_following": n}.`,
		MaxTokens: 200}
)

// PromptsDigest returns the SHA-256 of the judge's pinned prompts and of
// its paraphrases, as hex.
func PromptsDigest() string { return promptsDigest() }

var promptsDigest = sync.OnceValue(func() string {
	h := sha256.New()
	for _, t := range []*summarize.Template{answerPrompt, gradePrompt} {
		fmt.Fprintf(h, "%s\x00%s\x00%d\x00", t.Name, t.System, t.MaxTokens)
	}
	for _, p := range paraphrases {
		fmt.Fprintf(h, "%s\x00%s\x00", p.from, p.to)
	}
	return hex.EncodeToString(h.Sum(nil))
})

// paraphrases reword each question the extractor asks, so that the
// model cannot find an answer by the question's words alone.
var paraphrases = []struct{ from, to string }{
	{"What happened when the agent ran ", "What was the result after the agent executed "},
	{"What was last done to ", "What is the most recent action taken on "},
	{"What error did a tool report?", "Which error message came back from a tool?"},
	{"What exit code did a command end with?", "A command finished with which exit status?"},
	{"What constraint did the user set?", "What did the user say must or must not be done?"},
	{"What name did the user give?", "Which name did the user mention?"},
	{"What number did the user give?", "Which number did the user state?"},
	{"What did the assistant decide?", "What choice did the assistant make?"},
	{"What is the next step?", "What should happen next?"},
	{"What did the user ask for next?", "What was the user's next request?"},
}

// paraphrase rewords a probe's question.
func paraphrase(q string) string {
	for _, p := range paraphrases {
		if rest, ok := strings.CutPrefix(q, p.from); ok {
			return p.to + rest
		}
	}
	return q
}

// distractor is the call's question whose answer no context holds: a
// file named from the call's step, which no session touches.
func distractor(step int) string {
	h := fnv.New32a()
	fmt.Fprintf(h, "ctxbench distractor %d", step)
	return fmt.Sprintf("What did the file config/ctxbench-%08x.toml contain?", h.Sum32())
}

// Judge asks the probes of the call at step, and a distractor, of the
// messages it sent, and grades the answers: a verdict per probe, in
// order, and the distractor's. An error stops the judging (a spend cap,
// the breaker, a cancelled run).
func (j *LLMJudge) Judge(ctx context.Context, step int, sent []*transcript.Message, probes []Probe) ([]Verdict, Verdict, error) {
	msgs := make([]transcript.Message, len(sent))
	for i, m := range sent {
		msgs[i] = *m
	}
	conv := conversation.Text(msgs)
	ask := func(q string) (string, error) {
		r, err := j.Model.Summarize(ctx, summarize.Request{Template: answerPrompt,
			Prompt: "<conversation>\n" + conv + "\n</conversation>\n\nQuestion: " + q})
		return strings.TrimSpace(r.Text), err
	}
	out := make([]Verdict, 0, len(probes))
	for _, p := range probes {
		v := Verdict{Asked: paraphrase(p.Question)}
		var err error
		if v.Given, err = ask(v.Asked); err != nil {
			return out, Verdict{}, err
		}
		r, err := j.Model.Summarize(ctx, summarize.Request{Template: gradePrompt,
			Prompt: "Question: " + p.Question + "\nExpected answer: " + p.Answer + "\nGiven answer: " + v.Given})
		if err != nil {
			return out, Verdict{}, err
		}
		g, err := parseGrade(r.Text)
		if err != nil {
			return out, Verdict{}, fmt.Errorf("grading %q: %w", p.Question, err)
		}
		v.Grade, v.Kept = &g, g.Accuracy >= 3
		out = append(out, v)
	}
	d := Verdict{Asked: distractor(step)}
	var err error
	if d.Given, err = ask(d.Asked); err != nil {
		return out, Verdict{}, err
	}
	d.Kept = strings.Contains(strings.ToUpper(d.Given), notInContext)
	return out, d, nil
}

// parseGrade reads the grader's JSON object (the first {…} of its reply),
// each score clamped to 0–5.
func parseGrade(text string) (Grade, error) {
	i, k := strings.IndexByte(text, '{'), strings.LastIndexByte(text, '}')
	if i < 0 || k < i {
		return Grade{}, fmt.Errorf("no JSON object in the reply %q", clip(text))
	}
	var raw map[string]float64
	if err := json.Unmarshal([]byte(text[i:k+1]), &raw); err != nil {
		return Grade{}, fmt.Errorf("reply %q: %v", clip(text), err)
	}
	var g Grade
	to := g.scores()
	for k, d := range Dimensions {
		v, ok := raw[d]
		if !ok {
			return Grade{}, fmt.Errorf("reply %q has no %s", clip(text), d)
		}
		*to[k] = int(min(5, max(0, v)))
	}
	return g, nil
}
