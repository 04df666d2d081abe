package cost

import "testing"

// BenchmarkRecorded prices the recorded run of a 143-call Claude Code
// session from its bill: what `cost --policy recorded` does per
// transcript beside reading it.
func BenchmarkRecorded(b *testing.B) {
	tr := corpusFile(b, "spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Recorded(tr, "recorded", Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
