/**
 * `createChatHandler({ agent, authorize, context })`: the fetch handlers a Next.js App Router
 * route exports for the AI SDK's `useChat` (and its `DefaultChatTransport`): `POST {api}` sends a
 * message (with its images and PDFs), a decision, or `regenerate()`'s request, `GET {api}` lists
 * the caller's chats, `GET {api}/{chatId}/stream` resumes the answer in flight (204 when none),
 * `GET {api}/{chatId}/stream?messages` gives the chat's durable history, `DELETE
 * {api}/{chatId}/stream` stops the answer. A chat is a session (the chat id is the session id);
 * its owner and its context are recorded with it when its first message starts it, and the owner
 * is checked on every request.
 */
import type { Client } from "@temporalio/client";
import type { UIMessage } from "ai";
import type { AgentSession, SessionOptions } from "../client/session.js";
import { getDefaultClient, temporalSettings } from "../client/connection.js";
import { readRunPart } from "../run-reads/index.js";
import { getRun } from "../client/run-handle.js";
import { MAX_PAGE_BYTES } from "../core/paging.js";
import { defined } from "../core/defined.js";
import { PAYLOAD_LIMIT_BYTES } from "../core/constants.js";
import type { ContentPart, Message, ToolCallRecord } from "../core/types.js";
import { reachableClient, asConnectionError, temporalAddressOf } from "../client/temporal-reachable.js";
import { ChatRequestError, DurableAgentError, PayloadTooLargeError, SessionEndedError } from "../errors.js";
import { refusedSource } from "../http/index.js";
import { pendingApprovalsQuery, traceQuery, type SessionTurn } from "../workflows/definitions.js";
import { answerMessageId, chatHistory } from "./chat-history.js";
import { chatIdSchema, parseChatRequest, type ChatDecision } from "./chat-request.js";
import { listChats } from "./chat-list.js";
import { forbidden, jsonError, notFound, statusOf, streamError, textError } from "./chat-responses.js";
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
  /** The agent's options: with `memory`, a chat's user (`authorize`'s `by`) is whose memory it is. */
  readonly options?: { readonly memory?: unknown };
}

/** Options of `createChatHandler()`. */
export interface ChatHandlerOptions {
  /** The agent each chat is a session of. */
  agent: ChatAgent;
  /**
   * Who is asking, from the request (a cookie, a header): `{ by }`, or `false` to refuse (the
   * answer is 404, as for another user's chat). Called on every request, before anything is read;
   * `chatId` is "" for the list of chats (`GET {api}`).
   */
  authorize: (request: { request: Request; chatId: string }) => ChatCaller | false | Promise<ChatCaller | false>;
  /**
   * The run's context for a chat (see `RunOptions.context`), from the request and the caller: what
   * the agent's tools, instructions and callbacks read as `context` (the signed-in user, their
   * plan). Called on every request of a chat, after `authorize`; the chat's session records it
   * when its first message starts it, checked against the agent's `contextSchema`. Default: no context.
   */
  context?: (request: { request: Request; by: string; chatId: string }) => unknown;
  /** The Temporal client, or a function giving it; default: one connected from the environment. */
  client?: Client | (() => Promise<Client>);
  /** The task queue the agent's worker polls. */
  taskQueue?: string;
  /** Stream answer text token by token (default true; false for an agent whose model call is local). */
  streamText?: boolean;
  /**
   * Origins besides the app's own allowed to POST and DELETE (`["https://app.example.com"]`). The
   * app's own origin is the one the request names in `Host` (or, behind a proxy,
   * `X-Forwarded-Host`); a request from any other (`Origin`, or `Sec-Fetch-Site: cross-site` or
   * `same-site`) is refused with 403, and so is a POST whose body is not JSON. Default: none.
   */
  allowedOrigins?: string[];
}

