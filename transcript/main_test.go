package transcript

import (
	"flag"
	"os"
	"testing"
)

// TestMain runs the tests with [poisonLines] set, so that a reader that
// keeps a streamed line's bytes past the next line fails every test that
// streams a file; benchmarks run as users run.
func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("test.bench"); f == nil || f.Value.String() == "" {
		poisonLines = true
	}
	os.Exit(m.Run())
}
