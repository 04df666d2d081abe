// Runs Cline's rule-based compaction (@cline/core, the real code:
// createContextCompactionPrepareTurn with strategy "basic", wrapped in
// createCompactionStateAwarePrepareTurn as a Cline session wraps it) on
// every call of every history export wrote, for each setting, and
// prints what each call sends: the golden
// window/testdata/conformance/cline.json.
//
// The loop is a Cline session's: the canonical history grows by the
// transcript's messages; before each call the prepare-turn callback
// gets it (messages and apiMessages alike), the system prompt and no
// tools; a compaction it returns is the session's compaction state,
// which projects the canonical history from then on (the compacted
// messages, then those added since) and which the next compaction
// starts from. previousRequestInputTokens is the previous call's
// billed prompt (input, cache reads and writes, as the AI SDK's
// inputTokens counts them) when that call is of the same run (no typed
// user message between) and the session has not compacted yet; else
// none. The model's info is the setting's.
//
// A history becomes Cline messages as window/internal/cline/cline.go reads it: a
// leading system message is the system prompt (the texts of the
// leading system messages, joined by a blank line); every other message
// is {id: "m<i>", role, content}, content its blocks as export wrote
// them (the Anthropic shape), a tool or later system message a user
// message.
//
// Each call is what each sent message holds: "m<i>" a message whose
// role and content are those of transcript message i; else
// "m<i>{b,...}" (i its id), each block "m<j>.<k>" when it is block k of
// message j as it was, "t:<h>" a text block whose text is none of them
// (h: the first 8 hex digits of its SHA-256), "r:<h>" a tool result cut
// (h of its content), "x:<type>" any other; consecutive whole ones as
// "m<i>-m<j>". The golden holds the first 16 hex digits of the SHA-256
// of those entries joined by commas, their number and the last three.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { runs } from "./runs.mjs";

// @cline/core is an ES module only: imported by its path under the
// directory make conformance installed it in.
const core = await import(pathToFileURL(join(process.cwd(), "node_modules/@cline/core/dist/index.js")).href);
const { createContextCompactionPrepareTurn, createCompactionStateAwarePrepareTurn } = core;
const version = JSON.parse(readFileSync("node_modules/@cline/core/package.json", "utf8")).version;
const { histories } = JSON.parse(readFileSync(process.argv[2], "utf8"));

const settings = [
  { contextWindow: 200000 },
  { contextWindow: 64000 },
  { contextWindow: 32000, maxTokens: 8192 },
  { maxInputTokens: 12000 },
];

const sha8 = (s) => createHash("sha256").update(s, "utf8").digest("hex").slice(0, 8);

function clineMessages(h) {
  let lead = 0;
  while (lead < h.messages.length && h.messages[lead].role === "system") lead++;
  const systemPrompt = h.messages
    .slice(0, lead)
    .map((m) => m.blocks.filter((b) => b.type === "text").map((b) => b.text ?? "").join(""))
    .join("\n\n");
  const msgs = h.messages.map((m, i) =>
    i < lead ? null : { id: `m${i}`, role: m.role === "assistant" ? "assistant" : "user", content: structuredClone(m.content) },
  );
  return { systemPrompt, msgs };
}

function encoder(msgs) {
  const whole = new Map(); // JSON of role and content → i
  const blocks = new Map(); // JSON of a block → "m<j>.<k>"
  msgs.forEach((m, i) => {
    if (!m) return;
    const key = JSON.stringify([m.role, m.content]);
    if (!whole.has(key)) whole.set(key, i);
    m.content.forEach((b, k) => {
      const bk = JSON.stringify(b);
      if (!blocks.has(bk)) blocks.set(bk, `m${i}.${k}`);
    });
  });
  return (sent) => {
    const ids = sent.map((m) => {
      const i = whole.get(JSON.stringify([m.role, m.content]));
      if (i !== undefined && m.id === `m${i}`) return `m${i}`;
      const parts = (typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content).map((b) => {
        const orig = blocks.get(JSON.stringify(b));
        if (orig) return orig;
        if (b.type === "text") return `t:${sha8(b.text)}`;
        if (b.type === "tool_result") return `r:${sha8(typeof b.content === "string" ? b.content : JSON.stringify(b.content))}`;
        return `x:${b.type}`;
      });
      return `${m.id}{${parts.join(",")}}`;
    });
    return runs(ids);
  };
}

// typedUser reports whether a history message is a typed user message:
// a user message with a block that is not a tool result.
const typedUser = (m) => m.role !== "assistant" && m.blocks.some((b) => b.type !== "tool_result");

const results = [];
for (const info of settings) {
  const perSetting = [];
  for (const h of histories) {
    const { systemPrompt, msgs } = clineMessages(h);
    const encode = encoder(msgs);
    let state;
    const prepare = createCompactionStateAwarePrepareTurn({
      compact: createContextCompactionPrepareTurn({
        providerId: "anthropic",
        modelId: h.model || "unknown",
        compaction: { enabled: true, strategy: "basic" },
      }),
      getState: () => state,
      saveState: (s) => {
        state = s;
      },
    });
    const calls = [];
    for (let c = 0; c < h.calls.length; c++) {
      const canonical = msgs.slice(0, h.calls[c]).filter(Boolean);
      let previous;
      if (c > 0 && state === undefined && (h.prompts[c - 1] ?? 0) > 0) {
        const between = h.messages.slice(h.calls[c - 1] + 1, h.calls[c]);
        if (!between.some(typedUser)) previous = h.prompts[c - 1];
      }
      const result = await prepare({
        agentId: "agent",
        conversationId: "conversation",
        parentAgentId: null,
        iteration: c + 1,
        messages: canonical,
        apiMessages: canonical,
        abortSignal: new AbortController().signal,
        systemPrompt,
        tools: [],
        model: { id: h.model || "unknown", provider: "anthropic", info },
        previousRequestInputTokens: previous,
      });
      const sent = encode(result?.messages ?? canonical);
      calls.push({ sha256: createHash("sha256").update(sent.join(",")).digest("hex").slice(0, 16), entries: sent.length, tail: sent.slice(-3) });
    }
    perSetting.push({ source: h.source, calls });
  }
  results.push(perSetting);
}
process.stdout.write(JSON.stringify({ "@cline/core": version, settings, results }) + "\n");
