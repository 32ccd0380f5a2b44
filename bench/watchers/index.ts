/**
 * `npm run bench:watchers` (add `-- --quick` for CI: under 90 s): many watchers of many streamed
 * runs (issue 33). N runs answer at once at a steady pace, each read by W watchers spread over the
 * client processes, through each transport: (a) the old per-watcher describe loop, (b) history
 * long-polls plus heartbeats (the default), (c) Redis deltas. Cells run round by round, in turn.
 * Then the cancel rows (cancel.ts): W watchers that connect and cancel in a loop, to an idle run and
 * to an answering one. Prints the tables and the goals, and writes bench-results/watchers.json and watchers.md. Redis is
 * Debian's /usr/bin/redis-server (or REDIS_SERVER_PATH), started on a free loopback port.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { randomUUID } from "node:crypto";
import { startDevServer, startScriptedModel } from "../../src/testing/index.js";
import { startRedisServer } from "../../src/testing/redis-server.js";
import { markdownTable } from "../markdown-table.js";
import { interleaveRounds } from "../stats/index.js";
import { freePort, startWorker } from "../streaming.js";
import { ClientProcess } from "./client-process.js";
import {
  GatedAnswers,
  historyCounts,
  measureRound,
  unstreamedEvents,
  type CellRound,
  type HistoryCount,
  type RoundContext,
} from "./measure.js";
import { CHUNK_SIZE, CHUNKS_PER_SECOND, FULL_PLAN, QUICK_PLAN, TRANSPORT_LABEL } from "./plan.js";
import { summarize, watchersGoals, watchersRows } from "./report.js";
import { CANCEL_PLAN, measureCancels, QUICK_CANCEL_PLAN } from "./cancel.js";
import { cancelGoals, cancelTableRows } from "./cancel-report.js";

const quick = process.argv.includes("--quick");
const plan = quick ? QUICK_PLAN : FULL_PLAN;
const transports = plan.transports;
const loadAverageAtStart = loadavg().map((n) => Number(n.toFixed(2)));
const startedAt = Date.now();

const metricsPort = await freePort();
const server = await startDevServer({ extraArgs: ["--metrics-port", String(metricsPort)] });
const answers = new GatedAnswers(plan.answerChunks);
const model = await startScriptedModel(answers.script, { chunkSize: CHUNK_SIZE, chunksPerSecond: CHUNKS_PER_SECOND });
const redis = transports.includes("redis") ? await startRedisServer() : undefined;
// Heartbeats unless told otherwise: the environment names no Redis for the workers and clients.
const unset = { DURABLE_AGENT_REDIS_URL: "" };
const startWorkerFor = (env: Record<string, string>) => {
  const taskQueue = `bench-watchers-${randomUUID()}`;
  const subject = { name: "durable-agent", library: "durable-agent" } as const;
  return startWorker(server.address, model.baseURL, subject, taskQueue, { ...unset, ...env }).then((worker) => ({
    taskQueue,
    ...worker,
  }));
};
const heartbeatWorker = await startWorkerFor({});
const redisWorker = redis ? await startWorkerFor({ BENCH_REDIS_URL: redis.url }) : undefined;
const clientEnv = { ...unset, ...(redis ? { BENCH_REDIS_URL: redis.url } : {}) };
const startClients = () =>
  Promise.all(Array.from({ length: plan.clientProcesses }, () => ClientProcess.start(server.address, clientEnv)));
const context: RoundContext = {
  plan,
  client: server.env.client,
  metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
  answers,
  worker: (transport) => (transport === "redis" ? redisWorker! : heartbeatWorker),
  clients: await startClients(),
  async restartClients() {
    await Promise.all(context.clients.map((c) => c.close()));
    context.clients = await startClients();
  },
  counts: {},
};

/** The unstreamed baseline, a warm-up round per transport (not counted: it leaves `context.counts` settled), then the rounds. */
async function measureAll(): Promise<{ unstreamed: HistoryCount[]; rounds: CellRound[] }> {
  const unstreamed = await unstreamedEvents(context);
  for (const transport of transports) await measureRound(context, transport, 1, -1);
  const rounds: CellRound[] = [];
  const cells = plan.watchersPerRun.flatMap((w) => transports.map((transport) => ({ transport, w })));
  await interleaveRounds(cells, plan.rounds, async ({ transport, w }, round) => {
    if (round > 0 && plan.firstRoundOnly.some((c) => c.transport === transport && c.watchersPerRun === w)) return;
    const measured = await measureRound(context, transport, w, round);
    rounds.push(measured);
    console.log(
      `bench: watchers: round ${round + 1}/${plan.rounds}, ${transport}, W=${w}: ${Math.round(measured.windowMs)} ms, ` +
        `${Object.values(measured.requests).reduce((a, b) => a + b, 0)} requests, ${measured.unfinished} unfinished`,
    );
  });
  for (const measured of rounds) measured.histories = await historyCounts(context.client, measured.workflowIds);
  return { unstreamed, rounds };
}

