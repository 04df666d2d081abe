package batch

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/suitecheck"
)

// TestShardSplit: every case is in exactly one shard, the shards are
// near even, and a case stays in its shard when others are added.
func TestShardSplit(t *testing.T) {
	const n = 3
	count := make([]int, n)
	for i := range 3000 {
		key := suitecheck.Key(fmt.Sprintf("sessions/%04d.jsonl", i), "aidf")
		in := 0
		for k := 1; k <= n; k++ {
			if (Shard{k, n}).Holds(key) {
				in++
				count[k-1]++
			}
		}
		if in != 1 {
			t.Fatalf("%s is in %d shards", key, in)
		}
	}
	for k, c := range count {
		if c < 900 || c > 1100 {
			t.Errorf("shard %d/%d holds %d of 3,000 cases", k+1, n, c)
		}
	}
	if !(Shard{}).Holds("anything") {
		t.Error("the zero shard is the whole suite")
	}
}

// TestMergeRefusesMixedPartials: merged partials hold each case once,
// in the shard its key hashes to, counted with one estimator: a case in
// two partials (or in the wrong one) and partials of two estimators are
// errors naming the file.
func TestMergeRefusesMixedPartials(t *testing.T) {
	cfg := &suitecheck.Config{Path: "ctxbench.yaml", Digest: "d"}
	var keys [2][]suitecheck.Case
	for i := 0; len(keys[0]) < 3 || len(keys[1]) < 3; i++ {
		c := suitecheck.Case{File: fmt.Sprintf("s%d.jsonl", i), Policy: "none"}
		for k := range 2 {
			if (Shard{k + 1, 2}).Holds(c.Key()) {
				keys[k] = append(keys[k], c)
			}
		}
	}
	part := func(k int, est string, cases ...suitecheck.Case) *CheckPartial {
		return &CheckPartial{Ctxbench: "v", Suite: "d", Shard: Shard{k, 2}.String(), Result: suitecheck.Result{Estimator: est, Cases: cases}}
	}
	if res, err := MergeCheck(cfg, "v", map[string]*CheckPartial{"1.json": part(1, "e", keys[0]...), "2.json": part(2, "e", keys[1]...)}); err != nil || len(res.Cases) != 6 {
		t.Fatalf("good partials: %v", err)
	}
	for _, c := range []struct {
		parts map[string]*CheckPartial
		err   string
	}{
		{map[string]*CheckPartial{"1.json": part(1, "e", keys[0]...), "2.json": part(2, "e", append(keys[1], keys[0][0])...)}, "2.json: the case " + keys[0][0].Key() + " is not shard 2/2's"},
		{map[string]*CheckPartial{"1.json": part(1, "e", append(keys[0], keys[0][0])...), "2.json": part(2, "e", keys[1]...)}, "1.json: the case " + keys[0][0].Key() + " is in 1.json too"},
		{map[string]*CheckPartial{"1.json": part(1, "e", keys[0]...), "2.json": part(2, "o200k_base", keys[1]...)}, "2.json: counted with o200k_base, the other partials with e"},
	} {
		if _, err := MergeCheck(cfg, "v", c.parts); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%v, want %q", err, c.err)
		}
	}
}
