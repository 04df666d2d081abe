// Package cost says what a replayed policy would have cost, with the
// provider's prompt cache simulated, and how far that is from the bill.
//
// The steps, in the order [Replay] takes them:
//
//  1. Replay the policies, and the recorded policy beside them (what the
//     agent really sent), over one transcript ([replay.ReplayAll]).
//  2. Fit the prompt constant: the system prompt and tool
//     schemas every request carries but no transcript holds, the median
//     of the recorded prompt minus the estimate of what was sent.
//  3. Price each run from the bill, as it is replayed: each call that recorded
//     a prompt is the recorded call less what the policy did not send.
//     Its prompt is the billed prompt less alpha times the estimate of
//     what the policy left out; alpha, the model's billed tokens per
//     estimated token, is the median, weighted by growth, of the billed
//     prompt's growth over the estimate's between consecutive calls
//     (compactions and shrinking prompts left out; with fewer than 5
//     growths, the model family's over the corpus, else 1). An ideal cache — never expiring, one per model — holds
//     at each recorded call the prompt its model's previous call was
//     billed for, unless a compaction or a rollback changed what was
//     sent since; a call that read less by more than 1,024 tokens and a
//     tenth is a [CacheMiss] (expired when the model's previous call
//     came longer ago than the cache's lifetime, else unexplained),
//     found from the bill alone. The policy's call reads, where the
//     recorded one missed, at most what the provider kept (an assumption:
//     the loss carries over to any prompt), elsewhere what the bill read
//     plus what its own ideal cache (the longest prefix shared with an
//     earlier request) reads beyond the agent's; the rest is
//     written with the bill's uncached input kept, or is all input where
//     the provider writes nothing. So the recorded policy costs the bill
//     exactly, and a policy that sends less, editing nothing it sent,
//     costs less. A call the bill records no prompt for costs its output;
//     the calls no record shows (Transcript.UnattributedByModel) are
//     every run's at the agent's own figures. A bill recorded for the
//     calls together and for none alone (a `codex exec --json`
//     stream's turn usage, Transcript.Unattributed) is first shared
//     out over them, its totals kept, its split per call assumed and
//     said so: no alpha is fitted on it and no cross-check made.
//  4. A transcript with no bill is priced call by call,
//     each call at the model that made it ([Options.Model] for a
//     what-if), at the price in
//     effect on its day: its prompt, the estimate of what the policy sent
//     plus its model's constant, is split by its model's cache simulation
//     into uncached input, cache reads and cache writes
//     (anthropic: the longest prefix shared with a request still
//     alive is read, the rest written; openai: automatic from
//     1,024 tokens, in 128-token steps), priced at the model's rates
//     ([pricing.Price.CallCost]); the output is the recorded output, and
//     summary calls are priced apart. [RunCost.ByModel] says which models
//     priced what.
//  5. Bill the recorded usage call by call, each call at its own model
//     ([Session.Billed], as ccusage does), and cross-check step 3 out of sample
//     ([CrossCheck]): the recorded policy, at the same models, fitted on
//     the first half of the calls ([Options.FitCalls] sets how many),
//     its later calls priced without their bill — the constant plus
//     alpha times the estimate, an ideal cache's read less the chance of
//     a miss times the share lost at one before, plus the share of the
//     rest it read anyway — against their bill. A miss no expiry explains is a chance
//     that rises with the call's idle time, logit(chance) = a + b · ln(idle
//     in seconds) with b ≥ 0, fitted by maximum likelihood on the calls before (an
//     assumption: a provider may evict an unused entry before its
//     lifetime ends, and routes some calls to a replica without it);
//     with no times, or times that say nothing, the chance is constant.
//
// [Recorded] prices the recorded policy alone: the bill, with the cache
// misses it shows, no policy replayed and no token counted.
//
// While pricing a run, cost finds its cache breaks ([CacheBreak]):
// the calls at which what is sent first differs from what the previous
// call to the same model sent while its cache was warm. Each is weighed
// against the same run without it: what writing the old content again
// cost over reading it, against what the tokens the policy removed saved
// from that call to the end, and after how many calls it broke even.
//
// A transcript that cannot be priced (no model recorded and none given,
// or no price for its model) is not an error: the [Session] says so
// ([Session.NotPriced]), and the commands report it and go on. That is
// the one rule every command follows. An amount past what a bill can
// be is: a call that costs more than [pricing.MaxCall], or a sum of
// calls, transcripts or cache breaks past [pricing.MaxTotal], is an
// error naming the call's record (file:line), never a total of the
// other sign.
//
// A [Ledger] totals the bills of many transcripts as ccusage does: by
// session with its subagents beneath, by model and by day, between two
// days, counting once a call a resumed session's file copied.
//
// How close a projection lands on the sessions it is made from is
// measured by their own cross-checks ([CrossCheck.SessionError]): each transcript
// of 20 calls or more, fitted on its first half, its later calls priced
// without their bill against it; the command's projection
// (internal/projection) gives the median, the 90th percentile and the
// worst of the absolute errors (make validate prints the same on
// fixtures/validation). Calls after the fit whose bill records no prompt
// are left out of both sides, and counted (the Unbilled of
// [CrossCheck.AfterFit]).
//
// The projection sums a policy's cost over the sessions with the mean,
// the median and the 90th percentile per session, and scales the mean to
// sessions per day and per 30 days. Both give a range, the cost × (1 ±
// the measured p90 error): the spread a projection showed on the
// sessions it was made from, not a bound.
package cost
