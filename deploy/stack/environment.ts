/**
 * What the host stack shares with docker-compose.yml: the versions (the compose file's image tags)
 * and the server's settings (deploy/stack.env), plus the few values that name this machine instead
 * of the compose network (HOST_OVERRIDES).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseEnv } from "node:util";
import { parse } from "yaml";

/** The repository's root. */
export const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const COMPOSE_FILE = join(REPO_ROOT, "docker-compose.yml");
export const STACK_ENV_FILE = join(REPO_ROOT, "deploy", "stack.env");
export const SCRIPTS_DIR = join(REPO_ROOT, "deploy", "scripts");
export const DYNAMIC_CONFIG_FILE = join(REPO_ROOT, "deploy", "dynamicconfig", "development-sql.yaml");

/** The parts of docker-compose.yml the stack reads. */
export interface ComposeService {
  image?: string;
  command?: string | string[];
  env_file?: string | string[];
  environment?: Record<string, string | number | null>;
  depends_on?: Record<string, { condition?: string }> | string[];
  healthcheck?: { test?: string | string[] };
}
export interface ComposeFile {
  services: Record<string, ComposeService>;
}

/** docker-compose.yml, parsed (with its `<<:` merge keys). */
export function readComposeFile(path = COMPOSE_FILE): ComposeFile {
  return parse(readFileSync(path, "utf8"), { merge: true }) as ComposeFile;
}

/** The versions the stack runs: the compose file's image tags. */
export interface StackVersions {
  /** temporalio/server and temporalio/admin-tools (the schema), e.g. "1.31.0". */
  temporal: string;
  /** temporalio/ui, e.g. "2.49.1". */
  ui: string;
  /** The `redis` image's major version, e.g. "7": the stack's `redis-server` must be of it. */
  redis: string;
}

function imageTag(compose: ComposeFile, service: string, image: string): string {
  const ref = compose.services[service]?.image ?? "";
  const match = new RegExp(`^${image.replace("/", "\\/")}:(\\d+\\.\\d+\\.\\d+)$`).exec(ref);
  if (!match) throw new Error(`docker-compose.yml: service ${service} should use ${image}:<x.y.z>, found "${ref}"`);
  return match[1]!;
}

export function stackVersions(compose = readComposeFile()): StackVersions {
  const temporal = imageTag(compose, "temporal", "temporalio/server");
  const adminTools = imageTag(compose, "temporal-admin-tools", "temporalio/admin-tools");
  if (adminTools !== temporal)
    throw new Error(
      `docker-compose.yml: temporalio/admin-tools ${adminTools} carries the schema of another server than temporalio/server ${temporal}; use one version`,
    );
  const redis = /^redis:(\d+)$/.exec(compose.services.redis?.image ?? "")?.[1];
  if (!redis)
    throw new Error(
      `docker-compose.yml: service redis should use redis:<major>, found "${compose.services.redis?.image ?? ""}"`,
    );
  return { temporal, ui: imageTag(compose, "temporal-ui", "temporalio/ui"), redis };
}

/** deploy/stack.env: the settings the compose services read through `env_file`. */
export function sharedEnvironment(path = STACK_ENV_FILE): Record<string, string> {
  return parseEnv(readFileSync(path, "utf8")) as Record<string, string>;
}

/** The ports of one stack; `portsFrom(7233)` gives the server's defaults (those of the compose file). */
export interface StackPorts {
  frontend: number;
  frontendHttp: number;
  history: number;
  matching: number;
  worker: number;
  frontendMembership: number;
  historyMembership: number;
  matchingMembership: number;
  workerMembership: number;
}

/** The server's port layout (7233 gRPC, 7243 HTTP, 7234/7235/7239 services, 6933–6939 membership), shifted to start at `frontend`. */
export function portsFrom(frontend: number): StackPorts {
  const shift = frontend - 7233;
  return {
    frontend,
    frontendHttp: 7243 + shift,
    history: 7234 + shift,
    matching: 7235 + shift,
    worker: 7239 + shift,
    frontendMembership: 6933 + shift,
    historyMembership: 6934 + shift,
    matchingMembership: 6935 + shift,
    workerMembership: 6939 + shift,
  };
}

/** Where this machine's stack differs from the compose network. */
export interface HostSettings {
  postgresPort: number;
  ports: StackPorts;
  dynamicConfigFile: string;
  /** The stack's Redis (`redis://127.0.0.1:<port>`), or undefined when it runs without one. */
  redisUrl?: string;
}

/**
 * The workers' memory store (DURABLE_AGENT_MEMORY_URL): the database MEMORY_DBNAME (deploy/stack.env)
 * of the stack's PostgreSQL, as the compose file's worker reaches it at `postgresql:5432`.
 */
export function memoryUrl(host: Pick<HostSettings, "postgresPort">, env: NodeJS.ProcessEnv = process.env): string {
  const { user, password } = databaseCredentials(env);
  const database = sharedEnvironment().MEMORY_DBNAME ?? "durable_agent_memory";
  return `postgres://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${host.postgresPort}/${database}`;
}

