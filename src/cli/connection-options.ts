/**
 * The connection options every command takes, before or after the command's name: `--address`,
 * `--namespace`, `--api-key` and the TLS options, with the names of the `temporal` CLI. Each wins
 * over the environment variable the library reads otherwise (src/client/connection.ts).
 */
import type { Client } from "@temporalio/client";
import type { NativeConnection } from "@temporalio/worker";
import {
  connectClient,
  temporalSecurityFromEnv,
  temporalSettings,
  type TemporalSecurity,
  type TemporalSettings,
} from "../client/connection.js";
import { TemporalConnectionError, TlsConfigError } from "../errors.js";
import { installCliRuntime } from "./cli-runtime.js";

/** One connection option: its flag, the variable it overrides, and its line in the help. */
interface ConnectionOption {
  flag: string;
  type: "string" | "boolean";
  variable: string;
  value: string;
  help: string;
}

/** The connection options, in the order the help lists them. */
export const CONNECTION_OPTIONS: readonly ConnectionOption[] = [
  {
    flag: "address",
    type: "string",
    variable: "TEMPORAL_ADDRESS",
    value: "<host:port>",
    help: "the Temporal server (default localhost:7233)",
  },
  {
    flag: "namespace",
    type: "string",
    variable: "TEMPORAL_NAMESPACE",
    value: "<name>",
    help: "the namespace (default default)",
  },
  {
    flag: "api-key",
    type: "string",
    variable: "TEMPORAL_API_KEY",
    value: "<key>",
    help: "sent as a bearer token; turns TLS on (Temporal Cloud)",
  },
  {
    flag: "tls",
    type: "boolean",
    variable: "TEMPORAL_TLS",
    value: "",
    help: "connect with TLS (the system's roots, unless --tls-ca-path)",
  },
  {
    flag: "tls-cert-path",
    type: "string",
    variable: "TEMPORAL_TLS_CERT",
    value: "<file>",
    help: "client certificate for mTLS (with --tls-key-path)",
  },
  {
    flag: "tls-key-path",
    type: "string",
    variable: "TEMPORAL_TLS_KEY",
    value: "<file>",
    help: "the client certificate's private key",
  },
  {
    flag: "tls-ca-path",
    type: "string",
    variable: "TEMPORAL_TLS_CA",
    value: "<file>",
    help: "the server's root CA certificate",
  },
  {
    flag: "tls-server-name",
    type: "string",
    variable: "TEMPORAL_TLS_SERVER_NAME",
    value: "<name>",
    help: "the name the server's certificate must carry",
  },
];

/** The connection options as `node:util` `parseArgs` takes them. */
export const CONNECTION_PARSE_OPTIONS: Record<string, { type: "string" | "boolean" }> = Object.fromEntries(
  CONNECTION_OPTIONS.map((option) => [option.flag, { type: option.type }]),
);

/** The help's lines for the connection options. */
export function connectionHelp(): string[] {
  const left = CONNECTION_OPTIONS.map((option) => `--${option.flag}${option.value ? ` ${option.value}` : ""}`);
  const width = Math.max(...left.map((text) => text.length));
  return CONNECTION_OPTIONS.map((option, i) => `  ${left[i]!.padEnd(width)}  ${option.help}; else ${option.variable}`);
}

/** What the CLI prints for a connection that failed: the typed error's message, and where the CLI takes the address from. */
export function connectionProblem(error: TemporalConnectionError | TlsConfigError): string {
  return TemporalConnectionError.isInstance(error)
    ? `${error.message} (Or give --address <host:port>.)`
    : error.message;
}

/** Values of the connection options given, by flag name (`address`, `tls`, ...). */
export type ConnectionValues = Record<string, string | boolean | undefined>;

/**
 * Where and how the CLI's commands reach Temporal: the connection options given, else the
 * environment, else the defaults. Connects a client and a worker connection once each, on first
 * use; `close()` closes what it opened.
 */
export class CliConnection {
  /** The options given, as written (`--address`): for the commands they do not apply to. */
  readonly given: string[] = [];
  readonly #env: NodeJS.ProcessEnv;
  /** The variables set by an option, with the option's flag: errors name the flag. */
  readonly #flagOf = new Map<string, string>();
  #client: Promise<Client> | undefined;
  #workerConnection: Promise<NativeConnection> | undefined;

  constructor(values: ConnectionValues = {}, env: NodeJS.ProcessEnv = process.env) {
    const overrides: Record<string, string> = {};
    for (const option of CONNECTION_OPTIONS) {
      const value = values[option.flag];
      if (value === undefined || value === false) continue;
      overrides[option.variable] = value === true ? "true" : value;
      this.#flagOf.set(option.variable, `--${option.flag}`);
      this.given.push(`--${option.flag}`);
    }
    // A TLS file or server name given as an option means TLS, whatever TEMPORAL_TLS says.
    if (this.given.some((flag) => flag.startsWith("--tls-"))) overrides.TEMPORAL_TLS = "true";
    this.#env = { ...env, ...overrides };
  }

  /** Address, namespace, and the task queue (`--task-queue`, else TEMPORAL_TASK_QUEUE, else the default). */
  settings(taskQueue?: string): TemporalSettings {
    return temporalSettings({
      address: this.#env.TEMPORAL_ADDRESS,
      namespace: this.#env.TEMPORAL_NAMESPACE,
      taskQueue: taskQueue ?? this.#env.TEMPORAL_TASK_QUEUE,
    });
  }

  /** TLS and API key; a `TlsConfigError` names the option (or the variable) to fix. */
  security(): TemporalSecurity {
    try {
      return temporalSecurityFromEnv(this.#env);
    } catch (error) {
      if (!TlsConfigError.isInstance(error) || this.#flagOf.size === 0) throw error;
      let message = error.message.replace(/^TLS for the Temporal connection: /, "");
      for (const [variable, flag] of this.#flagOf)
        message = message.replace(new RegExp(`\\b${variable}\\b`, "g"), flag);
      throw new TlsConfigError(this.#flagOf.get(error.variable) ?? error.variable, error.path, message);
    }
  }

  /** The Temporal client, connected on first use; a failure is a `TemporalConnectionError` naming the address. */
  client(): Promise<Client> {
    this.#client ??= Promise.resolve().then(() => {
      const { address, namespace } = this.settings();
      return connectClient({ address, namespace, ...this.security() });
    });
    return this.#client;
  }

  /** A connection for a worker in this process, opened on first use. */
  workerConnection(): Promise<NativeConnection> {
    this.#workerConnection ??= Promise.resolve().then(async () => {
      const { address } = this.settings();
      const security = this.security();
      await installCliRuntime(); // before the runtime's first use
      const { NativeConnection } = await import("@temporalio/worker");
      try {
        return await NativeConnection.connect({ address, ...security });
      } catch (error) {
        throw new TemporalConnectionError(address, error);
      }
    });
    return this.#workerConnection;
  }

  /** Closes the client's and the worker's connections, if they were opened. */
  async close(): Promise<void> {
    const opened = [
      this.#client?.then((client) => client.connection.close()),
      this.#workerConnection?.then((connection) => connection.close()),
    ];
    await Promise.all(opened.map((closing) => closing?.catch(() => undefined)));
  }
}
