// Compile a Kaitai Struct spec with the npm kaitai-struct-compiler (a JavaScript build of the
// reference compiler: no Java needed).
//   node scripts/ksc.js SPEC.json LANGUAGE OUTDIR
// SPEC.json: the .ksy as JSON (the compiler takes a parsed spec; tests/corpus/test_ksy.py converts).
// KSC_MODULE: where the compiler is (default: .work/node/node_modules/kaitai-struct-compiler).
"use strict";
const fs = require("fs");
const path = require("path");

const [spec, lang, out] = process.argv.slice(2);
if (!spec || !lang || !out) {
  console.error("usage: node scripts/ksc.js SPEC.json LANGUAGE OUTDIR");
  process.exit(2);
}
const where = process.env.KSC_MODULE ||
  path.join(__dirname, "..", ".work", "node", "node_modules", "kaitai-struct-compiler");
const compiler = require(where);
compiler.compile(lang, JSON.parse(fs.readFileSync(spec, "utf8")), null, false).then((files) => {
  for (const [name, text] of Object.entries(files)) {
    fs.writeFileSync(path.join(out, name), text);
  }
  console.log(Object.keys(files).join(" "));
}).catch((e) => {
  console.error(String((e && e.stack) || e));
  process.exit(1);
});
