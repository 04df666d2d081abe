// Runs Gemini CLI's chat compression (@google/gemini-cli-core, the real
// code: ChatCompressionService.compress, GeminiChat's curated history) on
// every call of every history export wrote, and prints what each call
// does: the golden window/testdata/conformance/gemini.json.
//
// The loop is GeminiClient's: before each call, with the history up to the
// previous response, compress runs (hasFailedCompressionAttempt kept as
// tryCompressChat keeps it); a compressed or truncated history replaces
// the chat's; then the call's request (the messages since) is appended
// and the curated history is what is sent. The last prompt's token count,
// which Gemini CLI takes from the API's usage, is estimateTokenCountSync
// of the contents sent at the previous call (the transcript holds neither
// the system instruction nor the tool declarations).
//
// A history becomes Gemini contents as ctxbench's gemini-cli policy sees
// it (window/internal/gemini/view.go): system messages are the system instruction, not
// history; a user message is a user content of text parts and
// functionResponse parts {id, name, response: {output}}; an assistant
// message a model content of thought parts, text parts and functionCall
// parts {id, name, args}.
//
// One line of the package is changed in the copy this runs (the script
// says so on standard error): the inflation check no longer prepends the
// environment context (getInitialChatHistory), which the replayed
// histories do not hold either.
import { readFileSync, mkdirSync, rmSync } from "node:fs";

const root = process.cwd() + "/node_modules/@google/gemini-cli-core/";
const version = JSON.parse(readFileSync(root + "package.json", "utf8")).version;
const { ChatCompressionService } = await import(root + "dist/src/context/chatCompressionService.js");
const { GeminiChat } = await import(root + "dist/src/core/geminiChat.js");
const { estimateTokenCountSync } = await import(root + "dist/src/utils/tokenCalculation.js");

// The directory truncated tool outputs are saved to: the path ctxbench
// writes into the outputs it truncates.
export const TEMP_DIR = "/tmp/ctxbench-gemini-cli";
const MODEL = "gemini-2.5-pro"; // tokenLimit 1,048,576

function fakeConfig(threshold, llm) {
  let truncations = 0;
  const base = {
    getProjectRoot: () => TEMP_DIR,
    getSessionId: () => "conformance",
    getActiveModel: () => MODEL,
    getModel: () => MODEL,
    isContextManagementEnabled: () => false,
    getHookSystem: () => undefined,
    getCompressionThreshold: async () => threshold,
    getNextCompressionTruncationId: () => ++truncations,
    storage: { getProjectTempDir: () => TEMP_DIR },
    // Config.getTruncateToolOutputThreshold: min(4 × (tokenLimit − the
    // telemetry's last prompt count, 0 here), 40,000).
    getTruncateToolOutputThreshold: () => 40_000,
    getBaseLlmClient: () => llm,
    getContentGenerator: () => ({}),
  };
  const config = new Proxy(base, {
    get(t, k) {
      if (k === "config") return config;
      if (k in t) return t[k];
      if (k === "then" || typeof k === "symbol") return undefined;
      return () => undefined;
    },
  });
  return config;
}

// Scripted model: every summary and verification call answers text.
function scriptedLLM(text) {
  return { generateContent: async () => ({ candidates: [{ content: { parts: [{ text }] } }] }) };
}

// contentOf converts message i; partMsg remembers each part's message.
function contentOf(h, i, partMsg, names) {
  const m = h.messages[i];
  const parts = [];
  for (const b of m.blocks) {
    let p;
    // An empty text is not a part: Gemini returns none.
    if (m.role === "assistant") {
      if (b.type === "thinking") p = { text: b.text ?? "", thought: true };
      else if (b.type === "text" && b.text) p = { text: b.text };
      else if (b.type === "tool_use") p = { functionCall: { id: b.id, name: b.name, args: b.input === undefined ? {} : b.input } };
    } else {
      if (b.type === "text" && b.text) p = { text: b.text };
      else if (b.type === "tool_result") p = { functionResponse: { id: b.id, name: names.get(b.id) ?? "", response: { output: b.text ?? "" } } };
    }
    if (p) {
      partMsg.set(p, i);
      parts.push(p);
    }
  }
  return { role: m.role === "assistant" ? "model" : "user", parts };
}

// describe writes a content list: per content, its parts as "i" (parts of
// message i), "i~n" (a functionResponse of message i whose output was
// truncated to n UTF-16 units), "S" (the summary), "A" (the
// acknowledgement).
function describe(contents, h, partMsg, callMsg, respMsg, summary) {
  return contents.map((c) => {
    const toks = [];
    for (const p of c.parts ?? []) {
      let tok;
      if (partMsg.has(p)) tok = String(partMsg.get(p));
      else if (p.functionCall && callMsg.has(p.functionCall.id)) tok = String(callMsg.get(p.functionCall.id));
      else if (p.functionResponse && respMsg.has(p.functionResponse.id)) {
        const i = respMsg.get(p.functionResponse.id);
        const orig = h.messages[i].blocks.find((b) => b.type === "tool_result" && b.id === p.functionResponse.id);
        tok = p.functionResponse.response?.output === (orig?.text ?? "") ? String(i) : `${i}~${p.functionResponse.response.output.length}`;
      } else if (p.text === summary) tok = "S";
      else if (p.text === "Got it. Thanks for the additional context!") tok = "A";
      else tok = "?";
      if (!(toks.length && toks[toks.length - 1] === tok && !tok.includes("~"))) toks.push(tok);
    }
    return toks.join(" ");
  });
}

