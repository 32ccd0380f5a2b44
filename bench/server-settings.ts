/**
 * `npm run bench:server-settings [-- --rounds N] [-- --only 0,1]`: which dev server dynamic config settings matter,
 * measured on bare workflows (bench/server-settings-workflows.ts) so only the server's paths count.
 * One dev server per setting, all up at once, and the same measures interleaved across them:
 * - a trip: 10 trips of two activities each, ms per trip (the second of two runs back to back;
 *   a server's turn comes every few seconds, so its transfer queue's rate limiter has reads saved
 *   up: the cap of `history.transferProcessorMaxPollRPS` shows under sustained load, as in
 *   `npm run bench`'s overhead rounds, not here);
 * - a timer: three 1 ms timers one after another, ms per timer (retry backoffs, approval timeouts);
 * - visibility lag: from a run's start to its first appearance in `list` (ms).
 * Prints p50/p90 and writes bench-results/server-settings.json.
 */
import { randomUUID } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { NativeConnection, Worker } from "@temporalio/worker";
import { DEV_SERVER_DYNAMIC_CONFIG, startDevServer } from "../src/testing/index.js";
import { bareActivities } from "./bare-activities.js";
import { CLI_DEFAULT_DYNAMIC_CONFIG, dynamicConfigFlags, percentile, round } from "./lib.js";

const roundsArg = process.argv.indexOf("--rounds");
const ROUNDS = roundsArg > 0 ? Number(process.argv[roundsArg + 1]) : 15;
const TRIPS = 10;
const TIMERS = 3;

/** The settings compared: the CLI as it ships, then one or two settings changed from it, then ours (DEV_SERVER_DYNAMIC_CONFIG) and ours plus one more. */
const cli = CLI_DEFAULT_DYNAMIC_CONFIG;
const SETTINGS: { name: string; values: Record<string, string> }[] = [
  { name: "CLI defaults", values: cli },
  {
    name: "history.transferProcessorMaxPollRPS=1000",
    values: { ...cli, "history.transferProcessorMaxPollRPS": "1000" },
  },
  { name: "history.timerProcessorMaxPollRPS=1000", values: { ...cli, "history.timerProcessorMaxPollRPS": "1000" } },
  {
    name: 'history.timerProcessorMaxTimeShift="10ms"',
    values: { ...cli, "history.timerProcessorMaxTimeShift": '"10ms"' },
  },
  { name: "ours (DEV_SERVER_DYNAMIC_CONFIG)", values: DEV_SERVER_DYNAMIC_CONFIG },
  {
    name: "ours + history.visibilityProcessorMaxPollRPS=1000",
    values: { ...DEV_SERVER_DYNAMIC_CONFIG, "history.visibilityProcessorMaxPollRPS": "1000" },
  },
  {
    name: "ours + one task queue partition",
    values: {
      ...DEV_SERVER_DYNAMIC_CONFIG,
      "matching.numTaskqueueReadPartitions": "1",
      "matching.numTaskqueueWritePartitions": "1",
    },
  },
];

const onlyArg = process.argv.indexOf("--only");
/** `--only 0,1`: just these settings (by index). */
if (onlyArg > 0) {
  const keep = new Set(process.argv[onlyArg + 1]!.split(",").map(Number));
  for (let i = SETTINGS.length - 1; i >= 0; i--) if (!keep.has(i)) SETTINGS.splice(i, 1);
}
const servers = await Promise.all(
  SETTINGS.map(({ values }) => startDevServer({ extraArgs: dynamicConfigFlags(values) })),
);
const connections: NativeConnection[] = [];
try {
  const subjects = await Promise.all(
    servers.map(async (server) => {
      const connection = await NativeConnection.connect({ address: server.address });
      connections.push(connection);
      const taskQueue = `settings-${randomUUID()}`;
      const worker = await Worker.create({
        connection,
        taskQueue,
        workflowsPath: fileURLToPath(new URL("./server-settings-workflows.ts", import.meta.url)),
        activities: bareActivities,
      });
      return { server, taskQueue, worker, running: worker.run() };
    }),
  );
  const measures = ["ms per trip", "ms per timer", "visibility lag ms"] as const;
  const times = SETTINGS.map(
    () => Object.fromEntries(measures.map((m) => [m, [] as number[]])) as Record<(typeof measures)[number], number[]>,
  );
  for (let round_ = 0; round_ <= ROUNDS; round_++) {
    for (const [i, { server, taskQueue }] of subjects.entries()) {
      const client = server.env.client;
      const record = (measure: (typeof measures)[number], ms: number) => round_ > 0 && times[i]![measure].push(ms); // round 0 warms up
      // Back to back, as runs of a busy server are: a first run drains what the server's rate
      // limiters saved up while this server sat idle (its turn comes every few seconds), then one is measured.
      await client.workflow.execute("activityTrips", { taskQueue, workflowId: randomUUID(), args: [TRIPS] });
      let t = performance.now();
      await client.workflow.execute("activityTrips", { taskQueue, workflowId: randomUUID(), args: [TRIPS] });
      record("ms per trip", (performance.now() - t) / TRIPS);
      t = performance.now();
      await client.workflow.execute("shortTimers", { taskQueue, workflowId: randomUUID(), args: [TIMERS] });
      record("ms per timer", (performance.now() - t) / TIMERS);
      const workflowId = randomUUID();
      const handle = await client.workflow.start("shortTimers", { taskQueue, workflowId, args: [0] });
      t = performance.now();
      for (;;) {
        const page = await client.workflowService.listWorkflowExecutions({
          namespace: "default",
          query: `WorkflowId = '${workflowId}'`,
        });
        if (page.executions.length > 0) break;
      }
      record("visibility lag ms", performance.now() - t);
      await handle.result();
    }
    console.log(`round ${round_} of ${ROUNDS} done`);
  }
  const results = SETTINGS.map((setting, i) => ({
    ...setting,
    figures: Object.fromEntries(
      measures.map((m) => [m, { p50: round(percentile(times[i]![m], 50)), p90: round(percentile(times[i]![m], 90)) }]),
    ) as Record<(typeof measures)[number], { p50: number; p90: number }>,
  }));
  console.log(`${ROUNDS} interleaved rounds (p50 / p90):`);
  console.table(
    Object.fromEntries(
      results.map((r) => [
        r.name,
        Object.fromEntries(measures.map((m) => [m, `${r.figures[m].p50} / ${r.figures[m].p90}`])),
      ]),
    ),
  );
  mkdirSync("bench-results", { recursive: true });
  writeFileSync(
    "bench-results/server-settings.json",
    JSON.stringify({ rounds: ROUNDS, trips: TRIPS, timers: TIMERS, results }, null, 2) + "\n",
  );
  for (const s of subjects) s.worker.shutdown();
  await Promise.all(subjects.map((s) => s.running));
} finally {
  await Promise.all(connections.map((c) => c.close()));
  await Promise.all(servers.map((s) => s.stop()));
}
