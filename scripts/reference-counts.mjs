// Counts each text of a JSON array with OpenAI's tiktoken (npm "tiktoken":
// its Rust core compiled to WASM, the reference implementation) and prints
// {"tiktoken": version, "cl100k_base": [...], "o200k_base": [...]}.
// Special-token text is counted as ordinary text (disallowed_special=()).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(process.cwd() + "/");
const { get_encoding } = require("tiktoken");
const version = JSON.parse(readFileSync("node_modules/tiktoken/package.json", "utf8")).version;

const texts = JSON.parse(readFileSync(process.argv[2], "utf8"));
const out = { tiktoken: version };
for (const name of ["cl100k_base", "o200k_base"]) {
  const enc = get_encoding(name);
  out[name] = texts.map((t) => enc.encode(t, [], []).length);
  enc.free();
}
console.log(JSON.stringify(out));
