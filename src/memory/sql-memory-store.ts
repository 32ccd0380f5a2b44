/**
 * A `MemoryStore` over SQL, the same for PGlite and PostgreSQL: idempotent message writes keyed by
 * `(run, turn, index)`, recall by cosine similarity (pgvector's HNSW index, or exact in SQL over
 * `real[]`), each match with its session neighbours, and working memory written by compare-and-set.
 */
import type {
  MemoryMessage,
  MemoryMessageWrite,
  MemoryStore,
  RecallQuery,
  RecalledMessage,
  WorkingMemoryDocument,
  WorkingMemoryWrite,
} from "./memory-store.js";
import { MemoryStoreMissingError, MemoryStoreUnavailableError, MemoryWriteError } from "./errors.js";
import { ensureVectorIndex, migrate, vectorType } from "./schema.js";
import type { SqlClient, SqlQuery } from "./sql-client.js";

/** How a `SqlMemoryStore` reaches its database and says what it uses. */
export interface SqlStoreSettings {
  kind: "pglite" | "postgres";
  /** What errors and the log name: a URL without its password, a data directory, or "memory". */
  target: string;
  connect(): Promise<SqlClient>;
  /** Whether to use pgvector when the database has it (false: always exact). */
  wantVector: boolean;
  /** The schema version to migrate to (default: the newest). */
  schemaVersion?: number | undefined;
  /** Where the line saying which search is in use goes. */
  log: (line: string) => void;
}

/** Rows written per INSERT statement. */
const BATCH = 200;
const COLUMNS = "run, turn, msg_index, user_id, session, role, text, created_at";

interface MessageRow {
  run: string;
  turn: number;
  msg_index: number;
  user_id: string;
  session: string;
  role: "user" | "assistant";
  text: string;
  created_at: Date | string;
}

/** The SQL store behind `memoryStores.pglite()` and `memoryStores.postgres()`. */
export class SqlMemoryStore implements MemoryStore {
  private opened: Promise<{ client: SqlClient; search: "pgvector" | "exact" }> | undefined;
  private readonly indexed = new Set<number>();
  /** Messages written since the last ANALYZE, and the rows the table had then (PGlite has no autovacuum to keep the planner's statistics). */
  private written = 0;
  private analyzedRows = 0;

  constructor(private readonly settings: SqlStoreSettings) {}

  get kind(): string {
    return this.settings.kind;
  }

  async open(): Promise<{ search: "pgvector" | "exact" }> {
    return { search: (await this.ready()).search };
  }

  private ready(): Promise<{ client: SqlClient; search: "pgvector" | "exact" }> {
    this.opened ??= this.connect().catch((error: unknown) => {
      this.opened = undefined;
      throw error;
    });
    return this.opened;
  }

  private async connect(): Promise<{ client: SqlClient; search: "pgvector" | "exact" }> {
    const { kind, target } = this.settings;
    let client: SqlClient | undefined;
    try {
      client = await this.settings.connect();
      const migration = await migrate(client.transaction, {
        target: this.settings.schemaVersion,
        wantVector: this.settings.wantVector,
      });
      const search = migration.pgvector ? "pgvector" : "exact";
      // With a filter (a user, a session), HNSW scans on until it finds enough rows (pgvector 0.8).
      if (search === "pgvector") await client.onEachConnection("SET hnsw.iterative_scan = relaxed_order");
      const migrated =
        migration.from === migration.to ? `schema v${migration.to}` : `schema v${migration.from} → v${migration.to}`;
      this.settings.log(
        `durable-agent memory: ${kind} store at ${target}, ${migrated}, ` +
          (search === "pgvector"
            ? "pgvector search (HNSW, cosine)"
            : "exact search (cosine in SQL over real[]; no pgvector)"),
      );
      return { client, search };
    } catch (error) {
      await client?.close().catch(() => undefined);
      if (MemoryStoreUnavailableError.isInstance(error) || MemoryStoreMissingError.isInstance(error)) throw error;
      throw new MemoryStoreUnavailableError(kind, target, error);
    }
  }

