package estimate

import (
	"sync"

	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"

	"github.com/ctxbench/ctxbench/transcript"
)

// Names the external tests reach that the package does not export.
type (
	BilledEstimate = billedEstimate
	MessageCounts  = messageCounts
)

var (
	DropsEarlierThinking = dropsEarlierThinking
	ScriptBuckets        = scriptBuckets
)

var useOfflineLoader sync.Once

// OfflineTiktoken makes pkoukk/tiktoken-go load its encodings from the
// ranks embedded in github.com/pkoukk/tiktoken-go-loader instead of
// downloading them, which its default loader does. ctxbench's own counts
// do not use pkoukk/tiktoken-go; the tests and the benchmarks that compare
// with it call this first.
func OfflineTiktoken() {
	useOfflineLoader.Do(func() { tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader()) })
}

// PromptTokens returns the tokens of a request made of msgs: the sum of
// their counts, plus OpenAI's reply priming (3 tokens) when e adds
// OpenAI overhead, as OpenAI's cookbook counts a request.
func PromptTokens(e Estimator, msgs []transcript.Message) int {
	n := 0
	for i := range msgs {
		n += e.CountMessage(&msgs[i])
	}
	if o, ok := e.(interface{ Overhead() Overhead }); ok && o.Overhead() == OverheadOpenAI {
		n += openAIPriming
	}
	return n
}
