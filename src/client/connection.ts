import { readFileSync } from "node:fs";
import type { Client, TLSConfig } from "@temporalio/client";
import type { DataConverter } from "@temporalio/common";
import { dataConverterFromEnv } from "../codec/data-converter.js";
import { DEFAULT_NAMESPACE, DEFAULT_TASK_QUEUE, DEFAULT_TEMPORAL_ADDRESS } from "../core/constants.js";
import { TemporalConnectionError, TlsConfigError } from "../errors.js";
import type { TelemetryOptions } from "../telemetry/telemetry-options.js";
import { defined } from "../core/defined.js";
import { loadTemporalClient } from "../run-reads/index.js";
import { useDeltas, type DeltaTransport } from "../deltas/index.js";

/** Where the Temporal server is. Defaults: `TEMPORAL_ADDRESS`, `TEMPORAL_NAMESPACE`, `TEMPORAL_TASK_QUEUE`, else localhost:7233, default, durable-agent. */
export interface TemporalSettings {
  address: string;
  namespace: string;
  taskQueue: string;
}

/** Settings from options, then the environment, then defaults. */
export function temporalSettings(overrides: Partial<TemporalSettings> = {}): TemporalSettings {
  return {
    address: overrides.address ?? process.env.TEMPORAL_ADDRESS ?? DEFAULT_TEMPORAL_ADDRESS,
    namespace: overrides.namespace ?? process.env.TEMPORAL_NAMESPACE ?? DEFAULT_NAMESPACE,
    taskQueue: overrides.taskQueue ?? process.env.TEMPORAL_TASK_QUEUE ?? DEFAULT_TASK_QUEUE,
  };
}

/** How to authenticate to the Temporal server: TLS (mTLS with a client certificate) and/or an API key (Temporal Cloud). */
export interface TemporalSecurity {
  /** `true` for TLS with the system's roots, or certificates; absent for a plaintext connection. */
  tls?: TLSConfig | boolean;
  /** Sent as `Authorization: Bearer <key>`; turns TLS on unless `tls` is `false`. */
  apiKey?: string;
}

/** Options of `connectClient` (`ai.connect`): where, how to authenticate, and how payloads are encoded. */
export interface ConnectOptions extends Partial<TemporalSettings>, TemporalSecurity {
  /** Default: payload encryption from `DURABLE_AGENT_CODEC_KEYS`, else none. */
  dataConverter?: DataConverter;
  /** OpenTelemetry spans for the client's starts, queries and signals, linked to the runs' spans; off by default. */
  telemetry?: TelemetryOptions;
  /**
   * How this client's streams read the answer in flight: `ai.deltas.redis({ url })` (through
   * Redis, no read of Temporal while the model answers) or `ai.deltas.heartbeats()`. Default:
   * Redis at `DURABLE_AGENT_REDIS_URL` when it is set, else heartbeats.
   */
  deltas?: DeltaTransport;
}

/**
 * TLS and API key from the environment, with the same names as the `temporal` CLI:
 * `TEMPORAL_API_KEY`; `TEMPORAL_TLS=true|false`; `TEMPORAL_TLS_CERT` and `TEMPORAL_TLS_KEY` (client
 * certificate and key files, for mTLS); `TEMPORAL_TLS_CA` (the server's root CA file);
 * `TEMPORAL_TLS_SERVER_NAME`. Any TLS file or an API key turns TLS on unless `TEMPORAL_TLS=false`.
 * Throws `TlsConfigError` naming the variable and the file when a file is missing or half a pair is given.
 */