const snapshot = "<state_snapshot>\n" + "The agent's state: files read, edits made, tests run.\n".repeat(8) + "</state_snapshot>";
const settings = [
  { threshold: 0.00048828125, summary: snapshot }, // 512 tokens: compresses often
  { threshold: 0.00390625, summary: snapshot }, // 4,096 tokens
  { threshold: 0.0625, summary: snapshot }, // 65,536 tokens: the function-response budget acts
  // A summary longer than what it replaces: the compression inflates,
  // and Gemini CLI only truncates from then on.
  { threshold: 0.00390625, summary: "<state_snapshot>\n" + "x".repeat(400_000) + "\n</state_snapshot>" },
  { threshold: 0.0625, summary: "<state_snapshot>\n" + "x".repeat(1_000_000) + "\n</state_snapshot>" },
];

rmSync(TEMP_DIR, { recursive: true, force: true });
mkdirSync(TEMP_DIR, { recursive: true });
const { histories } = JSON.parse(readFileSync(process.argv[2], "utf8"));
const out = { "@google/gemini-cli-core": version, model: MODEL, tempDir: TEMP_DIR, settings: settings.map((s) => ({ threshold: s.threshold, summaryChars: s.summary.length })), summaries: settings.map((s) => s.summary), results: [] };
for (const s of settings) {
  const perSetting = [];
  for (const h of histories) {
    const config = fakeConfig(s.threshold, scriptedLLM(s.summary));
    const service = new ChatCompressionService();
    const partMsg = new WeakMap();
    const names = new Map(), callMsg = new Map(), respMsg = new Map();
    h.messages.forEach((m, i) => {
      for (const b of m.blocks) {
        if (b.type === "tool_use") { names.set(b.id, b.name); if (!callMsg.has(b.id)) callMsg.set(b.id, i); }
        if (b.type === "tool_result" && !respMsg.has(b.id)) respMsg.set(b.id, i);
      }
    });
    let history = []; // the chat's comprehensive history: {id, content}
    let failed = false, lastPrompt = 0, next = 0, seq = 0;
    const append = (from, to) => {
      for (let i = from; i < to; i++) {
        if (h.messages[i].role === "system") continue;
        history.push({ id: `h${seq++}`, content: contentOf(h, i, partMsg, names) });
      }
    };
    const calls = [];
    for (const c of h.calls) {
      // The previous response is in the history; the request is not yet.
      let prevEnd = next;
      if (next > 0) { append(next - 1, next); }
      const chat = new GeminiChat({ config }, "", [], history);
      chat.lastPromptTokenCount = lastPrompt;
      const { newHistory, info } = await service.compress(chat, "p", false, MODEL, config, failed);
      const status = info.compressionStatus;
      if (status === 2) failed = true;
      let changed = null;
      if ((status === 1 || status === 6) && newHistory) {
        history = newHistory.map((content) => ({ id: `h${seq++}`, content }));
        changed = describe(newHistory, h, partMsg, callMsg, respMsg, s.summary.trim());
      }
      append(prevEnd, c);
      next = c + 1;
      const sent = new GeminiChat({ config }, "", [], history).getHistory(true);
      lastPrompt = estimateTokenCountSync(sent.flatMap((x) => x.parts || []));
      calls.push(changed ? { status, history: changed, prompt: lastPrompt } : { status, prompt: lastPrompt });
    }
    perSetting.push({ source: h.source, calls });
  }
  out.results.push(perSetting);
}
// The measures, content by content, of each whole history as Gemini CLI
// holds it: JSON.stringify(content).length and estimateTokenCountSync of
// its parts; and of the whole list.
out.measures = [];
for (const h of histories) {
  const config = fakeConfig(0.5, scriptedLLM(""));
  const partMsg = new WeakMap(), names = new Map();
  h.messages.forEach((m) => m.blocks.forEach((b) => { if (b.type === "tool_use") names.set(b.id, b.name); }));
  const history = [];
  h.messages.forEach((m, i) => { if (m.role !== "system") history.push({ id: `h${i}`, content: contentOf(h, i, partMsg, names) }); });
  const curated = new GeminiChat({ config }, "", [], history).getHistory(true);
  out.measures.push({
    source: h.source,
    json: curated.map((c) => JSON.stringify(c).length),
    tokens: curated.map((c) => estimateTokenCountSync(c.parts || [])),
    total: estimateTokenCountSync(curated.flatMap((c) => c.parts || [])),
  });
}
rmSync(TEMP_DIR, { recursive: true, force: true });
console.log(JSON.stringify(out));
