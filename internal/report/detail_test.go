package report

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/cost"
	"github.com/ctxbench/ctxbench/fixtures"
	"github.com/ctxbench/ctxbench/internal/conformance"
	"github.com/ctxbench/ctxbench/pricing"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// TestDetailRanks: the sessions shown are the N that cost the most (the
// most of their runs) or save the most (none's run less the cheapest),
// priced sessions first, unpriced ones by tokens sent; ties keep the
// report's order; N of 0, or as many as the sessions, shows every one.
func TestDetailRanks(t *testing.T) {
	run := func(label string, usd float64, tokens int64) PolicyResult {
		p := PolicyResult{Label: label, Summary: replay.Summary{InputTokens: map[string]int64{"cl100k_base": tokens}}}
		if usd >= 0 {
			p.CostUSD = &usd
		}
		return p
	}
	session := func(none, cheap float64, noneTokens, cheapTokens int64) TranscriptResult {
		return TranscriptResult{File: fmt.Sprint(none, cheap), Runs: []PolicyResult{run("none", none, noneTokens), run("prune", cheap, cheapTokens)}}
	}
	r := &Report{Estimator: "cl100k_base", Policies: []string{"none", "prune"}, Transcripts: []TranscriptResult{
		session(1.0, 0.9, 100, 90),  // 0: costs 1.0, saves 0.1
		session(3.0, 1.0, 300, 100), // 1: costs 3.0, saves 2.0
		session(-1, -1, 5000, 10),   // 2: not priced, many tokens
		session(2.0, 0.5, 200, 50),  // 3: costs 2.0, saves 1.5
		session(0.5, 0.6, 50, 60),   // 4: a policy costs more than none
		session(3.0, 2.5, 300, 250), // 5: costs 3.0 as 1 does, saves 0.5
		session(-1, -1, 100, 100),   // 6: not priced
		session(0.25, 0.2, 25, 20),  // 7
	}}
	shown := func(d Detail) []int {
		var out []int
		for i, ok := range r.detailed(d) {
			if ok {
				out = append(out, i)
			}
		}
		return out
	}
	for _, c := range []struct {
		d    Detail
		want []int
	}{
		{Detail{N: 3, By: ByCost}, []int{1, 3, 5}},
		{Detail{N: 2, By: ByCost}, []int{1, 5}}, // tied at 3.0: the report's order
		{Detail{N: 3, By: BySaving}, []int{1, 3, 5}},
		{Detail{N: 2, By: BySaving}, []int{1, 3}},
		{Detail{N: 7, By: ByCost}, []int{0, 1, 2, 3, 4, 5, 7}}, // priced first, then the most tokens
		{Detail{N: 0}, []int{0, 1, 2, 3, 4, 5, 6, 7}},
		{Detail{N: 8}, []int{0, 1, 2, 3, 4, 5, 6, 7}},
	} {
		if got := shown(c.d); !slices.Equal(got, c.want) {
			t.Errorf("%+v: shown %v, want %v", c.d, got, c.want)
		}
	}
	if err := (Detail{N: 1, By: BySaving}).Check([]string{"prune"}); err == nil {
		t.Error("saving without none: no error")
	}
	if err := (Detail{N: -1, By: ByCost}).Check([]string{"none"}); err == nil {
		t.Error("-1 sessions: no error")
	}
}

