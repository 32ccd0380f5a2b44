/**
 * The MCP server of one connection (an MCP session, or a stdio process): each agent a tool
 * (`tools/list`), each call a durable run (`tools/call`, followed to its result or made a task),
 * and the tasks that runs are (`tasks/get`, `tasks/result`, `tasks/cancel`, `tasks/list`). It
 * keeps nothing of its own: what a call is lives in Temporal, under ids derived from the caller,
 * the session and the request.
 */
import type { Client } from "@temporalio/client";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  CallToolRequestSchema,
  CancelTaskRequestSchema,
  ElicitResultSchema,
  ErrorCode,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  ListTasksRequestSchema,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type ServerNotification,
  type ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { AgentDefinition } from "../agent/agent-definition.js";
import { AgentSession } from "../client/session.js";
import { getRun } from "../client/run-handle.js";
import type { RunHandle } from "../client/run-handle.js";
import { defined } from "../core/defined.js";
import { agentTool, outputSchemaOf, toolInput } from "./agent-tools.js";
import { agentOfCall, callMessageId, callSessionId, callWorkflowId, isCallOf } from "./call-ids.js";
import { readTask, taskOf } from "./call-tasks.js";
import { followCall, type CallChannel } from "./follow-call.js";
import { listTasks } from "./list-tasks.js";
import { startCall } from "./start-call.js";
import type { McpHandlerOptions } from "./options.js";

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** What one connection's server needs: the handler's options, its client, and the caller of each request. */
export interface AgentServerDeps {
  options: Pick<McpHandlerOptions, "agents" | "context" | "taskQueue" | "session" | "tasksPageSize">;
  client: () => Promise<Client>;
  /** The caller of a request (`authorize`'s `by`, carried in `authInfo` over HTTP; the CLI's `--as` over stdio). */
  callerOf: (extra: Extra) => string;
  /** The connection's session id, when the transport has none (stdio). */
  sessionId: string;
}

/** The server's name and version in `initialize`. */
const SERVER_INFO = { name: "durable-agent", version: "1" };
/** Tasks on a `tasks/list` page unless `tasksPageSize` says otherwise. */
const DEFAULT_TASKS_PAGE_SIZE = 20;
/** The longest an elicitation waits for its answer (setTimeout's limit, about 24 days): an approval may wait long. */
const ELICITATION_TIMEOUT_MS = 2 ** 31 - 1;

/** Not found, as MCP's SDK says it for a task no one may see: another caller's run, or no run at all. */
const taskNotFound = (taskId: string) => new McpError(ErrorCode.InvalidParams, `Task not found: ${taskId}`);

