/**
 * `npm run bench:import` (after `npm run build`; add `-- --runs 15` for more runs, `-- --dist
 * /other/checkout/dist` to measure another build): what importing the built root
 * (`dist/index.js`) costs a fresh node process, the median of several runs: time (wall clock, and
 * CPU time, steadier on a busy machine), resident and heap memory added, and the modules loaded (counted in one more run with a recording hook).
 * Prints the figures, the packages that load the most modules, and the goals of issue 32; writes
 * them to bench-results/import-cost.json. The time goal is judged on wall-clock time, as an app
 * sees it; on a busy machine (load above its cores, noted in the output) wall time is inflated,
 * and the CPU time beside it is the steadier figure.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { resolve } from "node:path";
import { packageOf, probeImport, type ImportProbe } from "./loaded-modules.js";

/** Issue 32's figures for the root import before it was made client-safe (Next.js route, Node 20). */
const BEFORE = { importMs: 1030, rssBytes: 94 * 2 ** 20 };
/** Worker-only packages the root must not load. */
const WORKER_PACKAGES = ["@temporalio/worker", "@temporalio/core-bridge", "webpack", "@swc/core"];
/** Packages the first call that needs them loads, not the import (test/root-import.test.ts checks the full list). */
const FIRST_USE_PACKAGES = ["@temporalio/client", "@grpc/grpc-js", "@temporalio/proto", "@opentelemetry/api"];

const arg = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const runs = Number(arg("--runs") ?? 7);
const entry = resolve(arg("--dist") ?? "dist", "index.js");
if (!existsSync(entry)) throw new Error(`${entry} does not exist: run npm run build first`);

const loadBefore = loadavg()[0]!;
const timed: ImportProbe[] = [];
for (let i = 0; i < runs; i++) timed.push(await probeImport({ specifier: entry }));
const { modules = [] } = await probeImport({ specifier: entry, recordModules: true });
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const figures = {
  entry,
  runs,
  node: process.version,
  importMs: Math.round(median(timed.map((t) => t.importMs))),
  fastestImportMs: Math.round(Math.min(...timed.map((t) => t.importMs))),
  cpuMs: Math.round(median(timed.map((t) => t.cpuMs))),
  rssMiB: round(median(timed.map((t) => t.rssBytes)) / 2 ** 20),
  heapMiB: round(median(timed.map((t) => t.heapBytes)) / 2 ** 20),
  modules: modules.length,
  workerModules: modules.filter((path) => WORKER_PACKAGES.includes(packageOf(path))).length,
  firstUseModules: modules.filter((path) => FIRST_USE_PACKAGES.includes(packageOf(path))).length,
  cores: availableParallelism(),
  loadAverage: round(Math.max(loadBefore, loadavg()[0]!)),
};
const busy = figures.loadAverage > figures.cores;
const counts = new Map<string, number>();
for (const path of modules) counts.set(packageOf(path), (counts.get(packageOf(path)) ?? 0) + 1);
const perPackage = [...counts]
  .map(([name, count]) => ({ package: name, modules: count }))
  .sort((a, b) => b.modules - a.modules);

const goals = [
  {
    goal: `importing the root takes at most a quarter of ${BEFORE.importMs / 1000} s (median of ${runs} fresh processes)`,
    figure:
      `${figures.importMs} ms wall (fastest ${figures.fastestImportMs} ms), ${figures.cpuMs} ms CPU` +
      (busy ? ` (busy machine: load ${figures.loadAverage} on ${figures.cores} cores inflates wall time)` : ""),
    met: figures.importMs <= BEFORE.importMs / 4,
  },
  {
    goal: `importing the root adds at most a quarter of ${BEFORE.rssBytes / 2 ** 20} MB of resident memory`,
    figure: `${figures.rssMiB} MB resident (${figures.heapMiB} MB heap)`,
    met: figures.rssMiB <= BEFORE.rssBytes / 2 ** 20 / 4,
  },
  {
    goal: `importing the root leaves the Temporal client, gRPC, protobuf and OpenTelemetry to the first call (${FIRST_USE_PACKAGES.join(", ")})`,
    figure: `${figures.firstUseModules} of ${figures.modules} modules`,
    met: figures.firstUseModules === 0,
  },
  {
    goal: `importing the root loads no worker code (${WORKER_PACKAGES.join(", ")})`,
    figure: `${figures.workerModules} of ${figures.modules} modules`,
    met: figures.workerModules === 0,
  },
];

console.table([
  {
    "import ms": figures.importMs,
    "CPU ms": figures.cpuMs,
    "RSS MB": figures.rssMiB,
    "heap MB": figures.heapMiB,
    modules: figures.modules,
    "worker modules": figures.workerModules,
    load: `${figures.loadAverage} on ${figures.cores} cores`,
  },
]);
console.table(perPackage.slice(0, 12));
console.table(goals.map((g) => ({ goal: g.goal, figure: g.figure, status: g.met ? "met" : "not met" })));
mkdirSync("bench-results", { recursive: true });
writeFileSync(
  "bench-results/import-cost.json",
  JSON.stringify({ importCost: { ...figures, perPackage }, goals }, null, 2) + "\n",
);
console.log("bench: import cost and goals in bench-results/import-cost.json");

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
