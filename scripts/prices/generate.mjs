// Writes ctxbench's embedded price table (pricing/prices.json) from
// pydantic's genai-prices (npm @pydantic/genai-prices: each provider's
// published prices, with the page they were read from), and prints, for
// every model LiteLLM also prices, how the table differs from LiteLLM's
// prices as ccusage embeds them (the bill users check ctxbench against).
//
// Usage (scripts/prices.sh installs the pinned packages):
//
//	node generate.mjs GENAI_DIR CCUSAGE_BINARY > prices.json
//
// The models listed below are the current ones of each provider and the
// older ones still in recorded sessions. DeepSeek's entries are not taken
// from genai-prices: its DeepSeek prices are those before the V3.2 change
// of 2025-09-05, and the corpus's mini-swe-agent runs, whose LiteLLM cost
// ctxbench reproduces to the nano-dollar, were billed at V3.2's.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { inflateRawSync } from "node:zlib";
import { createHash } from "node:crypto";

const [genaiDir, ccusageBin] = process.argv.slice(2);
const require = createRequire(genaiDir + "/");
const genai = require(genaiDir + "/dist/index.cjs");
const genaiVersion = JSON.parse(readFileSync(genaiDir + "/package.json", "utf8")).version;
const GENAI_DATE = "2026-09-23"; // npm publish date of 0.1.8

// LiteLLM's table as ccusage 20.0.24 embeds it: a raw-deflate JSON blob in
// the binary (keys i, o, cr, cc, ia, oa, cra, cca per token; ctx).
function litellm() {
  const bin = readFileSync(ccusageBin);
  const sum = createHash("sha256").update(bin).digest("hex");
  const offsets = { d8979af0f2ca2ee523ee641ea01e2ea99cdf55d7f7c460eeedb623f8c599b397: 723634 };
  const at = offsets[sum];
  if (at === undefined) throw new Error(`unknown ccusage binary ${sum}: find the snapshot's offset (a raw deflate stream that starts {"anthropic.)`);
  return JSON.parse(inflateRawSync(bin.subarray(at, at + (1 << 20)), { finishFlush: 2 }).toString("utf8"));
}

// The models of the table: [provider, genai-prices id, ctxbench name].
const models = [
  ["anthropic", "claude-opus-4-8", "claude-opus-4-8"],
  ["anthropic", "claude-opus-4-7", "claude-opus-4-7"],
  ["anthropic", "claude-opus-4-6", "claude-opus-4-6"],
  ["anthropic", "claude-opus-4-5", "claude-opus-4-5"],
  ["anthropic", "claude-opus-4-1", "claude-opus-4-1"],
  ["anthropic", "claude-opus-4-0", "claude-opus-4"],
  ["anthropic", "claude-opus-5", "claude-opus-5"],
  ["anthropic", "claude-sonnet-5", "claude-sonnet-5"],
  ["anthropic", "claude-sonnet-4-6", "claude-sonnet-4-6"],
  ["anthropic", "claude-sonnet-4-5", "claude-sonnet-4-5"],
  ["anthropic", "claude-sonnet-4-0", "claude-sonnet-4"],
  ["anthropic", "claude-haiku-4-5", "claude-haiku-4-5"],
  ["anthropic", "claude-3-7-sonnet-latest", "claude-3-7-sonnet"],
  ["anthropic", "claude-3-5-sonnet", "claude-3-5-sonnet"],
  ["anthropic", "claude-3-5-haiku-latest", "claude-3-5-haiku"],
  ["anthropic", "claude-3-opus-latest", "claude-3-opus"],
  ["anthropic", "claude-3-haiku", "claude-3-haiku"],
  ["openai", "gpt-4o", "gpt-4o"],
  ["openai", "gpt-4o-mini", "gpt-4o-mini"],
  ["openai", "gpt-4.1", "gpt-4.1"],
  ["openai", "gpt-4.1-mini", "gpt-4.1-mini"],
  ["openai", "gpt-4.1-nano", "gpt-4.1-nano"],
  ["openai", "gpt-5", "gpt-5"],
  ["openai", "gpt-5-mini", "gpt-5-mini"],
  ["openai", "gpt-5-nano", "gpt-5-nano"],
  ["openai", "gpt-5-pro", "gpt-5-pro"],
  ["openai", "gpt-5.1", "gpt-5.1"],
  ["openai", "gpt-5.1-codex-mini", "gpt-5.1-codex-mini"],
  ["openai", "gpt-5.2", "gpt-5.2"],
  ["openai", "gpt-5.2-pro", "gpt-5.2-pro"],
  ["openai", "gpt-5.3-codex", "gpt-5.3-codex"],
  ["openai", "gpt-5.4", "gpt-5.4"],
  ["openai", "gpt-5.4-mini", "gpt-5.4-mini"],
  ["openai", "gpt-5.4-nano", "gpt-5.4-nano"],
  ["openai", "gpt-5.5", "gpt-5.5"],
  ["openai", "o1", "o1"],
  ["openai", "o3", "o3"],
  ["openai", "o3-mini", "o3-mini"],
  ["openai", "o4-mini", "o4-mini"],
  ["google", "gemini-2.5-pro", "gemini-2.5-pro"],
  ["google", "gemini-2.5-flash", "gemini-2.5-flash"],
  ["google", "gemini-2.5-flash-lite", "gemini-2.5-flash-lite"],
  ["google", "gemini-3-pro-preview", "gemini-3-pro-preview"],
  ["google", "gemini-3-flash-preview", "gemini-3-flash-preview"],
  ["google", "gemini-3.1-pro-preview", "gemini-3.1-pro-preview"],
  ["google", "gemini-3.1-flash-lite", "gemini-3.1-flash-lite"],
  ["google", "gemini-3.5-flash", "gemini-3.5-flash"],
  ["google", "gemini-3.5-flash-lite", "gemini-3.5-flash-lite"],
  ["mistral", "mistral-large-2512", "mistral-large-2512"],
  ["mistral", "mistral-medium-3-5", "mistral-medium-3-5"],
  ["mistral", "mistral-small-2603", "mistral-small-2603"],
  ["mistral", "devstral-2512", "devstral-2512"],
  ["mistral", "codestral-2508", "codestral-2508"],
  ["mistral", "ministral-8b-2512", "ministral-8b-2512"],
];

