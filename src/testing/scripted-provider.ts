/**
 * What the scripted provider servers (Anthropic Messages, Gemini, OpenAI Responses) share: a
 * provider-neutral scripted answer, so one test can run against any of them, the recorded
 * requests, and the flow from a turn to the protocol's bytes. Each protocol module says only
 * how an answer, an error and an event stream look on its wire.
 */
import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import type { ScriptedToolCall } from "./scripted-model.js";
import {
  exhaustedMessage,
  isRawTurn,
  isStatusTurn,
  scriptHandler,
  startScriptedServer,
  writeEvents,
  writeRaw,
  writeStatus,
  type RawTurn,
  type ReceivedRequest,
  type StatusTurn,
  type StreamCut,
} from "./scripted-server.js";

/**
 * Reasoning the scripted model returns before its answer, with the provider metadata that must
 * come back on the next request. Each protocol uses its own field, or `signature` when that is unset.
 */
export interface ScriptedReasoning {
  /** The reasoning text: Anthropic's thinking, a Responses reasoning summary, a Gemini thought summary. */
  text?: string;
  /** Anthropic's thinking `signature` (the `data` of a redacted block); the fallback for the two fields below. */
  signature?: string;
  /** OpenAI Responses' `encrypted_content`, sent when the request includes `reasoning.encrypted_content`. Default `signature`. */
  encryptedContent?: string;
  /** Gemini's `thoughtSignature`. Default `signature`. */
  thoughtSignature?: string;
  /** Anthropic: a `redacted_thinking` block (its `data` is `signature`) instead of a thinking block. Elsewhere: reasoning with no text. */
  redacted?: boolean;
  /** OpenAI Responses' reasoning item id. Default `rs_scripted_<request>_<n>`. */
  id?: string;
}

/** A web search the provider ran (Anthropic's `web_search` server tool): the query the model gave it and what it found, or its error. */
export interface ScriptedWebSearch {
  /** The server tool call's id. Default `srvtoolu_scripted_<request>_<n>`. */
  id?: string;
  query: string;
  /** The results (each's `encryptedContent` defaults to a scripted value), or the tool's error code (e.g. `max_uses_exceeded`). */
  results: Array<{ url: string; title?: string; pageAge?: string; encryptedContent?: string }> | { errorCode: string };
}

/** Token usage, provider-neutral; each protocol reports it in its own fields. */
export interface ScriptedTokenUsage {
  /** All input tokens, cached ones included. */
  inputTokens: number;
  /** All output tokens, reasoning included. */
  outputTokens: number;
  /** Input tokens read from the prompt cache (Anthropic `cache_read_input_tokens`, Responses `cached_tokens`, Gemini `cachedContentTokenCount`). */
  cacheReadTokens?: number;
  /** Input tokens written to the prompt cache (Anthropic `cache_creation_input_tokens`, Responses `cache_write_tokens`; Gemini has none). */
  cacheWriteTokens?: number;
  /** Output tokens spent reasoning (Anthropic `thinking_tokens`, Responses `reasoning_tokens`, Gemini `thoughtsTokenCount`). */
  reasoningTokens?: number;
}

/** An answer that did not end normally: cut at the token limit, or stopped by the provider's content filter. */
export type ScriptedFinish = "length" | "content-filter";

/** Errors every provider has, each sent as that provider sends it (status, body, headers). */
export type ScriptedErrorKind =
  /** 429: Anthropic `rate_limit_error`, OpenAI `rate_limit_exceeded`, Gemini `RESOURCE_EXHAUSTED` (with a `RetryInfo`). */
  | "rate-limit"
  /** Anthropic's 529 `overloaded_error`; OpenAI and Gemini answer 503. */
  | "overloaded"
  /** 400: `invalid_request_error` / `INVALID_ARGUMENT`. */
  | "bad-request"
  /** 401: Anthropic `authentication_error`, OpenAI `invalid_api_key`, Gemini `UNAUTHENTICATED`. */
  | "auth"
  /** 500: `api_error` / `server_error` / `INTERNAL`. */
  | "server";

/** An HTTP error as the provider sends it. */
export interface ScriptedProviderError {
  error: ScriptedErrorKind;
  /** Seconds, sent as a `retry-after` header (and in Gemini's `RetryInfo`). */
  retryAfter?: number;
  /** Default: the provider's usual message for the error. */
  message?: string;
}

