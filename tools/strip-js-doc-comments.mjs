/**
 * `npm run build`'s last step on the compiled JavaScript: removes the doc comments (`/** ... *\/`)
 * from dist/**\/*.js, which the .d.ts files carry for editors, so the package ships them once.
 * TypeScript's parser finds them (never a `/**` inside a string, template or regex), and each is
 * replaced by as many line breaks as it held, so a stack trace's lines still match the source's. Other comments
 * stay: bundlers read `/* webpackIgnore: true *\/` and its kin.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";

/** The doc comments of a module's text, as [start, end) ranges, in order and without overlap. */
function docCommentRanges(text) {
  const file = ts.createSourceFile("module.js", text, ts.ScriptTarget.Latest, false, ts.ScriptKind.JS);
  const seen = new Map();
  const visit = (node) => {
    for (const range of ts.getLeadingCommentRanges(text, node.pos) ?? [])
      if (
        range.kind === ts.SyntaxKind.MultiLineCommentTrivia &&
        text.startsWith("/**", range.pos) &&
        !text.startsWith("/**/", range.pos)
      )
        seen.set(range.pos, range.end);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return [...seen].sort((a, b) => a[0] - b[0]);
}

function strip(text) {
  let out = "";
  let at = 0;
  for (const [start, end] of docCommentRanges(text)) {
    if (start < at) continue;
    out += text.slice(at, start) + "\n".repeat(text.slice(start, end).split("\n").length - 1);
    at = end;
  }
  return out + text.slice(at);
}

const walk = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? walk(join(dir, entry.name)) : entry.name.endsWith(".js") ? [join(dir, entry.name)] : [],
  );
const root = process.argv[2] ?? "dist";
let saved = 0;
for (const file of walk(root)) {
  if (file.includes(`${root}/studio/page/`)) continue; // the page is Vite's bundle, already minified
  const text = readFileSync(file, "utf8");
  const stripped = strip(text);
  saved += text.length - stripped.length;
  if (stripped !== text) writeFileSync(file, stripped);
}
console.log(`strip-js-doc-comments: ${Math.round(saved / 1024)} KiB of doc comments removed from ${root}/**/*.js`);
