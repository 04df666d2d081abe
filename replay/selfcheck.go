package replay

import (
	"github.com/ctxbench/ctxbench/transcript"
)

// A CompactionCheck holds a policy to the agent that recorded a
// transcript: whether it compacted at the call at which the agent did,
// having counted what the agent counted. Only the first compaction can be
// held to it: after it, the policy's history (its own summary) is no
// longer the agent's.
type CompactionCheck struct {
	// Call is the call the agent made first after compacting; PreTokens
	// and Trigger what it recorded of the compaction (its count before,
	// "auto" or "manual").
	Call      int    `json:"call"`
	PreTokens int64  `json:"pre_tokens"`
	Trigger   string `json:"trigger"`
	// Fired is the first call at which the policy compacted (-1: never),
	// and Counted what it counted then.
	Fired   int `json:"fired"`
	Counted int `json:"counted"`
}

// Agrees reports whether the policy compacted at the agent's call.
func (c CompactionCheck) Agrees() bool { return c.Fired == c.Call }

// CheckCompaction compares the first compaction a run of t made (a
// firing of what, "auto-compact" say) with the first one t recorded; ok
// is false when t recorded none, or its first was not automatic.
func CheckCompaction(t *transcript.Transcript, run *Run, what string) (c CompactionCheck, ok bool) {
	if len(t.Compactions) == 0 || t.Compactions[0].Trigger == "manual" {
		return c, false
	}
	rc := t.Compactions[0]
	c = CompactionCheck{Call: -1, PreTokens: rc.PreTokens, Trigger: rc.Trigger, Fired: -1}
	call := 0
	for i := range t.Messages {
		if t.Messages[i].Role != transcript.RoleAssistant {
			continue
		}
		if i >= rc.Index {
			c.Call = call
			break
		}
		call++
	}
	if c.Call < 0 {
		return c, false
	}
	for _, f := range run.Summary.Fired {
		if f.What == what {
			c.Fired, c.Counted = f.Step, f.Before
			break
		}
	}
	return c, true
}
