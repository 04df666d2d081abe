// Runs LangChain v1's context middleware (the langchain package, the real
// code) on every call of every history export wrote, for each setting, as
// an agent runs it, and prints what it did: the golden
// window/testdata/conformance/langchainmw.json.
//
// The agent's state is the LangChain view of the history (lcview.mjs),
// the messages of each turn appended before the call.
//
//   - SummarizationMiddleware: its beforeModel hook runs before every call;
//     when it returns [REMOVE_ALL, summary, ...kept], that is the new
//     state. The summary model answers "SUMMARY". A call is written as [0]
//     before the first summary, else [n, "i.k"]: n summaries so far, the
//     state's first message after the summary ("" when none).
//   - ClearToolUsesEdit: ContextEditingMiddleware's wrapModelCall applies
//     it to the state's own message array before every call, and its edits
//     stay. A call is written as what changed: "c:ID" a result cleared,
//     "i:ID" its call's arguments emptied, "r:i.k" a message removed (a
//     tool result without its call), sorted.
//
// Both count with langchain's countTokensApproximately (the middleware's
// default); fractions use maxInputTokens 200,000.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { lcUnits } from "./lcview.mjs";

const require = createRequire(process.cwd() + "/");
const core = require("@langchain/core/messages");
const lc = await import(require.resolve("langchain"));
const version = JSON.parse(readFileSync("node_modules/langchain/package.json", "utf8")).version;
const units = (h) => lcUnits(h, core);

const model = { invoke: async () => ({ content: "SUMMARY" }), profile: { maxInputTokens: 200000 } };

const summarization = [
  { trigger: { tokens: 4000 }, keep: { messages: 20 } },
  { trigger: { tokens: 20000 }, keep: { messages: 6 } },
  { trigger: { tokens: 8000 }, keep: { tokens: 2000 } },
  { trigger: { messages: 40 }, keep: { messages: 10 } },
  { trigger: { tokens: 30000, messages: 50 }, keep: { tokens: 10000 } },
  { trigger: { fraction: 0.05 }, keep: { fraction: 0.01 } },
];
const clearing = [
  { trigger: { tokens: 4000 }, keep: { messages: 3 } },
  { trigger: { tokens: 20000 }, keep: { messages: 1 }, clearToolInputs: true },
  { trigger: { tokens: 8000 }, keep: { messages: 3 }, clearAtLeast: 3000 },
  { trigger: { tokens: 2000 }, keep: { tokens: 1000 }, excludeTools: ["Read", "read_file"] },
  { trigger: { messages: 30 }, keep: { messages: 3 }, placeholder: "[gone]" },
  { trigger: { fraction: 0.1 }, keep: { fraction: 0.02 } },
];

const { histories } = JSON.parse(readFileSync(process.argv[2], "utf8"));

async function summarize(s, h) {
  const mw = lc.summarizationMiddleware({ model, ...s });
  const all = units(h);
  const calls = [];
  let state = [];
  let n = 0;
  let summaries = 0;
  for (const c of h.calls) {
    while (n < all.length && all[n].msg < c) state.push(all[n++].m);
    const res = await mw.beforeModel({ messages: state }, { context: {} });
    if (res?.messages) {
      summaries++;
      state = res.messages.slice(1);
    }
    calls.push(summaries === 0 ? [0] : [summaries, state.length > 1 ? state[1].id : ""]);
  }
  return calls;
}

async function clear(s, h) {
  const edit = new lc.ClearToolUsesEdit(s);
  const all = units(h);
  const calls = [];
  let state = [];
  let n = 0;
  for (const c of h.calls) {
    while (n < all.length && all[n].msg < c) state.push(all[n++].m);
    const before = new Map(state.map((m) => [m, m.id]));
    const inputsBefore = new Map(state.filter((m) => core.AIMessage.isInstance(m)).map((m) => [m.id, m.response_metadata?.context_editing?.cleared_tool_inputs ?? []]));
    await edit.apply({ messages: state, model, countTokens: lc.countTokensApproximately });
    const changed = [];
    const now = new Set(state);
    const newTool = new Set();
    const ids = new Set();
    for (const m of state) {
      if (m.id) ids.add(m.id);
      if (before.has(m)) continue;
      if (core.ToolMessage.isInstance(m)) {
        newTool.add(m.tool_call_id);
        if (m.response_metadata?.context_editing?.cleared) changed.push("c:" + m.tool_call_id);
      }
      if (core.AIMessage.isInstance(m)) {
        const had = inputsBefore.get(m.id) ?? [];
        for (const id of m.response_metadata?.context_editing?.cleared_tool_inputs ?? []) if (!had.includes(id)) changed.push("i:" + id);
      }
    }
    // Removed: a message gone that no cleared result or edited call stands for.
    for (const [m, id] of before) {
      if (now.has(m)) continue;
      if (core.ToolMessage.isInstance(m) ? newTool.has(m.tool_call_id) : ids.has(id)) continue;
      changed.push("r:" + id);
    }
    calls.push([...new Set(changed)].sort());
  }
  return calls;
}

const out = { langchain: version, counter: "countTokensApproximately (langchain, JS)", summarization, clearing, results: { summarization: [], clearing: [] } };
for (const s of summarization) {
  const per = [];
  for (const h of histories) per.push({ source: h.source, calls: await summarize(s, h) });
  out.results.summarization.push(per);
}
for (const s of clearing) {
  const per = [];
  for (const h of histories) per.push({ source: h.source, calls: await clear(s, h) });
  out.results.clearing.push(per);
}
console.log(JSON.stringify(out));
