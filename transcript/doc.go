// Package transcript reads recorded LLM-agent conversations into one
// normalized model, and writes them back out as OpenAI chat or Anthropic
// JSON Lines.
//
// # The model
//
// A [Transcript] is an ordered list of [Message]s plus metadata: its id,
// source file, detected [Format], the models seen, the compactions the
// agent recorded, the number of API calls, and counts of what was skipped.
// A Message has a [Role] (system, user, assistant, tool; unknown roles are
// kept verbatim), a list of [Block]s (text, thinking, tool_use,
// tool_result, image, other-with-raw-JSON), the [Usage] the API reported
// for assistant messages, and its source position. In the trace contract
// message i is "m<i>".
//
// A call is one recorded API request. After normalization it is one
// assistant message, and the turn before call k is the messages appended
// since call k−1. [Transcript.Calls] counts calls as each format records
// them: distinct message.id values (Claude Code), distinct token_count
// updates or else model-response groups (Codex), assistant messages
// (every other format).
//
// # Usage
//
// Usage has one meaning in every format: Input is the uncached prompt
// tokens, CacheRead and CacheWrite the prompt tokens read from and written
// to the provider's prompt cache, Output the generated tokens. The prompt
// is Input + CacheRead + CacheWrite. The readers convert:
//
//   - Anthropic/Claude Code usage maps one to one (cache_creation's 1-hour
//     share is kept in CacheWrite1h). Claude Code writes one line per
//     content block and repeats the call's usage on each: the input side
//     is counted once per message.id, and the largest output_tokens is
//     kept, since it grows as the response streams.
//   - OpenAI-style usage: Input = prompt_tokens − cached_tokens −
//     cache_creation_input_tokens (the last is LiteLLM's report of
//     Anthropic cache writes, which prompt_tokens includes).
//   - Codex: input_tokens includes cached_input_tokens; repeated
//     token_count events (same total_token_usage) count once.
//   - Gemini CLI: input includes cached; Output adds thoughts.
//   - OpenTelemetry GenAI (gen_ai.usage.*): input_tokens includes the
//     cache reads and writes, as the conventions say (a count too small
//     to hold both holds what it can); output_tokens includes reasoning.
//   - ATIF: prompt_tokens includes cached_tokens and the cache writes
//     recorded in metrics.extra.cache_creation_input_tokens.
//   - Langfuse: usage_details' keys are disjoint (Langfuse prices each
//     and totals their sum): input, cache reads, cache writes, output.
//
// # Formats and detection
//
// [Parse] and [Read] detect the format from content, never from the file
// name: JSON Lines are recognized by the first records' fields (Claude
// Code's "type" with "message"/"uuid"/"sessionId", Codex's "payload" or
// dotted event types, chat messages' "role", conversations' "messages"),
// JSON documents by their shape (an OpenHands event array, a Gemini CLI
// session, an object holding "messages"); OpenTelemetry traces by
// "resourceSpans"/"resourceLogs" or a span's gen_ai attributes, ATIF
// trajectories by their schema_version, Langfuse observations by their
// type (GENERATION, SPAN, …) with a trace id and a start time. OpenAI chat and Anthropic
// messages are told apart by the features only one has (tool_calls and
// role "tool" against tool_use/tool_result blocks); plain-text messages
// read the same either way. [Options.Format] overrides detection. Each
// reader lives in a package of its own under transcript/internal
// (claudecode, codex, …), whose Read documents what it maps to what and
// what it counts as skipped. opencode's SQLite databases are read only by
// a program that imports transcript/opencodedb, which links the driver;
// without it, reading one is an error naming that import.
//
// # Bad input
//
// Nothing is dropped silently:
//
//   - Records that carry no message (progress events, snapshots, state
//     changes, …) are counted by type in [Transcript.Skipped].
//   - A malformed record stops a strict read with a [*SyntaxError] that
//     prints as "file:line: what is wrong". With [Options.Lenient] it is
//     skipped and listed in [Transcript.Bad]. A malformed JSON document
//     (one value spanning the file) cannot be read in part and is an error
//     either way.
//   - The whole input is read first, so lines of any length are accepted
//     up to [Options.MaxBytes] (1 GiB by default).
//   - A UTF-8 byte-order mark is ignored; CRLF line ends read as LF; blank
//     lines are not records; a last line without a newline is a record,
//     and if it is cut short the error says it was truncated.
//   - Invalid UTF-8 inside a record is read as U+FFFD, and the records
//     holding any are counted in [Transcript.InvalidUTF8].
//   - Empty input, binary input (NUL bytes), input that is not JSON or
//     is JSON in no known format, input that looks like a format ctxbench
//     does not read (Gemini API contents, Gemini CLI stream-json: named
//     in the reason), and input of which no
//     message could be read give a [*NotTranscriptError]; [Walk] lists
//     such files of a directory as skipped instead, and so a directory's
//     file whose malformed records leave no message to read. An input is never
//     read as a transcript with no message.
//   - A chat message with no role, a role no chat format has, or no
//     content field is a malformed record, named at its line with the
//     fields it has.
//   - A transcript whose format records no id is named after its file;
//     [Walk] tells files of the same name apart by their folders.
//
// # Compactions
//
// An agent's own compactions (Claude Code's compact_boundary with the
// summary message after it, Codex's compacted item, opencode's compaction
// part with the summary message after it) are [Compaction]
// markers, not history: the summary is kept in the marker, and
// Compaction.Index says how many messages preceded it, so a replay of what
// the agent really sent can put the summary in their place (followed by
// the messages it kept, Compaction.Kept: opencode's tail). The turns a
// user undid (Codex's thread_rolled_back) are [Rollback] markers: their
// messages, and the calls among them, stay in Messages; a replay of what
// the agent sent leaves them out from the rollback on.
package transcript
