/**
 * The root is client-safe (issue 32): importing `durable-agent` loads no worker code, so a web
 * app's route (Next.js) can import it. Checked twice: at run time, every file a fresh node process
 * loads for `import "durable-agent"` (from source, through the package's `durable-agent-source`
 * condition); and in the import graph a bundler follows (static and literal dynamic imports, as
 * webpack and Turbopack do), which must not reach the worker's modules either: two of them hold
 * the `new URL(...)` references Next.js builds failed on. `ai.worker()`, which loads the worker on
 * its first call, is exercised by the rest of the suite.
 *
 * The import is also cheap (issue 32: a quarter of the 94 MB it cost): the Temporal client with gRPC
 * and protobuf, OpenTelemetry, the workflow and activity APIs, the MCP SDK and the model clients are
 * loaded by the first call that needs them, not by the import. The budget is checked here as the
 * packages the import must not load; its time and memory are measured by `npm run bench:import`.
 */
import { cruise, type ICruiseResult } from "dependency-cruiser";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";
import { packageOf, probeImport } from "../bench/loaded-modules.js";

/** Packages of worker code: the worker, its native core bridge, and the workflow bundler's webpack and swc. */
const WORKER_PACKAGES = ["@temporalio/worker", "@temporalio/core-bridge", "webpack", "@swc/core", "swc-loader"];
/** Our worker-only modules (the worker entry and what only it imports). */
const WORKER_MODULES = [
  "src/worker.ts",
  "src/workflow-bundle.ts",
  "src/telemetry/telemetry-workflow-bundle.ts",
  "src/activities/index.ts",
  "src/activities/model-call.ts",
];
/** Packages loaded on first use, not by the import: the Temporal client, gRPC and protobuf, OpenTelemetry, the workflow and activity APIs, MCP and the model clients. */
const LOADED_ON_FIRST_USE = [
  "@temporalio/client",
  "@grpc/grpc-js",
  "@temporalio/proto",
  "protobufjs",
  "@temporalio/workflow",
  "@temporalio/activity",
  "@temporalio/interceptors-opentelemetry",
  "@opentelemetry/api",
  "@opentelemetry/sdk-trace-base",
  "@opentelemetry/core",
  "@opentelemetry/resources",
  "nexus-rpc",
  "@modelcontextprotocol/sdk",
  "openai",
  "ai",
  "p-limit",
  "redis",
  "@redis/client",
];
/** At most this many modules of @temporalio/common: single modules (failures, search attributes, durations), not its index. */
const COMMON_MODULES_AT_MOST = 10;
const FROM_SOURCE = ["--import", "tsx", "--conditions=durable-agent-source"];

const isWorkerCode = (path: string) =>
  WORKER_PACKAGES.includes(packageOf(path)) ||
  packageOf(path).startsWith("@swc/") ||
  WORKER_MODULES.some((m) => path === m || path.endsWith(`/${m}`));

describe('import "durable-agent" in a fresh process', () => {
  let root: string[];
  let worker: string[];
  beforeAll(async () => {
    [root, worker] = await Promise.all([
      probeImport({ specifier: "durable-agent", nodeArgs: FROM_SOURCE, recordModules: true }).then((p) => p.modules!),
      probeImport({ specifier: "durable-agent/worker", nodeArgs: FROM_SOURCE, recordModules: true }).then(
        (p) => p.modules!,
      ),
    ]);
  });

  it("loads the client side (the check sees what is loaded: our source, zod, and single modules of @temporalio/common)", () => {
    expect(root.filter((path) => path.endsWith("/src/index.ts"))).toHaveLength(1);
    expect(root.some((path) => path.endsWith("/src/client/run-handle.ts"))).toBe(true);
    expect(root.some((path) => packageOf(path) === "zod")).toBe(true);
    expect(root.some((path) => path.endsWith("/@temporalio/common/lib/failure.js"))).toBe(true);
  });

  it("loads none of what the first call loads: the Temporal client, gRPC, protobuf, OpenTelemetry, MCP, the model clients", () => {
    expect([...new Set(root.map(packageOf))].filter((name) => LOADED_ON_FIRST_USE.includes(name))).toEqual([]);
    expect(root.filter((path) => packageOf(path) === "@temporalio/common").length).toBeLessThanOrEqual(
      COMMON_MODULES_AT_MOST,
    );
    expect(root.some((path) => path.endsWith("/@temporalio/common/lib/index.js"))).toBe(false);
  });

  it("loads no worker code: no @temporalio/worker, core bridge, webpack or swc, and none of our worker modules", () => {
    expect(root.filter(isWorkerCode)).toEqual([]);
  });

  it("the worker entry, which ai.worker() loads, does load them (so the check above could fail)", () => {
    for (const name of ["@temporalio/worker", "@temporalio/core-bridge"])
      expect(
        worker.some((path) => packageOf(path) === name),
        name,
      ).toBe(true);
    expect(worker.some((path) => path.endsWith("/src/worker.ts"))).toBe(true);
  });

  it("the worker entry loads the client-side packages the root leaves for later (so the check above could fail)", () => {
    const loaded = new Set(worker.map(packageOf));
    for (const name of ["@temporalio/client", "@grpc/grpc-js", "@temporalio/proto", "@temporalio/workflow", "openai"])
      expect([name, loaded.has(name)]).toEqual([name, true]);
  });
});

describe("the root's import graph, as a bundler follows it", () => {
  let graph: Map<string, string[]>;
  beforeAll(async () => {
    const tsConfig = ts.readConfigFile("tsconfig.json", ts.sys.readFile).config;
    const cruised = await cruise(
      ["src/index.ts"],
      {
        doNotFollow: { path: "node_modules" },
        // node_modules/... as the checks name it, also where node_modules is a link (a git worktree's).
        preserveSymlinks: true,
        tsPreCompilationDeps: true,
        tsConfig: { fileName: "tsconfig.json" },
      },
      {},
      { tsConfig },
    );
    // Type-only imports are erased before bundling; static and dynamic imports with a literal specifier are followed.
    graph = new Map(
      (cruised.output as ICruiseResult).modules.map((m) => [
        m.source,
        m.dependencies
          .filter((d) => !d.dependencyTypes.some((t) => t === "type-only" || t === "type-import"))
          .map((d) => d.resolved),
      ]),
    );
  });

  /** Every module reachable from src/index.ts, with the chain that reaches it. */
  function reachable(): Map<string, string[]> {
    const chains = new Map([["src/index.ts", ["src/index.ts"]]]);
    const queue = ["src/index.ts"];
    for (let next = queue.shift(); next; next = queue.shift()) {
      for (const to of graph.get(next) ?? []) {
        if (chains.has(to)) continue;
        chains.set(to, [...chains.get(next)!, to]);
        queue.push(to);
      }
    }
    return chains;
  }

  it("reaches our client modules and npm packages (the walk follows imports)", () => {
    const reached = reachable();
    expect(reached.has("src/client/run-handle.ts")).toBe(true);
    expect(reached.has("src/lazy-worker.ts")).toBe(true);
    expect([...reached.keys()].some((path) => path.startsWith("node_modules/@temporalio/client/"))).toBe(true);
  });

  it("reaches no worker module or package, with or without running it", () => {
    const offending = [...reachable()].filter(([path]) => isWorkerCode(path)).map(([, chain]) => chain.join(" → "));
    expect(offending).toEqual([]);
  });
});
