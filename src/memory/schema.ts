/**
 * The memory tables and their versioned migrations. `migrate()` runs at a store's `open()`, in one
 * transaction that first takes an advisory lock: two workers that open together queue on the lock,
 * and the second finds the schema already at its version. The same tables serve both searches:
 * embeddings are `real[]`; with pgvector, an HNSW index over their cast to `vector(n)` (cosine)
 * is added per dimension count (`ensureVectorIndex`).
 */
import type { SqlQuery } from "./sql-client.js";

/** The advisory lock key of memory migrations (any constant; "durable-agent memory" hashed). */
const MIGRATION_LOCK = 748_215_093;

/** Each version's statements; version N is `MIGRATIONS[N - 1]`. */
const MIGRATIONS: string[][] = [
  // v1: the messages, keyed by (run, turn, index); neighbours are read in session order.
  [
    `CREATE TABLE memory_messages (
      run text NOT NULL,
      turn integer NOT NULL,
      msg_index integer NOT NULL,
      user_id text NOT NULL,
      session text NOT NULL,
      role text NOT NULL,
      text text NOT NULL,
      created_at timestamptz NOT NULL,
      dims integer NOT NULL,
      embedding real[] NOT NULL,
      norm real NOT NULL,
      PRIMARY KEY (run, turn, msg_index)
    )`,
    `CREATE INDEX memory_messages_session ON memory_messages (user_id, session, turn, msg_index, run)`,
  ],
  // v2: working memory, versioned, with the keys of the writes made (a retried write returns its version).
  [
    `CREATE TABLE memory_working (
      user_id text PRIMARY KEY,
      content jsonb NOT NULL,
      version integer NOT NULL,
      updated_at timestamptz NOT NULL
    )`,
    `CREATE TABLE memory_working_keys (
      user_id text NOT NULL,
      key text NOT NULL,
      version integer NOT NULL,
      PRIMARY KEY (user_id, key)
    )`,
  ],
];

/** The newest schema version. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** What `migrate()` did. */
export interface Migration {
  /** The version found before. */
  from: number;
  /** The version now. */
  to: number;
  /** Whether pgvector is installed in the database (created here when it can be). */
  pgvector: boolean;
}

/**
 * Brings the schema to `target` (default the newest) inside `transaction`'s one transaction,
 * holding the migration lock; creates the `vector` extension when `wantVector` and it can.
 */
export async function migrate(
  transaction: <T>(fn: (query: SqlQuery) => Promise<T>) => Promise<T>,
  options: { target?: number; wantVector: boolean },
): Promise<Migration> {
  const target = options.target ?? SCHEMA_VERSION;
  return transaction(async (query) => {
    await query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
    await query(
      `CREATE TABLE IF NOT EXISTS memory_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL)`,
    );
    const [row] = await query<{ version: number | null }>(`SELECT max(version) AS version FROM memory_migrations`);
    const from = row?.version ?? 0;
    for (let version = from + 1; version <= target; version++) {
      for (const statement of MIGRATIONS[version - 1]!) await query(statement);
      await query(`INSERT INTO memory_migrations (version, applied_at) VALUES ($1, now())`, [version]);
    }
    const pgvector = options.wantVector && (await createVector(query));
    return { from, to: Math.max(from, target), pgvector };
  });
}

/** Whether the `vector` extension is installed, installing it when it is available and this user may. */
async function createVector(query: SqlQuery): Promise<boolean> {
  const installed = await query(`SELECT 1 FROM pg_extension WHERE extname = 'vector'`);
  if (installed.length) return true;
  const available = await query(`SELECT 1 FROM pg_available_extensions WHERE name = 'vector'`);
  if (!available.length) return false;
  await query(`SAVEPOINT memory_vector`);
  try {
    await query(`CREATE EXTENSION IF NOT EXISTS vector`);
    await query(`RELEASE SAVEPOINT memory_vector`);
    return true;
  } catch {
    await query(`ROLLBACK TO SAVEPOINT memory_vector`);
    return false;
  }
}

/** pgvector's type for an HNSW index of `dims` dimensions: `vector` up to 2,000, `halfvec` up to 4,000; none above. */
export function vectorType(dims: number): string | undefined {
  return dims <= 2000 ? "vector" : dims <= 4000 ? "halfvec" : undefined;
}

/** The HNSW index (cosine) of the embeddings with `dims` dimensions, made once, under the migration lock. */
export async function ensureVectorIndex(
  transaction: <T>(fn: (query: SqlQuery) => Promise<T>) => Promise<T>,
  dims: number,
): Promise<void> {
  const type = vectorType(dims);
  if (!type) return;
  await transaction(async (query) => {
    await query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
    await query(
      `CREATE INDEX IF NOT EXISTS memory_messages_hnsw_${dims} ON memory_messages ` +
        `USING hnsw ((embedding::${type}(${dims})) ${type}_cosine_ops) WHERE dims = ${dims}`,
    );
  });
}
