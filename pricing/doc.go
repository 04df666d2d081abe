// Package pricing owns what a model costs: the one price table ctxbench
// ships, the money it counts in, and how a model's name finds its price.
//
// # The table
//
// [Default] is the embedded table (prices.json): for each model its
// provider, its prices in USD per million tokens — input, output, cache
// read, cache write at the 5-minute and the 1-hour lifetime, and the
// long-context rates some providers charge above 200,000 prompt tokens —
// its context window, and the source and date each price was read from.
// [Load] reads a table of the same form, or LiteLLM's
// model_prices_and_context_window.json as it is (USD per token), so a
// user can price with the file ccusage and LiteLLM use. A price in a
// file that is not a number from 0 to 1e9 USD per million tokens, or a field that reads
// as a price but is not one Load can read, is an error naming the file,
// the line, the model and the field: never a model left out, nor a
// price taken in part.
//
// # Names
//
// [Prices.Lookup] finds a model's price: the exact name or an alias, then
// the name with what varies around the same model removed — a provider
// path, a Vertex AI @version, a Bedrock region and -v1:0, a snapshot date.
// Never a prefix: gpt-4o-mini is not gpt-4o. A model with no price is an
// error naming the closest entries, and a transcript that records no
// model another: [NotPriced] tells both apart from other failures, so
// that a caller pricing many transcripts says "not priced" for one and
// goes on, and never prices it as another model.
//
// # Money
//
// Amounts are [Money], whole pico-dollars (10⁻¹² USD): a price per
// million tokens to six decimals is a whole number of pico-dollars per
// token, so sums over millions of calls are exact. [Price.CallCost]
// prices one call's usage as the providers bill it, by component
// ([Cost]): uncached input, cache reads, cache writes and output.
//
// Money never wraps to the other sign. A call may cost at most
// [MaxCall], a million dollars; past it the record is corrupt, and
// CallCost's error says so. A sum may reach [MaxTotal], what an int64
// of pico-dollars holds ($9,223,372.0369); [Cost.Add], [Money.Plus] and
// [Money.Times] return an [*AmountError] rather than pass it, and the
// callers name the record that would have.
package pricing