// Context windows genai-prices does not give, from the provider's model
// page (the window is the input a policy may fill).
const windows = {
  "gemini-2.5-pro": [1048576, "https://ai.google.dev/gemini-api/docs/models#gemini-2.5-pro"],
  "gemini-3-pro-preview": [1048576, "https://ai.google.dev/gemini-api/docs/models#gemini-3-pro"],
  "gemini-3.1-pro-preview": [1048576, "https://ai.google.dev/gemini-api/docs/models#gemini-3.1-pro"],
  "gemini-3.1-flash-lite": [1048576, "https://ai.google.dev/gemini-api/docs/models"],
  "gemini-3.5-flash": [1048576, "https://ai.google.dev/gemini-api/docs/models"],
  "gemini-3.5-flash-lite": [1048576, "https://ai.google.dev/gemini-api/docs/models"],
  "mistral-medium-3-5": [262144, "https://docs.mistral.ai/getting-started/models"],
  "codestral-2508": [256000, "https://docs.mistral.ai/getting-started/models"],
};

// Names that resolve to an entry beside the ones genai-prices matches
// exactly: Gemini 2.5 Pro's previews (genai-prices prices every
// gemini-2.5-pro* model but its TTS at gemini-2.5-pro's rates).
const extraAliases = {
  "gemini-2.5-pro-preview-03-25": "gemini-2.5-pro",
  "gemini-2.5-pro-preview-05-06": "gemini-2.5-pro",
  "gemini-2.5-pro-preview-06-05": "gemini-2.5-pro",
};

const deepseek = {
  "deepseek-chat": { provider: "deepseek", input: 0.28, output: 0.42, cache_read: 0.028, max_input_tokens: 128000 },
  "deepseek-reasoner": { provider: "deepseek", input: 0.28, output: 0.42, cache_read: 0.028, max_input_tokens: 128000 },
};
const deepseekSource = "DeepSeek V3.2 pricing (https://api-docs.deepseek.com/quick_start/pricing), since 2025-09-05; reproduces to the nano-dollar the instance_cost LiteLLM recorded in the corpus's mini-swe-agent runs (2026-04)";

const fields = { input_mtok: "input", output_mtok: "output", cache_read_mtok: "cache_read", cache_write_mtok: "cache_write_5m", cache_write_1h_mtok: "cache_write_1h" };
const above = { input: "input_above", output: "output_above", cache_read: "cache_read_above", cache_write_5m: "cache_write_5m_above", cache_write_1h: "cache_write_1h_above" };

// price converts genai-prices' prices of one period to ctxbench's fields.
function price(p, provider) {
  const out = {};
  let start = 0;
  for (const [k, f] of Object.entries(fields)) {
    const v = p[k];
    if (v === undefined) continue;
    if (typeof v === "number") { out[f] = v; continue; }
    out[f] = v.base;
    if (v.tiers.length !== 1) throw new Error(`${k}: ${v.tiers.length} tiers`);
    if (start && start !== v.tiers[0].start) throw new Error(`${k}: tiers start at ${start} and ${v.tiers[0].start}`);
    start = v.tiers[0].start;
    out[above[f]] = v.tiers[0].price;
  }
  if (start) out.long_context_above = start;
  if (provider === "anthropic" && out.cache_write_1h === undefined && out.input !== undefined) out.cache_write_1h = 2 * out.input;
  return out;
}

function providerOf(pid) {
  return { anthropic: "anthropic", openai: "openai", google: "gemini", mistral: "mistral" }[pid];
}

