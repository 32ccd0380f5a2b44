/**
 * `npm run bench` (add `-- --quick` for a smoke run, `-- --levels 50,200` for other throughput
 * levels than 200 and 1,000): the cost of durability on a local dev
 * server (as the CLI ships it, and as we start it) with a zero-latency scripted model, ours in
 * each execution setting beside `@temporalio/ai-sdk` and `@temporalio/openai-agents`, each
 * against its own in-process floor, in rounds interleaved across them (bench/stats), each ratio
 * with its 95% interval over the rounds. Prints tables and writes bench-results/latest.json (and
 * latest.md, the tables as Markdown for docs/performance.md). The whole run keeps to 44 minutes
 * (`-- --minutes M`): the throughput section's rounds stop where the next would end past it, with
 * time kept for the 1,000-run level.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { bundleAgentWorkflows } from "../src/index.js";
import { startScriptedModel } from "../src/testing/index.js";
import { CLI_DEFAULT_DYNAMIC_CONFIG, dynamicConfigFlags, startBench } from "./lib.js";
import { BARE } from "./bare-activities.js";
import { benchLongRuns } from "./long-runs.js";
import { benchOverhead } from "./overhead.js";
import { report, type BenchResults, type ServerSetting } from "./report.js";
import { BENCH_EXECUTIONS, benchScript } from "./scenario.js";
import { benchStreaming, STREAMING_SUBJECTS } from "./streaming.js";
import { MIN_ROUNDS_TO_DECIDE } from "./stats/index.js";
import { benchThroughput, type ThroughputLibrary, type ThroughputSubject } from "./throughput.js";
import { countListenerWarnings } from "./worker-probe.js";

/** The dev server as we start it, and as the CLI ships it (DEV_SERVER_DYNAMIC_CONFIG's keys at the server's defaults). */
const SERVER_SETTINGS: { setting: ServerSetting; extraArgs: string[] }[] = [
  { setting: "tuned", extraArgs: [] },
  { setting: "default", extraArgs: dynamicConfigFlags(CLI_DEFAULT_DYNAMIC_CONFIG) },
];
const LIBRARIES: ThroughputLibrary[] = ["durable-agent", "@temporalio/ai-sdk", "@temporalio/openai-agents", BARE];
const minutesArg = process.argv.indexOf("--minutes");
/** The whole run's budget. */
const BUDGET_MS = (minutesArg > 0 ? Number(process.argv[minutesArg + 1]) : 44) * 60_000;
/** The most a 1,000-run round may take: each library's runs left unfinished by then count as failed. */
const THOUSAND_DEADLINE_MS = 5 * 60_000;
/** Time kept for the 1,000-run level: ours and the AI SDK peer finish in about 3 and 4 minutes, the OpenAI Agents peer runs to the deadline. */
const THOUSAND_RESERVE_MS = 12 * 60_000;
/**
 * Which subjects run at which level: at 1,000 runs, only ours with activities and the peers (what
 * that level reports is runs completed by the deadline, and peak RSS); the others below it.
 */
const atLevel = ({ library, execution }: ThroughputSubject) =>
  library === BARE || execution === "local-tools" || execution === "local" ? (n: number) => n < 1000 : () => true;
const levelsArg = process.argv.indexOf("--levels");
/** Concurrent runs per throughput level, when given (else the benchmark's defaults). */
const LEVELS = levelsArg > 0 ? process.argv[levelsArg + 1]!.split(",").map(Number) : undefined;
/**
 * Throughput rounds per level: enough to decide a goal on its interval at 200 runs at once (the
 * goals' level), 3 below it (an interval to show), one above it (a round of 1,000 takes minutes
 * per library, and that level's goal is a count); 3 under --quick.
 */
const throughputRounds = (concurrentRuns: number) =>
  process.argv.includes("--quick") ? 3 : concurrentRuns === 200 ? MIN_ROUNDS_TO_DECIDE : concurrentRuns < 200 ? 3 : 1;

/** `fn`'s result, and this process's highest RSS in MiB while it ran (sampled every 250 ms). */
async function withPeakRss<T>(fn: () => Promise<T>): Promise<{ value: T; peakRssMiB: number }> {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 250);
  try {
    const value = await fn();
    return { value, peakRssMiB: Math.round(Math.max(peak, process.memoryUsage.rss()) / 2 ** 20) };
  } finally {
    clearInterval(timer);
  }
}

const listenerWarnings = countListenerWarnings();
const started = Date.now();
const model = await startScriptedModel(benchScript);
// Bundle every workflow set while the first dev server starts (a peer's may fail to load: reported later).
void bundleAgentWorkflows().catch(() => undefined);
void import("./peer.js").then((peer) => peer.preparePeer(model.baseURL)).catch(() => undefined);
void import("./peer-openai-agents.js")
  .then((peer) => peer.prepareOpenAIAgentsPeer(model.baseURL))
  .catch(() => undefined);
