/**
 * `createA2AHandler({ agents, authorize, baseUrl })`: a fetch handler serving agents over A2A's
 * JSON-RPC binding. Under `baseUrl`'s path: `GET /.well-known/agent-card.json` (the first agent's
 * card) and `GET /<agent>/.well-known/agent-card.json`; `POST /` (the first agent) and
 * `POST /<agent>`: JSON-RPC, A2A 0.3's methods (`message/send`, `message/stream`, `tasks/get`,
 * `tasks/cancel`, `tasks/resubscribe`) and, with the `A2A-Version: 1.0` header, A2A 1.0's, through
 * `@a2a-js/sdk`'s own transport handlers over one request handler (`durable-tasks.ts`).
 */
import type { Client } from "@temporalio/client";
import type {
  AgentCard,
  CancelTaskRequest,
  GetTaskRequest,
  SendMessageRequest,
  SubscribeToTaskRequest,
} from "@a2a-js/sdk";
import { getDefaultClient, temporalSettings } from "../client/connection.js";
import { reachableClient, temporalAddressOf } from "../client/temporal-reachable.js";
import { defined } from "../core/defined.js";
import { refusedSource } from "../http/index.js";
import { agentCard, type A2AAgent, type AgentCardJson } from "./agent-card.js";
import { DurableTasks } from "./durable-tasks.js";
import { guarded, guardedStream } from "./a2a-errors.js";
import { loadA2ASdk } from "./load-sdk.js";

/** Who the caller is, as `authorize` says: `by` owns their tasks and is recorded as the decider of their approvals. */
export interface A2ACaller {
  by: string;
}

/** Options of `createA2AHandler()`. */
export interface A2AHandlerOptions {
  /** The agents served; the first also answers at the base path. Each agent's path is its name. */
  agents: A2AAgent[];
  /**
   * Who is asking, from the request (a bearer token, a header): `{ by }`, or `false` to refuse with
   * 401. Called on every JSON-RPC request before its body is read; agent cards are public.
   */
  authorize: (request: Request) => A2ACaller | false | Promise<A2ACaller | false>;
  /**
   * The public URL the handler is mounted at (`https://agents.example.com/a2a`): cards name their
   * endpoints under it, and its path is taken off requests' paths.
   */
  baseUrl: string;
  /** The run's context for a caller's sessions (see `RunOptions.context`), from the request and the caller. Default: none. */
  context?: (request: { request: Request; by: string; agent: string }) => unknown;
  /** The Temporal client, or a function giving it; default: one connected from the environment. */
  client?: Client | (() => Promise<Client>);
  /** The task queue the agents' workers poll. */
  taskQueue?: string;
  /**
   * Origins allowed to POST from a browser besides the server's own (`["https://app.example.com"]`).
   * A request from any other origin (`Origin`, or `Sec-Fetch-Site` cross-site or same-site) is
   * refused with 403, and so is a body that is not JSON. Default: none.
   */
  allowedOrigins?: string[];
}

/** A fetch handler (`(request) => Promise<Response>`): mount it on a route of Next.js, Hono, or `node:http` through `durable-agent a2a`. */
export type A2AHandler = (request: Request) => Promise<Response>;

const CARD_PATH = ".well-known/agent-card.json";
/** The methods served, of A2A 0.3 and 1.0; any other is method-not-found. */
const METHODS = new Set([
  "message/send",
  "message/stream",
  "tasks/get",
  "tasks/cancel",
  "tasks/resubscribe",
  "SendMessage",
  "SendStreamingMessage",
  "GetTask",
  "CancelTask",
  "SubscribeToTask",
]);

