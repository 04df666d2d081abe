// Package estimate counts tokens: the heuristics agents use to cap their
// context, and the exact BPE encodings they approximate.
//
// # Estimators
//
//   - chars4: characters / 4, rounded up, per message, as the seed systems
//     (TypeScript) compute it. Characters are UTF-16 code units, as
//     JavaScript's String.length counts them: one per code point, two for
//     a code point above U+FFFF (most emoji). A message that is a single
//     text counts that text; any other message counts
//     JSON.stringify(content blocks), the blocks in the Anthropic Messages
//     shape ([transcript.ContentJSON]).
//   - gemini, gemini-2025-11, gemini-2026-05: Gemini CLI's heuristic
//     (packages/core/src/utils/tokenCalculation.ts), counted per code
//     point and floored per message, as the source does. Tokens per ASCII
//     character and per other character: gemini-2025-11 0.25 and 1.3
//     (from November 2025), gemini-2026-05 0.33 and 1.5 (May 2026), gemini
//     0.25 and 1.5 (the current rule). Text longer than 100,000 UTF-16
//     units counts length/4. A tool call counts JSON.stringify of its
//     functionCall part / 4, a tool result JSON.stringify of its response
//     {"output": …} / 4, an image 3,000.
//   - cl100k_base, o200k_base: exact BPE counts. The merge ranks come from
//     github.com/pkoukk/tiktoken-go-loader, which embeds them, read by
//     ctxbench's own parser (a third of the loader's time): ctxbench
//     never downloads anything (the tests make pkoukk/tiktoken-go, their
//     reference, use the embedded ranks too). Text is split with the
//     encodings' own pre-tokenizer patterns, and each piece is merged by rank exactly as
//     tiktoken does; long pieces (a base64 blob, 100,000 repeated letters)
//     use a heap so that the merge stays O(n log n) where pkoukk's is
//     quadratic; pieces past 5 KB are merged in chunks of about 4 KB, each
//     cut checked exactly to be a boundary of the whole piece's tokens
//     (estimate/internal/bpe), so that 25 MB of one letter costs what 25 MB of
//     words does. Special-token text such as <|endoftext|> is ordinary
//     text. Counts equal OpenAI's tiktoken on the reference texts
//     (testdata; scripts/reference-counts.sh regenerates them).
//
// An exact estimator counts a message block by block: texts, thinking and
// tool results by their text, a tool call by its name plus its JSON input.
// Images count 0 there, image blocks and the image parts of tool results
// alike: their cost depends on the provider and the pixels.
//
// # Images
//
// An image is not text. A model's provider documents a rule for the
// tokens of an image of a given size (Claude's width × height / 750,
// OpenAI's 512-pixel tiles, Gemini's 768-pixel tiles), where the provider
// documents one (internal/imagerule holds them). [Analyze] leaves images
// out of every estimator's counts and adds what the rule gives them to
// the comparisons with the bill. The
// counts a replay measures a context with (internal/countcache) add to an
// exact estimator's count of a message its images by the rule of the
// transcript's provider (its first model's); a heuristic counts an
// image as the agent it models does (chars4 its base64 text, as
// JSON.stringify does; gemini 3,000).
//
// # Against the bill
//
// [Analyze] and [AccuracyOf] compare the estimates with the prompts an API
// billed: call k's prompt minus call k−1's is what the messages appended
// in between cost. Some models' APIs leave the thinking of a turn that
// ended out of every later prompt (Claude up to Sonnet 4.5, DeepSeek, OpenAI's reasoning models): the prompt
// then shrinks at a new turn, and the comparison counts that thinking
// apart rather than dropping the call.
//
// # Overhead
//
// What a chat format adds around each message is an explicit [Overhead]
// rule, never hidden in the counts: [OverheadNone] counts content only;
// [OverheadOpenAI] adds OpenAI's 3 tokens per message, the role's tokens,
// 1 more plus the name's tokens for a named message. With it, and the
// cookbook's 3 tokens of reply priming per request, cl100k_base and
// o200k_base reproduce the OpenAI cookbook's 129 and 124 tokens.
//
// # Caching
//
// Estimators are built once per process ([New]) and are safe for
// concurrent use. A replay keeps each message's count per estimator
// (internal/countcache), so a message is tokenized once however many
// replays see it.
package estimate
