/**
 * The benchmark's in-process PGlite store, filled the fast way. Row by row with its HNSW index in
 * place PGlite (WebAssembly, one core) takes 10–20 ms a message, hours for 100,000; pgvector builds
 * an index over rows already stored far faster. So the store is the production one (its
 * migrations, its `addMessages` multi-row INSERTs, its recall query), but its index is dropped
 * while a size's rows go in and built again after, by the store's own `ensureVectorIndex`, with
 * `maintenance_work_mem` raised so that pgvector builds the graph in memory. Each filled size's
 * data directory is kept in the cache (`DURABLE_AGENT_BENCH_CACHE`, else `bench/` in this
 * package's cache), keyed by schema version, corpus, users and size: a rerun copies it back
 * instead of filling again (`--fresh` fills anyway).
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { openPGlite } from "../../src/memory/pglite-client.js";
import { ensureVectorIndex, SCHEMA_VERSION } from "../../src/memory/schema.js";
import type { SqlClient } from "../../src/memory/sql-client.js";
import { SqlMemoryStore } from "../../src/memory/sql-memory-store.js";
import { cacheDir } from "../../src/testing/temporal-cli.js";
import { CORPUS_VERSION, messages } from "./corpus.js";

/** Memory pgvector may build the index in: it builds the graph in memory only while it fits (PGlite's default is 64 MB). */
const MAINTENANCE_WORK_MEM = "1GB";
/** Rows per `addMessages` call. */
const LOAD_BATCH = 5_000;

/** How long a fill took: the rows' INSERTs, then the index build; `cached` when a copy of an earlier fill was used (its times). */
export interface FillTimes {
  loadMs: number;
  indexMs: number;
  cached?: boolean;
}

const CACHE = process.env.DURABLE_AGENT_BENCH_CACHE || join(cacheDir(), "bench");
const fresh = process.argv.includes("--fresh");
const cachedDir = (users: number, size: number) =>
  join(CACHE, `memory-pglite-schema${SCHEMA_VERSION}-corpus${CORPUS_VERSION}-${users}users-${size}`);

/** A PGlite store (pgvector) in a temporary data directory, and `fill` to grow it to a size. */
export interface BulkPGliteStore {
  store: SqlMemoryStore;
  /** Adds messages `from` … `to - 1` of the corpus of `users` users; the index is rebuilt over all rows. */
  fill(from: number, to: number, users: number): Promise<FillTimes>;
  /** Closes the store and deletes its data directory. */
  close(): Promise<void>;
}

/** Opens a fresh store; its schema comes from its own migrations at `open()`. */
export async function openBulkPGlite(): Promise<BulkPGliteStore> {
  const dataDir = mkdtempSync(join(tmpdir(), "durable-agent-bench-memory-"));
  let client: SqlClient | undefined;
  const store = new SqlMemoryStore({
    kind: "pglite",
    target: dataDir,
    connect: async () => (client = await openPGlite(dataDir)),
    wantVector: true,
    log: () => undefined,
  });
  const reopen = async () => {
    const { search } = await store.open();
    if (search !== "pgvector") throw new Error(`bench: PGlite opened with ${search} search, not pgvector`);
    await client!.query(`SET maintenance_work_mem = '${MAINTENANCE_WORK_MEM}'`);
  };
  await reopen();
  const dims = messages(0, 1, 1)[0]!.embedding.length;
  return {
    store,
    async fill(from, to, users) {
      const cached = cachedDir(users, to);
      if (!fresh && existsSync(join(cached, "fill.json"))) {
        await store.close();
        rmSync(dataDir, { recursive: true, force: true });
        cpSync(cached, dataDir, { recursive: true });
        await reopen();
        return { ...(JSON.parse(readFileSync(join(cached, "fill.json"), "utf8")) as FillTimes), cached: true };
      }
      const sql = client!;
      const t0 = performance.now();
      // The store makes its index before its first write: let it (one row), then drop it for the load.
      if (from === 0) await store.addMessages(messages(0, 1, users));
      await sql.query(`DROP INDEX IF EXISTS memory_messages_hnsw_${dims}`);
      for (let at = Math.max(from, 1); at < to; at += LOAD_BATCH)
        await store.addMessages(messages(at, Math.min(to, at + LOAD_BATCH), users));
      await sql.query(`ANALYZE memory_messages`);
      const t1 = performance.now();
      await ensureVectorIndex(sql.transaction, dims);
      const times = { loadMs: t1 - t0, indexMs: performance.now() - t1 };
      // A closed PGlite's directory is whole: copy it under a temporary name, then rename.
      await store.close();
      rmSync(`${cached}.tmp`, { recursive: true, force: true });
      cpSync(dataDir, `${cached}.tmp`, { recursive: true });
      writeFileSync(join(`${cached}.tmp`, "fill.json"), JSON.stringify(times));
      rmSync(cached, { recursive: true, force: true });
      renameSync(`${cached}.tmp`, cached);
      await reopen();
      return times;
    },
    async close() {
      await store.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
