// Package window holds the context-window policies ctxbench replays: each
// one a faithful model of a real system's context management — the seed
// systems (aidf, two-tier, prune, cross-turn, compress), public agents
// (gemini-cli, opencode, codex, claude-code, cline, langchain-trim),
// LangChain v1's middleware (langchain-summarization,
// langchain-clear-tool-uses), the AI SDK's and the OpenAI Agents SDK's
// (vercel-prune, openai-trim) and the edits the providers' APIs apply to
// each request (anthropic-clear-tool-uses, anthropic-clear-thinking,
// anthropic-compaction, openai-compaction) — plus none
// (send everything) and recorded (what the agent really sent).
//
// A [Policy] is a value: its name, its resolved parameters and an Apply
// method that, before each call, turns the working history (the previous
// step's output plus the latest turn) into what is sent — evicting,
// truncating, inserting or updating a summary — and reports what it did as
// a [Step]. Per-replay state lives in a [State] the replay engine creates,
// so one policy value serves many replays at once. Items are identified as
// in the trace contract: "m<i>" for message i of the transcript, "s<k>"
// for the k-th synthetic message (a summary, an acknowledgement).
//
// The registry ([Specs], [Lookup], [New], [Parse]) lists every policy with
// its parameters (the source's own names), defaults, valid ranges and the
// source it models; a SPEC is NAME or NAME:key=value,…, SPECs joined by
// "+" are a chain applied in order at each call, and [ParseLabeled]
// labels each policy with its SPEC written back. A value out of range, or at odds with another
// parameter, is a [*ParamError]; an unknown policy or parameter is another
// error (a sweep skips the points whose values are at odds and stops at
// any other). Each policy's name is an exported constant whose doc is
// the policy's specification: which source lines it follows and what it
// chose where the source is silent. The contract's types are defined in
// window/internal/policy and are these aliases; each modelled system is
// a package of its own under window/internal (aidf, anthropic,
// claudecode, cline, codex, compress, crossturn, gemini, langchain,
// openai, opencode, prune, twotier, vercel), which imports the contract
// and the shared helpers (client: the history a client keeps apart from
// what it sends; serveredit: what the provider's edits share, and a
// chain reads of them) but no other system, and whose Specs the registry
// lists; its name constant is there (go doc ./window/internal/claudecode
// ClaudeCode).
//
// Outside a replay, [Apply] returns what a policy sends at the next call
// of a conversation given as messages, and a [Conversation] applies a
// policy call by call as an agent loop runs: each call decided as a
// replay of the same messages decides it.
//
// A policy whose trigger fired at a call says so in [Step.Fired], with
// what it counted before and after, in its own unit: the replay's
// headroom invariant holds it to leaving the history below its trigger.
//
// Policies are replayed as designed: a message-count window that can cut
// between a tool call and its result does so, and the replay's invariants
// show it. Where a safe variant exists it is a parameter (pair_safe), off
// unless the source has the rule.
package window
