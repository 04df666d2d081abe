// Runs AIDF's ConversationWindow (the real code:
// packages/cli/src/core/providers/conversation-window.ts of the public
// repository rubenmavarezb/aidf, which is not published on npm) on every
// call of every history export wrote, for each setting, and prints what
// each call sends: the golden window/testdata/conformance/aidf.json.
//
//	node aidf.mjs WINDOW COMMIT histories.json
//
// WINDOW is that file as a module node can import: node 22.6 or later
// imports the .ts itself (--experimental-strip-types); an older node
// needs its type annotations stripped first. COMMIT is the repository
// commit it was taken from, which the golden records. This script
// neither fetches nor builds anything.
//
// The loop is AIDF's API providers' (anthropic-api.ts, openai-api.ts):
// the trimmed array replaces the conversation, so each call trims what
// the previous one sent plus the messages since — as ctxbench's replay
// gives a policy its history. A transcript message is one message of the
// window, its blocks Anthropic content blocks: text {type, text},
// thinking {type, thinking}, tool_use {type, id, name, input},
// tool_result {type, tool_use_id, content: the text}; a system message is
// a message like the others (the head AIDF preserves). The summarize
// callback returns a fixed text, so a summary's place is compared, not
// its words.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { runs } from "./runs.mjs";

const [windowPath, commit, historiesPath] = process.argv.slice(2);
if (!windowPath || !commit || !historiesPath) {
  console.error("usage: node aidf.mjs WINDOW COMMIT histories.json");
  process.exit(2);
}
const { ConversationWindow } = await import(pathToFileURL(windowPath).href);
const { histories } = JSON.parse(readFileSync(historiesPath, "utf8"));

// Each setting is the policy's parameters (AIDF's own names); the
// summary is made at most once every 10 evicted messages
// (MIN_EVICTED_FOR_SUMMARY), ctxbench's summarize_every default.
// preserve_last_n 0 is not among them: the code's tail is then the whole
// conversation, which grows without bound, and ctxbench refuses it.
const settings = [
  { max_messages: 100, preserve_first_n: 1, preserve_last_n: 20 },
  { max_messages: 30, preserve_first_n: 1, preserve_last_n: 20 },
  { max_messages: 10, preserve_first_n: 1, preserve_last_n: 20 },
  { max_messages: 8, preserve_first_n: 3, preserve_last_n: 5 },
  { max_messages: 6, preserve_first_n: 0, preserve_last_n: 3 },
  { max_messages: 12, preserve_first_n: 2, preserve_last_n: 4, summarize_on_trim: true },
  { max_messages: 20, preserve_first_n: 1, preserve_last_n: 8, summarize_on_trim: true },
  { max_messages: 40, preserve_first_n: 2, preserve_last_n: 10, summarize_on_trim: true },
  { max_messages: 10, preserve_first_n: 1, preserve_last_n: 20, summarize_on_trim: true },
];

function content(blocks) {
  return blocks.map((b) => {
    switch (b.type) {
      case "text":
        return { type: "text", text: b.text ?? "" };
      case "thinking":
        return { type: "thinking", thinking: b.text ?? "" };
      case "tool_use":
        return { type: "tool_use", id: b.id ?? "", name: b.name ?? "", input: b.input ?? {} };
      case "tool_result":
        return { type: "tool_result", tool_use_id: b.id ?? "", content: b.text ?? "" };
      default:
        return { type: b.type };
    }
  });
}

const results = [];
for (const s of settings) {
  const perSetting = [];
  for (const h of histories) {
    const msgs = h.messages.map((m) => ({ role: m.role, content: content(m.blocks) }));
    const idOf = new Map(msgs.map((m, i) => [m, `m${i}`]));
    let summaries = 0;
    const window = new ConversationWindow(s, async () => "summary");
    const calls = [];
    let hist = [];
    let next = 0;
    for (const i of h.calls) {
      hist = hist.concat(msgs.slice(next, i));
      const r = await window.trim(hist);
      for (const m of r.trimmed) {
        if (!idOf.has(m)) idOf.set(m, `s${++summaries}`);
      }
      calls.push({ sent: runs(r.trimmed.map((m) => idOf.get(m))), tokens: r.metrics.estimatedTokens });
      hist = r.trimmed.concat([msgs[i]]);
      next = i + 1;
    }
    perSetting.push({ source: h.source, calls });
  }
  results.push(perSetting);
}

process.stdout.write(JSON.stringify({
  aidf: { repository: "rubenmavarezb/aidf", commit, file: "packages/cli/src/core/providers/conversation-window.ts" },
  settings,
  results,
}) + "\n");
