// Runs LangChain's trimMessages (@langchain/core, the real code) on every
// call of every history export wrote, for each setting, and prints what it
// keeps: the golden window/testdata/conformance/langchain.json.
//
// A history becomes LangChain messages as an application holding an
// Anthropic- or OpenAI-shaped conversation would convert it (the same
// view ctxbench's langchain-trim policy trims; window/internal/langchain/trim.go):
//   system    -> SystemMessage(text blocks joined by "\n")
//   assistant -> AIMessage(text blocks joined by "\n", tool_calls from the
//                tool_use blocks); thinking is not part of the content
//   user      -> one ToolMessage per tool_result block, and one
//                HumanMessage per run of other blocks (texts joined by "\n")
// Each LangChain message is a unit "i.k": message i, its k-th unit.
//
// The token counter is Python's count_tokens_approximately
// (langchain_core/messages/utils.py, langchain-core 1.x), the one the
// policy models: per message ceil(chars / 4) + 3, where chars counts code
// points of the content, the role ("user", "assistant", "tool", "system"),
// the name, a ToolMessage's tool_call_id and, for an AIMessage with string
// content, repr(tool_calls). repr is Python's, ported below.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { lcUnits } from "./lcview.mjs";

const require = createRequire(process.cwd() + "/");
const { trimMessages, SystemMessage, AIMessage, HumanMessage, ToolMessage } = require("@langchain/core/messages");
const version = JSON.parse(readFileSync("node_modules/@langchain/core/package.json", "utf8")).version;

// --- Python's repr, for the JSON values tool arguments hold.
const nonPrintable = /[\p{C}\p{Z}]/u;
function reprStr(s) {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const c = ch.codePointAt(0);
    if (ch === "\\") out += "\\\\";
    else if (ch === quote) out += "\\" + ch;
    else if (ch === "\t") out += "\\t";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (c < 0x20 || c === 0x7f) out += "\\x" + c.toString(16).padStart(2, "0");
    else if (c < 0x7f || ch === " ") out += ch;
    else if (nonPrintable.test(ch)) {
      if (c <= 0xff) out += "\\x" + c.toString(16).padStart(2, "0");
      else if (c <= 0xffff) out += "\\u" + c.toString(16).padStart(4, "0");
      else out += "\\U" + c.toString(16).padStart(8, "0");
    } else out += ch;
  }
  return out + quote;
}
function reprFloat(v) {
  if (!isFinite(v)) return v > 0 ? "inf" : v < 0 ? "-inf" : "nan";
  const [mant, e] = v.toExponential().split("e");
  const exp = Number(e);
  if (exp < -4 || exp >= 16) {
    const m = mant.includes(".") ? mant : mant;
    return m + "e" + (exp < 0 ? "-" : "+") + String(Math.abs(exp)).padStart(2, "0");
  }
  const digits = mant.replace("-", "").replace(".", "");
  const neg = v < 0 ? "-" : "";
  let s;
  if (exp >= 0) {
    const int = digits.slice(0, exp + 1).padEnd(exp + 1, "0");
    const frac = digits.slice(exp + 1);
    s = int + "." + (frac || "0");
  } else {
    s = "0." + "0".repeat(-exp - 1) + digits;
  }
  return neg + s;
}
function repr(v) {
  if (v === null) return "None";
  if (v === true) return "True";
  if (v === false) return "False";
  if (typeof v === "number") return Number.isInteger(v) && !Object.is(v, -0) && Math.abs(v) < 1e21 ? String(v) : reprFloat(v);
  if (typeof v === "string") return reprStr(v);
  if (Array.isArray(v)) return "[" + v.map(repr).join(", ") + "]";
  return "{" + Object.entries(v).map(([k, x]) => reprStr(k) + ": " + repr(x)).join(", ") + "}";
}

const cp = (s) => [...(s ?? "")].length;
const role = (m) => ({ human: "user", ai: "assistant", tool: "tool", system: "system" })[m.getType()];

