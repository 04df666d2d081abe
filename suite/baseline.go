package suite

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/ctxbench/ctxbench/cost"
	"github.com/ctxbench/ctxbench/internal/limit"
	"github.com/ctxbench/ctxbench/replay"
)

// Metrics are what `ctxbench check` watches for one transcript under one
// policy.
type Metrics struct {
	PeakTokens   int     `json:"peak_tokens"`
	PeakMessages int     `json:"peak_messages"`
	InputTokens  int64   `json:"input_tokens"`
	CostUSD      float64 `json:"cost_usd"`
	Evictions    int     `json:"evictions"`
	Summaries    int     `json:"summaries"`
	Retention    float64 `json:"retention"`
	// CacheBreaks counts the calls that broke the provider's cache, and
	// CacheBreakUSD is what re-billing after the breaks cost
	// ([cost.CacheBreak]); both nil when the run is not priced, or the
	// baseline was recorded before ctxbench measured them (then they are
	// not compared).
	CacheBreaks   *int     `json:"cache_breaks,omitempty"`
	CacheBreakUSD *float64 `json:"cache_break_usd,omitempty"`
	// CacheMissUSD is what the calls at which the provider's cache held
	// less than an ideal one cost over reads ([cost.CacheMiss]): the
	// transcript's, which every policy inherits; nil when nothing is
	// billed or priced.
	CacheMissUSD *float64 `json:"cache_miss_usd,omitempty"`
	// Violations counts broken invariants by name.
	Violations map[string]int `json:"violations"`
}

// MetricsOf summarizes a run, with its pricing (nil when not priced:
// the cost is 0, the cache breaks unknown).
func MetricsOf(run *replay.Run, estimator string, rc *cost.RunCost) Metrics {
	s := run.Summary
	m := Metrics{PeakTokens: s.PeakTokens[estimator], PeakMessages: s.PeakMessages, InputTokens: s.InputTokens[estimator],
		Evictions: s.Evictions, Summaries: s.Summaries,
		Retention: math.Round(s.MeanRetention*1e4) / 1e4, Violations: maps.Clone(s.Violations)}
	if rc != nil {
		m.CostUSD = roundUSD(rc.Total.USD())
		n, usd := rc.BreakTotals.Breaks, roundUSD(rc.BreakTotals.Cost.USD())
		m.CacheBreaks, m.CacheBreakUSD = &n, &usd
	}
	return m
}

// roundUSD rounds to a millionth of a dollar, as the baseline keeps it.
func roundUSD(v float64) float64 { return math.Round(v*1e6) / 1e6 }

// An Entry is a case's record in the baseline: the policy's name and
// parameters (what the case replayed), and its metrics.
type Entry struct {
	Policy string            `json:"policy,omitempty"`
	Params map[string]string `json:"params,omitempty"`
	Metrics
}

// Baseline is the checked-in record of the cases, one entry per
// transcript × policy, keyed "FILE | LABEL" ([Key]).
type Baseline struct {
	Estimator string           `json:"estimator"`
	Entries   map[string]Entry `json:"entries"`
}

// Key names a case: the transcript's path relative to the config, and
// the policy's label (its name unless the config gives one). Parameters
// are not part of it: changing one compares the case with its old self.
func Key(file, label string) string { return file + " | " + label }

// LoadBaseline reads a baseline file.
func LoadBaseline(path string) (*Baseline, error) {
	b, err := limit.ReadFile(path, limit.Baseline)
	if err != nil {
		return nil, err
	}
	return ParseBaseline(path, b)
}

// ParseBaseline reads a baseline from b, read from the file name.
func ParseBaseline(name string, b []byte) (*Baseline, error) {
	var bl Baseline
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&bl); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &bl, nil
}

// Encode returns the baseline as indented JSON with sorted keys: small and
// stable enough to review in a pull request.
func (b *Baseline) Encode() []byte {
	out, _ := json.MarshalIndent(b, "", "  ")
	return append(out, '\n')
}

// A Change is an entry that differs between two baselines: Old is nil
// when it was added, New when it was removed.
type Change struct {
	Key      string
	Old, New *Entry
}

// sameEntry reports whether two entries are written alike: a policy with
// no parameters has a nil map when read and an empty one when run.
func sameEntry(a, b Entry) bool {
	ja, erra := json.Marshal(a)
	jb, errb := json.Marshal(b)
	return erra == nil && errb == nil && bytes.Equal(ja, jb)
}

// Changes lists what differs from old to now, in key order: the entries
// added or changed, then those removed. A nil old has every entry added.
func Changes(old, now *Baseline) []Change {
	var out, removed []Change
	for _, k := range slices.Sorted(maps.Keys(now.Entries)) {
		n := now.Entries[k]
		var o *Entry
		if old != nil {
			if w, ok := old.Entries[k]; ok {
				if sameEntry(w, n) {
					continue
				}
				o = &w
			}
		}
		out = append(out, Change{Key: k, Old: o, New: &n})
	}
	if old != nil {
		for _, k := range slices.Sorted(maps.Keys(old.Entries)) {
			if _, ok := now.Entries[k]; !ok {
				w := old.Entries[k]
				removed = append(removed, Change{Key: k, Old: &w})
			}
		}
	}
	return append(out, removed...)
}
