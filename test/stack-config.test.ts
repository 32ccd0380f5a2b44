/**
 * docker-compose.yml and `npm run stack` (deploy/stack/) run the same thing: the same versions, and
 * each service the same environment except what names the machine (HOST_OVERRIDES). Redis too: the
 * stack's real `redis-server` (started as `npm run stack` starts it) is of the compose image's
 * major version, and both keep it in memory and hand its URL to the workers. Memory too: both create
 * the memory database in their PostgreSQL and hand its URL to the workers.
 */
import { readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { parseEnv } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import {
  COMPOSE_FILE,
  DYNAMIC_CONFIG_FILE,
  HOST_OVERRIDES,
  memoryUrl,
  namespaceSetupEnvironment,
  portsFrom,
  readComposeFile,
  REPO_ROOT,
  schemaSetupEnvironment,
  serverEnvironment,
  stackVersions,
  uiEnvironment,
  workerEnvironment,
  type ComposeFile,
  type HostSettings,
} from "../deploy/stack/environment.js";
import { redisServerVersion, startStackRedis } from "../deploy/stack/redis.js";
import type { RedisServer } from "../src/testing/index.js";
import { findFreePort } from "../deploy/stack/processes.js";

const compose = readComposeFile();
const host: HostSettings = { postgresPort: 55432, ports: portsFrom(7233), dynamicConfigFile: DYNAMIC_CONFIG_FILE };

/** A service's environment as Compose gives it: its env_file(s), then `environment` with `${VAR:-default}` resolved. */
function composeEnvironment(file: ComposeFile, service: string): Record<string, string> {
  const spec = file.services[service]!;
  const envFiles = spec.env_file === undefined ? [] : [spec.env_file].flat();
  const fromFiles = Object.assign(
    {},
    ...envFiles.map((f) => parseEnv(readFileSync(join(dirname(COMPOSE_FILE), f), "utf8"))),
  );
  const substitute = (value: string) =>
    value.replace(/\$\{(\w+):-([^}]*)\}/g, (_m, name: string, fallback: string) => process.env[name] || fallback);
  const inline = Object.fromEntries(
    Object.entries(spec.environment ?? {})
      .filter(([, v]) => v !== null)
      .map(([k, v]) => [k, substitute(String(v))]),
  );
  return { ...fromFiles, ...inline };
}

const withoutHostValues = (env: Record<string, string>) =>
  Object.fromEntries(Object.entries(env).filter(([key]) => !(HOST_OVERRIDES as readonly string[]).includes(key)));

describe("docker-compose.yml and npm run stack", () => {
  it("build the compose file's image versions: server and admin-tools (the schema) on one version, and the UI's", () => {
    expect(stackVersions(compose)).toEqual({ temporal: "1.31.0", ui: "2.49.1", redis: "7" });
    const mismatched = structuredClone(compose);
    mismatched.services["temporal-admin-tools"]!.image = "temporalio/admin-tools:1.30.2";
    expect(() => stackVersions(mismatched)).toThrow(/admin-tools 1.30.2 .*temporalio\/server 1.31.0/);
    const floating = structuredClone(compose);
    floating.services.redis!.image = "redis:latest";
    expect(() => stackVersions(floating)).toThrow(/service redis should use redis:<major>, found "redis:latest"/);
  });

  it("give temporal-server the temporal service's environment, deploy/stack.env included", () => {
    const composed = composeEnvironment(compose, "temporal");
    expect(composed).toMatchObject({ DB: "postgres12", NUM_HISTORY_SHARDS: "4", POSTGRES_USER: "temporal" });
    expect(withoutHostValues(serverEnvironment(host))).toEqual(withoutHostValues(composed));
  });

  it("run deploy/scripts/setup-postgres.sh and create-namespace.sh with the one-shot services' environments", () => {
    expect(withoutHostValues(schemaSetupEnvironment(host, "/schema"))).toEqual(
      withoutHostValues(composeEnvironment(compose, "temporal-admin-tools")),
    );
    expect(withoutHostValues(namespaceSetupEnvironment(host))).toEqual(
      withoutHostValues(composeEnvironment(compose, "temporal-create-namespace")),
    );
  });

  it("use the same dynamic config file, the UI's settings and the worker's namespace, task queue and agents module", () => {
    const composed = composeEnvironment(compose, "temporal");
    expect(composed.DYNAMIC_CONFIG_FILE_PATH!.split("/").at(-1)).toBe(DYNAMIC_CONFIG_FILE.split("/").at(-1));
    expect(JSON.stringify(compose.services.temporal)).toContain(
      "./deploy/dynamicconfig:/etc/temporal/config/dynamicconfig",
    );
    const { TEMPORAL_ADDRESS: _a, TEMPORAL_UI_PORT: _p, ...ui } = uiEnvironment(host, 8080);
    expect(composeEnvironment(compose, "temporal-ui")).toMatchObject(ui);
    const worker = workerEnvironment(host);
    const composedWorker = composeEnvironment(compose, "worker");
    expect(composedWorker).toMatchObject({
      TEMPORAL_NAMESPACE: worker.TEMPORAL_NAMESPACE,
      TEMPORAL_TASK_QUEUE: worker.TEMPORAL_TASK_QUEUE,
    });
    expect(relative("/app", composedWorker.DURABLE_AGENT_AGENTS!)).toBe(
      relative(REPO_ROOT, worker.DURABLE_AGENT_AGENTS!),
    );
  });
});

