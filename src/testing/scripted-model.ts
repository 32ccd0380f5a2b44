/**
 * A scripted OpenAI-compatible Chat Completions server on loopback: the one stand-in for a real
 * model. The real `openai` client talks to it over HTTP, streamed (SSE) or not.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A tool call the scripted model makes. `arguments` is sent as JSON, or as-is when a string. */
export interface ScriptedToolCall {
  name: string;
  arguments?: unknown;
  id?: string;
}

/**
 * A hostile or broken answer, sent exactly as given: a raw body (malformed SSE, a truncated
 * stream, invalid UTF-8, empty choices, HTML from a proxy), with any status and content type.
 */
export interface RawTurn {
  /** The response body; an array is written piece by piece, in order. */
  raw: string | Uint8Array | Array<string | Uint8Array>;
  /** Default 200. */
  status?: number;
  /** Default `text/event-stream`. */
  contentType?: string;
  headers?: Record<string, string>;
  /** Drop the connection once the body has been sent, instead of ending the response (a stream cut off in transit). */
  hangUp?: boolean;
}

/** How a stream cut by `cutAfterChunks` breaks. */
export type StreamCut =
  /** The socket is destroyed: undici's `terminated` ← `other side closed` (UND_ERR_SOCKET). */
  | "close"
  /** A TCP reset, shortly after the chunks: `terminated` ← ECONNRESET. */
  | "reset"
  /** The response ends cleanly, without the final chunk and `[DONE]`: "missing finish_reason". */
  | "end";

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
export type ScriptedTurn =
  | string
  | ScriptedAnswer
  | { status: number; body?: unknown; headers?: Record<string, string> }
  | RawTurn;

/** A chat completions request the server received. */
export interface ScriptedRequest {
  /** 0-based order of arrival. */
  index: number;
  /** The request body as sent by the client. */
  body: { model: string; messages: Array<{ role: string; content?: unknown; tool_calls?: unknown[] }>; tools?: unknown[]; stream?: boolean; [key: string]: unknown };
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
export async function startScriptedModel(script: ScriptedTurn[] | ScriptHandler, options: ScriptedModelOptions = {}): Promise<ScriptedModel> {
  const requests: ScriptedRequest[] = [];
  const handler: ScriptHandler = typeof script === "function" ? script : ({ index }) => script[index] ?? exhausted(index, script.length);
  const server = createServer((req, res) => {
    handle(req, res).catch((error) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `scripted model: ${(error as Error).message}`, type: "server_error" } }));
    });
  });
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `scripted model: no route ${req.method} ${req.url}`, type: "invalid_request_error" } }));
      return;
    }
    const body = JSON.parse(await readBody(req)) as ScriptedRequest["body"];
    const request: ScriptedRequest = {
      index: requests.length,
      body,
      authorization: req.headers.authorization,
      closed: new Promise<void>((resolve) => res.once("close", () => resolve())),
    };
    requests.push(request);
    const turn = await handler(request);
    if (typeof turn === "object" && "raw" in turn) {
      writeRaw(res, turn);
      return;
    }
    if (typeof turn === "object" && "status" in turn) {
      res.writeHead(turn.status, { "content-type": "application/json", ...turn.headers });
      res.end(JSON.stringify(turn.body ?? { error: { message: `scripted error ${turn.status}`, type: "scripted_error" } }));
      return;
    }
    const scripted = typeof turn === "string" ? { text: turn } : turn;
    const fallback = typeof options.usage === "function" ? options.usage(request) : options.usage;
    const answer: Answer = { ...scripted, usage: scripted.usage === null ? undefined : (scripted.usage ?? fallback) };
    const completion = { id: `chatcmpl-scripted-${request.index}`, created: Math.floor(Date.now() / 1000), model: body.model };
    const pace = answer.chunksPerSecond ?? options.chunksPerSecond;
    if (body.stream) await writeStream(res, completion, answer, { chunkSize: answer.chunkSize ?? options.chunkSize ?? 8, ...(pace ? { chunksPerSecond: pace } : {}) }, request);
    else writeCompletion(res, completion, answer, () => {
      if (answer.usage) request.usageServed = withTotal(answer.usage);
    });
  }
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function writeRaw(res: ServerResponse, turn: RawTurn): void {
  res.writeHead(turn.status ?? 200, { "content-type": turn.contentType ?? "text/event-stream", ...turn.headers });
  const pieces = Array.isArray(turn.raw) ? turn.raw : [turn.raw];
  if (!turn.hangUp) {
    for (const piece of pieces) res.write(piece);
    res.end();
    return;
  }
  res.flushHeaders();
  pieces.forEach((piece, i) => res.write(piece, i === pieces.length - 1 ? () => cut(res, "close") : undefined));
  if (pieces.length === 0) setImmediate(() => cut(res, "close"));
}

