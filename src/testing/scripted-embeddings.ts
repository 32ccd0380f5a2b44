/**
 * A scripted OpenAI embeddings API (`POST /v1/embeddings`) on loopback, for `@ai-sdk/openai`
 * (`createOpenAI({ baseURL }).embeddingModel(id)`) through `embed`/`embedMany`, or any
 * OpenAI-compatible client. Its vectors are deterministic, and similar texts are near: each text is
 * a hashed bag of its lowercased word stems (stop words left out) in `dimensions` dimensions,
 * L2-normalised, so texts that share words have a high cosine similarity and texts that share none
 * have about zero.
 */
import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import { startScriptedServer, writeStatus, type StatusTurn } from "./scripted-server.js";

/** An embeddings request as the server received it. */
export interface ScriptedEmbeddingsRequest {
  /** 0-based order of arrival. */
  index: number;
  /** The parsed JSON body. */
  body: unknown;
  /** The request headers (lower-case names). */
  headers: IncomingHttpHeaders;
  /** The texts asked for, in order. */
  input: string[];
  /** The `model` the client named. */
  model: string;
}

/** Options of `startScriptedEmbeddings()`. */
export interface ScriptedEmbeddingsOptions {
  /** Dimensions of every vector, unless a request asks for its own (`dimensions`). Default 256. */
  dimensions?: number;
  /** A port to listen on. Default: a free one. */
  port?: number;
  /** Answers a request with an HTTP error instead (a 429, a 500) when it returns one: to script an embedder's failures. */
  fail?: (request: ScriptedEmbeddingsRequest) => StatusTurn | undefined;
}

/** A running scripted embeddings server. */
export interface ScriptedEmbeddings {
  /** `http://127.0.0.1:<port>/v1`: give it to `createOpenAI({ baseURL })`. */
  baseURL: string;
  /** The requests received, in order. */
  requests: ScriptedEmbeddingsRequest[];
  /** The vector the server gives `text`. */
  embed(text: string): number[];
  /** Stops the server. */
  close(): Promise<void>;
}

/** Words that say little about a text's subject, left out of its vector. */
const STOP_WORDS = new Set(
  (
    "a an and are as at be but by did do does for from had has have he her his i if in into is it its me my no not of on or our " +
    "she so than that the their them then there they this to too us was we were what when which who will with you your"
  ).split(" "),
);

/** A crude stem: the word without a common English suffix (`injured`, `injuries`, `injury` → `injur`). */
function stem(word: string): string {
  for (const suffix of ["ingly", "ing", "ies", "ied", "ed", "es", "ly", "s", "y"])
    if (word.length - suffix.length >= 3 && word.endsWith(suffix)) return word.slice(0, -suffix.length);
  return word;
}

/** FNV-1a, 32 bits. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** The scripted server's vector of `text`: a hashed bag of its word stems, L2-normalised (a text with no words has one of its own). */
export function scriptedEmbedding(text: string, dimensions = 256): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  const words = (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => !STOP_WORDS.has(w)).map(stem);
  for (const word of words.length ? words : [`<${text}>`]) {
    const h = hash(word);
    vector[h % dimensions]! += h & 0x80000000 ? -1 : 1;
  }
  const length = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0)) || 1;
  return vector.map((x) => x / length);
}

/** An OpenAI error envelope. */
function openAiError(status: number, message: string, param?: string): StatusTurn {
  return { status, body: { error: { message, type: "invalid_request_error", param: param ?? null, code: null } } };
}

/** Float32 little-endian, base64: OpenAI's `encoding_format: "base64"`. */
function base64(vector: number[]): string {
  return Buffer.from(new Float32Array(vector).buffer).toString("base64");
}

/**
 * Starts a scripted embeddings server on 127.0.0.1. Every request to `POST /v1/embeddings` with
 * `input` a string or an array of strings gets `data[{ object, embedding, index }]` and `usage`
 * (one token per word); anything else gets OpenAI's 400 envelope.
 */
export async function startScriptedEmbeddings(options: ScriptedEmbeddingsOptions = {}): Promise<ScriptedEmbeddings> {
  const dimensions = options.dimensions ?? 256;
  const server = await startScriptedServer<ScriptedEmbeddingsRequest>(
    {
      matches: (method, path) => method === "POST" && path.split("?")[0] === "/v1/embeddings",
      record(received) {
        const body = received.body as { input?: unknown; model?: unknown };
        const input = typeof body.input === "string" ? [body.input] : Array.isArray(body.input) ? body.input : [];
        const { index, headers } = received;
        return { index, body, headers, input: input as string[], model: String(body.model ?? "") };
      },
      respond: (request, res) => respond(request, res, dimensions, options.fail),
      errorBody: (message, status) => openAiError(status, message).body,
    },
    options.port,
  );
  return {
    baseURL: `${server.origin}/v1`,
    requests: server.requests,
    embed: (text) => scriptedEmbedding(text, dimensions),
    close: () => server.close(),
  };
}

async function respond(
  request: ScriptedEmbeddingsRequest,
  res: ServerResponse,
  defaultDimensions: number,
  fail: ScriptedEmbeddingsOptions["fail"],
): Promise<void> {
  const body = request.body as { input?: unknown; dimensions?: unknown; encoding_format?: unknown };
  const failure = fail?.(request);
  if (failure) return writeStatus(res, failure);
  const input = body.input;
  if (!(
    typeof input === "string" ||
    (Array.isArray(input) && input.length > 0 && input.every((x) => typeof x === "string"))
  ))
    return writeStatus(res, openAiError(400, "'input' must be a string or a non-empty array of strings.", "input"));
  const dimensions = body.dimensions ?? defaultDimensions;
  if (typeof dimensions !== "number" || !Number.isInteger(dimensions) || dimensions < 1 || dimensions > 4096)
    return writeStatus(res, openAiError(400, "'dimensions' must be a whole number from 1 to 4096.", "dimensions"));
  const encode = body.encoding_format === "base64" ? base64 : (vector: number[]) => vector;
  const tokens = request.input.reduce((sum, text) => sum + (text.match(/[\p{L}\p{N}]+/gu)?.length ?? 0), 0);
  writeStatus(res, {
    status: 200,
    body: {
      object: "list",
      data: request.input.map((text, index) => ({
        object: "embedding",
        index,
        embedding: encode(scriptedEmbedding(text, dimensions)),
      })),
      model: request.model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    },
  });
}
