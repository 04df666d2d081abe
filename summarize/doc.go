// Package summarize makes the summaries that summarizing policies put in
// place of the history they evict.
//
// A [Summarizer] takes a [Request] — the messages, an optional previous
// summary to fold in, a prompt [Template] and an output limit — and
// returns a [Result]: the text, the usage the provider reported, whether it
// came from the cache, the model and the cost.
//
//   - [Mock] is deterministic (the same request gives the same summary),
//     never sleeps, has a configurable length and can fail on demand, for
//     offline replays and for testing the policies' fallbacks.
//   - [Heuristic] is the tier-1 summary of ralph-gpu's Decision 005
//     (Context Management and Message Summarization), without a model:
//     tools used, files explored, commands run.
//   - [Anthropic] and [OpenAI] call the real APIs (OpenAI also any
//     compatible server: llama.cpp, Ollama, vLLM).
//
// The templates are the seeds' own ([AIDF], [TwoTier], [CrossTurn],
// [Generic]); a [Template] of the caller's own replaces them.
//
// # Failures, cache and cost
//
// The HTTP providers share a [Client]: each attempt has a timeout; 408,
// 409, 429, 5xx and 529 (overloaded) are retried with exponential backoff
// and jitter, honouring retry-after-ms, retry-after (seconds or a date)
// and x-should-retry; other 4xx are not retried, nor is a 429 that reports
// a spend or quota limit. A redirect to another origin (scheme, host and
// port) is refused, not retried: the request would take the conversation
// there, and its answer would pass for the API's summary, so nothing is
// sent to it, and nothing from it is used or cached. Errors name the
// provider, the status, the API's error type and message. Cancelling the
// context stops at once. The response cache (Client.CacheDir) keeps
// responses on disk so a re-run costs nothing, and Client.Offline serves
// from it alone. A run's spend cap (Run.MaxUSD) refuses calls that could
// take the spending past it; the refusal wraps [ErrSpendCap], which
// policies handle like any failed summary.
//
// The API keys are given by the caller (the command line reads them from
// the environment only). They are sent in headers and never written
// anywhere: not in cache keys or entries, and errors that would quote them
// are redacted.
package summarize
