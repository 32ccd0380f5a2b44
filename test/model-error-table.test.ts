/**
 * Issue 18, item 1: every row of MODEL_ERROR_TABLE, each shown by an error the real `openai`
 * client (over Node's fetch, i.e. undici) raises against a real server that misbehaves that way;
 * issue 31: the AI SDK rows by what the AI SDK path ends with when a real provider package does.
 * Only the rows no server can provoke build the error from its class, and say so.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer as createHttpServer, type RequestListener } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { createServer as createNetServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { Readable } from "node:stream";
import { finished } from "node:stream/promises";
import { join } from "node:path";
import OpenAI, { type ClientOptions } from "openai";
import { ContentFilterFinishReasonError, LengthFinishReasonError } from "openai/error";
import { afterEach, describe, expect, it } from "vitest";
import { ai, DEFAULT_LIMITS } from "../src/index.js";
import { createStreamingClient, streamChatCompletion } from "../src/models/chat-stream.js";
import {
  classifyModelError,
  MODEL_ERROR_TABLE,
  modelApiErrorFor,
  modelErrorMessage,
} from "../src/models/model-error-table.js";
import { openaiClientFor } from "../src/models/openai-client.js";
import { validateAnswer } from "../src/models/validate-answer.js";
import { startScriptedModel, type ScriptedTurn } from "../src/testing/index.js";
import { aiSdkExamples } from "./support/ai-sdk-error-examples.js";

const closers: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const REQUEST = { model: "gpt-table", messages: [{ role: "user" as const, content: "hi" }] };

/** What a model call on the worker ends with: the client's or the check's error, or `validateAnswer`'s. */
async function callWith(client: OpenAI, signal?: AbortSignal): Promise<unknown> {
  try {
    const completion = await streamChatCompletion(client, REQUEST, { signal });
    const check = validateAnswer(completion, { modelId: "gpt-table", limits: { ...DEFAULT_LIMITS } });
    return check.ok ? new Error(`expected an error, got an answer: ${JSON.stringify(check.message)}`) : check.error;
  } catch (error) {
    return error;
  }
}

/** The worker's client (createStreamingClient), as openaiClientFor makes it. */
const clientFor = (baseURL: string, options: ClientOptions = {}) =>
  createStreamingClient({ apiKey: "sk-test", baseURL, ...options });

/** The error a call gets when the scripted model answers with `turn`. */
async function scripted(turn: ScriptedTurn): Promise<unknown> {
  const model = await startScriptedModel([turn]);
  closers.push(() => model.close());
  return callWith(clientFor(model.baseURL));
}

/** The error a call gets from a raw HTTP server. */
async function httpServer(listener: RequestListener): Promise<unknown> {
  const server = createHttpServer(listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => new Promise((resolve) => (server.closeAllConnections(), server.close(resolve))));
  return callWith(clientFor(`http://127.0.0.1:${(server.address() as { port: number }).port}/v1`));
}