function approxTokens(m) {
  let chars = typeof m.content === "string" ? cp(m.content) : cp(repr(m.content));
  if (m.getType() === "ai" && typeof m.content === "string" && m.tool_calls?.length) {
    chars += cp(repr(m.tool_calls.map((tc) => ({ name: tc.name, args: tc.args, id: tc.id, type: "tool_call" }))));
  }
  if (m.getType() === "tool") chars += cp(m.tool_call_id);
  chars += cp(role(m));
  if (m.name) chars += cp(m.name);
  return Math.ceil(chars / 4) + 3;
}
// trimMessages counts every prefix of the list: remember each message's
// count by its id and content (a message cut to fit is counted anew).
const memo = new Map();
function cached(m) {
  const key = `${m.id}\u0000${typeof m.content === "string" ? m.content.length : "list"}`;
  let n = memo.get(key);
  if (n === undefined) memo.set(key, (n = approxTokens(m)));
  return n;
}
const counter = (msgs) => msgs.reduce((n, m) => n + cached(m), 0);

// --- The LangChain view of a history: lcview.mjs.
const units = (h) => lcUnits(h, { SystemMessage, AIMessage, HumanMessage, ToolMessage });

// encode writes what trimMessages kept of msgs compactly: [system, from,
// cut] says it kept the leading system message (1) or not (0), msgs[from:]
// whole, and msgs[from-1] cut to cut code points (-1: none); [-1] is the
// [undefined] LangChain JS returns when the system message alone is over
// the budget, and [-2] the system message cut to fit, which LangChain JS
// does with includeSystem when it alone is over the budget (Python keeps
// it whole). Anything else is written as the list of ids kept.
function encode(msgs, kept, includeSystem) {
  if (kept.some((m) => m === undefined)) return [-1];
  if (includeSystem && kept.length && msgs.length && msgs[0].getType() === "system" && kept[0].id === msgs[0].id && kept[0].content !== msgs[0].content) return [-2];
  let i = 0;
  let sys = 0;
  if (kept.length && msgs.length && kept[0].getType() === "system" && kept[0].id === msgs[0].id && kept[0].content === msgs[0].content) {
    sys = 1;
    i = 1;
  }
  const rest = kept.slice(i);
  const from = msgs.length - rest.length;
  let cut = -1;
  let ok = rest.every((m, k) => m.id === msgs[from + k].id);
  if (ok && rest.length && rest[0].content !== msgs[from].content) {
    cut = cp(rest[0].content);
    ok = rest.slice(1).every((m, k) => m.content === msgs[from + 1 + k].content);
    return ok ? [sys, from + 1, cut] : kept.map((m) => m.id);
  }
  ok = ok && rest.every((m, k) => m.content === msgs[from + k].content);
  return ok ? [sys, from, cut] : kept.map((m) => m.id);
}

const settings = [];
for (const maxTokens of [2000, 8000, 30000])
  for (const includeSystem of [false, true])
    for (const startOn of ["", "human"])
      for (const allowPartial of [false, true]) settings.push({ maxTokens, includeSystem, startOn, allowPartial });

const { histories } = JSON.parse(readFileSync(process.argv[2], "utf8"));
const out = { "@langchain/core": version, counter: "count_tokens_approximately (langchain-core, Python), ported", settings, results: [] };
for (const s of settings) {
  const perSetting = [];
  for (const h of histories) {
    memo.clear();
    const all = units(h);
    const calls = [];
    let n = 0;
    for (const c of h.calls) {
      while (n < all.length && all[n].msg < c) n++;
      const msgs = all.slice(0, n).map((u) => u.m);
      const opts = { maxTokens: s.maxTokens, tokenCounter: counter, strategy: "last", includeSystem: s.includeSystem, allowPartial: s.allowPartial };
      if (s.startOn) opts.startOn = s.startOn;
      const kept = await trimMessages(msgs, opts);
      calls.push(encode(msgs, kept, s.includeSystem));
    }
    perSetting.push({ source: h.source, calls });
  }
  out.results.push(perSetting);
}
console.log(JSON.stringify(out));
