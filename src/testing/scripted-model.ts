/**
 * A scripted OpenAI-compatible Chat Completions server on loopback, the stand-in for the model of
 * `ai.openai()`. The real `openai` client talks to it over HTTP, streamed (SSE) or not. The
 * scripted Anthropic, Gemini and Responses servers sit beside it (scripted-provider.ts).
 */
import type { ServerResponse } from "node:http";
import {
  cut,
  exhaustedMessage,
  isRawTurn,
  isStatusTurn,
  scriptHandler,
  startScriptedServer,
  writeRaw,
  writeStatus,
  type RawTurn,
  type StatusTurn,
  type StreamCut,
} from "./scripted-server.js";

/** A tool call the scripted model makes. `arguments` is sent as JSON, or as-is when a string. */
export interface ScriptedToolCall {
  name: string;
  arguments?: unknown;
  id?: string;
}

/** Token usage as an OpenAI answer reports it. */
export interface ScriptedUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number };
  completion_tokens_details?: { reasoning_tokens?: number };
}

/** A well-formed answer: text and tool calls, streamed as chunks when the request asks for a stream. */
export interface ScriptedAnswer {
  text?: string;
  toolCalls?: ScriptedToolCall[];
  /** Stream this many chunks, then stop sending without ending the response (a stalled model). */
  stallAfterChunks?: number;
  /**
   * With `stallAfterChunks`: resume after this many milliseconds and send the rest of the answer
   * (a model that stalls mid-answer, then goes on). Default: the stall lasts until the client gives up.
   */
  stallForMs?: number;
  /**
   * With `stallAfterChunks`: resume when this promise settles and send the rest of the answer (a
   * test holds the answer mid-stream until an event of its own, such as a page reloaded, instead of
   * a guessed delay). Wins over `stallForMs`.
   */
  stallUntil?: PromiseLike<unknown>;
  /**
   * Stream this many chunks, wait until they have been sent, then break the stream as `cutBy` says
   * (a model, proxy or load balancer that drops the connection mid-answer). Chunk 1 carries the
   * role, each later one a piece of text or of a tool call, the last the finish reason, and then
   * the usage chunk when the request asks for usage.
   */
  cutAfterChunks?: number;
  /** How `cutAfterChunks` breaks the stream. Default `"close"`. */
  cutBy?: StreamCut;
  /** Characters per streamed delta for this answer (e.g. large, to send megabytes quickly). Default: the server's. */
  chunkSize?: number;
  /** Text chunks a second for this answer (a model producing tokens at that rate). Default: the server's. */
  chunksPerSecond?: number;
  /** Usage to report (null: none, even with a server-wide default). */
  usage?: ScriptedUsage | null;
}

/** One scripted answer: text, tool calls, an HTTP error, or a raw body. A plain string is a text answer. */
export type ScriptedTurn = string | ScriptedAnswer | StatusTurn | RawTurn;

/** A chat completions request the server received. */
export interface ScriptedRequest {
  /** 0-based order of arrival. */
  index: number;
  /** The request body as sent by the client. */
  body: {
    model: string;
    messages: Array<{ role: string; content?: unknown; tool_calls?: unknown[] }>;
    tools?: unknown[];
    stream?: boolean;
    [key: string]: unknown;
  };
  /** The `authorization` header, to check what key the worker used. */
  authorization: string | undefined;
  /** When the first streamed chunk was written (epoch ms), for latency measurements. */
  firstChunkAt?: number;
  /** When the last streamed chunk so far was written (epoch ms). */
  lastChunkAt?: number;
  /** Resolves when the connection closes: after the answer, or when the client gives up (aborts). */
  closed: Promise<void>;
  /**
   * The usage the server reported to this request, set once the part of the answer carrying it
   * (the whole completion, or the streamed usage chunk) has been written: the server's own count
   * of tokens served. Unset for errors, raw bodies and answers cut or stalled before their usage.
   */
  usageServed?: ScriptedUsage;
}

/** Answers a request: return a turn (or a promise of one, to hold the answer back). */
export type ScriptHandler = (request: ScriptedRequest) => ScriptedTurn | Promise<ScriptedTurn>;

