/**
 * `npm run bench` (add `-- --quick` for a smoke run): prints the figures as tables and writes
 * them to bench-results/latest.json.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { startBench } from "./lib.js";
import { benchStreaming } from "./streaming.js";

const bench = await startBench();
const started = Date.now();
const results: Record<string, unknown> = {
  machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version, temporalCli: bench.server.executable },
  quick: bench.quick,
};
try {
  results.streaming = await benchStreaming(bench);
  console.log("\nStreaming");
  console.table(results.streaming);
} finally {
  await bench.connection.close();
  await bench.server.stop();
}
results.durationSeconds = Math.round((Date.now() - started) / 1000);
mkdirSync("bench-results", { recursive: true });
writeFileSync("bench-results/latest.json", JSON.stringify(results, null, 2) + "\n");
console.log(JSON.stringify(results, null, 2));