  async addMessages(messages: MemoryMessageWrite[]): Promise<void> {
    messages.forEach(checkMessage);
    if (!messages.length) return;
    const { client, search } = await this.ready();
    if (search === "pgvector") {
      for (const dims of new Set(messages.map((m) => m.embedding.length))) {
        if (this.indexed.has(dims)) continue;
        await ensureVectorIndex(client.transaction, dims);
        this.indexed.add(dims);
      }
    }
    for (let start = 0; start < messages.length; start += BATCH) {
      const batch = messages.slice(start, start + BATCH);
      const params: unknown[] = [];
      const rows = batch.map((m) => {
        const values = [
          m.run,
          m.turn,
          m.index,
          m.user,
          m.session,
          m.role,
          m.text,
          m.createdAt,
          m.embedding.length,
          m.embedding,
          norm(m.embedding),
        ];
        const first = params.length + 1;
        params.push(...values);
        return `(${values.map((_, i) => `$${first + i}`).join(", ")})`;
      });
      await client.query(
        `INSERT INTO memory_messages (${COLUMNS}, dims, embedding, norm) VALUES ${rows.join(", ")} ON CONFLICT DO NOTHING`,
        params,
      );
    }
    await this.analyzeAsItGrows(client, messages.length);
  }

  /**
   * ANALYZE once the table has grown by a fifth (at least 500 rows) since the last: the planner then
   * knows when a user's rows are few (scan them exactly) or many (walk the HNSW index).
   */
  private async analyzeAsItGrows(client: SqlClient, added: number): Promise<void> {
    this.written += added;
    if (this.written < Math.max(500, this.analyzedRows / 5)) return;
    await client.query(`ANALYZE memory_messages`);
    const [row] = await client.query<{ rows: number }>(
      `SELECT reltuples::float8 AS rows FROM pg_class WHERE relname = 'memory_messages'`,
    );
    this.analyzedRows = Math.max(0, Number(row?.rows ?? 0));
    this.written = 0;
  }

  async recall(query: RecallQuery): Promise<RecalledMessage[]> {
    const dims = query.embedding.length;
    if (!dims || !query.embedding.every(Number.isFinite))
      throw new MemoryWriteError("embedding", "the query's embedding must be finite numbers");
    if (!Number.isInteger(query.topK) || query.topK < 1) return [];
    const { client, search } = await this.ready();
    const params: unknown[] = [query.user, query.topK, Math.max(0, Math.floor(query.messageRange))];
    const filters = [`user_id = $1`, `dims = ${dims}`];
    const same = [`x.user_id = $1`, `x.session = m.session`];
    if (query.session !== undefined) filters.push(`session = $${params.push(query.session)}`);
    if (query.excludeRun !== undefined) {
      const p = params.push(query.excludeRun);
      filters.push(`run <> $${p}`);
      same.push(`x.run <> $${p}`);
    }
    const type = search === "pgvector" ? vectorType(dims) : undefined;
    let matches: string;
    if (type) {
      const q = `$${params.push(JSON.stringify(query.embedding))}::${type}(${dims})`;
      matches =
        `SELECT run, turn, msg_index, session, 1 - ((embedding::${type}(${dims})) <=> ${q}) AS score FROM memory_messages ` +
        `WHERE ${filters.join(" AND ")} ORDER BY (embedding::${type}(${dims})) <=> ${q} LIMIT $2`;
    } else {
      const q = `$${params.push(query.embedding)}::real[]`;
      const qNorm = `$${params.push(norm(query.embedding))}::float8`;
      const score = `(SELECT sum(a::float8 * b) FROM unnest(embedding, ${q}) AS pair(a, b)) / nullif(norm * ${qNorm}, 0)`;
      matches =
        `SELECT run, turn, msg_index, session, ${score} AS score FROM memory_messages ` +
        `WHERE ${filters.join(" AND ")} ORDER BY 5 DESC NULLS LAST LIMIT $2`;
    }
    const near = (op: string, order: string, limit: string) =>
      `(SELECT ${COLUMNS} FROM memory_messages x WHERE ${same.join(" AND ")} ` +
      `AND (x.turn, x.msg_index, x.run) ${op} (m.turn, m.msg_index, m.run) ORDER BY x.turn ${order}, x.msg_index ${order}, x.run ${order} LIMIT ${limit})`;
    const rows = await client.query<MessageRow & { score: number | null; is_match: boolean }>(
      `WITH m AS (${matches}) ` +
        `SELECT n.*, m.score, (n.run = m.run AND n.turn = m.turn AND n.msg_index = m.msg_index) AS is_match FROM m ` +
        `CROSS JOIN LATERAL (${near("<", "DESC", "$3")} UNION ALL ${near(">=", "ASC", "$3 + 1")}) n`,
      params,
    );
    return inSessionOrder(rows);
  }

