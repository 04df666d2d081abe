// Package policytest builds a room's policies for the room's own tests
// as window's registry builds them (defaults, the values given, each
// checked), without importing window, which imports the rooms.
package policytest

import (
	"maps"
	"slices"
	"testing"

	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/policy"
)

// New builds the policy s registers with params over its defaults,
// failing t on a parameter s does not take or a value it refuses.
func New(t testing.TB, s *policy.Spec, params map[string]string) policy.Policy {
	t.Helper()
	if s.Expand != nil {
		var err error
		if params, err = s.Expand(params); err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
	}
	v := policy.Values{}
	for _, p := range s.Params {
		v[p.Name] = p.Default
	}
	for _, k := range slices.Sorted(maps.Keys(params)) {
		i := slices.IndexFunc(s.Params, func(p policy.Param) bool { return p.Name == k })
		if i < 0 {
			t.Fatalf("%s takes no parameter %q", s.Name, k)
		}
		if err := s.Params[i].Check(params[k]); err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		v[k] = params[k]
	}
	if s.Check != nil {
		if err := s.Check(v); err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
	}
	return s.Build(v)
}

// Items returns the items of the first n messages of tr.
func Items(tr *transcript.Transcript, n int) []policy.Item {
	out := make([]policy.Item, n)
	for i := range out {
		out[i] = policy.Original(tr, i)
	}
	return out
}
