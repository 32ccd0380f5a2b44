/**
 * The stores' PostgreSQL for memory tests and the memory benchmark: a throwaway cluster of Debian's
 * PostgreSQL (no pgvector, so the exact search) through the stack's `PostgresCluster`, and PGlite
 * with pgvector served over the wire by `@electric-sql/pglite-socket` (pgvector through `pg`).
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { PostgresCluster } from "../../deploy/stack/postgres.js";
import { freePort } from "../../src/testing/port-check.js";

/** A running database server and the URL of a database on it. */
export interface MemoryDatabaseServer {
  /** The URL of a database; `database(name)` makes another. */
  url: string;
  /** Creates an empty database and gives its URL. */
  database(name: string): Promise<string>;
  stop(): Promise<void>;
}

/** A PostgreSQL cluster that can be stopped and started again (its data kept). */
export interface PostgresServer extends MemoryDatabaseServer {
  /** Stops the server (fast shutdown: open connections end). */
  pause(): Promise<void>;
  /** Starts it again. */
  resume(): Promise<void>;
}

/** The newest installed PostgreSQL's bin directory, or undefined. */
export function findPostgresBin(): string | undefined {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const major = readdirSync(root)
    .filter((v) => existsSync(join(root, v, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a))[0];
  return major && join(root, major, "bin");
}

function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

async function createDatabase(url: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  return withDatabase(url, name);
}

/** A PostgreSQL cluster of its own in a temporary directory, on a free port. */
export async function startPostgres(): Promise<PostgresServer> {
  const bin = findPostgresBin();
  if (!bin)
    throw new Error(
      "No PostgreSQL under /usr/lib/postgresql: `apt-get install postgresql` (the stack installs it too)",
    );
  const dataDir = mkdtempSync("/tmp/durable-agent-memory-pg-");
  const cluster = PostgresCluster.create({
    bin,
    dataDir,
    port: await freePort(),
    user: "memory",
    password: "memory-test",
  });
  await cluster.startInBackground();
  const url = `postgres://memory:memory-test@127.0.0.1:${cluster.port}/postgres`;
  let running = true;
  return {
    url,
    database: (name) => createDatabase(url, name),
    pause: async () => {
      running = false;
      await cluster.stopInBackground();
    },
    resume: async () => {
      await cluster.startInBackground();
      running = true;
    },
    stop: async () => {
      if (running) await cluster.stopInBackground();
      running = false;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * PGlite with pgvector served on a free port by pglite-socket. PGlite is one database, so
 * `database(name)` gives another PGlite server.
 */
export async function startPGliteServer(): Promise<MemoryDatabaseServer> {
  const { PGlite } = await import("@electric-sql/pglite");
  const { vector } = await import("@electric-sql/pglite-pgvector");
  const { PGLiteSocketServer } = await import("@electric-sql/pglite-socket");
  const servers: Array<() => Promise<void>> = [];
  const start = async (): Promise<string> => {
    const db = await PGlite.create({ extensions: { vector } });
    const port = await freePort();
    const server = new PGLiteSocketServer({ db, port, host: "127.0.0.1", maxConnections: 8 });
    await server.start();
    servers.push(async () => {
      await server.stop();
      await db.close();
    });
    return `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
  };
  return {
    url: await start(),
    database: () => start(),
    stop: async () => {
      for (const stop of servers.splice(0)) await stop();
    },
  };
}
