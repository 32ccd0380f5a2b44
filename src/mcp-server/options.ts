/** The options of `createMcpHandler()` and of the stdio server: which agents, who calls, with what context. */
import type { Client } from "@temporalio/client";
import type { AgentDefinition } from "../agent/agent-definition.js";

/** Who the caller is, as `authorize` says: `by` owns the runs they start and is recorded as the decider of their approvals. */
export interface McpCaller {
  /** The caller's id (a user id): owner of their runs and tasks, decider of their approvals. */
  by: string;
}

/** Options of `createMcpHandler()`. */
export interface McpHandlerOptions {
  /** The agents served, each as a tool named after it (`ai.agent()` values). */
  agents: readonly AgentDefinition[];
  /**
   * Who is asking, from the request (a header, a cookie): `{ by }`, or `false` to refuse with 401.
   * Called on every HTTP request, before anything is read. A session stays its first caller's:
   * another caller's request on it is answered 404, as for a session that does not exist.
   */
  authorize: (request: Request) => McpCaller | false | Promise<McpCaller | false>;
  /** The run's context (see `RunOptions.context`) for a call, from the caller: checked against the agent's `contextSchema`. Default: none. */
  context?: (call: { by: string; agent: string }) => unknown;
  /** The Temporal client, or a function giving it; default: one connected from the environment. */
  client?: Client | (() => Promise<Client>);
  /** The task queue the agents' workers poll. */
  taskQueue?: string;
  /**
   * Map an MCP session to a durable session of the agent (`agent.session()`), so the session's calls
   * share one conversation (default false: each call is a run of its own). Calls in a session cannot be tasks.
   * A session id this handler does not hold (the server restarted) is taken up again when the caller has an
   * open durable session under it, so a retried request is the same message and the conversation goes on.
   */
  session?: boolean;
  /**
   * Origins besides the server's own allowed to send requests (`["https://app.example.com"]`). A
   * request whose `Origin` names another (MCP's DNS-rebinding guidance) is refused with 403. Default: none.
   */
  allowedOrigins?: string[];
  /** Tasks on one `tasks/list` page, 1 to 100 (default 20): each is read from Temporal as `tasks/get` reads it. */
  tasksPageSize?: number;
  /** Open MCP sessions kept in memory at most (default 1,000); past it the oldest is closed, and its client initializes again. */
  maxSessions?: number;
}

/** Options of the stdio server (`durable-agent mcp --stdio`): one caller, one Temporal client. */
export interface McpStdioOptions extends Pick<
  McpHandlerOptions,
  "agents" | "context" | "taskQueue" | "session" | "tasksPageSize"
> {
  /** The caller of every call: owner of the runs, decider of the approvals. */
  by: string;
  /** The Temporal client. */
  client: Client;
}