/** A running scripted model server. */
export interface ScriptedModel {
  /** Pass as `baseURL` (or `OPENAI_BASE_URL`): `http://127.0.0.1:<port>/v1`. */
  readonly baseURL: string;
  /** Every chat completions request received, in order. */
  readonly requests: ScriptedRequest[];
  /** Stops the server. */
  close(): Promise<void>;
}

/** Options of `startScriptedModel`. */
export interface ScriptedModelOptions {
  /** Characters per streamed text delta. Default 8. */
  chunkSize?: number;
  /** Text chunks a second (a model producing tokens at that rate). Default: as fast as the connection takes them. */
  chunksPerSecond?: number;
  /** Port to listen on; default a free one. */
  port?: number;
  /**
   * Usage reported with every answer that has none of its own (non-streamed, or streamed when the
   * request asks with `stream_options.include_usage`). Default: none reported.
   */
  usage?: ScriptedUsage | ((request: ScriptedRequest) => ScriptedUsage | undefined);
}

/**
 * Starts a scripted model. With an array, request N gets turn N, and a request past the end gets
 * a 400 error saying so; with a function, every request gets what it returns.
 */
export async function startScriptedModel(
  script: ScriptedTurn[] | ScriptHandler,
  options: ScriptedModelOptions = {},
): Promise<ScriptedModel> {
  const handler = scriptHandler<ScriptedRequest, ScriptedTurn>(script, (index, length) => ({
    status: 400,
    body: errorBody(exhaustedMessage(index, length), 400),
  }));
  const server = await startScriptedServer<ScriptedRequest>(
    {
      matches: (method, path) => method === "POST" && path.endsWith("/chat/completions"),
      record: ({ index, body, headers, closed }) => ({
        index,
        body: body as ScriptedRequest["body"],
        authorization: headers.authorization,
        closed,
      }),
      respond: async (request, res) => {
        const turn = await handler(request);
        if (isRawTurn(turn)) return writeRaw(res, turn);
        if (isStatusTurn(turn))
          return writeStatus(res, {
            ...turn,
            body: turn.body ?? { error: { message: `scripted error ${turn.status}`, type: "scripted_error" } },
          });
        const scripted = typeof turn === "string" ? { text: turn } : turn;
        const fallback = typeof options.usage === "function" ? options.usage(request) : options.usage;
        const answer: Answer = {
          ...scripted,
          usage: scripted.usage === null ? undefined : (scripted.usage ?? fallback),
        };
        const completion = {
          id: `chatcmpl-scripted-${request.index}`,
          created: Math.floor(Date.now() / 1000),
          model: request.body.model,
        };
        const pace = answer.chunksPerSecond ?? options.chunksPerSecond;
        if (request.body.stream)
          await writeStream(
            res,
            completion,
            answer,
            { chunkSize: answer.chunkSize ?? options.chunkSize ?? 8, ...(pace ? { chunksPerSecond: pace } : {}) },
            request,
          );
        else
          writeCompletion(res, completion, answer, () => {
            if (answer.usage) request.usageServed = withTotal(answer.usage);
          });
      },
      errorBody,
    },
    options.port,
  );
  return { baseURL: `${server.origin}/v1`, requests: server.requests, close: server.close };
}

function errorBody(message: string, status: number) {
  return { error: { message, type: status === 500 ? "server_error" : "invalid_request_error" } };
}

type Answer = Omit<ScriptedAnswer, "usage"> & { usage?: ScriptedUsage };
interface CompletionIds {
  id: string;
  created: number;
  model: string;
}

function toolCallsOf(answer: Answer, requestId: string) {
  return (answer.toolCalls ?? []).map((call, i) => ({
    id: call.id ?? `call_${requestId.split("-").pop()}_${i}`,
    type: "function" as const,
    function: {
      name: call.name,
      arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments ?? {}),
    },
  }));
}

