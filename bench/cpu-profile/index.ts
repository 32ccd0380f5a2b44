/**
 * `npm run bench:profile -- --cpu [--runs 200] [--execution activities]`: where a trip's CPU goes
 * at N runs at once. One worker child under `node --cpu-prof` (every thread: the main thread runs
 * the activities, the workflow threads the VM) and this process (the client and the scripted model
 * server) under the inspector's profiler; a warm-up round of 20 runs, then one round of N, whose
 * samples alone (by their time) are folded into categories (./fold.ts). Prints ms per trip by
 * category for the worker and for this process, the worker's CPU per trip by `process.cpuUsage()`
 * beside the profile's sum, and the functions with the most self time; writes
 * bench-results/cpu-profile.json and cpu-profile.md.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { startScriptedModel } from "../../src/testing/index.js";
import { startBench } from "../lib.js";
import { markdownTable } from "../markdown-table.js";
import { round } from "../numbers.js";
import { BENCH_EXECUTIONS, benchScript, TRIPS, type BenchExecution } from "../scenario.js";
import { benchThroughput } from "../throughput.js";
import { bundleAgentWorkflows } from "../../src/index.js";
import { addBundleSource, foldProfile, isOurs, sumFolds, type CpuProfile, type Fold } from "./fold.js";

const WARM_UP_RUNS = 20;

/** Runs the profile and prints its tables. */
export async function profileCpu(argv: string[]): Promise<void> {
  const arg = (name: string) => (argv.indexOf(name) > 0 ? argv[argv.indexOf(name) + 1] : undefined);
  const runs = Number(arg("--runs") ?? 200);
  const execution = (arg("--execution") ?? "activities") as BenchExecution;
  if (!BENCH_EXECUTIONS.includes(execution)) throw new Error(`--execution: one of ${BENCH_EXECUTIONS.join(", ")}`);
  const dir = mkdtempSync(join(tmpdir(), "bench-cpu-prof-"));
  const load = loadavg()[0]!;
  const model = await startScriptedModel(benchScript);
  const bench = await startBench();
  const session = new Session();
  session.connect();
  let window = { startUs: 0, endUs: 0 };
  let workerCpuMsPerTrip: number | undefined;
  let clientProfile: CpuProfile;
  try {
    await session.post("Profiler.enable");
    await session.post("Profiler.start");
    const [figures] = await benchThroughput(
      { ...bench, address: bench.server.address },
      model.baseURL,
      [{ library: "durable-agent", execution }],
      { levels: [WARM_UP_RUNS, runs], cpuProfileDir: dir, onRound: (n, w) => n === runs && (window = w) },
    );
    clientProfile = ((await session.post("Profiler.stop")) as { profile: CpuProfile }).profile;
    const level = figures!.levels.find((l) => l.concurrentRuns === runs)!;
    if (level.errors) throw new Error(`${level.errors} runs failed: ${level.firstError}`);
    workerCpuMsPerTrip = level.workerCpuMsPerTrip;
  } finally {
    session.disconnect();
    await bench.connection.close();
    await bench.server.stop();
    await model.close();
  }
  const trips = runs * TRIPS;
  const workerProfiles = readdirSync(dir)
    .filter((f) => f.endsWith(".cpuprofile"))
    .map((f) => JSON.parse(readFileSync(join(dir, f), "utf8")) as CpuProfile);
  rmSync(dir, { recursive: true, force: true });
  addBundleSource(/bench-bundle-[^/]+\/workflows-0\.js$/, (await bundleAgentWorkflows()).code); // the bundle benchThroughput wrote
  const worker = sumFolds(workerProfiles.map((p) => foldProfile(p, window)));
  const client = foldProfile(clientProfile, window);
  const rows: Record<string, string | number>[] = [
    ...new Set([...worker.byCategory.keys(), ...client.byCategory.keys()]),
  ]
    .map((name) => ({
      "": name,
      ours: isOurs(name) ? "yes" : "",
      "worker ms/trip": round((worker.byCategory.get(name) ?? 0) / trips, 2),
      "worker %": round((100 * (worker.byCategory.get(name) ?? 0)) / worker.sampledMs, 1),
      "client + model server ms/trip": round((client.byCategory.get(name) ?? 0) / trips, 2),
    }))
    .sort((a, b) => b["worker ms/trip"] - a["worker ms/trip"]);
  const total = worker.sampledMs / trips;
  rows.push({
    "": "outside the JavaScript threads' samples (core's Rust threads, sampling gaps): cpuUsage − samples",
    ours: "",
    "worker ms/trip": round((workerCpuMsPerTrip ?? 0) - total, 2),
    "worker %": "",
    "client + model server ms/trip": "",
  });
  rows.push({
    "": "total sampled (not idle)",
    ours: "",
    "worker ms/trip": round(worker.sampledMs / trips, 2),
    "worker %": 100,
    "client + model server ms/trip": round(client.sampledMs / trips, 2),
  });
  const ourTop = [...worker.byCategorySelf.entries()]
    .filter(([key]) => isOurs(key.split("\t")[0]!))
    .sort((a, b) => b[1] - a[1])
    .slice(0, 30)
    .map(([key, ms]) => ({
      category: key.split("\t")[0]!,
      "self time in": key.split("\t")[1]!,
      "ms/trip": round(ms / trips, 3),
    }));
  const top = (fold: Fold) =>
    [...fold.bySelf.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 25)
      .map(([fn, ms]) => ({ "self time in": fn, "ms/trip": round(ms / trips, 3) }));
  const title = `One trip's CPU at ${runs} runs at once (${execution}), ${TRIPS} trips a run: ${workerProfiles.length} worker thread profiles; worker CPU by process.cpuUsage(): ${workerCpuMsPerTrip} ms/trip; load average ${load} at the start`;
  console.log(`\n${title}`);
  console.table(rows);
  console.log("\nThe worker's functions with the most self time");
  console.table(top(worker));
  console.log("\nThe worker's functions with the most self time in our categories");
  console.table(ourTop);
  console.log("\nThis process's (client and scripted model server) functions with the most self time");
  console.table(top(client));
  mkdirSync("bench-results", { recursive: true });
  writeFileSync(
    "bench-results/cpu-profile.json",
    JSON.stringify(
      { runs, execution, loadAverageAtStart: load, workerCpuMsPerTrip, rows, workerTop: top(worker), ourTop },
      null,
      2,
    ) + "\n",
  );
  writeFileSync(
    "bench-results/cpu-profile.md",
    `**${title}**\n\n${markdownTable(rows)}\n\n**The worker's functions with the most self time**\n\n${markdownTable(top(worker))}\n\n**In our categories**\n\n${markdownTable(ourTop)}\n`,
  );
}
