package transcript

import (
	"flag"
	"os"
	"testing"

	"github.com/ctxbench/ctxbench/transcript/internal/decode"
)

// TestMain runs the tests with [poisonLines] set, so that a reader that
// keeps a streamed line's bytes past the next line fails every test that
// streams a file; benchmarks run as users run.
func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("test.bench"); f == nil || f.Value.String() == "" {
		decode.PoisonLines = true
	}
	os.Exit(m.Run())
}
