/**
 * The production topology on one host, without Docker: `startStack()` brings up what
 * docker-compose.yml runs, from the same versions and settings: PostgreSQL, the schema
 * (deploy/scripts/setup-postgres.sh), temporal-server, the namespace and search attributes
 * (deploy/scripts/create-namespace.sh), the Web UI server, Redis for answer deltas and N
 * durable-agent worker processes (`src/worker-main.ts`, the compose file's worker command, each given
 * the Redis as DURABLE_AGENT_REDIS_URL, and the memory database of the stack's PostgreSQL as
 * DURABLE_AGENT_MEMORY_URL). `npm run stack` is its command line.
 */
import { chmodSync, mkdirSync, rmSync } from "node:fs";
import { delimiter, join } from "node:path";
import {
  DYNAMIC_CONFIG_FILE,
  namespaceSetupEnvironment,
  portsFrom,
  REPO_ROOT,
  schemaSetupEnvironment,
  SCRIPTS_DIR,
  serverEnvironment,
  stackVersions,
  databaseCredentials,
  memoryUrl,
  uiEnvironment,
  workerEnvironment,
  type HostSettings,
  type StackVersions,
} from "./environment.js";
import { CACHE_ROOT, ensureSystemPackages, ensureTemporalBuild, ensureUiBuild, temporalCliDir } from "./install.js";
import { PostgresCluster } from "./postgres.js";
import { ManagedProcess, runToCompletion, waitForPort } from "./processes.js";
import { startStackRedis } from "./redis.js";
import { TemporalServer } from "./temporal-server.js";
import type { RedisServer } from "../../src/testing/redis-server.js";
import { memoryStores } from "../../src/memory/index.js";

export { TemporalServer, type TemporalService } from "./temporal-server.js";
export { PostgresCluster } from "./postgres.js";
export { ManagedProcess } from "./processes.js";

/** Options of `startStack`. */
export interface StackOptions {
  /** Where the database and logs live; default `.cache/durable-agent-stack/data` (kept between runs, like the compose volume). */
  dataDir?: string;
  /** Delete `dataDir` first. */
  fresh?: boolean;
  /** The frontend's gRPC port; the other services' ports follow the server's layout from it. Default 7233. */
  port?: number;
  /** PostgreSQL's port on 127.0.0.1; default 55432 (5432 is left to a system PostgreSQL). */
  postgresPort?: number;
  /** The Web UI's port; default 8080, `false` for no UI. */
  uiPort?: number | false;
  /**
   * Redis for answer deltas (the compose file's `redis` service) on 127.0.0.1 at this port
   * (default 56379; 6379 is left to a system Redis), its URL given to every worker as
   * DURABLE_AGENT_REDIS_URL; `false` for none (the workers stream deltas on heartbeats).
   */
  redis?: number | false;
  /** Frontend, history, matching and worker in a process each (default: one process, as in the compose file). */
  split?: boolean;
  /** Worker processes to start; default 0. */
  workers?: number;
  /** The module the workers serve (DURABLE_AGENT_AGENTS); default examples/agents.ts, the compose file's. */
  agentsModule?: string;
  /** More environment for the workers (e.g. TEMPORAL_TASK_QUEUE, OPENAI_BASE_URL). */
  workerEnv?: Record<string, string>;
  /** Progress lines (default: none). */
  log?: (line: string) => void;
}

/** A running stack. */
export interface Stack {
  versions: StackVersions;
  /** The frontend's gRPC address, `127.0.0.1:<port>`. */
  address: string;
  namespace: string;
  uiUrl: string | undefined;
  postgres: PostgresCluster;
  server: TemporalServer;
  ui: ManagedProcess | undefined;
  /** The stack's Redis (`redis.url` is the workers' DURABLE_AGENT_REDIS_URL), unless started with `redis: false`. */
  redis: RedisServer | undefined;
  /**
   * The workers' memory store (DURABLE_AGENT_MEMORY_URL): a database of the stack's PostgreSQL, migrated
   * at the stand-up, and its search: "exact" on Debian's PostgreSQL (no pgvector), "pgvector" where the extension exists.
   */
  memory: { url: string; search: "pgvector" | "exact" };
  workers: ManagedProcess[];
  logDir: string;
  /** Seconds each step of the stand-up took. */
  timings: Record<string, number>;
  /** Starts one more worker process and resolves when it polls. */
  addWorker(env?: Record<string, string>): Promise<ManagedProcess>;
  /** Stops the workers, the UI, Redis, the server and PostgreSQL. */
  stop(): Promise<void>;
}

