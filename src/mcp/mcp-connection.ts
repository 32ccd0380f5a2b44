/**
 * Worker-side: one MCP client per toolset, connected on first use and reused by every run on the
 * worker. A stdio server is started once; a server that died (or an HTTP connection that was lost)
 * is reconnected on the next request, with a log line.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult, Tool as ListedTool } from "@modelcontextprotocol/sdk/types.js";
import { McpServerError } from "../errors.js";
import type { ResolvedMcpOptions } from "./mcp-options.js";
import type * as McpSdk from "./mcp-sdk.js";

/** The SDK, once a connection has loaded it (`mcp-sdk.ts`). */
let sdk: typeof McpSdk | undefined;

const CLIENT_INFO = { name: "durable-agent", version: "0.1.0" };
/** How long starting and initializing a connection may take. */
const CONNECT_TIMEOUT_MS = 60_000;

/** Options of one tool call. */
/**
 * The `_meta` key of every `tools/call` request that carries the call's idempotency key (the
 * tool's `ctx.idempotencyKey`): a server makes its side effect exactly-once by keying it, since a
 * call whose connection was lost is retried by Temporal and reaches the server again.
 */
export const MCP_IDEMPOTENCY_KEY = "durable-agent/idempotencyKey";

export interface McpCallOptions {
  /** Sent as the request's `_meta["durable-agent/idempotencyKey"]`: the same on every attempt of the call. */
  idempotencyKey: string;
  signal: AbortSignal;
  onProgress: (progress: { progress: number; total?: number; message?: string }) => void;
}

/** A connection to one MCP server, (re)made on demand. */
export class McpConnection {
  readonly #options: ResolvedMcpOptions;
  #client: Promise<Client> | undefined;
  #connectedBefore = false;

  constructor(options: ResolvedMcpOptions) {
    this.#options = options;
  }

  /** The server's URL (without credentials or query) or command line, for messages: never its headers or env. */
  get target(): string {
    const t = this.#options.transport;
    return t.type === "http" ? `${t.url.origin}${t.url.pathname}` : [t.command, ...t.args].join(" ");
  }

