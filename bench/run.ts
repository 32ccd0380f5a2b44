/**
 * `npm run bench` (add `-- --quick` for a smoke run): the cost of durability on one local dev
 * server with a zero-latency scripted model, ours beside an in-process floor and beside
 * `@temporalio/ai-sdk`. Prints tables and writes bench-results/latest.json (and latest.md, the
 * tables as Markdown for the README).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { bundleAgentWorkflows } from "../src/index.js";
import { startScriptedModel } from "../src/testing/index.js";
import { startBench } from "./lib.js";
import { benchLongRuns } from "./long-runs.js";
import { benchOverhead } from "./overhead.js";
import { report, type BenchResults } from "./report.js";
import { benchScript } from "./scenario.js";
import { benchStreaming } from "./streaming.js";
import { benchThroughput } from "./throughput.js";

const started = Date.now();
const model = await startScriptedModel(benchScript);
// Bundle both workflow sets while the dev server starts (the peer's may fail to load: reported later).
void bundleAgentWorkflows().catch(() => undefined);
void import("./peer.js").then((peer) => peer.preparePeer(model.baseURL)).catch(() => undefined);
const bench = await startBench();
const results: Record<string, unknown> = {
  machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version, temporalCli: bench.server.executable, loadAverageAtStart: loadavg().map((n) => Number(n.toFixed(2))) },
  quick: bench.quick,
};
const step = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
  const t = Date.now();
  console.log(`bench: ${name}...`);
  const value = await fn();
  console.log(`bench: ${name}: ${((Date.now() - t) / 1000).toFixed(1)} s`);
  return value;
};
try {
  const compared = await step("per-trip overhead and history, ours and @temporalio/ai-sdk's", () => benchOverhead(bench, model.baseURL));
  results.overhead = compared.ours;
  results.peer = compared.peer;
  if ("error" in compared.peer) console.log(`bench: @temporalio/ai-sdk did not run: ${compared.peer.error}`);
  results.streaming = await step("streaming", () => benchStreaming(bench));
  results.longRuns = await step("long runs", () => benchLongRuns(bench, model.baseURL));
  results.throughput = await step("throughput", () => benchThroughput({ ...bench, address: bench.server.address }, model.baseURL));
} finally {
  await model.close();
  await bench.connection.close();
  await bench.server.stop();
}
results.durationSeconds = Math.round((Date.now() - started) / 1000);
(results.machine as Record<string, unknown>).loadAverageAtEnd = loadavg().map((n) => Number(n.toFixed(2)));
const markdown = report(results as unknown as BenchResults);
mkdirSync("bench-results", { recursive: true });
writeFileSync("bench-results/latest.json", JSON.stringify(results, null, 2) + "\n");
writeFileSync("bench-results/latest.md", markdown);
console.log(`\nbench: ${results.durationSeconds} s; figures in bench-results/latest.json, tables in bench-results/latest.md`);