/** Creates the A2A fetch handler for `agents`, each caller seeing only their own tasks. */
export function createA2AHandler(options: A2AHandlerOptions): A2AHandler {
  const { agents, authorize } = options;
  if (agents.length === 0) throw new TypeError("createA2AHandler: agents must name at least one agent");
  const base = new URL(options.baseUrl);
  const basePath = base.pathname.replace(/\/+$/, "");
  const endpoint = (agent: A2AAgent, index: number) =>
    `${base.origin}${basePath}${index === 0 ? "" : `/${encodeURIComponent(agent.name)}`}`;
  const cards = new Map<A2AAgent, AgentCardJson>();
  const cardOf = (agent: A2AAgent) => {
    if (!cards.has(agent)) cards.set(agent, agentCard(agent, endpoint(agent, agents.indexOf(agent))));
    return cards.get(agent)!;
  };
  const clientOf = async (): Promise<Client> =>
    typeof options.client === "function" ? options.client() : (options.client ?? getDefaultClient());
  const address =
    typeof options.client === "function"
      ? "the address the A2A handler's client function connects to"
      : options.client
        ? temporalAddressOf(options.client)
        : temporalSettings().address;

  /** The agent a path names (relative to the base: "" or "<agent>"), or undefined. */
  function agentAt(path: string): A2AAgent | undefined {
    if (path === "") return agents[0];
    let name: string;
    try {
      name = decodeURIComponent(path);
    } catch {
      return undefined;
    }
    return agents.find((agent) => agent.name === name);
  }

  async function rpc(request: Request, agent: A2AAgent): Promise<Response> {
    const refused = refusedSource(
      { method: request.method, header: (name) => request.headers.get(name) },
      defined({ allowedOrigins: options.allowedOrigins }),
    );
    if (refused) return rpcError(403, null, -32600, refused);
    const caller = await authorize(request);
    if (!caller) return rpcError(401, null, -32600, "Not signed in: this server answers only the callers it knows.");
    let body: unknown;
    try {
      body = JSON.parse(await request.text());
    } catch {
      return rpcError(200, null, -32700, "Parse error: the body is not JSON.");
    }
    const method = typeof body === "object" && body !== null ? (body as { method?: unknown }).method : undefined;
    const id = idOf(body);
    if (typeof method === "string" && !METHODS.has(method))
      return rpcError(200, id, -32601, `Method not found: ${method} (this server answers ${[...METHODS].join(", ")}).`);
    const sdk = await loadA2ASdk();
    const version = request.headers.get("a2a-version") ?? "0.3";
    const tasks = new DurableTasks({
      agent,
      by: caller.by,
      client: await reachableClient(clientOf(), address),
      sdk,
      signal: request.signal,
      card: v1Card(cardOf(agent)),
      ...defined({
        taskQueue: options.taskQueue,
        context: await options.context?.({ request, by: caller.by, agent: agent.name }),
      }),
    });
    const handler = {
      getAgentCard: () => tasks.getAgentCard(),
      getAuthenticatedExtendedAgentCard: () => tasks.getAuthenticatedExtendedAgentCard(),
      sendMessage: guarded(sdk, "message/send", (p: SendMessageRequest) => tasks.sendMessage(p)),
      sendMessageStream: guardedStream(sdk, "message/stream", (p: SendMessageRequest) => tasks.sendMessageStream(p)),
      getTask: guarded(sdk, "tasks/get", (p: GetTaskRequest) => tasks.getTask(p)),
      cancelTask: guarded(sdk, "tasks/cancel", (p: CancelTaskRequest) => tasks.cancelTask(p)),
      resubscribe: guardedStream(sdk, "tasks/resubscribe", (p: SubscribeToTaskRequest) => tasks.resubscribe(p)),
      createTaskPushNotificationConfig: async () => tasks.createTaskPushNotificationConfig(),
      getTaskPushNotificationConfig: async () => tasks.getTaskPushNotificationConfig(),
      listTaskPushNotificationConfigs: async () => tasks.listTaskPushNotificationConfigs(),
      deleteTaskPushNotificationConfig: async () => tasks.deleteTaskPushNotificationConfig(),
      listTasks: async () => tasks.listTasks(),
    };
    const transport = version.startsWith("1")
      ? new sdk.JsonRpcTransportHandler(handler)
      : new sdk.LegacyJsonRpcTransportHandler(handler);
    const context = new sdk.ServerCallContext({ requestedVersion: version });
    const answer = await transport.handle(body as Record<string, unknown>, context);
    if (!(Symbol.asyncIterator in answer)) return Response.json(answer);
    return sseOf(
      answer,
      id,
      version.startsWith("1")
        ? sdk.JsonRpcTransportHandler.mapToJSONRPCError
        : sdk.LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError,
    );
  }

  return async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    if (!url.pathname.startsWith(basePath)) return notFound();
    let path = url.pathname.slice(basePath.length).replace(/^\/+|\/+$/g, "");
    const card = path === CARD_PATH || path.endsWith(`/${CARD_PATH}`);
    if (card) path = path.slice(0, -CARD_PATH.length).replace(/\/+$/, "");
    const agent = agentAt(path);
    if (card) {
      if (request.method !== "GET" && request.method !== "HEAD") return methodNotAllowed("GET");
      return agent ? Response.json(cardOf(agent)) : notFound();
    }
    if (request.method !== "POST") return methodNotAllowed("POST");
    if (!agent)
      return rpcError(
        404,
        null,
        -32601,
        `No agent ${JSON.stringify(path)} here: the agents are ${agents.map((a) => a.name).join(", ")}.`,
      );
    try {
      return await rpc(request, agent);
    } catch (error) {
      console.error(`durable-agent a2a: POST ${url.pathname}:`, error);
      return rpcError(500, null, -32603, "The agent server failed on this request; its log has the details.");
    }
  };
}

