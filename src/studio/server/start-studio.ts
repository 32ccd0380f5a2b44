/** `ai.studio()`: checks the options, connects, and serves the studio's app on the host and port. */
import { defined } from "../../core/defined.js";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { serve } from "@hono/node-server";
import type { Agent } from "../../facade/define-agent.js";
import { getDefaultClient } from "../../client/connection.js";
import { DEFAULT_TASK_QUEUE } from "../../core/constants.js";
import { StudioOptionsError } from "../errors.js";
import type { StudioOptions, StudioServer } from "../options.js";
import { createStudioApp } from "./app.js";
import { defaultAssetsDir } from "./assets.js";
import { isLoopback } from "./auth.js";
import { EvalJobs } from "./evals.js";

const DEFAULT_PORT = 4000;
const DEFAULT_HOST = "127.0.0.1";
const DEFAULT_TEMPORAL_UI = "http://localhost:8233";

function checked(options: StudioOptions): { port: number; host: string; token?: string } {
  const port = options.port ?? DEFAULT_PORT;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new StudioOptionsError("port", `must be an integer from 0 to 65535 (got ${port})`);
  const host = options.host ?? DEFAULT_HOST;
  if (typeof host !== "string" || host === "") throw new StudioOptionsError("host", "must be a host name or address");
  const token = options.token;
  if (token !== undefined && (typeof token !== "string" || token.length < 8))
    throw new StudioOptionsError("token", "must be a string of at least 8 characters");
  if (token === undefined && !isLoopback(host))
    throw new StudioOptionsError(
      "token",
      `binding ${host} (not a loopback address) lets other machines reach the studio, which can approve, ` +
        `cancel and fork runs: give a token (\`--token\`, or \`ai.studio({ token })\`), or bind 127.0.0.1`,
    );
  return { port, host, ...defined({ token }) };
}

function agentsByName(agents: readonly Agent[] = []): Map<string, Agent> {
  const byName = new Map<string, Agent>();
  for (const agent of agents) {
    if (byName.has(agent.name) && byName.get(agent.name) !== agent)
      throw new StudioOptionsError("agents", `two agents are named "${agent.name}"`);
    byName.set(agent.name, agent);
  }
  return byName;
}

/** Starts the studio; resolves once it listens. */
export async function startStudio(options: StudioOptions = {}): Promise<StudioServer> {
  const { port, host, token } = checked(options);
  const agents = agentsByName(options.agents);
  const client = options.client ?? (await getDefaultClient());
  const taskQueue = options.taskQueue ?? process.env.TEMPORAL_TASK_QUEUE ?? DEFAULT_TASK_QUEUE;
  const dataDir = resolve(options.dataDir ?? ".durable-agent-studio");
  let listening = port;
  const app = createStudioApp({
    client,
    agents,
    ...defined({ as: options.as }),
    ...defined({ token }),
    port: () => listening,
    taskQueue,
    dataDir,
    temporalUiBase: options.temporalUiBase ?? DEFAULT_TEMPORAL_UI,
    assetsDir: options.assetsDir ?? defaultAssetsDir(),
    evals: new EvalJobs({
      client,
      agents,
      taskQueue,
      dataDir,
      ...(options.scorers ? { scorers: options.scorers } : {}),
    }),
  });
  const server = await new Promise<ReturnType<typeof serve>>((done, fail) => {
    const started = serve({ fetch: app.fetch, port, hostname: host }, () => done(started));
    started.once("error", (error: NodeJS.ErrnoException) =>
      fail(
        error.code === "EADDRINUSE"
          ? new StudioOptionsError(
              "port",
              `${host}:${port} is in use: pick another port (\`--port\`), or 0 for any free one`,
            )
          : error,
      ),
    );
  });
  listening = (server.address() as AddressInfo).port;
  const urlHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${listening}/${token !== undefined ? `?token=${encodeURIComponent(token)}` : ""}`,
    port: listening,
    close: () =>
      new Promise<void>((done, fail) => {
        server.close((error) => (error ? fail(error) : done()));
        if ("closeAllConnections" in server) server.closeAllConnections();
      }),
  };
}