const results: Partial<BenchResults> & Record<string, unknown> = {
  machine: {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    loadAverageAtStart: loadavg().map((n) => Number(n.toFixed(2))),
  },
  quick: process.argv.includes("--quick"),
  servers: [],
};
/** What is measured so far survives a crash of a later step. */
const savePartial = (name: string, value: unknown) => {
  mkdirSync("bench-results", { recursive: true });
  writeFileSync("bench-results/latest.partial.json", JSON.stringify({ ...results, [name]: value }, null, 2) + "\n");
};
const step = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
  const t = Date.now();
  console.log(`bench: ${name}...`);
  const value = await fn();
  console.log(`bench: ${name}: ${((Date.now() - t) / 1000).toFixed(1)} s`);
  savePartial(`step: ${name}`, value);
  return value;
};
/** How long the first server setting's overhead step took: the time kept for the next one's. */
let overheadMs = 0;
try {
  for (const { setting, extraArgs } of SERVER_SETTINGS) {
    const bench = await startBench(extraArgs);
    try {
      const overheadStarted = Date.now();
      const { value: overhead, peakRssMiB } = await step(
        `${setting} server: per-trip overhead and history, ours and both peers in interleaved rounds`,
        () => withPeakRss(() => benchOverhead(bench, model.baseURL, BENCH_EXECUTIONS)),
      );
      for (const f of overhead) if ("error" in f) console.log(`bench: ${f.name} did not run: ${f.error}`);
      overheadMs = Date.now() - overheadStarted;
      results.servers!.push({
        setting,
        dynamicConfig: bench.dynamicConfig,
        overhead,
        benchProcessPeakRssMiB: peakRssMiB,
      });
      if (setting !== "tuned") continue;
      // Under --quick (CI's smoke run) WorkflowAgent is left out: its cold install (Node 22, npm
      // install, `workflow build`) takes about 3 minutes; `npm run bench` and `bench:streaming` run it.
      if (bench.quick) console.log("bench: WorkflowAgent not run under --quick (npm run bench:streaming runs it)");
      results.streaming = await step("streaming, ours and the peers' streaming modes", () =>
        benchStreaming({
          quick: bench.quick,
          subjects: STREAMING_SUBJECTS.filter((s) => !bench.quick || s.library !== "@ai-sdk/workflow"),
        }),
      );
      results.longRuns = await step("long runs", () => benchLongRuns(bench, model.baseURL));
      // Every library's worker up throughout, rounds interleaved at each level, so load that comes and goes falls on all alike.
      const subjects = LIBRARIES.flatMap((library): ThroughputSubject[] =>
        library === "durable-agent" ? BENCH_EXECUTIONS.map((execution) => ({ library, execution })) : [{ library }],
      ).map((subject) => ({ ...subject, atLevel: atLevel(subject) }));
      // 50 runs at once is bench:throughput's (its rounds of the OpenAI Agents peer take minutes).
      const levels = LEVELS ?? (bench.quick ? [10] : [200, 1000]);
      results.throughput = await step("throughput, every library in interleaved rounds at each level", () =>
        benchThroughput({ ...bench, address: bench.server.address }, model.baseURL, subjects, {
          levels,
          rounds: throughputRounds,
          // What is left, less the other server setting's overhead step (as long as this one's) and a minute to report.
          budgetMs: BUDGET_MS - (Date.now() - started) - overheadMs * (SERVER_SETTINGS.length - 1) - 60_000,
          reserveMs: (n) => (n >= 1000 ? THOUSAND_RESERVE_MS : 0),
          roundDeadlineMs: (n) => (bench.quick ? 60_000 : n >= 1000 ? THOUSAND_DEADLINE_MS : 15 * 60_000),
          onLevel: (figures) => savePartial("throughput so far", figures),
        }),
      );
    } finally {
      await bench.connection.close();
      await bench.server.stop();
    }
  }
} finally {
  await model.close();
}
results.listenerWarnings = listenerWarnings();
results.durationSeconds = Math.round((Date.now() - started) / 1000);
results.machine!.loadAverageAtEnd = loadavg().map((n) => Number(n.toFixed(2)));
const markdown = report(results as BenchResults); // adds results.goals
mkdirSync("bench-results", { recursive: true });
writeFileSync("bench-results/latest.json", JSON.stringify(results, null, 2) + "\n");
writeFileSync("bench-results/latest.md", markdown);
console.log(
  `\nbench: ${results.durationSeconds} s; figures in bench-results/latest.json, tables in bench-results/latest.md`,
);