/** Stands the stack up (installing and building what is missing); on a failure, stops what it started. */
export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const log = options.log ?? (() => {});
  const timings: Record<string, number> = {};
  const step = async <T>(name: string, fn: () => T | Promise<T>): Promise<T> => {
    const t = performance.now();
    const value = await fn();
    timings[name] = Number(((performance.now() - t) / 1000).toFixed(2));
    return value;
  };
  const versions = stackVersions();
  const { postgresBin } = await step("packages", () => ensureSystemPackages(log));
  const build = await step("temporal build", () => ensureTemporalBuild(versions.temporal, log));
  const uiPort = options.uiPort ?? 8080;
  const uiBuild = uiPort === false ? undefined : await step("ui build", () => ensureUiBuild(versions.ui, log));
  const cliDir = await temporalCliDir();

  const dataDir = options.dataDir ?? join(CACHE_ROOT, "data");
  if (options.fresh) rmSync(dataDir, { recursive: true, force: true });
  const logDir = join(dataDir, "logs");
  mkdirSync(logDir, { recursive: true });
  chmodSync(dataDir, 0o755); // PostgreSQL's own user must reach its data directory
  const host: HostSettings = {
    postgresPort: options.postgresPort ?? 55432,
    ports: portsFrom(options.port ?? 7233),
    dynamicConfigFile: DYNAMIC_CONFIG_FILE,
  };
  const path = [build.binDir, cliDir, process.env.PATH].join(delimiter);
  const credentials = databaseCredentials();

  const postgres = await step("postgres init", () =>
    PostgresCluster.create({
      bin: postgresBin,
      dataDir: join(dataDir, "postgres"),
      port: host.postgresPort,
      ...credentials,
    }),
  );
  const server = new TemporalServer({
    binDir: build.binDir,
    env: serverEnvironment(host),
    ports: host.ports,
    logDir,
    split: options.split ?? false,
  });
  let ui: ManagedProcess | undefined;
  let redis: RedisServer | undefined;
  const workers: ManagedProcess[] = [];
  const stop = async () => {
    await Promise.all(workers.map((w) => w.stop()));
    await ui?.stop();
    await redis?.stop();
    await server.stop();
    postgres.stop();
  };
  try {
    await step("postgres start", () => {
      postgres.stop(); // a cluster left running by an earlier stack that did not stop cleanly
      postgres.start();
    });
    const script = (name: string, env: Record<string, string>) =>
      runToCompletion({
        name,
        command: "/bin/sh",
        args: [join(SCRIPTS_DIR, name)],
        env: { PATH: path, HOME: process.env.HOME, ...env },
        logFile: join(logDir, `${name}.log`),
      });
    await step("schema", () => script("setup-postgres.sh", schemaSetupEnvironment(host, build.schemaRoot)));
    const memory = await step("memory", () => openMemory(memoryUrl(host), log));
    await step("server start", () => server.start());
    await step("namespace", () => script("create-namespace.sh", namespaceSetupEnvironment(host)));
    if (uiBuild && uiPort !== false) {
      ui = new ManagedProcess({
        name: "ui-server",
        command: uiBuild.binary,
        args: ["--root", uiBuild.root, "--env", "docker", "start"],
        env: { PATH: process.env.PATH, ...uiEnvironment(host, uiPort) },
        logFile: join(logDir, "ui-server.log"),
        direct: true,
      });
      await step("ui start", async () => {
        ui!.start();
        await waitForPort(uiPort);
      });
    }
    const redisPort = options.redis ?? 56379;
    if (redisPort !== false) {
      redis = await step("redis start", () => startStackRedis(redisPort, versions.redis, log));
      host.redisUrl = redis.url;
    }
    const namespace = workerEnvironment(host).TEMPORAL_NAMESPACE!;
    const addWorker = async (env: Record<string, string> = {}) => {
      const index = workers.length + 1;
      const worker = new ManagedProcess({
        name: `worker-${index}`,
        command: process.execPath,
        args: ["--import", "tsx", "--conditions=durable-agent-source", join(REPO_ROOT, "src", "worker-main.ts")],
        cwd: REPO_ROOT,
        env: {
          ...process.env,
          // Without the stack's Redis, the workers' deltas go on heartbeats, whatever this shell names.
          DURABLE_AGENT_REDIS_URL: undefined,
          ...workerEnvironment(host, options.agentsModule),
          ...options.workerEnv,
          ...env,
        },
        logFile: join(logDir, `worker-${index}.log`),
      });
      workers.push(worker);
      worker.start();
      await worker.waitForLine(/^durable-agent worker: serving /);
      return worker;
    };
    await step("workers", () => Promise.all(Array.from({ length: options.workers ?? 0 }, () => addWorker())));
    return {
      versions,
      address: server.address,
      namespace,
      uiUrl: ui ? `http://127.0.0.1:${uiPort}` : undefined,
      postgres,
      server,
      ui,
      redis,
      memory,
      workers,
      logDir,
      timings,
      addWorker,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Opens the memory database as a worker would (migrating it), to say which search the workers get; then closes it. */
async function openMemory(url: string, log: (line: string) => void): Promise<Stack["memory"]> {
  const store = memoryStores.postgres({ url, log });
  try {
    return { url, search: (await store.open()).search };
  } finally {
    await store.close();
  }
}
