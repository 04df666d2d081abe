package cost

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ctxbench/ctxbench/pricing"
	"github.com/ctxbench/ctxbench/replay"
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window"
)

// TestRecordedIsTheReplayedBill: on every corpus transcript with a
// bill, the recorded policy priced from the bill alone, with no replay
// and no token counted, costs what the replayed recorded policy costs,
// component by component and call by call, and finds the same cache
// misses.
func TestRecordedIsTheReplayedBill(t *testing.T) {
	rec := []window.Labeled{{Label: "recorded", Policy: policies(t, "recorded")[0]}}
	type priced struct {
		c   *Comparison
		err error
	}
	// Read as the command reads for it: Claude Code's content measured,
	// not kept.
	fromBill := map[[2]string]priced{}
	_, err := transcript.Walk([]string{"../fixtures/corpus"}, transcript.Options{Lenient: true, Measure: true}, nil, func(tr *transcript.Transcript) error {
		c, err := Recorded(tr, "recorded", Options{})
		fromBill[[2]string{tr.File, tr.ID}] = priced{c, err}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	_, err = transcript.Walk([]string{"../fixtures/corpus"}, transcript.Options{Lenient: true}, nil, func(tr *transcript.Transcript) error {
		if u := tr.Usage(); u.Prompt() == 0 && u.Output == 0 && len(tr.UnattributedByModel) == 0 { // no bill
			return nil
		}
		p, ok := fromBill[[2]string{tr.File, tr.ID}]
		if !ok {
			t.Errorf("%s %s: not read measured", tr.File, tr.ID)
			return nil
		}
		fast, ferr := p.c, p.err
		slow, s, err := Compare(context.Background(), replayerOf(tr), rec, replay.Options{}, Options{})
		if err != nil {
			return err
		}
		if s.NotPriced != nil || s.BillNotPriced != nil {
			if ferr == nil {
				t.Errorf("%s: priced from the bill, but the replay is not priced: %v %v", tr.File, s.NotPriced, s.BillNotPriced)
			}
			return nil
		}
		if ferr != nil {
			t.Errorf("%s: %v", tr.File, ferr)
			return nil
		}
		n++
		f, r := fast.Policies[0], slow.Policies[0]
		if f.Calls != r.Calls || f.Total != r.Total || f.Usage != r.Usage {
			t.Errorf("%s: from the bill %+v (usage %+v), replayed %+v (usage %+v)", tr.File, f.Calls, f.Usage, r.Calls, r.Usage)
		}
		if d := cmp.Diff(r.PerStep, f.PerStep); d != "" {
			t.Errorf("%s: per call (-replayed +bill):\n%s", tr.File, d)
		}
		if d := cmp.Diff(slow.Misses, fast.Misses); d != "" {
			t.Errorf("%s: misses (-replayed +bill):\n%s", tr.File, d)
		}
		if d := cmp.Diff(slow.Billed, fast.Billed); d != "" {
			t.Errorf("%s: bill (-replayed +bill):\n%s", tr.File, d)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 15 {
		t.Errorf("compared %d transcripts; want 15 or more", n)
	}
	t.Logf("%d transcripts", n)
}

// TestRecordedFromRefusesAnotherEntry: LedgerEntry.Recorded prices from an entry
// of the transcript that holds every call; an entry of a ledger whose
// days leave a call out, or another transcript's, is an error, not a
// bill read from the wrong items.
func TestRecordedFromRefusesAnotherEntry(t *testing.T) {
	tr := corpusFile(t, "spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl")
	other := corpusFile(t, "spotter/tool_heavy.jsonl")
	whole, err := (&Ledger{Prices: pricing.Default()}).Entry(tr)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := whole.Recorded(tr, "recorded", Options{}); err != nil {
		t.Fatalf("the whole entry: %v", err)
	}
	// A copy whose first call was made the day before: a ledger of the
	// later day leaves it out.
	moved := *tr
	moved.Messages = slices.Clone(tr.Messages)
	var last time.Time
	for i := range moved.Messages {
		if m := &moved.Messages[i]; m.Usage != nil {
			if last.IsZero() {
				m.Time = m.Time.AddDate(0, 0, -1)
			}
			last = m.Time
		}
	}
	tr = &moved
	days, err := (&Ledger{Prices: pricing.Default(), Since: last.Format(time.DateOnly)}).Entry(tr)
	if err != nil {
		t.Fatal(err)
	}
	otherEntry, err := (&Ledger{Prices: pricing.Default()}).Entry(other)
	if err != nil {
		t.Fatal(err)
	}
	for name, e := range map[string]*LedgerEntry{"the last day's": days, "another transcript's": otherEntry} {
		if c, err := e.Recorded(tr, "recorded", Options{}); err == nil {
			t.Errorf("%s entry: priced %v, want an error", name, c.Billed.TotalUSD)
		}
	}
}