/** A well-formed answer, provider-neutral, streamed as the protocol's events when the request asks for a stream. */
export interface ScriptedProviderAnswer {
  text?: string;
  /**
   * A JSON answer (structured output): sent as the answer's text, or, when an Anthropic request
   * asks for JSON through a `json` tool it requires, as that tool's call.
   */
  json?: unknown;
  /** Tool calls, in order; more than one is a parallel tool call. */
  toolCalls?: ScriptedToolCall[];
  /** Reasoning before the answer: one block or several. */
  reasoning?: ScriptedReasoning | ScriptedReasoning[];
  /**
   * Anthropic only (the other protocols ignore it): web searches the provider ran while answering,
   * after the reasoning and before the text, each as a `server_tool_use` block and its
   * `web_search_tool_result` block.
   */
  webSearches?: ScriptedWebSearch[];
  /** Usage to report (null: none, even with a server-wide default; Anthropic, whose usage is required, then reports zeros). */
  usage?: ScriptedTokenUsage | null;
  /** How the answer ends when not normally. */
  finish?: ScriptedFinish;
  /** Characters per streamed text (or argument) delta for this answer. Default: the server's. */
  chunkSize?: number;
  /** Stream this many events, then break the stream as `cutBy` says (a connection dropped mid-answer). */
  cutAfterEvents?: number;
  /** How `cutAfterEvents` breaks the stream. Default `"close"`. */
  cutBy?: StreamCut;
  /** Stream this many events, then nothing more, keeping the response open (a stalled model). */
  stallAfterEvents?: number;
  /** Stream this many events, then the protocol's error event for `failWith` (the HTTP status was already 200), and end. */
  failAfterEvents?: number;
  /** The error of `failAfterEvents`. Default `"overloaded"`. */
  failWith?: ScriptedErrorKind;
  /** Stream this many events, then wait for `resumeWhen` before the rest (a model that thinks as long as a test needs). */
  pauseAfterEvents?: number;
  /** What `pauseAfterEvents` waits for. */
  resumeWhen?: PromiseLike<unknown>;
}

/** One scripted answer: an answer (a plain string is text), a provider error, any HTTP error, or a raw body. */
export type ScriptedProviderTurn = string | ScriptedProviderAnswer | ScriptedProviderError | StatusTurn | RawTurn;

/** A request a scripted provider server received. */
export interface ScriptedProviderRequest<B> {
  /** 0-based order of arrival. */
  index: number;
  /** The request body as the client sent it. */
  body: B;
  /** The request headers (lower-case names), e.g. `x-api-key`, `x-goog-api-key`, `authorization`. */
  headers: IncomingHttpHeaders;
  /** The request path with its query string. */
  path: string;
  /** The model: from the body, or (Gemini) from the path. */
  model: string;
  /** Whether the request asked for a stream. */
  stream: boolean;
  /** Resolves when the connection closes: after the answer, or when the client gives up (aborts). */
  closed: Promise<void>;
}

/** Answers a request: return a turn (or a promise of one, to hold the answer back). */
export type ScriptedProviderHandler<B> = (
  request: ScriptedProviderRequest<B>,
) => ScriptedProviderTurn | Promise<ScriptedProviderTurn>;

/** Options of the scripted provider servers. */
export interface ScriptedProviderOptions {
  /** Characters per streamed text delta. Default 8. */
  chunkSize?: number;
  /** Port to listen on; default a free one. */
  port?: number;
  /** Usage reported with every answer that has none of its own. Default: none. */
  usage?: ScriptedTokenUsage;
}

/** A running scripted provider server. */
export interface ScriptedProviderServer<B> {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Pass as the provider's `baseURL`: `url` plus the API's version path (`/v1`, or `/v1beta` for Gemini). */
  readonly baseURL: string;
  /** Every request received, in order. */
  readonly requests: ScriptedProviderRequest<B>[];
  /** Stops the server. */
  close(): Promise<void>;
}

/** A tool call ready for the wire: its arguments as JSON text and as a value. */
export interface WireToolCall {
  id: string | undefined;
  name: string;
  /** The arguments as sent in a stream (JSON text, or the scripted string as it is). */
  argumentsText: string;
  /** The arguments as a value (the scripted string itself when it is not JSON). */
  input: unknown;
}

/** A scripted answer with its defaults applied. */
export interface WireAnswer {
  text: string;
  json: unknown;
  toolCalls: WireToolCall[];
  reasoning: ScriptedReasoning[];
  webSearches: ScriptedWebSearch[];
  usage: ScriptedTokenUsage | undefined;
  finish: ScriptedFinish | undefined;
  chunkSize: number;
}

/** How one wire protocol looks. */
export interface WireProtocol<B> {
  /** The API's version path, appended to the server's url for `baseURL`. */
  basePath: string;
  matches(method: string, path: string): boolean;
  /** The model and whether a stream was asked for. */
  describe(body: B, path: string): { model: string; stream: boolean };
  /** The JSON error envelope for a status and message. */
  errorBody(message: string, status: number): unknown;
  /** An error kind as the provider sends it. */
  error(kind: ScriptedErrorKind, message: string | undefined, retryAfter: number | undefined): StatusTurn;
  /** A non-streamed answer's JSON body. */
  body(answer: WireAnswer, request: ScriptedProviderRequest<B>): unknown;
  /** A streamed answer's server-sent events, in order (each a whole frame). */
  events(answer: WireAnswer, request: ScriptedProviderRequest<B>): string[];
  /** The event an error inside a started stream is sent as, as the stream's event number `index`. */
  errorEvent(kind: ScriptedErrorKind, index: number): string;
}

