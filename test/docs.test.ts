/**
 * Docs that cannot rot (issue 25): every TypeScript block of README.md and docs/*.md compiles
 * against the package (`durable-agent` and `durable-agent/testing` resolve to src/ through the
 * package's `durable-agent-source` condition), the runnable ones (```ts run) run against the
 * suite's dev server and a scripted model, and every relative link between the docs resolves,
 * #anchors included. The blocks are written to test-artifacts/doc-snippets/, a folder per doc;
 * a block whose first line names a file (`// agents.ts`) is written under that name, so another
 * block of the same doc can import it (`./agents.js`).
 *
 * A runnable block finds the servers where the library looks anyway: TEMPORAL_ADDRESS (and
 * TEMPORAL_TASK_QUEUE, a fresh one per block) and OPENAI_BASE_URL / OPENAI_API_KEY, set here to the
 * dev server and a scripted model that answers every request with text. A block that starts no
 * worker of its own gets one from the suite for the agents its sibling modules export.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, inject, it, vi } from "vitest";
import { SEARCH_ATTRIBUTES } from "../src/core/search-attributes.js";
import { Agent } from "../src/index.js";
import { startScriptedModel, type ScriptedModel } from "../src/testing/index.js";
import { connectHarness, taskQueue, testWorker, type Harness } from "./support/harness.js";
import { anchors, codeBlocks, docFiles, links, typeScriptBlocks, type CodeBlock } from "./support/markdown.js";

const OUT = "test-artifacts/doc-snippets";
/** The same blocks, importing the package's source by path: vitest runs them in this process, so they share its modules (and its worker's bundle). */
const RUN_OUT = "test-artifacts/doc-snippets-run";
const SOURCE = { "durable-agent": resolve("src/index.ts"), "durable-agent/testing": resolve("src/testing/index.ts") };
/** The guides, one per concept: each starts with its smallest working example, and at least one of its blocks runs. */
const GUIDES = [
  "README.md",
  "docs/agents-and-tools.md",
  "docs/tool-use-contract.md",
  "docs/evaluation.md",
  "docs/streaming.md",
  "docs/sessions-and-approvals.md",
  "docs/chat-ui.md",
  "docs/several-agents.md",
  "docs/temporal-system.md",
  "docs/mcp.md",
  "docs/models-and-errors.md",
  "docs/any-model.md",
  "docs/local-models.md",
  "docs/recorded-runs.md",
  "docs/operating-runs.md",
  "docs/studio.md",
  "docs/deploying.md",
  "docs/deployments.md",
  "docs/security.md",
  "docs/performance.md",
  "docs/architecture.md",
];
/**
 * The docs that are not guides, and why: reports of measurements and references of formats teach
 * no concept, so they need not start with an example (their blocks are still compiled, their links
 * still checked). Every doc is one or the other, so a new doc has to be placed. docs/performance.md
 * reports measurements too, but issue 25 names it a guide (the benchmark's tables and how to
 * reproduce them) and it starts with a runnable example, so it is checked as one.
 */
const NOT_GUIDES: Record<string, string> = {
  "docs/reliability.md": "a report: the soak's method, checker and a 10-minute run's figures",
  "docs/streaming-cost.md": "a report: what streaming costs per run, measured",
  "docs/capacity.md":
    "a report: per-chat figures measured by bench:capacity, and the fleet for 1M chats a day they project",
  "docs/eval-report-schema.md": "a reference: the eval report's JSON, field by field",
  "docs/memory.md":
    "a reference, for now: the memory stores, the scripted embedding server and `durable-agent memory`; it becomes a guide when ai.memory()'s runnable example leads it",
  "docs/cli.md": "a reference: the durable-agent command's options, commands and exit codes (no TypeScript to run)",
};
/** The README's most lines: a page that teaches, everything else in a guide (issue 25). */
const README_MAX_LINES = 200;

interface Snippet extends CodeBlock {
  /** Where it is type-checked, importing "durable-agent". */
  file: string;
  /** Where it runs, importing src/ by path. */
  runFile: string;
}

function writeSnippets(): Snippet[] {
  rmSync(OUT, { recursive: true, force: true });
  rmSync(RUN_OUT, { recursive: true, force: true });
  const snippets: Snippet[] = [];
  for (const doc of docFiles()) {
    const dir = join(OUT, basename(doc, ".md"));
    const used = new Set<string>();
    for (const block of typeScriptBlocks(doc)) {
      // A Next.js app's file (```ts next): `next build` compiles it, in test/chat-guide.test.ts.
      if (block.flags.includes("partial") || block.flags.includes("next")) continue;
      const named = /^\/\/\s*([\w.-]+)\.ts\b/.exec(block.code)?.[1];
      const name = named && !used.has(named) ? named : `block-${block.line}`;
      used.add(name);
      const file = join(dir, `${name}.ts`);
      const runFile = join(RUN_OUT, relative(OUT, file));
      mkdirSync(dirname(file), { recursive: true });
      mkdirSync(dirname(runFile), { recursive: true });
      writeFileSync(file, block.code);
      writeFileSync(
        runFile,
        block.code.replace(
          /from "(durable-agent(?:\/testing)?)"/g,
          (_, name: keyof typeof SOURCE) => `from ${JSON.stringify(SOURCE[name])}`,
        ),
      );
      snippets.push({ ...block, file, runFile });
    }
  }
  return snippets;
}