/** The card in A2A 1.0's shape, for the SDK's transports (they read its streaming capability). */
function v1Card(card: AgentCardJson): AgentCard {
  return {
    name: card.name,
    description: card.description,
    supportedInterfaces: card.supportedInterfaces,
    provider: undefined,
    version: card.version,
    capabilities: { streaming: true, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills.map((skill) => ({
      ...skill,
      examples: [],
      inputModes: [],
      outputModes: [],
      securityRequirements: [],
    })),
    signatures: [],
  } as AgentCard;
}

/** The JSON-RPC id of a request body, when it has a valid one. */
function idOf(body: unknown): string | number | null {
  const id = typeof body === "object" && body !== null ? (body as { id?: unknown }).id : undefined;
  return typeof id === "string" || typeof id === "number" ? id : null;
}

function rpcError(status: number, id: string | number | null, code: number, message: string): Response {
  return Response.json({ jsonrpc: "2.0", id, error: { code, message } }, { status });
}

function notFound(): Response {
  return Response.json({ error: "Not found" }, { status: 404 });
}

function methodNotAllowed(allow: string): Response {
  return Response.json({ error: `Method not allowed: use ${allow}` }, { status: 405, headers: { allow } });
}

/**
 * A stream of JSON-RPC answers as server-sent events. A failure before the first event is a plain
 * JSON-RPC error (the SDK's clients read it so); a later one, an error event. Cancelling the body
 * (the client went away) returns the stream, which lets go of the run.
 */
async function sseOf(
  answers: AsyncGenerator<unknown>,
  id: string | number | null,
  mapError: (error: unknown) => unknown,
): Promise<Response> {
  let first: IteratorResult<unknown>;
  try {
    first = await answers.next();
  } catch (error) {
    return Response.json({ jsonrpc: "2.0", id, error: mapError(error) });
  }
  const encoder = new TextEncoder();
  const event = (data: unknown) => encoder.encode(`data: ${JSON.stringify(data)}\n\n`);
  let pending: IteratorResult<unknown> | undefined = first;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = pending ?? (await answers.next());
        pending = undefined;
        if (next.done) controller.close();
        else controller.enqueue(event(next.value));
      } catch (error) {
        controller.enqueue(event({ jsonrpc: "2.0", id, error: mapError(error) }));
        controller.close();
      }
    },
    async cancel() {
      await answers.return(undefined);
    },
  });
  return new Response(body, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" },
  });
}
