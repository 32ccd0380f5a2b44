/**
 * `durable-agent a2a <module>`: serves the agents a module exports over A2A (JSON-RPC, agent cards)
 * until SIGINT/SIGTERM. It starts runs; the agents' workers run them (`durable-agent worker`).
 */
import type { AddressInfo } from "node:net";
import { EXIT, UsageError, type Command, type CommandIO } from "./command.js";
import type { CliConnection } from "./connection-options.js";
import { loadAgents } from "./load-agents.js";
import { parseOptions, port } from "./parse-options.js";
import { namesLoopback, untilStopped } from "./serving.js";

const USAGE = `Usage: durable-agent a2a <module> [options]

Serves the agents <module> exports (the values of ai.agent(...)) over A2A, the Agent2Agent
protocol's JSON-RPC binding: the first agent at http://<host>:<port>/ (its card at
/.well-known/agent-card.json), each agent at /<name> (its card at /<name>/.well-known/agent-card.json).
Each A2A context is a durable session of the agent, each task one of its messages, run on your
workers (run \`durable-agent worker <module>\` too).

Options:
  --port <n>               the port (default 4100; 0 for any free one)
  --host <host>            the host to bind (default 127.0.0.1); any other host needs --token
  --base-url <url>         the public URL the cards name (default http://<host>:<port>)
  --token <token>          every JSON-RPC request must carry Authorization: Bearer <token>
  --as <name>              the caller: owner of the tasks and decider of approvals (default "a2a")
  --task-queue <name>      the task queue your workers poll (default TEMPORAL_TASK_QUEUE, else durable-agent)
  -h, --help               show this help

Exit codes: 0 stopped; 2 Temporal unreachable; 64 bad arguments or module.`;

async function run(argv: string[], io: CommandIO, connection: CliConnection): Promise<number> {
  const { values, positionals } = parseOptions(argv, {
    port: { type: "string" },
    host: { type: "string" },
    "base-url": { type: "string" },
    token: { type: "string" },
    as: { type: "string" },
    "task-queue": { type: "string" },
  });
  if (values.help) return (io.stdout(USAGE), EXIT.ok);
  if (positionals.length !== 1)
    throw new UsageError(
      positionals.length === 0
        ? "Name the module that exports your agents: durable-agent a2a <module>."
        : `Expected one module, got ${positionals.length}: ${positionals.join(" ")}.`,
    );
  const host = values.host ?? "127.0.0.1";
  if (!["127.0.0.1", "localhost", "::1"].includes(host) && values.token === undefined)
    throw new UsageError(`--host ${host} is reachable from other machines: give --token too.`);
  if (values["base-url"] !== undefined && !URL.canParse(values["base-url"]))
    throw new UsageError(`--base-url must be a URL (got "${values["base-url"]}").`);
  const agents = await loadAgents(positionals[0]!);
  const client = await connection.client();
  const by = values.as ?? "a2a";
  const taskQueue = connection.settings(values["task-queue"]).taskQueue;
  const { createA2AHandler } = await import("../a2a/index.js");
  const { serve } = await import("@hono/node-server");
  let handler: ((request: Request) => Promise<Response>) | undefined;
  const server = await new Promise<ReturnType<typeof serve>>((done, fail) => {
    const listenOn = values.port === "0" ? 0 : (port("port", values.port) ?? 4100);
    const started = serve({ fetch: (request: Request) => handler!(request), port: listenOn, hostname: host }, () =>
      done(started),
    );
    started.once("error", fail);
  });
  const urlHost = host.includes(":") ? `[${host}]` : host;
  const baseUrl = values["base-url"] ?? `http://${urlHost}:${(server.address() as AddressInfo).port}`;
  const a2a = createA2AHandler({
    agents,
    client,
    taskQueue,
    baseUrl,
    authorize: (request) =>
      values.token === undefined || request.headers.get("authorization") === `Bearer ${values.token}` ? { by } : false,
  });
  // Without a token, only loopback names are answered: a page of another site cannot reach the server by DNS rebinding.
  handler = (request) =>
    values.token === undefined && !namesLoopback(request)
      ? Promise.resolve(new Response("Only loopback host names are served without --token.", { status: 403 }))
      : a2a(request);
  io.stdout(`durable-agent a2a on ${baseUrl} (Ctrl-C to stop): ${agents.map((a) => `"${a.name}"`).join(", ")}`);
  await untilStopped();
  await new Promise<void>((done) => {
    server.close(() => done());
    if ("closeAllConnections" in server) server.closeAllConnections();
  });
  return EXIT.ok;
}

/** `durable-agent a2a`. */
export const a2aCommand: Command = {
  summary: "serve agents over A2A (agent cards, JSON-RPC tasks): each task a durable session message",
  usage: USAGE,
  run,
};