function writeCompletion(res: ServerResponse, ids: CompletionIds, answer: Answer, onWritten: () => void): void {
  const toolCalls = toolCallsOf(answer, ids.id);
  res.writeHead(200, { "content-type": "application/json" });
  res.end(
    JSON.stringify({
      ...ids,
      object: "chat.completion",
      choices: [
        {
          index: 0,
          finish_reason: toolCalls.length ? "tool_calls" : "stop",
          message: {
            role: "assistant",
            content: answer.text ?? null,
            ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
            refusal: null,
          },
          logprobs: null,
        },
      ],
      ...(answer.usage ? { usage: withTotal(answer.usage) } : {}),
    }),
    onWritten,
  );
}

function withTotal(usage: ScriptedUsage): ScriptedUsage {
  return { ...usage, total_tokens: usage.total_tokens ?? usage.prompt_tokens + usage.completion_tokens };
}

async function writeStream(
  res: ServerResponse,
  ids: CompletionIds,
  answer: Answer,
  { chunkSize, chunksPerSecond }: { chunkSize: number; chunksPerSecond?: number },
  request: ScriptedRequest,
): Promise<void> {
  const toolCalls = toolCallsOf(answer, ids.id);
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  // The answer's chunks, in order; the usage chunk last, when the request asks for usage.
  const chunks: string[] = [];
  const chunk = (delta: object, finish: string | null = null) =>
    chunks.push(
      `data: ${JSON.stringify({ ...ids, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }] })}\n\n`,
    );
  chunk({ role: "assistant", content: "" });
  const text = answer.text ?? "";
  for (let i = 0; i < text.length; i += chunkSize) chunk({ content: text.slice(i, i + chunkSize) });
  const textChunks = chunks.length - 1;
  toolCalls.forEach((call, index) => {
    chunk({
      tool_calls: [{ index, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } }],
    });
    const args = call.function.arguments;
    for (let i = 0; i < args.length; i += chunkSize)
      chunk({ tool_calls: [{ index, function: { arguments: args.slice(i, i + chunkSize) } }] });
  });
  chunk({}, toolCalls.length ? "tool_calls" : "stop");
  const includeUsage = (request.body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
  const usage = includeUsage && answer.usage ? withTotal(answer.usage) : undefined;
  if (usage)
    chunks.push(`data: ${JSON.stringify({ ...ids, object: "chat.completion.chunk", choices: [], usage })}\n\n`);

  const started = Date.now();
  /**
   * Writes chunks [from, to), text chunks paced at chunksPerSecond (text chunk n goes out n /
   * chunksPerSecond s after the first); `then` after the last is flushed.
   */
  const write = async (from: number, to: number, then?: () => void): Promise<void> => {
    if (from >= to) {
      if (then) setImmediate(then);
      return;
    }
    request.firstChunkAt ??= Date.now();
    for (let i = from; i < to; i++) {
      if (chunksPerSecond && i >= 1 && i <= textChunks) {
        const wait = started + ((i - 1) * 1000) / chunksPerSecond - Date.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        if (res.destroyed) return;
      }
      request.lastChunkAt = Date.now();
      const last = i === to - 1;
      const isUsage = usage !== undefined && i === chunks.length - 1;
      res.write(chunks[i]!, () => {
        if (isUsage) request.usageServed = usage;
        if (last) then?.();
      });
    }
  };
  const all = chunks.length;
  if (answer.cutAfterChunks !== undefined && answer.stallAfterChunks === undefined && answer.cutAfterChunks <= all) {
    res.flushHeaders();
    await write(0, Math.min(answer.cutAfterChunks, all), () => cut(res, answer.cutBy ?? "close"));
  } else if (answer.stallAfterChunks !== undefined) {
    res.flushHeaders();
    const { stallForMs: resume, stallUntil: until } = answer;
    const goOn = () => {
      if (res.destroyed) return;
      void write(answer.stallAfterChunks!, all).then(() => {
        if (!res.destroyed) res.end("data: [DONE]\n\n");
      });
    };
    await write(
      0,
      Math.min(answer.stallAfterChunks, all),
      until !== undefined
        ? () => void Promise.resolve(until).then(goOn, goOn)
        : resume === undefined
          ? undefined
          : () => {
              const timer = setTimeout(goOn, resume);
              res.once("close", () => clearTimeout(timer));
            },
    );
  } else {
    await write(0, all);
    if (!res.destroyed) res.end("data: [DONE]\n\n");
  }
}
