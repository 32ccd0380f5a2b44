/**
 * `npm run stack`: docker-compose.yml's topology on this machine, without Docker. Stands everything
 * up (installing and building what is missing), prints the addresses, and stops it all on Ctrl-C.
 *
 *   npm run stack -- [--workers 2] [--split] [--fresh] [--port 7233] [--ui-port 8080] [--no-ui]
 *                    [--postgres-port 55432] [--redis-port 56379] [--no-redis] [--data-dir DIR]
 *                    [--agents examples/agents.ts]
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { startStack } from "./index.js";

const { values } = parseArgs({
  options: {
    workers: { type: "string", default: "2" },
    split: { type: "boolean", default: false },
    fresh: { type: "boolean", default: false },
    port: { type: "string", default: "7233" },
    "ui-port": { type: "string", default: "8080" },
    "no-ui": { type: "boolean", default: false },
    "postgres-port": { type: "string", default: "55432" },
    "redis-port": { type: "string", default: "56379" },
    "no-redis": { type: "boolean", default: false },
    "data-dir": { type: "string" },
    agents: { type: "string" },
  },
});

const started = performance.now();
const stack = await startStack({
  workers: Number(values.workers),
  split: values.split,
  fresh: values.fresh,
  port: Number(values.port),
  uiPort: values["no-ui"] ? false : Number(values["ui-port"]),
  postgresPort: Number(values["postgres-port"]),
  redis: values["no-redis"] ? false : Number(values["redis-port"]),
  dataDir: values["data-dir"] ? resolve(values["data-dir"]) : undefined,
  agentsModule: values.agents ? resolve(values.agents) : undefined,
  log: (line) => console.log(`stack: ${line}`),
});
const seconds = ((performance.now() - started) / 1000).toFixed(1);
const services = [...stack.server.processes.keys()].join(", ");
const search = stack.memory.search === "pgvector" ? "pgvector search" : "exact search: this PostgreSQL has no pgvector";
const memory = `${stack.memory.url.replace(/:[^:@/]*@/, ":***@")}  (the workers' DURABLE_AGENT_MEMORY_URL; ${search})`;
console.log(`
durable-agent stack: temporal-server ${stack.versions.temporal} on PostgreSQL, up in ${seconds} s
  Temporal gRPC   ${stack.address}  (namespace ${stack.namespace}; processes: ${services})
  Web UI          ${stack.uiUrl ?? "off"}${stack.ui ? `  (ui-server ${stack.versions.ui})` : ""}
  PostgreSQL      127.0.0.1:${stack.postgres.port}  (data: ${stack.postgres.dataDir})
  Redis           ${stack.redis ? `${stack.redis.url}  (answer deltas: the workers' DURABLE_AGENT_REDIS_URL; set it for your clients too)` : "off (answer deltas on heartbeats)"}
  Memory          ${memory}
  Workers         ${stack.workers.length} × src/worker-main.ts (pids ${stack.workers.map((w) => w.pid).join(", ") || "-"})
  Logs            ${stack.logDir}
  Stand-up (s)    ${Object.entries(stack.timings)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ")}
Ctrl-C stops everything.`);

let stopping = false;
const shutdown = async () => {
  if (stopping) return;
  stopping = true;
  console.log("stack: stopping...");
  await stack.stop();
  console.log("stack: stopped");
  process.exit(0);
};
process.on("SIGINT", shutdown);
process.on("SIGTERM", shutdown);