const snippets = writeSnippets();
const where = (s: CodeBlock) => `${s.doc}:${s.line}`;

describe("the README", () => {
  it("defines trip, re-prompt and backstop where it first uses them", () => {
    const prose = readFileSync("README.md", "utf8").replace(/\s+/g, " ");
    for (const [term, definition] of [
      ["backstop", /^backstops? \(checks in your code/],
      ["re-prompt", /^re-prompts? once: it sends the model one more message/],
      ["trip", /^trip \(one model call/],
    ] as const) {
      const first = prose.search(new RegExp(`\\b${term}`, "i"));
      expect(prose.slice(first), `the README's first "${term}"`).toMatch(definition);
    }
  });

  it(`stays a page: at most ${README_MAX_LINES} lines`, () => {
    const text = readFileSync("README.md", "utf8");
    const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
    expect(
      lines,
      `README.md has ${lines} lines; move what does not teach in a page to a guide in docs/`,
    ).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it("opens with the two commands: its first code block is ```sh with exactly two command lines, as .ci/fresh-path.sh reads them", () => {
    const first = codeBlocks("README.md")[0];
    expect(first?.lang).toBe("sh");
    // As .ci/fresh-path.sh: comments dropped, then empty lines.
    const commands = first!.code
      .split("\n")
      .map((line) => line.replace(/ *#.*$/, ""))
      .filter((line) => line !== "");
    expect(commands).toEqual(["npm install && npm start", "npm test"]);
  });
});

describe("the docs' TypeScript blocks", () => {
  it("follow the convention: ```ts (compiles), ```ts run (compiles and runs), ```ts partial (a fragment), ```ts next (a Next.js app's file)", () => {
    const odd = docFiles().flatMap((doc) =>
      typeScriptBlocks(doc)
        .filter((b) => b.flags.some((f) => f !== "run" && f !== "partial" && f !== "next"))
        .map(where),
    );
    expect(odd).toEqual([]);
  });

  it("compile against the package, every block but the partial ones", () => {
    const config = ts.readConfigFile("tsconfig.json", ts.sys.readFile).config;
    const parsed = ts.parseJsonConfigFileContent({ ...config, include: [] }, ts.sys, process.cwd());
    const program = ts.createProgram(
      snippets.map((s) => s.file),
      { ...parsed.options, noEmit: true },
    );
    const byFile = new Map(snippets.map((s) => [resolve(s.file), s]));
    const errors = ts.getPreEmitDiagnostics(program).flatMap((d) => {
      const snippet = d.file && byFile.get(resolve(d.file.fileName));
      if (!snippet) return d.file ? [] : [ts.flattenDiagnosticMessageText(d.messageText, "\n")];
      const { line } = d.file!.getLineAndCharacterOfPosition(d.start ?? 0);
      return [`${snippet.doc}:${snippet.line + 1 + line}: ${ts.flattenDiagnosticMessageText(d.messageText, " ")}`];
    });
    expect(errors).toEqual([]);
    expect(snippets.length).toBeGreaterThan(GUIDES.length);
    console.log(
      `docs: ${snippets.length} TypeScript blocks compiled, ${snippets.filter((s) => s.flags.includes("run")).length} of them run; ${
        docFiles()
          .flatMap(typeScriptBlocks)
          .filter((b) => b.flags.includes("partial")).length
      } partial blocks left out`,
    );
  }, 120_000);

  it("place every doc: a guide, or a report or reference that says why it is not one", () => {
    expect(docFiles().filter((doc) => !GUIDES.includes(doc) && !(doc in NOT_GUIDES))).toEqual([]);
    expect(Object.keys(NOT_GUIDES).filter((doc) => GUIDES.includes(doc) || !docFiles().includes(doc))).toEqual([]);
  });

  it("include a runnable block in the README and in every guide, first among the guide's TypeScript blocks", () => {
    const missing = GUIDES.filter((doc) => !snippets.some((s) => s.doc === doc && s.flags.includes("run")));
    expect(missing).toEqual([]);
    const notFirst = GUIDES.filter((doc) => doc !== "README.md").filter((doc) =>
      typeScriptBlocks(doc)[0]?.flags.includes("partial"),
    );
    expect(notFirst).toEqual([]);
  });
});

describe("the docs' runnable blocks (```ts run), against the dev server and a scripted model", () => {
  let harness: Harness;
  let model: ScriptedModel;
  const saved = { ...process.env };

  beforeAll(async () => {
    harness = await connectHarness();
    model = await startScriptedModel(() => "Done: squats are now lunges.");
    Object.assign(process.env, {
      TEMPORAL_ADDRESS: inject("temporalAddress"),
      TEMPORAL_NAMESPACE: "default",
      OPENAI_BASE_URL: model.baseURL,
      OPENAI_API_KEY: "sk-docs-test",
    });
  });

  afterAll(async () => {
    process.env = saved;
    await model?.close();
    await harness?.close();
  });

  for (const snippet of snippets.filter((s) => s.flags.includes("run"))) {
    it(`${where(snippet)} runs to its end and calls the model`, async () => {
      process.env.TEMPORAL_TASK_QUEUE = taskQueue();
      const before = model.requests.length;
      const agents: Agent[] = [];
      for (const [, specifier] of snippet.code.matchAll(/from\s+"(\.\/[\w.-]+)\.js"/g)) {
        const sibling = join(dirname(snippet.runFile), `${specifier}.ts`);
        expect(
          existsSync(sibling),
          `${where(snippet)} imports ${specifier}.js, which no block of ${snippet.doc} names`,
        ).toBe(true);
        const exports = (await import(pathToFileURL(resolve(sibling)).href)) as Record<string, unknown>;
        agents.push(...Object.values(exports).filter((value): value is Agent => value instanceof Agent));
      }
      const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
      try {
        const run = () => import(pathToFileURL(resolve(snippet.runFile)).href);
        if (agents.length > 0) {
          const worker = await testWorker(harness, agents, { taskQueue: process.env.TEMPORAL_TASK_QUEUE });
          await worker.runUntil(run());
        } else {
          await run();
        }
      } finally {
        log.mockRestore();
      }
      expect(model.requests.length).toBeGreaterThan(before);
    }, 120_000);
  }
});

describe("links between the docs", () => {
  it("resolve: every relative link names a file that exists, and its #anchor a heading there", () => {
    const broken: string[] = [];
    for (const doc of docFiles()) {
      for (const link of links(doc)) {
        if (/^[a-z][\w+.-]*:/i.test(link.target)) continue; // https:, mailto:
        const [path, anchor] = link.target.split("#") as [string, string | undefined];
        const target = path === "" ? doc : join(dirname(doc), decodeURIComponent(path));
        const at = `${doc}:${link.line} → ${link.target}`;
        if (!existsSync(target)) broken.push(`${at}: no file ${relative(".", target)}`);
        else if (anchor !== undefined && target.endsWith(".md") && !anchors(target).has(anchor))
          broken.push(`${at}: no heading with that anchor in ${relative(".", target)}`);
      }
    }
    expect(broken).toEqual([]);
  });
});

describe("tests you can find", () => {
  it("every guide ends with the test files that test it, and every test file of test/ is named by a guide", () => {
    const guides = docFiles().filter((doc) => doc.startsWith("docs"));
    const named = new Set<string>();
    const missing: string[] = [];
    for (const doc of guides) {
      const line = readFileSync(doc, "utf8")
        .split("\n")
        .find((l) => l.startsWith("Tested by: "));
      if (!line) missing.push(`${doc}: no "Tested by:" line`);
      for (const [, file] of (line ?? "").matchAll(/\]\(\.\.\/(test\/[^)]+\.test\.ts)\)/g)) {
        if (!existsSync(file!)) missing.push(`${doc}: names ${file}, which does not exist`);
        named.add(file!);
      }
    }
    const tests = readdirSync("test")
      .filter((f) => f.endsWith(".test.ts"))
      .map((f) => `test/${f}`);
    for (const file of tests) if (!named.has(file)) missing.push(`${file}: named by no guide's "Tested by:" line`);
    expect(missing).toEqual([]);
  });
});

describe("facts the docs state", () => {
  it("docs/operating-runs.md registers every search attribute workers set, with its type, and no other", () => {
    const text = readFileSync("docs/operating-runs.md", "utf8");
    const loop = /^\s*for a in (.+); do$/m.exec(text)?.[1] ?? "";
    const registered = loop.split(" ").map((pair) => pair.replace(":", "=").toUpperCase());
    const set = Object.values(SEARCH_ATTRIBUTES).map(({ name, type }) => `${name}=${type}`.toUpperCase());
    expect(registered).toEqual(set);
    for (const { name } of Object.values(SEARCH_ATTRIBUTES))
      expect(text, `docs/operating-runs.md names ${name}`).toContain(`\`${name}\``);
  });
});
