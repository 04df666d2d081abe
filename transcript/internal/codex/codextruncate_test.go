package codex

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestCodexTruncateText holds truncate_text to the vectors of codex-rs's
// own tests: utils/string/src/truncate/tests.rs (b24d7f3c) and
// utils/output-truncation/src/truncate_tests.rs (1c8ed6f1), whose
// formatted_truncate_text wraps truncate_text in a "Total output lines"
// header that the history's truncation does not add.
func TestCodexTruncateText(t *testing.T) {
	long := "this is an example of a long output that should be truncated"
	twoLines := long + "\nalso some other line"
	emoji := "😀😀😀😀😀😀😀😀😀😀\nsecond line with text\n"
	for _, tc := range []struct {
		mode  string
		limit int64
		in    string
		want  string
	}{
		// truncate_with_token_budget_returns_original_when_under_limit
		{"tokens", 100, "short output", "short output"},
		// truncate_with_token_budget_reports_truncation_at_zero_limit
		{"tokens", 0, "abcdef", "…2 tokens truncated…"},
		// truncate_middle_tokens_handles_utf8_content
		{"tokens", 8, emoji, "😀😀😀😀…8 tokens truncated… line with text\n"},
		// truncate_middle_bytes_handles_utf8_content
		{"bytes", 20, emoji, "😀😀…21 chars truncated…with text\n"},
		// truncate_bytes_less_than_placeholder_returns_placeholder
		{"bytes", 1, "example output", "…13 chars truncated…t"},
		// truncate_tokens_less_than_placeholder_returns_placeholder
		{"tokens", 1, "example output", "ex…3 tokens truncated…ut"},
		// truncate_tokens_under_limit_returns_original, …bytes_under_limit…
		{"tokens", 10, "example output", "example output"},
		{"bytes", 20, "example output", "example output"},
		// truncate_tokens_over_limit_returns_truncated, …bytes_over_limit…
		{"tokens", 5, long, "this is an…10 tokens truncated… truncated"},
		{"bytes", 30, long, "this is an exam…30 chars truncated…ld be truncated"},
		// …reports_original_line_count_when_truncated
		{"bytes", 30, twoLines, "this is an exam…51 chars truncated…some other line"},
		{"tokens", 10, twoLines, "this is an example o…11 tokens truncated…also some other line"},
		// A zero byte budget counts every character; empty stays empty.
		{"bytes", 0, "abc😀", "…4 chars truncated…"},
		{"tokens", 0, "", ""},
	} {
		p := codexTruncation{Mode: tc.mode, Limit: tc.limit}
		if got := p.truncate(tc.in); got != tc.want {
			t.Errorf("truncate_text(%q, %s(%d)) = %q, want %q", tc.in, tc.mode, tc.limit, got, tc.want)
		}
	}
}

// TestCodexTruncateItems holds the content-items form to
// truncates_across_multiple_under_limit_texts_and_reports_omitted
// (utils/output-truncation/src/truncate_tests.rs): two texts fit, the
// image is kept, the third text is cut to what is left and the last two
// are omitted and counted.
func TestCodexTruncateItems(t *testing.T) {
	chunk := "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon phi chi psi omega.\n"
	chunkTokens := int64((len(chunk) + 3) / 4)
	text := func(s string) map[string]string { return map[string]string{"type": "input_text", "text": s} }
	items := []map[string]string{text(chunk), text(chunk), {"type": "input_image", "image_url": "img:mid"},
		text(strings.Repeat(chunk, 10)), text(chunk), text(chunk), text("")}
	raw, _ := json.Marshal(items)
	out, changed, ok := codexTruncation{Mode: "tokens", Limit: chunkTokens * 3}.truncateItems(raw)
	if !ok || !changed {
		t.Fatalf("ok %v changed %v", ok, changed)
	}
	var got []map[string]string
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 || got[0]["text"] != chunk || got[1]["text"] != chunk || got[2]["image_url"] != "img:mid" ||
		!strings.Contains(got[3]["text"], "tokens truncated") || got[4]["text"] != "[omitted 2 text items ...]" {
		t.Errorf("items: %v", got)
	}
	// Under the budget, the items are as they were, byte for byte.
	small, _ := json.Marshal([]map[string]string{text("alpha"), text("beta")})
	if out, changed, ok := (codexTruncation{Mode: "bytes", Limit: 32}).truncateItems(small); !ok || changed || string(out) != string(small) {
		t.Errorf("under the budget: %s %v %v", out, changed, ok)
	}
}

// FuzzCodexTruncate: whatever the text and budget, truncate_text keeps
// a text that fits whole, and otherwise keeps a prefix and a suffix of
// it, on character boundaries, within the budget, around one marker.
func FuzzCodexTruncate(f *testing.F) {
	f.Add("this is an example of a long output that should be truncated", int64(5), true)
	f.Add("😀😀😀😀😀😀😀😀😀😀\nsecond line with text\n", int64(20), false)
	f.Fuzz(func(t *testing.T, s string, limit int64, tokens bool) {
		if !utf8.ValidString(s) || limit < 0 || limit > 1<<20 {
			return
		}
		p := codexTruncation{Mode: "bytes", Limit: limit}
		budget := limit
		if tokens {
			p.Mode, budget = "tokens", limit*4
		}
		got := p.truncate(s)
		if int64(len(s)) <= budget && (limit > 0 || s == "") {
			if got != s {
				t.Fatalf("%q fits %d bytes but became %q", s, budget, got)
			}
			return
		}
		unit := " chars truncated…"
		if tokens {
			unit = " tokens truncated…"
		}
		// Some "…" of got starts the marker (s may hold others).
		for i := 0; i < len(got); i++ {
			if !strings.HasPrefix(got[i:], "…") {
				continue
			}
			digits := strings.TrimLeft(got[i+len("…"):], "0123456789")
			tail, ok := strings.CutPrefix(digits, unit)
			head := got[:i]
			if ok && len(digits) < len(got[i+len("…"):]) && strings.HasPrefix(s, head) && strings.HasSuffix(s, tail) &&
				int64(len(head)+len(tail)) <= budget && len(head)+len(tail) <= len(s) && utf8.ValidString(got) {
				return
			}
		}
		t.Fatalf("%q cut to %q within %d bytes: not a prefix, a marker and a suffix", s, got, budget)
	})
}
