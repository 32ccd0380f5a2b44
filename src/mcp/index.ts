/** MCP servers' tools for agents: `ai.mcp()`. */
import { McpToolset } from "./mcp-toolset.js";
import type { McpOptions } from "./mcp-options.js";

/**
 * An MCP server's tools, for an agent's `tools` beside `ai.tool()` values: `{ name, command,
 * args?, env?, cwd? }` for a stdio server, `{ name, url, headers? }` for Streamable HTTP (with the
 * SSE fallback). Each run lists the tools once at its start and keeps that list; every call is a
 * `tool.execute` activity. Throws `AgentOptionsError` naming a bad option.
 */
export function defineMcp(options: McpOptions): McpToolset {
  return new McpToolset(options);
}

export { McpToolset } from "./mcp-toolset.js";
export { MCP_IDEMPOTENCY_KEY } from "./mcp-connection.js";
export type {
  McpOptions,
  McpStdioOptions,
  McpHttpOptions,
  McpCommonOptions,
  McpListedTool,
  McpApprovalCandidate,
} from "./mcp-options.js";
export type { McpToolOutput, McpContentPart } from "./fit-content.js";
export type { McpToolDefinition } from "../core/mcp-tools.js";
