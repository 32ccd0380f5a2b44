/**
 * `npm run soak -- --minutes <m> --runs <n> --seed <s> [--no-redis] [--kill-mid-answer]`: a soak under continuous
 * faults on the production topology. Stands up the stack (PostgreSQL, temporal-server with its
 * services in processes of their own, Redis for answer deltas, 3 worker processes serving
 * bench/soak/agents.ts, memory in the stack's PostgreSQL), the scripted model, the scripted
 * embeddings server and an MCP server; starts `n` runs over `m` minutes
 * in a mix of scenarios while the fault driver breaks something every 5-20 s (and Redis every
 * 15-40 s); then checks every run (bench/soak/checker.ts), writes `bench-results/soak.json`,
 * prints the table (with each worker kill's time to resume: bench/soak/resume.ts), and exits 1 on
 * any violation. `--no-redis`: deltas on heartbeats, no Redis faults, the rest of the seed's plan
 * the same. `--kill-mid-answer`: each worker kill takes a worker whose answer is streaming.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Client, Connection } from "@temporalio/client";
import { databaseCredentials, REPO_ROOT } from "../../deploy/stack/environment.js";
import { startStack } from "../../deploy/stack/index.js";
import { CACHE_ROOT } from "../../deploy/stack/install.js";
import { findFreeFrontendPort, findFreePort, ManagedProcess } from "../../deploy/stack/processes.js";
import { memoryStores } from "../../src/memory/index.js";
import { startScriptedEmbeddings } from "../../src/testing/index.js";
import { check, temporalRuns, type StoredMemoryMessage } from "./checker.js";
import { runFaults } from "./faults.js";
import { createLedger, Ledger } from "./ledger.js";
import { startSoakModel } from "./model.js";
import { planSoak } from "./plan.js";
import { killToResume } from "./resume.js";
import { buildReport, formatReport } from "./report.js";
import { Driver } from "./scenarios.js";

const { values } = parseArgs({
  options: {
    minutes: { type: "string", default: "10" },
    runs: { type: "string", default: "500" },
    seed: { type: "string" },
    "drain-minutes": { type: "string", default: "3" },
    "no-redis": { type: "boolean", default: false },
    "kill-mid-answer": { type: "boolean", default: false },
  },
});
const withRedis = !values["no-redis"];
const minutes = Number(values.minutes);
const runs = Number(values.runs);
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
if (!(minutes > 0) || !Number.isInteger(runs) || runs < 1 || !Number.isInteger(seed))
  throw new Error(
    "usage: npm run soak -- [--minutes <m>] [--runs <n>] [--seed <integer>] [--drain-minutes <d>] [--no-redis] [--kill-mid-answer]",
  );
const windowMs = minutes * 60_000;
const drainMs = Number(values["drain-minutes"]) * 60_000;
const TASK_QUEUE = "soak";
const log = (line: string) => console.log(`soak: ${line}`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What memory stored for the runs' users, read with the store's `inspect` as `durable-agent memory inspect` does. */
async function storedMemory(): Promise<StoredMemoryMessage[]> {
  const store = memoryStores.postgres({ url: stack.memory.url, log: () => {} });
  try {
    const users = [...new Set(records.flatMap((r) => (r.user ? [r.user] : [])))];
    return (await Promise.all(users.map(async (user) => (await store.inspect(user)).messages))).flat();
  } finally {
    await store.close();
  }
}

log(
  `seed ${seed}, ${runs} runs over ${minutes} minutes, answer deltas ${withRedis ? "through Redis" : "on heartbeats"}`,
);
const { records, faults, faultRng, driverRng, redisFaults, redisFaultRng } = planSoak(seed, runs, windowMs, {
  redis: withRedis,
});

const setupStarted = performance.now();
const model = await startSoakModel();
const embeddings = await startScriptedEmbeddings();
const stack = await startStack({
  dataDir: join(CACHE_ROOT, `soak-${process.pid}`),
  fresh: true,
  split: true,
  port: await findFreeFrontendPort(),
  postgresPort: await findFreePort(),
  uiPort: false,
  redis: withRedis ? await findFreePort() : false,
  agentsModule: join(import.meta.dirname, "agents.ts"),
  log,
});
// The soak's own client reads the deltas where the workers publish them (the workers have it from the stack).
if (stack.redis) process.env.DURABLE_AGENT_REDIS_URL = stack.redis.url;
else delete process.env.DURABLE_AGENT_REDIS_URL;
const mcpPort = await findFreePort();
const ledgerUrl = await createLedger({ host: "127.0.0.1", port: stack.postgres.port, ...databaseCredentials() });
const workerEnv = {
  TEMPORAL_TASK_QUEUE: TASK_QUEUE,
  OPENAI_BASE_URL: model.server.baseURL,
  OPENAI_API_KEY: "soak",
  SOAK_LEDGER_URL: ledgerUrl,
  SOAK_MCP_URL: `http://127.0.0.1:${mcpPort}/mcp`,
  SOAK_EMBEDDINGS_URL: embeddings.baseURL,
};
const mcp = new ManagedProcess({
  name: "soak-mcp-server",
  command: process.execPath,
  args: ["--import", "tsx", "--conditions=durable-agent-source", join(import.meta.dirname, "mcp-server.ts")],
  cwd: REPO_ROOT,
  env: { ...process.env, SOAK_MCP_PORT: String(mcpPort), SOAK_LEDGER_URL: ledgerUrl },
  logFile: join(stack.logDir, "mcp-server.log"),
});
mcp.start();
const addWorker = () => stack.addWorker(workerEnv);
await Promise.all([mcp.waitForLine(/listening/), addWorker(), addWorker(), addWorker()]);
const connection = await Connection.connect({ address: stack.address });
const client = new Client({ connection, namespace: stack.namespace });
const setupSeconds = (performance.now() - setupStarted) / 1000;
log(`memory: ${records.filter((r) => r.user).length} runs with a user, ${stack.memory.search} search`);
log(
  `stack up in ${setupSeconds.toFixed(1)} s (${Object.entries(stack.timings)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ")}); logs in ${stack.logDir}`,
);

