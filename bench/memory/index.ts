/**
 * `npm run bench:memory` (add `-- --quick` for 1,000 and 10,000 messages only): recall latency of
 * the memory stores (issue 43). Each store is filled through `addMessages` to 1,000, 10,000 and
 * 100,000 messages, all of one user or spread over 1,000 users (PGlite in-process with its HNSW
 * index built after each size's rows, each filled size kept in the cache for reruns: see
 * bulk-pglite.ts; `--fresh` fills anyway), and at each size asked ROUNDS rounds of QUERIES recalls
 * (topK 5, messageRange 1, scope user) of a random user: p50 and p95 per round, as means over the
 * rounds with their 95% intervals. Stores: PGlite in-process (pgvector, HNSW), PostgreSQL 15 of
 * Debian's binaries without pgvector (exact search in SQL), and PGlite over pglite-socket through
 * `pg` (pgvector over the wire; up to 10,000, and 1,000 under --quick). Also the store's size per
 * message, the fill time, and exact search's ceiling: the messages per user at which its p95
 * reaches 50 ms, from its cost per message (exact search scans all the user's messages). Writes
 * bench-results/memory.json and memory.md.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { memoryStores } from "../../src/memory/index.js";
import type { SqlMemoryStore } from "../../src/memory/sql-memory-store.js";
import { openBulkPGlite, type FillTimes } from "./bulk-pglite.js";
import { scriptedEmbedding } from "../../src/testing/scripted-embeddings.js";
import { startPGliteServer, startPostgres, type MemoryDatabaseServer } from "../../test/support/memory-postgres.js";
import { markdownTable } from "../markdown-table.js";
import { percentile, round } from "../numbers.js";
import { Prng } from "../soak/prng.js";
import { judgeAll, judgeExact, meanInterval, formatInterval, type Goal, type Interval } from "../stats/index.js";
import { messages, sentence, userOf } from "./corpus.js";

const quick = process.argv.includes("--quick");
/** `--stores pglite,postgres,socket`: only these subjects (default all); their results go to memory-<stores>.json. */
const storesArg = process.argv[process.argv.indexOf("--stores") + 1];
const only = process.argv.includes("--stores") && storesArg ? storesArg.split(",") : undefined;
const OUT = only ? `memory-${only.join("-")}` : "memory";
const SIZES = quick ? [1_000, 10_000] : [1_000, 10_000, 100_000];
const LAYOUTS = [1, 1_000];
const ROUNDS = 6;
const QUERIES = quick ? 20 : 30;
/** A cell stops taking rounds after this long (exact search at 100,000 messages of one user takes seconds a query). */
const CELL_BUDGET_MS = 90_000;
const GOAL_MS = 50;
const LOAD_BATCH = 1_000;

/** An open store of a subject, and how it grows. */
interface Opened {
  store: SqlMemoryStore;
  fill(from: number, to: number, users: number): Promise<FillTimes>;
  close(): Promise<void>;
}

interface Subject {
  name: string;
  search: "pgvector" | "exact";
  sizes: number[];
  open(): Promise<Opened>;
  stop(): Promise<void>;
}

/** A store filled as a worker fills it: `addMessages` calls of LOAD_BATCH, its index (if any) kept up to date by each. */
async function rowByRow(store: SqlMemoryStore): Promise<Opened> {
  await store.open();
  return {
    store,
    async fill(from, to, users) {
      const t0 = performance.now();
      for (let at = from; at < to; at += LOAD_BATCH)
        await store.addMessages(messages(at, Math.min(to, at + LOAD_BATCH), users));
      return { loadMs: performance.now() - t0, indexMs: 0 };
    },
    close: () => store.close(),
  };
}

interface Cell {
  store: string;
  search: string;
  users: number;
  messages: number;
  rounds: number;
  queries: number;
  p50Ms: Interval;
  p95Ms: Interval;
  bytesPerMessage: number;
  loadPerSecond: number;
  /** Seconds this size's new rows took to go in, and to build the index after them (0: kept up to date by the writes). */
  loadSeconds: number;
  indexSeconds: number;
  /** The filled store was a cached copy of an earlier run's (the fill times are that run's). */
  fillCached: boolean;
}

const log = () => undefined;
const servers: MemoryDatabaseServer[] = [];
let databases = 0;
const allSubjects: Array<Subject & { key: string }> = [
  {
    key: "pglite",
    name: "PGlite in-process",
    search: "pgvector",
    sizes: SIZES,
    open: () => openBulkPGlite(),
    stop: async () => undefined,
  },
  {
    key: "postgres",
    name: "PostgreSQL 15 (no pgvector)",
    search: "exact",
    sizes: SIZES,
    open: async () => {
      servers[0] ??= await startPostgres();
      return rowByRow(
        memoryStores.postgres({ url: await servers[0].database(`bench_${++databases}`), log }) as SqlMemoryStore,
      );
    },
    stop: async () => servers[0]?.stop(),
  },
  {
    key: "socket",
    name: "PGlite over pglite-socket (pg)",
    search: "pgvector",
    sizes: SIZES.filter((n) => n <= (quick ? 1_000 : 10_000)),
    open: async () => {
      servers[1] ??= await startPGliteServer();
      return rowByRow(memoryStores.postgres({ url: await servers[1].database(""), log }) as SqlMemoryStore);
    },
    stop: async () => servers[1]?.stop(),
  },
];

const subjects = allSubjects.filter((s) => !only || only.includes(s.key));

