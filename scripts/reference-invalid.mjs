// Decodes each base64 byte string of a JSON array as JavaScript does
// (TextDecoder: one U+FFFD per maximal ill-formed subsequence, the WHATWG
// and Unicode rule, as Python's decode(errors="replace")), and prints
// {"tiktoken": version, "cl100k_base": [...], "o200k_base": [...],
// "utf16": [...]}: OpenAI's tiktoken counts of the decoded texts and their
// String.length, which chars/4 divides.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(process.cwd() + "/");
const { get_encoding } = require("tiktoken");
const version = JSON.parse(readFileSync("node_modules/tiktoken/package.json", "utf8")).version;

const texts = JSON.parse(readFileSync(process.argv[2], "utf8")).map((b) => new TextDecoder("utf-8").decode(Buffer.from(b, "base64")));
const out = { tiktoken: version, utf16: texts.map((t) => t.length) };
for (const name of ["cl100k_base", "o200k_base"]) {
  const enc = get_encoding(name);
  out[name] = texts.map((t) => enc.encode(t, [], []).length);
  enc.free();
}
console.log(JSON.stringify(out));