describe("Redis in docker-compose.yml and npm run stack", () => {
  let redis: RedisServer | undefined;
  afterAll(async () => redis?.stop());

  it("compose: a redis service, healthy on `redis-cli ping`, in memory, its port not published; the worker waits for it and gets its URL", () => {
    const service = compose.services.redis!;
    expect(service.healthcheck?.test).toEqual(["CMD", "redis-cli", "ping"]);
    expect(service.command).toEqual(["redis-server", "--save", "", "--appendonly", "no"]);
    expect(service).not.toHaveProperty("ports");
    const worker = compose.services.worker!;
    expect(worker.depends_on).toMatchObject({ redis: { condition: "service_healthy" } });
    expect(composeEnvironment(compose, "worker").DURABLE_AGENT_REDIS_URL).toBe("redis://redis:6379");
  });

  it("stack: every worker gets the stack's Redis as DURABLE_AGENT_REDIS_URL (a host value), and none without one", () => {
    expect(HOST_OVERRIDES).toContain("DURABLE_AGENT_REDIS_URL");
    expect(workerEnvironment({ ...host, redisUrl: "redis://127.0.0.1:56379" })).toMatchObject({
      DURABLE_AGENT_REDIS_URL: "redis://127.0.0.1:56379",
    });
    expect(workerEnvironment(host)).not.toHaveProperty("DURABLE_AGENT_REDIS_URL");
  });

  it("stack: starts a real redis-server of the compose image's major on the port asked for (it answered PING), with a warning when the major differs", async () => {
    const lines: string[] = [];
    const port = await findFreePort();
    redis = await startStackRedis(port, stackVersions(compose).redis, (line) => lines.push(line));
    expect(redis.url).toBe(`redis://127.0.0.1:${port}`);
    const version = redisServerVersion(redis.binary);
    expect(version.split(".")[0]).toBe("7");
    // On a machine without redis-server (CI's fresh HOME), a line saying it is fetched comes first.
    const fetched = lines.filter((line) => line.startsWith("redis-server: none on this machine; fetching Debian's"));
    expect(lines).toEqual([...fetched, expect.stringContaining(`redis-server ${version} (`)]);
    expect(fetched.length).toBeLessThanOrEqual(1);
    await redis.stop();
    redis = await startStackRedis(port, "8", (line) => lines.push(line));
    expect(lines.at(-1)).toBe(`warning: redis-server ${version} is not of docker-compose.yml's redis:8`);
  });
});

describe("memory's PostgreSQL database in docker-compose.yml and npm run stack", () => {
  const script = readFileSync(join(REPO_ROOT, "deploy", "scripts", "setup-postgres.sh"), "utf8");

  it("compose: the schema setup creates MEMORY_DBNAME, and the worker gets that database of the postgresql service as DURABLE_AGENT_MEMORY_URL", () => {
    const database = composeEnvironment(compose, "temporal-admin-tools").MEMORY_DBNAME;
    expect(database).toBe("durable_agent_memory");
    expect(script).toMatch(/^create_database "\$MEMORY_DBNAME"$/m);
    const url = new URL(composeEnvironment(compose, "worker").DURABLE_AGENT_MEMORY_URL!);
    expect([url.protocol, url.username, url.password, url.host, url.pathname]).toEqual([
      "postgres:",
      "temporal",
      "temporal",
      "postgresql:5432",
      `/${database}`,
    ]);
    // The worker starts after the schema setup (through the namespace's one-shot service), so the database exists.
    expect(compose.services.worker!.depends_on).toMatchObject({
      "temporal-create-namespace": { condition: "service_completed_successfully" },
    });
    expect(compose.services["temporal-create-namespace"]!.depends_on).toMatchObject({ temporal: {} });
    expect(compose.services.temporal!.depends_on).toMatchObject({
      "temporal-admin-tools": { condition: "service_completed_successfully" },
    });
  });

  it("stack: every worker gets the same database of the stack's PostgreSQL (a host value), with the compose file's credentials", () => {
    expect(HOST_OVERRIDES).toContain("DURABLE_AGENT_MEMORY_URL");
    const composed = new URL(composeEnvironment(compose, "worker").DURABLE_AGENT_MEMORY_URL!);
    const url = new URL(workerEnvironment(host).DURABLE_AGENT_MEMORY_URL!);
    expect(url.href).toBe(memoryUrl(host));
    expect([url.username, url.password, url.pathname]).toEqual([
      composed.username,
      composed.password,
      composed.pathname,
    ]);
    expect(url.host).toBe(`127.0.0.1:${host.postgresPort}`);
    const odd = new URL(memoryUrl(host, { TEMPORAL_DB_USER: "app", TEMPORAL_DB_PASSWORD: "p@ss:w/rd" }));
    expect([decodeURIComponent(odd.username), decodeURIComponent(odd.password)]).toEqual(["app", "p@ss:w/rd"]);
  });

  it("the image: its worker gets the memory store's and embedder's packages, moved to dependencies at the lockfile's versions", () => {
    const dockerfile = readFileSync(join(REPO_ROOT, "Dockerfile"), "utf8");
    const lock = JSON.parse(readFileSync(join(REPO_ROOT, "package-lock.json"), "utf8")) as {
      packages: Record<string, { version: string }>;
    };
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as {
      devDependencies: Record<string, string>;
    };
    // `npm install --omit=dev` leaves out a package named in devDependencies, even when asked for by name.
    const moved = [...dockerfile.matchAll(/"?dependencies\.(@?[\w./-]+)=([\d.]+)"?/g)].map(([, name, version]) => ({
      name,
      version,
    }));
    expect(moved.map((m) => m.name).sort()).toEqual(["@ai-sdk/openai", "ai", "pg"]);
    for (const { name, version } of moved) {
      expect(version).toBe(lock.packages[`node_modules/${name}`]!.version);
      if (pkg.devDependencies[name!]) expect(dockerfile).toContain(`devDependencies.${name}`);
    }
  });
});
