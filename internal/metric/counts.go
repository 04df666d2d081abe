package metric

// Counts are what a run of a transcript counts, its tokens by one
// estimator.
type Counts struct {
	Calls        int   `json:"calls"`
	PeakMessages int   `json:"peak_messages"`
	PeakTokens   int   `json:"peak_tokens"`
	InputTokens  int64 `json:"input_tokens"`
	Evictions    int   `json:"evictions"`
	Truncations  int   `json:"truncations"`
	Summaries    int   `json:"summaries"`
}

// ShareOfNone is sent, the input tokens a run sent, as a share of none,
// what sending everything sends; 0 when none is 0.
func ShareOfNone(sent, none int64) float64 {
	if none <= 0 {
		return 0
	}
	return float64(sent) / float64(none)
}
