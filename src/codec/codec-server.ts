/**
 * A codec server: Temporal's remote codec endpoint (`POST /encode`, `POST /decode`) over the
 * payload codec, so the Temporal UI and CLI can show encrypted runs in plaintext to the people
 * allowed to reach it. Point the UI at it (`--ui-codec-endpoint`, or the UI's "Codec Server"
 * setting); the browser calls it directly, so it answers CORS preflights for the UI's origin.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Payload, PayloadCodec } from "@temporalio/common";
import { DurableAgentError, PayloadCodecError } from "../errors.js";
import { refusedSource } from "../http/index.js";
import { AesGcmPayloadCodec } from "./aes-gcm-codec.js";
import { codecKeysFromEnv, type CodecKeyring } from "./codec-keys.js";

/** Options of `startCodecServer`. */
export interface CodecServerOptions {
  /** The codec to serve. Default: AES-256-GCM with `keys`, else with the keys in `DURABLE_AGENT_CODEC_KEYS`. */
  codec?: PayloadCodec;
  /** Keys for the default codec. */
  keys?: CodecKeyring;
  /** Default 8888. 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1: only this machine. Bind wider only behind access control. */
  host?: string;
  /**
   * Browser origins allowed to call the server (the Temporal UI's). Default `DURABLE_AGENT_CODEC_CORS_ORIGINS`
   * (comma-separated), else the dev server's UI and docker-compose's: http://localhost:8233, http://127.0.0.1:8233, http://localhost:8080.
   */
  corsOrigins?: string[];
  /**
   * Decides whether a request may use the codec, e.g. by checking the access token the UI sends
   * in `Authorization` when its codec setting passes it. Default: every request that reaches the
   * server (keep it on loopback or behind your own proxy).
   */
  authorize?: (request: IncomingMessage) => boolean | Promise<boolean>;
  /** Largest request body accepted. Default 32 MiB. */
  maxBodyBytes?: number;
}

/** A running codec server. */
export interface CodecServer {
  /** The endpoint to give the UI, e.g. `http://127.0.0.1:8888`. */
  readonly url: string;
  /** Stops the server. */
  close(): Promise<void>;
}

/** The UI's default origins: the dev server's UI and docker-compose's UI. */
export const DEFAULT_CORS_ORIGINS = ["http://localhost:8233", "http://127.0.0.1:8233", "http://localhost:8080"];
const DEFAULT_PORT = 8888;
const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;

/** Starts a codec server. */
export async function startCodecServer(options: CodecServerOptions = {}): Promise<CodecServer> {
  const codec = options.codec ?? new AesGcmPayloadCodec(options.keys ?? requireEnvKeys());
  const origins = new Set(options.corsOrigins ?? corsOriginsFromEnv() ?? DEFAULT_CORS_ORIGINS);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;

  const { createServer } = await import("node:http"); // when a server is started, not when the root is imported
  const server = createServer((req, res) => {
    handle(req, res).catch((error) => {
      const status = error instanceof HttpError ? error.status : DurableAgentError.isInstance(error) ? 400 : 500;
      const message = error instanceof Error ? error.message : String(error);
      if (!res.headersSent) res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify({ message }));
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const origin = req.headers.origin;
    if (origin && origins.has(origin)) {
      res.setHeader("access-control-allow-origin", origin);
      res.setHeader("access-control-allow-credentials", "true");
      res.setHeader("vary", "Origin");
    }
    if (req.method === "OPTIONS") {
      if (!origin || !origins.has(origin))
        throw new HttpError(
          403,
          `origin ${origin ?? "(none)"} is not allowed; add it to corsOrigins or DURABLE_AGENT_CODEC_CORS_ORIGINS`,
        );
      res.writeHead(204, {
        "access-control-allow-methods": "POST, OPTIONS",
        "access-control-allow-headers": "Content-Type, X-Namespace, Authorization",
        "access-control-allow-private-network": "true",
        "access-control-max-age": "600",
      });
      res.end();
      return;
    }
    // A POST from a page whose origin is not allowed is refused, as the browser refuses it the answer.
    const header = (name: string) => [req.headers[name] ?? []].flat()[0];
    const refused = refusedSource(
      { method: req.method ?? "GET", header },
      { allowedOrigins: origins, requireJson: false },
    );
    if (refused)
      throw new HttpError(403, `${refused} Add the origin to corsOrigins or DURABLE_AGENT_CODEC_CORS_ORIGINS.`);
    const operation = new URL(req.url ?? "/", "http://codec").pathname.match(/\/(encode|decode)\/?$/)?.[1] as
      "encode" | "decode" | undefined;
    if (req.method !== "POST" || !operation)
      throw new HttpError(404, `no route ${req.method} ${req.url}; use POST /encode or POST /decode`);
    if (options.authorize && !(await options.authorize(req)))
      throw new HttpError(401, "not authorised to use this codec server");
    const body = await readJson(req, maxBodyBytes);
    const payloads = fromJsonPayloads(body);
    const result = operation === "encode" ? await codec.encode(payloads) : await codec.decode(payloads);
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ payloads: result.map(toJsonPayload) }));
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? DEFAULT_PORT, options.host ?? "127.0.0.1", resolve);
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(":") ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

class HttpError extends Error {
  override name = "HttpError";
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function requireEnvKeys(): CodecKeyring {
  const keys = codecKeysFromEnv();
  if (!keys)
    throw new PayloadCodecError("no keys: set DURABLE_AGENT_CODEC_KEYS (id:base64key, comma-separated) or pass keys.");
  return keys;
}

function corsOriginsFromEnv(): string[] | undefined {
  const value = process.env.DURABLE_AGENT_CODEC_CORS_ORIGINS;
  return value
    ? value
        .split(",")
        .map((origin) => origin.trim())
        .filter(Boolean)
    : undefined;
}

function readJson(req: IncomingMessage, maxBytes: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        reject(new HttpError(413, `request body over ${maxBytes} bytes`));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      } catch {
        reject(new HttpError(400, "the body is not JSON; send { payloads: [{ metadata, data }] }"));
      }
    });
    req.on("error", reject);
  });
}

/** Payloads in the protobuf JSON form the UI sends: `{ metadata: { key: base64 }, data: base64 }`. */
interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

function fromJsonPayloads(body: unknown): Payload[] {
  const payloads = (body as { payloads?: unknown })?.payloads;
  if (!Array.isArray(payloads)) throw new HttpError(400, "the body must be { payloads: [...] }");
  return payloads.map((raw: JsonPayload, index) => {
    if (typeof raw !== "object" || raw === null) throw new HttpError(400, `payload #${index + 1} is not an object`);
    const metadata: Record<string, Uint8Array> = {};
    for (const [key, value] of Object.entries(raw.metadata ?? {}))
      metadata[key] = base64(value, `payload #${index + 1} metadata "${key}"`);
    return { metadata, data: base64(raw.data ?? "", `payload #${index + 1} data`) };
  });
}

function base64(value: unknown, what: string): Uint8Array {
  if (typeof value !== "string" || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(value))
    throw new HttpError(400, `${what} is not base64`);
  return new Uint8Array(Buffer.from(value, "base64"));
}

function toJsonPayload(payload: Payload): JsonPayload {
  const metadata: Record<string, string> = {};
  for (const [key, value] of Object.entries(payload.metadata ?? {}))
    if (value) metadata[key] = Buffer.from(value).toString("base64");
  return { metadata, data: Buffer.from(payload.data ?? new Uint8Array()).toString("base64") };
}
