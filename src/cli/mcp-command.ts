/**
 * `durable-agent mcp <module>`: serves the agents a module exports as MCP tools, over Streamable
 * HTTP (`--port`) or stdio (`--stdio`, for clients that launch a command), until SIGINT/SIGTERM or
 * (stdio) stdin closes. It starts runs; the agents' workers run them (`durable-agent worker`).
 */
import type { AddressInfo } from "node:net";
import { defined } from "../core/defined.js";
import { EXIT, UsageError, type Command, type CommandIO } from "./command.js";
import type { CliConnection } from "./connection-options.js";
import { loadAgents } from "./load-agents.js";
import { parseOptions, port } from "./parse-options.js";
import { namesLoopback, untilStopped } from "./serving.js";

const USAGE = `Usage: durable-agent mcp <module> [options]

Serves the agents <module> exports (the values of ai.agent(...)) as MCP tools: each agent is a
tool, each call a durable run on your workers (run \`durable-agent worker <module>\` too). Over
Streamable HTTP at http://<host>:<port><path>, or over stdin and stdout with --stdio (what Claude
Desktop launches; logs then go to stderr).

Options:
  --stdio                  serve over stdin and stdout instead of HTTP
  --port <n>               the HTTP port (default 3333; 0 for any free one)
  --host <host>            the host to bind (default 127.0.0.1); any other host needs --token
  --path <path>            the HTTP path (default /mcp)
  --token <token>          every HTTP request must carry Authorization: Bearer <token>
  --as <name>              the caller: owner of the runs and decider of approvals (default "mcp")
  --session                an MCP session is one conversation (a durable session of the agent)
  --task-queue <name>      the task queue your workers poll (default TEMPORAL_TASK_QUEUE, else durable-agent)
  -h, --help               show this help

Exit codes: 0 stopped; 2 Temporal unreachable; 64 bad arguments or module.`;

async function run(argv: string[], io: CommandIO, connection: CliConnection): Promise<number> {
  const { values, positionals } = parseOptions(argv, {
    stdio: { type: "boolean" },
    port: { type: "string" },
    host: { type: "string" },
    path: { type: "string" },
    token: { type: "string" },
    as: { type: "string" },
    session: { type: "boolean" },
    "task-queue": { type: "string" },
  });
  if (values.help) return (io.stdout(USAGE), EXIT.ok);
  if (positionals.length !== 1)
    throw new UsageError(
      positionals.length === 0
        ? "Name the module that exports your agents: durable-agent mcp <module>."
        : `Expected one module, got ${positionals.length}: ${positionals.join(" ")}.`,
    );
  const host = values.host ?? "127.0.0.1";
  const loopback = ["127.0.0.1", "localhost", "::1"].includes(host);
  if (!loopback && values.token === undefined)
    throw new UsageError(`--host ${host} is reachable from other machines: give --token too.`);
  // Over stdio, stdout is the protocol's: whatever the agents' module logs goes to stderr.
  if (values.stdio) console.log = console.info = console.error;
  const agents = await loadAgents(positionals[0]!);
  const client = await connection.client();
  const by = values.as ?? "mcp";
  const taskQueue = connection.settings(values["task-queue"]).taskQueue;
  const common = { agents, client, taskQueue, ...defined({ session: values.session }) };
  const { createMcpHandler, serveMcpStdio } = await import("../mcp-server/index.js");
  if (values.stdio) {
    io.stderr(`durable-agent mcp: serving ${agents.map((a) => `"${a.name}"`).join(", ")} over stdio as "${by}"`);
    await Promise.race([serveMcpStdio({ ...common, by }), untilStopped()]);
    return EXIT.ok;
  }
  const path = values.path ?? "/mcp";
  const handler = createMcpHandler({
    ...common,
    authorize: (request) =>
      values.token === undefined || request.headers.get("authorization") === `Bearer ${values.token}` ? { by } : false,
  });
  const { serve } = await import("@hono/node-server");
  const fetch = (request: Request): Promise<Response> => {
    // Without a token, only a request naming a loopback host is answered: a page on a rebound DNS name sends its own.
    if (values.token === undefined && loopback && !namesLoopback(request))
      return Promise.resolve(
        new Response("This server answers requests to 127.0.0.1 or localhost only.", { status: 403 }),
      );
    if (new URL(request.url).pathname !== path) return Promise.resolve(new Response("Not found", { status: 404 }));
    return handler(request);
  };
  const server = await new Promise<ReturnType<typeof serve>>((done, fail) => {
    const listenOn = values.port === "0" ? 0 : (port("port", values.port) ?? 3333);
    const started = serve({ fetch, port: listenOn, hostname: host }, () => done(started));
    started.once("error", fail);
  });
  const urlHost = host.includes(":") ? `[${host}]` : host;
  io.stdout(`durable-agent mcp on http://${urlHost}:${(server.address() as AddressInfo).port}${path} (Ctrl-C to stop)`);
  await untilStopped();
  await new Promise<void>((done) => {
    server.close(() => done());
    if ("closeAllConnections" in server) server.closeAllConnections();
  });
  return EXIT.ok;
}

/** `durable-agent mcp`. */
export const mcpCommand: Command = {
  summary: "serve agents as MCP tools (Streamable HTTP, or stdio for Claude Desktop): each call a durable run",
  usage: USAGE,
  run,
};