const began = Date.now();
const deadline = began + windowMs + drainMs;
const driver = new Driver(client, TASK_QUEUE, driverRng, () => deadline);
const targets = {
  stack,
  model,
  mcp,
  subscribers: driver.subscribers,
  redis: stack.redis,
  addWorker,
  killMidAnswer: values["kill-mid-answer"],
};
const faultsDone = Promise.all([
  runFaults(faults, targets, faultRng, began, log),
  runFaults(redisFaults, targets, redisFaultRng, began, log),
]);
const runsDone = Promise.all(
  records.map(async (record) => {
    await sleep(record.dueMs - (Date.now() - began));
    await driver.run(record);
  }),
);
const progress = setInterval(() => {
  const ended = records.filter((r) => r.endedAt).length;
  const started = records.filter((r) => r.startedAt).length;
  log(
    `${((Date.now() - began) / 1000).toFixed(0)} s: ${started} started, ${ended} ended, ${started - ended} in flight; ${model.server.requests.length} model requests`,
  );
}, 30_000);
await faultsDone;
const allEnded = await Promise.race([
  runsDone.then(() => true),
  sleep(Math.max(0, deadline - Date.now())).then(() => false),
]);
clearInterval(progress);
const soakSeconds = (Date.now() - began) / 1000;
log(
  `${allEnded ? "every run ended" : "the drain deadline passed with runs in flight"} after ${soakSeconds.toFixed(0)} s; checking`,
);

const ledger = new Ledger(ledgerUrl);
const verdict = await check(
  records,
  await ledger.rows(),
  model.server.requests,
  temporalRuns(client),
  await storedMemory(),
);
await ledger.close();
const allFaults = [...faults, ...redisFaults].sort((a, b) => a.dueMs - b.dueMs);
for (const fault of allFaults)
  if (fault.error)
    verdict.violations.push({
      check: "fault",
      detail: `${fault.kind} at ${fault.injectedMs} ms could not be injected or repaired: ${fault.error}`,
    });
const subscribers = records.flatMap((r) => r.subscribers ?? []);
const scenarios: Record<string, number> = {};
for (const r of records) scenarios[r.scenario] = (scenarios[r.scenario] ?? 0) + 1;
const watchers = new Map(records.map((r) => [r.key, r.subscribers ?? []]));
const report = buildReport(
  { seed, minutes, runs },
  verdict,
  allFaults,
  records.flatMap((r) => (r.endedAt ? [r.endedAt - began] : [])),
  killToResume(began, allFaults, model.calls, watchers),
  {
    scenarios,
    modelFaultsDealt: model.faults.dealt,
    modelRequests: model.server.requests.length,
    clientRetries: records.reduce((n, r) => n + r.retried.length, 0),
    answerDeltas: withRedis ? `redis (${stack.redis!.url})` : "heartbeats",
    memory: { search: stack.memory.search, embeddingRequests: embeddings.requests.length, ...verdict.memory },
    subscribers: subscribers.length,
    subscriberDisconnects: subscribers.reduce((n, s) => n + s.disconnects, 0),
    subscriberPauses: subscribers.reduce((n, s) => n + s.pauses, 0),
    subscriberErrors: subscribers.reduce((n, s) => n + s.errors.length, 0),
    textDeltasSeen: subscribers.reduce((n, s) => n + s.deltas.length, 0),
    setupSeconds: Number(setupSeconds.toFixed(1)),
    soakSeconds: Number(soakSeconds.toFixed(1)),
    faultLog: allFaults
      .filter((f) => f.injectedMs !== undefined)
      .map((f) => ({
        kind: f.kind,
        atMs: f.injectedMs,
        repairedMs: f.repairedMs,
        detail: f.detail,
        ...(f.error ? { error: f.error } : {}),
      })),
  },
);
mkdirSync(join(REPO_ROOT, "bench-results"), { recursive: true });
writeFileSync(join(REPO_ROOT, "bench-results", "soak.json"), `${JSON.stringify(report, null, 2)}\n`);
console.log(
  `\nsoak: ${report.violations.length ? "FAILED" : "passed"} (bench-results/soak.json)\n${formatReport(report)}`,
);

// The connection stays open: the result reads of stuck runs still poll on it until the exit.
await mcp.stop("SIGKILL");
await stack.stop();
await model.server.close();
await embeddings.close();
if (!report.violations.length) rmSync(join(CACHE_ROOT, `soak-${process.pid}`), { recursive: true, force: true });
else log(`the stack's data and logs are kept in ${join(CACHE_ROOT, `soak-${process.pid}`)}`);
process.exit(report.violations.length ? 1 : 0);
