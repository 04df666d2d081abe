package estimate

import (
	"fmt"
	"strings"
	"sync"

	"github.com/ctxbench/ctxbench/estimate/internal/bpe"
	"github.com/ctxbench/ctxbench/transcript"
)

// An Estimator counts tokens. Every Estimator is safe for concurrent use.
type Estimator interface {
	// Name is the estimator's registered name ("chars4", "cl100k_base", …).
	Name() string
	// Count returns the tokens of a text.
	Count(text string) int
	// CountMessage returns the tokens of a message's content, plus the
	// per-message overhead the estimator was built with ([Overhead]).
	CountMessage(m *transcript.Message) int
	// Exact reports whether counts are the tokenizer's own (BPE), rather
	// than a heuristic.
	Exact() bool
}

// Overhead is the rule for the tokens a chat format adds around each
// message (role markers and separators). It is explicit, never hidden in
// the counts.
type Overhead int

const (
	// OverheadNone counts message content only.
	OverheadNone Overhead = iota
	// OverheadOpenAI adds, as OpenAI's cookbook counts chat messages, 3
	// tokens per message plus the tokens of its role, and 1 more plus the
	// tokens of its name when it has one. The cookbook adds 3 tokens of
	// reply priming per request on top, which no count here holds.
	OverheadOpenAI
)

// String names the overhead rule as the command line spells it.
func (o Overhead) String() string {
	if o == OverheadOpenAI {
		return "openai"
	}
	return "none"
}

// OpenAI's per-message and per-request constants.
const (
	openAIPerMessage = 3
	openAIPerName    = 1
	openAIPriming    = 3
)

// overhead returns the tokens rule o adds to message m, counting its role
// and name with count.
func overhead(o Overhead, m *transcript.Message, count func(string) int) int {
	if o != OverheadOpenAI {
		return 0
	}
	n := openAIPerMessage + count(string(m.Role))
	if m.Name != "" {
		n += openAIPerName + count(m.Name)
	}
	return n
}

// Names returns every estimator name, in a fixed order: the heuristics,
// then the exact encodings.
func Names() []string {
	return []string{"chars4", "gemini", "gemini-2025-11", "gemini-2026-05", "cl100k_base", "o200k_base"}
}

var (
	registryMu sync.Mutex
	registry   = map[string]map[Overhead]Estimator{}
)

// New returns the estimator called name with overhead rule o. Estimators
// are built once and shared: the BPE encodings cost 100–300 ms to load.
// An unknown name is an error that lists the valid ones.
func New(name string, o Overhead) (Estimator, error) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if e, ok := registry[name][o]; ok {
		return e, nil
	}
	var e Estimator
	switch name {
	case "chars4":
		e = &chars4{overheadRule: o}
	case "gemini", "gemini-2025-11", "gemini-2026-05":
		e = &geminiHeuristic{name: name, rates: geminiRates[name], overheadRule: o}
	case "cl100k_base", "o200k_base":
		enc, err := bpe.Load(name)
		if err != nil {
			return nil, err
		}
		e = &bpeEstimator{enc: enc, overheadRule: o}
	default:
		return nil, fmt.Errorf("unknown estimator %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	if registry[name] == nil {
		registry[name] = map[Overhead]Estimator{}
	}
	registry[name][o] = e
	return e, nil
}

// MustNew is New for names known to be valid; it panics otherwise.
func MustNew(name string, o Overhead) Estimator {
	e, err := New(name, o)
	if err != nil {
		panic(err)
	}
	return e
}