export function temporalSecurityFromEnv(env: NodeJS.ProcessEnv = process.env): TemporalSecurity {
  const apiKey = env.TEMPORAL_API_KEY || undefined;
  const cert = env.TEMPORAL_TLS_CERT || undefined;
  const key = env.TEMPORAL_TLS_KEY || undefined;
  const ca = env.TEMPORAL_TLS_CA || undefined;
  const serverName = env.TEMPORAL_TLS_SERVER_NAME || undefined;
  const flag = env.TEMPORAL_TLS?.trim().toLowerCase();
  if (flag && !["true", "1", "false", "0"].includes(flag))
    throw new TlsConfigError(
      "TEMPORAL_TLS",
      undefined,
      `TEMPORAL_TLS must be true or false (got ${JSON.stringify(env.TEMPORAL_TLS)}).`,
    );
  const explicitOff = flag === "false" || flag === "0";
  const wanted = flag === "true" || flag === "1" || Boolean(cert || key || ca || serverName);
  if (explicitOff || !wanted) return apiKey ? { apiKey, ...(explicitOff ? { tls: false } : {}) } : {};
  if (cert && !key)
    throw new TlsConfigError(
      "TEMPORAL_TLS_KEY",
      undefined,
      "TEMPORAL_TLS_CERT is set but TEMPORAL_TLS_KEY is not; mTLS needs the client certificate's private key too.",
    );
  if (key && !cert)
    throw new TlsConfigError(
      "TEMPORAL_TLS_CERT",
      undefined,
      "TEMPORAL_TLS_KEY is set but TEMPORAL_TLS_CERT is not; mTLS needs the client certificate too.",
    );
  const tls: TLSConfig = {
    ...(serverName ? { serverNameOverride: serverName } : {}),
    ...(ca ? { serverRootCACertificate: readTlsFile("TEMPORAL_TLS_CA", ca) } : {}),
    ...(cert && key
      ? { clientCertPair: { crt: readTlsFile("TEMPORAL_TLS_CERT", cert), key: readTlsFile("TEMPORAL_TLS_KEY", key) } }
      : {}),
  };
  return { tls: Object.keys(tls).length ? tls : true, ...(apiKey ? { apiKey } : {}) };
}

function readTlsFile(variable: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const problem =
      code === "ENOENT"
        ? "does not exist"
        : code === "EACCES"
          ? "cannot be read (permission denied)"
          : `cannot be read (${(error as Error).message})`;
    throw new TlsConfigError(variable, path, `${variable} names ${path}, which ${problem}.`);
  }
}

/** Security from options, else from the environment. */
export function temporalSecurity(options: TemporalSecurity = {}): TemporalSecurity {
  const fromEnv =
    options.tls === undefined ? temporalSecurityFromEnv() : { apiKey: process.env.TEMPORAL_API_KEY || undefined };
  const tls = options.tls ?? fromEnv.tls;
  const apiKey = options.apiKey ?? fromEnv.apiKey;
  return { ...defined({ tls, apiKey }) };
}

/**
 * Connects a Temporal client, turning a failure into a `TemporalConnectionError` that names the
 * address. TLS, API key and payload encryption come from options, else from the environment.
 */
export async function connectClient(overrides: ConnectOptions = {}): Promise<Client> {
  const { address, namespace } = temporalSettings(overrides);
  const security = temporalSecurity(overrides);
  const dataConverter = overrides.dataConverter ?? dataConverterFromEnv();
  await overrides.deltas?.load(); // a missing `redis` package is an error now, not at the first stream
  // Loaded here, not at import: the Temporal client (gRPC, protobuf) and OpenTelemetry are what importing the root would cost most.
  const { Client, Connection } = await loadTemporalClient();
  const interceptors = overrides.telemetry
    ? (await import("../telemetry/client-telemetry.js")).telemetryClientInterceptors(overrides.telemetry)
    : undefined;
  try {
    const connection = await Connection.connect({ address, connectTimeout: "5s", ...security });
    const client = new Client({ connection, namespace, ...defined({ dataConverter, interceptors }) });
    if (overrides.deltas) useDeltas(client, overrides.deltas);
    return client;
  } catch (error) {
    throw new TemporalConnectionError(address, error);
  }
}

let defaultClient: Promise<Client> | undefined;

/** The process-wide client used when a run is given none; connected on first use from the environment. */
export function getDefaultClient(): Promise<Client> {
  defaultClient ??= connectClient().catch((error) => {
    defaultClient = undefined;
    throw error;
  });
  return defaultClient;
}
