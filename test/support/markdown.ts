/**
 * Reading the docs (README.md and docs/*.md) for the doc tests: their code blocks, with the
 * convention every doc follows, and their links and headings.
 *
 * ```ts          a complete module: it must compile against the package
 * ```ts run      the same, and the suite runs it (against its dev server and a scripted model)
 * ```ts partial  a deliberate fragment: not compiled
 * ```ts next     a Next.js app's file, named by its first line (`// app/api/chat/route.ts`): compiled
 *                by `next build` in the app test/chat-guide.test.ts makes of docs/chat-ui.md
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** The docs, relative to the repository root. */
export function docFiles(): string[] {
  return [
    "README.md",
    ...readdirSync("docs")
      .filter((name) => name.endsWith(".md"))
      .sort()
      .map((name) => join("docs", name)),
  ];
}

/** A fenced code block of a doc. */
export interface CodeBlock {
  doc: string;
  /** The line of the opening fence (1-based). */
  line: number;
  /** The fence's language (`ts`, `sh`, ...). */
  lang: string;
  /** The words after the language (`run`, `partial`). */
  flags: string[];
  code: string;
}

/** Every fenced code block of a doc. */
export function codeBlocks(doc: string, text = readFileSync(doc, "utf8")): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,})\s*([\w-]*)\s*(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const [, indent, fence, lang, rest] = open;
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !lines[j]!.trimStart().startsWith(fence!)) body.push(lines[j++]!.slice(indent!.length));
    blocks.push({
      doc,
      line: i + 1,
      lang: lang!,
      flags: rest!.trim().split(/\s+/).filter(Boolean),
      code: body.join("\n") + "\n",
    });
    i = j;
  }
  return blocks;
}

/** TypeScript blocks: `ts`/`typescript`, with `partial` ones marked as such. */
export function typeScriptBlocks(doc: string): CodeBlock[] {
  return codeBlocks(doc).filter((block) => block.lang === "ts" || block.lang === "typescript");
}

/** A Markdown link outside code: `[text](target)`. */
export interface DocLink {
  doc: string;
  line: number;
  target: string;
}

/** The text of a doc with its code blocks blanked (lines kept). */
function withoutBlocks(text: string): string {
  return text.replace(/^(\s*)(`{3,})[^\n]*\n[\s\S]*?^\s*\2[^\n]*$/gm, (block) => block.replace(/[^\n]/g, " "));
}

/** The text of a doc with its code blocks and inline code blanked (lines kept). */
function prose(text: string): string {
  return withoutBlocks(text).replace(/`[^`\n]*`/g, (code) => " ".repeat(code.length));
}

/** Every inline link of a doc. */
export function links(doc: string, text = readFileSync(doc, "utf8")): DocLink[] {
  const found: DocLink[] = [];
  prose(text)
    .split("\n")
    .forEach((line, i) => {
      for (const match of line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g))
        found.push({ doc, line: i + 1, target: match[1]! });
    });
  return found;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
export function headingSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/<[^>]+>/g, "")
    .replace(/[`*_~]/g, "")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[^\p{L}\p{N}\s-]/gu, "")
    .replace(/\s/g, "-");
}

/** The anchors of a doc's headings, as GitHub makes them (a repeated heading gets `-1`, `-2`, ...). */
export function anchors(doc: string, text = readFileSync(doc, "utf8")): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const line of withoutBlocks(text).split("\n")) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const slug = headingSlug(heading[1]!);
    const count = seen.get(slug) ?? 0;
    result.add(count === 0 ? slug : `${slug}-${count}`);
    seen.set(slug, count + 1);
  }
  return result;
}
