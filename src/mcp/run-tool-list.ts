/** Worker-side: the MCP tool list a run fixed at its start, read from the run once per worker and kept. */
import type { Context } from "@temporalio/activity";
import type { McpToolDefinition } from "../core/mcp-tools.js";
import { mcpToolsQuery } from "../workflows/definitions.js";

const CACHED_RUNS = 256;
const lists = new Map<string, McpToolDefinition[]>();

/** The run's MCP tools, as recorded by its `mcp.list` activity (the run's own list, not the server's current one). */
export async function runMcpTools(context: Context): Promise<McpToolDefinition[]> {
  const execution = context.info.workflowExecution;
  if (!execution) return [];
  let tools = lists.get(execution.runId);
  if (!tools) {
    tools = await context.client.workflow.getHandle(execution.workflowId, execution.runId).query(mcpToolsQuery);
    lists.set(execution.runId, tools);
    if (lists.size > CACHED_RUNS) lists.delete(lists.keys().next().value!);
  }
  return tools;
}
