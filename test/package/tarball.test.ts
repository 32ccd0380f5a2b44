/**
 * Issue 12, item 1: the package as users get it. `npm pack`'s tarball (of the current build:
 * test/support/package-build.ts) is installed into a fresh project outside the repository (its
 * own package.json; the tarball and its declared dependencies from the registry, nothing from
 * this repository's node_modules), which then type-checks a strict app against the package's
 * types (NodeNext and Bundler resolution), runs a worker and a run from a JavaScript module and
 * from a TypeScript module (the README's Quick start, exactly), and runs every CLI command's
 * --help and a real run, trace and list through the installed bin. Run by `npm run test:package` (CI does).
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMMANDS } from "../../src/cli/index.js";
import { startDevServer, startScriptedModel, type DevServer, type ScriptedModel } from "../../src/testing/index.js";
import { ensurePackageBuilt } from "../support/package-build.js";

const repo = realpathSync(new URL("../..", import.meta.url).pathname);
const run = promisify(execFile);
let app: string;
let tarball: { path: string; files: string[]; size: number; unpackedSize: number };
let server: DevServer;
let model: ScriptedModel;

/** The README's Quick start code blocks, by the file name on their first line (`// agents.ts`). */
function quickStartFiles(): Record<string, string> {
  const readme = readFileSync(join(repo, "README.md"), "utf8");
  const section = readme.slice(
    readme.indexOf("## Quick start in your own project"),
    readme.indexOf("\n## ", readme.indexOf("## Quick start in your own project") + 3),
  );
  const files: Record<string, string> = {};
  for (const [, code] of section.matchAll(/```ts(?: run)?\n([\s\S]*?)```/g)) {
    const name = /^\/\/ ([\w.-]+\.ts)/.exec(code!)?.[1];
    if (name) files[name] = code!;
  }
  return files;
}

function env(): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = {
    ...process.env,
    TEMPORAL_ADDRESS: server.address,
    OPENAI_BASE_URL: model.baseURL,
    OPENAI_API_KEY: "sk-test",
  };
  for (const name of [
    "TEMPORAL_TASK_QUEUE",
    "NODE_OPTIONS",
    "VITEST",
    "VITEST_POOL_ID",
    "VITEST_WORKER_ID",
    "NODE_PATH",
  ])
    delete base[name];
  return base;
}

/** Runs the installed `durable-agent` bin in the fresh project. */
function bin(args: string[]) {
  return run(process.execPath, [join(app, "node_modules/.bin/durable-agent"), ...args], { cwd: app, env: env() });
}

/** Starts a long-running process in the fresh project and resolves when a line contains `text`. */
function startUntil(args: string[], text: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, { cwd: app, env: env(), stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk;
      if (output.includes(text)) resolve(child);
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("close", (code) =>
      reject(new Error(`${args.join(" ")} exited (${code}) before printing "${text}":\n${output}`)),
    );
  });
}

async function stop(child: ChildProcess): Promise<void> {
  const closed = new Promise((resolve) => child.on("close", resolve));
  child.kill("SIGTERM");
  await closed;
}

beforeAll(async () => {
  [server, model] = await Promise.all([
    startDevServer(),
    startScriptedModel(({ body }) =>
      body.messages.some((message) => message.role === "tool")
        ? "Done: squats are now lunges."
        : { toolCalls: [{ name: "update_plan", arguments: { from: "squats", to: "lunges" } }] },
    ),
  ]);
  // The build CI has just made (or one now, when dist/ is missing or older than src/), packed as it
  // is: `npm pack` would run `prepare` and build it again.
  const buildMs = ensurePackageBuilt();
  if (buildMs)
    console.log(`built the package in ${(buildMs / 1000).toFixed(1)} s (dist/ was missing or older than src/)`);
  const packDir = mkdtempSync(join(tmpdir(), "durable-agent-pack-"));
  const { stdout } = await run("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", packDir], {
    cwd: repo,
    maxBuffer: 64 * 1024 * 1024,
  });
  const [packed] = JSON.parse(stdout.slice(stdout.indexOf("["))) as {
    filename: string;
    files: { path: string }[];
    size: number;
    unpackedSize: number;
  }[];
  tarball = {
    path: join(packDir, packed!.filename),
    files: packed!.files.map((file) => file.path),
    size: packed!.size,
    unpackedSize: packed!.unpackedSize,
  };
  console.log(
    `tarball ${packed!.filename}: ${(tarball.size / 1024).toFixed(0)} kB packed, ${(tarball.unpackedSize / 1024).toFixed(0)} kB unpacked, ${tarball.files.length} files`,
  );

  app = mkdtempSync(join(tmpdir(), "durable-agent-app-"));
  writeFileSync(
    join(app, "package.json"),
    JSON.stringify({ name: "fresh-app", private: true, type: "module" }, null, 2),
  );
  const started = Date.now();
  await run(
    "npm",
    [
      "install",
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
      tarball.path,
      "zod@^4",
      "typescript@~5.9",
      "@types/node@^20",
      "tsx@^4",
    ],
    { cwd: app, env: { ...process.env, npm_config_engine_strict: "false" } },
  );
  console.log(`fresh project installed in ${((Date.now() - started) / 1000).toFixed(1)} s at ${app}`);
  for (const [name, code] of Object.entries(quickStartFiles())) writeFileSync(join(app, name), code);
}, 600_000);

