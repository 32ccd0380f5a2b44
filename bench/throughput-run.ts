/**
 * `npm run bench:throughput [-- --minutes M] [-- --levels 50,200] [-- --executions activities,local] [-- --peers ai-sdk]`:
 * the throughput section of `npm run bench` alone, at 50 and 200 runs at once, ours (activities, by
 * default), both peers' and a bare Temporal workflow's workers up together in rounds interleaved across them, each ratio with
 * its 95% interval over the rounds, within a time budget (15 minutes by default: no round of every
 * subject starts that would end after it). Worker CPU per trip is measured with each worker's
 * `process.cpuUsage()`, which load on the machine does not inflate as it does wall time. Prints the
 * throughput table and its goals; writes bench-results/throughput.json and throughput.md.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { bundleAgentWorkflows } from "../src/index.js";
import { startScriptedModel } from "../src/testing/index.js";
import { BARE } from "./bare-activities.js";
import { startBench } from "./lib.js";
import { throughputReport, type BenchResults } from "./report.js";
import { BENCH_EXECUTIONS, benchScript, type BenchExecution } from "./scenario.js";
import { MIN_ROUNDS_TO_DECIDE } from "./stats/index.js";
import { benchThroughput, type ThroughputSubject } from "./throughput.js";
import { countListenerWarnings } from "./worker-probe.js";

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const minutes = Number(arg("--minutes") ?? 15);
const levels = (arg("--levels") ?? "50,200").split(",").map(Number);
const executions = (arg("--executions") ?? "activities").split(",") as BenchExecution[];
for (const execution of executions)
  if (!BENCH_EXECUTIONS.includes(execution))
    throw new Error(`--executions: ${execution} is not one of ${BENCH_EXECUTIONS.join(", ")}`);

const peers = (arg("--peers") ?? "ai-sdk,openai-agents").split(",");
for (const peer of peers)
  if (!["ai-sdk", "openai-agents"].includes(peer)) throw new Error(`--peers: ${peer} is not ai-sdk or openai-agents`);

const listenerWarnings = countListenerWarnings();
const started = Date.now();
const model = await startScriptedModel(benchScript);
void bundleAgentWorkflows().catch(() => undefined);
const results: BenchResults = {
  machine: {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    loadAverageAtStart: loadavg().map((n) => Number(n.toFixed(2))),
  },
  quick: false,
  servers: [],
};
const subjects: ThroughputSubject[] = [
  ...executions.map((execution): ThroughputSubject => ({ library: "durable-agent", execution })),
  ...peers.map((name): ThroughputSubject => ({ library: `@temporalio/${name}` as ThroughputSubject["library"] })),
  { library: BARE },
];
try {
  const bench = await startBench();
  try {
    // What is left of the budget once the server and the workers are up goes to the rounds; 3 at the
    // lower level (an interval to show), as many as fit at the higher (at least MIN_ROUNDS_TO_DECIDE to decide).
    const budgetMs = minutes * 60_000 - (Date.now() - started) - 60_000;
    results.throughput = await benchThroughput({ ...bench, address: bench.server.address }, model.baseURL, subjects, {
      levels,
      rounds: (n) => (n === Math.max(...levels) ? 2 * MIN_ROUNDS_TO_DECIDE : 3),
      budgetMs,
      onLevel: (figures) => {
        // What is measured so far survives a crash (or a stop) of a later level.
        mkdirSync("bench-results", { recursive: true });
        writeFileSync(
          "bench-results/throughput.partial.json",
          JSON.stringify({ ...results, throughput: figures }, null, 2) + "\n",
        );
        console.log(`bench:throughput: level done (${figures[0]?.levels.length} of ${levels.length})`);
      },
    });
  } finally {
    await bench.connection.close();
    await bench.server.stop();
  }
} finally {
  await model.close();
}
results.listenerWarnings = listenerWarnings();
results.machine.loadAverageAtEnd = loadavg().map((n) => Number(n.toFixed(2)));
const markdown = throughputReport(results);
const seconds = Math.round((Date.now() - started) / 1000);
mkdirSync("bench-results", { recursive: true });
writeFileSync(
  "bench-results/throughput.json",
  JSON.stringify({ ...results, durationSeconds: seconds }, null, 2) + "\n",
);
const m = results.machine;
writeFileSync(
  "bench-results/throughput.md",
  `Machine: ${m.cpus} cores, Node ${m.node}; load average ${m.loadAverageAtStart?.[0]} at the start, ${m.loadAverageAtEnd?.[0]} at the end; ${seconds} s.\n\n${markdown}`,
);
console.log(`\nbench:throughput: ${seconds} s; bench-results/throughput.json and throughput.md`);
