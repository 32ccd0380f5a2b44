/**
 * `npm run bench:profile [-- --runs N]`: where a trip's time goes when the model call and the tool
 * run as local activities, so that all that is left is workflow-task work. Interleaved rounds of:
 * ours (client over a gRPC `Connection`), ours with eager workflow start (client over the worker's
 * `NativeConnection`), a bare Temporal workflow of the same shape (bench/bare-trips-workflow.ts),
 * and our in-process floor. Prints p50 ms per trip for each. Run it under `node --cpu-prof
 * --cpu-prof-dir=<dir> --import tsx --conditions=durable-agent-source bench/profile-trip.ts` for a
 * CPU profile of every thread (the workflow thread is the one running `activate`).
 *
 * `npm run bench:profile -- --cpu [--runs 200]`: instead, where a trip's CPU goes at 200 runs at
 * once, by category (bench/cpu-profile).
 */
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { Client } from "@temporalio/client";
import { Worker } from "@temporalio/worker";
import { startScriptedModel } from "../src/testing/index.js";
import { bareActivities } from "./bare-activities.js";
import { runInProcess } from "./in-process.js";
import { percentile, round, startBench, withBenchWorker } from "./lib.js";
import { benchAgent, benchScript, FINAL_ANSWER, inputFor, TRIPS } from "./scenario.js";

if (process.argv.includes("--promises")) {
  await (await import("./cpu-profile/promise-count.js")).countPromises(process.argv);
  process.exit(0);
}
if (process.argv.includes("--cpu")) {
  await (await import("./cpu-profile/index.js")).profileCpu(process.argv);
  process.exit(0);
}
const runsArg = process.argv.indexOf("--runs");
const rounds = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 20;
const model = await startScriptedModel(benchScript);
const bench = await startBench();
try {
  const agent = benchAgent(model.baseURL, "bench-profile", 1000, "local");
  const bareQueue = `bare-${randomUUID()}`;
  const bareWorker = await Worker.create({
    connection: bench.connection,
    taskQueue: bareQueue,
    workflowsPath: fileURLToPath(new URL("./bare-trips-workflow.ts", import.meta.url)),
    activities: bareActivities,
  });
  await bareWorker.runUntil(
    withBenchWorker(bench, [agent], async (taskQueue) => {
      const eagerClient = new Client({ connection: bench.connection });
      const variants: Record<string, () => Promise<unknown>> = {
        "durable-agent, local model and tools": () => agent.run(inputFor(TRIPS), { client: bench.client, taskQueue }),
        "the same, started eagerly (client over the worker's NativeConnection)": () =>
          agent.run(inputFor(TRIPS), { client: eagerClient, taskQueue }),
        "bare Temporal workflow, local activities that return at once": () =>
          bench.client.workflow.execute("bareTrips", { args: [TRIPS], taskQueue: bareQueue, workflowId: randomUUID() }),
        "durable-agent in-process (no Temporal)": () => runInProcess(agent, inputFor(TRIPS)),
      };
      const times: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
      for (let i = 0; i <= rounds; i++) {
        for (const [name, run] of Object.entries(variants)) {
          const started = performance.now();
          const result = await run();
          if (i > 0) times[name]!.push((performance.now() - started) / TRIPS); // round 0 warms up
          if (typeof result === "object" && result && "reply" in result && result.reply !== FINAL_ANSWER)
            throw new Error(`${name} answered ${String(result.reply)}`);
        }
      }
      console.log(`${rounds} interleaved rounds of ${TRIPS} trips, ms per trip (p50, p90):`);
      for (const [name, values] of Object.entries(times))
        console.log(`  ${name}: ${round(percentile(values, 50))}, ${round(percentile(values, 90))}`);
    }),
  );
} finally {
  await bench.server.stop();
  await model.close();
}
