package sweepgrid

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/window"
)

func TestParseGrid(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		err  bool
	}{
		{"max_messages=10:30:10", []string{"10", "20", "30"}, false},
		{"threshold=0.5:0.8:0.1", []string{"0.5", "0.6", "0.7", "0.8"}, false},
		{"summarize_on_trim=true,false", []string{"true", "false"}, false},
		{"max_messages=30:10:10", nil, true},
		{"max_messages=1:2:0", nil, true},
		{"max_messages", nil, true},
		{"threshold=0:1:1e-300", nil, true},
		{"threshold=NaN:1:0.1", nil, true},
		{"threshold=0:Inf:1", nil, true},
		{"max_messages=,", nil, true},
		{"max_messages=5,5", nil, true},
		{"threshold=0:1e-12:1e-13", nil, true}, // values equal at the printed precision
		{"max_messages=10:100", nil, true},     // a range without its step
		{"max_messages=1,2:3", nil, true},
	} {
		g, err := ParseGrid(tc.in)
		if (err != nil) != tc.err {
			t.Errorf("%s: error %v", tc.in, err)
			continue
		}
		if diff := cmp.Diff(tc.want, g.Values); !tc.err && diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.in, diff)
		}
	}
}

// TestGridPoints: keys once, and a product over the limit refused
// without overflow.
func TestGridPoints(t *testing.T) {
	big := replay.GridKey{Key: "a", Values: make([]string, 100_000)}
	if n, err := GridPoints([]replay.GridKey{{Key: "a", Values: []string{"1", "2"}}, {Key: "b", Values: []string{"1", "2", "3"}}}, 100_000); n != 6 || err != nil {
		t.Errorf("2×3: %d, %v", n, err)
	}
	if _, err := GridPoints([]replay.GridKey{big, {Key: "b", Values: big.Values}}, 100_000); err == nil {
		t.Error("10¹⁰ points accepted")
	}
	if n, err := GridPoints([]replay.GridKey{big, {Key: "b", Values: []string{"1", "2"}}}, 0); n != 200_000 || err != nil {
		t.Errorf("no limit: %d, %v", n, err)
	}
	if _, err := GridPoints([]replay.GridKey{{Key: "a", Values: []string{"1"}}, {Key: "a", Values: []string{"2"}}}, 0); err == nil {
		t.Error("a key twice accepted")
	}
}

func TestChanged(t *testing.T) {
	for spec, want := range map[string]map[string]string{
		"aidf":                 {},
		"aidf:max_messages=30": {"max_messages": "30"},
		"anthropic-clear-thinking+anthropic-clear-tool-uses:keep=5": {"anthropic-clear-tool-uses.keep": "5"},
	} {
		p, err := window.Parse(spec)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, Changed(p)); diff != "" {
			t.Errorf("Changed(%s) (-want +got):\n%s", spec, diff)
		}
	}
}
