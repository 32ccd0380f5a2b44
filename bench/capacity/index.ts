/**
 * `npm run bench:capacity [-- --quick] [--stack]`: the per-chat figures behind docs/capacity.md.
 * Rounds of K concurrent chats (bench/capacity/chat.ts) against a worker in its own process, with
 * answer deltas through Redis, each round measured apart: Temporal Cloud billable actions (the
 * server's `action` counter), history bytes, worker CPU and memory, frontend requests, Redis
 * traffic per watcher; with `--stack`, the same chats on temporal-server over PostgreSQL for the
 * rows PostgreSQL writes. Prints each figure's mean with its 95% interval over rounds, then the
 * projection for 1 million chats a day; writes bench-results/capacity.json and capacity.md.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { ai, redisDeltas } from "../../src/index.js";
import { startDevServer, startScriptedModel } from "../../src/testing/index.js";
import { startRedisServer } from "../../src/testing/redis-server.js";
import { lineChild } from "../line-child.js";
import { markdownTable } from "../markdown-table.js";
import { formatInterval, meanInterval } from "../stats/index.js";
import { freePort } from "../streaming.js";
import { CHUNK_SIZE, CHUNKS_PER_SECOND, chatScript, runChat } from "./chat.js";
import {
  countsBetween,
  redisTraffic,
  sessionHistoryBytes,
  settledPostgresWrites,
  settledServerCounts,
  total,
} from "./counters.js";
import { DEFAULT_ASSUMPTIONS, projectFleet, type ChatFigures } from "./projection.js";

const quick = process.argv.includes("--quick");
const onStack = process.argv.includes("--stack");
const ROUNDS = quick ? 3 : 8;
const CHATS = quick ? 5 : 20;

/** A worker in its own process: its CPU time so far and its resident memory. */
async function startCapacityWorker(
  address: string,
  namespace: string,
  modelUrl: string,
  redisUrl: string,
  taskQueue: string,
) {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "--conditions=durable-agent-source", new URL("./worker.ts", import.meta.url).pathname],
    {
      env: {
        ...process.env,
        TEMPORAL_ADDRESS: address,
        TEMPORAL_NAMESPACE: namespace,
        BENCH_TASK_QUEUE: taskQueue,
        BENCH_MODEL_URL: modelUrl,
        BENCH_REDIS_URL: redisUrl,
      },
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  const { next, exited, cpuMs } = lineChild(child, "the capacity worker");
  await Promise.race([next("ready"), exited]);
  return {
    exited,
    cpuMs,
    async rssBytes(): Promise<number> {
      const answer = next("rss ");
      child.stdin!.write("rss\n");
      return Number((await answer).split(" ")[1]);
    },
    async stop() {
      const stopped = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await stopped;
    },
  };
}

type Sample = Record<keyof ChatFigures, number>;

/** One round: K chats at once; the per-chat figures. */
async function measureRound(
  ctx: {
    client: Awaited<ReturnType<typeof ai.connect>>;
    taskQueue: string;
    redisUrl: string;
    metricsUrl?: string;
    namespace: string;
    postgresUrl?: string;
  },
  worker: Awaited<ReturnType<typeof startCapacityWorker>>,
): Promise<Partial<Sample> & { actionTypes?: Record<string, number> }> {
  const server0 = ctx.metricsUrl ? await settledServerCounts(ctx.metricsUrl, ctx.namespace) : undefined;
  const pg0 = ctx.postgresUrl ? await settledPostgresWrites(ctx.postgresUrl) : undefined;
  const redis0 = await redisTraffic(ctx.redisUrl);
  const cpu0 = await worker.cpuMs();
  const rss0 = await worker.rssBytes();
  let rssPeak = rss0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      rssPeak = Math.max(rssPeak, await worker.rssBytes());
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  const ids = await Promise.race([
    Promise.all(Array.from({ length: CHATS }, () => runChat(ctx.client, ctx.taskQueue))),
    worker.exited,
  ]);
  sampling = false;
  await sampler;
  const cpu = (await worker.cpuMs()) - cpu0;
  const redis = countsBetween(redis0, await redisTraffic(ctx.redisUrl));
  const histories = await Promise.all(ids.map((id) => sessionHistoryBytes(ctx.client, id)));
  const sample: Partial<Sample> & { actionTypes?: Record<string, number> } = {
    historyBytes: histories.reduce((n, h) => n + h.bytes, 0) / CHATS,
    workerCpuMs: cpu / CHATS,
    workerMiBPerChatInFlight: (rssPeak - rss0) / 2 ** 20 / CHATS,
    redisBytesPerWatcher: (redis.bytesOut ?? 0) / CHATS,
  };
  if (ctx.metricsUrl && server0) {
    const server1 = await settledServerCounts(ctx.metricsUrl, ctx.namespace);
    const actions = countsBetween(server0.actions, server1.actions);
    sample.actions = total(actions) / CHATS;
    sample.frontendRequests = total(countsBetween(server0.requests, server1.requests)) / CHATS;
    sample.actionTypes = Object.fromEntries(Object.entries(actions).map(([k, v]) => [k, v / CHATS]));
  }
  if (ctx.postgresUrl && pg0)
    sample.postgresRowsPerChat =
      ((await settledPostgresWrites(ctx.postgresUrl)).rowsWritten! - pg0.rowsWritten!) / CHATS;
  return sample;
}

