/**
 * `createChatHandler({ agent, authorize })`: the fetch handlers a Next.js App Router route exports
 * for the AI SDK's `useChat` (and its `DefaultChatTransport`): `POST {api}` sends a message or a
 * decision, `GET {api}/{chatId}/stream` resumes the answer in flight (204 when none), `GET
 * {api}/{chatId}/stream?messages` gives the chat's durable history, `DELETE {api}/{chatId}/stream`
 * stops the answer. A chat is a session (the chat id is the session id); its owner is recorded
 * with it when its first message starts it, and checked on every request.
 */
import type { Client } from "@temporalio/client";
import type { UIMessage } from "ai";
import type { AgentSession, SessionOptions } from "../client/session.js";
import { getDefaultClient } from "../client/connection.js";
import { readRunPart } from "../run-reads/index.js";
import { getRun } from "../client/run-handle.js";
import { MAX_PAGE_BYTES } from "../core/paging.js";
import { defined } from "../core/defined.js";
import { PAYLOAD_LIMIT_BYTES } from "../core/constants.js";
import type { Message, ToolCallRecord } from "../core/types.js";
import { ChatRequestError, PayloadTooLargeError } from "../errors.js";
import { pendingApprovalsQuery, traceQuery, type SessionTurn } from "../workflows/definitions.js";
import { answerMessageId, chatHistory } from "./chat-history.js";
import { chatIdSchema, parseChatRequest, type ChatDecision } from "./chat-request.js";
import { jsonError, notFound, statusOf, streamError, typedTemporalError } from "./chat-responses.js";
import { uiMessageStream, uiMessageStreamResponse } from "../streaming/client/index.js";

/** Who the caller is, as `authorize` says: `by` names them as the chat's owner and as the approver of their decisions. */
export interface ChatCaller {
  by: string;
}

/** The agent a chat talks to: any `ai.agent()`. */
export interface ChatAgent {
  /** The agent's name, as its worker serves it. */
  readonly name: string;
  /** The session a chat is: `agent.session(chatId, options)`. */
  session(id: string, options?: SessionOptions): AgentSession;
}

/** Options of `createChatHandler()`. */
export interface ChatHandlerOptions {
  /** The agent each chat is a session of. */
  agent: ChatAgent;
  /**
   * Who is asking, from the request (a cookie, a header): `{ by }`, or `false` to refuse (the
   * answer is 404, as for another user's chat). Called on every request, before anything is read.
   */
  authorize: (request: { request: Request; chatId: string }) => ChatCaller | false | Promise<ChatCaller | false>;
  /** The Temporal client, or a function giving it; default: one connected from the environment. */
  client?: Client | (() => Promise<Client>);
  /** The task queue the agent's worker polls. */
  taskQueue?: string;
  /** Stream answer text token by token (default true; false for an agent whose model call is local). */
  streamText?: boolean;
}

/** The fetch handlers of a chat's routes, as Next.js App Router route files export them. */
export interface ChatHandler {
  /** `POST {api}`: `useChat`'s body; a new message, or decisions on calls waiting for approval; answers with the answer's UI message stream. */
  POST: (request: Request) => Promise<Response>;
  /** `GET {api}/{chatId}/stream`: the answer in flight, replayed from its start (204 when none); with `?messages`, the chat's history as `UIMessage[]`. */
  GET: (request: Request) => Promise<Response>;
  /** `DELETE {api}/{chatId}/stream`: stops the answer in flight. */
  DELETE: (request: Request) => Promise<Response>;
}

