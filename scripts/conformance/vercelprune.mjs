// Runs the AI SDK's pruneMessages (package ai, the real code) on every
// call of every history export wrote, for each setting, and prints what
// each call sends: the golden window/testdata/conformance/vercelprune.json.
//
// An application that prunes calls it on its whole history before each
// call. A history becomes ModelMessages as ctxbench's vercel-prune sees
// it (window/internal/vercel/vercel.go): a system message is {role: "system",
// content: its text}; an assistant message's parts are its blocks in
// order (text {type: "text"}, thinking {type: "reasoning"}, tool_use
// {type: "tool-call", toolCallId, toolName, input}, any other
// {type: its type}); a user message is a tool message of its tool results
// ({type: "tool-result", toolCallId, toolName: its call's, output}) and
// then a user message of its other blocks, each when it has any (a user
// message with no block is a user message with no part).
//
// Each call is what each transcript message sends: "m<i>" whole,
// "m<i>:<blocks>" the blocks kept ("m<i>:" none, an empty message kept),
// consecutive whole ones as "m<i>-m<j>"; the golden holds the first 16
// hex digits of the SHA-256 of those entries joined by commas, their
// number and the last three.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { runs } from "./runs.mjs";

const require = createRequire(process.cwd() + "/");
const { pruneMessages } = require("ai");
const version = JSON.parse(readFileSync("node_modules/ai/package.json", "utf8")).version;
const { histories } = JSON.parse(readFileSync(process.argv[2], "utf8"));

// The documentation's example first.
const settings = [
  { reasoning: "before-last-message", toolCalls: "before-last-2-messages", emptyMessages: "remove" },
  { reasoning: "all", toolCalls: "all", emptyMessages: "remove" },
  { reasoning: "none", toolCalls: "before-last-message", emptyMessages: "keep" },
  { reasoning: "all", toolCalls: "before-last-10-messages", emptyMessages: "remove" },
  { reasoning: "before-last-message", toolCalls: "before-last-0-messages", emptyMessages: "remove" },
  { reasoning: "none", toolCalls: [{ type: "all", tools: ["Bash", "Read"] }], emptyMessages: "remove" },
  { reasoning: "all", toolCalls: [{ type: "before-last-4-messages", tools: ["Read", "Grep", "Glob", "shell"] }], emptyMessages: "keep" },
];

function modelMessages(h) {
  const names = new Map();
  h.messages.forEach((m) => m.blocks.forEach((b) => { if (b.type === "tool_use") names.set(b.id, b.name ?? ""); }));
  const part = new WeakMap(); // part → [message, block]
  const out = h.messages.map((m, i) => {
    if (m.role === "system") {
      return [{ role: "system", content: m.blocks.filter((b) => b.type === "text").map((b) => b.text ?? "").join(""), _i: i }];
    }
    const mk = (b, k) => {
      let p;
      if (m.role === "assistant") {
        if (b.type === "text") p = { type: "text", text: b.text ?? "" };
        else if (b.type === "thinking") p = { type: "reasoning", text: b.text ?? "" };
        else if (b.type === "tool_use") p = { type: "tool-call", toolCallId: b.id ?? "", toolName: b.name ?? "", input: b.input ?? {} };
        else p = { type: b.type };
      } else if (b.type === "tool_result") {
        p = { type: "tool-result", toolCallId: b.id ?? "", toolName: names.get(b.id) ?? "", output: { type: "text", value: b.text ?? "" } };
      } else if (b.type === "text") p = { type: "text", text: b.text ?? "" };
      else p = { type: b.type };
      part.set(p, [i, k]);
      return p;
    };
    if (m.role === "assistant") return [{ role: "assistant", content: m.blocks.map(mk), _i: i }];
    const tool = [], user = [];
    m.blocks.forEach((b, k) => (b.type === "tool_result" ? tool : user).push(mk(b, k)));
    const msgs = [];
    if (tool.length) msgs.push({ role: "tool", content: tool, _i: i });
    if (user.length || !tool.length) msgs.push({ role: "user", content: user, _i: i });
    return msgs;
  });
  return { perMessage: out, part };
}

function encode(sent, h, part) {
  const blocks = new Map(); // message → kept block indices
  for (const m of sent) {
    if (!blocks.has(m._i)) blocks.set(m._i, []);
    if (typeof m.content === "string") {
      h.messages[m._i].blocks.forEach((_, k) => blocks.get(m._i).push(k));
      continue;
    }
    for (const p of m.content) blocks.get(m._i).push(part.get(p)[1]);
  }
  const ids = [];
  for (const [i, ks] of [...blocks.entries()].sort((a, b) => a[0] - b[0])) {
    ks.sort((a, b) => a - b);
    ids.push(ks.length === h.messages[i].blocks.length ? `m${i}` : `m${i}:${ks.join(".")}`);
  }
  return runs(ids);
}

const results = [];
for (const s of settings) {
  const perSetting = [];
  for (const h of histories) {
    const { perMessage, part } = modelMessages(h);
    const calls = h.calls.map((c) => {
      const messages = perMessage.slice(0, c).flat();
      // Written whole, a call is O(history): its SHA-256 stands for it,
      // with its length and its last entries to read.
      const sent = encode(pruneMessages({ messages, ...s }), h, part);
      return { sha256: createHash("sha256").update(sent.join(",")).digest("hex").slice(0, 16), entries: sent.length, tail: sent.slice(-3) };
    });
    perSetting.push({ source: h.source, calls });
  }
  results.push(perSetting);
}
process.stdout.write(JSON.stringify({ ai: version, settings, results }) + "\n");
