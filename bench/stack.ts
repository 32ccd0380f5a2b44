/**
 * `npm run bench:stack [-- --quick] [--split]`: the throughput benchmark (bench/throughput.ts) with
 * two worker processes on one task queue, on the stack (temporal-server on PostgreSQL, one process
 * as in docker-compose.yml; `--split` for a process per service) and then on the dev server, both
 * with history.transferProcessorMaxPollRPS=1000. Levels: 50 (warm-up) then 1,000 concurrent runs
 * (10 and 100 with --quick). Prints the table; writes bench-results/stack.json.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { Client, Connection } from "@temporalio/client";
import { startStack } from "../deploy/stack/index.js";
import { findFreeFrontendPort, findFreePort } from "../deploy/stack/processes.js";
import { startDevServer, startScriptedModel } from "../src/testing/index.js";
import { benchScript } from "./scenario.js";
import { benchThroughput, type ThroughputFigures } from "./throughput.js";

const quick = process.argv.includes("--quick");
const split = process.argv.includes("--split");
const levels = quick ? [10, 100] : [50, 1000];
const WORKERS = 2;
const model = await startScriptedModel(benchScript);
const results: Record<string, ThroughputFigures | Record<string, unknown>> = {
  machine: { cpus: cpus().length, loadAverageAtStart: loadavg().map((n) => Number(n.toFixed(2))), quick, split },
};

const dir = mkdtempSync(join(tmpdir(), "bench-stack-"));
chmodSync(dir, 0o755); // PostgreSQL runs as its own user under root
const stack = await startStack({
  dataDir: dir,
  split,
  port: await findFreeFrontendPort(),
  postgresPort: await findFreePort(),
  uiPort: false,
  log: (line) => console.log(`stack: ${line}`),
});
try {
  const connection = await Connection.connect({ address: stack.address });
  console.log(
    `bench:stack: temporal-server ${stack.versions.temporal} on PostgreSQL (${split ? "a process per service" : "one process"}), ${WORKERS} workers, levels ${levels.join(", ")}...`,
  );
  results.stack = (
    await benchThroughput(
      { address: stack.address, client: new Client({ connection }), quick },
      model.baseURL,
      [{ library: "durable-agent", execution: "activities" }],
      { levels, workers: WORKERS },
    )
  )[0]!;
  console.log(JSON.stringify((results.stack as ThroughputFigures).levels));
  // The connection stays open: a run that missed the deadline may still be polling for its result.
} finally {
  await stack.stop();
  rmSync(dir, { recursive: true, force: true });
}

const dev = await startDevServer({ extraArgs: ["--dynamic-config-value", "history.transferProcessorMaxPollRPS=1000"] });
try {
  console.log(`bench:stack: the dev server (${dev.executable}), ${WORKERS} workers, levels ${levels.join(", ")}...`);
  results.devServer = (
    await benchThroughput(
      { address: dev.address, client: dev.env.client, quick },
      model.baseURL,
      [{ library: "durable-agent", execution: "activities" }],
      { levels, workers: WORKERS },
    )
  )[0]!;
  console.log(JSON.stringify((results.devServer as ThroughputFigures).levels));
} finally {
  await dev.stop();
  await model.close();
}
(results.machine as Record<string, unknown>).loadAverageAtEnd = loadavg().map((n) => Number(n.toFixed(2)));

const rows = (["stack", "devServer"] as const).flatMap((server) =>
  (results[server] as ThroughputFigures).levels.map(
    (l) =>
      `| ${server === "stack" ? `stack (PostgreSQL${split ? ", split" : ""})` : "dev server (SQLite)"} | ${l.concurrentRuns} | ${l.completed} | ${l.errors} | ${l.wallSeconds} | ${l.runsPerSecond} | ${l.tripsPerSecond} | ${l.latencyMs.p50} | ${l.latencyMs.p95} | ${l.latencyMs.max} | ${l.workerRssMiB.peak} |`,
  ),
);
const table = [
  "| server | runs | completed | errors | wall s | runs/s | trips/s | p50 ms | p95 ms | max ms | workers' peak RSS MiB |",
  "|---|---|---|---|---|---|---|---|---|---|---|",
  ...rows,
].join("\n");
console.log(`\n${table}\n`);
mkdirSync("bench-results", { recursive: true });
writeFileSync("bench-results/stack.json", JSON.stringify(results, null, 2) + "\n");
const failed = (["stack", "devServer"] as const).some((s) =>
  (results[s] as ThroughputFigures).levels.some((l) => l.errors > 0),
);
process.exit(failed ? 1 : 0);