/** Breaks a response whose chunks have been sent. */
function cut(res: ServerResponse, by: StreamCut): void {
  if (by === "end") res.end();
  else if (by === "reset") setTimeout(() => res.socket?.resetAndDestroy(), RESET_DELAY_MS);
  else res.socket?.destroy();
}

/** A reset sent at once can reach undici as a plain close; after a moment it arrives as ECONNRESET. */
const RESET_DELAY_MS = 20;

function exhausted(index: number, length: number): ScriptedTurn {
  return { status: 400, body: { error: { message: `scripted model: request #${index + 1} has no scripted turn (the script has ${length})`, type: "invalid_request_error" } } };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
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
    function: { name: call.name, arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments ?? {}) },
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
          message: { role: "assistant", content: answer.text ?? null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}), refusal: null },
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

async function writeStream(res: ServerResponse, ids: CompletionIds, answer: Answer, { chunkSize, chunksPerSecond }: { chunkSize: number; chunksPerSecond?: number }, request: ScriptedRequest): Promise<void> {
  const toolCalls = toolCallsOf(answer, ids.id);
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  // The answer's chunks, in order; the usage chunk last, when the request asks for usage.
  const chunks: string[] = [];
  const chunk = (delta: object, finish: string | null = null) =>
    chunks.push(`data: ${JSON.stringify({ ...ids, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }] })}\n\n`);
  chunk({ role: "assistant", content: "" });
  const text = answer.text ?? "";
  for (let i = 0; i < text.length; i += chunkSize) chunk({ content: text.slice(i, i + chunkSize) });
  const textChunks = chunks.length - 1;
  toolCalls.forEach((call, index) => {
    chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } }] });
    const args = call.function.arguments;
    for (let i = 0; i < args.length; i += chunkSize) chunk({ tool_calls: [{ index, function: { arguments: args.slice(i, i + chunkSize) } }] });
  });
  chunk({}, toolCalls.length ? "tool_calls" : "stop");
  const includeUsage = (request.body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
  const usage = includeUsage && answer.usage ? withTotal(answer.usage) : undefined;
  if (usage) chunks.push(`data: ${JSON.stringify({ ...ids, object: "chat.completion.chunk", choices: [], usage })}\n\n`);

  const started = Date.now();
  /** Writes chunks [from, to), text chunks paced at chunksPerSecond (text chunk n goes out n / chunksPerSecond s after the first); `then` after the last is flushed. */
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
    const resume = answer.stallForMs;
    await write(0, Math.min(answer.stallAfterChunks, all), resume === undefined ? undefined : () => {
      const timer = setTimeout(() => {
        if (res.destroyed) return;
        void write(answer.stallAfterChunks!, all).then(() => {
          if (!res.destroyed) res.end("data: [DONE]\n\n");
        });
      }, resume);
      res.once("close", () => clearTimeout(timer));
    });
  } else {
    await write(0, all);
    if (!res.destroyed) res.end("data: [DONE]\n\n");
  }
}
