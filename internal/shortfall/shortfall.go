// Package shortfall says whether the output a transcript records falls
// short of what its calls wrote, as a file that records each stream's
// start does (`ctxbench cost` warns of it; the bill prices what the file
// records).
package shortfall

import (
	"github.com/ctxbench/ctxbench/estimate"
	"github.com/ctxbench/ctxbench/transcript"
)

// The output a transcript records is taken to fall short of what its
// calls wrote when, over [minShortfallCalls] calls or more that record
// usage, it is less than [ShortfallShare] of the estimate of the text,
// thinking and tool calls those calls wrote. An estimate is off by a
// tokenizer's ratio (tenths), not fourfold; a file that records the
// stream's start (Claude Code 2.1.22: output_tokens 1–30 with
// stop_reason null) is off twentyfold.
const (
	minShortfallCalls = 5
	ShortfallShare    = 0.25
)

// An OutputShortfall is a transcript's recorded output against the
// estimate of what its calls wrote.
type OutputShortfall struct {
	Calls     int   `json:"calls"`
	Recorded  int64 `json:"recorded_output_tokens"`
	Estimated int64 `json:"estimated_output_tokens"`
}

// Share is the recorded output's share of the estimate.
func (s OutputShortfall) Share() float64 { return float64(s.Recorded) / float64(s.Estimated) }

// ShortOutput returns the output t's calls record (with the output t
// records for no one call) against e's estimate
// of what they wrote, and whether it falls short (see
// [ShortfallShare]). The bill is not changed: it prices what the file
// records, as ccusage does.
func ShortOutput(t *transcript.Transcript, e estimate.Estimator) (OutputShortfall, bool) {
	var s OutputShortfall
	for i := range t.Messages {
		m := &t.Messages[i]
		if m.Role != transcript.RoleAssistant || m.Usage == nil {
			continue
		}
		s.Calls++
		s.Recorded += m.Usage.Output
		s.Estimated += int64(e.CountMessage(m))
	}
	// Output recorded for the calls as a whole is theirs too.
	if u := t.Unattributed; u != nil {
		s.Recorded += u.Output
	}
	for _, mu := range t.UnattributedByModel {
		s.Recorded += mu.Usage.Output
	}
	return s, s.Calls >= minShortfallCalls && s.Estimated > 0 && float64(s.Recorded) < ShortfallShare*float64(s.Estimated)
}
