// Package policy is the contract between ctxbench's context-window
// policies and what replays them: the working history's [Item], the
// [Env] a policy consults, the per-replay [State], the [Step] it reports,
// its [Guarantees], the [Policy] interface and the [Spec] that registers
// a policy with its [Param]s. Package window re-exports these types and
// holds the registry; each modelled system lives in a package of its own
// under window/internal that imports this one, and the helpers every
// policy shares (counting through the Env's cache, summarizing, the
// parameter constructors) are here.
package policy
