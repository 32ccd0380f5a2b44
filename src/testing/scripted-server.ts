/**
 * The loopback HTTP server under every scripted model (Chat Completions, Anthropic Messages,
 * Gemini, OpenAI Responses): one route, the recorded requests, the script queue, raw bodies,
 * event streams and the ways a stream breaks. Each wire protocol only turns a turn into bytes.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

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

/** An HTTP error answer: the status, with `body` as JSON (default: the protocol's error envelope) and extra headers. */
export interface StatusTurn {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** How a stream cut mid-answer breaks. */
export type StreamCut =
  /** The socket is destroyed: undici's `terminated` ← `other side closed` (UND_ERR_SOCKET). */
  | "close"
  /** A TCP reset, shortly after the chunks: `terminated` ← ECONNRESET. */
  | "reset"
  /** The response ends cleanly, without the rest of the stream (no final event). */
  | "end";

/** What every scripted server records of a request before its protocol adds its own fields. */
export interface ReceivedRequest {
  /** 0-based order of arrival. */
  index: number;
  /** The parsed JSON body. */
  body: unknown;
  /** The request headers (lower-case names). */
  headers: IncomingHttpHeaders;
  /** The request path with its query string. */
  path: string;
  /** Resolves when the connection closes: after the answer, or when the client gives up (aborts). */
  closed: Promise<void>;
}

/** What a protocol module gives the shared server. */
export interface ScriptedRoute<R> {
  /** Whether this protocol answers `method path`; other requests get a 404. */
  matches(method: string, path: string): boolean;
  /** The protocol's request record, built from what every server records. */
  record(received: ReceivedRequest): R;
  /** Writes the answer. */
  respond(request: R, res: ServerResponse): Promise<void>;
  /** The protocol's JSON error envelope, for a 404 or for a failure inside the scripted server (500). */
  errorBody(message: string, status: number): unknown;
}

/** A running loopback server and what it has received. */
export interface RunningServer<R> {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  requests: R[];
  close(): Promise<void>;
}

/** Starts a server on 127.0.0.1 (`port`, default a free one) that records every request of `route` and answers it. */
export async function startScriptedServer<R>(route: ScriptedRoute<R>, port = 0): Promise<RunningServer<R>> {
  const requests: R[] = [];
  const server = createServer((req, res) => {
    handle(req, res).catch((error) =>
      writeStatus(res, { status: 500, body: route.errorBody(`scripted model: ${(error as Error).message}`, 500) }),
    );
  });
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = req.url ?? "/";
    if (!route.matches(req.method ?? "", path)) {
      writeStatus(res, { status: 404, body: route.errorBody(`scripted model: no route ${req.method} ${path}`, 404) });
      return;
    }
    const text = await readBody(req);
    const request = route.record({
      index: requests.length,
      body: text === "" ? {} : JSON.parse(text),
      headers: req.headers,
      path,
      closed: new Promise<void>((resolve) => res.once("close", () => resolve())),
    });
    requests.push(request);
    await route.respond(request, res);
  }
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A script as a handler: an array answers request N with turn N, and a request past its end with `exhausted`. */
export function scriptHandler<R extends { index: number }, T>(
  script: T[] | ((request: R) => T | Promise<T>),
  exhausted: (index: number, length: number) => T,
): (request: R) => T | Promise<T> {
  return typeof script === "function" ? script : ({ index }) => script[index] ?? exhausted(index, script.length);
}

/** The message of the error a request past the end of a script gets (as a 400). */
export function exhaustedMessage(index: number, length: number): string {
  return `scripted model: request #${index + 1} has no scripted turn (the script has ${length})`;
}

/** A turn that is a raw body. */
export function isRawTurn(turn: unknown): turn is RawTurn {
  return typeof turn === "object" && turn !== null && "raw" in turn;
}

/** A turn that is an HTTP error (or any status) with a JSON body. */
export function isStatusTurn(turn: unknown): turn is StatusTurn {
  return typeof turn === "object" && turn !== null && "status" in turn;
}

/** Writes a JSON answer with its status. */
export function writeStatus(res: ServerResponse, turn: StatusTurn): void {
  if (!res.headersSent) res.writeHead(turn.status, { "content-type": "application/json", ...turn.headers });
  res.end(JSON.stringify(turn.body));
}

/** Writes a raw turn's body as given, and hangs up after it when asked. */
export function writeRaw(res: ServerResponse, turn: RawTurn): void {
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
export function cut(res: ServerResponse, by: StreamCut): void {
  if (by === "end") res.end();
  else if (by === "reset") setTimeout(() => res.socket?.resetAndDestroy(), RESET_DELAY_MS);
  else res.socket?.destroy();
}

/** A reset sent at once can reach undici as a plain close; after a moment it arrives as ECONNRESET. */
const RESET_DELAY_MS = 20;

/** How an event stream misbehaves, if it does. */
export interface StreamFault {
  /** Send this many events, then break the stream as `cutBy` says. */
  cutAfterEvents?: number;
  cutBy?: StreamCut;
  /** Send this many events, then nothing more, keeping the response open (until the client gives up). */
  stallAfterEvents?: number;
  /** Send `afterEvents` events, then wait for `until` before the rest (a model that thinks as long as a test needs). */
  pause?: { afterEvents: number; until: PromiseLike<unknown> };
}

/**
 * Writes server-sent events (each a whole frame, `data: ...` and its blank line) as an event
 * stream, or the part of them a fault lets through; `onWritten(i)` once event i has been flushed.
 */
export async function writeEvents(
  res: ServerResponse,
  events: string[],
  fault: StreamFault = {},
  onWritten?: (index: number) => void,
): Promise<void> {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  res.flushHeaders();
  const stopAt = fault.stallAfterEvents ?? fault.cutAfterEvents;
  const count = stopAt === undefined ? events.length : Math.min(stopAt, events.length);
  const pauseAt = fault.pause && fault.pause.afterEvents < count ? fault.pause.afterEvents : count;
  await writeSome(res, events, 0, pauseAt, onWritten);
  if (pauseAt < count) {
    await fault.pause!.until;
    if (res.destroyed) return; // the client gave up meanwhile
    await writeSome(res, events, pauseAt, count, onWritten);
  }
  if (fault.stallAfterEvents !== undefined) return;
  if (fault.cutAfterEvents !== undefined) cut(res, fault.cutBy ?? "close");
  else res.end();
}

/** Writes events `from` to `to` (not included), resolving once the last was flushed. */
function writeSome(
  res: ServerResponse,
  events: string[],
  from: number,
  to: number,
  onWritten: ((index: number) => void) | undefined,
): Promise<void> {
  return new Promise<void>((resolve) => {
    if (to <= from) setImmediate(resolve);
    for (let i = from; i < to; i++) {
      res.write(events[i]!, () => {
        onWritten?.(i);
        if (i === to - 1) resolve();
      });
    }
  });
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}
