package shortfall

import (
	"testing"

	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/transcript"
)

// TestShortOutput: a Claude Code 2.1.22 session whose lines record the
// stream's start as their output (1 to 30 tokens, stop_reason null)
// beside whole sections of text is said to fall short; a session whose
// output is recorded in full is not, nor one of fewer than 5 calls.
func TestShortOutput(t *testing.T) {
	e := estimate.MustNew("cl100k_base", estimate.OverheadNone)
	ts, err := transcript.ReadFile("../../cost/testdata/claude-code-stream-start-output.jsonl", transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	o, short := ShortOutput(ts[0], e)
	if !short || o.Calls != 8 || o.Recorded != 100 || o.Share() > 0.05 {
		t.Errorf("stream-start output: %+v (%.1f%%), short %v; want 8 calls, 100 tokens, under 5%%", o, o.Share()*100, short)
	}
	full := *ts[0]
	full.Messages = append([]transcript.Message(nil), ts[0].Messages...)
	for i := range full.Messages {
		if m := &full.Messages[i]; m.Usage != nil {
			u := *m.Usage
			u.Output = int64(e.CountMessage(m))
			m.Usage = &u
		}
	}
	if o, short := ShortOutput(&full, e); short {
		t.Errorf("output recorded in full: %+v said short", o)
	}
	few := *ts[0]
	few.Messages = ts[0].Messages[:8] // 4 calls
	if o, short := ShortOutput(&few, e); short || o.Calls != 4 {
		t.Errorf("4 calls: %+v, short %v", o, short)
	}
	if o, short := ShortOutput(pvlib(t), e); short {
		t.Errorf("pvlib: %+v said short", o)
	}
}

func pvlib(t testing.TB) *transcript.Transcript {
	t.Helper()
	ts, err := transcript.ReadFile("../../fixtures/corpus/mini-swe-agent/output/deepseek_chat_dev/pvlib__pvlib-python-1072/pvlib__pvlib-python-1072.traj.json", transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return ts[0]
}