  async getWorkingMemory(user: string): Promise<WorkingMemoryDocument | undefined> {
    const { client } = await this.ready();
    const [row] = await client.query<WorkingRow>(
      `SELECT content, version, updated_at FROM memory_working WHERE user_id = $1`,
      [user],
    );
    return row && toDocument(row);
  }

  async setWorkingMemory(
    user: string,
    content: unknown,
    expectedVersion: number,
    key: string,
  ): Promise<WorkingMemoryWrite> {
    if (!Number.isInteger(expectedVersion) || expectedVersion < 0)
      throw new MemoryWriteError("expectedVersion", `must be a whole number ≥ 0 (got ${String(expectedVersion)})`);
    const json = JSON.stringify(content);
    if (json === undefined)
      throw new MemoryWriteError("content", "working memory must be JSON (a string or an object)");
    const { client } = await this.ready();
    const write =
      expectedVersion === 0
        ? `INSERT INTO memory_working (user_id, content, version, updated_at) SELECT $1, $2::jsonb, 1, now() ` +
          `WHERE $3::int = 0 AND NOT EXISTS (SELECT 1 FROM prior) ON CONFLICT (user_id) DO NOTHING RETURNING version`
        : `UPDATE memory_working SET content = $2::jsonb, version = version + 1, updated_at = now() ` +
          `WHERE user_id = $1 AND version = $3 AND NOT EXISTS (SELECT 1 FROM prior) RETURNING version`;
    const [row] = await client.query<{ prior: number | null; written: number | null }>(
      `WITH prior AS (SELECT version FROM memory_working_keys WHERE user_id = $1 AND key = $4), ` +
        `written AS (${write}), ` +
        `keyed AS (INSERT INTO memory_working_keys (user_id, key, version) SELECT $1, $4, version FROM written ON CONFLICT DO NOTHING) ` +
        `SELECT (SELECT version FROM prior) AS prior, (SELECT version FROM written) AS written`,
      [user, json, expectedVersion, key],
    );
    const version = row?.written ?? row?.prior;
    if (version != null) return { ok: true, version };
    // A write under this key may have committed while this one waited on the row (a retried activity racing itself).
    const [keyed] = await client.query<{ version: number }>(
      `SELECT version FROM memory_working_keys WHERE user_id = $1 AND key = $2`,
      [user, key],
    );
    if (keyed) return { ok: true, version: keyed.version };
    const current = await this.getWorkingMemory(user);
    return { ok: false, current: current ?? { content: null, version: 0, updatedAt: new Date(0).toISOString() } };
  }

  async forget(user: string): Promise<{ messages: number; workingMemory: boolean }> {
    const { client } = await this.ready();
    return client.transaction(async (query: SqlQuery) => {
      const [messages] = await query<{ n: number }>(
        `WITH d AS (DELETE FROM memory_messages WHERE user_id = $1 RETURNING 1) SELECT count(*)::int AS n FROM d`,
        [user],
      );
      const working = await query(`DELETE FROM memory_working WHERE user_id = $1 RETURNING 1`, [user]);
      await query(`DELETE FROM memory_working_keys WHERE user_id = $1`, [user]);
      return { messages: messages?.n ?? 0, workingMemory: working.length > 0 };
    });
  }