const ll = litellm();
const table = { note: "", models: {} };
const aliases = {};
const diffs = [];
for (const [pid, id, name] of models) {
  const prov = genai.findProvider({ providerId: pid });
  const m = prov.models.find((x) => x.id === id);
  if (!m) throw new Error(`genai-prices ${genaiVersion} has no ${pid}/${id}`);
  const periods = Array.isArray(m.prices) ? m.prices : [{ prices: m.prices }];
  for (const p of periods) {
    if (p.constraint && p.constraint.type !== "start_date") throw new Error(`${id}: a ${p.constraint.type} constraint`);
  }
  // The latest period is the price; the earlier ones apply before the
  // next one's start date.
  const entry = { provider: providerOf(pid), ...price(periods[periods.length - 1].prices, pid) };
  const before = [];
  for (let i = 0; i + 1 < periods.length; i++) {
    before.push({ until: periods[i + 1].constraint.start_date, ...price(periods[i].prices, pid) });
  }
  if (before.length) entry.before = before;
  const names = [name, id, ...(m.match.or ?? [m.match]).map((r) => r.equals).filter(Boolean)];
  const l = names.map((n) => ll[n]).find(Boolean);
  let ctx = l?.ctx ?? m.context_window;
  let ctxSource = l?.ctx ? "LiteLLM's max_input_tokens" : "genai-prices";
  if (windows[name]) [ctx, ctxSource] = [windows[name][0], windows[name][1]];
  if (!ctx) throw new Error(`${name}: no context window`);
  entry.max_input_tokens = ctx;
  const refs = [prov.pricing_urls[0]];
  const ref = m.price_comments?.match(/https?:\/\/\S+/)?.[0]?.replace(/[.,)]+$/, "");
  if (ref && ref !== refs[0]) refs.push(ref);
  entry.source = `genai-prices ${genaiVersion}: ${refs.join(", ")}; window: ${ctxSource}`;
  entry.date = GENAI_DATE;
  table.models[name] = entry;
  // Aliases: the names genai-prices matches exactly, and, for Anthropic,
  // the prefixes it matches that are whole names (claude-sonnet-4.5,
  // claude-4-5-sonnet); a prefix of another provider's may name another
  // model (mistral-medium-3 is not Medium 3.5).
  for (const rule of m.match.or ?? [m.match]) {
    if (rule.equals && rule.equals !== name) aliases[rule.equals] = name;
    if (pid === "anthropic" && rule.starts_with && /[a-z0-9]$/.test(rule.starts_with) && !/-20\d\d$|-\d{4}$/.test(rule.starts_with) && rule.starts_with !== name) {
      aliases[rule.starts_with] = name;
    }
  }
  if (id !== name) aliases[id] = name;
  if (l) {
    const want = { input: l.i * 1e6, output: l.o * 1e6, cache_read: (l.cr ?? 0) * 1e6, cache_write_5m: (l.cc ?? 0) * 1e6 };
    for (const [k, v] of Object.entries(want)) {
      const got = entry[k] ?? 0;
      if (Math.abs(got - v) > 1e-9) diffs.push(`${name}: ${k} ${got}, LiteLLM ${+v.toFixed(6)}`);
    }
    const llAbove = l.ia !== undefined;
    if (llAbove !== (entry.input_above !== undefined)) diffs.push(`${name}: long-context rates ${entry.input_above !== undefined ? "yes" : "no"}, LiteLLM ${llAbove ? "yes" : "no"}`);
  } else {
    diffs.push(`${name}: not in LiteLLM's table as ccusage embeds it`);
  }
}
for (const [name, e] of Object.entries(deepseek)) {
  table.models[name] = { ...e, source: deepseekSource, date: "2026-04-13" };
}
Object.assign(aliases, extraAliases);
// genai-prices matches mistral-medium-3 to Medium 3.5, but Medium 3 was
// priced as Medium 3.1 ($0.4/$2): not an alias.
delete aliases["mistral-medium-3"];
for (const [a, name] of Object.entries(aliases).sort()) {
  if (!table.models[a]) (table.models[name].aliases ??= []).push(a);
}
table.note = "USD per million tokens. cache_write_5m and cache_write_1h are Anthropic's prompt-cache writes (1-hour: 2x input where the source gives none); OpenAI, Gemini, DeepSeek and Mistral charge no write. *_above apply to every token of a request whose prompt exceeds long_context_above tokens; before lists the prices of earlier periods, each until a date; aliases are other names of the model. Written by scripts/prices.sh from the sources named per model; do not edit by hand.";
const sorted = (o) => Object.fromEntries(Object.keys(o).sort().map((k) => [k, o[k]]));
table.models = sorted(table.models);
console.log(JSON.stringify(table, null, 1));
console.error(`Against LiteLLM as ccusage 20.0.24 embeds it:\n  ${diffs.join("\n  ")}`);