  /** Every tool the server lists (all pages). */
  async listTools(): Promise<ListedTool[]> {
    return this.#request(async (client) => {
      const tools: ListedTool[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: this.#options.timeoutMs });
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor);
      return tools;
    });
  }

  /** Calls a tool; progress notifications restart the timeout. Cancelling `signal` sends MCP cancellation. */
  async callTool(tool: string, args: Record<string, unknown>, options: McpCallOptions): Promise<CallToolResult> {
    return this.#request(
      async (client) =>
        (await client.callTool(
          { name: tool, arguments: args, _meta: { [MCP_IDEMPOTENCY_KEY]: options.idempotencyKey } },
          undefined,
          {
            signal: options.signal,
            timeout: this.#options.timeoutMs,
            resetTimeoutOnProgress: true,
            onprogress: options.onProgress,
          },
        )) as CallToolResult,
      options.signal,
    );
  }

  /** Closes the connection (stops a stdio server); the next request connects again. */
  async close(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    await client?.then((c) => c.close()).catch(() => undefined);
  }

  async #request<T>(fn: (client: Client) => Promise<T>, signal?: AbortSignal): Promise<T> {
    const connecting = this.#connect();
    let client: Client;
    try {
      client = await connecting;
    } catch (error) {
      throw this.#classify(error, "could not connect");
    }
    try {
      return await fn(client);
    } catch (error) {
      if (signal?.aborted) throw signal.reason ?? error;
      const typed = this.#classify(error, "the request failed");
      if (typed.retryable) {
        // Reconnect from scratch on the next request, unless another request has already.
        if (this.#client === connecting) this.#client = undefined;
        await client.close().catch(() => undefined);
      }
      throw typed;
    }
  }

  #connect(): Promise<Client> {
    if (!this.#client) {
      const connecting = this.#open(this.#connectedBefore);
      this.#client = connecting;
      connecting.then(
        (client) => {
          this.#connectedBefore = true;
          client.onclose = () => {
            if (this.#client === connecting) this.#client = undefined;
          };
        },
        () => {
          if (this.#client === connecting) this.#client = undefined;
        },
      );
    }
    return this.#client;
  }

  async #open(reconnecting: boolean): Promise<Client> {
    if (reconnecting) {
      // Loaded here, on the worker, not with the root entry (it loads @temporalio/common's whole index).
      const { log } = await import("@temporalio/activity");
      log.warn(
        `MCP server "${this.#options.name}" is not connected (it exited or the connection was lost); reconnecting`,
        {
          server: this.#options.name,
          target: this.target,
        },
      );
    }
    const { Client, SSEClientTransport, StdioClientTransport, StreamableHTTPClientTransport, StreamableHTTPError } =
      (sdk ??= await import("./mcp-sdk.js"));
    const t = this.#options.transport;
    const init = { timeout: CONNECT_TIMEOUT_MS }; // a server's start (npx, a container) may take longer than one request
    if (t.type === "stdio") {
      const client = new Client(CLIENT_INFO);
      await client.connect(
        new StdioClientTransport({
          command: t.command,
          args: t.args,
          env: t.env /* added to the SDK's basic environment (PATH, HOME, ...) */,
          ...(t.cwd ? { cwd: t.cwd } : {}),
          stderr: "inherit",
        }),
        init,
      );
      return client;
    }
    const requestInit = { headers: t.headers };
    try {
      const client = new Client(CLIENT_INFO);
      await client.connect(new StreamableHTTPClientTransport(t.url, { requestInit }), init);
      return client;
    } catch (error) {
      // A server that answers Streamable HTTP's POST with 4xx may be an older HTTP+SSE one.
      if (
        !(error instanceof StreamableHTTPError) ||
        error.code === undefined ||
        error.code < 400 ||
        error.code >= 500 ||
        error.code === 401 ||
        error.code === 403
      )
        throw error;
      const client = new Client(CLIENT_INFO);
      await client.connect(new SSEClientTransport(t.url, { requestInit }) as Transport, init);
      return client;
    }
  }

  /** A lost or refused connection may be retried; an answer that breaks the protocol, a timeout or refused credentials not. */
  #classify(error: unknown, what: string): McpServerError {
    if (McpServerError.isInstance(error)) return error;
    const typed = (problem: string, retryable: boolean) =>
      new McpServerError(this.#options.name, this.target, problem, retryable);
    const message = error instanceof Error ? error.message : String(error);
    if (sdk && error instanceof sdk.McpError) {
      if (error.code === sdk.ErrorCode.ConnectionClosed) return typed(`the connection was lost (${message})`, true);
      if (error.code === sdk.ErrorCode.RequestTimeout)
        return typed(`no answer within ${this.#options.timeoutMs} ms (the \`timeout\` option)`, false);
      return typed(`the server answered with error ${error.code}: ${message.replace(/^MCP error -?\d+: /, "")}`, false);
    }
    if (isSchemaError(error))
      return typed(`the server's answer does not follow the MCP schema: ${schemaProblem(error)}`, false);
    if (sdk && error instanceof sdk.StreamableHTTPError && (error.code === 401 || error.code === 403))
      return typed(`the server refused the credentials (HTTP ${error.code}); check the \`headers\` option`, false);
    if ((error as NodeJS.ErrnoException)?.code === "ENOENT")
      return typed(`the command was not found (${message})`, false);
    return typed(`${what}: ${causeText(error)}`, true);
  }
}

/** A fetch failure's own message hides the reason (ECONNREFUSED, ...) in its cause. */
function causeText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  return cause?.code || cause?.message ? `${message} (${cause.code ?? cause.message})` : message;
}

/** The SDK's schema check of an answer failed (a ZodError, of zod 3 or 4). */
function isSchemaError(error: unknown): error is { issues: Array<{ path?: unknown[]; message?: string }> } {
  return error instanceof Error && Array.isArray((error as { issues?: unknown }).issues);
}

function schemaProblem(error: { issues: Array<{ path?: unknown[]; message?: string }> }): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${(issue.path ?? []).join(".") || "(root)"}: ${issue.message ?? "invalid"}`)
    .join("; ")
    .slice(0, 500);
}
