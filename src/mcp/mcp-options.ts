/** Options of `ai.mcp()` and their checks. */
import type { Duration } from "@temporalio/common";
import { durationMs, durationProblem } from "../duration.js";
import { AgentOptionsError } from "../errors.js";
import { defined } from "../core/defined.js";

/** A tool as the server lists it, for the `tools` predicate. */
export interface McpListedTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

/** What a `needsApproval` function of `ai.mcp()` receives. */
export interface McpApprovalCandidate {
  /** The tool's name on the server. */
  tool: string;
  /** The validated input. */
  input: unknown;
}

/** Options every MCP toolset takes. */
export interface McpCommonOptions {
  /** Names the server in the agent's tool records (`source: "mcp:<name>"`), summaries and errors; unique per agent. */
  name: string;
  /** Expose only some tools: a list of the server's tool names, or a predicate. Default: all. */
  tools?: string[] | ((tool: McpListedTool) => boolean);
  /** Pause for a person's approval before calling: `true`, a list of tool names, or a function of the call. Default false. */
  needsApproval?: boolean | string[] | ((call: McpApprovalCandidate) => boolean | Promise<boolean>);
  /** How long a call that needs approval waits before it is refused (as `ai.tool`'s `approvalTimeout`); default: as long as it takes. */
  approvalTimeout?: Duration;
  /**
   * How long one request to the server (listing, a call) may take; progress notifications restart
   * it. Default 60 seconds. (Connecting, a server's start included, has its own 60 seconds.)
   */
  timeout?: Duration;
  /** How long a worker may reuse a tool list it took for new runs. Default 0: every run lists the tools afresh. */
  cacheToolsFor?: Duration;
  /** Expose the tools as `<name>__<tool>`, to keep apart tools of several servers with the same names. Default false. */
  prefix?: boolean;
}

/** A server started by the worker, spoken to over stdio. Started once per worker and restarted when it dies. */
export interface McpStdioOptions extends McpCommonOptions {
  command: string;
  args?: string[];
  /** Added to the worker's basic environment (PATH, HOME, ...). Read on the worker only: never recorded in a run's history. */
  env?: Record<string, string>;
  cwd?: string;
}

/** A server over Streamable HTTP, falling back to the older HTTP+SSE transport when the server does not speak it. */
export interface McpHttpOptions extends McpCommonOptions {
  url: string | URL;
  /** Sent with every request (e.g. `authorization`). Read on the worker only: never recorded in a run's history. */
  headers?: Record<string, string>;
}

/** Options of `ai.mcp()`: a stdio server (`command`) or an HTTP one (`url`). */
export type McpOptions = McpStdioOptions | McpHttpOptions;

/** Every option key of `ai.mcp()`, in one list. */
export const MCP_OPTION_KEYS = [
  "name",
  "tools",
  "needsApproval",
  "approvalTimeout",
  "timeout",
  "cacheToolsFor",
  "prefix",
  "command",
  "args",
  "env",
  "cwd",
  "url",
  "headers",
] as const;

/** `ai.mcp()` options with defaults filled in and durations in milliseconds. */
export interface ResolvedMcpOptions {
  name: string;
  transport:
    | { type: "stdio"; command: string; args: string[]; env: Record<string, string>; cwd?: string }
    | { type: "http"; url: URL; headers: Record<string, string> };
  tools?: McpCommonOptions["tools"];
  needsApproval: NonNullable<McpCommonOptions["needsApproval"]>;
  /** How long a call waits for approval, in milliseconds; undefined: no limit. */
  approvalTimeoutMs?: number;
  timeoutMs: number;
  cacheToolsForMs: number;
  prefix: boolean;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const NAME = /^[a-zA-Z0-9_-]{1,40}$/;

function fail(field: string, problem: string): never {
  throw new AgentOptionsError(`mcp.${field}`, problem);
}

function duration(field: string, value: Duration | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  return durationMs(value) ?? fail(field, durationProblem(value));
}

function stringRecord(field: string, value: unknown): Record<string, string> {
  if (value === undefined) return {};
  if (typeof value !== "object" || value === null || Object.values(value).some((v) => typeof v !== "string"))
    fail(field, "must be an object of strings");
  return { ...(value as Record<string, string>) };
}

/** Checks `ai.mcp()` options, naming the first bad field. */
export function resolveMcpOptions(options: McpOptions): ResolvedMcpOptions {
  if (!options || typeof options !== "object")
    fail("options", "ai.mcp() needs an options object { name, command } or { name, url }");
  for (const key of Object.keys(options)) {
    if (!(MCP_OPTION_KEYS as readonly string[]).includes(key))
      fail(key, `is not an option of ai.mcp() (options are ${MCP_OPTION_KEYS.join(", ")})`);
  }
  if (typeof options.name !== "string" || !NAME.test(options.name))
    fail("name", `must be 1-40 letters, digits, "_" or "-" (got ${JSON.stringify(options.name)})`);
  const hasCommand = "command" in options && options.command !== undefined;
  const hasUrl = "url" in options && options.url !== undefined;
  if (hasCommand === hasUrl)
    fail(
      hasCommand ? "url" : "command",
      `MCP server "${options.name}" needs either a command (stdio) or a url (Streamable HTTP), not ${hasCommand ? "both" : "neither"}`,
    );
  const { tools, needsApproval = false } = options;
  if (
    tools !== undefined &&
    typeof tools !== "function" &&
    !(Array.isArray(tools) && tools.every((t) => typeof t === "string"))
  ) {
    fail("tools", "must be a list of tool names or a predicate (tool) => boolean");
  }
  if (
    typeof needsApproval !== "boolean" &&
    typeof needsApproval !== "function" &&
    !(Array.isArray(needsApproval) && needsApproval.every((t) => typeof t === "string"))
  ) {
    fail("needsApproval", "must be true, false, a list of tool names, or a function ({ tool, input }) => boolean");
  }
  if (options.prefix !== undefined && typeof options.prefix !== "boolean") fail("prefix", "must be true or false");
  const common = {
    name: options.name,
    ...defined({ tools }),
    needsApproval,
    ...(options.approvalTimeout !== undefined
      ? { approvalTimeoutMs: duration("approvalTimeout", options.approvalTimeout, 0) }
      : {}),
    timeoutMs: duration("timeout", options.timeout, DEFAULT_TIMEOUT_MS),
    cacheToolsForMs: duration("cacheToolsFor", options.cacheToolsFor, 0),
    prefix: options.prefix === true,
  };
  if ("command" in options && hasCommand) {
    if (typeof options.command !== "string" || options.command === "")
      fail("command", 'must be the server\'s executable, e.g. "npx"');
    if (
      options.args !== undefined &&
      !(Array.isArray(options.args) && options.args.every((a) => typeof a === "string"))
    )
      fail("args", "must be a list of strings");
    if (options.cwd !== undefined && typeof options.cwd !== "string") fail("cwd", "must be a directory path");
    return {
      ...common,
      transport: {
        type: "stdio",
        command: options.command,
        args: [...(options.args ?? [])],
        env: stringRecord("env", options.env),
        ...(options.cwd ? { cwd: options.cwd } : {}),
      },
    };
  }
  const http = options as McpHttpOptions;
  let url: URL;
  try {
    url = new URL(http.url);
  } catch {
    fail("url", `must be an http(s) URL (got ${JSON.stringify(String(http.url))})`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    fail("url", `must be an http(s) URL (got ${JSON.stringify(url.href)})`);
  return { ...common, transport: { type: "http", url, headers: stringRecord("headers", http.headers) } };
}
