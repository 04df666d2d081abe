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
