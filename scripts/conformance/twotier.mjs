// Runs the ralph loop's summarizeMessages (the real code:
// packages/ralph/src/loop.ts of the public repository
// vercel-labs/ralph-gpu, which is not published on npm) on every call of
// every history export wrote, and prints what each call sends: the golden
// window/testdata/conformance/twotier.json.
//
//	node twotier.mjs MODULE COMMIT histories.json
//
// MODULE is a module node can import that exports loop.ts's
// summarizeMessages and estimateTokens, with the rest of what they use
// from loop.ts (the thresholds, the AI summary's cache, createAISummary,
// createHeuristicSummary) as they are there: loop.ts keeps them private
// and imports the loop's dependencies, so the module is those lines with
// an export line, a loopLogger that prints nothing, and generateText from
// the AI SDK (package ai) installed beside this script. COMMIT is the
// repository commit they were taken from, which the golden records. This
// script neither fetches nor builds anything.
//
// The loop is runLoop's: messages keeps every message, and before each
// call summarizeMessages(messages, systemPrompt, model) gives what is
// sent. A leading system message is the system prompt (its text); every
// other message is {role, content}, content the text of a message that is
// one text block, else its content blocks as export wrote them (the
// Anthropic shape ctxbench measures). The model is the AI SDK's
// MockLanguageModelV3 answering "summary", so an AI summary's place and
// prompt are compared (the prompt by its SHA-256), not its words; a
// heuristic summary is made by the real code and compared whole.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { runs } from "./runs.mjs";

const [modulePath, commit, historiesPath] = process.argv.slice(2);
if (!modulePath || !commit || !historiesPath) {
  console.error("usage: node twotier.mjs MODULE COMMIT histories.json");
  process.exit(2);
}
// The AI SDK warns at each AI summary that its prompt holds a system
// message (createAISummary's own); that warning is left out.
const warn = console.warn;
console.warn = (...args) => {
  if (!String(args[0]).startsWith("AI SDK Warning: System messages")) warn(...args);
};
const { summarizeMessages, estimateTokens } = await import(pathToFileURL(modulePath).href);
const require = createRequire(process.cwd() + "/");
const { MockLanguageModelV3 } = require("ai/test");
const aiVersion = JSON.parse(readFileSync("node_modules/ai/package.json", "utf8")).version;
const { histories } = JSON.parse(readFileSync(historiesPath, "utf8"));

// The prompt of the last AI summary: its system and user parts.
let prompt = null;
const model = new MockLanguageModelV3({
  doGenerate: async (options) => {
    const part = (role) => {
      const m = options.prompt.find((p) => p.role === role);
      return typeof m.content === "string" ? m.content : m.content.map((c) => c.text).join("");
    };
    prompt = { system: part("system"), user: part("user") };
    return {
    content: [{ type: "text", text: "summary" }],
    finishReason: { unified: "stop", raw: "stop" },
    usage: {
      inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 1, text: 1, reasoning: 0 },
    },
    warnings: [],
    };
  },
});
const sha256 = (s) => createHash("sha256").update(s, "utf8").digest("hex");

const single = (m) => m.blocks.length === 1 && m.blocks[0].type === "text";

const results = [];
for (const h of histories) {
  const head = h.messages.length > 0 && h.messages[0].role === "system" ? 1 : 0;
  const systemPrompt = head ? h.messages[0].blocks.filter((b) => b.type === "text").map((b) => b.text ?? "").join("") : "";
  const msgs = h.messages.map((m) => ({ role: m.role, content: single(m) ? m.blocks[0].text ?? "" : m.content }));
  const idOf = new Map(msgs.map((m, i) => [m, `m${i}`]));
  const messages = [];
  let next = head, summaries = 0;
  const calls = [];
  for (const i of h.calls) {
    for (let j = next; j < i; j++) messages.push(msgs[j]);
    const tokens = messages.reduce((n, m) => n + estimateTokens(JSON.stringify(m)), estimateTokens(systemPrompt));
    const sent = await summarizeMessages(messages, systemPrompt, model);
    const call = { sent: head ? ["m0"] : [], tokens };
    sent.forEach((m, k) => {
      if (idOf.has(m)) {
        call.sent.push(idOf.get(m));
      } else if (k === 0 && typeof m.content === "string" && m.content.startsWith("## Earlier Conversation Summary")) {
        call.sent.push(`s${++summaries}`);
        if (m.content.startsWith("## Earlier Conversation Summary (Heuristic)")) call.heuristic = m.content;
        else {
          // The AI summary's prompt, by its hash: 50,000 characters and
          // more a call.
          call.ai = prompt ? { system: sha256(prompt.system), user: sha256(prompt.user), length: prompt.user.length } : { cached: true };
          prompt = null;
        }
      } else {
        // A recent message cut: the one at its place among the last.
        const orig = messages[messages.length - sent.length + k];
        call.sent.push(`${idOf.get(orig)}~${m.content.length}`);
      }
    });
    call.sent = runs(call.sent);
    calls.push(call);
    messages.push(msgs[i]);
    next = i + 1;
  }
  results.push({ source: h.source, calls });
}

process.stdout.write(JSON.stringify({
  ralph: { repository: "vercel-labs/ralph-gpu", commit, file: "packages/ralph/src/loop.ts", ai: aiVersion },
  results,
}) + "\n");