/** The error a call gets from a TCP server that does `onSocket` instead of speaking HTTP. */
async function tcpServer(onSocket: (socket: Socket) => void): Promise<unknown> {
  const sockets = new Set<Socket>();
  const server = createNetServer((socket) => {
    sockets.add(socket);
    socket.once("data", () => onSocket(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => new Promise((resolve) => (sockets.forEach((s) => s.destroy()), server.close(resolve))));
  return callWith(clientFor(`http://127.0.0.1:${(server.address() as { port: number }).port}/v1`));
}

async function closedPort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const chunk = (delta: object, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: "c", created: 1, model: "m", object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const sse =
  (body: string, extra: Record<string, string> = {}): RequestListener =>
  (req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/event-stream", ...extra });
      res.end(body);
    });
  };

type Example = { name: string; make: () => Promise<unknown> };
const ex = (name: string, make: () => Promise<unknown>): Example => ({ name, make });

/** One or more examples per row, keyed by the row's `error`. */
const EXAMPLES: Record<string, Example[]> = {
  "TooManyToolCallsError (limits.toolCallsPerAnswer)": [
    ex("33 tool calls in one answer", () =>
      scripted({ toolCalls: Array.from({ length: 33 }, (_, i) => ({ name: "t", arguments: { i } })) }),
    ),
  ],
  "PayloadTooLargeError (an answer over Temporal's payload limit)": [
    ex("a 2.1 MB text answer", () => scripted({ text: "x".repeat(2_100_000), chunkSize: 256 * 1024 })),
  ],
  "an answer with no choices (validateAnswer; streamed: no assistant message)": [
    ex("a stream whose chunk has choices: []", () =>
      scripted({
        raw: `data: ${JSON.stringify({ id: "c", created: 1, model: "m", object: "chat.completion.chunk", choices: [] })}\n\ndata: [DONE]\n\n`,
      }),
    ),
    ex("validateAnswer on a completion with choices: []", async () => {
      const check = validateAnswer(
        { id: "c", created: 1, model: "m", object: "chat.completion", choices: [] },
        { modelId: "gpt-table", limits: { ...DEFAULT_LIMITS } },
      );
      return check.ok ? new Error("expected no choices") : check.error;
    }),
  ],
  "LoadAPIKeyError: no API key": [
    ex("no apiKey, no baseURL, no OPENAI_API_KEY", async () => {
      const saved = { key: process.env.OPENAI_API_KEY, url: process.env.OPENAI_BASE_URL };
      delete process.env.OPENAI_API_KEY;
      delete process.env.OPENAI_BASE_URL;
      try {
        openaiClientFor(ai.openai("gpt-table"));
        return new Error("expected no client");
      } catch (error) {
        return error;
      } finally {
        if (saved.key !== undefined) process.env.OPENAI_API_KEY = saved.key;
        if (saved.url !== undefined) process.env.OPENAI_BASE_URL = saved.url;
      }
    }),
  ],
  "a 2xx that is not a chat completion stream (HTML, a login page, plain text, JSON)": [
    ex("an HTML page (baseURL without /v1)", () =>
      scripted({
        raw: "<!doctype html><html><body>llama.cpp web UI</body></html>",
        contentType: "text/html; charset=utf-8",
      }),
    ),
    ex("a JSON chat completion to a streamed request", () =>
      scripted({
        raw: JSON.stringify({ id: "x", object: "chat.completion", choices: [] }),
        contentType: "application/json",
      }),
    ),
    ex("plain text, no content-type", () => scripted({ raw: "OK", contentType: "" })),
  ],
  "APIUserAbortError (the call was aborted)": [
    ex("the activity's cancellation signal fires mid-stream", async () => {
      const model = await startScriptedModel([{ text: "a long answer that never ends", stallAfterChunks: 2 }]);
      closers.push(() => model.close());
      const controller = new AbortController();
      const pending = callWith(clientFor(model.baseURL), controller.signal);
      while (model.requests[0]?.firstChunkAt === undefined) await new Promise((resolve) => setTimeout(resolve, 5));
      controller.abort();
      return pending;
    }),
  ],
  "400 BadRequestError": [
    ex("400 context length exceeded", () =>
      scripted({ status: 400, body: { error: { message: "context length exceeded", type: "invalid_request_error" } } }),
    ),
  ],
  "401 AuthenticationError": [ex("401", () => scripted({ status: 401 }))],
  "403 PermissionDeniedError": [ex("403", () => scripted({ status: 403 }))],
  "404 NotFoundError": [ex("404 no such model", () => scripted({ status: 404 }))],
  "422 UnprocessableEntityError": [ex("422", () => scripted({ status: 422 }))],
  "408 request timeout": [ex("408", () => scripted({ status: 408 }))],
  "409 ConflictError": [ex("409", () => scripted({ status: 409 }))],
  "429 RateLimitError": [ex("429 with Retry-After", () => scripted({ status: 429, headers: { "retry-after": "2" } }))],
  "5xx InternalServerError (500, 502, 503, 504, ...)": [500, 502, 503, 504].map((status) =>
    ex(String(status), () => scripted({ status })),
  ),
  "another HTTP status (402, 413, 451, ...)": [402, 413].map((status) =>
    ex(String(status), () => scripted({ status })),
  ),
  "an error event inside the stream with code 400/401/403/404/422 (e.g. a context-size error sent as an event)": [
    ex("a context-size error with code 400", () =>
      scripted({
        raw: `data: ${JSON.stringify({ error: { code: 400, message: "the request exceeds the available context size", type: "exceed_context_size_error" } })}\n\n`,
      }),
    ),
  ],
  "APIError without a status (an error event inside the stream)": [
    ex("data: {error} mid-stream", () =>
      scripted({
        raw: chunk({ role: "assistant", content: "" }) + `data: {"error":{"message":"server overloaded"}}\n\n`,
      }),
    ),
  ],
  "APIConnectionTimeoutError (UND_ERR_CONNECT_TIMEOUT, UND_ERR_HEADERS_TIMEOUT)": [
    ex("no headers within the client's timeout", async () => {
      const model = await startScriptedModel(() => new Promise<ScriptedTurn>(() => undefined));
      closers.push(() => model.close());
      return callWith(clientFor(model.baseURL, { timeout: 100 }));
    }),
  ],
  "APIConnectionError ← an untrusted TLS certificate (self-signed, unknown CA, wrong host name, expired)": [
    ex("a self-signed certificate (DEPTH_ZERO_SELF_SIGNED_CERT)", async () => {
      const dir = mkdtempSync(join(tmpdir(), "tls-"));
      execFileSync(
        "openssl",
        [
          "req",
          "-x509",
          "-newkey",
          "rsa:2048",
          "-nodes",
          "-keyout",
          join(dir, "key.pem"),
          "-out",
          join(dir, "cert.pem"),
          "-days",
          "1",
          "-subj",
          "/CN=127.0.0.1",
        ],
        { stdio: "ignore" },
      );
      const server = createHttpsServer(
        { key: readFileSync(join(dir, "key.pem")), cert: readFileSync(join(dir, "cert.pem")) },
        sse(""),
      );
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      closers.push(() => new Promise((resolve) => (server.closeAllConnections(), server.close(resolve))));
      return callWith(clientFor(`https://127.0.0.1:${(server.address() as { port: number }).port}/v1`));
    }),
  ],
  "APIConnectionError ← a baseURL fetch refuses (unknown scheme, a blocked port)": [
    ex("ftp://", () => callWith(clientFor("ftp://127.0.0.1/v1"))),
    ex("port 1 (a port fetch blocks)", () => callWith(clientFor("http://127.0.0.1:1/v1"))),
  ],
  "APIConnectionError ← refused, unreachable or not resolved (ECONNREFUSED, EHOSTUNREACH, ENETUNREACH, ENOTFOUND, EAI_AGAIN)":
    [
      ex("ECONNREFUSED (nothing listens)", async () =>
        callWith(clientFor(`http://127.0.0.1:${await closedPort()}/v1`)),
      ),
      ex("ENOTFOUND (a name that does not resolve)", () => callWith(clientFor("http://model.invalid/v1"))),
    ],
  "APIConnectionError ← the socket closed before the headers (UND_ERR_SOCKET, ECONNRESET, EPIPE, UND_ERR_CLOSED)": [
    ex("the server closes the socket on the request (UND_ERR_SOCKET)", () => tcpServer((socket) => socket.destroy())),
    ex("the server resets the socket on the request (ECONNRESET)", () =>
      tcpServer((socket) => socket.resetAndDestroy()),
    ),
  ],
  "APIConnectionError ← a response that is not HTTP/1.1 (HPE_*, UND_ERR_HEADERS_OVERFLOW)": [
    ex("an invalid status line (HPE_INVALID_STATUS)", () =>
      tcpServer((socket) => socket.end("HTTP/1.1 2x0 NOPE\r\n\r\n")),
    ),
    ex("headers over undici's limit (UND_ERR_HEADERS_OVERFLOW)", () =>
      httpServer(
        (req, res) => (
          req.resume(),
          res.writeHead(200, { "content-type": "text/event-stream", "x-big": "a".repeat(70_000) }),
          res.end()
        ),
      ),
    ),
  ],
  "APIConnectionError (any other cause)": [
    ex(
      "built from its class: a cause no other row names",
      async () => new OpenAI.APIConnectionError({ cause: new Error("something new in undici") }),
    ),
  ],
  "an API key or header that is not a valid HTTP header value": [
    ex("an API key with a newline (pasted from a file)", async () =>
      callWith(clientFor(`http://127.0.0.1:${await closedPort()}/v1`, { apiKey: "sk-te\nst" })),
    ),
  ],
  "terminated ← UND_ERR_SOCKET (the server or a proxy closed the socket mid-stream)": [
    ex("cut after the first chunk (socket destroyed)", () => scripted({ text: "Hello there", cutAfterChunks: 1 })),
    ex("cut after a tool call's first chunk", () =>
      scripted({ toolCalls: [{ name: "t", arguments: { a: "b" } }], cutAfterChunks: 2 }),
    ),
    ex("a body shorter than its content-length (premature end)", () =>
      httpServer((req, res) => {
        req.resume();
        const body = chunk({ role: "assistant", content: "Hel" });
        res.writeHead(200, { "content-type": "text/event-stream", "content-length": String(body.length + 100) });
        res.write(body, () => res.socket?.end());
      }),
    ),
    ex("a raw stream hung up mid-JSON", () =>
      scripted({ raw: chunk({ role: "assistant", content: "Hello" }).slice(0, 40), hangUp: true }),
    ),
  ],
  "terminated ← ECONNRESET / EPIPE (a TCP reset mid-stream)": [
    ex("cut after the first chunk by a TCP reset", () =>
      scripted({ text: "Hello there", cutAfterChunks: 1, cutBy: "reset" }),
    ),
  ],
  "terminated (any other cause: UND_ERR_BODY_TIMEOUT, UND_ERR_RES_CONTENT_LENGTH_MISMATCH, ...)": [
    ex("UND_ERR_BODY_TIMEOUT (a stalled body, undici bodyTimeout 100 ms)", async () => {
      const model = await startScriptedModel([{ text: "Hello there", stallAfterChunks: 1 }]);
      closers.push(() => model.close());
      const dispatcher = new (nodeFetchAgent())({ bodyTimeout: 100 });
      closers.push(() => dispatcher.close());
      return callWith(clientFor(model.baseURL, { fetchOptions: { dispatcher } as Record<string, unknown> }));
    }),
  ],
  "Premature close (ERR_STREAM_PREMATURE_CLOSE, from a fetch built on Node streams)": [
    ex("a custom fetch whose body errors with Node's premature close", async () => {
      const readable = new Readable({ read() {} });
      const premature = finished(readable).then(
        () => undefined,
        (error: unknown) => error,
      );
      readable.destroy();
      const error = await premature;
      const customFetch = async () =>
        new Response(
          new ReadableStream({
            start: (c) => c.enqueue(new TextEncoder().encode(chunk({ role: "assistant", content: "Hel" }))),
            pull: (c) => c.error(error),
          }),
          { headers: { "content-type": "text/event-stream" } },
        );
      return callWith(clientFor("http://model.test/v1", { fetch: customFetch }));
    }),
  ],
  "missing finish_reason (the body ended without the final chunk)": [
    ex("the response ends after 2 chunks", () => scripted({ text: "Hello there", cutAfterChunks: 2, cutBy: "end" })),
  ],
  "request ended without sending any chunks (an empty event stream)": [
    ex("an empty text/event-stream body", () => scripted({ raw: "" })),
    ex("only data: [DONE]", () => scripted({ raw: "data: [DONE]\n\n" })),
  ],
  "a chunk that is not JSON (SyntaxError)": [
    ex("data: {nope", () => scripted({ raw: "data: {nope\n\n" })),
    ex("invalid UTF-8 where JSON was expected", () =>
      scripted({
        raw: [
          chunk({ role: "assistant", content: "" }),
          "data: ",
          new Uint8Array([0xff, 0xfe, 0x80]),
          "\n\n",
          "data: [DONE]\n\n",
        ],
      }),
    ),
  ],
  "a chunk of the wrong shape (missing role, tool call fields; TypeError in the stream helper)": [
    ex("choices: null", () => scripted({ raw: `data: {"id":"c","choices":null}\n\ndata: [DONE]\n\n` })),
    ex("a tool call without a type", () =>
      scripted({
        raw:
          chunk({
            role: "assistant",
            tool_calls: [{ index: 0, id: "call_1", function: { name: "t", arguments: "{}" } }],
          }) +
          chunk({}, "tool_calls") +
          "data: [DONE]\n\n",
      }),
    ),
  ],
  "LengthFinishReasonError / ContentFilterFinishReasonError": [
    ex(
      "built from its class (raised only for auto-parsed tools, which durable-agent does not send): length",
      async () => new LengthFinishReasonError(),
    ),
    ex("built from its class: content filter", async () => new ContentFilterFinishReasonError()),
  ],
  // AI SDK models (ai.model()): real provider packages against the scripted servers.
  ...aiSdkExamples(closers),
};

/** The undici Agent class behind Node's fetch (its global dispatcher), to set a short bodyTimeout. */
function nodeFetchAgent(): new (options: { bodyTimeout: number }) => { close(): Promise<void> } {
  const dispatcher = (globalThis as Record<symbol, unknown>)[Symbol.for("undici.globalDispatcher.1")];
  if (!dispatcher) throw new Error("Node's fetch has no global dispatcher yet");
  return (dispatcher as { constructor: new (options: { bodyTimeout: number }) => { close(): Promise<void> } })
    .constructor;
}

describe("MODEL_ERROR_TABLE", () => {
  it("every row has an example here, and every example names a row", () => {
    expect(Object.keys(EXAMPLES).sort()).toEqual(MODEL_ERROR_TABLE.map((row) => row.error).sort());
    expect(new Set(MODEL_ERROR_TABLE.map((row) => row.error)).size).toBe(MODEL_ERROR_TABLE.length);
  });

  for (const row of MODEL_ERROR_TABLE) {
    describe(`${row.error} → ${row.fault}`, () => {
      for (const example of EXAMPLES[row.error] ?? []) {
        it(
          example.name,
          async () => {
            const error = await example.make();
            const { row: matched, fault } = classifyModelError(error);
            expect(matched?.error, modelErrorMessage(error, "gpt-table")).toBe(row.error);
            expect(fault).toBe(row.fault);
          },
          20_000,
        );
      }
    });
  }

  it("an error no row matches is transient (a run is worth more than an attempt)", () => {
    for (const error of [new Error("something nobody foresaw"), "a thrown string", { weird: true }]) {
      expect(classifyModelError(error)).toEqual({ row: undefined, fault: "transient" });
    }
  });

  it("the message names the model, the status or each cause with its code", async () => {
    expect(modelErrorMessage(await scripted({ status: 503 }), "gpt-table")).toMatch(
      /^Model "gpt-table" API error 503: /,
    );
    expect(modelErrorMessage(await scripted({ text: "Hello there", cutAfterChunks: 1 }), "gpt-table")).toBe(
      'Model "gpt-table": terminated ← other side closed (UND_ERR_SOCKET)',
    );
    expect(
      modelErrorMessage(await callWith(clientFor(`http://127.0.0.1:${await closedPort()}/v1`)), "gpt-table"),
    ).toMatch(
      /^Model "gpt-table" is unreachable: Connection error\. ← fetch failed ← connect ECONNREFUSED 127\.0\.0\.1:\d+$/,
    );
  });
});

describe("a 200 that is not a chat completion stream (item 2)", () => {
  it.each([
    [
      "an HTML page",
      {
        raw: "<!doctype html><html><head><title>llama.cpp</title></head><body>" + "x".repeat(400),
        contentType: "text/html; charset=utf-8",
      },
      "content-type text/html; charset=utf-8",
    ],
    [
      "a proxy's login page",
      { raw: "<html><body><form action=/login>Sign in to Corp Proxy</form></body></html>", contentType: "text/html" },
      "content-type text/html",
    ],
    ["plain text", { raw: "Hello from nginx", contentType: "text/plain" }, "content-type text/plain"],
    ["no content type", { raw: "OK", contentType: "" }, "no content-type"],
  ])(
    "%s: a ModelApiError naming the status, the content type and the first 200 characters, and suggesting to check baseURL",
    async (_name, turn, typeText) => {
      const error = modelApiErrorFor(await scripted(turn), "gpt-table") as Error & {
        status?: number;
        contentType?: string | null;
        bodyStart?: string;
      };
      const start = turn.raw.length > 200 ? `${turn.raw.slice(0, 200)}…` : turn.raw;
      expect(error.name).toBe("ModelApiError");
      expect(error).toMatchObject({
        status: 200,
        modelId: "gpt-table",
        bodyStart: start,
        contentType: turn.contentType || null,
      });
      expect(error.message).toContain(
        `the server answered 200 with ${typeText}, not a chat completion stream (text/event-stream). It sent: ${JSON.stringify(start)}.`,
      );
      expect(error.message).toMatch(/^Model "gpt-table": the server answered 200 /);
      expect(error.message).toMatch(
        /Check the model's baseURL \(the request went to http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions\): an OpenAI-compatible API usually ends in \/v1/,
      );
    },
  );
});
