package batch

import (
	"context"
	"testing"

	"github.com/ctxbench/ctxbench/replay"
)

// TestPipelineAddSweptNeedsASweep: a part of a sweep given to a pipeline
// that sweeps nothing is an error, not dropped.
func TestPipelineAddSweptNeedsASweep(t *testing.T) {
	if err := New(Spec{}).AddSwept(context.Background(), replay.SweptTranscript{}); err == nil {
		t.Error("a part of a sweep added to a pipeline without a sweep: no error")
	}
}
