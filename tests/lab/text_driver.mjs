// For tests/lab/test_text_parity.py: the lab's tokenizer (nblab/js/text.js) on documents.
//   node tests/lab/text_driver.mjs LAB_DATA.json DOCS.json   → JSON on stdout:
//   { terms: [[indices], [values]] per document, tokens: [[...]] per document of DOCS.analyze }
// DOCS.json: { transform: [documents], analyze: [documents] }
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const { vectorizer } = await import(path.join(here, "..", "..", "nblab", "js", "text.js"));
const data = JSON.parse(readFileSync(process.argv[2], "utf8"));
const docs = JSON.parse(readFileSync(process.argv[3], "utf8"));
const vec = vectorizer(data);
const terms = docs.transform.map((d) => {
  const t = vec.terms(d);
  return [Array.from(t.index), Array.from(t.value)];
});
const tokens = docs.analyze.map((d) => vec.analyze(d));
process.stdout.write(JSON.stringify({ terms, tokens }));
