/**
 * A pool of `pg` (node-postgres) connections to any PostgreSQL: an optional peer dependency,
 * imported on first use, never by the root. A failure to reach the server, or a connection lost,
 * is a `MemoryStoreUnavailableError` (retryable) that names the URL without its password.
 */
import { MemoryStoreMissingError, MemoryStoreUnavailableError } from "./errors.js";
import type { SqlClient, SqlQuery } from "./sql-client.js";

interface PgQueryable {
  query(text: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
}

interface PgPoolClient extends PgQueryable {
  release(error?: Error | boolean): void;
}

interface PgPool extends PgQueryable {
  connect(): Promise<PgPoolClient>;
  on(event: "error", listener: (error: Error) => void): unknown;
  end(): Promise<void>;
}

interface PgModule {
  default: { Pool: new (options: object) => PgPool };
}

/** A variable, so that bundlers leave the optional package to Node's resolution at run time. */
const PG_PACKAGE = "pg";

/** Settings of the pool. */
export interface PgClientOptions {
  url: string;
  maxConnections: number;
  /** How long a connection attempt waits before it fails (ms). */
  connectTimeoutMs: number;
}

/** `url` without its password, to name the store in errors and logs. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "";
    parsed.searchParams.delete("password");
    return parsed.toString().replace(/^(\w+:\/\/[^:@/]*):?@/, "$1@");
  } catch {
    return url.replace(/:[^:@/]*@/, "@").replace(/password=[^&\s]*/gi, "password=");
  }
}

/** Node's codes for a connection refused, lost or timed out, and PostgreSQL's for "connection exception" and "operator intervention". */
const UNAVAILABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "EPIPE",
]);

/** True for an error that says the server is down or gone, not that a statement is wrong. */
export function isUnavailable(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const code = String((error as { code?: unknown }).code ?? "");
  const message = String((error as { message?: unknown }).message ?? "");
  return (
    UNAVAILABLE_CODES.has(code) ||
    code.startsWith("08") ||
    ["57P01", "57P02", "57P03", "53300"].includes(code) ||
    /Connection terminated|timeout exceeded when trying to connect|connect ECONNREFUSED/i.test(message)
  );
}

/** A pool of connections to `url` (none opened yet). */
export async function openPg(options: PgClientOptions): Promise<SqlClient> {
  let pg: PgModule;
  try {
    pg = (await import(
      /* webpackIgnore: true */ /* turbopackIgnore: true */ /* @vite-ignore */ PG_PACKAGE
    )) as PgModule;
  } catch (error) {
    throw new MemoryStoreMissingError(PG_PACKAGE, error);
  }
  const target = redactUrl(options.url);
  const settings: string[] = [];
  const pool = new pg.default.Pool({
    connectionString: options.url,
    max: options.maxConnections,
    connectionTimeoutMillis: options.connectTimeoutMs,
    application_name: "durable-agent-memory",
    // Before the pool hands a new connection out: the settings given so far (`onEachConnection`).
    onConnect: async (client: PgQueryable) => {
      for (const statement of settings) await client.query(statement);
    },
  });
  // An idle connection that breaks (PostgreSQL restarted) is dropped by the pool; the next query opens another.
  pool.on("error", () => undefined);
  const wrap = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      throw isUnavailable(error) ? new MemoryStoreUnavailableError("postgres", target, error) : error;
    }
  };
  const query: SqlQuery = (text, params) => wrap(async () => (await pool.query(text, params)).rows as never);
  return {
    query,
    transaction: (fn) =>
      wrap(async () => {
        const client = await pool.connect();
        try {
          await client.query("BEGIN");
          const result = await fn(async (text, params) => (await client.query(text, params)).rows as never);
          await client.query("COMMIT");
          client.release();
          return result;
        } catch (error) {
          await client.query("ROLLBACK").then(
            () => client.release(),
            (rollback: Error) => client.release(rollback),
          );
          throw error;
        }
      }),
    onEachConnection: async (statement) => {
      settings.push(statement);
      await query(statement);
    },
    close: () => pool.end(),
  };
}
