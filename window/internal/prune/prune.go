// Package prune models the AI Context Management document's layer 1
// (pruneMessages in base.ts): the prune policy.
package prune

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/ctxbench/ctxbench/internal/jsstring"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/jsstr"
	"github.com/ctxbench/ctxbench/window/internal/policy"
)

// Prune names the prune policy.
//
// The AI Context Management document, layer 1 (pruneMessages in
// base.ts), run before every call: the
// first message and the last 6 are kept whole; in the middle,
//
//   - write_files tool calls keep their file paths, their contents become
//     "[truncated]";
//   - a write_file content over 2000 characters becomes "[truncated]";
//   - a tool_result over 2000 characters is cut to its first 200;
//   - a text block over 2000 characters is cut to its first 200;
//   - read_file, read_files and run_command inputs are kept as they are.
//
// Characters are UTF-16 code units (the source is TypeScript). The tool
// names are the seed's; write_files_tools and write_file_tools let a
// transcript's own names be used (Claude Code's Write, say). The seed says
// "cut to first 200 chars" and nothing more, so nothing is appended unless
// cut_marker is set.
const Prune = "prune"

// prunePolicy is the [Prune] policy.
type prunePolicy struct {
	policy.Base
	keepFirst, keepLast, limit, cutTo int
	writeFiles, writeFile             []string
	marker                            string
}

// Specs are this room's policies, which window registers.
var Specs = []*policy.Spec{
	{
		Name: Prune, Source: "the AI Context Management document, layer 1 (pruneMessages in base.ts)",
		Summary: "first message and last 6 kept whole; in the middle, file-write contents → [truncated], tool results and text over 2000 characters cut to 200",
		Params: []policy.Param{
			policy.IntParam("preserve_first_n", 1, 0, policy.NoBound, "messages at the start kept whole"),
			policy.IntParam("preserve_last_n", 6, 0, policy.NoBound, "messages at the end kept whole"),
			policy.IntParam("max_chars", 2000, 1, policy.NoBound, "longer contents are truncated (UTF-16 units)"),
			policy.IntParam("truncate_to", 200, 0, policy.NoBound, "tool results and texts are cut to this many characters"),
			policy.StringParam("write_files_tools", "write_files", "comma-separated tools whose file contents always become [truncated]"),
			policy.StringParam("write_file_tools", "write_file", "comma-separated tools whose content over max_chars becomes [truncated]"),
			policy.StringParam("cut_marker", "", "text appended to a cut content (the seed appends nothing)"),
		},
		Build: func(v policy.Values) policy.Policy {
			return &prunePolicy{Base: policy.NewBase(Prune, v), keepFirst: v.Int("preserve_first_n"), keepLast: v.Int("preserve_last_n"),
				limit: v.Int("max_chars"), cutTo: v.Int("truncate_to"), writeFiles: splitList(v.String("write_files_tools")),
				writeFile: splitList(v.String("write_file_tools")), marker: v.String("cut_marker")}
		},
	},
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

const truncatedMarker = "[truncated]"

// pruneState remembers the items already looked at: a message that has
// entered the middle stays there, and pruning is idempotent, so each is
// pruned once. The history only grows (prune evicts nothing), so a call
// looks at the middle from where the previous one stopped: next, whose
// item before it had the id at.
type pruneState struct {
	done map[string]bool
	next int
	at   string
	// sent is the array of the last history it made, which it makes the
	// next one in when env.ReuseSent.
	sent []policy.Item
}

func (p *prunePolicy) Apply(_ context.Context, env *policy.Env, st *policy.State, hist []policy.Item) (policy.Step, error) {
	step := policy.Step{History: hist}
	lo, hi := min(p.keepFirst, len(hist)), max(0, len(hist)-p.keepLast)
	if lo >= hi {
		return step, nil
	}
	ps, _ := st.Data.(*pruneState)
	if ps == nil {
		ps = &pruneState{done: map[string]bool{}}
		st.Data = ps
	}
	from := lo
	if ps.next > lo && ps.next <= hi && hist[ps.next-1].ID == ps.at {
		from = ps.next
	}
	var out []policy.Item
	for i := from; i < hi; i++ {
		if hist[i].Truncated || ps.done[hist[i].ID] {
			continue
		}
		ps.done[hist[i].ID] = true
		if m, ok := p.prune(hist[i].Msg); ok {
			if out == nil {
				if env != nil && env.ReuseSent {
					out = append(ps.sent[:0], hist...)
					ps.sent = out
				} else {
					out = slices.Clone(hist)
				}
			}
			out[i] = policy.Item{ID: hist[i].ID, Msg: m, Truncated: true, Summary: hist[i].Summary}
			step.Truncated = append(step.Truncated, hist[i].ID)
		}
	}
	ps.next, ps.at = hi, hist[hi-1].ID
	if out != nil {
		step.History = out
	}
	return step, nil
}

// prune returns a pruned copy of m, or false when nothing changes.
func (p *prunePolicy) prune(m *transcript.Message) (*transcript.Message, bool) {
	var blocks []transcript.Block
	changed := false
	for i, b := range m.Blocks {
		nb := b
		switch b.Type {
		case transcript.BlockToolUse:
			if in, ok := p.pruneInput(b.Name, b.Input); ok {
				nb.Input = in
			}
		case transcript.BlockToolResult, transcript.BlockText:
			if jsstring.Len(b.Text) > p.limit {
				nb.Text = jsstr.Cut(b.Text, p.cutTo) + p.marker
			}
		}
		if !changed && !blockEqual(nb, b) {
			changed = true
			blocks = slices.Clone(m.Blocks[:i])
		}
		if changed {
			blocks = append(blocks, nb)
		}
	}
	if !changed {
		return nil, false
	}
	c := *m
	c.Blocks = blocks
	return &c, true
}

func blockEqual(a, b transcript.Block) bool {
	return a.Text == b.Text && string(a.Input) == string(b.Input)
}

// pruneInput applies the write rules to a tool call's input.
func (p *prunePolicy) pruneInput(name string, input json.RawMessage) (json.RawMessage, bool) {
	all := slices.Contains(p.writeFiles, name)
	long := slices.Contains(p.writeFile, name)
	if !all && !long {
		return nil, false
	}
	var v any
	if json.Unmarshal(input, &v) != nil {
		return nil, false
	}
	changed := false
	var walk func(x any) any
	walk = func(x any) any {
		switch x := x.(type) {
		case map[string]any:
			for k, val := range x {
				if s, ok := val.(string); ok && k == "content" && (all || jsstring.Len(s) > p.limit) && s != truncatedMarker {
					x[k] = truncatedMarker
					changed = true
					continue
				}
				x[k] = walk(val)
			}
		case []any:
			for i := range x {
				x[i] = walk(x[i])
			}
		}
		return x
	}
	v = walk(v)
	if !changed {
		return nil, false
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	return b, true
}

func (p *prunePolicy) Guarantees() policy.Guarantees {
	return policy.Guarantees{Head: p.keepFirst, Tail: p.keepLast}
}