/** The watcher rounds, then the cancel rows (W watchers that connect and cancel in a loop). */
async function measureEverything() {
  const measured = await measureAll();
  const cancels = await measureCancels(server.address, server.env.client, quick ? QUICK_CANCEL_PLAN : CANCEL_PLAN);
  return { ...measured, cancels };
}

const { unstreamed, rounds, cancels } = await measureEverything().finally(async () => {
  await Promise.all(context.clients.map((c) => c.close()));
  await heartbeatWorker.stop();
  await redisWorker?.stop();
  await redis?.stop();
  await model.close();
  await server.stop();
});

const summaries = summarize(rounds, plan, transports);
const goals = watchersGoals(rounds, summaries, plan, unstreamed);
const rows = watchersRows(summaries);
const cancelRows = cancelTableRows(cancels);
goals.push(...cancelGoals(cancels));
const goalRows = goals.map((g) => ({ goal: g.goal, figure: g.figure, status: g.status }));
console.table(rows);
console.table(cancelRows);
console.table(goalRows);
const machine = {
  cpus: cpus().length,
  cpuModel: cpus()[0]?.model,
  memoryGiB: Math.round(totalmem() / 2 ** 30),
  node: process.version,
  loadAverageAtStart,
  loadAverageAtEnd: loadavg().map((n) => Number(n.toFixed(2))),
};
const seconds = Math.round((Date.now() - startedAt) / 1000);
mkdirSync("bench-results", { recursive: true });
writeFileSync(
  "bench-results/watchers.json",
  JSON.stringify(
    { machine, quick, plan, seconds, unstreamedEvents: unstreamed, summaries, cancels, goals, rounds },
    null,
    2,
  ) + "\n",
);
writeFileSync(
  "bench-results/watchers.md",
  [
    `Machine: ${machine.cpus} cores (${machine.cpuModel ?? "?"}), ${machine.memoryGiB} GiB, Node ${machine.node}; ` +
      `load average ${machine.loadAverageAtStart[0]} at the start, ${machine.loadAverageAtEnd[0]} at the end; ${seconds} s` +
      `${quick ? "; --quick" : ""}.`,
    `${plan.runs} runs answering at once (${plan.answerChunks} chunks of ${CHUNK_SIZE} characters at ${CHUNKS_PER_SECOND} a second), ` +
      `W watchers each over ${plan.clientProcesses} client processes; ${plan.rounds} rounds, cells in turn; mean [95% interval] over the rounds. ` +
      `Transports: ${transports.map((t) => TRANSPORT_LABEL[t]).join(", ")}.`,
    markdownTable(rows),
    "Cancel rows: W watchers of one run that connect (each reads its first event) and cancel at once " +
      "(half their SSE body, half `return()`), in a loop, from one client process.",
    markdownTable(cancelRows),
    markdownTable(goalRows),
  ].join("\n\n") + "\n",
);
console.log(`bench: watchers: ${seconds} s; figures and goals in bench-results/watchers.json and watchers.md`);
