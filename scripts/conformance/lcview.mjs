// The LangChain view of a history, which langchain.mjs and
// langchainmw.mjs run LangChain's code on (window/internal/langchain/trim.go builds the
// same one): a system message is a SystemMessage of its texts joined by
// "\n"; an assistant message an AIMessage of its texts, with its tool_use
// blocks as tool_calls; a user message one ToolMessage per tool_result
// block and one HumanMessage per run of other blocks. Each LangChain
// message is a unit "i.k": message i, its k-th unit. The classes are
// @langchain/core's, passed in (the caller resolves the package).
export function lcUnits(h, { SystemMessage, AIMessage, HumanMessage, ToolMessage }) {
  const out = [];
  h.messages.forEach((m, i) => {
    let k = 0;
    const id = () => `${i}.${k++}`;
    const texts = (bs) => bs.filter((b) => b.type === "text").map((b) => b.text).join("\n");
    const extra = m.name ? { name: m.name } : {};
    if (m.role === "system") out.push({ msg: i, m: new SystemMessage({ content: texts(m.blocks), id: id(), ...extra }) });
    else if (m.role === "assistant") {
      const calls = m.blocks.filter((b) => b.type === "tool_use").map((b) => ({ name: b.name, args: b.input === undefined ? {} : b.input, id: b.id, type: "tool_call" }));
      out.push({ msg: i, m: new AIMessage({ content: texts(m.blocks), tool_calls: calls, id: id(), ...extra }) });
    } else {
      let run = [];
      const flush = () => {
        if (run.length) out.push({ msg: i, m: new HumanMessage({ content: texts(run), id: id(), ...extra }) });
        run = [];
      };
      for (const b of m.blocks) {
        if (b.type === "tool_result") {
          flush();
          out.push({ msg: i, m: new ToolMessage({ content: b.text ?? "", tool_call_id: b.id, id: id() }) });
        } else run.push(b);
      }
      flush();
    }
  });
  return out;
}

