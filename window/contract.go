package window

import (
	"github.com/ctxbench/ctxbench/transcript"
	"github.com/ctxbench/ctxbench/window/internal/policy"
)

// The contract between a policy and what replays it, defined in
// window/internal/policy, where each modelled system's package reaches
// it.
type (
	// An Item is one message of the working history: an original message
	// of the transcript, possibly truncated, or a synthetic one (a
	// summary, an acknowledgement) that a policy inserted.
	Item = policy.Item
	// Env is what a policy may consult before a call.
	Env = policy.Env
	// State is one replay's state: a policy value keeps nothing between
	// calls, so that it can serve many replays at once.
	State = policy.State
	// Step is what a policy did before one call.
	Step = policy.Step
	// A Firing is one firing of a policy's trigger.
	Firing = policy.Firing
	// SummaryEvent describes a summarization at one step.
	SummaryEvent = policy.SummaryEvent
	// A Policy transforms the working history before each call. A policy
	// may also have these methods, which the replay asks for:
	// Guarantees() Guarantees declares what it promises by design (none:
	// the invariants every policy holds); InertOn(*transcript.Transcript)
	// bool tells, before a replay, that it sends every history of the
	// transcript as given, so that a sweep replays it as none once;
	// Cautions() []string says, before a replay, where its settings
	// promise what it does not keep or the replay does not check.
	Policy = policy.Policy
	// Guarantees are what a policy promises by design, for the replay's
	// invariant checks.
	Guarantees = policy.Guarantees
	// Values are a policy's resolved parameters: every parameter, by name.
	Values = policy.Values
	// A Spec is a registered policy: its name, the source it models, its
	// parameters (Params, each with its kind, default and range) and how
	// to build it.
	Spec = policy.Spec
	// IDs is a list of item ids whose JSON form writes each run of
	// consecutive ids of one kind as one string, "m0-m41".
	IDs = policy.IDs
)

// Original returns the item for message i of t.
func Original(t *transcript.Transcript, i int) Item { return policy.Original(t, i) }

// The policies of this package reach the contract's helpers by their
// names here.

func ids(items []Item) []string { return policy.ItemIDs(items) }

func evict(step *Step, drop func(index int) bool) []Item { return policy.Evict(step, drop) }