afterAll(async () => {
  await model?.close();
  await server?.stop();
});

describe("the tarball", () => {
  it("holds dist/ (ESM, .d.ts, the studio page), the bin, README and LICENSE; no tests, benchmarks, sources or CI", () => {
    for (const file of [
      "dist/index.js",
      "dist/index.d.ts",
      "dist/testing/index.js",
      "dist/ui/index.js",
      "dist/cli/index.js",
      "dist/workflows/index.js",
      "dist/studio/page/index.html",
      "bin/durable-agent.js",
      "README.md",
      "LICENSE",
      "package.json",
    ]) {
      expect(tarball.files).toContain(file);
    }
    const unwanted = tarball.files.filter(
      (file) =>
        /^(test|bench|src|examples|\.ci|deploy)\//.test(file) ||
        /\.test\.[jt]s/.test(file) ||
        file.startsWith("test-artifacts"),
    );
    expect(unwanted).toEqual([]);
  });

  it("stays within issue 34's budget: at most 1.5 times the 494 kB it packed before the studio", () => {
    // No source maps: they pointed at src/, which is not shipped, and cost ~200 kB of the budget.
    expect(tarball.files.filter((file) => file.endsWith(".map"))).toEqual([]);
    expect(readFileSync(join(app, "node_modules/durable-agent/dist/index.js"), "utf8")).not.toContain(
      "sourceMappingURL",
    );
    expect(tarball.size).toBeLessThanOrEqual(1.5 * 494 * 1000);
  });

  it("resolves from the fresh project itself, not from this repository", async () => {
    const { stdout } = await run(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        "console.log(import.meta.resolve('durable-agent'), import.meta.resolve('@temporalio/worker'))",
      ],
      { cwd: app },
    );
    for (const url of stdout.trim().split(" "))
      expect(realpathSync(new URL(url).pathname).startsWith(realpathSync(app))).toBe(true);
  });
});

describe("types", () => {
  const strict = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: "ES2022",
    lib: ["ES2023"],
    types: ["node"],
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
  };
  const appCode = `import { z } from "zod";
import { ai, AgentOptionsError, type RunResult, type StopReason } from "durable-agent";
import { startScriptedModel, type ScriptedModel } from "durable-agent/testing";

const tool = ai.tool({ name: "t", input: z.object({ n: z.number() }), execute: async ({ n }) => ({ doubled: n * 2 }) });
export const agent = ai.agent({ name: "typed", model: ai.openai("gpt-4o-mini"), tools: [tool], onToolRefusal: "retry-once-with-hint" });
export async function go(): Promise<StopReason> {
  const result: RunResult = await agent.run("hi");
  const model: ScriptedModel = await startScriptedModel(["ok"]);
  await model.close();
  return AgentOptionsError.isInstance(undefined) ? "answered" : result.stopReason;
}
`;
  for (const resolution of [
    { module: "NodeNext", moduleResolution: "NodeNext" },
    { module: "ESNext", moduleResolution: "Bundler" },
  ]) {
    it(`a strict app type-checks against the package's types (moduleResolution ${resolution.moduleResolution})`, async () => {
      const dir = join(app, `types-${resolution.moduleResolution}`);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, "app.ts"), appCode);
      writeFileSync(
        join(dir, "tsconfig.json"),
        JSON.stringify({ compilerOptions: { ...strict, ...resolution }, files: ["app.ts"] }),
      );
      const result = await run(process.execPath, [join(app, "node_modules/typescript/bin/tsc"), "-p", dir], {
        cwd: app,
      }).catch((error: { stdout: string }) => error);
      expect((result as { stdout: string }).stdout).toBe("");
    });
  }
});

