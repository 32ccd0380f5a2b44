/**
 * The soak's ledger: one row per execution of a side effect (a tool execution, an MCP call, a
 * backstop run), in a table of the stack's own PostgreSQL, keyed by the effect's idempotency key
 * plus an execution counter. Distinct keys are the effects; rows are the executions.
 *
 * A write retries while PostgreSQL is down (the soak stops it for seconds at a time), as an
 * application's effect store would: an effect waits for its database, it is not dropped.
 */
import pg from "pg";

/** What kind of side effect a row records. */
export type EffectKind = "tool" | "local-tool" | "mcp" | "backstop" | "approved-tool" | "child-tool";

/** One execution of a side effect. */
export interface LedgerRow {
  key: string;
  execution: number;
  kind: EffectKind;
  workflowId: string;
  pid: number;
  at: Date;
}

const CREATE = `CREATE TABLE IF NOT EXISTS soak_ledger (
  key text NOT NULL,
  execution integer NOT NULL,
  kind text NOT NULL,
  workflow_id text NOT NULL,
  pid integer NOT NULL,
  at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (key, execution)
)`;

/** Creates the ledger's database (`soak`) and table on the stack's PostgreSQL; returns the database's URL. */
export async function createLedger(server: {
  host: string;
  port: number;
  user: string;
  password: string;
}): Promise<string> {
  const admin = new pg.Client({ ...server, database: "postgres" });
  await admin.connect();
  try {
    const exists = await admin.query("SELECT 1 FROM pg_database WHERE datname = 'soak'");
    if (!exists.rowCount) await admin.query("CREATE DATABASE soak");
  } finally {
    await admin.end();
  }
  const url = `postgres://${encodeURIComponent(server.user)}:${encodeURIComponent(server.password)}@${server.host}:${server.port}/soak`;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(CREATE);
    await client.query("TRUNCATE soak_ledger");
  } finally {
    await client.end();
  }
  return url;
}

/** A process's connection pool to the ledger, made on first use. */
export class Ledger {
  #pool: pg.Pool | undefined;

  constructor(private readonly url: string) {}

  private get pool(): pg.Pool {
    this.#pool ??= new pg.Pool({ connectionString: this.url, max: 4, connectionTimeoutMillis: 2_000 });
    // An idle connection that PostgreSQL's stop ends is an error event on the pool: expected here.
    this.#pool.on("error", () => undefined);
    return this.#pool;
  }

  /**
   * Records one execution of the effect `key`; retries for up to `deadlineMs` while the database
   * cannot be reached (calling `onRetry` each time, e.g. to heartbeat). Returns the execution's number.
   */
  async record(
    key: string,
    kind: EffectKind,
    workflowId: string,
    options: { signal?: AbortSignal; onRetry?: () => void; deadlineMs?: number } = {},
  ): Promise<number> {
    const deadline = Date.now() + (options.deadlineMs ?? 60_000);
    for (let pause = 100; ; pause = Math.min(pause * 2, 1_000)) {
      try {
        const { rows } = await this.pool.query<{ execution: number }>(
          `INSERT INTO soak_ledger (key, execution, kind, workflow_id, pid)
           SELECT $1, COALESCE(MAX(execution), 0) + 1, $2, $3, $4 FROM soak_ledger WHERE key = $1
           RETURNING execution`,
          [key, kind, workflowId, process.pid],
        );
        return rows[0]!.execution;
      } catch (error) {
        if (options.signal?.aborted || Date.now() > deadline) throw error;
        options.onRetry?.();
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  }

  /** Every row, in order of key and execution. */
  async rows(): Promise<LedgerRow[]> {
    const { rows } = await this.pool.query<{
      key: string;
      execution: number;
      kind: EffectKind;
      workflow_id: string;
      pid: number;
      at: Date;
    }>("SELECT * FROM soak_ledger ORDER BY key, execution");
    return rows.map((r) => ({
      key: r.key,
      execution: r.execution,
      kind: r.kind,
      workflowId: r.workflow_id,
      pid: r.pid,
      at: r.at,
    }));
  }

  async close(): Promise<void> {
    await this.#pool?.end();
    this.#pool = undefined;
  }
}