/** Creates a chat's route handlers for `agent`, answering only the callers `authorize` names, each in their own chats. */
export function createChatHandler(options: ChatHandlerOptions): ChatHandler {
  const { agent, authorize } = options;
  const clientOf = async (): Promise<Client> =>
    typeof options.client === "function" ? options.client() : (options.client ?? getDefaultClient());

  /** The caller's chat: its session, or 404 for a refused caller or a chat that is someone else's (or, with `existing`, that does not exist). */
  async function chatOf(request: Request, chatId: string, existing: boolean) {
    const caller = await authorize({ request, chatId });
    if (!caller) return undefined;
    const client = await clientOf();
    const session = agent.session(chatId, {
      client,
      owner: caller.by,
      streamText: options.streamText ?? true,
      ...defined({ taskQueue: options.taskQueue }),
    });
    const description = await session.describe();
    if (description ? description.owner !== caller.by : existing) return undefined;
    return { session, client, by: caller.by };
  }

  async function post(request: Request): Promise<Response> {
    let json: unknown;
    try {
      json = await request.json();
    } catch {
      throw new ChatRequestError("the body is not JSON");
    }
    const asked = parseChatRequest(json);
    const chat = await chatOf(request, asked.chatId, asked.kind === "decisions");
    if (!chat) return notFound();
    const { session, client } = chat;
    if (asked.kind === "message") {
      const bytes = Buffer.byteLength(JSON.stringify(asked.text));
      if (bytes > PAYLOAD_LIMIT_BYTES)
        return streamError(200, new PayloadTooLargeError("The chat message", bytes, PAYLOAD_LIMIT_BYTES));
      const message = await session.start(asked.text, { by: chat.by, ifIdle: true });
      const turn = await message.turn({ started: true });
      return answerResponse(client, session, asked.chatId, turn, turn.fromOffset!, request.signal);
    }
    const { turns, nextOffset } = await session.turns();
    const error = await decide(client, session, asked.decisions, chat.by);
    if (error) return streamError(200, error);
    const waiting = turns.find((t) => t.status === "waiting-for-approval");
    if (!waiting) return streamError(200, new ChatRequestError("no message of this chat waits for a decision"));
    return answerResponse(client, session, asked.chatId, waiting, nextOffset, request.signal);
  }

  async function get(request: Request): Promise<Response> {
    const chatId = chatIdOf(request);
    const chat = await chatOf(request, chatId, true);
    if (!chat) return notFound();
    const { session, client } = chat;
    if (new URL(request.url).searchParams.has("messages"))
      return Response.json(await historyOf(client, session, chatId));
    const busy = (await session.turns()).turns.find((t) => !["answered", "failed", "cancelled"].includes(t.status));
    if (!busy) return new Response(null, { status: 204 });
    const turn = busy.status === "queued" ? await startedTurn(session, busy) : busy;
    return answerResponse(client, session, chatId, turn, turn.fromOffset!, request.signal);
  }

  async function remove(request: Request): Promise<Response> {
    const chatId = chatIdOf(request);
    const chat = await chatOf(request, chatId, true);
    if (!chat) return notFound();
    return Response.json({ stopped: await chat.session.cancelMessage() });
  }

  /** Runs a route: a typed error becomes its status (a stream's error part where `useChat` expects a stream), Temporal unreachable 503. */
  const route =
    (handle: (request: Request) => Promise<Response>, stream: (request: Request) => boolean) =>
    async (request: Request): Promise<Response> => {
      try {
        return await handle(request);
      } catch (caught) {
        const address = await addressOf(options.client);
        const error = typedTemporalError(caught, address);
        const status = statusOf(error);
        if (status === 404) return notFound();
        return stream(request) && status >= 500 ? streamError(status, error) : jsonError(status, error);
      }
    };
  return {
    POST: route(post, () => true),
    GET: route(get, (request) => !new URL(request.url).searchParams.has("messages")),
    DELETE: route(remove, () => false),
  };
}

/** The chat id of a `{api}/{chatId}/stream` URL. */
function chatIdOf(request: Request): string {
  const segments = new URL(request.url).pathname.split("/");
  if (segments.at(-1) !== "stream" || segments.length < 3)
    throw new ChatRequestError("the URL is not {api}/{chatId}/stream");
  const parsed = chatIdSchema.safeParse(decodeURIComponent(segments.at(-2)!));
  if (!parsed.success) throw new ChatRequestError(`the chat id ${parsed.error.issues[0]!.message}`);
  return parsed.data;
}

/** Sends each decision (gated by the worker's `canDecide`); the first typed error, if one fails. */
async function decide(client: Client, session: AgentSession, decisions: ChatDecision[], by: string) {
  const run = await getRun(session.workflowId, { client });
  for (const { callId, approved, reason } of decisions) {
    try {
      if (approved) await run.approve(callId, { by });
      else await run.reject(callId, { by, reason: reason ?? "rejected in the chat" });
    } catch (error) {
      return error;
    }
  }
  return undefined;
}

async function startedTurn(session: AgentSession, queued: SessionTurn): Promise<SessionTurn> {
  for (;;) {
    const turn = (await session.turns()).turns.find((t) => t.index === queued.index)!;
    if (turn.status !== "queued") return turn;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * A session message's answer as the UI message stream, from `fromOffset` (where the message
 * starts, or where it goes on after a decision), under the id the chat gives the message. It ends
 * at a call that still waits for approval (`useChat` sends a decision only once the stream has
 * ended); a replay past a request that has been decided since goes on. The request's `signal`
 * (aborted when its client goes away) lets go of the run at once.
 */
function answerResponse(
  client: Client,
  session: AgentSession,
  chatId: string,
  turn: SessionTurn,
  fromOffset: number,
  signal: AbortSignal,
): Response {
  const stream = uiMessageStream(client, session.workflowId, {
    fromOffset,
    fromMessage: turn.messagesFrom ?? 0,
    messageId: answerMessageId(chatId, turn.index),
    endAtApproval: true,
    signal,
  });
  return uiMessageStreamResponse(stream);
}

async function historyOf(client: Client, session: AgentSession, chatId: string): Promise<UIMessage[]> {
  const ref = { workflowId: session.workflowId };
  const handle = client.workflow.getHandle(session.workflowId);
  const [{ turns }, messages, toolCalls, trace, pending] = await Promise.all([
    session.turns(),
    readRunPart<Message>(client, ref, "messages", 0, undefined, MAX_PAGE_BYTES),
    readRunPart<ToolCallRecord>(client, ref, "toolCalls", 0, undefined, MAX_PAGE_BYTES),
    handle.query(traceQuery),
    handle.query(pendingApprovalsQuery),
  ]);
  return chatHistory(chatId, { turns, messages, toolCalls, trace, pending });
}

/** The address the handler's client talks to, for a `TemporalConnectionError`. */
async function addressOf(client: ChatHandlerOptions["client"]): Promise<string> {
  const given = typeof client === "object" ? client : undefined;
  const address = (given?.connection as { options?: { address?: string } } | undefined)?.options?.address;
  return address ?? process.env.TEMPORAL_ADDRESS ?? "localhost:7233";
}
