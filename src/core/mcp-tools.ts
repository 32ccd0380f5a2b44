/** The MCP tools a run uses, as plain data. Workflow-safe. */

/**
 * One tool of an MCP server as a run uses it. The list is taken once, at the run's start (the
 * `mcp.list` activity), and is fixed for the run: it is recorded in the history and carried across
 * continue-as-new, so a server that changes its tools later changes nothing for that run.
 */
export interface McpToolDefinition {
  /** The name the model calls the tool by: the tool's own, or `<server>__<tool>` with `prefix: true`. */
  name: string;
  /** The toolset's name (`ai.mcp({ name })`). */
  server: string;
  /** The tool's name on the server. */
  tool: string;
  description?: string;
  /** The tool's JSON schema for its input, as the server listed it. */
  inputSchema: Record<string, unknown>;
}

/** The `source` of an MCP tool call's record. */
export function mcpSource(server: string): string {
  return `mcp:${server}`;
}
