package model

// Stats summarizes a transcript: what `ctxbench inspect` prints.
type Stats struct {
	File     string         `json:"file"`
	ID       string         `json:"id"`
	Parent   string         `json:"parent,omitempty"`
	Format   Format         `json:"format"`
	Models   []string       `json:"models"`
	Messages int            `json:"messages"`
	Roles    map[string]int `json:"roles"`
	// Calls is the number of recorded API calls (see [Transcript.Calls]).
	Calls int `json:"calls"`
	// CallsWithUsage is the number of assistant messages that carry usage.
	CallsWithUsage int `json:"calls_with_usage"`
	ToolUses       int `json:"tool_uses"`
	ToolResults    int `json:"tool_results"`
	// SentTruncated is the tool results the agent cut before sending
	// them (see [Transcript.SentTruncated]).
	SentTruncated int `json:"sent_truncated,omitempty"`
	Thinking      int `json:"thinking_blocks"`
	// Characters is the characters of the content, images' data left out.
	Characters int `json:"characters"`
	// Images are the images the messages hold (see [Block.Images]).
	Images      []Image        `json:"images,omitempty"`
	Usage       Usage          `json:"usage"`
	Compactions int            `json:"compactions"`
	Skipped     map[string]int `json:"skipped"`
	// BadRecords is the number of malformed records skipped (lenient mode);
	// Bad says where and why, for the first [MaxBadListed].
	BadRecords  int            `json:"bad_records"`
	Bad         []*SyntaxError `json:"bad,omitempty"`
	InvalidUTF8 int            `json:"invalid_utf8_records"`
	// Unattributed is the part of Usage recorded per group of calls
	// rather than per call (see [Transcript.Unattributed]).
	Unattributed *Usage `json:"unattributed,omitempty"`
	// UnattributedByModel is the usage of calls no record shows, by
	// model (see [Transcript.UnattributedByModel]): not in Usage.
	UnattributedByModel []ModelUsage `json:"unattributed_by_model,omitempty"`
	// Reported is the session total the agent reported, where it did.
	Reported        *Usage  `json:"reported,omitempty"`
	ReportedCostUSD float64 `json:"reported_cost_usd,omitempty"`
}

// Summary returns the statistics of t.
func (t *Transcript) Summary() Stats {
	s := Stats{
		File: t.File, ID: t.ID, Parent: t.Parent, Format: t.Format, Models: t.Models,
		Messages: len(t.Messages), Calls: t.Calls, Usage: t.Usage(),
		Roles:       map[string]int{string(RoleUser): 0, string(RoleAssistant): 0},
		Skipped:     map[string]int{},
		Compactions: len(t.Compactions), BadRecords: t.BadRecords, Bad: t.Bad,
		InvalidUTF8: t.InvalidUTF8, Unattributed: t.Unattributed, Reported: t.Reported, ReportedCostUSD: t.ReportedCostUSD,
		UnattributedByModel: t.UnattributedByModel, SentTruncated: t.SentTruncated,
	}
	if s.Models == nil {
		s.Models = []string{}
	}
	for k, v := range t.Skipped {
		s.Skipped[k] = v
	}
	for i := range t.Messages {
		m := &t.Messages[i]
		s.Roles[string(m.Role)]++
		if m.Usage != nil {
			s.CallsWithUsage++
		}
		for _, b := range m.Blocks {
			s.Images = append(s.Images, b.Images...)
			switch b.Type {
			case BlockToolUse:
				s.ToolUses++
			case BlockToolResult:
				s.ToolResults++
			case BlockThinking:
				s.Thinking++
			}
		}
		s.Characters += m.Chars()
	}
	return s
}