describe("a worker and a run", () => {
  it("from a JavaScript module: ai.worker and agent.run in one process", async () => {
    writeFileSync(
      join(app, "app.js"),
      `import { z } from "zod";
import { ai } from "durable-agent";
const coach = ai.agent({ name: "coach-js", model: ai.openai("gpt-4o-mini"), tools: [ai.tool({ name: "update_plan", input: z.object({ from: z.string(), to: z.string() }), execute: async (input) => ({ ok: true, input }) })] });
const worker = await ai.worker({ agents: [coach], taskQueue: "fresh-js" });
const result = await worker.runUntil(coach.run("Swap squats for lunges", { taskQueue: "fresh-js" }));
console.log(JSON.stringify({ stopReason: result.stopReason, reply: result.reply, tools: result.toolCalls.map((call) => call.name + ":" + call.status) }));
process.exit(0);
`,
    );
    const { stdout } = await run(process.execPath, ["app.js"], { cwd: app, env: env() });
    expect(JSON.parse(stdout.trim().split("\n").at(-1)!)).toEqual({
      stopReason: "answered",
      reply: "Done: squats are now lunges.",
      tools: ["update_plan:ok"],
    });
  });

  it("from the README's TypeScript Quick start: `durable-agent worker ./agents.ts`, then run.ts through tsx", async () => {
    expect(Object.keys(quickStartFiles()).sort()).toEqual(["agents.ts", "run.ts"]);
    const worker = await startUntil(
      [join(app, "node_modules/.bin/durable-agent"), "worker", "./agents.ts"],
      'serving "coach"',
    );
    try {
      const { stdout } = await run(process.execPath, [join(app, "node_modules/.bin/tsx"), "run.ts"], {
        cwd: app,
        env: env(),
      });
      expect(stdout.trim()).toBe("answered: Done: squats are now lunges.");
    } finally {
      await stop(worker);
    }
  });
});

describe("the installed bin", () => {
  it("prints --help for the CLI and every command", async () => {
    expect((await bin(["--help"])).stdout).toContain("Usage: durable-agent [connection options] <command> [options]");
    const helps = await Promise.all(
      Object.keys(COMMANDS).map(async (name) => [name, (await bin([name, "--help"])).stdout] as const),
    );
    for (const [name, stdout] of helps) expect(stdout, name).toContain(`Usage: durable-agent ${name}`);
  });

  it("runs a real run, then its trace and the list, against a worker of the TypeScript module", async () => {
    const worker = await startUntil(
      [join(app, "node_modules/.bin/durable-agent"), "worker", "./agents.ts", "--search-attributes"],
      'serving "coach"',
    );
    try {
      const runOutput = (await bin(["run", "coach", "Swap squats for lunges", "--no-stream-text"])).stdout;
      expect(runOutput).toContain("■ stopped: answered after 2 trip(s), 1 tool call(s)");
      const workflowId = /Run (coach-\S+) of agent "coach"/.exec(runOutput)![1]!;
      const trace = JSON.parse((await bin(["trace", workflowId, "--json"])).stdout) as {
        type: string;
        tool?: string;
      }[];
      expect(trace).toContainEqual(expect.objectContaining({ type: "tool.finished", tool: "update_plan" }));
      expect(trace.at(-1)).toMatchObject({ type: "run.stopped", stopReason: "answered" });
      const list = (await bin(["list", "--json", "--limit", "50"])).stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { workflowId: string });
      expect(list.map((row) => row.workflowId)).toContain(workflowId);
    } finally {
      await stop(worker);
    }
  });

  it("without tsx: Node's type stripping loads the TypeScript module where it can, else the error says what to install", async () => {
    await run("npm", ["uninstall", "--no-audit", "--no-fund", "--loglevel=error", "tsx"], { cwd: app });
    if ((process.features as { typescript?: string | false }).typescript) {
      await stop(
        await startUntil([join(app, "node_modules/.bin/durable-agent"), "worker", "./agents.ts"], 'serving "coach"'),
      );
      return;
    }
    const result = await bin(["worker", "./agents.ts"]).catch((error: { code: number; stderr: string }) => error);
    expect(result).toMatchObject({
      code: 64,
      stderr: expect.stringContaining("Cannot load the TypeScript module ./agents.ts"),
    });
    expect((result as { stderr: string }).stderr).toContain("npm install --save-dev tsx");
  });
});
