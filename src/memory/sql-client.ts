/**
 * What a memory store needs of a database: queries, and transactions on one connection. PGlite
 * (in-process) and `pg` (a pool of connections to any PostgreSQL) each give one.
 */

/** Runs one statement. Rows come back as objects keyed by column name. */
export type SqlQuery = <T = Record<string, unknown>>(text: string, params?: unknown[]) => Promise<T[]>;

/** A database connection (or pool) as a memory store uses it. */
export interface SqlClient {
  query: SqlQuery;
  /** Runs `fn` inside BEGIN … COMMIT on one connection (ROLLBACK if it throws). */
  transaction<T>(fn: (query: SqlQuery) => Promise<T>): Promise<T>;
  /** Runs `statement` on every connection, now and when one opens (a setting such as `hnsw.iterative_scan`). */
  onEachConnection(statement: string): Promise<void>;
  close(): Promise<void>;
}