  async inspect(user: string): Promise<{ workingMemory?: WorkingMemoryDocument; messages: MemoryMessage[] }> {
    const { client } = await this.ready();
    const rows = await client.query<MessageRow>(
      `SELECT ${COLUMNS} FROM memory_messages WHERE user_id = $1 ORDER BY created_at, session, turn, msg_index, run`,
      [user],
    );
    const workingMemory = await this.getWorkingMemory(user);
    return { ...(workingMemory ? { workingMemory } : {}), messages: rows.map(toMessage) };
  }

  /** Bytes the memory tables take, with their indexes (the benchmark's store size per message). */
  async storageBytes(): Promise<number> {
    const { client } = await this.ready();
    const tables = ["memory_messages", "memory_working", "memory_working_keys", "memory_migrations"];
    const [row] = await client.query<{ bytes: string | number }>(
      `SELECT sum(pg_total_relation_size(c.oid))::bigint AS bytes FROM pg_class c WHERE c.relname = ANY($1) AND c.relkind = 'r'`,
      [tables],
    );
    return Number(row?.bytes ?? 0);
  }

  async close(): Promise<void> {
    const opened = this.opened;
    this.opened = undefined;
    if (opened) await (await opened.catch(() => undefined))?.client.close();
  }
}

interface WorkingRow {
  content: unknown;
  version: number;
  updated_at: Date | string;
}

function toDocument(row: WorkingRow): WorkingMemoryDocument {
  return { content: row.content, version: row.version, updatedAt: new Date(row.updated_at).toISOString() };
}

function toMessage(row: MessageRow): MemoryMessage {
  return {
    user: row.user_id,
    session: row.session,
    run: row.run,
    turn: row.turn,
    index: row.msg_index,
    role: row.role,
    text: row.text,
    createdAt: new Date(row.created_at).toISOString(),
  };
}

/** Matches and neighbours, each message once (as a match if it is one, else with its best match's score), session by session. */
function inSessionOrder(rows: Array<MessageRow & { score: number | null; is_match: boolean }>): RecalledMessage[] {
  const byKey = new Map<string, RecalledMessage>();
  for (const row of rows) {
    const key = JSON.stringify([row.run, row.turn, row.msg_index]);
    const score = Number(row.score ?? 0);
    const seen = byKey.get(key);
    if (seen && (!seen.neighbour || (!row.is_match && seen.score >= score))) continue;
    byKey.set(key, {
      ...toMessage(row),
      score: seen && !row.is_match ? Math.max(seen.score, score) : score,
      neighbour: !row.is_match,
    });
  }
  const messages = [...byKey.values()];
  const firstSaid = new Map<string, string>();
  for (const m of messages)
    if (!firstSaid.has(m.session) || m.createdAt < firstSaid.get(m.session)!) firstSaid.set(m.session, m.createdAt);
  const order = (m: RecalledMessage) => [firstSaid.get(m.session)!, m.session] as const;
  return messages.sort((a, b) => {
    const [fa, sa] = order(a);
    const [fb, sb] = order(b);
    return (
      fa.localeCompare(fb) || sa.localeCompare(sb) || a.turn - b.turn || a.index - b.index || a.run.localeCompare(b.run)
    );
  });
}

function norm(vector: number[]): number {
  return Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
}

function checkMessage(message: MemoryMessageWrite, i: number): void {
  const field = (name: string) => `messages[${i}].${name}`;
  for (const name of ["user", "session", "run", "text"] as const)
    if (typeof message[name] !== "string") throw new MemoryWriteError(field(name), "must be a string");
  for (const name of ["turn", "index"] as const)
    if (!Number.isInteger(message[name]) || message[name] < 0)
      throw new MemoryWriteError(field(name), "must be a whole number ≥ 0");
  if (message.role !== "user" && message.role !== "assistant")
    throw new MemoryWriteError(field("role"), `must be "user" or "assistant"`);
  if (Number.isNaN(Date.parse(message.createdAt)))
    throw new MemoryWriteError(field("createdAt"), "must be an ISO 8601 time");
  if (!Array.isArray(message.embedding) || !message.embedding.length || !message.embedding.every(Number.isFinite))
    throw new MemoryWriteError(field("embedding"), "must be a non-empty array of finite numbers");
}
