/**
 * The memory stores a user picks: `memoryStores.pglite({ dataDir })`, embedded, with nothing to run;
 * `memoryStores.postgres({ url })`, any PostgreSQL (pgvector when it has it, else exact search).
 * Neither opens anything until `open()` (a worker's start) or a first call.
 */
import type { MemoryStore } from "./memory-store.js";
import { openPg, redactUrl } from "./pg-client.js";
import { openPGlite } from "./pglite-client.js";
import { SqlMemoryStore } from "./sql-memory-store.js";

/** Options of `memoryStores.pglite()`. */
export interface PGliteMemoryOptions {
  /** The directory PGlite keeps its database in (created when missing). Absent: in memory, gone when the process ends. */
  dataDir?: string;
  /** Where `open()` says which search is in use. Default `console.info`. */
  log?: (line: string) => void;
  /** The schema version to migrate to. Default: the newest; an older one is for migration tests. */
  schemaVersion?: number;
}

/** Options of `memoryStores.postgres()`. */
export interface PostgresMemoryOptions {
  /** A PostgreSQL connection URL, `postgres://user:password@host:5432/db`. */
  url: string;
  /** Connections in the pool. Default 5. */
  maxConnections?: number;
  /** How long a connection attempt waits before the store counts as unreachable (ms). Default 5,000. */
  connectTimeoutMs?: number;
  /** `"exact"`: never use pgvector, even where it is installed. Default `"auto"`: pgvector when the database has it or can create it. */
  search?: "auto" | "exact";
  /** Where `open()` says which search is in use. Default `console.info`. */
  log?: (line: string) => void;
  /** The schema version to migrate to. Default: the newest; an older one is for migration tests. */
  schemaVersion?: number;
}

/** The memory stores: give one to `ai.memory({ store })`. */
export const memoryStores = {
  /** PGlite (PostgreSQL in WebAssembly, in-process) with pgvector: needs `@electric-sql/pglite` and `@electric-sql/pglite-pgvector`. */
  pglite(options: PGliteMemoryOptions = {}): MemoryStore {
    return new SqlMemoryStore({
      kind: "pglite",
      target: options.dataDir ?? "memory",
      connect: () => openPGlite(options.dataDir),
      wantVector: true,
      schemaVersion: options.schemaVersion,
      log: options.log ?? console.info,
    });
  },
  /** Any PostgreSQL through `pg` (node-postgres): pgvector's HNSW index when the extension exists, else exact search in SQL. */
  postgres(options: PostgresMemoryOptions): MemoryStore {
    return new SqlMemoryStore({
      kind: "postgres",
      target: redactUrl(options.url),
      connect: () =>
        openPg({
          url: options.url,
          maxConnections: options.maxConnections ?? 5,
          connectTimeoutMs: options.connectTimeoutMs ?? 5_000,
        }),
      wantVector: options.search !== "exact",
      schemaVersion: options.schemaVersion,
      log: options.log ?? console.info,
    });
  },
};