async function measure(
  store: SqlMemoryStore,
  users: number,
  size: number,
): Promise<Pick<Cell, "rounds" | "queries" | "p50Ms" | "p95Ms">> {
  const prng = new Prng(size + users);
  const p50s: number[] = [];
  const p95s: number[] = [];
  const started = performance.now();
  let queries = 0;
  for (let r = 0; r < ROUNDS && (r === 0 || performance.now() - started < CELL_BUDGET_MS); r++) {
    const times: number[] = [];
    for (let q = 0; q < QUERIES; q++) {
      const user = userOf(Math.floor(prng.next() * Math.min(size, users)), users);
      const embedding = scriptedEmbedding(sentence(prng));
      const t0 = performance.now();
      await store.recall({ user, embedding, topK: 5, messageRange: 1 });
      times.push(performance.now() - t0);
      if (r === 0 && q >= 4 && performance.now() - started > CELL_BUDGET_MS) break;
    }
    queries += times.length;
    p50s.push(percentile(times, 50));
    p95s.push(percentile(times, 95));
  }
  return { rounds: p50s.length, queries, p50Ms: meanInterval(p50s), p95Ms: meanInterval(p95s) };
}

const cells: Cell[] = [];
const startedAt = Date.now();
for (const subject of subjects) {
  for (const users of LAYOUTS) {
    const opened = await subject.open();
    const { store } = opened;
    let stored = 0;
    for (const size of subject.sizes) {
      const { loadMs, indexMs, cached = false } = await opened.fill(stored, size, users);
      const loadPerSecond = round((size - stored) / ((loadMs + indexMs) / 1000), 0);
      stored = size;
      const bytesPerMessage = Math.round((await store.storageBytes()) / size);
      const cell = {
        store: subject.name,
        search: subject.search,
        users,
        messages: size,
        bytesPerMessage,
        loadPerSecond,
        loadSeconds: round(loadMs / 1000, 1),
        indexSeconds: round(indexMs / 1000, 1),
        fillCached: cached,
        ...(await measure(store, users, size)),
      };
      cells.push(cell);
      console.log(
        `${subject.name}, ${users} user(s), ${size} messages: recall p50 ${formatInterval(cell.p50Ms, " ms")}, p95 ${formatInterval(cell.p95Ms, " ms")} ` +
          `(${cell.rounds} rounds, ${cell.queries} recalls); ${bytesPerMessage} B/message; loaded ${loadPerSecond}/s ` +
          `(rows ${cell.loadSeconds} s, index ${cell.indexSeconds} s${cached ? ", a cached fill's" : ""})`,
      );
    }
    await opened.close();
  }
  await subject.stop();
}

/** Messages per user at which exact search's p95 reaches GOAL_MS: its cost grows with the user's messages, so from the largest measured cell. */
const exactOneUser = cells
  .filter((c) => c.search === "exact" && c.users === 1)
  .sort((a, b) => b.messages - a.messages)[0];
const exactCeiling = exactOneUser
  ? Math.round((GOAL_MS / exactOneUser.p95Ms.estimate) * exactOneUser.messages)
  : undefined;
const pgvectorAtMost = cells.filter((c) => c.search === "pgvector" && c.messages === 100_000);

const goals: Goal[] = [
  {
    goal: `recall p95 ≤ ${GOAL_MS} ms at 100,000 messages with pgvector (PGlite; one user and 1,000 users)`,
    figure:
      pgvectorAtMost.map((c) => `${c.users} user(s): ${formatInterval(c.p95Ms, " ms")}`).join("; ") ||
      (quick ? "not measured (--quick)" : "not measured (no pgvector store in this run)"),
    status: judgeAll(
      pgvectorAtMost.map((c) => c.p95Ms),
      { atMost: GOAL_MS },
    ),
  },
  {
    goal: `exact search's ceiling measured: messages of one user at which its recall p95 reaches ${GOAL_MS} ms`,
    figure: exactOneUser
      ? `about ${exactCeiling!.toLocaleString("en")} messages (p95 ${round(exactOneUser.p95Ms.estimate)} ms at ${exactOneUser.messages.toLocaleString("en")})`
      : "not measured",
    status: judgeExact(exactOneUser ? true : null),
  },
];

const rows = cells.map((c) => ({
  store: c.store,
  search: c.search,
  users: c.users.toLocaleString("en"),
  messages: c.messages.toLocaleString("en"),
  "recall p50 (ms)": formatInterval(c.p50Ms, ""),
  "recall p95 (ms)": formatInterval(c.p95Ms, ""),
  rounds: `${c.rounds} × ${Math.round(c.queries / c.rounds)}`,
  "bytes/message": c.bytesPerMessage,
  "load (messages/s)": c.loadPerSecond,
  "fill: rows + index (s)": `${c.loadSeconds} + ${c.indexSeconds}${c.fillCached ? " (cached)" : ""}`,
}));
const table = markdownTable(rows);
const goalTable = markdownTable(goals.map((g) => ({ goal: g.goal, figure: g.figure, status: g.status })));
console.log(`\n${table}\n\n${goalTable}`);
mkdirSync("bench-results", { recursive: true });
const machine = {
  cores: availableParallelism(),
  loadAverage: round(loadavg()[0]!),
  minutes: round((Date.now() - startedAt) / 60_000),
};
writeFileSync(
  `bench-results/${OUT}.json`,
  JSON.stringify({ memory: { quick, machine, cells, exactCeiling }, goals }, null, 2) + "\n",
);
writeFileSync(
  `bench-results/${OUT}.md`,
  `${table}\n\n${goalTable}\n\nMachine: ${machine.cores} cores, load ${machine.loadAverage}, ${machine.minutes} min.\n`,
);
console.log(`bench: memory recall figures and goals in bench-results/${OUT}.json and ${OUT}.md`);