/** Starts a scripted server for `protocol`; with an array, request N gets turn N, and a request past the end gets a 400. */
export async function startProviderServer<B>(
  protocol: WireProtocol<B>,
  script: ScriptedProviderTurn[] | ScriptedProviderHandler<B>,
  options: ScriptedProviderOptions,
): Promise<ScriptedProviderServer<B>> {
  const handler = scriptHandler<ScriptedProviderRequest<B>, ScriptedProviderTurn>(script, (index, length) => ({
    status: 400,
    body: protocol.errorBody(exhaustedMessage(index, length), 400),
  }));
  const server = await startScriptedServer<ScriptedProviderRequest<B>>(
    {
      matches: protocol.matches,
      record: (received: ReceivedRequest) => ({
        ...received,
        body: received.body as B,
        ...protocol.describe(received.body as B, received.path),
      }),
      respond: async (request, res) => respond(protocol, await handler(request), request, res, options),
      errorBody: protocol.errorBody,
    },
    options.port,
  );
  return {
    url: server.origin,
    baseURL: `${server.origin}${protocol.basePath}`,
    requests: server.requests,
    close: server.close,
  };
}

async function respond<B>(
  protocol: WireProtocol<B>,
  turn: ScriptedProviderTurn,
  request: ScriptedProviderRequest<B>,
  res: ServerResponse,
  options: ScriptedProviderOptions,
): Promise<void> {
  if (isRawTurn(turn)) return writeRaw(res, turn);
  if (isStatusTurn(turn))
    return writeStatus(res, {
      ...turn,
      body: turn.body ?? protocol.errorBody(`scripted error ${turn.status}`, turn.status),
    });
  if (typeof turn === "object" && "error" in turn) {
    const error = protocol.error(turn.error, turn.message, turn.retryAfter);
    return writeStatus(res, {
      ...error,
      headers: {
        ...error.headers,
        ...(turn.retryAfter === undefined ? {} : { "retry-after": String(turn.retryAfter) }),
      },
    });
  }
  const scripted: ScriptedProviderAnswer = typeof turn === "string" ? { text: turn } : turn;
  const answer = wireAnswer(scripted, options);
  if (!request.stream) return writeStatus(res, { status: 200, body: protocol.body(answer, request) });
  const events = protocol.events(answer, request);
  const pause =
    scripted.pauseAfterEvents !== undefined && scripted.resumeWhen
      ? { afterEvents: scripted.pauseAfterEvents, until: scripted.resumeWhen }
      : undefined;
  if (scripted.failAfterEvents !== undefined) {
    const sent = events.slice(0, scripted.failAfterEvents);
    return writeEvents(res, [...sent, protocol.errorEvent(scripted.failWith ?? "overloaded", sent.length)], {
      ...(pause ? { pause } : {}),
    });
  }
  const cutAfterEvents =
    scripted.cutAfterEvents !== undefined && scripted.cutAfterEvents <= events.length
      ? scripted.cutAfterEvents
      : undefined;
  return writeEvents(res, events, {
    cutAfterEvents,
    cutBy: scripted.cutBy,
    stallAfterEvents: scripted.stallAfterEvents,
    ...(pause ? { pause } : {}),
  });
}

function wireAnswer(answer: ScriptedProviderAnswer, options: ScriptedProviderOptions): WireAnswer {
  return {
    text: answer.text ?? (answer.json === undefined ? "" : JSON.stringify(answer.json)),
    json: answer.json,
    toolCalls: (answer.toolCalls ?? []).map((call) => {
      const argumentsText = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments ?? {});
      return {
        id: call.id,
        name: call.name,
        argumentsText,
        input: typeof call.arguments === "string" ? parseOr(call.arguments) : (call.arguments ?? {}),
      };
    }),
    reasoning:
      answer.reasoning === undefined ? [] : Array.isArray(answer.reasoning) ? answer.reasoning : [answer.reasoning],
    webSearches: answer.webSearches ?? [],
    usage: answer.usage === null ? undefined : (answer.usage ?? options.usage),
    finish: answer.finish,
    chunkSize: answer.chunkSize ?? options.chunkSize ?? 8,
  };
}

function parseOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** `text` in pieces of `size` characters (none for an empty text). */
export function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** A server-sent event frame with an `event:` name line, as Anthropic and OpenAI send them. */
export function namedEvent(type: string, data: object): string {
  return `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}