/**
 * The variables the host sets instead of the compose file's values: the database's and services'
 * addresses and the dynamic config file's path. Everything else must equal the compose services'.
 */
export const HOST_OVERRIDES = [
  "POSTGRES_SEEDS",
  "DB_PORT",
  "BIND_ON_IP",
  "DYNAMIC_CONFIG_FILE_PATH",
  "TEMPORAL_ADDRESS",
  "SCHEMA_ROOT",
  "FRONTEND_GRPC_PORT",
  "FRONTEND_HTTP_PORT",
  "HISTORY_GRPC_PORT",
  "MATCHING_GRPC_PORT",
  "WORKER_GRPC_PORT",
  "FRONTEND_MEMBERSHIP_PORT",
  "HISTORY_MEMBERSHIP_PORT",
  "MATCHING_MEMBERSHIP_PORT",
  "WORKER_MEMBERSHIP_PORT",
  "DURABLE_AGENT_REDIS_URL",
  "DURABLE_AGENT_MEMORY_URL",
] as const;

/** The database credentials, with the compose file's defaults. */
export function databaseCredentials(env: NodeJS.ProcessEnv = process.env): { user: string; password: string } {
  return { user: env.TEMPORAL_DB_USER || "temporal", password: env.TEMPORAL_DB_PASSWORD || "temporal" };
}

function hostDatabase(host: HostSettings): Record<string, string> {
  const { user, password } = databaseCredentials();
  return {
    ...sharedEnvironment(),
    POSTGRES_USER: user,
    POSTGRES_PWD: password,
    POSTGRES_SEEDS: "127.0.0.1",
    DB_PORT: String(host.postgresPort),
  };
}

/** The environment of `temporal-server start`, as the compose file's `temporal` service sets it. */
export function serverEnvironment(host: HostSettings): Record<string, string> {
  const p = host.ports;
  return {
    ...hostDatabase(host),
    BIND_ON_IP: "127.0.0.1",
    DYNAMIC_CONFIG_FILE_PATH: host.dynamicConfigFile,
    FRONTEND_GRPC_PORT: String(p.frontend),
    FRONTEND_HTTP_PORT: String(p.frontendHttp),
    HISTORY_GRPC_PORT: String(p.history),
    MATCHING_GRPC_PORT: String(p.matching),
    WORKER_GRPC_PORT: String(p.worker),
    FRONTEND_MEMBERSHIP_PORT: String(p.frontendMembership),
    HISTORY_MEMBERSHIP_PORT: String(p.historyMembership),
    MATCHING_MEMBERSHIP_PORT: String(p.matchingMembership),
    WORKER_MEMBERSHIP_PORT: String(p.workerMembership),
  };
}

/** The environment of deploy/scripts/setup-postgres.sh, as the `temporal-admin-tools` service sets it. */
export function schemaSetupEnvironment(host: HostSettings, schemaRoot: string): Record<string, string> {
  const db = hostDatabase(host);
  return { ...db, SQL_PASSWORD: db.POSTGRES_PWD!, SCHEMA_ROOT: schemaRoot };
}

/** The environment of deploy/scripts/create-namespace.sh, as the `temporal-create-namespace` service sets it. */
export function namespaceSetupEnvironment(host: HostSettings): Record<string, string> {
  return { ...sharedEnvironment(), TEMPORAL_ADDRESS: `127.0.0.1:${host.ports.frontend}` };
}

/** The environment of the UI server, as the compose file's `temporal-ui` service sets it. */
export function uiEnvironment(host: HostSettings, uiPort: number): Record<string, string> {
  return {
    TEMPORAL_ADDRESS: `127.0.0.1:${host.ports.frontend}`,
    TEMPORAL_UI_PORT: String(uiPort),
    TEMPORAL_CORS_ORIGINS: "http://localhost:3000",
  };
}

/**
 * The environment of a worker process, as the compose file's `worker` service sets it (the agents
 * module relative to the repository; the stack's Redis, if it runs one, for answer deltas; the
 * memory database of the stack's PostgreSQL).
 */
export function workerEnvironment(
  host: HostSettings,
  agentsModule = join(REPO_ROOT, "examples", "agents.ts"),
): Record<string, string> {
  return {
    TEMPORAL_ADDRESS: `127.0.0.1:${host.ports.frontend}`,
    TEMPORAL_NAMESPACE: sharedEnvironment().DEFAULT_NAMESPACE ?? "default",
    TEMPORAL_TASK_QUEUE: "durable-agent",
    DURABLE_AGENT_AGENTS: agentsModule,
    ...(host.redisUrl ? { DURABLE_AGENT_REDIS_URL: host.redisUrl } : {}),
    DURABLE_AGENT_MEMORY_URL: memoryUrl(host),
  };
}
