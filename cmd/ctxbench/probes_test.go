package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/ctxbench/ctxbench/internal/report"
)

// judgeAPI is a fake Anthropic Messages API that answers the LLM judge:
// a question about the distractor file is "NOT IN CONTEXT", any other
// gets an answer, and a grading request its six scores.
type judgeAPI struct {
	*httptest.Server
	mu               sync.Mutex
	asked, graded    int
	rubric, answered bool
	status           int
}

func newJudgeAPI(t *testing.T) *judgeAPI {
	j := &judgeAPI{rubric: true, answered: true, status: http.StatusOK}
	j.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			System   string `json:"system"`
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		b, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(b, &req)
		user := ""
		if len(req.Messages) > 0 {
			user = req.Messages[0].Content
		}
		j.mu.Lock()
		status := j.status
		text := "The agent read the file and the tests failed."
		switch {
		case strings.HasPrefix(req.System, "You grade"):
			j.graded++
			j.rubric = j.rubric && strings.Contains(req.System, "artifact_trail") && strings.Contains(req.System, "instruction_following") &&
				strings.Contains(user, "Expected answer: ")
			text = `{"accuracy": 4, "context_awareness": 3, "artifact_trail": 4, "completeness": 2, "continuity": 4, "instruction_following": 5}`
		default:
			j.asked++
			j.answered = j.answered && strings.Contains(user, "<conversation>") && strings.Contains(user, "Question: ")
			if strings.Contains(user, "config/ctxbench-") {
				text = "NOT IN CONTEXT"
			}
		}
		j.mu.Unlock()
		w.Header().Set("content-type", "application/json")
		if status != http.StatusOK {
			w.WriteHeader(status)
			io.WriteString(w, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`)
			return
		}
		body, _ := json.Marshal(map[string]any{"model": "claude-haiku-4-5-20251001", "content": []map[string]string{{"type": "text", "text": text}},
			"usage": map[string]int{"input_tokens": 900, "output_tokens": 30}})
		w.Write(body)
	}))
	t.Cleanup(j.Close)
	return j
}

func (j *judgeAPI) counts() (asked, graded int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.asked, j.graded
}

// TestProbesLLMJudgeEndToEnd runs `probes --judge llm` against the fake
// API: the requests carry the rubric, the answers are scored, a re-run is
// served from the cache with no request, and the spend cap and the
// breaker stop it.
func TestProbesLLMJudgeEndToEnd(t *testing.T) {
	api := newJudgeAPI(t)
	t.Setenv("ANTHROPIC_API_KEY", "sk-test-judge")
	cache := t.TempDir()
	session := corpus + "spotter/subagent.jsonl"
	args := []string{"probes", "--json", "--judge", "llm", "--policy", "aidf:max_messages=6",
		"--summarizer", "anthropic:base_url=" + api.URL + ",cache_dir=" + cache, session}
	stdout, stderr, code := ctxbench("", args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res probesResult
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatal(err)
	}
	asked, graded := api.counts()
	tp := res.Transcripts[0]
	probes := judgedProbes(t, &tp)
	ls := tp.LLMScore
	// Asking the same question of the same context twice (two
	// constraints lost at one call) is one request: the cache serves the
	// second.
	if probes == 0 || ls == nil || graded != probes || asked < len(tp.Calls) || asked > probes+len(tp.Calls) || ls.Distractors != len(tp.Calls) ||
		ls.DistractorsRight != ls.Distractors || ls.MeanGrade["completeness"] != 2 || len(ls.Prompts) != 64 {
		t.Fatalf("%d probes at %d calls: %d asked, %d graded; score %+v", probes, len(tp.Calls), asked, graded, ls)
	}
	if !api.rubric || !api.answered {
		t.Errorf("requests without the rubric (%v) or the context and question (%v)", api.rubric, api.answered)
	}
	// A re-run is served from the cache.
	again, stderr, code := ctxbench("", args...)
	if a, g := api.counts(); code != 0 || again != stdout || a != asked || g != graded {
		t.Errorf("re-run: exit %d, same output %v, %d more requests: %s", code, again == stdout, a+g-asked-graded, stderr)
	}
	judgeStops(t, api, session, asked+graded)
	// The judge needs a model and a policy.
	if _, stderr, code := ctxbench("", "probes", "--judge", "llm", "--policy", "aidf:max_messages=6", session); code != 2 || !strings.Contains(stderr, "--judge llm needs a model") {
		t.Errorf("mock judge: exit %d: %s", code, stderr)
	}
}

// judgedProbes: every probe of tp is graded, kept and asked
// paraphrased, and every call's distractor answered not in the context.
// It returns the probes.
func judgedProbes(t *testing.T, tp *report.TranscriptProbes) int {
	t.Helper()
	probes := 0
	for _, c := range tp.Calls {
		probes += len(c.Probes)
		for _, p := range c.Probes {
			if p.LLM == nil || p.LLM.Grade == nil || p.LLM.Grade.Accuracy != 4 || !p.LLM.Kept || p.LLM.Asked == p.Question {
				t.Errorf("call %d: %q judged %+v, want graded and asked paraphrased", c.Step, p.Question, p.LLM)
			}
		}
		if c.Distractor == nil || !c.Distractor.Kept {
			t.Errorf("call %d: distractor %+v, want answered not in the context", c.Step, c.Distractor)
		}
	}
	return probes
}

// judgeStops: the spend cap stops the judge before it spends (each
// request could cost more than a hundredth of a cent), and a key the API
// refuses stops the run at its first request; made is the requests the
// API had before.
func judgeStops(t *testing.T, api *judgeAPI, session string, made int) {
	t.Helper()
	_, stderr, code := ctxbench("", "probes", "--judge", "llm", "--policy", "aidf:max_messages=6",
		"--summarizer", "anthropic:max_usd=0.0001,base_url="+api.URL+",cache_dir="+t.TempDir(), session)
	if a, g := api.counts(); code == 0 || !strings.Contains(stderr, "spend cap") || a+g != made {
		t.Errorf("spend cap: exit %d, %d requests made: %s", code, a+g-made, stderr)
	}
	api.mu.Lock()
	api.status = http.StatusUnauthorized
	api.mu.Unlock()
	_, stderr, code = ctxbench("", "probes", "--judge", "llm", "--policy", "aidf:max_messages=6",
		"--summarizer", "anthropic:base_url="+api.URL+",cache_dir="+t.TempDir(), session)
	if a, g := api.counts(); code == 0 || !strings.Contains(stderr, "authentication_error") || a+g != made+1 {
		t.Errorf("refused key: exit %d, %d requests made: %s", code, a+g-made, stderr)
	}
}

// TestProbesAgainstRework reproduces the table of docs/probes.md: at
// each compaction the corpus records, the probes the exact judge kept
// (probes --policy recorded) and the work done again (estimate's
// rework).
func TestProbesAgainstRework(t *testing.T) {
	doc, err := os.ReadFile("../../docs/probes.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ file, row string }{
		{"ai-workflow-agent/issue-113/04_implementation/execute/agent_log_raw.txt", "| ai-workflow-agent `agent_log_raw.txt` (stream-json records no summary) |"},
		{"spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl", "| spotter `8463c716…` |"},
	} {
		stdout, stderr, code := ctxbench("", "probes", "--json", "--policy", "recorded", corpus+c.file)
		if code != 0 {
			t.Fatalf("probes %s: exit %d: %s", c.file, code, stderr)
		}
		var res probesResult
		if err := json.Unmarshal([]byte(stdout), &res); err != nil {
			t.Fatal(err)
		}
		kept, total := res.Transcripts[0].Score.Totals()
		stdout, stderr, code = ctxbench("", "estimate", "--json", corpus+c.file)
		if code != 0 {
			t.Fatalf("estimate %s: exit %d: %s", c.file, code, stderr)
		}
		var est struct {
			Rework []struct {
				After, Before struct {
					ToolCalls               int `json:"tool_calls"`
					Repeated, Reads, Reread int
				}
			} `json:"rework"`
		}
		if err := json.Unmarshal([]byte(stdout), &est); err != nil {
			t.Fatal(err)
		}
		if len(est.Rework) != 1 {
			t.Fatalf("%s: %d compactions with rework", c.file, len(est.Rework))
		}
		a, b := est.Rework[0].After, est.Rework[0].Before
		row := fmt.Sprintf("%s %d of %d | %d of %d (%d of %d) | %d of %d (%d of %d) |", c.row, kept, total,
			a.Repeated, a.ToolCalls, b.Repeated, b.ToolCalls, a.Reread, a.Reads, b.Reread, b.Reads)
		if !strings.Contains(string(doc), row) {
			t.Errorf("docs/probes.md lacks the row\n%s", row)
		}
	}
}
