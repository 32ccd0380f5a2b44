/**
 * Agents as MCP servers: `createMcpHandler({ agents, authorize })`, a fetch handler for MCP's
 * Streamable HTTP transport, and `serveMcpStdio()` for `durable-agent mcp --stdio`. Each agent is
 * a tool; each call is a durable run whose workflow id comes from the caller, the MCP session and
 * the request; a call made as a task is its run. The MCP SDK's server side is loaded by the first
 * request, so importing the root loads none of it.
 */
import { AgentOptionsError } from "../errors.js";
import type { McpHandlerOptions, McpStdioOptions } from "./options.js";

export type { McpCaller, McpHandlerOptions, McpStdioOptions } from "./options.js";

/** A fetch handler: `(request) => Promise<Response>`, for a Next.js route's `POST`, `GET` and `DELETE`, or a Node server. */
export type McpHandler = (request: Request) => Promise<Response>;

/** The most tasks one `tasks/list` page may hold (each is read from Temporal). */
const MAX_TASKS_PAGE_SIZE = 100;

/** Checks the options both servers share: the agents, at least one, each name once (a tool's name); the tasks page size. */
function checkOptions({ agents, tasksPageSize }: Pick<McpHandlerOptions, "agents" | "tasksPageSize">): void {
  if (
    tasksPageSize !== undefined &&
    !(Number.isInteger(tasksPageSize) && tasksPageSize >= 1 && tasksPageSize <= MAX_TASKS_PAGE_SIZE)
  )
    throw new AgentOptionsError("tasksPageSize", `give an integer from 1 to ${MAX_TASKS_PAGE_SIZE}`);
  if (!Array.isArray(agents) || agents.length === 0)
    throw new AgentOptionsError("agents", "give createMcpHandler() at least one agent (ai.agent() values)");
  const names = new Set<string>();
  for (const agent of agents) {
    if (names.has(agent.name))
      throw new AgentOptionsError("agents", `two agents are named "${agent.name}"; each is a tool, named after it`);
    names.add(agent.name);
  }
}

/**
 * Creates the fetch handler serving `agents` over MCP (Streamable HTTP; `POST`, `GET` and
 * `DELETE` on one path), answering only the callers `authorize` names. Throws
 * `AgentOptionsError` for bad options, at once.
 */
export function createMcpHandler(options: McpHandlerOptions): McpHandler {
  checkOptions(options);
  if (typeof options.authorize !== "function")
    throw new AgentOptionsError("authorize", "give a function from the request to { by } or false");
  let handler: Promise<McpHandler> | undefined;
  return async (request) => {
    handler ??= import("./http-handler.js").then((m) => m.mcpHttpHandler(options));
    return (await handler)(request);
  };
}

/** Serves the agents over stdin and stdout as one caller, until stdin closes (`durable-agent mcp --stdio`). */
export async function serveMcpStdio(options: McpStdioOptions): Promise<void> {
  checkOptions(options);
  const { serveMcpStdio: serve } = await import("./stdio-server.js");
  return serve(options);
}
