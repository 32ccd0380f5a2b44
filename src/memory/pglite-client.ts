/**
 * PGlite (`@electric-sql/pglite`, PostgreSQL compiled to WebAssembly, in-process) with pgvector
 * (`@electric-sql/pglite-pgvector`): optional peer dependencies, imported on first use, never by the root.
 */
import { MemoryStoreMissingError } from "./errors.js";
import type { SqlClient, SqlQuery } from "./sql-client.js";

/** The calls of a PGlite instance the store makes; typed here so this package's types do not need PGlite's. */
interface PGliteDatabase {
  query<T>(text: string, params?: unknown[]): Promise<{ rows: T[] }>;
  exec(sql: string): Promise<unknown>;
  transaction<T>(
    fn: (tx: { query<R>(text: string, params?: unknown[]): Promise<{ rows: R[] }> }) => Promise<T>,
  ): Promise<T>;
  close(): Promise<void>;
}

interface PGliteModule {
  PGlite: { create(options: { dataDir?: string; extensions: Record<string, unknown> }): Promise<PGliteDatabase> };
}

/** Variables, so that bundlers leave the optional packages to Node's resolution at run time. */
const PGLITE_PACKAGE = "@electric-sql/pglite";
const PGVECTOR_PACKAGE = "@electric-sql/pglite-pgvector";

async function load<T>(name: string): Promise<T> {
  try {
    return (await import(/* webpackIgnore: true */ /* turbopackIgnore: true */ /* @vite-ignore */ name)) as T;
  } catch (error) {
    throw new MemoryStoreMissingError(name, error);
  }
}

/** A PGlite database with pgvector, in `dataDir` (created when missing) or in memory. */
export async function openPGlite(dataDir: string | undefined): Promise<SqlClient> {
  const [{ PGlite }, { vector }] = await Promise.all([
    load<PGliteModule>(PGLITE_PACKAGE),
    load<{ vector: unknown }>(PGVECTOR_PACKAGE),
  ]);
  const db = await PGlite.create({ ...(dataDir === undefined ? {} : { dataDir }), extensions: { vector } });
  const query: SqlQuery = async (text, params) => (await db.query(text, params)).rows as never;
  return {
    query,
    transaction: (fn) =>
      db.transaction((tx) => fn(async (text, params) => (await tx.query(text, params)).rows as never)),
    onEachConnection: async (statement) => void (await db.exec(statement)),
    close: () => db.close(),
  };
}
