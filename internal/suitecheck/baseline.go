package suitecheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/ctxbench/ctxbench/cost"
	"github.com/ctxbench/ctxbench/internal/limit"
	"github.com/ctxbench/ctxbench/internal/metric"
	"github.com/ctxbench/ctxbench/internal/probe"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/window"
)

// MetricsOf summarizes a run, with its pricing (nil when not priced:
// the cost is 0, the cache breaks unknown).
func MetricsOf(run *replay.Run, estimator string, rc *cost.RunCost) Metrics {
	s := run.Summary
	c := s.Counts(estimator)
	m := Metrics{PeakTokens: c.PeakTokens, PeakMessages: c.PeakMessages, InputTokens: c.InputTokens, Evictions: c.Evictions, Summaries: c.Summaries,
		Retention: round4(s.MeanRetention), Violations: maps.Clone(s.Violations), Values: roundValues(s.Metrics())}
	if s.ProbeLoss.Of != nil {
		score := round4(s.ProbeScore)
		m.ProbeScore = &score
		for _, k := range probe.Kinds() {
			if share, ok := s.ProbeLoss.KindScore(k); ok {
				share = round4(share)
				*probeKind(&m, k) = &share
			}
		}
	}
	if rc != nil {
		m.CostUSD = roundUSD(rc.Total.USD())
		n, usd := rc.BreakTotals.Breaks, roundUSD(rc.BreakTotals.Cost.USD())
		m.CacheBreaks, m.CacheBreakUSD = &n, &usd
	}
	return m
}

// roundValues rounds each of v as the baseline keeps its unit.
func roundValues(v metric.Values) metric.Values {
	for _, m := range metric.Shown() {
		switch m.Unit {
		case metric.Share:
			v[m.Name] = round4(v[m.Name])
		case metric.USD:
			v[m.Name] = roundUSD(v[m.Name])
		}
	}
	return v
}

// round4 rounds a share to four places, as the baseline keeps it.
func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }

// probeKind returns the field of m holding the share of kind k's probes.
func probeKind(m *Metrics, k probe.Kind) **float64 {
	switch k {
	case probe.Artifact:
		return &m.ProbeArtifact
	case probe.Recall:
		return &m.ProbeRecall
	case probe.Decision:
		return &m.ProbeDecision
	default:
		return &m.ProbeContinuation
	}
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

// ParseBaseline reads a baseline from b, read from the file name. What a
// baseline cannot be is an error naming it: anything after its object
// (a merge's conflict markers), a key repeated in an object (JSON keeps
// the last, silently), a count, a size or a cost below 0 or a retention
// over 1 (a cache break's cost against its savings can be below 0). An
// entry's faults name the entry and its line: a key not of the form
// "FILE | LABEL", a policy that does not exist or is not the one its
// label names (a label that is a policy's name), an invariant that does
// not exist. A UTF-8 byte order mark is allowed.
func ParseBaseline(name string, b []byte) (*Baseline, error) {
	b = bytes.TrimPrefix(b, []byte{0xEF, 0xBB, 0xBF})
	var bl Baseline
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&bl); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if rest := bytes.TrimSpace(b[dec.InputOffset():]); len(rest) > 0 {
		return nil, fmt.Errorf("%s: %q after the baseline's object (a merge conflict?)", name, cut(string(rest), 40))
	}
	if err := repeatedKey(b); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if bl.Entries == nil {
		return nil, fmt.Errorf("%s: no entries", name)
	}
	for _, k := range slices.Sorted(maps.Keys(bl.Entries)) {
		if at, err := bl.Entries[k].check(k); err != nil {
			if line := lineOf(b, append([]string{"entries", k}, at...)...); line > 0 {
				return nil, fmt.Errorf("%s:%d: entry %q: %w", name, line, k, err)
			}
			return nil, fmt.Errorf("%s: entry %q: %w", name, k, err)
		}
	}
	return &bl, nil
}

// check holds the entry of key to what a run can record: a key "FILE |
// LABEL", a policy that exists and, when the label is a policy's name,
// is that one (a config labels no policy with another's name), no
// metric below 0, no share over 1, only invariants that exist. at is
// the path below the entry to the value at fault (nil: the entry).
func (e Entry) check(key string) (at []string, err error) {
	file, label, ok := strings.Cut(key, " | ")
	if !ok || file == "" || label == "" {
		return nil, fmt.Errorf(`the key is not "FILE | LABEL"`)
	}
	if e.Policy != "" {
		if err := policyExists(e.Policy); err != nil {
			return []string{"policy"}, err
		}
		if label != e.Policy && isPolicy(label) {
			return []string{"policy"}, fmt.Errorf("policy %q is not the policy its key names, %q", e.Policy, label)
		}
	}
	m := e.Metrics
	for _, mt := range metric.All() {
		v, ok := mt.Of(&m)
		switch {
		case !ok:
		case v < 0:
			return nil, fmt.Errorf("%s is %v, below 0", mt.Name, v)
		case mt.Unit == metric.Share && v > 1:
			return nil, fmt.Errorf("%s is %v, over 1", mt.Name, v)
		}
	}
	for inv, n := range m.Violations {
		if n < 0 || !slices.Contains(invariants, inv) {
			return violationsFault(&m)
		}
	}
	return nil, nil
}