/** Rounds against one server (a warm-up round first, not counted). */
async function measure(
  address: string,
  namespace: string,
  redisUrl: string,
  modelUrl: string,
  extra: { metricsUrl?: string; postgresUrl?: string },
) {
  const taskQueue = `capacity-${randomUUID()}`;
  const worker = await startCapacityWorker(address, namespace, modelUrl, redisUrl, taskQueue);
  const client = await ai.connect({ address, namespace, deltas: redisDeltas({ url: redisUrl }) });
  const ctx = { client, taskQueue, redisUrl, namespace, ...extra };
  try {
    await measureRound(ctx, worker);
    const rounds = [];
    for (let r = 1; r <= ROUNDS; r++) {
      rounds.push(await measureRound(ctx, worker));
      console.log(
        `round ${r}/${ROUNDS}: ${JSON.stringify(rounds.at(-1), (_k, v: unknown) => (typeof v === "number" ? Number(v.toFixed(2)) : v))}`,
      );
    }
    return rounds;
  } finally {
    await client.connection.close();
    await worker.stop();
  }
}

const model = await startScriptedModel(chatScript, { chunkSize: CHUNK_SIZE, chunksPerSecond: CHUNKS_PER_SECOND });
const redis = await startRedisServer();
const metricsPort = await freePort();
const server = await startDevServer({ extraArgs: ["--metrics-port", String(metricsPort)] });
const loadAverageAtStart = loadavg().map((n) => Number(n.toFixed(2)));
console.log(
  `bench:capacity: ${ROUNDS} rounds of ${CHATS} chats at once (3 messages, 2 trips each, streamed through Redis), ${cpus().length} cores, load ${loadAverageAtStart.join(" ")}`,
);
let rounds: Awaited<ReturnType<typeof measure>>;
try {
  rounds = await measure(server.address, "default", redis.url, model.baseURL, {
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
  });
} finally {
  await server.stop();
}
let stackRounds: Awaited<ReturnType<typeof measure>> = [];
if (onStack) {
  const { startCapacityStack } = await import("./stack.js");
  const stack = await startCapacityStack();
  try {
    stackRounds = await measure(stack.address, stack.namespace, redis.url, model.baseURL, {
      postgresUrl: stack.postgresUrl,
    });
  } finally {
    await stack.stop();
  }
}
await redis.stop();
await model.close();

const FIGURES: { key: keyof ChatFigures; label: string; from: string; unit: string; digits: number }[] = [
  {
    key: "actions",
    label: "Temporal actions per chat (Cloud billing terms)",
    from: "the dev server's `action` counter",
    unit: "",
    digits: 1,
  },
  {
    key: "historyBytes",
    label: "history bytes per chat",
    from: "the session's histories, as the server stores them",
    unit: " B",
    digits: 0,
  },
  {
    key: "workerCpuMs",
    label: "worker CPU per chat",
    from: "the worker process's `process.cpuUsage()`",
    unit: " ms",
    digits: 1,
  },
  {
    key: "workerMiBPerChatInFlight",
    label: "worker memory per chat in flight",
    from: "the worker's peak RSS over its idle RSS, ÷ chats at once",
    unit: " MiB",
    digits: 2,
  },
  {
    key: "frontendRequests",
    label: "frontend requests per chat",
    from: "the dev server's `service_requests` counter",
    unit: "",
    digits: 1,
  },
  {
    key: "redisBytesPerWatcher",
    label: "Redis bytes out per watcher",
    from: "redis-server's `INFO stats`",
    unit: " B",
    digits: 0,
  },
  {
    key: "postgresRowsPerChat",
    label: "PostgreSQL rows written per chat (stack)",
    from: "`pg_stat_database` on the stack",
    unit: "",
    digits: 1,
  },
];
const figures = {} as ChatFigures;
const rows: Record<string, string>[] = [];
for (const f of FIGURES) {
  const samples = (f.key === "postgresRowsPerChat" ? stackRounds : rounds)
    .map((r) => r[f.key])
    .filter((v): v is number => v !== undefined);
  if (samples.length === 0) continue;
  const interval = meanInterval(samples);
  figures[f.key] = interval.estimate;
  rows.push({ figure: f.label, "mean (95% CI)": formatInterval(interval, f.unit, f.digits), "measured by": f.from });
}
const actionTypes: Record<string, number> = {};
for (const r of rounds)
  for (const [k, v] of Object.entries(r.actionTypes ?? {})) actionTypes[k] = (actionTypes[k] ?? 0) + v / rounds.length;
const projection = projectFleet(figures);
const projectionRows = projection.map((p) => ({
  "1M chats a day (projection)": p.what,
  value: `${p.value.toFixed(p.value < 10 ? 2 : 0)} ${p.unit}`,
  from: p.how,
}));
const report = [
  `bench:capacity, ${new Date().toISOString()}: ${ROUNDS} rounds × ${CHATS} chats, ${cpus().length} cores, load at start ${loadAverageAtStart.join(" ")}`,
  "",
  markdownTable(rows),
  "",
  "Actions per chat by type:",
  "",
  markdownTable(Object.entries(actionTypes).map(([type, n]) => ({ "action type": type, "per chat": n.toFixed(2) }))),
  "",
  `Assumptions: ${JSON.stringify(DEFAULT_ASSUMPTIONS)}`,
  "",
  markdownTable(projectionRows),
].join("\n");
console.log(report);
mkdirSync("bench-results", { recursive: true });
writeFileSync(
  "bench-results/capacity.json",
  JSON.stringify({ quick, rounds, stackRounds, figures, actionTypes, projection }, null, 2),
);
writeFileSync("bench-results/capacity.md", report + "\n");
