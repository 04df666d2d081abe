package metric

// Billed is what calls were billed for, in tokens, as a row of the
// rows files (runs and calls) holds it.
//
// It holds no optional column: parquet-go v0.32.0 reads a nil optional
// pointer of an embedded struct back as a pointer to 0.
type Billed struct {
	CacheReadTokens     int64 `parquet:"cache_read_tokens" json:"cache_read_tokens"`
	CacheWriteTokens    int64 `parquet:"cache_write_tokens" json:"cache_write_tokens"`
	UncachedInputTokens int64 `parquet:"uncached_input_tokens" json:"uncached_input_tokens"`
	OutputTokens        int64 `parquet:"output_tokens" json:"output_tokens"`
}

// A Row holds the metrics of one policy's run of one transcript: what
// `ctxbench check` records in its baseline for each case, compares and
// holds to the budgets. Each [Metric] reads its value from it.
type Row struct {
	PeakTokens   int     `json:"peak_tokens"`
	PeakMessages int     `json:"peak_messages"`
	InputTokens  int64   `json:"input_tokens"`
	CostUSD      float64 `json:"cost_usd"`
	Evictions    int     `json:"evictions"`
	Summaries    int     `json:"summaries"`
	Retention    float64 `json:"retention"`
	// ProbeScore is the share of the session's probes the policy did not
	// lose, by the exact judge (1 when it sends everything), and
	// ProbeArtifact … ProbeContinuation the share of each kind's (nil
	// when the session has no probe of the kind). All nil when the
	// baseline was recorded before ctxbench asked probes (then they are
	// not compared).
	ProbeScore        *float64 `json:"probe_score,omitempty"`
	ProbeArtifact     *float64 `json:"probe_artifact,omitempty"`
	ProbeRecall       *float64 `json:"probe_recall,omitempty"`
	ProbeDecision     *float64 `json:"probe_decision,omitempty"`
	ProbeContinuation *float64 `json:"probe_continuation,omitempty"`
	// CacheBreaks counts the calls that broke the provider's cache, and
	// CacheBreakUSD is what re-billing after the breaks cost; both nil
	// when the run is not priced, or the baseline was recorded before
	// ctxbench measured them (then they are not compared).
	CacheBreaks   *int     `json:"cache_breaks,omitempty"`
	CacheBreakUSD *float64 `json:"cache_break_usd,omitempty"`
	// CacheMissUSD is what the calls at which the provider's cache held
	// less than an ideal one cost over reads: the transcript's, which
	// every policy inherits; nil when nothing is billed or priced.
	CacheMissUSD *float64 `json:"cache_miss_usd,omitempty"`
	// Values are the run's [Shown] metrics by name, shares to four places
	// and dollars to a millionth (a metric absent is not compared: the
	// baseline was recorded before ctxbench measured it).
	Values Values `json:"values,omitempty"`
	// Violations counts broken invariants by name.
	Violations map[string]int `json:"violations"`
}