/** The fetch handlers of a chat's routes, as Next.js App Router route files export them. */
export interface ChatHandler {
  /** `POST {api}`: `useChat`'s body; a new message, or decisions on calls waiting for approval; answers with the answer's UI message stream. */
  POST: (request: Request) => Promise<Response>;
  /**
   * `GET {api}/{chatId}/stream`: the answer in flight, replayed from its start (204 when none); with
   * `?messages`, the chat's history as `UIMessage[]`. `GET {api}` (any path not ending in
   * `/stream`): the caller's chats as `ChatSummary[]`, newest first.
   */
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
    const client = await reachableClient(clientOf(), addressOf(options.client));
    const context = await options.context?.({ request, by: caller.by, chatId });
    const session = agent.session(chatId, {
      client,
      owner: caller.by,
      ...(agent.options?.memory ? { user: caller.by } : {}), // the caller's memory, for an agent with memory
      streamText: options.streamText ?? true,
      ...defined({ taskQueue: options.taskQueue, context }),
    });
    const description = await session.describe();
    if (description ? description.owner !== caller.by : existing) return undefined;
    return { session, client, by: caller.by, open: description?.open ?? true };
  }

  async function post(request: Request): Promise<Response> {
    let json: unknown;
    try {
      json = await request.json();
    } catch {
      throw new ChatRequestError("the body is not JSON");
    }
    const asked = parseChatRequest(json);
    const chat = await chatOf(request, asked.chatId, asked.kind !== "message");
    if (!chat) return notFound();
    const { session, client } = chat;
    if (asked.kind !== "decisions") {
      const regenerated = asked.kind === "regenerate" ? await lastTurn(client, session, asked) : undefined;
      const content = asked.kind === "message" ? asked.content : regenerated!.content;
      const bytes = Buffer.byteLength(JSON.stringify(content));
      if (bytes > PAYLOAD_LIMIT_BYTES)
        return streamError(200, new PayloadTooLargeError("The chat message", bytes, PAYLOAD_LIMIT_BYTES));
      // A new message waits its turn in the session (durably: the session has taken it) and its answer streams when it comes;
      // a regenerate is refused while another message is answered (SessionBusyError, 409).
      const by = regenerated ? { by: chat.by, ifIdle: true, regenerates: regenerated.index } : { by: chat.by };
      const message = await session.start(content, by);
      const turn = await message.turn({ started: true }); // the session's failure, if it stops first
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
    if (new URL(request.url).pathname.split("/").at(-1) !== "stream") return list(request);
    const chatId = chatIdOf(request);
    const chat = await chatOf(request, chatId, true);
    if (!chat) return notFound();
    const { session, client } = chat;
    if (new URL(request.url).searchParams.has("messages")) {
      // A session that failed (an agent no worker serves) has no history to show, but a reason.
      const closed = chat.open ? undefined : await session.closedError();
      if (closed !== undefined && !SessionEndedError.isInstance(closed)) throw closed;
      return Response.json(await historyOf(client, session, chatId));
    }
    const busy = (await session.turns()).turns.find((t) => !["answered", "failed", "cancelled"].includes(t.status));
    if (!busy) return new Response(null, { status: 204 });
    const turn = busy.status === "queued" ? await session.startedTurn((t) => t.index === busy.index) : busy;
    return answerResponse(client, session, chatId, turn, turn.fromOffset!, request.signal);
  }

  async function list(request: Request): Promise<Response> {
    const caller = await authorize({ request, chatId: "" });
    if (!caller) return notFound();
    return Response.json(await listChats(await clientOf(), agent.name, caller.by));
  }

  async function remove(request: Request): Promise<Response> {
    const chatId = chatIdOf(request);
    const chat = await chatOf(request, chatId, true);
    if (!chat) return notFound();
    return Response.json({ stopped: await chat.session.cancelMessage() });
  }

  /**
   * Runs a route, once the request's origin and body type pass (403 otherwise). A typed error
   * becomes its status; where `useChat` expects a stream, a failure of the session (an agent no
   * worker serves) is the stream's error part, and Temporal unreachable (503) or an error of no
   * known kind is a message for a person as the body. The details go to the server's log.
   */
  const route =
    (handle: (request: Request) => Promise<Response>, stream: (request: Request) => boolean) =>
    async (request: Request): Promise<Response> => {
      const header = (name: string) => request.headers.get(name);
      const refused = refusedSource(
        { method: request.method, header },
        defined({ allowedOrigins: options.allowedOrigins }),
      );
      if (refused) return forbidden(refused);
      try {
        return await handle(request);
      } catch (caught) {
        const error = asConnectionError(caught, addressOf(options.client));
        const status = statusOf(error);
        if (status === 404) return notFound();
        if (status >= 500)
          console.error(`durable-agent chat: ${request.method} ${new URL(request.url).pathname}:`, error);
        if (!stream(request) || status < 500) return jsonError(status, error);
        return status === 500 && DurableAgentError.isInstance(error)
          ? streamError(200, error)
          : textError(status, error);
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
  let decoded: string;
  try {
    decoded = decodeURIComponent(segments.at(-2)!);
  } catch {
    throw new ChatRequestError("the chat id in the URL is not valid percent-encoding");
  }
  const parsed = chatIdSchema.safeParse(decoded);
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

/**
 * The message `regenerate()` answers again: the chat's last one (by the session's turns, not the
 * client's copy), its user message as it was sent. `messageId`, when given, must be its answer's.
 */
async function lastTurn(
  client: Client,
  session: AgentSession,
  asked: { chatId: string; messageId?: string },
): Promise<{ index: number; content: string | ContentPart[] }> {
  const last = (await session.turns()).turns.at(-1);
  if (last?.messagesFrom === undefined) throw new ChatRequestError("the chat has no answer to regenerate yet");
  if (asked.messageId !== undefined && asked.messageId !== answerMessageId(asked.chatId, last.index))
    throw new ChatRequestError(`only the chat's last answer can be regenerated, and ${asked.messageId} is not it`);
  const ref = { workflowId: session.workflowId };
  const [user] = await readRunPart<Message>(client, ref, "messages", last.messagesFrom, last.messagesFrom + 1);
  if (user?.role !== "user") throw new ChatRequestError("the chat's last message has no user message to answer again");
  return { index: last.index, content: user.content };
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

/** The address the handler's client talks to, as far as the handler knows it, for a `TemporalConnectionError`. */
function addressOf(client: ChatHandlerOptions["client"]): string {
  if (typeof client === "function") return "the address the chat handler's client function connects to";
  return client ? temporalAddressOf(client) : temporalSettings().address;
}