// invariants are the invariants' names.
var invariants = replay.Invariants()

// violationsFault returns the first of m's violations, by name, that
// names no invariant or counts below 0.
func violationsFault(m *Metrics) (at []string, err error) {
	for _, inv := range slices.Sorted(maps.Keys(m.Violations)) {
		switch {
		case !slices.Contains(invariants, inv):
			return []string{"violations", inv}, fmt.Errorf("violations: unknown invariant %q (known: %s)", inv, strings.Join(invariants, ", "))
		case m.Violations[inv] < 0:
			return []string{"violations", inv}, fmt.Errorf("violations %s is %d, below 0", inv, m.Violations[inv])
		}
	}
	return nil, nil
}

// policyExists returns an error unless name is a policy's name, or
// names joined by "+" (a chain).
func policyExists(name string) error {
	if isPolicy(name) {
		return nil
	}
	for part := range strings.SplitSeq(name, "+") {
		if _, err := window.Lookup(part); err != nil {
			return err
		}
	}
	return fmt.Errorf("unknown policy %q", name)
}

// isPolicy reports whether name is a policy's name, or names joined by
// "+" (a chain).
func isPolicy(name string) bool {
	for part := range strings.SplitSeq(name, "+") {
		if !policyNames()[part] {
			return false
		}
	}
	return true
}

// policyNames is the set of the policies' names.
var policyNames = sync.OnceValue(func() map[string]bool {
	names := map[string]bool{}
	for _, s := range window.Specs() {
		names[s.Name] = true
	}
	return names
})

// lineOf returns the line of b, which is valid JSON, on which the key
// at path (object keys from the top) stands; 0 when there is none. It
// decodes b token by token: for an error's line, not for every read.
func lineOf(b []byte, path ...string) int {
	type level struct {
		object, wantKey bool
		key             string
	}
	var stack []level
	dec := json.NewDecoder(bytes.NewReader(b))
	for {
		tok, err := dec.Token()
		if err != nil {
			return 0
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			continue
		}
		if n := len(stack); n > 0 && stack[n-1].object {
			top := &stack[n-1]
			if top.wantKey {
				top.key, top.wantKey = tok.(string), false
				if n == len(path) && slices.EqualFunc(stack, path, func(l level, k string) bool { return l.key == k }) {
					return 1 + bytes.Count(b[:dec.InputOffset()], []byte{'\n'})
				}
				continue
			}
			top.wantKey = true
		}
		if d, ok := tok.(json.Delim); ok {
			stack = append(stack, level{object: d == '{', wantKey: d == '{'})
		}
	}
}

// repeatedKey returns an error naming the first key repeated within one
// JSON object of b, which is valid JSON (decoded before). It reads the
// bytes once, keeping no token: a baseline of 60,000 cases is checked in
// a fraction of the time decoding it takes.
func repeatedKey(b []byte) error {
	var stack []*keySet
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '{', '[':
			stack = append(stack, &keySet{object: b[i] == '{'})
		case '}', ']':
			stack = stack[:len(stack)-1]
		case '"':
			end := i + 1
			for ; end < len(b) && b[end] != '"'; end++ {
				if b[end] == '\\' {
					end++
				}
			}
			k := end + 1
			for k < len(b) && (b[k] == ' ' || b[k] == '\t' || b[k] == '\n' || b[k] == '\r') {
				k++
			}
			if top := len(stack) - 1; top >= 0 && stack[top].object && k < len(b) && b[k] == ':' {
				key := string(b[i+1 : end])
				if strings.Contains(key, `\`) {
					_ = json.Unmarshal(b[i:end+1], &key) // as JSON reads it
				}
				if stack[top].add(key) {
					return fmt.Errorf("key %q twice in one object", key)
				}
			}
			i = end
		}
	}
	return nil
}

// A keySet is the keys of a JSON object read so far (object false: an
// array's level): a slice while few, a set once many.
type keySet struct {
	object bool
	keys   []string
	set    map[string]bool
}

// add adds key, and reports whether it was there already.
func (k *keySet) add(key string) bool {
	if k.set == nil {
		if slices.Contains(k.keys, key) {
			return true
		}
		if k.keys = append(k.keys, key); len(k.keys) > 16 {
			k.set = map[string]bool{}
			for _, x := range k.keys {
				k.set[x] = true
			}
		}
		return false
	}
	if k.set[key] {
		return true
	}
	k.set[key] = true
	return false
}

// cut returns s, shortened to n characters.
func cut(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
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