/** Creates the server of one connection. */
export function createAgentServer(deps: AgentServerDeps): Server {
  const { options } = deps;
  const agents = new Map(options.agents.map((agent) => [agent.name, agent]));
  const sessions = options.session ?? false;
  const server = new Server(SERVER_INFO, {
    capabilities: {
      tools: {},
      ...(sessions ? {} : { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } }),
    },
  });
  /** Set once the connection closes: requests aborted then are let go, not cancelled (their runs go on). */
  let closing = false;

  /** How the call's run is followed for this request's client: progress, elicitation, cancellation. */
  function channelOf(extra: Extra, by: string, progressToken: string | number | undefined): CallChannel {
    let progress = 0;
    const elicitation = server.getClientCapabilities()?.elicitation;
    return {
      by,
      signal: extra.signal,
      ...(progressToken !== undefined
        ? {
            progress: (message: string) =>
              extra.sendNotification({
                method: "notifications/progress",
                params: { progressToken, progress: ++progress, message },
              }),
          }
        : {}),
      ...(elicitation
        ? {
            elicit: (params) =>
              extra.sendRequest({ method: "elicitation/create", params }, ElicitResultSchema, {
                timeout: ELICITATION_TIMEOUT_MS,
              }),
          }
        : {}),
    };
  }

  /**
   * Calls `cancel` when the client cancels the call (`notifications/cancelled`), not when the
   * connection closes: the SDK aborts every request on close and only then says it closed, so the
   * check waits a microtask.
   */
  function onCancelled(extra: Extra, cancel: () => Promise<unknown>): void {
    const cancelled = () =>
      queueMicrotask(() => {
        if (!closing) cancel().catch((error: unknown) => console.error("durable-agent mcp: cancelling a call:", error));
      });
    extra.signal.addEventListener("abort", cancelled, { once: true });
  }

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [...agents.values()].map((agent) => agentTool(agent, sessions)),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args, task } = request.params;
    const agent = agents.get(name);
    if (!agent) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    const parsed = toolInput.safeParse(args ?? {});
    if (!parsed.success) {
      const problem = z.prettifyError(parsed.error).replace(/\n\s*/g, " ");
      if (task) throw new McpError(ErrorCode.InvalidParams, `Invalid arguments for tool ${name}: ${problem}`);
      return invalidArguments(name, problem);
    }
    const by = deps.callerOf(extra);
    const client = await deps.client();
    const progressToken = request.params._meta?.progressToken;
    const context = options.context?.({ by, agent: name });
    const sessionId = extra.sessionId ?? deps.sessionId;
    const structured = outputSchemaOf(agent) !== undefined;
    if (sessions) return sessionCall(agent, parsed.data.message, { client, by, context, sessionId, structured, extra });
    const run = await startCall(client, agent, parsed.data.message, {
      client,
      workflowId: callWorkflowId(by, name, sessionId, extra.requestId),
      ...(progressToken !== undefined && agent.options.modelExecution !== "local" ? { streamText: true } : {}),
      ...defined({ taskQueue: options.taskQueue, context }),
    });
    if (task) {
      const now = new Date();
      return { task: taskOf(run.workflowId, "working", now, now) };
    }
    onCancelled(extra, () => run.cancel());
    return followCall(run, channelOf(extra, by, progressToken), { structured });
  });

  /** A call in a session (`session: true`): a message to the agent's durable session of this MCP session. */
  async function sessionCall(
    agent: AgentDefinition,
    message: string,
    call: { client: Client; by: string; context: unknown; sessionId: string; structured: boolean; extra: Extra },
  ): Promise<CallToolResult> {
    const { client, by, extra } = call;
    const progressToken = extra._meta?.progressToken;
    const session = new AgentSession(
      agent.name,
      callSessionId(by, call.sessionId),
      {
        client,
        owner: by,
        ...(progressToken !== undefined && agent.options.modelExecution !== "local" ? { streamText: true } : {}),
        ...defined({ taskQueue: options.taskQueue, context: call.context }),
      },
      agent.options.contextSchema,
    );
    const sent = await session.start(message, { by, updateId: callMessageId(extra.requestId, message) });
    const turn = await sent.turn({ started: true });
    const run = await getRun(session.workflowId, { client });
    onCancelled(extra, () => session.cancelMessage(turn.index));
    return followCall(run, channelOf(extra, by, progressToken), {
      structured: call.structured,
      ...defined({ fromOffset: turn.fromOffset }),
      message: { result: () => sent.result(), endOffset: async () => (await session.turns()).nextOffset },
    });
  }

  /** The run a task is, when the caller may see it. */
  async function ownRun(taskId: string, extra: Extra): Promise<{ run: RunHandle; by: string }> {
    const by = deps.callerOf(extra);
    const client = await deps.client();
    if (!isCallOf(by, taskId) || !(await readTask(client, taskId))) throw taskNotFound(taskId);
    return { run: await getRun(taskId, { client }), by };
  }

  if (!sessions) {
    server.setRequestHandler(GetTaskRequestSchema, async (request, extra) => {
      const by = deps.callerOf(extra);
      const task = isCallOf(by, request.params.taskId)
        ? await readTask(await deps.client(), request.params.taskId)
        : undefined;
      if (!task) throw taskNotFound(request.params.taskId);
      return task;
    });
    server.setRequestHandler(ListTasksRequestSchema, async (request, extra) =>
      listTasks(
        await deps.client(),
        deps.callerOf(extra),
        request.params?.cursor,
        options.tasksPageSize ?? DEFAULT_TASKS_PAGE_SIZE,
      ),
    );
    server.setRequestHandler(GetTaskPayloadRequestSchema, async (request, extra) => {
      const { run, by } = await ownRun(request.params.taskId, extra);
      const agent = agentOfCall(by, run.workflowId, [...agents.values()]);
      const result = await followCall(run, channelOf(extra, by, undefined), {
        structured: agent ? outputSchemaOf(agent) !== undefined : false,
      });
      return {
        ...result,
        _meta: { ...result._meta, "io.modelcontextprotocol/related-task": { taskId: run.workflowId } },
      };
    });
    server.setRequestHandler(CancelTaskRequestSchema, async (request, extra) => {
      const { run } = await ownRun(request.params.taskId, extra);
      const client = await deps.client();
      const before = await readTask(client, run.workflowId);
      if (before && ["completed", "failed", "cancelled"].includes(before.status))
        throw new McpError(ErrorCode.InvalidParams, `Cannot cancel task in terminal status: ${before.status}`);
      await run.cancel();
      const now = new Date();
      return taskOf(run.workflowId, "cancelled", before ? new Date(before.createdAt) : now, now);
    });
  }

  server.onclose = () => {
    closing = true;
  };
  return server;
}

/** Arguments that fail the tool's input schema: a tool error (the model calling it can correct them), and no run starts. */
function invalidArguments(tool: string, problem: string): CallToolResult {
  return { content: [{ type: "text", text: `Invalid arguments for tool ${tool}: ${problem}` }], isError: true };
}
