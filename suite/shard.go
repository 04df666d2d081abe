package suite

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxbench/ctxbench/internal/limit"
)

// A Shard is part K of N of a suite's cases (K from 1); the zero Shard is
// the whole suite. A case belongs to the shard its key hashes to, so a
// shard's cases stay its own when sessions are added.
type Shard struct {
	K, N int
}

// ParseShard reads K/N.
func ParseShard(s string) (Shard, error) {
	k, n, ok := strings.Cut(s, "/")
	a, err1 := strconv.Atoi(k)
	b, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil || b < 1 || a < 1 || a > b {
		return Shard{}, fmt.Errorf("shard %q: want K/N with 1 ≤ K ≤ N", s)
	}
	return Shard{a, b}, nil
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.K, s.N) }

// Holds reports whether the case key is in the shard.
func (s Shard) Holds(key string) bool {
	if s.N <= 1 {
		return true
	}
	h := fnv.New64a()
	h.Write([]byte(key))
	return int(h.Sum64()%uint64(s.N)) == s.K-1
}

// A Partial is one shard's result, written by `ctxbench check --shard
// K/N --partial FILE` and combined by [Merge]. It names the suite (the
// digest of its config file) and the ctxbench version that ran it: parts
// of another suite or version do not merge.
type Partial struct {
	Ctxbench string `json:"ctxbench"`
	Suite    string `json:"suite"`
	Shard    string `json:"shard"`
	Result   Result `json:"result"`
}

// NewPartial wraps res, shard sh of cfg run by ctxbench version.
func NewPartial(cfg *Config, version string, sh Shard, res *Result) *Partial {
	return &Partial{Ctxbench: version, Suite: cfg.Digest, Shard: sh.String(), Result: *res}
}

// Encode returns the partial as JSON.
func (p *Partial) Encode() []byte {
	b, _ := json.MarshalIndent(p, "", " ")
	return append(b, '\n')
}

// ReadPartial reads a partial file.
func ReadPartial(path string) (*Partial, error) {
	b, err := limit.ReadFile(path, limit.Baseline)
	if err != nil {
		return nil, err
	}
	var p Partial
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("%s: not a ctxbench check partial: %w", path, err)
	}
	if p.Suite == "" || p.Shard == "" {
		return nil, fmt.Errorf("%s: not a ctxbench check partial", path)
	}
	return &p, nil
}

// Merge combines the partials of every shard of cfg, run by version, into
// the result one unsharded run gives. A part of another suite or
// version, a shard missing or given twice, is an error.
func Merge(cfg *Config, version string, parts map[string]*Partial) (*Result, error) {
	if len(parts) == 0 {
		return nil, errors.New("no partials to merge")
	}
	res := &Result{Cases: []Case{}, Warnings: []string{}}
	n := 0
	have := map[int]string{}
	cases := map[string]string{} // by key, the partial that holds it
	for _, path := range sortedKeys(parts) {
		p := parts[path]
		switch {
		case p.Suite != cfg.Digest:
			return nil, fmt.Errorf("%s: a partial of another suite (config digest %.12s, %s has %.12s)", path, p.Suite, cfg.Path, cfg.Digest)
		case p.Ctxbench != version:
			return nil, fmt.Errorf("%s: written by ctxbench %s, this is %s: run every shard with the same version", path, p.Ctxbench, version)
		}
		sh, err := ParseShard(p.Shard)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if n == 0 {
			n = sh.N
		}
		if sh.N != n {
			return nil, fmt.Errorf("%s: shard %s of a split into %d, the others into %d", path, sh, sh.N, n)
		}
		if other, dup := have[sh.K]; dup {
			return nil, fmt.Errorf("%s: shard %s given twice (also %s)", path, sh, other)
		}
		have[sh.K] = path
		if res.Estimator == "" {
			res.Estimator = p.Result.Estimator
		}
		if p.Result.Estimator != res.Estimator {
			return nil, fmt.Errorf("%s: counted with %s, the other partials with %s", path, p.Result.Estimator, res.Estimator)
		}
		// Each case once, in the shard its key hashes to: a partial edited
		// or mixed up would count a case twice ("10 pass" of 9).
		for _, c := range p.Result.Cases {
			k := c.Key()
			if !sh.Holds(k) {
				return nil, fmt.Errorf("%s: the case %s is not shard %s's", path, k, sh)
			}
			if other, dup := cases[k]; dup {
				return nil, fmt.Errorf("%s: the case %s is in %s too", path, k, other)
			}
			cases[k] = path
		}
		res.Cases = append(res.Cases, p.Result.Cases...)
		res.Warnings = append(res.Warnings, p.Result.Warnings...)
	}
	for k := 1; k <= n; k++ {
		if _, ok := have[k]; !ok {
			return nil, fmt.Errorf("shard %d/%d is missing", k, n)
		}
	}
	res.sort()
	return res, nil
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