// TestDetailBoundsFiles: a report of more sessions than its Detail
// draws and lists N of them — its files do not grow with the others —
// while its totals, summary.csv and steps.csv hold every one; and a
// Detail of as many sessions as there are writes what the zero Detail
// writes, byte for byte.
func TestDetailBoundsFiles(t *testing.T) {
	ps, err := window.ParseLabeled([]string{"none", "aidf:max_messages=10"})
	if err != nil {
		t.Fatal(err)
	}
	var ts []*transcript.Transcript
	for seed := range 6 {
		o := fixtures.DefaultGenOptions
		o.Calls, o.Seed = 12+4*seed, uint64(seed+1)
		tr, err := conformance.Generated(o)
		if err != nil {
			t.Fatal(err)
		}
		tr.File = fmt.Sprintf("s%d.jsonl", seed)
		ts = append(ts, tr)
	}
	write := func(d Detail) string {
		r := built(t, &Builder{Policies: ps, SpoolTranscripts: true}, cost.Options{Prices: pricing.Default()}, ts)
		r.Detail = d
		dir := filepath.Join(t.TempDir(), "report")
		if _, err := WriteReport(dir, r); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	read := func(dir, name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	all, two, six := write(Detail{}), write(Detail{N: 2, By: ByCost}), write(Detail{N: 6, By: ByCost})
	files := func(dir string) []string {
		es, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range es {
			out = append(out, e.Name())
		}
		return out
	}
	if a, b := files(all), files(six); !slices.Equal(a, b) {
		t.Fatalf("files of every session %v, of 6 of 6 %v", a, b)
	}
	for _, name := range files(all) {
		if read(all, name) != read(six, name) {
			t.Errorf("%s: 6 of 6 sessions differ from every session", name)
		}
	}
	// The generated sessions grow with their seed, and so do their
	// costs: the last two cost the most.
	perSession := func(dir string) (sessions []string) {
		for _, f := range files(dir) {
			if n, ok := strings.CutPrefix(f, "growth-tokens-"); ok && strings.HasSuffix(n, ".png") {
				sessions = append(sessions, strings.TrimSuffix(n, ".png"))
			}
		}
		return sessions
	}
	if got := perSession(two); !slices.Equal(got, []string{"5", "6"}) {
		t.Errorf("sessions drawn %v, want 5 and 6", got)
	}
	if n := strings.Count(read(two, "index.html"), "<details"); n != 2 {
		t.Errorf("%d sessions on the page, want 2", n)
	}
	if !strings.Contains(read(two, "index.html"), "2 of 6 sessions are shown one by one") || !strings.Contains(read(two, "report.md"), "2 of 6 sessions are shown one by one") {
		t.Error("the page or report.md does not say which sessions it shows")
	}
	rows, err := csv.NewReader(strings.NewReader(read(two, "summary.csv"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1+6*2 || read(two, "summary.csv") != read(all, "summary.csv") || read(two, "steps.csv") != read(all, "steps.csv") {
		t.Errorf("summary.csv of %d rows, want every session's, as with every session shown", len(rows))
	}
	if n := len(regexp.MustCompile(`(?m)^\| s\d\.jsonl `).FindAllString(read(two, "report.md"), -1)); n != 2*2 {
		t.Errorf("report.md lists other sessions than the two shown:\n%s", read(two, "report.md"))
	}
}

// TestSpread: each policy's cost over the priced sessions — the median
// (the mean of the middle two of an even count), the 90th percentile by
// nearest rank, the most and its session — leaving out sessions not
// priced; the page and report.md show it once two sessions are priced.
func TestSpread(t *testing.T) {
	usd := func(v float64) *float64 { return &v }
	r := &Report{Estimator: "cl100k_base", Policies: []string{"none"}}
	for i, c := range []*float64{usd(4), usd(1), nil, usd(3), usd(10), usd(2)} {
		r.Transcripts = append(r.Transcripts, TranscriptResult{File: fmt.Sprintf("s%d.jsonl", i), Runs: []PolicyResult{{Label: "none", CostUSD: c}}})
	}
	want := []CostSpread{{Label: "none", Priced: 5, Median: 3, P90: 10, Most: 10, Costliest: 4}}
	if got := r.Spread(); !slices.Equal(got, want) {
		t.Errorf("spread %+v, want %+v", got, want)
	}
	r.Transcripts = r.Transcripts[:2]
	want = []CostSpread{{Label: "none", Priced: 2, Median: 2.5, P90: 4, Most: 4, Costliest: 0}}
	if got := r.Spread(); !slices.Equal(got, want) {
		t.Errorf("spread of two %+v, want %+v", got, want)
	}
	dir := filepath.Join(t.TempDir(), "report")
	if _, err := WriteReport(dir, r); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"index.html", "report.md"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "Cost per session") || !strings.Contains(string(b), "$2.5000") {
			t.Errorf("%s: no spread of cost", name)
		}
	}
}

// TestSpreadBySession: a subagent's transcript counts in its parent's
// session, as `ctxbench cost` counts it, wherever it comes; the
// session is named by its own transcript; the bill sums the same way.
func TestSpreadBySession(t *testing.T) {
	usd := func(v float64) *float64 { return &v }
	r := &Report{Estimator: "cl100k_base", Policies: []string{"none"}}
	for i, s := range []struct {
		id, parent string
		usd        float64
	}{{"p/agent-a", "p", 3}, {"q", "", 2}, {"p", "", 1}, {"p/agent-b", "p", 4}, {"r", "", 5}} {
		r.Transcripts = append(r.Transcripts, TranscriptResult{File: fmt.Sprintf("s%d.jsonl", i), ID: s.id, Parent: s.parent,
			BilledUSD: usd(s.usd), Runs: []PolicyResult{{Label: "none", CostUSD: usd(s.usd)}}})
	}
	// Sessions p (3+1+4 = 8), q (2), r (5).
	want := []CostSpread{{Label: "none", Priced: 3, Median: 5, P90: 8, Most: 8, Costliest: 2}}
	if got := r.Spread(); !slices.Equal(got, want) {
		t.Errorf("spread %+v, want %+v", got, want)
	}
	if got := r.facts().bills(); !slices.Equal(got, []float64{8, 2, 5}) {
		t.Errorf("bills by session %v, want [8 2 5]", got)
	}
}
